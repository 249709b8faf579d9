#!/usr/bin/env bash
# --decap on captures written by scapy (tests/gen_tunnels.py): six packets, each as a plain
# Ethernet frame and again inside VXLAN, Geneve (Ethernet and IP payloads, with options),
# GRE (IP, and Ethernet with checksum, key and sequence fields), ERSPAN I, II and III
# (with and without the platform sub-header), MPLS (two labels; a pseudowire with its
# control word), MPLS in GRE, GTP-U (with an extension header) and VXLAN in GRE, every
# copy with its own outer addresses. Checks:
#  - pktdedup-keys --decap auto: every frame keyed, the tunnels it reports are the ones
#    scapy wrapped it in, and all copies of a packet have one key, in every key mode
#    (click: only the HTTP request has one), and from L2 for copies with an inner
#    Ethernet header;
#  - pktdedup --decap auto keeps the first arrival of each packet, and every frame of
#    the packets without a key in that mode, for each key mode; without --decap every
#    frame stays; --decap with one kind opens only that kind;
#  - malformed, too deeply nested and truncated tunnels give their reasons (bad-tunnel,
#    too-deep, truncated), counted in the run's JSON, and are forwarded;
#  - --action mark marks the outermost IP header of a decapsulated copy;
#  - the run's JSON counts the tunnels opened;
#  - --vxlan-port 8472 opens VXLAN moved to that port (scapy) as 4789's; without it, not.
# Usage: e2e_decap.sh PKTDEDUP PKTDEDUP-KEYS
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
keys=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

/usr/bin/python3 "$root/tests/gen_tunnels.py" "$tmp"
n=$(wc -l <"$tmp/tunnels.txt")

# The keys: the walk scapy made, one key per packet in each mode.
for mode in packet flow srcip click; do
	"$keys" --key "$mode" --decap auto "$tmp/tunnels.pcap" >"$tmp/keys-$mode.txt"
done
"$keys" --key packet --compare-from l2 --decap auto "$tmp/tunnels.pcap" >"$tmp/keys-l2.txt"
/usr/bin/python3 - "$tmp" <<'PY' || fail "pktdedup-keys --decap auto"
import sys
d = sys.argv[1]
want = [l.split(" ", 1) for l in open(d + "/tunnels.txt").read().splitlines()]
ether = open(d + "/ether.txt").read().split()
for mode in ("packet", "flow", "srcip", "click", "l2"):
    keys = {}
    for line, (pk, walk), eth in zip(open("%s/keys-%s.txt" % (d, mode)), want, ether):
        f = line.split()
        via = " ".join(f[f.index("via") + 1:]) if "via" in f else "-"
        assert via == walk, (mode, line, walk)
        if mode == "click" and pk != "5":
            assert f[1] == "not-http", (mode, line)
            continue
        assert f[1] == "ok", (mode, line)
        if mode == "l2" and eth == "0":
            continue  # no inner Ethernet header: from L2 its key is the IP packet alone
        keys.setdefault(pk, set()).add(f[2])
    assert all(len(k) == 1 for k in keys.values()), (mode, keys)
    assert len(set().union(*keys.values())) == len(keys), mode  # packets stay apart
print("ok: pktdedup-keys --decap auto: %d frames, each tunnel reported as scapy made it;"
      " one key per packet in every mode, and from L2 behind an inner Ethernet header" %
      len(want))
PY

# The runs: the first arrival of each packet kept; the packets without a key, every frame.
for mode in packet flow srcip click; do
	"$bin" --pcap-in "$tmp/tunnels.pcap" --pcap-out "$tmp/out-$mode.pcap" --key "$mode" \
		--filter exact --decap auto --stats-json "$tmp/$mode.json" >/dev/null 2>"$tmp/err" ||
		fail "--key $mode --decap auto: $(cat "$tmp/err")"
	$tool frames "$tmp/out-$mode.pcap" >"$tmp/got-$mode.txt"
done
"$bin" --pcap-in "$tmp/tunnels.pcap" --pcap-out "$tmp/out-none.pcap" --key packet \
	--filter exact >/dev/null 2>"$tmp/err" || fail "without --decap: $(cat "$tmp/err")"
"$bin" --pcap-in "$tmp/tunnels.pcap" --pcap-out "$tmp/out-vxlan.pcap" --key packet \
	--filter exact --decap vxlan >/dev/null 2>"$tmp/err" || fail "--decap vxlan: $(cat "$tmp/err")"
$tool frames "$tmp/tunnels.pcap" >"$tmp/in.txt"
$tool frames "$tmp/out-none.pcap" >"$tmp/got-none.txt"
$tool frames "$tmp/out-vxlan.pcap" >"$tmp/got-vxlan.txt"
/usr/bin/python3 - "$tmp" <<'PY' || fail "pktdedup --decap"
import json, sys
d = sys.argv[1]
want = [l.split(" ", 1) for l in open(d + "/tunnels.txt").read().splitlines()]
frames = open(d + "/in.txt").read().split()
for mode in ("packet", "flow", "srcip", "click"):
    seen, keep = set(), []
    for (pk, _), f in zip(want, frames):
        if mode == "click" and pk != "5":
            keep.append(f)  # no key: forwarded
        elif pk not in seen:
            seen.add(pk)
            keep.append(f)
    got = open("%s/got-%s.txt" % (d, mode)).read().split()
    assert got == keep, (mode, len(got), len(keep))
    j = json.load(open("%s/%s.json" % (d, mode)))
    opened = j["total"]["decapsulated"]
    walks = [w.split() for _, w in want if w != "-"]
    for kind in ("vxlan", "geneve", "gre", "erspan", "mpls", "gtpu"):
        assert opened[kind] == sum(kind in w for w in walks), (mode, kind, opened)
assert open(d + "/got-none.txt").read().split() == frames, "without --decap"
# only VXLAN opened: the plain frame and the copies in VXLAN are one packet, no other
keep, seen = [], set()
for (pk, walk), f in zip(want, frames):
    if walk in ("-", "vxlan"):
        if pk in seen:
            continue
        seen.add(pk)
    keep.append(f)
assert open(d + "/got-vxlan.txt").read().split() == keep, "--decap vxlan"
print("ok: --decap auto keeps the first of the %d copies of each packet in every key mode,"
      " and counts the tunnels opened; without it all %d frames stay; --decap vxlan opens"
      " VXLAN only" % (len(want) // 6, len(want)))
PY

# Broken tunnels: the reasons, counted, and every frame forwarded.
"$keys" --decap auto "$tmp/broken.pcap" >"$tmp/broken-keys.txt"
"$bin" --pcap-in "$tmp/broken.pcap" --pcap-out "$tmp/broken-out.pcap" --key packet \
	--filter exact --decap auto --stats-json "$tmp/broken.json" >/dev/null 2>"$tmp/err" ||
	fail "broken tunnels: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp" <<'PY' || fail "broken tunnels"
import json, sys
d = sys.argv[1]
want = open(d + "/broken.txt").read().splitlines()
got = open(d + "/broken-keys.txt").read().splitlines()
assert len(got) == len(want)
count = {"bad-tunnel": 0, "too-deep": 0, "truncated": 0}
for line, w in zip(got, want):
    r = line.split()[1]
    if w.startswith("short"):  # cut in a tunnel header, or before or after it
        assert r in ("truncated", "ok"), (line, w)
    else:
        assert r == w, (line, w)
    count[r] = count.get(r, 0) + 1
t = json.load(open(d + "/broken.json"))["total"]
for r in ("bad-tunnel", "too-deep", "truncated"):
    assert t["unparseable_reasons"][r] == count[r], (r, t["unparseable_reasons"], count)
assert t["tx"] == len(want), t  # unparseable frames are forwarded (the default)
print("ok: broken tunnels: %d bad-tunnel, %d too-deep, %d truncated, all %d forwarded"
      % (count["bad-tunnel"], count["too-deep"], count["truncated"], len(want)))
PY

# --action mark: the outermost IP header of each decapsulated copy carries the mark.
"$bin" --pcap-in "$tmp/tunnels.pcap" --pcap-out "$tmp/mark.pcap" --key packet \
	--filter exact --decap auto --action mark --mark-dscp 10 >/dev/null 2>"$tmp/err" ||
	fail "--action mark: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp" <<'PY' || fail "--action mark with --decap"
import logging, sys
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import IP, IPv6, Ether, rdpcap
d = sys.argv[1]
want = [l.split(" ", 1) for l in open(d + "/tunnels.txt").read().splitlines()]
seen, marked = set(), 0
for (pk, walk), p in zip(want, rdpcap(d + "/mark.pcap")):
    dup = pk in seen
    seen.add(pk)
    if walk == "mpls":  # scapy leaves what follows the labels undecoded: by hand
        b, o = bytes(p), 14
        while not b[o + 2] & 1:
            o += 4
        o += 4
        nib = b[o] >> 4
        p = Ether(b[o + 4:]) if nib == 0 else IP(b[o:]) if nib == 4 else IPv6(b[o:])
    ip = p.getlayer(IP) or p.getlayer(IPv6)  # the outermost IP header
    tos = ip.tos if ip.version == 4 else ip.tc
    assert (tos >> 2 == 10) == dup, (pk, walk, tos)
    if ip.version == 4:
        c = ip.chksum
        del ip.chksum
        assert IP(bytes(ip)).chksum == c, "checksum"
    marked += dup
print("ok: --action mark: %d copies marked in their outermost IP header" % marked)
PY

# --vxlan-port: the captures' outermost VXLAN moved to UDP port 8472 (Linux's own default
# for VXLAN devices) by scapy: with --vxlan-port 8472 every key is the 4789 capture's;
# without it no frame is opened as VXLAN
/usr/bin/python3 - "$tmp/tunnels.pcap" "$tmp/vx8472.pcap" <<'PY'
import logging, sys
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import Ether, PcapWriter, RawPcapReader, UDP
w = PcapWriter(sys.argv[2], linktype=1, sync=True)
w.write_header(None)  # raw records below: the file header first
for b, meta in RawPcapReader(sys.argv[1]):
    p = Ether(b)
    u = p.payload.payload  # the outer UDP header (VXLAN in GRE stays as it is)
    if isinstance(u, UDP) and u.dport == 4789:
        u.dport = 8472
        del u.chksum
        b = bytes(p)
    w.write_packet(b, sec=meta.sec, usec=meta.usec)
w.close()
PY
"$keys" --key packet --decap vxlan "$tmp/tunnels.pcap" >"$tmp/vx-4789.txt"
"$keys" --key packet --decap vxlan --vxlan-port 8472 "$tmp/vx8472.pcap" >"$tmp/vx-8472.txt"
"$keys" --key packet --decap vxlan "$tmp/vx8472.pcap" >"$tmp/vx-none.txt"
cmp -s "$tmp/vx-4789.txt" "$tmp/vx-8472.txt" || fail "--vxlan-port 8472: other keys than 4789's"
opened=$(grep -c " via vxlan" "$tmp/vx-4789.txt" || true)
[ "$opened" -gt 0 ] && ! grep -q " via vxlan" "$tmp/vx-none.txt" ||
	fail "VXLAN on 8472 opened without --vxlan-port ($opened opened on 4789)"
echo "ok: --vxlan-port 8472: the keys of the 4789 capture ($opened frames opened); without" \
	"it none opened"
