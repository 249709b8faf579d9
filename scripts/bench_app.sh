#!/usr/bin/env bash
# pktdedup's cost per packet over dpdk-testpmd, one worker, side by side on the same vdev:
# net_pcap replaying 65,536 different 64-byte UDP/IPv4 frames from memory in a loop
# (infinite_rx; TX without a file drops). testpmd runs twice: --forward-mode=macswap, which
# reads and writes every header as any forwarder that looks at packets must (the floor
# for pktdedup, which must read them), and io, which touches nothing (printed beside it).
# pktdedup runs with dedup on and --action count (it forwards every packet, as testpmd
# does). Each of REPS rounds runs testpmd io, testpmd macswap, then pktdedup, SECS seconds
# each, then tests/bench/bench_isolated on the same frames: the key, its hash, the filter
# alone and the live estimate (thread CPU time, docs/estimate.md). Prints medians: each
# program's ns/packet, what pktdedup adds over each testpmd, and the isolated costs with
# their sum (docs/speed.md). A benchmark, not a test; dpdk-testpmd comes with Debian's
# dpdk-dev.
#   bash scripts/bench_app.sh [SECS] [REPS] [pktdedup options...]
# Options must include --key, --filter and --memory (default: --key flow --filter
# qhtlru --memory 64M, the app's default filter): bench_isolated takes the same.
# With VDEV=null both run on net_null instead (64-byte frames of zero bytes, never
# written by the PMD: flow keys find nothing to parse; use --key packet there; the
# isolated costs are then measured on a frame of 64 zero bytes).
# With HUGE=1 both run on 2 MiB hugepages, as on a NIC (reserve 1024 first: docs/speed.md).
# With VS="more options" in the environment each round also runs pktdedup with those
# options added (e.g. VS="--window 1ms"): the ratio of the two is printed too.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench_common.sh
bash scripts/build.sh
command -v dpdk-testpmd >/dev/null ||
	{ echo "bench_app.sh: needs dpdk-testpmd: apt-get install dpdk-dev" >&2; exit 1; }
secs=${1:-5}
reps=${2:-3}
# a rate is the median of the per-second rates from the second second on: fewer than 3
# seconds leave none once EAL has started
[[ $secs =~ ^[0-9]+$ && $secs -ge 3 && $reps =~ ^[1-9][0-9]*$ ]] ||
	{ echo "bench_app.sh: SECS must be 3 or more and REPS 1 or more (got $secs, $reps)" >&2; exit 2; }
shift $(($# >= 2 ? 2 : $#))
extra=("$@")
[ ${#extra[@]} -eq 0 ] && extra=(--filter qhtlru --memory 64M --key flow)
opt() { # the value of option $1 in extra
	local i
	for ((i = 0; i + 1 < ${#extra[@]}; i++)); do
		[ "${extra[i]}" = "$1" ] && { echo "${extra[i + 1]}"; return; }
	done
	echo "bench_app.sh: give $1 (bench_isolated measures the same key, filter and memory)" >&2
	exit 2
}
key=$(opt --key)
filter=$(opt --filter)
memory=$(opt --memory)
bytes=$(awk -v m="$memory" 'BEGIN { n = m + 0; u = toupper(substr(m, length(m)));
	if (u == "K") n *= 1024; else if (u == "M") n *= 1048576; else if (u == "G") n *= 1073741824;
	printf "%d", n }')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "/var/run/dpdk/bench$$"' EXIT # EAL leaves its runtime directory
pcap=$tmp/udp64.pcap
python3 scripts/gen_udp_pcap.py "$pcap" 65536
vdev="net_pcap0,rx_pcap=$pcap,infinite_rx=1"
if [ "${VDEV:-pcap}" = null ]; then
	vdev=net_null0 # frames of 64 zero bytes: see docs/speed.md
	pcap=$tmp/zero64.pcap # what bench_isolated keys: the same bytes
	printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\0\0\0\0\0\0\0\0\xff\xff\0\0\x01\0\0\0' >"$pcap"
	printf '\0\0\0\0\0\0\0\0\x40\0\0\0\x40\0\0\0' >>"$pcap"
	head -c 64 /dev/zero >>"$pcap"
fi
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
rate_pktdedup() { # binary, more options...
	local bin=$1
	shift
	{ timeout -s INT $((secs + 2)) "$bin" "${eal[@]}" \
		--file-prefix "bench$$" -l 1 --vdev "$vdev" -- --ports 0 --action count \
		--mbufs 100000 --stats-interval 1 "${extra[@]}" "$@" 2>&1 >/dev/null || true; } |
		awk '/s rx / { t = $2 + 0; r = $4; if (t >= 2 && pt >= 1) print (r - pr) / (t - pt) / 1e6; pt = t; pr = r }' |
		sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
rate_testpmd() { # forward mode: io (touches nothing) or macswap (reads and writes headers)
	{ timeout -s INT $((secs + 2)) dpdk-testpmd "${eal[@]}" --file-prefix "bench$$" \
		-l 0-1 --vdev "$vdev" -- --forward-mode="$1" --port-topology=loop --stats-period 1 \
		--total-num-mbufs=100000 -a 2>/dev/null || true; } |
		awk '/Rx-pps:/ { n++; if (n >= 2) print $2 / 1e6 }' |
		sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
machine_lines
echo "pktdedup options: --action count ${extra[*]}${VS:+; VS adds: ${vs[*]}}"
p=()
t=()
s=()
v=()
iso=()
for r in $(seq "$reps"); do
	t+=("$(rate_testpmd io)")
	s+=("$(rate_testpmd macswap)")
	p+=("$(rate_pktdedup build/app/pktdedup/pktdedup)")
	for x in "${t[-1]}" "${s[-1]}" "${p[-1]}"; do
		[ -n "$x" ] || { echo "bench_app.sh: a run gave no rate (see it alone:" \
			"the commands are above)" >&2; exit 1; }
	done
	line="run $r: testpmd io ${t[-1]} Mpps, macswap ${s[-1]} Mpps, pktdedup ${p[-1]} Mpps"
	if [ ${#vs[@]} -ne 0 ]; then
		v+=("$(rate_pktdedup build/app/pktdedup/pktdedup "${vs[@]}")")
		line="$line, with ${vs[*]} ${v[-1]} Mpps"
	fi
	iso+=("$(taskset -c 1 build/tests/bench_isolated "$pcap" 20000000 1 "$key" "$filter" "$bytes")")
	echo "$line; ${iso[-1]#isolated: }"
done
med() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
field() { # the median of isolated field $1 over the rounds
	local x=() l
	for l in "${iso[@]}"; do x+=("$(sed -n "s/.* $1 \(-\{0,1\}[0-9.]*\) .*/\1/p" <<<"$l")"); done
	med "${x[@]}"
}
mt=$(med "${t[@]}")
ms=$(med "${s[@]}")
mp=$(med "${p[@]}")
echo "median: testpmd io $mt Mpps, macswap $ms Mpps, pktdedup $mp Mpps"
awk -v t="$mt" -v s="$ms" -v p="$mp" -v k="$(field key)" -v h="$(field hash)" \
	-v f="$(field filter)" -v e="$(field estimate)" 'BEGIN {
	printf "| testpmd io ns/packet | macswap | pktdedup | added over io | over macswap |"
	printf " isolated: key | hash | filter | estimate | sum |\n"
	printf "| %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f |\n",
		1e3 / t, 1e3 / s, 1e3 / p, 1e3 / p - 1e3 / t, 1e3 / p - 1e3 / s, k, h, f, e,
		k + h + f + e }'
if [ ${#vs[@]} -ne 0 ]; then
	mv=$(med "${v[@]}")
	echo "median with ${vs[*]}: $mv Mpps, ratio to testpmd io $(ratio "$mv" "$mt"), to pktdedup without $(ratio "$mv" "$mp")"
fi
