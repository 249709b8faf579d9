#!/usr/bin/python3
"""Captures of tunnelled copies, written with scapy's headers (not pktdedup's parse), for
e2e_decap.sh:

    gen_tunnels.py OUTDIR

OUTDIR/tunnels.pcap: each of a few packets (UDP, TCP and ICMP over IPv4 and IPv6, an
HTTP request) as a plain Ethernet frame and again inside every tunnel kind, each copy with
its own outer addresses, in an order where the first arrival of a packet is sometimes a
tunnelled copy. OUTDIR/tunnels.txt: one line per frame, "<packet> <walk>" (the packet's
number, and the tunnels around it outermost first, "-" for none); OUTDIR/ether.txt the
frames whose innermost packet has an Ethernet header ("1") or not ("0").

pcap/tunnels.pcap is OUTDIR/tunnels.pcap (docs/keys.md's examples).

OUTDIR/broken.pcap and broken.txt: frames whose tunnel header is malformed, truncated or
nested too deep, and the reason pktdedup-keys --decap auto must give for each.
"""
import logging
import random
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import PcapWriter, Raw  # noqa: E402
from scapy.contrib.erspan import ERSPAN_II, ERSPAN_III, ERSPAN_PlatformSpecific  # noqa: E402
from scapy.contrib.geneve import GENEVE  # noqa: E402
from scapy.contrib.gtp import GTP_U_Header, GTP_PDCP_PDU_ExtensionHeader  # noqa: E402
from scapy.contrib.mpls import MPLS  # noqa: E402
from scapy.layers.inet import ICMP, IP, TCP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import GRE, Ether  # noqa: E402
from scapy.layers.vxlan import VXLAN  # noqa: E402

out = sys.argv[1]
rng = random.Random(42)


def mac():
    return "02:%02x:%02x:%02x:%02x:%02x" % tuple(rng.randrange(256) for _ in range(5))


def v4():
    return "10.%d.%d.%d" % (rng.randrange(256), rng.randrange(256), rng.randrange(1, 255))


def outer(proto_payload):
    """A fresh outer Ethernet/IPv4 around a tunnel header and its payload."""
    return Ether(src=mac(), dst=mac()) / IP(src=v4(), dst=v4(), ttl=rng.randrange(2, 64),
                                           id=rng.randrange(65536)) / proto_payload


# The packets: distinct 5-tuples and distinct sources, so that every key mode keys each
# apart (click: only the HTTP request has a key).
inner_ip = [
    IP(src="192.0.2.1", dst="198.51.100.1") / UDP(sport=1111, dport=53) / Raw(b"q" * 20),
    IP(src="192.0.2.2", dst="198.51.100.2") / TCP(sport=2222, dport=443, flags="PA", seq=7)
    / Raw(b"t" * 30),
    IPv6(src="2001:db8::3", dst="2001:db8::99") / UDP(sport=3333, dport=123) / Raw(b"u" * 12),
    IPv6(src="2001:db8::4", dst="2001:db8::98") / TCP(sport=4444, dport=22, flags="S"),
    IP(src="192.0.2.5", dst="198.51.100.5") / ICMP(type=8, id=5, seq=1) / Raw(b"p" * 16),
    IP(src="192.0.2.6", dst="198.51.100.6") / TCP(sport=6666, dport=80, flags="PA", seq=9)
    / Raw(b"GET /ad?id=7&u=1 HTTP/1.1\r\nHost: x\r\n\r\n"),
]
plain = [Ether(src="02:00:00:00:00:%02x" % i, dst="02:00:00:00:01:%02x" % i) / p
         for i, p in enumerate(inner_ip)]


def ip_payload(i):
    return inner_ip[i].copy()


def eth_payload(i):
    return plain[i].copy()


def et_of(i):
    return 0x0800 if inner_ip[i].version == 4 else 0x86DD


# Each tunnel kind: (walk, innermost has Ethernet, frame maker).
kinds = [
    ("vxlan", 1, lambda i: outer(UDP(sport=rng.randrange(49152, 65535), dport=4789)
                                 / VXLAN(vni=rng.randrange(1 << 24)) / eth_payload(i))),
    ("geneve", 1, lambda i: outer(UDP(sport=rng.randrange(49152, 65535), dport=6081)
                                  / GENEVE(vni=77, proto=0x6558, optionlen=2,
                                           options=b"\x01\x02\x03\x04\x05\x06\x07\x08")
                                  / eth_payload(i))),
    ("geneve", 0, lambda i: outer(UDP(sport=rng.randrange(49152, 65535), dport=6081)
                                  / GENEVE(vni=78, proto=et_of(i)) / ip_payload(i))),
    ("gre", 0, lambda i: outer(GRE(proto=et_of(i)) / ip_payload(i))),
    ("gre", 1, lambda i: outer(GRE(chksum_present=1, key_present=1, seqnum_present=1,
                                   key=rng.randrange(1 << 32), seqence_number=rng.randrange(
                                       1 << 32), proto=0x6558) / eth_payload(i))),
    ("erspan", 1, lambda i: outer(GRE(proto=0x88BE) / eth_payload(i))),  # type I
    ("erspan", 1, lambda i: outer(GRE(seqnum_present=1, seqence_number=rng.randrange(1000),
                                      proto=0x88BE) / ERSPAN_II(ver=1, session_id=9)
                                  / eth_payload(i))),
    ("erspan", 1, lambda i: outer(GRE(seqnum_present=1, proto=0x22EB)
                                  / ERSPAN_III(session_id=10, o=1) / ERSPAN_PlatformSpecific()
                                  / eth_payload(i))),
    ("erspan", 1, lambda i: outer(GRE(seqnum_present=1, proto=0x22EB)
                                  / ERSPAN_III(session_id=11, o=0) / eth_payload(i))),
    ("mpls", 0, lambda i: Ether(src=mac(), dst=mac(), type=0x8847)
     / MPLS(label=rng.randrange(16, 1 << 20), s=0, ttl=64)
     / MPLS(label=rng.randrange(16, 1 << 20), s=1, ttl=64) / ip_payload(i)),
    ("mpls", 1, lambda i: Ether(src=mac(), dst=mac(), type=0x8847)
     / MPLS(label=rng.randrange(16, 1 << 20), s=1, ttl=64)
     / Raw(b"\x00\x00\x00\x05") / eth_payload(i)),  # pseudowire control word
    ("gre mpls", 0, lambda i: outer(GRE(proto=0x8847)
                                    / MPLS(label=rng.randrange(16, 1 << 20), s=1)
                                    / ip_payload(i))),
    ("gtpu", 0, lambda i: outer(UDP(sport=2152, dport=2152)
                                / GTP_U_Header(teid=rng.randrange(1 << 32), gtp_type=255)
                                / ip_payload(i))),
    ("gtpu", 0, lambda i: outer(UDP(sport=2152, dport=2152)
                                / GTP_U_Header(teid=rng.randrange(1 << 32), gtp_type=255, E=1,
                                               S=1, seq=5, next_ex=0xC0)
                                / GTP_PDCP_PDU_ExtensionHeader(pdcp_pdu=7, next_ex=0)
                                / ip_payload(i))),
    ("gre vxlan", 1, lambda i: outer(GRE(proto=0x0800)
                                     / IP(src=v4(), dst=v4())
                                     / UDP(sport=rng.randrange(49152, 65535), dport=4789)
                                     / VXLAN(vni=5) / eth_payload(i))),
]

queues = {}  # each packet's copies in order: (packet, walk, ether, frame)
for i in range(len(inner_ip)):
    copies = [("-", 1, plain[i])] + [(w, e, mk(i)) for w, e, mk in kinds]
    if i % 2 == 1:  # the first arrival inside a tunnel
        copies = copies[1:] + copies[:1]
    queues[i] = [(i, w, e, f) for w, e, f in copies]
seq = []  # packets interleaved at random, each packet's copies in their order
while queues:
    i = rng.choice(sorted(queues))
    seq.append(queues[i].pop(0))
    if not queues[i]:
        del queues[i]

w = PcapWriter(out + "/tunnels.pcap", linktype=1, sync=True)
with open(out + "/tunnels.txt", "w") as t, open(out + "/ether.txt", "w") as e:
    for n, (i, walk, eth, f) in enumerate(seq):
        f.time = 1700000000 + n / 1000  # 1 ms apart, the same every run
        w.write(f)
        t.write("%d %s\n" % (i, walk))
        e.write("%d\n" % eth)
w.close()

# Broken tunnels: (reason, frame).
p0 = eth_payload(0)
broken = [
    ("bad-tunnel", outer(UDP(sport=1, dport=4789) / VXLAN(flags=0, vni=1) / p0)),  # no I flag
    ("bad-tunnel", outer(UDP(sport=1, dport=6081) / GENEVE(version=1, proto=0x6558) / p0)),
    ("bad-tunnel", outer(UDP(sport=1, dport=6081) / GENEVE(proto=0x1234) / p0)),
    ("bad-tunnel", outer(GRE(routing_present=1, proto=0x0800) / ip_payload(0))),
    ("bad-tunnel", outer(GRE(seqnum_present=1, proto=0x88BE) / ERSPAN_II(ver=2) / p0)),
    ("bad-tunnel", Ether(type=0x8847) / MPLS(s=1) / Raw(b"\x50" + bytes(30))),  # nibble 5
    ("bad-tunnel", outer(UDP(sport=2152, dport=2152) / GTP_U_Header(version=2, gtp_type=255)
                         / ip_payload(0))),
    ("too-deep", Ether(type=0x8847) / MPLS(s=0) / MPLS(s=0) / MPLS(s=0) / MPLS(s=0)
     / MPLS(s=0) / MPLS(s=0) / MPLS(s=0) / MPLS(s=0) / MPLS(s=1) / ip_payload(0)),
    ("too-deep", outer(GRE(proto=0x0800) / IP(src=v4(), dst=v4()) / GRE(proto=0x0800)
                       / IP(src=v4(), dst=v4()) / GRE(proto=0x0800) / IP(src=v4(), dst=v4())
                       / GRE(proto=0x0800) / IP(src=v4(), dst=v4()) / GRE(proto=0x0800)
                       / ip_payload(0))),
]
wb = PcapWriter(out + "/broken.pcap", linktype=1, sync=True)
with open(out + "/broken.txt", "w") as t:
    for reason, f in broken:
        f.time = 1700000000
        wb.write(f)
        t.write(reason + "\n")
    # cut inside each tunnel header: the frame ends there, its IP length says more
    for walk, _, mk in kinds:
        f = bytes(mk(0))
        for cut in (40, 44, 46, 50):
            if cut < len(f):
                c = Ether(f[:cut])
                c.time = 1700000000
                wb.write(c)
                t.write("short %s\n" % walk)
wb.close()
