#!/usr/bin/env bash
# Offline dedup of a capture, whole-process wall time: pktdedup --pcap-in against
# Wireshark's editcap -w (time window) and editcap -D (window of packets), on one file,
# alternating within each of REPS rounds; medians and ratios. A benchmark, not a test.
#
# The capture (scripts/gen_udp_pcap.py --mirror 8): N 64-byte frames, 1 us apart, N/2
# different ones each seen twice, the copy about 17 us after the first (a TAP aggregating
# two mirror points). Every tool compares whole frames and must keep exactly N/2 of them;
# pktdedup's exact-filter output must be editcap -w's file byte for byte.
#   bash scripts/bench_offline.sh [N] [REPS]      (defaults: 1000000 3)
# editcap -D 100000 compares each frame with the 100,000 before it: about 4 minutes a
# round on 1,000,000 frames here.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
reps=${2:-3}
bash scripts/build.sh >/dev/null
command -v editcap >/dev/null || { echo "bench_offline.sh: needs editcap (wireshark-common)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
in=$tmp/in.pcap
python3 scripts/gen_udp_pcap.py "$in" "$n" --mirror 8
want=$((n / 2))
key=(--key packet --compare-from l2 --ignore none) # whole frames, as editcap compares
cfgs=(
	"pktdedup-qqhtd-w1ms|build/app/pktdedup/pktdedup --pcap-in $in --pcap-out $tmp/out.pcap ${key[*]} --filter qqhtd --window 1ms"
	"pktdedup-exact-w1ms|build/app/pktdedup/pktdedup --pcap-in $in --pcap-out $tmp/out.pcap ${key[*]} --filter exact --window 1ms"
	"pktdedup-qqhtd|build/app/pktdedup/pktdedup --pcap-in $in --pcap-out $tmp/out.pcap ${key[*]} --filter qqhtd --window none"
	"editcap-w1ms|editcap -F pcap -w 0.001 $in $tmp/out.pcap"
	"editcap-D100000|editcap -F pcap -D 100000 $in $tmp/out.pcap"
)
frames() { capinfos -Mc "$1" | awk '/Number of packets/ { print $NF }'; }
declare -A times
for r in $(seq "$reps"); do
	line="round $r:"
	for c in "${cfgs[@]}"; do
		name=${c%%|*}
		cmd=${c#*|}
		rm -f "$tmp/out.pcap"
		t0=$(date +%s%N)
		$cmd >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
		t1=$(date +%s%N)
		kept=$(frames "$tmp/out.pcap")
		# qqhtd may lose a few unique frames to false positives (its planned FPR)
		if [ "$kept" -ne "$want" ] && [[ $name != pktdedup-qqhtd* ]]; then
			echo "bench_offline.sh: $name kept $kept frames, want $want" >&2
			exit 1
		fi
		case $name in
		pktdedup-exact-w1ms) cp "$tmp/out.pcap" "$tmp/exact.pcap" ;;
		editcap-w1ms) cmp -s "$tmp/out.pcap" "$tmp/exact.pcap" ||
			{ echo "bench_offline.sh: pktdedup exact and editcap -w differ" >&2; exit 1; } ;;
		esac
		s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
		times[$name]="${times[$name]:-} $s"
		line="$line $name ${s}s ($kept kept)"
	done
	echo "$line"
done
med() { printf '%s\n' $1 | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "median wall seconds over $reps rounds, $n frames:"
for c in "${cfgs[@]}"; do
	name=${c%%|*}
	printf '  %-20s %8.3f s\n' "$name" "$(med "${times[$name]}")"
done
for p in pktdedup-qqhtd-w1ms pktdedup-exact-w1ms pktdedup-qqhtd; do
	mp=$(med "${times[$p]}")
	for e in editcap-w1ms editcap-D100000; do
		me=$(med "${times[$e]}")
		echo "  $e / $p: $(awk -v a="$me" -v b="$mp" 'BEGIN { printf "%.1f", a / b }')x"
	done
done
