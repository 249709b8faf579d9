#!/usr/bin/env bash
# Replay speed of this tree beside earlier revisions: whole-process wall time of
# `pktdedup --pcap-in IN --pcap-out OUT` on the same capture as pcap and as pcapng,
# each revision built in a git worktree under $TMPDIR, runs alternating within each of
# REPS rounds; medians, in frames per second. A benchmark, not a test.
#   bash scripts/bench_replay.sh [N] [REPS] [REV...]   (defaults: 2000000 5 HEAD)
# The capture: scripts/gen_udp_pcap.py --mirror 8 (N 64-byte frames, each seen twice).
# Without a window in every build: a build that has the packet key's default window
# (100 ms) is given --window none.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2000000}
reps=${2:-5}
shift $(($# < 2 ? $# : 2))
revs=("${@:-HEAD}")
bash scripts/build.sh >/dev/null
tmp=$(mktemp -d)
trap 'for r in "${revs[@]}"; do git worktree remove --force "$tmp/wt-$r" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
/usr/bin/python3 scripts/gen_udp_pcap.py "$tmp/in.pcap" "$n" --mirror 8
editcap -F pcapng "$tmp/in.pcap" "$tmp/in.pcapng"
args="--key packet --compare-from l2 --ignore none --filter qqhtd"
names=() cmds=()
for r in "${revs[@]}"; do
	git worktree add -f --detach "$tmp/wt-$r" "$r" >/dev/null 2>&1
	(cd "$tmp/wt-$r" && meson setup build >/dev/null && ninja -C build app/pktdedup/pktdedup >/dev/null)
	b=$tmp/wt-$r/build/app/pktdedup/pktdedup
	a=$args
	! "$b" --help | grep -q "none: a copy" || a+=" --window none"
	names+=("$r pcap" "$r pcapng->pcap")
	cmds+=("$b --pcap-in $tmp/in.pcap --pcap-out $tmp/out $a"
	       "$b --pcap-in $tmp/in.pcapng --pcap-out $tmp/out $a")
done
b=build/app/pktdedup/pktdedup
args+=" --window none"
names+=("this pcap" "this pcapng->pcap" "this pcapng->pcapng")
cmds+=("$b --pcap-in $tmp/in.pcap --pcap-out $tmp/out $args"
       "$b --pcap-in $tmp/in.pcapng --pcap-out $tmp/out --out-format pcap $args"
       "$b --pcap-in $tmp/in.pcapng --pcap-out $tmp/out $args")
declare -A times
for round in $(seq "$reps"); do
	for i in "${!cmds[@]}"; do
		t0=$(date +%s%N)
		${cmds[$i]} >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
		t1=$(date +%s%N)
		times[$i]="${times[$i]:-} $(((t1 - t0) / 1000000))"
	done
	echo "round $round done" >&2
done
printf '%-28s %10s %14s   %s\n' run "median ms" "Mframes/s" "all ms"
for i in "${!cmds[@]}"; do
	med=$(printf '%s\n' ${times[$i]} | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	printf '%-28s %10s %14s   %s\n' "${names[$i]}" "$med" \
		"$(awk -v n="$n" -v ms="$med" 'BEGIN { printf "%.2f", n / ms / 1000 }')" "${times[$i]}"
done
