#!/usr/bin/env bash
# One worker's forwarding rate against dpdk-testpmd --forward-mode=io, side by side on
# the same vdev: net_pcap replaying 65,536 different 64-byte UDP/IPv4 frames from memory
# in a loop (infinite_rx; TX without a file drops). pktdedup runs with dedup on and
# --action count (it forwards every packet, as testpmd does). REPS alternating runs of
# SECS seconds each; medians and the ratio. A benchmark, not a test; dpdk-testpmd comes
# with Debian's dpdk-dev.
#   bash scripts/bench_app.sh [SECS] [REPS] [pktdedup options...]
# With VDEV=null both run on net_null instead (64-byte frames of zero bytes, never
# written by the PMD: flow keys find nothing to parse; use --key packet there).
# With HUGE=1 both run on 2 MiB hugepages, as on a NIC (reserve 1024 first: docs/speed.md).
# With VS="more options" in the environment each round also runs pktdedup with those
# options added (e.g. VS="--window 1ms"): the ratio of the two is printed too.
# With STAGES=1 each round also runs four benchmark builds of pktdedup (meson
# -Dbench_stage, in build-stage-*/) that stop each packet's work after forwarding, the
# key, its hash, or the prefetch of its filter row, with no filter probe: what each stage
# costs, and the ratio each would leave (docs/speed.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
command -v dpdk-testpmd >/dev/null ||
	{ echo "bench_app.sh: needs dpdk-testpmd: apt-get install dpdk-dev" >&2; exit 1; }
secs=${1:-5}
reps=${2:-3}
shift $(($# >= 2 ? 2 : $#))
extra=("$@")
[ ${#extra[@]} -eq 0 ] && extra=(--filter qqhtd --memory 64M --key flow)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "/var/run/dpdk/bench$$"' EXIT # EAL leaves its runtime directory
pcap=$tmp/udp64.pcap
python3 scripts/gen_udp_pcap.py "$pcap" 65536
vdev="net_pcap0,rx_pcap=$pcap,infinite_rx=1"
[ "${VDEV:-pcap}" = null ] && vdev=net_null0 # frames of 64 zero bytes: see docs/speed.md
eal=(--no-huge -m 1024 --no-pci --no-telemetry --log-level '*:error')
if [ "${HUGE:-0}" = 1 ]; then
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	mountpoint -q /dev/hugepages && [ "${free:-0}" -ge 600 ] || {
		echo "bench_app.sh: HUGE=1 needs 600 free 2 MiB hugepages (has ${free:-0}) on a" \
			"hugetlbfs at /dev/hugepages: see docs/speed.md" >&2
		exit 1
	}
	eal=(--in-memory -m 1024 --no-pci --no-telemetry --log-level '*:error')
fi
read -ra vs <<<"${VS:-}"
stages=()
if [ "${STAGES:-0}" = 1 ]; then
	stages=(forward key hash prefetch)
	for st in "${stages[@]}"; do
		[ -f "build-stage-$st/build.ninja" ] ||
			meson setup -Dbench_stage="$st" -Dtests=false "build-stage-$st" >/dev/null
		ninja -C "build-stage-$st" app/pktdedup/pktdedup >/dev/null
	done
fi
rate_pktdedup() { # binary, more options...
	local bin=$1
	shift
	{ timeout -s INT $((secs + 2)) "$bin" "${eal[@]}" \
		--file-prefix "bench$$" -l 1 --vdev "$vdev" -- --ports 0 --action count \
		--mbufs 100000 --stats-interval 1 "${extra[@]}" "$@" 2>&1 >/dev/null || true; } |
		awk '/s rx / { t = $2 + 0; r = $4; if (t >= 2 && pt >= 1) print (r - pr) / (t - pt) / 1e6; pt = t; pr = r }' |
		sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
rate_testpmd() {
	{ timeout -s INT $((secs + 2)) dpdk-testpmd "${eal[@]}" --file-prefix "bench$$" \
		-l 0-1 --vdev "$vdev" -- --forward-mode=io --port-topology=loop --stats-period 1 \
		--total-num-mbufs=100000 -a 2>/dev/null || true; } |
		awk '/Rx-pps:/ { n++; if (n >= 2) print $2 / 1e6 }' |
		sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
echo "pktdedup options: --action count ${extra[*]}${VS:+; VS adds: ${vs[*]}}"
p=()
t=()
v=()
declare -A sr # stage -> its rates, space-separated
for r in $(seq "$reps"); do
	t+=("$(rate_testpmd)")
	p+=("$(rate_pktdedup build/app/pktdedup/pktdedup)")
	line="run $r: testpmd ${t[-1]} Mpps, pktdedup ${p[-1]} Mpps"
	if [ ${#vs[@]} -ne 0 ]; then
		v+=("$(rate_pktdedup build/app/pktdedup/pktdedup "${vs[@]}")")
		line="$line, with ${vs[*]} ${v[-1]} Mpps"
	fi
	for st in "${stages[@]}"; do
		x=$(rate_pktdedup "build-stage-$st/app/pktdedup/pktdedup")
		sr[$st]="${sr[$st]:-} $x"
		line="$line, $st $x"
	done
	echo "$line"
done
med() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
mt=$(med "${t[@]}")
mp=$(med "${p[@]}")
echo "median: testpmd $mt Mpps, pktdedup $mp Mpps, ratio $(ratio "$mp" "$mt")"
if [ ${#stages[@]} -ne 0 ]; then
	# ns a packet of each stage over the one before, from the medians
	prev=""
	for st in "${stages[@]}" full; do
		if [ "$st" = full ]; then m=$mp; else read -ra xs <<<"${sr[$st]}"; m=$(med "${xs[@]}"); fi
		awk -v s="$st" -v m="$m" -v t="$mt" -v p="$prev" 'BEGIN {
			printf "stage %-8s %s Mpps, ratio %.2f, %.1f ns/packet", s, m, m / t, 1e3 / m
			if (p != "") printf " (+%.1f)", 1e3 / m - 1e3 / p
			printf "\n" }'
		prev=$m
	done
fi
if [ ${#vs[@]} -ne 0 ]; then
	mv=$(med "${v[@]}")
	echo "median with ${vs[*]}: $mv Mpps, ratio to testpmd $(ratio "$mv" "$mt"), to pktdedup without $(ratio "$mv" "$mp")"
fi
