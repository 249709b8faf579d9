#!/usr/bin/env bash
# Telemetry agrees with the JSON summary: queried live over DPDK's telemetry socket while
# pktdedup runs on pcap/dups.pcap looping through net_pcap, /pktdedup/stats has every
# counter of the summary's "total" (both are made from one list, PD_COUNTERS), the
# unparseable reasons ('_' for '-': telemetry's names) and lost_at_ports, and its counts
# keep the accounting identity. /pktdedup/workers, /ports, /config and /delays agree
# with the summary, and scripts/pktdedup-prometheus.py turns them into valid Prometheus
# text. A replay with --telemetry serves them too, while it reads a pipe.
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
tmp=$(mktemp -d)
prefix=pdtel$$
trap 'rm -rf "$tmp" /var/run/dpdk/$prefix' EXIT
rc=0
timeout --preserve-status -s INT 4 "$bin" --no-huge -m 512 --no-pci --no-shconf \
	--file-prefix "$prefix" --log-level '*:warning' -l 0 \
	--vdev "net_pcap0,rx_pcap=$in,infinite_rx=1" -- --ports 0 --key packet \
	--filter exact --action count --window 10ms --stats-json "$tmp/out.json" \
	>/dev/null 2>"$tmp/err" &
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
out = {}
for cmd in ["/pktdedup/stats", "/pktdedup/workers", "/pktdedup/ports", "/pktdedup/config",
            "/pktdedup/delays", "/pktdedup/window_advice"]:
    s.send(cmd.encode())
    out.update(json.loads(s.recv(1 << 20)))
json.dump(out, open(sys.argv[2], "w"))
PY
/usr/bin/python3 "$root/scripts/pktdedup-prometheus.py" --file-prefix "$prefix" >"$tmp/prom.txt" || rc=$?
wait $pid || rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: status $rc" >&2; cat "$tmp/err" >&2; exit 1; }
/usr/bin/python3 - "$tmp/tel.json" "$tmp/out.json" <<'PY'
import json, sys
all_ = json.load(open(sys.argv[1]))
tel = all_["/pktdedup/stats"]
summary = json.load(open(sys.argv[2]))
total = summary["total"]
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
w = all_["/pktdedup/workers"]["0"]
assert set(want[:len(total) - 1]) - {"unparseable_reasons"} <= set(w) | {"unparseable_reasons"}, w
assert 0 < w["rx"] <= total["rx"] and w["lcore"] == 0, w
p = all_["/pktdedup/ports"]["0"]
assert p["name"] == "net_pcap0" and 0 < p["rx"] <= p["ipackets"] and p["lost"] == 0, p
c = all_["/pktdedup/config"]
plan = summary["plan"]
assert (c["filter"], c["parameters"], c["key"], c["window_ns"], c["workers"]) == \
    (plan["filter"], plan["parameters"], summary["key"], summary["window_ns"], 1), c
assert float(c["predicted_fpr"]) == float("%g" % plan["predicted_fpr"]), (c, plan)
assert (c["dispatch"], c["dispatch_ring"]) == (summary["dispatch"], summary["dispatch_ring"]) \
    == ("none", 0), c
d = all_["/pktdedup/delays"]
assert len(d) == len(summary["delay_histogram"]["buckets"]) and list(d)[0] == "lt_1us" and \
    list(d)[-1] == "ge_10s" and 0 < sum(d.values()) <= total["duplicate"], d
wa = all_["/pktdedup/window_advice"]
assert list(wa) == ["share_99", "share_99_9", "share_100"], wa
assert all(0 < x["window_ns"] and x["memory_per_worker"] >= 65536 for x in wa.values()), wa
print("ok: /pktdedup/workers, /ports, /config (%s %s), /delays (%d buckets) and "
      "/window_advice (99%% within %d ns) agree" % (c["filter"], c["parameters"], len(d),
                                                     wa["share_99"]["window_ns"]))
PY
# the exporter: every sample line is NAME{LABELS} VALUE, with the totals and histogram
/usr/bin/python3 - "$tmp/prom.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
series = {}
for line in text.splitlines():
    if line.startswith("#"):
        assert re.fullmatch(r"# (HELP|TYPE) pktdedup_\w+ .+", line), line
        continue
    m = re.fullmatch(r'(pktdedup_\w+)(\{(\w+="[^"]*",?)*\})? (\S+)', line)
    assert m, line
    labels = sorted(re.findall(r'\w+="[^"]*"', m.group(2) or ""))  # in any order
    series[m.group(1) + ("{%s}" % ",".join(labels) if labels else "")] = float(m.group(4))
assert series["pktdedup_rx_total"] > 0, series
assert series['pktdedup_worker_rx_total{lcore="0",worker="0"}'] > 0
assert series['pktdedup_port_ipackets_total{name="net_pcap0",port="0"}'] > 0
assert any(k.startswith("pktdedup_info{") and 'filter="exact"' in k for k in series)
assert series['pktdedup_duplicate_delay_seconds_bucket{le="+Inf"}'] == \
    series["pktdedup_duplicate_delay_seconds_count"] > 0
buckets = [v for k, v in series.items() if k.startswith("pktdedup_duplicate_delay_seconds_b")]
assert buckets == sorted(buckets), buckets  # cumulative
assert 'pktdedup_estimated_fnr{bound="upper"}' in series
assert series["pktdedup_up"] == 1
# the histogram's _sum: the delays added up, in seconds; at least each counted copy's
# bucket's lower bound (1 us from the second bucket on)
above_1us = series["pktdedup_duplicate_delay_seconds_count"] - \
    series['pktdedup_duplicate_delay_seconds_bucket{le="1e-06"}']
assert series["pktdedup_duplicate_delay_seconds_sum"] >= above_1us * 1e-6 > 0, series
print("ok: pktdedup-prometheus: %d series, valid text exposition, histogram with _sum" %
      len(series))
PY

# a replay serves telemetry with --telemetry, here while it waits on its input pipe; the
# socket's path is said even with --quiet (it was asked for)
mkfifo "$tmp/fifo"
"$bin" --pcap-in "$tmp/fifo" --pcap-out "$tmp/replay.pcap" --telemetry --quiet >/dev/null \
	2>"$tmp/rerr" &
rpid=$!
exec 3>"$tmp/fifo"
cat "$in" >&3
for _ in $(seq 100); do
	sock=$(sed -n 's/^pktdedup: telemetry: //p' "$tmp/rerr")
	[ -n "$sock" ] && [ -S "$sock" ] && break
	sleep 0.1
done
[ -n "$sock" ] || { echo "FAIL: replay --telemetry printed no socket: $(cat "$tmp/rerr")" >&2; exit 1; }
/usr/bin/python3 "$root/scripts/pktdedup-prometheus.py" --socket "$sock" >"$tmp/rprom.txt" ||
	{ echo "FAIL: the exporter could not read the replay's telemetry" >&2; exit 1; }
exec 3>&-
wait $rpid || { echo "FAIL: replay status $?: $(cat "$tmp/rerr")" >&2; exit 1; }
grep -q '^pktdedup_info{.*filter="qhtlru"' "$tmp/rprom.txt" && grep -q '^pktdedup_rx_total ' "$tmp/rprom.txt" ||
	{ echo "FAIL: replay telemetry: $(head -5 "$tmp/rprom.txt")" >&2; exit 1; }
[ ! -e "$sock" ] && [ ! -d "$(dirname "$sock")" ] ||
	{ echo "FAIL: replay left $(dirname "$sock") behind" >&2; exit 1; }
echo "ok: a replay with --telemetry served $(grep -c '^pktdedup' "$tmp/rprom.txt") series while reading a pipe, and removed its socket"

