#!/usr/bin/env bash
# Software dispatch's rings alone as the workers grow (tests/bench/bench_fanout.c): for
# each worker count W, rounds of SECS-second runs of bench_fanout, and medians of:
#   ns a packet the rings cost beyond the rest of a round (plain: worker.c's polling and
#     publication), from an A/A run, and the same with both workers' rounds in turn on
#     one CPU (-t 1: nothing crosses between cores; instructions and cache footprint);
#   ahead / plain, rounds=16 / plain and h8 / plain: the two alternated within one run
#     in slices of 0.1 s (a poll that asks for every ring's new lines before taking any;
#     publication every 16 busy rounds instead of 4; lookups of 8 bytes, the hash alone,
#     as worker.c hands over when untimed, against 16);
#   merged / separate: one ring each way between a pair, carrying lookups and verdicts
#     (bench_fanout -M), against a ring of lookups and one of verdicts each way; separate
#     runs, alternated, the order reversed every round;
#   in place / copies: worker.c's lookups as it hands them over with --action count on
#     one port (nov,h8,rounds=16), written and read in place (zc) against lists by owner
#     copied into and out of the rings, alternated within one run, and the same on one
#     CPU;
#   demoted / in place: the same lookups in place, each line of them moved towards the
#     shared last-level cache (CLDEMOTE) by its producer once published and by its
#     consumer once read (zc,dp,dc), so that the next core to want it need not ask the
#     one that has it: a hint, a NOP on CPUs without it (the 2-core EPYC).
# By default each worker count runs on 2 threads, each a worker whose W - 1 peers are all
# the other thread (every ring carries what it carries with W workers, its lines cross
# between two cores); REAL=1 runs W threads, one a CPU (needs W CPUs; from CPU 1 when
# there are more). Prints the core-to-core round trip before and after (scripts/
# pingpong.c: on the development VM it switches between about 110 and 550 ns, and the
# rings' cost with it). BIN_DIR=DIR runs DIR/bench_fanout (and DIR/pingpong if there)
# instead of building: it needs only libc, so it runs on a machine without the
# project's packages (a release build's build/tests/bench_fanout, carried there).
# A benchmark, not a test (docs/speed.md, "Sixteen cores").
#   bash scripts/bench_fanout.sh [SECS] [REPS] [WORKERS...]   (default: 6 3 2 4 8 15)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench_common.sh
secs=${1:-6}
reps=${2:-3}
shift $(($# >= 2 ? 2 : $#))
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(2 4 8 15)
tmp=$(mktemp -d)
: >"$tmp/log"
# a run that fails (a verdict that did not match its packet: exit status 1) stops the
# sweep; its line says why
trap 'rc=$?; [ $rc -eq 0 ] || tail -n 2 "$tmp/log" >&2; rm -rf "$tmp"' EXIT
if [ -n "${BIN_DIR:-}" ]; then
	bin=$BIN_DIR/bench_fanout
	[ -x "$bin" ] || { echo "bench_fanout.sh: no $bin" >&2; exit 1; }
	[ -x "$BIN_DIR/pingpong" ] && cp "$BIN_DIR/pingpong" "$tmp/pingpong"
else
	bash scripts/build.sh >/dev/null
	bin=build/tests/bench_fanout
fi
if [ ! -x "$tmp/pingpong" ] && command -v cc >/dev/null; then
	cc -O2 -std=gnu11 -pthread -o "$tmp/pingpong" scripts/pingpong.c
fi
ncpu=$(nproc)
roundtrip() {
	[ -x "$tmp/pingpong" ] && [ "$ncpu" -ge 2 ] || return 0
	echo "core-to-core round trip, CPUs 0 and 1, $1: $(timeout 60 "$tmp/pingpong" 0 1) ns"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { # the value after "$1 " in bench_fanout's line, or B/A's
	sed -n "s/.*(medians): .*$1 \\([0-9.]*\\).*/\\1/p"
}
layout() { # threads and first CPU for $1 workers, or a message and exit
	threads=2 cpu0=0
	if [ "${REAL:-0}" = 1 ]; then
		threads=$1
		[ "$ncpu" -gt "$1" ] && cpu0=1
		[ $((cpu0 + $1)) -le "$ncpu" ] ||
			{ echo "bench_fanout.sh: $1 workers need $1 CPUs, this shell has $ncpu" >&2; exit 1; }
	fi
	[ "$threads" -le "$ncpu" ] || { echo "bench_fanout.sh: needs 2 CPUs" >&2; exit 1; }
}
for w in "${counts[@]}"; do # every count checked before the first run
	layout "$w"
done
machine_lines
roundtrip before
echo "| workers | threads | ns a packet, plain | on one CPU | ahead / plain | rounds=16 / plain | h8 / plain | merged / separate | in place / copies | on one CPU | demoted / in place |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for w in "${counts[@]}"; do
	layout "$w"
	run() { "$bin" -w "$w" -t "$threads" -c "$cpu0" -s "$secs" "$@"; }
	for f in plain solo ahead r16 h8 merged zc zc1 dem; do : >"$tmp/$f"; done
	for ((r = 1; r <= reps; r++)); do
		run plain plain >>"$tmp/log"
		tail -n 1 "$tmp/log" | sed -n 's/.*(medians): plain \([0-9.]*\),.*/\1/p' >>"$tmp/plain"
		"$bin" -w "$w" -t 1 -c "$cpu0" -s "$secs" >>"$tmp/log"
		tail -n 1 "$tmp/log" | sed -n 's/.*(medians): plain \([0-9.]*\),.*/\1/p' >>"$tmp/solo"
		run plain ahead | tee -a "$tmp/log" | field "B\\/A" >>"$tmp/ahead"
		run plain rounds=16 | tee -a "$tmp/log" | field "B\\/A" >>"$tmp/r16"
		run plain h8 | tee -a "$tmp/log" | field "B\\/A" >>"$tmp/h8"
		run nov,h8,rounds=16 nov,h8,rounds=16,zc | tee -a "$tmp/log" | field "B\\/A" >>"$tmp/zc"
		"$bin" -w "$w" -t 1 -c "$cpu0" -s "$secs" nov,h8,rounds=16 nov,h8,rounds=16,zc |
			tee -a "$tmp/log" | field "B\\/A" >>"$tmp/zc1"
		run nov,h8,rounds=16,zc nov,h8,rounds=16,zc,dp,dc | tee -a "$tmp/log" |
			field "B\\/A" >>"$tmp/dem"
		if ((r % 2)); then
			s=$(run | tee -a "$tmp/log" | field plain)
			m=$(run -M | tee -a "$tmp/log" | field plain)
		else
			m=$(run -M | tee -a "$tmp/log" | field plain)
			s=$(run | tee -a "$tmp/log" | field plain)
		fi
		echo "round $r, $w workers: separate $s, merged $m ns a packet" >>"$tmp/log"
		awk -v m="$m" -v s="$s" 'BEGIN { printf "%.3f\n", m / s }' >>"$tmp/merged"
	done
	printf '| %s | %s | %.1f | %.1f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n' "$w" \
		"$threads" "$(median <"$tmp/plain")" "$(median <"$tmp/solo")" \
		"$(median <"$tmp/ahead")" "$(median <"$tmp/r16")" "$(median <"$tmp/h8")" \
		"$(median <"$tmp/merged")" "$(median <"$tmp/zc")" "$(median <"$tmp/zc1")" \
		"$(median <"$tmp/dem")"
done
roundtrip after
echo
echo "runs:"
cat "$tmp/log"
