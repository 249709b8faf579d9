#!/usr/bin/env bash
# Soak: pktdedup replays a pcap in a loop through net_pcap (infinite_rx) for a given
# time, with periodic snapshots, and reports packets, rates, counters, the accounting
# identity and the mbufs left in use. The traffic: 65,536 different UDP frames
# (scripts/gen_udp_pcap.py) followed by pcap/dups.pcap (exact and second-TAP copies,
# malformed frames), so after the first pass every keyed frame is a duplicate and the
# drop path runs hot. Exit status 0 only if pktdedup exited 0, the identity held and no
# mbuf leaked. With --workers N among the options the port has N queues, each replaying
# the loop, and EAL N lcores (0 to N-1).
#   bash scripts/soak.sh [SECONDS] [pktdedup options...]      (default 600 s)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
secs=${1:-600}
shift $(($# >= 1 ? 1 : 0))
extra=("$@")
[ ${#extra[@]} -eq 0 ] && extra=(--filter qqhtd --memory 64M --key packet)
workers=1
for ((i = 0; i < ${#extra[@]}; i++)); do
	case ${extra[i]} in
	--workers=*) workers=${extra[i]#--workers=} ;;
	--workers) workers=${extra[i + 1]:-1} ;;
	esac
done
[[ $workers =~ ^[1-9][0-9]*$ ]] || { echo "soak: --workers $workers: expected a count" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "/var/run/dpdk/soak$$"' EXIT
python3 scripts/gen_udp_pcap.py "$tmp/udp.pcap" 65536
mergecap -F pcap -a -w "$tmp/loop.pcap" "$tmp/udp.pcap" pcap/dups.pcap
vdev="net_pcap0,infinite_rx=1"
for ((i = 0; i < workers; i++)); do vdev+=",rx_pcap=$tmp/loop.pcap"; done
echo "soak: ${secs}s, pktdedup ${extra[*]}, $(date -u +%FT%TZ)"
rc=0
timeout --preserve-status -s INT "$secs" build/app/pktdedup/pktdedup --no-huge \
	-m $((512 + 512 * workers)) --no-pci --no-shconf --file-prefix "soak$$" \
	--log-level '*:warning' -l "0-$((workers - 1))" --vdev "$vdev" -- --ports 0 \
	--mbufs $((100000 * workers)) --stats-interval 60 --snapshot "$tmp/state.snap" \
	--snapshot-interval 30s --stats-json "$tmp/soak.json" "${extra[@]}" \
	>"$tmp/out.txt" 2>"$tmp/err.txt" || rc=$?
cat "$tmp/err.txt" "$tmp/out.txt"
[ -f "$tmp/soak.json" ] || { echo "soak: no summary (status $rc)"; exit 1; }
python3 - "$tmp/soak.json" "$rc" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t, s = j["total"], j.get("snapshot", {})
rate = t["rx"] / j["seconds"] / 1e6
print("soak: %.0f s, %d packets, %.2f Mpps: unique %d, duplicate %d, unparseable %d, "
      "tx %d (passed unchecked %d), dropped %d, tx_failed %d" % (j["seconds"], t["rx"], rate,
      t["unique"], t["duplicate"], t["unparseable"], t["tx"], t["bypassed"], t["dropped"],
      t["tx_failed"]))
print("soak: identity rx = tx + dropped + tx_failed: %s; mbufs in use "
      "after stop: %d; snapshots %d written, %d failed, copy steps %d, mean %.1f us, "
      "longest %.1f us; exit status %s" % ("holds" if j["accounted"] else "BROKEN",
      j["mbufs_in_use"], s.get("periodic_written", 0), s.get("periodic_failed", 0),
      s.get("copy_steps", 0), s.get("copy_total_ms", 0) * 1e3 / max(1, s.get("copy_steps", 0)),
      s.get("step_max_us", 0), sys.argv[2]))
for p in j.get("ports", []):
    print("soak: port %d: ipackets %d, opackets %d, rx_nombuf %d, imissed %d, ierrors %d, "
          "oerrors %d" % (p["port"], p["ipackets"], p["opackets"], p["rx_nombuf"],
                          p["imissed"], p["ierrors"], p["oerrors"]))
ok = j["accounted"] and j["mbufs_in_use"] == 0 and sys.argv[2] == "0"
print("soak: " + ("PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
