#!/usr/bin/env bash
# Single-core ns/key of every filter (keyed hashing + burst calls, as pktdedup-eval times
# them) at 1 MiB and 64 MiB, median of REPS runs. A benchmark, not a test.
#   bash scripts/bench_filters.sh [N_KEYS] [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench_common.sh
bash scripts/build.sh
n=${1:-10000000}
reps=${2:-3}
eval_bin=build/app/eval/pktdedup-eval
filters="sbf rsbf bsbf bsbfsd rlbsbf qht qhtd qqhtd bloom lru fpbuffering timerbf exact qhtlru"
machine_lines
printf '%-12s %14s %14s\n' filter "1 MiB ns/key" "64 MiB ns/key"
for f in $filters; do
	row=()
	for mem in 1M 64M; do
		vals=()
		for r in $(seq "$reps"); do
			vals+=("$(taskset -c 0 "$eval_bin" --filter "$f" --memory $mem --n "$n" \
				--distinct 0.15 --json | /usr/bin/python3 -c \
				'import json,sys; print(json.load(sys.stdin)["ns_per_key"])')")
		done
		row+=("$(printf '%s\n' "${vals[@]}" | sort -g | sed -n "$(((reps + 1) / 2))p")")
	done
	printf '%-12s %14s %14s\n' "$f" "${row[0]}" "${row[1]}"
done
