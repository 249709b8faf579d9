#!/usr/bin/env bash
# How pktdedup scales with its workers, by dispatch, beside dpdk-testpmd io on as many
# forwarding cores: rounds of SECS-second runs, every configuration once per round in
# turn, medians of the per-second rates (docs/speed.md, "Workers"). A run's seconds
# count from its first per-second line: its start, which with --no-huge and 15 workers'
# memory takes from seconds to half a minute, is left out.
#   bash scripts/bench_workers.sh [SECS] [REPS] [WORKERS...]   (default: 5 3 1 2)
# WORKERS: the worker counts, each at most the CPUs this shell may use (taskset); e.g.
# 1 2 4 8 15 on a 16-core machine. For each count N:
#   testpmd io on net_null, N forwarding cores and queues of one port, and with N >= 2 on
#     N net_null ports of one queue each (net_null packs its queues' state, 40 bytes
#     each, and adds to a queue's counter every burst: the queues of one port write each
#     other's cache lines, as a NIC's queues do not; docs/speed.md, "Workers");
#   pktdedup on net_null, packet keys without a window (--window none, as the tables in
#     docs/speed.md were measured), N workers with RSS (its frames are 64 zero bytes:
#     net_null spreads nothing by content, so each worker keeps its own copy of the one
#     key: the cost of a worker without a skew);
#   pktdedup on net_pcap, flow keys on FLOWS (65,536) different 64-byte UDP frames (balanced
#     keys), N queues (N rx_pcap of the same frames) and N workers with software
#     dispatch, each owning about 1/N of the keys (N = 1: one queue, no dispatch);
#   with N >= 2, pktdedup on net_null with software dispatch, every worker receiving and
#     one owning the key (the worst case: its ring fills and the rest passes unchecked;
#     "checked" counts what got a verdict);
#   with N >= 2, N one-worker pktdedup processes at once, each on its own CPU: on net_null
#     with packet keys, what N workers give on this machine when they share nothing, not
#     even a process (so that "RSS vs independent" is what one process costs, apart from
#     what the machine gives N busy cores: its clock, L3 and memory); and on its own
#     net_pcap queue of the same frames, so that "dispatch vs independent" is the cost of
#     the dispatch alone, apart from the source's;
#   testpmd io on net_pcap of the same frames, one port with N queues and, with N >= 2, N
#     ports of one queue each: net_pcap's queues share lines too (each queue's state is
#     4,240 bytes, so queue i + 1's counters, written every burst, share a line with queue
#     i's ring of stored frames, read for every packet), and software dispatch runs on
#     one port of N queues while the independent processes each have a port.
# FLOWS=N (environment, default 65536) sets the number of different frames: with 1024
# net_pcap's stored frames stay in the caches (65,536 cost its copy two misses a packet).
# BIN_DIR=DIR (environment) runs prebuilt binaries instead of building: DIR/pktdedup,
# DIR/dpdk-testpmd and DIR/pingpong if there (else cc builds it; without cc the round
# trip is left out), with DPDK's libraries from DIR/../lib where the packages are
# missing (scripts/bench_common.sh says how to make DIR).
# HUGE=1 (environment) runs everything on 2 MiB hugepages (--in-memory), as a NIC's
# ports run, instead of --no-huge: net_pcap's copy from its stored frames then misses the
# TLB less. It needs 768 free pages a worker of the largest count on a hugetlbfs
# (sudo bash scripts/setup-inline.sh --hugepages SIZE reserves them).
# Every run: qhtlru 64 MiB per worker, --action count, --no-huge (or HUGE=1). Lcores:
# with fewer workers than CPUs, CPU 0 (where the main lcores of testpmd sleep) is left
# out; with as many, it is shared. Prints the machine (lscpu) and its pages, the
# core-to-core round trip before and after the sweep (scripts/pingpong.c: software
# dispatch's rate follows it, and on a shared VM it changes from hour to hour) and two
# tables of medians (RSS, software dispatch).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench_common.sh
huge=${HUGE:-0}
if [ "$huge" = 1 ]; then # pages as needed, no files left behind
	pages=(--in-memory) pages_line="2 MiB hugepages (HUGE=1, --in-memory)"
else
	pages=(--no-huge) pages_line="4 KiB, --no-huge (HUGE=1 runs on 2 MiB hugepages)"
fi
eal=("${pages[@]}" --no-pci --no-telemetry --log-level '*:error')
if [ -n "${BIN_DIR:-}" ]; then # a build carried to a machine without the packages
	bin_dir_setup bench_workers.sh
	eal+=("${bin_dir_eal[@]}")
	pd_bin=$BIN_DIR/pktdedup testpmd_bin=$BIN_DIR/dpdk-testpmd
	for f in "$pd_bin" "$testpmd_bin"; do
		[ -x "$f" ] || { echo "bench_workers.sh: BIN_DIR has no $(basename "$f")" >&2; exit 1; }
	done
else
	bash scripts/build.sh
	pd_bin=build/app/pktdedup/pktdedup testpmd_bin=$(command -v dpdk-testpmd) ||
		{ echo "bench_workers.sh: needs dpdk-testpmd: apt-get install dpdk-dev" >&2; exit 1; }
fi
secs=${1:-5}
reps=${2:-3}
shift $(($# < 2 ? $# : 2))
counts=("${@:-1}")
[ $# -eq 0 ] && counts=(1 2)
ncpu=$(nproc)
for n in "${counts[@]}"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] && [ "$n" -le "$ncpu" ] || {
		echo "bench_workers.sh: $n workers: give counts from 1 to $ncpu (the CPUs this shell" \
			"may use)" >&2
		exit 2
	}
done
if [ "$huge" = 1 ]; then # -m below: 1536 MiB a worker at most, at once
	most=$(printf '%s\n' "${counts[@]}" | sort -n | tail -n 1)
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	mountpoint -q /dev/hugepages && [ "$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)" = 2048 ] &&
		[ "${free:-0}" -ge $((768 * most)) ] || {
		echo "bench_workers.sh: HUGE=1 with $most workers needs $((768 * most)) free 2 MiB" \
			"hugepages (has ${free:-0}) on a hugetlbfs at /dev/hugepages: sudo bash" \
			"scripts/setup-inline.sh --hugepages $((3 * most / 2 + 1))G" >&2
		exit 1
	}
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" /var/run/dpdk/bw$$*' EXIT
flows=${FLOWS:-65536}
[[ $flows =~ ^[1-9][0-9]*$ ]] || { echo "bench_workers.sh: FLOWS is a positive number" >&2; exit 2; }
python3 scripts/gen_udp_pcap.py "$tmp/udp64.pcap" "$flows" >/dev/null
# Runs a command, its output into FILE, for SECS seconds of its per-second lines: the
# time counts from its first line that matches PATTERN, so that its start (tens of
# seconds with --no-huge, 15 workers and their memory) is left out; then SIGINT, and
# SIGKILL if it has not stopped 10 s later.
med() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
first() { [ "$1" -lt "$ncpu" ] && echo 1 || echo 0; } # the first CPU for N workers
pdrun() { # lcores file-prefix workers vdev options... -> per-second "rx-Mpps checked-Mpps"
	local l=$1 prefix=$2 n=$3 vdev=$4 log=$tmp/out.$BASHPID
	shift 4
	timed "$secs" "$log" 's rx ' "$pd_bin" "${eal[@]}" --file-prefix "$prefix" \
		-l "$l" -m $((1536 * n)) --vdev "$vdev" -- --ports 0 --action count \
		--filter qhtlru --memory 64M --stats-interval 1 "$@"
	awk '/s rx / { t = $2 + 0; for (i = 3; i < NF; i++) v[$i] = $(i + 1)
			r = v["rx"]; b = v["bypassed"]
			if (t >= 2 && pt >= 1) print (r - pr) / (t - pt) / 1e6, (r - b - pr + pb) / (t - pt) / 1e6
			pt = t; pr = r; pb = b }' "$log"
	grep -q 's rx ' "$log" || tail -n 5 "$log" | sed 's/^/  pktdedup: /' >&2 # why, if it never ran
}
pktdedup() { # workers vdev options... -> "rx-Mpps checked-Mpps"
	local n=$1 vdev=$2 f out
	shift 2
	f=$(first "$n")
	out=$(pdrun "$f-$((f + n - 1))" "bw$$" "$n" "$vdev" "$@")
	[ -n "$out" ] || { echo "bench_workers.sh: pktdedup $n workers $* gave no rate" >&2; exit 1; }
	echo "$(cut -d' ' -f1 <<<"$out" | med) $(cut -d' ' -f2 <<<"$out" | med)"
}
independent() { # workers null|pcap -> Mpps: N one-worker processes at once, one per
	# CPU, on net_null with packet keys or each on its own net_pcap queue of the frames
	# with flow keys (what N workers give when nothing crosses between them), their
	# medians of what got a verdict summed
	local n=$1 f i
	f=$(first "$n")
	for i in $(seq 0 $((n - 1))); do
		if [ "$2" = null ]; then
			pdrun "$((f + i))" "bw$$-$i" 1 net_null0 --key packet --window none >"$tmp/ind$i" &
		else
			pdrun "$((f + i))" "bw$$-$i" 1 "$(pcaps 1)" --key flow --mbufs 100000 \
				>"$tmp/ind$i" &
		fi
	done
	wait
	for i in $(seq 0 $((n - 1))); do
		[ -s "$tmp/ind$i" ] || { echo "bench_workers.sh: independent worker $i gave no rate" >&2; exit 1; }
		cut -d' ' -f2 "$tmp/ind$i" | med
	done | awk '{ s += $1 } END { print s }'
}
testpmd() { # forwarding cores queues|ports [pcap] -> Mpps (its main lcore, mostly
	# asleep, on CPU 0): one net_null port with a queue per core, or a port of one queue
	# per core; with pcap, net_pcap ports of the frames instead
	local n=$1 f lc="0@0" out q=$1 np=1 vdevs=(--vdev net_null0) log=$tmp/out.$BASHPID
	f=$(first "$n")
	for i in $(seq 1 "$n"); do lc+=",$i@$((f + i - 1))"; done
	[ "${3:-}" = pcap ] && vdevs=(--vdev "$(pcaps "$n")")
	if [ "$2" = ports ]; then
		q=1 np=$n vdevs=()
		for i in $(seq 0 $((n - 1))); do
			if [ "${3:-}" = pcap ]; then
				vdevs+=(--vdev "net_pcap$i,infinite_rx=1,rx_pcap=$tmp/udp64.pcap")
			else
				vdevs+=(--vdev "net_null$i")
			fi
		done
	fi
	timed "$secs" "$log" 'Rx-pps:' "$testpmd_bin" "${eal[@]}" --file-prefix "bw$$" \
		-m $((1024 * n)) --lcores "$lc" \
		"${vdevs[@]}" -- --forward-mode=io --port-topology=loop --stats-period 1 \
		--nb-cores="$n" --rxq="$q" --txq="$q" --total-num-mbufs=$((100000 * n)) -a
	out=$(awk -v np="$np" '/Rx-pps:/ { s += $2; if (++k == np) { if (++n >= 2) print s / 1e6; s = k = 0 } }' \
		"$log" | med)
	[ -n "$out" ] || {
		echo "bench_workers.sh: testpmd on $n cores gave no rate; its last lines:" >&2
		tail -n 5 "$log" >&2
		exit 1
	}
	echo "$out"
}
pcaps() { # net_pcap with n queues of the frames
	local v="net_pcap0,infinite_rx=1"
	for _ in $(seq 1 "$1"); do v+=",rx_pcap=$tmp/udp64.pcap"; done
	echo "$v"
}
machine_lines
echo "pages: $pages_line"
if [ -x "${BIN_DIR:-/nonexistent}/pingpong" ]; then
	cp "$BIN_DIR/pingpong" "$tmp/pingpong"
elif command -v cc >/dev/null; then
	cc -O2 -std=gnu11 -pthread -o "$tmp/pingpong" scripts/pingpong.c
else
	echo "bench_workers.sh: no cc and no BIN_DIR/pingpong: the round trip is not measured" >&2
fi
roundtrip() { # the round trip between the first two CPUs the workers use, or nothing
	[ "$ncpu" -ge 2 ] && [ -x "$tmp/pingpong" ] || return 0
	echo "core-to-core round trip, CPUs $(first 2) and $(($(first 2) + 1)), $1:" \
		"$("$tmp/pingpong" "$(first 2)" $(($(first 2) + 1))) ns"
}
roundtrip "before"
declare -A tp tpp tc tcp rss sw one ind indn
for r in $(seq "$reps"); do
	[ "$r" = 1 ] || roundtrip "round $r" >&2
	for n in "${counts[@]}"; do
		tp[$n,$r]=$(testpmd "$n" queues)
		tpp[$n,$r]=${tp[$n,$r]} # one core: one port of one queue either way
		[ "$n" = 1 ] || tpp[$n,$r]=$(testpmd "$n" ports)
		tc[$n,$r]=$(testpmd "$n" queues pcap)
		tcp[$n,$r]=${tc[$n,$r]}
		[ "$n" = 1 ] || tcp[$n,$r]=$(testpmd "$n" ports pcap)
		rss[$n,$r]=$(pktdedup "$n" net_null0 --key packet --window none --dispatch rss)
		if [ "$n" = 1 ]; then
			sw[$n,$r]=$(pktdedup 1 "$(pcaps 1)" --key flow --mbufs 100000)
		else
			sw[$n,$r]=$(pktdedup "$n" "$(pcaps "$n")" --key flow --dispatch software \
				--mbufs $((100000 * n)))
			one[$n,$r]=$(pktdedup "$n" net_null0 --key packet --window none --dispatch software)
			ind[$n,$r]=$(independent "$n" pcap)
			indn[$n,$r]=$(independent "$n" null)
		fi
		echo "round $r, $n worker(s): testpmd ${tp[$n,$r]}; testpmd, a port per core" \
			"${tpp[$n,$r]}; testpmd net_pcap ${tc[$n,$r]}, a port per core" \
			"${tcp[$n,$r]}; RSS ${rss[$n,$r]};" \
			"${indn[$n,$r]:+independent, net_null ${indn[$n,$r]}; }software ${sw[$n,$r]}" \
			"${one[$n,$r]:+; software, one key ${one[$n,$r]}}" \
			"${ind[$n,$r]:+; independent, net_pcap ${ind[$n,$r]}}" >&2
	done
done
roundtrip "after"
col() { # array count field -> median over the rounds
	local -n a=$1
	for r in $(seq "$reps"); do cut -d' ' -f"$3" <<<"${a[$2,$r]}"; done | med
}
t1=$(col tp "${counts[0]}" 1)
p1=$(col tpp "${counts[0]}" 1)
r1=$(col rss "${counts[0]}" 1)
s1=$(col sw "${counts[0]}" 2)
echo
echo "| workers | testpmd io, one net_null port: Mpps | vs ${counts[0]} | testpmd io, a" \
	"port per core: Mpps | vs ${counts[0]} | RSS, net_null, packet key: Mpps |" \
	"vs ${counts[0]} | independent workers, net_null: Mpps | RSS vs independent |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in "${counts[@]}"; do
	t=$(col tp "$n" 1)
	tq=$(col tpp "$n" 1)
	rr=$(col rss "$n" 1)
	ir=$rr # one worker: nothing is shared, the same run
	[ "$n" = 1 ] || ir=$(col indn "$n" 1)
	awk -v n="$n" -v t="$t" -v t1="$t1" -v tq="$tq" -v p1="$p1" -v rr="$rr" -v r1="$r1" \
		-v ir="$ir" 'BEGIN { printf "| %d | %.1f | %.2f | %.1f | %.2f | %.1f | %.2f | %.1f | %.2f |\n",
		n, t, t / t1, tq, tq / p1, rr, rr / r1, ir, rr / ir }'
done
echo
echo "| workers | software dispatch, net_pcap, $flows flows, flow key: Mpps received /" \
	"with a verdict | vs ${counts[0]} | vs RSS | independent workers, the same frames:" \
	"Mpps | dispatch vs independent | software, one key owns all: received / with a" \
	"verdict | testpmd io, net_pcap of the frames: one port / a port per core, Mpps |" \
	"one port vs a port per core |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in "${counts[@]}"; do
	rr=$(col rss "$n" 1)
	sr=$(col sw "$n" 1)
	sc=$(col sw "$n" 2)
	o="-"
	ir=$sc # one worker: nothing is dispatched, the same run
	if [ "$n" != 1 ]; then
		o=$(printf "%.1f / %.1f" "$(col one "$n" 1)" "$(col one "$n" 2)")
		ir=$(col ind "$n" 1)
	fi
	tq=$(col tc "$n" 1)
	tqp=$(col tcp "$n" 1)
	awk -v n="$n" -v rr="$rr" -v sr="$sr" -v sc="$sc" -v s1="$s1" -v o="$o" -v ir="$ir" \
		-v tq="$tq" -v tqp="$tqp" \
		'BEGIN { printf "| %d | %.1f / %.1f | %.2f | %.2f | %.1f | %.2f | %s | %.1f / %.1f | %.2f |\n",
		n, sr, sc, sc / s1, sc / rr, ir, sc / ir, o, tq, tqp, tq / tqp }'
done
