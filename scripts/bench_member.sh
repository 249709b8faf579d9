#!/usr/bin/env bash
# pktdedup's qqhtd and qhtlru beside DPDK's rte_member (HT in cache mode, vBF) on the same
# keys and the same table bytes: ns/key, FPR and FNR against an exact oracle. A
# benchmark, not a test (tests/bench/bench_member.c says what each contestant does).
#   bash scripts/bench_member.sh [bench_member options]
#   (default: --memory 64 (MiB) --n 20000000 --distinct 0.15 --fpr 1e-6 --rounds 3)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
exec taskset -c 0 build/tests/bench_member "$@"
