#!/usr/bin/env bash
# The memory floor of 1..8 random cache lines per key (and 7 lines only read) in a table
# (default 64 MiB), single core, prefetching into L1 and into L2 only: what no filter
# touching that many lines per key can beat here. A benchmark.
#   bash scripts/bench_memfloor.sh [SIZE_MIB] [KEYS]
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
cc -O2 -std=gnu11 -o build/memfloor scripts/memfloor.c
for lines in 1 2 3 4 6 7 8; do
	taskset -c 0 build/memfloor "${1:-64}" "$lines" "${2:-10000000}"
done
taskset -c 0 build/memfloor "${1:-64}" 7 "${2:-10000000}" read # bloom, timerbf: a DUPLICATE stores nothing
