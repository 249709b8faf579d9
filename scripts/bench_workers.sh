#!/usr/bin/env bash
# How pktdedup scales from one worker to two, by dispatch, beside dpdk-testpmd io on one
# and two forwarding cores: rounds of SECS-second runs, every configuration once per
# round in turn, medians of the per-second rates (docs/speed.md, "Workers").
#   bash scripts/bench_workers.sh [SECS] [REPS]
# net_null, packet keys (its frames are 64 zero bytes: one key owns all traffic):
#   1 worker; 2 workers with RSS (net_null spreads nothing by content: each worker keeps
#   its own copy of the key, the cost of a worker without the one-key skew); 2 workers
#   with software dispatch, both receiving, one of them owning the key (the worst case:
#   its ring fills and the rest passes unchecked; "checked" counts what got a verdict).
# net_pcap, flow keys on 65,536 different 64-byte UDP frames (balanced keys):
#   1 worker on one queue; 2 workers with software dispatch on two queues (two rx_pcap
#   of the same frames), each worker owning about half the keys.
# Every run: qhtlru 64 MiB per worker, --action count, --no-huge, lcores 0 and 1 (this
# measures two cores of the machine it runs on; a machine with two cores shares them
# with everything else).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
command -v dpdk-testpmd >/dev/null ||
	{ echo "bench_workers.sh: needs dpdk-testpmd: apt-get install dpdk-dev" >&2; exit 1; }
secs=${1:-5}
reps=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" /var/run/dpdk/bw$$' EXIT
python3 scripts/gen_udp_pcap.py "$tmp/udp64.pcap" 65536
eal=(--no-huge -m 1536 --no-pci --no-telemetry --log-level '*:error' --file-prefix "bw$$")
pcap1="net_pcap0,rx_pcap=$tmp/udp64.pcap,infinite_rx=1"
pcap2="$pcap1,rx_pcap=$tmp/udp64.pcap"
med() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
pktdedup() { # lcores vdev options... -> "rx-Mpps checked-Mpps"
	local l=$1 vdev=$2 out
	shift 2
	out=$({ timeout -s INT $((secs + 2)) build/app/pktdedup/pktdedup "${eal[@]}" -l "$l" \
		--vdev "$vdev" -- --ports 0 --action count --filter qhtlru --memory 64M \
		--stats-interval 1 "$@" 2>&1 >/dev/null || true; } |
		awk '/s rx / { t = $2 + 0; for (i = 3; i < NF; i++) v[$i] = $(i + 1)
			r = v["rx"]; b = v["bypassed"]
			if (t >= 2 && pt >= 1) print (r - pr) / (t - pt) / 1e6, (r - b - pr + pb) / (t - pt) / 1e6
			pt = t; pr = r; pb = b }')
	echo "$(cut -d' ' -f1 <<<"$out" | med) $(cut -d' ' -f2 <<<"$out" | med)"
}
testpmd() { # lcore-map cores -> Mpps (its main lcore, mostly asleep, shares CPU 0)
	{ timeout -s INT $((secs + 2)) dpdk-testpmd "${eal[@]}" --lcores "$1" --vdev net_null0 -- \
		--forward-mode=io --port-topology=loop --stats-period 1 --nb-cores="$2" \
		--rxq="$2" --txq="$2" --total-num-mbufs=100000 -a 2>/dev/null || true; } |
		awk '/Rx-pps:/ { n++; if (n >= 2) print $2 / 1e6 }' | med
}
names=("testpmd io, 1 core" "testpmd io, 2 cores"
	"null, packet: 1 worker" "null, packet: 2 workers, RSS"
	"null, packet: 2 workers, software, one key"
	"pcap, flow: 1 worker" "pcap, flow: 2 workers, software")
declare -A res
for r in $(seq "$reps"); do
	res[0,$r]="$(testpmd 0@0,1@1 1) -"
	res[1,$r]="$(testpmd 0@0,1@0,2@1 2) -"
	res[2,$r]=$(pktdedup 1 net_null0 --key packet)
	res[3,$r]=$(pktdedup 0-1 net_null0 --key packet --dispatch rss)
	res[4,$r]=$(pktdedup 0-1 net_null0 --key packet --dispatch software)
	res[5,$r]=$(pktdedup 1 "$pcap1" --key flow --mbufs 100000)
	res[6,$r]=$(pktdedup 0-1 "$pcap2" --key flow --dispatch software --mbufs 200000)
	echo "round $r: $(for i in "${!names[@]}"; do printf '%s: %s; ' "${names[i]}" "${res[$i,$r]}"; done)"
done
echo "| configuration | Mpps received | Mpps with a verdict | vs 1 |"
echo "|---|---:|---:|---:|"
for i in "${!names[@]}"; do
	rx=$(for r in $(seq "$reps"); do cut -d' ' -f1 <<<"${res[$i,$r]}"; done | med)
	ck=$(for r in $(seq "$reps"); do cut -d' ' -f2 <<<"${res[$i,$r]}"; done | med)
	case $i in 0 | 1) base=${m0:-$rx} ;; 2 | 3 | 4) base=${m2:-$rx} ;; *) base=${m5:-$rx} ;; esac
	[ "$i" = 0 ] && m0=$rx && base=$rx
	[ "$i" = 2 ] && m2=$rx && base=$rx
	[ "$i" = 5 ] && m5=$rx && base=$rx
	v=$ck; [ "$v" = - ] && v=$rx
	awk -v n="${names[i]}" -v a="$rx" -v c="$ck" -v b="$base" -v v="$v" \
		'BEGIN { printf "| %s | %.1f | %s | %.2f |\n", n, a, c == "-" ? "-" : sprintf("%.1f", c), v / b }'
done
