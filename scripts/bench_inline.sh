#!/usr/bin/env bash
# Inline speed of this tree beside earlier revisions: one worker on net_pcap replaying
# 65,536 different 64-byte UDP/IPv4 frames from memory in a loop (infinite_rx; TX without
# a file drops), --key flow (KEY) --filter qhtlru --memory 64M (MEM), with --action count
# (after the first pass every frame is a copy that goes on: whole bursts sent as
# received) and --action drop (every copy freed one by one). Each revision is built in
# a git worktree under $TMPDIR; within each round the binaries run alternately, the
# order reversed every other round, SECS seconds each; the rate of a run is the median
# of its per-second rates. Prints each round (packets received, and those that got a
# verdict: not passed unchecked at a full dispatch ring) and the median ratios to this
# tree's rates, per action. Needs no testpmd (bench_app.sh compares with it). A
# benchmark, not a test.
#   bash scripts/bench_inline.sh [SECS] [REPS] [REV...]   (defaults: 5 5 HEAD)
# Environment: WORKERS=N (default 1) runs N workers with software dispatch, each
# receiving its own queue of the frames (lcores 0 to N-1); FLOWS=N (default 65536) sets
# the number of different frames (1024 keep net_pcap's stored copies in cache: its
# copy from 65,536 stored frames misses the caches twice a packet); HUGE=1 runs on
# 2 MiB hugepages (reserve them first: scripts/setup-inline.sh), as on a NIC; MEM=SIZE
# (default 64M) sets the filter's --memory (32K: a filter near the core); KEY=packet
# sets --key (default flow); PORTS=2 runs a pair of such ports (each worker receives a
# queue of each: two bursts a round); ACTIONS="count" (default "count drop") measures
# only those actions.
# A REV that is the path of an executable (it has a /) runs that binary as it is, so
# that builds made elsewhere (a branch, a patch) compare on a machine that cannot build:
# with BIN_DIR=DIR (scripts/bench_common.sh: a release build carried with DPDK's libraries)
# "this" is DIR/pktdedup and nothing is built, e.g. on a 16-core machine
#   BIN_DIR=B/bin WORKERS=15 ACTIONS=count bash scripts/bench_inline.sh 5 4 B/bin/pktdedup-try
set -euo pipefail
cd "$(dirname "$0")/.."
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
secs=${1:-5}
reps=${2:-5}
shift $(($# < 2 ? $# : 2))
revs=("${@:-HEAD}")
workers=${WORKERS:-1}
flows=${FLOWS:-65536}
memory=${MEM:-64M}
key=${KEY:-flow}
nports=${PORTS:-1}
[[ $workers =~ ^[1-9][0-9]*$ && $flows =~ ^[1-9][0-9]*$ ]] ||
	{ echo "bench_inline: WORKERS and FLOWS are positive numbers" >&2; exit 2; }
[[ $nports =~ ^[12]$ ]] || { echo "bench_inline: PORTS is 1 or 2" >&2; exit 2; }
mem=(--no-huge -m $((1024 * workers * nports)))
[ "${HUGE:-0}" = 1 ] && mem=(--in-memory) # pages as needed, none left behind
lcores=1 opts=()
[ "$workers" -eq 1 ] || { lcores=0-$((workers - 1)); opts=(--dispatch software); }
read -r -a actions <<<"${ACTIONS:-count drop}"
for a in "${actions[@]}"; do
	[[ $a =~ ^(count|drop|mark)$ ]] ||
		{ echo "bench_inline: ACTIONS: $a is not count, drop or mark" >&2; exit 2; }
done
[ "${#actions[@]}" -gt 0 ] || { echo "bench_inline: ACTIONS is empty" >&2; exit 2; }
. scripts/bench_common.sh
bin_dir_eal=()
if [ -n "${BIN_DIR:-}" ]; then # a build carried to a machine without the packages
	bin_dir_setup bench_inline
	this=$BIN_DIR/pktdedup
else
	bash scripts/build.sh >/dev/null
	this=build/app/pktdedup/pktdedup
fi
[ -x "$this" ] || { echo "bench_inline: no $this" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'for r in "${revs[@]}"; do [[ $r == */* ]] ||
	git worktree remove --force "$tmp/wt-$r" 2>/dev/null || true; done; rm -rf "$tmp" "/var/run/dpdk/bi$$"' EXIT
py=/usr/bin/python3
[ -x $py ] || py=python3 # the generator needs the standard library only
"$py" scripts/gen_udp_pcap.py "$tmp/udp64.pcap" "$flows" >/dev/null
vdevs=() ports=0
for p in $(seq 0 $((nports - 1))); do
	v=net_pcap$p,infinite_rx=1
	for _ in $(seq "$workers"); do v+=",rx_pcap=$tmp/udp64.pcap"; done
	vdevs+=(--vdev "$v")
done
[ "$nports" -eq 1 ] || ports=0,1
bins=() names=()
for r in "${revs[@]}"; do
	if [[ $r == */* ]]; then # a binary made elsewhere
		if [ ! -f "$r" ] || [ ! -x "$r" ]; then
			echo "bench_inline: $r is not an executable" >&2
			exit 2
		fi
		bins+=("$r")
		names+=("$r")
		continue
	fi
	echo "bench_inline: building $r" >&2
	git worktree add -f --detach "$tmp/wt-$r" "$r" >/dev/null 2>&1
	(cd "$tmp/wt-$r" && meson setup build >/dev/null && ninja -C build app/pktdedup/pktdedup >/dev/null)
	bins+=("$tmp/wt-$r/build/app/pktdedup/pktdedup")
	names+=("$r")
done
bins+=("$this")
names+=(this)
rate() { # binary action -> "rx-Mpps verdict-Mpps" (the medians of the per-second rates)
	local out log=$tmp/run.log
	timed "$secs" "$log" 's rx ' "$1" "${mem[@]}" "${bin_dir_eal[@]}" --no-pci \
		--no-telemetry --log-level '*:error' --file-prefix "bi$$" -l "$lcores" \
		"${vdevs[@]}" -- --ports "$ports" "${opts[@]}" --action "$2" \
		--mbufs $((100000 * workers * nports)) --stats-interval 1 --filter qhtlru \
		--memory "$memory" --key "$key"
	out=$(awk '/s rx / { t = $2 + 0; for (i = 3; i < NF; i++) v[$i] = $(i + 1)
			r = v["rx"]; b = v["bypassed"]
			if (t >= 2 && pt >= 1) print (r - pr) / (t - pt) / 1e6, (r - b - pr + pb) / (t - pt) / 1e6
			pt = t; pr = r; pb = b }' "$log")
	[ -n "$out" ] || { tail -n 5 "$log" | sed 's/^/  pktdedup: /' >&2; return 0; } # why
	echo "$(cut -d' ' -f1 <<<"$out" | median) $(cut -d' ' -f2 <<<"$out" | median)"
}
last=$((${#bins[@]} - 1))
machine_lines
for action in "${actions[@]}"; do
	declare -A ratios=() vratios=()
	for round in $(seq "$reps"); do
		order=$(seq 0 "$last")
		[ $((round % 2)) -eq 0 ] && order=$(seq "$last" -1 0)
		declare -A mpps=() vmpps=()
		for i in $order; do
			read -r mpps[$i] vmpps[$i] <<<"$(rate "${bins[$i]}" "$action")"
			[ -n "${mpps[$i]}" ] || { echo "bench_inline: ${names[$i]} gave no rate" >&2; exit 1; }
		done
		line="$action round $round:"
		for i in $(seq 0 "$last"); do
			line+=" ${names[$i]} ${mpps[$i]} Mpps (with a verdict ${vmpps[$i]})"
			[ "$i" -lt "$last" ] || continue
			ratios[$i]+=" $(awk -v a="${mpps[$last]}" -v b="${mpps[$i]}" 'BEGIN { printf "%.3f", a / b }')"
			vratios[$i]+=" $(awk -v a="${vmpps[$last]}" -v b="${vmpps[$i]}" 'BEGIN { printf "%.3f", a / b }')"
		done
		echo "$line"
	done
	for i in $(seq 0 $((last - 1))); do
		echo "$action: this / ${names[$i]}: median $(printf '%s\n' ${ratios[$i]} | median)" \
			"(rounds:${ratios[$i]}); with a verdict: median" \
			"$(printf '%s\n' ${vratios[$i]} | median) (rounds:${vratios[$i]})"
	done
	unset ratios vratios
done
