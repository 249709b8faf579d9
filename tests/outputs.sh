#!/usr/bin/env bash
# Every fixture through pktdedup in a matrix of modes, each output's SHA-256 against the
# committed tests/outputs.sha256. A change that moves code without meaning to change what
# pktdedup writes (a refactor) must leave every byte as it was; one that means to
# re-records the file and says why in its commit:
#   bash tests/outputs.sh build/app/pktdedup/pktdedup --record
# The inputs: the bundled captures and dups.pcap again as Linux cooked (SLL, SLL2) and raw
# IP (tests/link_types.py, scapy). The modes: drop, mark and --allow with packet, flow and
# source-address keys, a time window, the default qhtlru and timerbf (a fixed --seed),
# pcapng output and two workers; kept frames (--pcap-out) and copies (--dup-out) both, and
# the counters of --stats-json (in total, per worker and per port; not the times). Two
# inline runs (net_pcap, drop and mark) too, their frames without the send times.
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
record=${2:-}
want=$root/tests/outputs.sha256
tmp=$(mktemp -d)
prefix=pdout$$
trap 'rm -rf "$tmp" /var/run/dpdk/$prefix' EXIT
/usr/bin/python3 "$root/tests/link_types.py" "$root/pcap/dups.pcap" "$tmp" strip-tags

modes=(
	"drop-packet --filter exact --key packet"
	"drop-flow --filter exact --key flow"
	"mark --filter exact --key packet --action mark --mark-dscp 9"
	"srcip-allow --filter exact --key srcip --allow 2"
	"window --filter exact --window 10ms --compare-from l2 --ignore mac,vlan,ttl,checksum"
	"qhtlru --seed 7"
	"timerbf --filter timerbf --window 1ms --seed 7"
	"pcapng --filter exact --key packet --out-format pcapng"
	"workers2 --filter exact --key packet --workers 2 --seed 7"
)
sum() { sha256sum "$1" | cut -c1-16; }
# The counters of a --stats-json file, as one line (what a refactor must keep); the delay
# histogram too where the times come from the file (inline runs read the clock). Each run
# keeps its JSON and its line says "@h:FILE" (with the histogram) or "@c:FILE"; one
# Python at the end puts each file's hash there (one Python a run: 13.1-17.4 s for the
# test, 8.8-8.9 with one in all, alternating on the busy 2-core EPYC).
counters() { # lines... -> the same lines, each @h:FILE or @c:FILE replaced by its hash
	/usr/bin/python3 -c 'import hashlib, json, re, sys
def h(m):
    d = json.load(open(m.group(2)))
    keep = ["total", "workers_detail", "ports"] + (["delay_histogram"] if m.group(1) == "h" else [])
    line = json.dumps([d[k] for k in keep], sort_keys=True) + "\n"
    return hashlib.sha256(line.encode()).hexdigest()[:16]
for line in sys.stdin:
    sys.stdout.write(re.sub(r"@([hc]):(\S+)", h, line))'
}
n=0
for in in "$root"/pcap/{dups,keys,mirror,tap,tap-late}.pcap "$tmp"/{sll,sll2,raw}.pcap; do
	for m in "${modes[@]}"; do
		read -r name opts <<<"$m"
		n=$((n + 1))
		# shellcheck disable=SC2086
		"$bin" --pcap-in "$in" --pcap-out "$tmp/out" --dup-out "$tmp/dup" --quiet \
			--stats-json "$tmp/j$n.json" $opts >/dev/null 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; exit 1; }
		echo "$(sum "$tmp/out") $(sum "$tmp/dup") @h:$tmp/j$n.json $(basename "$in") $name"
	done
done >"$tmp/runs"
in=$root/pcap/dups.pcap
for action in drop mark; do
	until_rx "$($tool frames "$in" | wc -l)" "$bin" --no-huge -m 512 --no-pci --no-shconf \
		--file-prefix "$prefix" --log-level '*:warning' -l 0 \
		--vdev "net_pcap0,rx_pcap=$in,tx_pcap=$tmp/inline.pcap" -- --ports 0 \
		--filter exact --key packet --window none --action $action \
		--stats-json "$tmp/i-$action.json" ||
		{ cat "$tmp/err" >&2; exit 1; }
	# net_pcap stamps what it sends with the time of sending: the frames are compared
	echo "$($tool frames "$tmp/inline.pcap" | sha256sum | cut -c1-16) -" \
		"@c:$tmp/i-$action.json $(basename "$in") inline-$action"
done >>"$tmp/runs"
counters <"$tmp/runs" >"$tmp/got"
if [ "$record" = --record ]; then
	cp "$tmp/got" "$want"
	echo "recorded $(wc -l <"$want") outputs in $want"
	exit 0
fi
if ! diff -u "$want" "$tmp/got" >"$tmp/diff"; then
	cat "$tmp/diff" >&2
	echo "FAIL: outputs differ from tests/outputs.sha256 (bash tests/outputs.sh BIN --record" \
		"after a change meant to alter them)" >&2
	exit 1
fi
echo "ok: $(wc -l <"$want") outputs byte for byte as recorded"
