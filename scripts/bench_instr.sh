#!/usr/bin/env bash
# Instructions a packet, counted by valgrind's callgrind: one pktdedup worker against
# dpdk-testpmd --forward-mode=macswap and io on bench_app.sh's vdev (net_pcap replaying
# 65,536 different 64-byte UDP/IPv4 frames from memory, TX dropped), pktdedup with dedup
# on and --action count. A count does not depend on what else the machine runs: it
# judges a change to the packet path where times are noise (docs/speed.md, "Instructions
# a packet"). Each program runs twice under callgrind, stopped (SIGINT) SECS and 2 x SECS
# seconds after its first counters line with packets received, and its count a packet is
# the difference of the two runs' instructions over the difference of their packets, so
# that EAL's start and the exit cancel. valgrind runs one thread at a time; with
# --fair-sched=yes the counters thread gets its turn each second (without it a busy
# forwarding thread kept it waiting up to 13 seconds, and a short run's seconds could
# start that much late). Prints each program's instructions a packet, what
# pktdedup adds over each testpmd, and pktdedup's functions that take at least one
# instruction a packet. With OTHER=PATH (another build's pktdedup binary) that build is
# counted too, and its difference printed. A benchmark, not a test: each run takes its
# seconds and about a minute more to start and stop under callgrind (SECS 10: about 10
# minutes for the three programs, 13 with OTHER).
#   bash scripts/bench_instr.sh [SECS] [pktdedup options...]   (SECS: 10, at least 10)
# Options default to --key flow --filter qhtlru --memory 64M. valgrind offers no AVX-512,
# so the build's run-time choice takes its AVX2 paths (or scalar ones) under it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench_common.sh
bash scripts/build.sh
for c in valgrind callgrind_annotate dpdk-testpmd; do
	command -v "$c" >/dev/null || {
		echo "bench_instr.sh: needs $c: apt-get install valgrind dpdk-dev" >&2
		exit 1
	}
done
secs=${1:-10}
[[ $secs =~ ^[0-9]+$ && $secs -ge 10 ]] ||
	{ echo "bench_instr.sh: SECS must be 10 or more (got $secs)" >&2; exit 2; }
shift $(($# >= 1 ? 1 : 0))
extra=("$@")
[ ${#extra[@]} -eq 0 ] && extra=(--key flow --filter qhtlru --memory 64M)
other=${OTHER:-}
[ -z "$other" ] || [ -x "$other" ] ||
	{ echo "bench_instr.sh: OTHER=$other is not an executable" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 scripts/gen_udp_pcap.py "$tmp/udp64.pcap" 65536
vdev="net_pcap0,rx_pcap=$tmp/udp64.pcap,infinite_rx=1"
eal=(--no-huge -m 512 --no-pci --no-telemetry --no-shconf --log-level '*:error')

# one NAME SECS PATTERN COMMAND...: COMMAND under callgrind, stopped (SIGINT) SECS seconds
# after its output first has PATTERN (a counters line with packets received), so
# that however long EAL takes to start under valgrind, the two runs' difference is
# forwarding; prints "instructions packets" and leaves the profile in $tmp/NAME.SECS
one() {
	local name=$1 t=$2 pat=$3 out=$tmp/$1.$2 ir pk pid i
	shift 3
	valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$out" "$@" \
		>"$out.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 3000; i++)); do # 5 minutes at most
		grep -q -- "$pat" "$out.log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep "$t"
	kill -INT "$pid" 2>/dev/null || true
	for ((i = 0; i < 1200; i++)); do # callgrind writes its profile as the program exits
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	ir=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$out.log" | tail -1)
	case $name in
	testpmd*) pk=$(awk '/RX-packets:/ { n = $2 } END { print n }' "$out.log") ;;
	*) pk=$(sed -n 's/^pktdedup: \([0-9]*\) packets in .*/\1/p' "$out.log" | tail -1) ;;
	esac
	[ -n "$ir" ] && [ -n "$pk" ] && [ "$pk" -gt 0 ] || {
		echo "bench_instr.sh: $name under callgrind gave no count (its output:" \
			"$out.log):" >&2
		tail -5 "$out.log" >&2
		exit 1
	}
	echo "$ir $pk"
}

# per NAME PATTERN COMMAND...: instructions a packet of COMMAND, from a short and a long
# run
per() {
	local name=$1 pat=$2 a b
	shift 2
	a=$(one "$name" "$secs" "$pat" "$@")
	b=$(one "$name" $((2 * secs)) "$pat" "$@")
	awk -v a="$a" -v b="$b" -v n="$name" 'BEGIN { split(a, x, " "); split(b, y, " ")
		if (y[2] <= x[2]) { print "bench_instr.sh: " n ": the long run saw no more" \
			" packets than the short one (a load beside it slowed it: run it" \
			" again, alone)" > "/dev/stderr"; exit 1 }
		printf "%.1f %d\n", (y[1] - x[1]) / (y[2] - x[2]), y[2] - x[2] }'
}

# funcs NAME: the functions' instructions a packet between NAME's two runs, at least 1
funcs() {
	local a=$tmp/$1.$secs b=$tmp/$1.$((2 * secs)) pa pb
	pa=$(sed -n 's/^pktdedup: \([0-9]*\) packets in .*/\1/p' "$a.log" | tail -1)
	pb=$(sed -n 's/^pktdedup: \([0-9]*\) packets in .*/\1/p' "$b.log" | tail -1)
	{
		callgrind_annotate --auto=no --threshold=100 "$a" | sed 's/^/A /'
		callgrind_annotate --auto=no --threshold=100 "$b" | sed 's/^/B /'
	} | awk -v n=$((pb - pa)) '
		# "A 1,234 (12.3%)  file:function [object]", the percentage padded to its width
		match($0, /^[AB] +[0-9,]+ +\( *[0-9.]+%\) +/) && $0 !~ /PROGRAM TOTALS/ {
			c = $2; gsub(",", "", c); f = substr($0, RLENGTH + 1); l = ""
			if (match(f, / \[.*\]$/)) { l = substr(f, RSTART + 2, RLENGTH - 3); f = substr(f, 1, RSTART - 1) }
			sub(/^.*:/, "", f); sub(/.*\//, "", l); f = f (l == "" ? "" : " (" l ")")
			if ($1 == "A") v[f] -= c; else v[f] += c }
		END { for (f in v) if (v[f] / n >= 1) printf "%8.1f  %s\n", v[f] / n, f }' |
		sort -rn
}

machine_lines
echo "pktdedup options: --action count ${extra[*]}; ${secs} s and $((2 * secs)) s runs under callgrind"
tp=(-l 0-1 --vdev "$vdev" -- --port-topology=loop --total-num-mbufs=100000 --stats-period 1 -a)
# each run's seconds start at its first counters line with packets received (grep patterns)
io=$(per testpmd-io 'RX-packets: *[1-9]' dpdk-testpmd "${eal[@]}" "${tp[@]}" --forward-mode=io)
ms=$(per testpmd-macswap 'RX-packets: *[1-9]' dpdk-testpmd "${eal[@]}" "${tp[@]}" --forward-mode=macswap)
pd=(-l 0 --vdev "$vdev" -- --ports 0 --action count --mbufs 100000 --stats-interval 1 "${extra[@]}")
p=$(per pktdedup 's rx [1-9]' build/app/pktdedup/pktdedup "${eal[@]}" "${pd[@]}")
[ -z "$other" ] || o=$(per other 's rx [1-9]' "$other" "${eal[@]}" "${pd[@]}")
echo "instructions a packet (packets between the two runs):"
echo "  testpmd io:      ${io% *} (${io#* })"
echo "  testpmd macswap: ${ms% *} (${ms#* })"
echo "  pktdedup:        ${p% *} (${p#* }); over io $(awk -v a="${p% *}" -v b="${io% *}" \
	'BEGIN { printf "%.1f", a - b }'), over macswap $(awk -v a="${p% *}" -v b="${ms% *}" \
	'BEGIN { printf "%.1f", a - b }')"
[ -z "$other" ] || echo "  OTHER ($other): ${o% *} (${o#* }); OTHER - this build" \
	"$(awk -v a="${o% *}" -v b="${p% *}" 'BEGIN { printf "%.1f", a - b }')"
echo "pktdedup's functions, instructions a packet:"
funcs pktdedup
