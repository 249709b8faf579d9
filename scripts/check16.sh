#!/usr/bin/env bash
# Software dispatch's checks on a lent 16-core machine in one call that fits the device
# tool's 10-minute limit (docs/speed.md, "Sixteen cores"). Parts, in this order:
#   demote: the rings alone (tests/bench/bench_fanout), a thread per worker, lookups
#     written and read in place (worker.c's design for --action count on one port)
#     against the same with each line demoted to the shared cache (CLDEMOTE, policies
#     dp,dc), 3 runs of 4 s at each worker count: what the hint is worth on this CPU;
#   inline: the application with that hint (a release build of branch try/demote,
#     BIN_DIR/pktdedup-demote) against BIN_DIR/pktdedup, WORKERS=15 then 8,
#     --action count, 3 alternating rounds (scripts/bench_inline.sh); left out when
#     there is no such binary;
#   table: scripts/bench_workers.sh, one round at 1 and each worker count: testpmd io,
#     RSS (net_null, packet key, --window none), software dispatch (net_pcap, flow key),
#     independent processes (the table of docs/speed.md).
# The core-to-core round trip (scripts/pingpong.c) is printed before and after, and the
# CPU's flags say whether it has CLDEMOTE (on a CPU without it the hint is a NOP).
#   BIN_DIR=DIR bash scripts/check16.sh [SECS] [PART...]   (default: 5 demote inline table)
# DIR holds pktdedup and dpdk-testpmd with their libraries in DIR/../lib (made as
# scripts/bench_common.sh says, or by the scale16 bundle's make-bundle.sh), and beside them
# bench_fanout (build/tests/bench_fanout), pingpong (cc -O2 -pthread -o pingpong
# scripts/pingpong.c) and optionally pktdedup-demote (git worktree add /tmp/td try/demote,
# then bash scripts/build.sh there: /tmp/td/build/app/pktdedup/pktdedup). NS="8 15"
# (environment) sets the worker counts; OUT=DIR (the device tool sets it) keeps each
# part's full output there. On the 2-core EPYC, NS=2 and SECS 3, the parts took 15, 41
# and 95 s; with the defaults on the 16-core VM, about 7 minutes is expected (not yet
# run there). A benchmark, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench_common.sh
[ -n "${BIN_DIR:-}" ] && [ -x "$BIN_DIR/pktdedup" ] && [ -x "$BIN_DIR/bench_fanout" ] || {
	echo "check16.sh: BIN_DIR must hold pktdedup and bench_fanout (the head of this" \
		"script says how)" >&2
	exit 1
}
BIN_DIR=$(cd "$BIN_DIR" && pwd)
export BIN_DIR
secs=${1:-5}
shift $(($# >= 1 ? 1 : 0))
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(demote inline table)
read -r -a ns <<<"${NS:-8 15}"
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
ncpu=$(nproc)
for n in "${ns[@]}"; do
	[ "$n" -ge 2 ] && [ "$n" -le "$ncpu" ] ||
		{ echo "check16.sh: $n workers need $n CPUs, this shell has $ncpu" >&2; exit 1; }
done
for p in "${parts[@]}"; do
	case $p in demote | inline | table) ;; *) echo "check16.sh: no part $p" >&2; exit 1 ;; esac
done
roundtrip() {
	[ -x "$BIN_DIR/pingpong" ] || return 0
	echo "round trip, CPU 0 with CPUs 1 and $((ncpu - 1)), $1: $("$BIN_DIR/pingpong" 0 1 200000)" \
		"and $("$BIN_DIR/pingpong" 0 $((ncpu - 1)) 200000) ns"
}
machine_lines
grep -q -w cldemote /proc/cpuinfo || echo "no cldemote: the hint runs as a NOP here"
roundtrip before
Z=nov,h8,rounds=16,zc
for p in "${parts[@]}"; do
	t0=$(date +%s)
	case $p in
	demote)
		for n in "${ns[@]}"; do
			c=$((n < ncpu ? 1 : 0)) # off CPU 0 where there is room
			for _ in 1 2 3; do
				"$BIN_DIR/bench_fanout" -w "$n" -t "$n" -c "$c" -s 4 $Z $Z,dp,dc
			done | tee "$out/demote-$n.txt" |
				sed -n 's/.*(medians): [^ ]* \([0-9.]*\), [^ ]* \([0-9.]*\), B\/A \([0-9.]*\);.*/\1 \2 \3/p' |
				awk -v n="$n" '{ printf "%s%s ns a packet in place, %s demoted: %s", (NR > 1 ? "; " : "demote, " n " workers: "), $1, $2, $3 } END { print "" }'
		done
		;;
	inline)
		if [ ! -x "$BIN_DIR/pktdedup-demote" ]; then
			echo "inline: no $BIN_DIR/pktdedup-demote, left out"
			continue
		fi
		for n in $(printf '%s\n' "${ns[@]}" | sort -rn); do
			WORKERS=$n ACTIONS=count bash scripts/bench_inline.sh "$secs" 3 \
				"$BIN_DIR/pktdedup-demote" >"$out/inline-$n.txt" 2>&1 ||
				{ echo "inline, $n workers: failed ($out/inline-$n.txt)"; continue; }
			echo "inline, $n workers (this: pktdedup; below 1, the hint gains):"
			grep -i -E 'median|ratio' "$out/inline-$n.txt" || tail -n 3 "$out/inline-$n.txt"
		done
		;;
	table)
		bash scripts/bench_workers.sh "$secs" 1 1 "${ns[@]}" >"$out/table.txt" 2>&1 ||
			echo "table: failed ($out/table.txt)"
		grep '^|' "$out/table.txt" || tail -n 5 "$out/table.txt"
		;;
	esac
	echo "($p: $(($(date +%s) - t0)) s)"
done
roundtrip after
