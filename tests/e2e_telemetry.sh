#!/usr/bin/env bash
# Telemetry agrees with the JSON summary: queried live over DPDK's telemetry socket while
# pktdedup runs on pcap/dups.pcap looping through net_pcap, /pktdedup/stats has every
# counter of the summary's "total" (both are made from one list, PD_COUNTERS), the
# unparseable reasons ('_' for '-': telemetry's names) and lost_at_ports, and its counts
# keep the accounting identity.
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
tmp=$(mktemp -d)
prefix=pdtel$$
trap 'rm -rf "$tmp" /var/run/dpdk/$prefix' EXIT
rc=0
timeout --preserve-status -s INT 4 "$bin" --no-huge -m 512 --no-pci --no-shconf \
	--file-prefix "$prefix" --log-level '*:warning' -l 0 \
	--vdev "net_pcap0,rx_pcap=$in,infinite_rx=1" -- --ports 0 --key packet \
	--filter exact --action count --stats-json "$tmp/out.json" >/dev/null 2>"$tmp/err" &
pid=$!
/usr/bin/python3 - "/var/run/dpdk/$prefix/dpdk_telemetry.v2" "$tmp/tel.json" <<'PY' || rc=$?
import json, os, socket, sys, time
path = sys.argv[1]
for _ in range(100):  # up to 10 s for EAL to open its socket
    if os.path.exists(path):
        break
    time.sleep(0.1)
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(path)
json.loads(s.recv(16384))  # the greeting
time.sleep(1)  # some traffic first
s.send(b"/pktdedup/stats")
open(sys.argv[2], "w").write(s.recv(1 << 20).decode())
PY
wait $pid || rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: status $rc" >&2; cat "$tmp/err" >&2; exit 1; }
/usr/bin/python3 - "$tmp/tel.json" "$tmp/out.json" <<'PY'
import json, sys
tel = json.load(open(sys.argv[1]))["/pktdedup/stats"]
total = json.load(open(sys.argv[2]))["total"]
want = [k for k in total if not isinstance(total[k], dict)]
want += [r.replace("-", "_") for r in total["unparseable_reasons"]] + ["lost_at_ports"]
missing = [k for k in want if k not in tel]
assert not missing, "telemetry lacks %s" % missing
assert tel["rx"] > 0 and tel["duplicate"] > 0 and tel["unparseable"] > 0, tel
assert tel["rx"] <= total["rx"], (tel["rx"], total["rx"])
# live counts are read while the worker runs: within a burst of the identity
assert abs(tel["rx"] - (tel["tx"] + tel["dropped"] + tel["tx_failed"])) <= 64, tel
print("ok: telemetry has all %d counters of the summary; rx %d of %d at the query" %
      (len(want), tel["rx"], total["rx"]))
PY
