#!/usr/bin/env bash
# Faults keep the accounting identity and leak nothing (pcap/dups.pcap looping through
# net_pcap, so malformed frames arrive in bursts all along):
#  - TX that refuses: the port transmits into a veth (net_pcap tx_iface) that is taken
#    down mid-run, so sends fail: partial bursts are retried, then counted as tx_failed
#    and freed; rx = tx + tx_failed, the port's opackets = our tx, no mbuf left in use;
#  - mempool exhaustion: a pool with fewer free mbufs than one RX burst: nothing can be
#    received, and pktdedup still stops cleanly on SIGINT with no leak.
# Needs root (a veth pair); exits 77 (skipped) without it.
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
	echo "skipped: needs root and ip"
	exit 77
fi
tmp=$(mktemp -d)
va=pdtf$$ vb=pdtg$$
trap 'ip link del "$va" 2>/dev/null || true; rm -rf "$tmp" /var/run/dpdk/faults$$' EXIT
ip link add "$va" type veth peer name "$vb"
ip link set "$va" up
ip link set "$vb" up
eal=(--no-huge -m 512 --no-pci --no-telemetry --no-shconf --file-prefix "faults$$"
	--log-level '*:warning' -l 0)
check() { # json "python condition" what
	/usr/bin/python3 -c 'import json,sys
j = json.load(open(sys.argv[1])); t = j["total"]; p = j["ports"][0]
ok = j["accounted"] and j["mbufs_in_use"] == 0 and (eval(sys.argv[2]))
print("rx %d tx %d tx_failed %d unparseable %d; port ipackets %d opackets %d rx_nombuf %d" %
      (t["rx"], t["tx"], t["tx_failed"], t["unparseable"], p["ipackets"], p["opackets"],
       p["rx_nombuf"]))
sys.exit(0 if ok else 1)' "$1" "$2" >"$tmp/line" || { echo "FAIL: $3: $(cat "$tmp/line")" >&2; exit 1; }
	echo "ok: $3: $(cat "$tmp/line"); identity holds, no mbuf in use"
}

# 1. TX refused: the link goes down after 1 s of a 3 s run
(sleep 1; ip link set "$va" down) &
rc=0
timeout --preserve-status -s INT 3 "$bin" "${eal[@]}" \
	--vdev "net_pcap0,rx_pcap=$in,tx_iface=$va,infinite_rx=1" -- --ports 0 \
	--key packet --filter exact --action count --mbufs 8192 \
	--stats-json "$tmp/tx.json" >/dev/null 2>"$tmp/tx.err" || rc=$?
wait
[ "$rc" -eq 0 ] || { echo "FAIL: TX faults: status $rc" >&2; cat "$tmp/tx.err" >&2; exit 1; }
check "$tmp/tx.json" 't["tx_failed"] > 0 and t["unparseable"] > 0 and p["opackets"] == t["tx"] and t["rx"] == t["tx"] + t["tx_failed"]' \
	"TX refused"

# 2. mempool exhaustion: 1,210 mbufs, 1,200 of them holding the looped file's frames, so
# no RX burst of 32 can be allocated (net_pcap's looping mode does not count rx_nombuf)
rc=0
timeout --preserve-status -s INT 2 "$bin" "${eal[@]}" \
	--vdev "net_pcap0,rx_pcap=$in,infinite_rx=1" -- --ports 0 --key packet \
	--filter exact --mbufs 1210 --stats-json "$tmp/pool.json" >/dev/null 2>"$tmp/pool.err" || rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: exhaustion: status $rc" >&2; cat "$tmp/pool.err" >&2; exit 1; }
check "$tmp/pool.json" 't["rx"] == 0 and p["ipackets"] == 0' "mempool exhausted"
