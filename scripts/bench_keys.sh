#!/usr/bin/env bash
# Key-extraction speed, single core: flow keys from 64-byte UDP/IPv4 frames, packet
# keys from 512-byte TCP frames, with and without the keyed hash. A benchmark.
#   bash scripts/bench_keys.sh [PACKETS] [REPS] [auto: with --decap auto]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
taskset -c 0 build/tests/bench_keys "${1:-20000000}" "${2:-5}" ${3:+"$3"}
