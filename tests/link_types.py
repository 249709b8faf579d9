#!/usr/bin/python3
"""Write one capture's frames again as Linux cooked (SLL, SLL2), raw-IP and BSD loopback
captures, with scapy's headers and pcap writer: the same IP packets behind another link
header.

    link_types.py IN.pcap OUTDIR [strip-tags]

writes OUTDIR/sll.pcap and sll2.pcap (every frame; one shorter than an Ethernet header
becomes as short a cooked header, truncated in both), raw.pcap (the untagged IPv4/IPv6
frames whose IP version agrees with their ethertype; with strip-tags, tagged frames too,
without their tags) and raw.idx: the index in IN of each frame of raw.pcap, one a line;
null.pcap and loop.pcap: raw.pcap's packets behind BSD loopback's 4-byte address family
(LINKTYPE_NULL: scapy's Loopback layer, little-endian as written on this machine, with
macOS's AF_INET6 30; LINKTYPE_LOOP: network order, with OpenBSD's 24). Each record
keeps what its frame lacked of its original length (a snap length cut it).
"""
import logging
import os
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import PcapWriter, RawPcapReader  # noqa: E402
from scapy.layers.l2 import CookedLinux, CookedLinuxV2, Loopback  # noqa: E402

src, out = sys.argv[1], sys.argv[2]
strip = len(sys.argv) > 3 and sys.argv[3] == "strip-tags"
w = {name: PcapWriter(os.path.join(out, name + ".pcap"), linktype=lt, nano=True, sync=True)
     for name, lt in (("sll", 113), ("sll2", 276), ("raw", 101), ("null", 0), ("loop", 108))}
for x in w.values():
    x.write_header(None)  # the file header (with the linktype given above)
idx = []
for i, (b, meta) in enumerate(RawPcapReader(src)):
    sec, frac = meta.sec, meta.usec  # usec, or nsec in a nanosecond file
    lost = meta.wirelen - len(b)  # bytes a snap length cut
    et = int.from_bytes(b[12:14], "big") if len(b) >= 14 else 0
    mac = b[6:12].ljust(6, b"\0") + b"\0\0"
    for name, hdr in (("sll", CookedLinux(pkttype=0, lladdrtype=1, lladdrlen=6, src=mac,
                                          proto=et)),
                      ("sll2", CookedLinuxV2(proto=et, ifindex=1, lladdrtype=1, pkttype=0,
                                             lladdrlen=6, src=mac))):
        frame = bytes(hdr) + b[14:] if len(b) >= 14 else bytes(hdr)[:len(b)]
        w[name].write_packet(frame, sec=sec, usec=frac, wirelen=len(frame) + lost)
    # raw IP has no ethertype: the version nibble stands for it, so only frames whose
    # nibble agrees with their ethertype have the same key without their header
    l3, tags = 14, 0
    while strip and et in (0x8100, 0x88A8, 0x9100) and len(b) >= l3 + 4 and tags <= 8:
        et, l3, tags = int.from_bytes(b[l3 + 2:l3 + 4], "big"), l3 + 4, tags + 1
    if tags > 8:  # more than the parser's PD_KEY_MAX_TAGS: no key from Ethernet to compare
        continue
    if len(b) > l3 and (et, b[l3] >> 4) in ((0x0800, 4), (0x86DD, 6)):
        w["raw"].write_packet(b[l3:], sec=sec, usec=frac, wirelen=len(b) - l3 + lost)
        v6 = b[l3] >> 4 == 6
        w["null"].write_packet(bytes(Loopback(type=30 if v6 else 2)) + b[l3:], sec=sec,
                               usec=frac, wirelen=len(b) - l3 + 4 + lost)
        w["loop"].write_packet((24 if v6 else 2).to_bytes(4, "big") + b[l3:], sec=sec,
                               usec=frac, wirelen=len(b) - l3 + 4 + lost)
        idx.append(i)
for x in w.values():
    x.close()
open(os.path.join(out, "raw.idx"), "w").write("".join("%d\n" % i for i in idx))
