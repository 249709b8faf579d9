#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the packet-key fixtures into pcap/: small pcaps and, next to each, the keys
every key mode must extract, computed here from scapy's own field model (not by walking
bytes the way lib/src/key.c does). Run with Debian's python3-scapy:

    /usr/bin/python3 scripts/gen_fixtures.py [OUTDIR]

Files (OUTDIR defaults to pcap/):
    keys.pcap              every parse case: encapsulations, protocols, malformed frames,
                           and frames a snap length cut (original length past the bytes)
    keys.<variant>.txt     expected key or reason per frame, one line each:
                               <index> <label> <reason> [<key as hex>]
                           with a '# config:' header naming the key options
    mirror.pcap            packets seen at two TAP points (second copy: TTL - 1, new
                           checksum, other MACs and VLAN); labels mirror-<n>-a / -b
    mirror.<variant>.txt   expected keys for the mirror capture
    dups.pcap              the bundled replay fixture: 1,200 packets, a third of them
                           duplicates (exact copies, and copies seen at a second TAP
                           point), plus malformed frames, in one mixed stream
    dups-expected.txt      for each frame: its label and, per key option set, whether
                           it is a duplicate of an earlier frame (1), unique (0) or has
                           no key (-)
    tap.pcap               two TAP feeds merged (nanosecond timestamps): each packet at
                           TAP A, most also at TAP B (TTL - 1, new checksum, other MACs
                           and VLAN) 1 us to 3 s later, some sent again 10 ms to 5 s
                           later; feed B lags up to 20 us, so timestamps go back in
                           places, but a copy never arrives before an earlier-stamped
                           copy of the same packet, and no two copies are 2 us or less
                           (plus the lag) away from 100 us, 10 ms or 1 s apart: what
                           editcap -w counts then matches the window definition
    tap-late.pcap          traffic made the same way with feed A lagging up to 50 us
                           instead: some copies arrive before the earlier-stamped original
"""
import math
import os
import random
import socket
import struct
import sys

from scapy.all import (ARP, Dot1AD, Dot1Q, Ether, ICMP, IP, IPv6, IPv6ExtHdrDestOpt,
                       IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting,
                       ICMPv6EchoReply, ICMPv6EchoRequest, ICMPv6ND_NS, Padding, Raw,
                       SCTP, TCP, UDP, GRE, RawPcapWriter)
from scapy.layers.inet6 import ICMPv6Unknown, icmp6typescls
from scapy.layers.ipsec import AH

MAC_A = "02:00:00:00:00:0a"
MAC_B = "02:00:00:00:00:0b"
MAC_C = "02:00:00:00:00:0c"
MAC_D = "02:00:00:00:00:0d"
HTTP_METHODS = [b"GET", b"POST", b"HEAD", b"PUT", b"DELETE", b"OPTIONS", b"PATCH",
                b"CONNECT", b"TRACE"]
EXT_TYPES = (IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
             AH)


def ah_payload_class(self, payload):
    """What follows an AH header, by its next-header number (scapy leaves it raw)."""
    if self.nh == 58:
        return icmp6typescls.get(payload[0], ICMPv6Unknown) if payload else Raw
    return {6: TCP, 17: UDP, 132: SCTP, 43: IPv6ExtHdrRouting, 60: IPv6ExtHdrDestOpt,
            44: IPv6ExtHdrFragment}.get(self.nh, Raw)


AH.guess_payload_class = ah_payload_class

# Key options of each expected-keys file: (variant, config line).
VARIANTS = [
    ("flow", "mode=flow"),
    ("flow-frag-l3", "mode=flow frag=l3"),
    ("srcip", "mode=srcip"),
    ("click", "mode=click"),
    ("click-param-id", "mode=click param=id"),
    ("packet", "mode=packet"),
    ("packet-dscp-ipid", "mode=packet ignore=ttl,checksum,dscp,ipid"),
    ("packet-l2", "mode=packet from=l2"),
    ("packet-l2-mac-vlan", "mode=packet from=l2 ignore=ttl,checksum,mac,vlan"),
    ("packet-l4", "mode=packet from=l4"),
    ("packet-tcpseq", "mode=packet ignore=ttl,checksum,tcp-seq"),
    ("packet-bytes-40", "mode=packet bytes=40"),
    ("packet-vlan", "mode=packet vlan=separate"),
    ("flow-vlan", "mode=flow vlan=separate"),
]


class NoKey(Exception):
    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def ip_layer(p):
    if IP in p:
        return p[IP]
    if IPv6 in p:
        return p[IPv6]
    raise NoKey("unsupported-ethertype")


def addr(ip, which):
    if isinstance(ip, IP):
        return socket.inet_pton(socket.AF_INET, getattr(ip, which)).ljust(16, b"\0")
    return socket.inet_pton(socket.AF_INET6, getattr(ip, which))


def addr_raw(ip, which):
    family = socket.AF_INET if isinstance(ip, IP) else socket.AF_INET6
    return socket.inet_pton(family, getattr(ip, which))


def version(ip):
    return 4 if isinstance(ip, IP) else 6


def l4_info(ip):
    """(protocol, non-first fragment, upper layer) from scapy's decoded layers."""
    if isinstance(ip, IP):
        return ip.proto, ip.frag != 0, ip.payload
    proto, layer, nonfirst = ip.nh, ip.payload, False
    while isinstance(layer, EXT_TYPES):
        proto = layer.nh
        if isinstance(layer, IPv6ExtHdrFragment) and layer.offset != 0:
            nonfirst = True
            break
        layer = layer.payload
    return proto, nonfirst, layer


def key_srcip(p):
    ip = ip_layer(p)
    return bytes([version(ip), 0, 0, 0]) + addr(ip, "src")


def key_flow(p, frag_l3=False):
    ip = ip_layer(p)
    proto, nonfirst, up = l4_info(ip)
    sport = dport = 0
    if nonfirst:
        if not frag_l3:
            raise NoKey("fragment")
    elif isinstance(up, (TCP, UDP, SCTP)):
        sport, dport = up.sport, up.dport
    elif isinstance(up, ICMP):
        sport = up.type << 8 | up.code
        if up.type in (0, 8):
            dport = up.id
    elif isinstance(up, (ICMPv6EchoRequest, ICMPv6EchoReply)):
        sport, dport = up.type << 8 | up.code, up.id
    elif proto == 58:
        sport = up.type << 8 | up.code
    # the addresses at their own size: 16 bytes in all for IPv4, 40 for IPv6
    return (bytes([version(ip), proto, 0, 0]) + struct.pack("!HH", sport, dport) +
            addr_raw(ip, "src") + addr_raw(ip, "dst"))


def ip_cut(p, wire_cut):
    """Does the packet go on past the frame's bytes? Its IP length says so (IPv6
    payload length 0, a jumbogram, says nothing), else the capture's original length."""
    ip = ip_layer(p)
    raw = bytes(ip)
    if isinstance(ip, IP):
        return ip.len > len(raw)
    return 40 + ip.plen > len(raw) if ip.plen else wire_cut


def http_target(p):
    """(method, target, whole, payload, n): whole when a space or line end ends the
    target inside the packet (else it may go on in the next segment or in bytes the
    capture cut); the TCP payload held, and its length by the IP length."""
    ip = ip_layer(p)
    proto, nonfirst, up = l4_info(ip)
    if nonfirst:
        raise NoKey("fragment")
    if not isinstance(up, TCP):
        raise NoKey("not-http")
    payload = bytes(up.payload)
    pad = up.getlayer(Padding)
    if pad is not None:  # bytes past the IP length
        payload = payload[:len(payload) - len(pad.load)]
    method, sep, rest = payload.partition(b" ")
    if not sep or method not in HTTP_METHODS:
        raise NoKey("not-http")
    target = rest
    for stop in (b" ", b"\r", b"\n"):
        target = target.split(stop, 1)[0]
    if not target:
        raise NoKey("not-http")
    ip_end = ip.len if isinstance(ip, IP) else 40 + ip.plen
    n = ip_end - (l4_offset(ip)[0] + up.dataofs * 4)
    return method, target, len(target) < len(rest), payload, n


def requests(held, n):
    """How many requests a TCP payload holds, `held` of its n bytes (n None: cut, its
    length not known): 1, 2 (bytes past the first request's header block and the body its
    Content-Length gives, or a body whose end Transfer-Encoding or a bad Content-Length
    hides), 0 (cut inside the header block). The header block ends at the first empty
    line, lines ending in LF or CRLF."""
    lines = held.split(b"\n")
    if len(lines) == 1:
        return 0 if n is None or len(held) < n else 1
    pos, body, bad = len(lines[0]) + 1, 0, False
    for line in lines[1:-1]:  # every line ended by LF; the last has none
        pos += len(line) + 1
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line:
            break
        name, sep, value = line.partition(b":")
        if sep and name.lower() == b"transfer-encoding":
            bad = True
        elif sep and name.lower() == b"content-length":
            value = value.strip(b" \t")
            bad = bad or not value.isdigit()
            body = int(value) if value.isdigit() else 0
    else:  # no empty line: the header block goes on
        return 0 if n is None or len(held) < n else 1
    if pos == n:
        return 1
    return 2 if bad or n is None or body < n - pos else 1


def key_click(p, param=None, wire_cut=False):
    method, target, whole, payload, n = http_target(p)
    cut = ip_cut(p, wire_cut)
    count = requests(payload, n if not cut or n > len(payload) else None)
    if count == 0:
        raise NoKey("truncated")
    if count == 2:
        raise NoKey("several-requests")
    split = NoKey("truncated" if cut else "split-request")
    if param is None:
        if not whole:
            raise split
        return key_srcip(p) + method + b" " + target
    path, sep, query = target.partition(b"?")
    if sep:
        fields = query.split(b"&")
        for n, field in enumerate(fields):
            name, _, value = field.partition(b"=")
            if name == param.encode():
                if not whole and n == len(fields) - 1:
                    raise split  # the value runs to the end: it may go on
                return key_srcip(p) + value
    raise NoKey("no-param")


def tag_layers(p):
    """The VLAN tag layers of a frame, outer first, and the layer holding the ethertype."""
    tags, inner = [], p
    while isinstance(inner.payload, (Dot1Q, Dot1AD)):
        inner = inner.payload
        tags.append(inner)
    return tags, inner


def vids(p):
    return b"".join(struct.pack("!H", t.vlan) for t in tag_layers(p)[0])


def l4_offset(ip):
    """(offset of the IP payload from the IP header, upper protocol, non-first fragment),
    walking IPv6 extension headers through scapy's layers."""
    if isinstance(ip, IP):
        return ip.ihl * 4, ip.proto, ip.frag != 0
    off, proto, layer = 40, ip.nh, ip.payload
    while isinstance(layer, EXT_TYPES):
        off += len(bytes(layer)) - len(bytes(layer.payload))
        proto = layer.nh
        if isinstance(layer, IPv6ExtHdrFragment) and layer.offset != 0:
            return off, proto, True
        layer = layer.payload
    return off, proto, False


def key_packet(p, ignore=("ttl", "checksum"), from_l2=False, from_l4=False, nbytes=0,
               vlan="default", wire_cut=False):
    """The masked fields are zeroed through scapy's field model on a copy of the IP
    header alone; the bytes after the header are the frame's, up to the IP length. A
    packet whose bytes stop before it does (wire_cut: the capture's original length is
    longer) has no key unless the nbytes compared are in hand."""
    raw = bytes(p)
    tags, inner = tag_layers(p)
    l2len = 14 + 4 * len(tags)
    tags_in = vlan == "separate" or (vlan == "default" and "vlan" not in ignore)
    l2 = b""
    if from_l2:
        l2 = ((b"\0" * 12 if "mac" in ignore else raw[:12]) +
              (raw[12:l2len - 2] if tags_in else b"") + raw[l2len - 2:l2len])
    if IP not in p and IPv6 not in p:
        key = (l2 if from_l2 else struct.pack("!H", inner.type)) + raw[l2len:]
        cut = wire_cut
    else:
        l3 = raw[l2len:]
        ip = ip_layer(p)
        h = ip.copy()
        h.remove_payload()
        if isinstance(h, IP):
            length, hlen = h.len, h.ihl * 4
            if "ttl" in ignore:
                h.ttl = 0
            if "checksum" in ignore:
                h.chksum = 0
            if "dscp" in ignore:
                h.tos = 0
            if "ipid" in ignore:
                h.id = 0
        else:
            length, hlen = (40 + h.plen if h.plen else len(l3)), 40
            if "ttl" in ignore:
                h.hlim = 0
            if "dscp" in ignore:
                h.tc = 0
        header = bytes(h)
        assert len(header) == hlen
        start = 0
        if from_l4 or "tcp-seq" in ignore:
            off, proto, nonfirst = l4_offset(ip)
        if from_l4:
            start = off
            body = bytearray(l3[off:length])
        else:
            body = bytearray(header + l3[hlen:length])
        cut = ip_cut(p, wire_cut)
        if "tcp-seq" in ignore and proto == 6 and not nonfirst:
            if off + 20 <= min(length, len(l3)):
                at = off - start
                body[at + 4:at + 12] = bytes(8)
                body[at + 16:at + 18] = bytes(2)
            elif cut:  # the fields to zero are past the cut
                raise NoKey("truncated")
        key = l2 + bytes(body)
    if cut and (not nbytes or len(key) < nbytes):
        raise NoKey("truncated")
    if nbytes:
        key = key[:nbytes]
    if vlan == "separate" and not from_l2:
        key += vids(p)
    return key


def expected(variant, p, wire_cut=False):
    """The key of variant for frame p; wire_cut: a snap length cut it."""
    if variant == "flow":
        return key_flow(p)
    if variant == "flow-frag-l3":
        return key_flow(p, frag_l3=True)
    if variant == "srcip":
        return key_srcip(p)
    if variant == "click":
        return key_click(p, wire_cut=wire_cut)
    if variant == "click-param-id":
        return key_click(p, "id", wire_cut=wire_cut)
    if variant == "flow-vlan":
        return key_flow(p) + vids(p)
    packet = {
        "packet": {},
        "packet-dscp-ipid": dict(ignore=("ttl", "checksum", "dscp", "ipid")),
        "packet-l2": dict(from_l2=True),
        "packet-l2-mac-vlan": dict(ignore=("ttl", "checksum", "mac", "vlan"), from_l2=True),
        "packet-l4": dict(from_l4=True),
        "packet-tcpseq": dict(ignore=("ttl", "checksum", "tcp-seq")),
        "packet-bytes-40": dict(nbytes=40),
        "packet-vlan": dict(vlan="separate"),
    }
    if variant in packet:
        return key_packet(p, wire_cut=wire_cut, **packet[variant])
    raise ValueError(variant)


def eth(t=None):
    return Ether(src=MAC_A, dst=MAC_B) if t is None else Ether(src=MAC_A, dst=MAC_B, type=t)


def http(method_line, body=b"", headers=b""):
    """A request; a body comes with its Content-Length unless headers are given."""
    if body and not headers:
        headers = b"Content-Length: %d\r\n" % len(body)
    return Raw(method_line + b"\r\nHost: ads.example\r\nUser-Agent: t\r\n" + headers +
               b"\r\n" + body)


def parse_cases():
    """(label, packet, {variant-prefix: reason}) for well-formed frames; the reasons
    given are the expected failures, every other variant is computed by expected()."""
    v4 = dict(src="192.0.2.1", dst="198.51.100.7")
    v6 = dict(src="2001:db8::1", dst="2001:db8:ff::7")
    c = []
    c.append(("udp4", eth() / IP(**v4) / UDP(sport=1234, dport=53) / Raw(b"q" * 18), {}))
    c.append(("tcp4", eth() / IP(**v4, ttl=17, id=99, tos=0x2e) /
              TCP(sport=40000, dport=443, flags="S"), {}))
    c.append(("sctp4", eth() / IP(**v4) / SCTP(sport=2905, dport=2906), {}))
    c.append(("icmp4-echo", eth() / IP(**v4) / ICMP(type=8, code=0, id=0x4242, seq=1), {}))
    c.append(("icmp4-unreach", eth() / IP(**v4) / ICMP(type=3, code=1) /
              IP(src="198.51.100.7", dst="192.0.2.1") / UDP(sport=1, dport=2), {}))
    c.append(("gre4", eth() / IP(**v4) / GRE() / IP(src="10.0.0.1", dst="10.0.0.2") /
              UDP(sport=5, dport=6), {}))
    c.append(("ip4-options", eth() / IP(**v4, options=b"\x94\x04\x00\x00" + b"\x01" * 8) /
              UDP(sport=7, dport=8), {}))
    c.append(("ip4-padded", eth() / IP(**v4) / UDP(sport=9, dport=10) / Raw(b"x") /
              Padding(b"\xee" * 17), {}))
    c.append(("frag4-first", eth() / IP(**v4, id=7, flags="MF", frag=0) /
              UDP(sport=11, dport=12, len=1008) / Raw(b"a" * 32), {}))
    c.append(("frag4-later", eth() / IP(**v4, id=7, frag=4, proto=17) / Raw(b"b" * 40),
              {"flow": "fragment", "click": "fragment", "click-param-id": "fragment"}))
    c.append(("vlan", eth(0x8100) / Dot1Q(vlan=100) / IP(**v4) / UDP(sport=13, dport=14), {}))
    c.append(("qinq", Ether(src=MAC_A, dst=MAC_B) / Dot1AD(vlan=200) / Dot1Q(vlan=300) /
              IP(**v4) / UDP(sport=15, dport=16), {}))
    c.append(("qinq3", Ether(src=MAC_A, dst=MAC_B) / Dot1AD(vlan=1) / Dot1Q(vlan=2) /
              Dot1Q(vlan=3) / IPv6(**v6) / UDP(sport=17, dport=18), {}))
    c.append(("udp6", eth() / IPv6(**v6, hlim=9, tc=0xb8) / UDP(sport=19, dport=20), {}))
    c.append(("tcp6", eth() / IPv6(**v6) / TCP(sport=21, dport=22), {}))
    c.append(("icmp6-echo", eth() / IPv6(**v6) / ICMPv6EchoRequest(id=0x77, seq=3), {}))
    c.append(("icmp6-ns", eth() / IPv6(**v6) / ICMPv6ND_NS(tgt="2001:db8::9"), {}))
    c.append(("icmp6-reply", eth() / IPv6(**v6) / ICMPv6EchoReply(id=0x88, seq=5), {}))
    # AH: its length counts 4-octet units less 2 (every other extension header: 8-octet
    # units less 1); ICVs of 12 and 24 bytes, alone and after hop-by-hop
    c.append(("ip6-ah", eth() / IPv6(**v6) /
              AH(nh=17, payloadlen=4, spi=7, seq=1, icv=b"\x11" * 12) /
              UDP(sport=27, dport=28), {}))
    c.append(("ip6-hbh-ah-reply", eth() / IPv6(**v6) / IPv6ExtHdrHopByHop() /
              AH(nh=58, payloadlen=7, spi=9, seq=2, icv=b"\x22" * 24) /
              ICMPv6EchoReply(id=0x99, seq=4), {}))
    c.append(("ip6-ext", eth() / IPv6(**v6) / IPv6ExtHdrHopByHop() /
              IPv6ExtHdrRouting(addresses=["2001:db8::5"]) / IPv6ExtHdrDestOpt() /
              UDP(sport=23, dport=24), {}))
    c.append(("frag6-first", eth() / IPv6(**v6) / IPv6ExtHdrFragment(offset=0, m=1, id=5) /
              TCP(sport=25, dport=26) / Raw(b"c" * 16), {}))
    c.append(("frag6-later", eth() / IPv6(**v6) / IPv6ExtHdrFragment(offset=3, m=0, id=5,
                                                                    nh=6) /
              Raw(b"d" * 24),
              {"flow": "fragment", "click": "fragment", "click-param-id": "fragment"}))
    c.append(("arp", eth() / ARP(psrc="192.0.2.1", pdst="192.0.2.2"),
              {"flow": "unsupported-ethertype", "srcip": "unsupported-ethertype",
               "click": "unsupported-ethertype",
               "click-param-id": "unsupported-ethertype"}))
    c.append(("vlan-arp", eth(0x8100) / Dot1Q(vlan=5) / ARP(psrc="192.0.2.3"),
              {"flow": "unsupported-ethertype", "srcip": "unsupported-ethertype",
               "click": "unsupported-ethertype",
               "click-param-id": "unsupported-ethertype"}))
    # HTTP for click mode
    c.append(("http-get", eth() / IP(**v4) / TCP(sport=50000, dport=80, flags="PA") /
              http(b"GET /click?cid=9&id=abc123&x=1 HTTP/1.1"), {}))
    c.append(("http-get-again", eth() / IP(**v4) / TCP(sport=50001, dport=80, flags="PA") /
              http(b"GET /click?cid=9&id=abc123&x=1 HTTP/1.1"), {}))
    c.append(("http-post6", eth() / IPv6(**v6) / TCP(sport=50002, dport=8080, flags="PA") /
              http(b"POST /api/v1/click?id= HTTP/1.1", b"body=1"), {}))
    c.append(("http-bare-param", eth() / IP(**v4) / TCP(sport=50003, dport=80, flags="PA") /
              http(b"GET /c?x=1&id HTTP/1.0"), {}))
    c.append(("http-no-param", eth() / IP(**v4) / TCP(sport=50004, dport=80, flags="PA") /
              http(b"HEAD /index.html HTTP/1.1"), {}))
    c.append(("http-idx-param", eth() / IP(**v4) / TCP(sport=50005, dport=80, flags="PA") /
              http(b"GET /c?idx=5&id=7 HTTP/1.1"), {}))
    # targets that run to the packet's end: the request line goes on in the next segment
    c.append(("http-no-version", eth() / IP(**v4) / TCP(sport=50006, dport=80, flags="PA") /
              Raw(b"GET /old?id=1"), {}))
    c.append(("http-split-param-ended", eth() / IP(**v4) /
              TCP(sport=50010, dport=80, flags="PA") / Raw(b"GET /c?id=9&utm=abc"), {}))
    # a segment of two requests (pipelined, or coalesced in a retransmission): a key of
    # the first would drop the second's click with it
    second = bytes(http(b"GET /c?id=10 HTTP/1.1"))
    c.append(("http-two-gets", eth() / IP(**v4) / TCP(sport=50012, dport=80, flags="PA") /
              Raw(bytes(http(b"GET /c?id=9 HTTP/1.1")) + second), {}))
    c.append(("http-post-then-get", eth() / IP(**v4) /
              TCP(sport=50013, dport=80, flags="PA") /
              Raw(bytes(http(b"POST /c?id=9 HTTP/1.1", b"a=1&b=2")) + second), {}))
    # bodies whose end the headers do not tell: none given, chunked, a bad length
    c.append(("http-body-no-length", eth() / IP(**v4) / TCP(sport=50014, dport=80) /
              http(b"POST /c?id=9 HTTP/1.1", b"x=1", b"X-A: b\r\n"), {}))
    c.append(("http-chunked", eth() / IP(**v4) / TCP(sport=50015, dport=80) /
              http(b"POST /c?id=9 HTTP/1.1", b"3\r\nx=1\r\n0\r\n\r\n",
                   b"Transfer-Encoding: chunked\r\n"), {}))
    c.append(("http-bad-length", eth() / IP(**v4) / TCP(sport=50016, dport=80) /
              http(b"POST /c?id=9 HTTP/1.1", b"x=1", b"content-LENGTH: 3x\r\n"), {}))
    # chunked with a Content-Length that covers the bytes (chunks rule: not told); and
    # chunked, its body in the next segment (nothing past the header block: one)
    c.append(("http-chunked-and-length", eth() / IP(**v4) / TCP(sport=50020, dport=80) /
              http(b"POST /c?id=9 HTTP/1.1", b"3\r\nx=1\r\n0\r\n\r\n",
                   b"Transfer-Encoding: chunked\r\nContent-Length: 15\r\n"), {}))
    c.append(("http-chunked-headers-only", eth() / IP(**v4) / TCP(sport=50021, dport=80) /
              http(b"POST /c?id=9 HTTP/1.1", b"", b"Transfer-Encoding: chunked\r\n"), {}))
    # LF line ends, a body past the segment (its Content-Length larger), a lower-case name
    c.append(("http-lf-long-body", eth() / IP(**v4) / TCP(sport=50017, dport=80) /
              Raw(b"POST /c?id=9 HTTP/1.1\nHost: a\ncontent-length:  40 \n\nx=1"), {}))
    c.append(("tcp-not-http", eth() / IP(**v4) / TCP(sport=50007, dport=80, flags="PA") /
              Raw(b"GETX / HTTP/1.1\r\n"), {}))
    c.append(("tcp-lowercase", eth() / IP(**v4) / TCP(sport=50008, dport=80, flags="PA") /
              Raw(b"get / HTTP/1.1\r\n"), {}))
    c.append(("tcp-opts-http", eth() / IP(**v4) /
              TCP(sport=50009, dport=80, flags="PA",
                  options=[("MSS", 1460), ("NOP", None), ("WScale", 7)]) /
              http(b"GET /x?id=42 HTTP/1.1"), {}))
    return c


def malformed_cases():
    """Raw frames no well-formed packet describes: (label, bytes, {variant: reason}).
    Variants not listed are keyable and computed by expected()."""
    v4 = dict(src="192.0.2.1", dst="198.51.100.7")
    udp = bytes(eth() / IP(**v4) / UDP(sport=1, dport=2) / Raw(b"p" * 8))
    tcp = bytes(eth() / IP(**v4) / TCP(sport=3, dport=4) / Raw(b"GET /a?id=1 HTTP/1.1"))
    v6 = bytes(eth() / IPv6(src="2001:db8::1", dst="2001:db8::2") / IPv6ExtHdrHopByHop() /
               UDP(sport=5, dport=6))
    m = []

    def every(reason):
        return {v: reason for v, _ in VARIANTS}

    def l4(reason, click=True):
        # flow (and click, for TCP) need L4: the reason; srcip and packet need only the
        # IP header. A UDP packet is not-http in click mode whatever its header says.
        d = {"flow": reason, "flow-frag-l3": reason, "flow-vlan": reason}
        if click:
            d.update({"click": reason, "click-param-id": reason})
        return d

    m.append(("empty", b"", every("truncated")))
    m.append(("eth-short", udp[:13], every("truncated")))
    m.append(("tag-cut", bytes(eth(0x8100)) + b"\x00\x64", every("truncated")))
    deep = bytes(Ether(src=MAC_A, dst=MAC_B, type=0x8100))
    for i in range(9):
        deep += struct.pack("!HH", i + 1, 0x8100 if i < 8 else 0x0800)
    deep += bytes(IP(**v4) / UDP())
    m.append(("tags-9", deep, every("too-many-tags")))
    m.append(("ip4-cut", udp[:14 + 19], every("truncated")))
    m.append(("ip4-ver6", udp[:14] + bytes([0x65]) + udp[15:], every("bad-version")))
    m.append(("ip4-ihl4", udp[:14] + bytes([0x44]) + udp[15:], every("bad-ihl")))
    m.append(("ip4-ihl15", udp[:14] + bytes([0x4f]) + udp[15:], every("truncated")))
    short_len = bytearray(udp)
    short_len[16:18] = struct.pack("!H", 19)
    m.append(("ip4-len19", bytes(short_len), every("bad-length")))
    # IP length 20: the UDP header sits in what the IP header calls padding
    len20 = bytearray(udp)
    len20[16:18] = struct.pack("!H", 20)
    m.append(("ip4-len20-udp", bytes(len20), l4("bad-length", click=False)))
    m.append(("udp-cut", udp[:14 + 20 + 5], l4("truncated", click=False)))
    m.append(("tcp-cut", tcp[:14 + 20 + 19], l4("truncated")))
    doff = bytearray(tcp)
    doff[14 + 20 + 12] = 0x40
    m.append(("tcp-doff4", bytes(doff), {"click": "bad-tcp-offset",
                                         "click-param-id": "bad-tcp-offset"}))
    doff15 = bytearray(tcp)
    doff15[14 + 20 + 12] = 0xf0
    m.append(("tcp-doff15", bytes(doff15), {"click": "bad-length",
                                           "click-param-id": "bad-length"}))
    m.append(("ip6-cut", v6[:14 + 39], every("truncated")))
    m.append(("ip6-ver4", v6[:14] + bytes([0x45]) + v6[15:], every("bad-version")))
    def ext(reason):
        # packet keys that follow the IPv6 extension chain: from L4, or masking TCP
        return dict(l4(reason), **{"packet-l4": reason, "packet-tcpseq": reason})

    m.append(("ip6-hbh-cut", v6[:14 + 40 + 5], ext("truncated")))
    chain = bytearray(bytes(eth() / IPv6(src="2001:db8::1", dst="2001:db8::2", nh=60)))
    for i in range(9):
        chain += bytes([60 if i < 8 else 17, 0]) + b"\x01\x04\0\0\0\0"
    chain += bytes(UDP(sport=1, dport=2))
    chain[14 + 4:14 + 6] = struct.pack("!H", len(chain) - 54)
    m.append(("ip6-ext-9", bytes(chain), ext("ext-headers")))
    hbh_long = bytearray(v6)
    hbh_long[14 + 40 + 1] = 200  # hop-by-hop claims 1608 bytes
    m.append(("ip6-hbh-long", bytes(hbh_long), ext("bad-length")))
    return m


def snap_cases():
    """Frames a capture's snap length cut: (label, the packet, bytes kept, {variant:
    reason}); the original length is the packet's. Variants not listed are computed by
    expected() from the bytes kept."""
    v4 = dict(src="192.0.2.1", dst="198.51.100.7")
    not_ip = {v: "unsupported-ethertype" for v in ("flow", "flow-frag-l3", "flow-vlan",
                                                    "srcip", "click", "click-param-id")}
    c = []
    udp = eth() / IP(**v4) / UDP(sport=31, dport=32) / Raw(b"s" * 100)
    c.append(("snap-udp4", udp, 64, {}))
    # exactly the 40 bytes --compare-bytes 40 compares, and one short of them
    c.append(("snap-udp4-40", udp, 14 + 40, {}))
    c.append(("snap-udp4-39", udp, 14 + 39, {}))
    # no IP length to tell: the original length says the frame was cut
    c.append(("snap-arp", eth() / ARP(psrc="192.0.2.1", pdst="192.0.2.2"), 30, not_ip))
    # cut in the Ethernet padding: the IP packet is whole
    c.append(("snap-padding", eth() / IP(**v4) / UDP(sport=33, dport=34) / Raw(b"z" * 2) /
              Padding(b"\0" * 16), 50, {}))
    req = b"GET /click?id=12345&x=abcdefgh HTTP/1.1\r\nHost: a\r\n\r\n"
    tcp = eth() / IP(**v4) / TCP(sport=50011, dport=80, flags="PA") / Raw(req)
    # cut in the id's value, then in x's (the id ended by its '&')
    c.append(("snap-http-in-param", tcp, 54 + req.index(b"345"), {}))
    c.append(("snap-http-after-param", tcp, 54 + req.index(b"cdef"), {}))
    c.append(("snap-http-in-headers", tcp, 54 + req.index(b"Host"), {}))
    # a POST cut in its body: one request, its IP length says; with a request after
    # it, cut in the body (the IP length says more follows) and in the second request
    post = bytes(http(b"POST /c?id=7 HTTP/1.1", b"b" * 40))
    tcp2 = eth() / IP(**v4) / TCP(sport=50018, dport=80, flags="PA") / Raw(post)
    c.append(("snap-http-in-body", tcp2, 54 + post.index(b"bbbb") + 10, {}))
    two = post + bytes(http(b"GET /c?id=8 X"))
    tcp3 = eth() / IP(**v4) / TCP(sport=50019, dport=80, flags="PA") / Raw(two)
    c.append(("snap-http-body-then-more", tcp3, 54 + two.index(b"bbbb") + 10, {}))
    c.append(("snap-http-second", tcp3, 54 + two.index(b"GET") + 5, {}))
    return c


def write(outdir, name, frames, labels, expect_fn, wire=None):
    """frames: list of bytes; expect_fn(variant, index) -> key bytes or NoKey; wire:
    each frame's original length (default: its bytes')."""
    w = RawPcapWriter(os.path.join(outdir, name + ".pcap"), linktype=1, sync=True)
    w.write_header(None)
    for i, f in enumerate(frames):
        w.write_packet(f, sec=1700000000, usec=i * 1000,
                       wirelen=wire[i] if wire else len(f))
    w.close()
    for variant, config in VARIANTS:
        lines = ["# pktdedup expected keys for %s.pcap, written by scripts/gen_fixtures.py"
                 % name, "# config: " + config,
                 "# <index> <label> <reason> [<key hex>]"]
        for i, label in enumerate(labels):
            try:
                key = expect_fn(variant, i)
                lines.append("%d %s ok %s" % (i, label, key.hex()))
            except NoKey as e:
                lines.append("%d %s %s" % (i, label, e.reason))
        with open(os.path.join(outdir, "%s.%s.txt" % (name, variant)), "w") as fh:
            fh.write("\n".join(lines) + "\n")


def gen_keys(outdir):
    cases = parse_cases()
    bad = malformed_cases()
    snap = snap_cases()
    frames = ([bytes(p) for _, p, _ in cases] + [b for _, b, _ in bad] +
              [bytes(p)[:n] for _, p, n, _ in snap])
    wire = [len(f) for f in frames[:len(cases) + len(bad)]] + [len(p) for _, p, _, _ in snap]
    labels = [l for l, _, _ in cases] + [l for l, _, _ in bad] + [l for l, _, _, _ in snap]
    overrides = [o for _, _, o in cases] + [o for _, _, o in bad] + [o for _, _, _, o in snap]

    def expect(variant, i):
        # flow-vlan fails where flow fails
        r = overrides[i].get(variant, overrides[i].get("flow") if variant == "flow-vlan" else None)
        if r is not None:
            raise NoKey(r)
        # decode what is in the file, not the object that built it; malformed frames
        # keyable in this variant need only what the variant reads
        return expected(variant, Ether(frames[i]), wire_cut=wire[i] > len(frames[i]))

    write(outdir, "keys", frames, labels, expect, wire)


def gen_mirror(outdir):
    """The same packets captured at two TAP points one router hop apart."""
    pkts = []
    labels = []
    flows = [
        IP(src="192.0.2.%d" % (i + 1), dst="198.51.100.9", ttl=64, id=1000 + i) /
        UDP(sport=3000 + i, dport=53) / Raw(b"query-%d" % i) for i in range(6)
    ] + [
        IPv6(src="2001:db8::%x" % (i + 1), dst="2001:db8::99", hlim=64) /
        TCP(sport=4000 + i, dport=443, flags="PA", seq=i) / Raw(b"data-%d" % i)
        for i in range(4)
    ]
    for n, l3 in enumerate(flows):
        a = Ether(src=MAC_A, dst=MAC_B) / Dot1Q(vlan=10) / l3
        b3 = l3.copy()
        if IP in b3:
            b3.ttl -= 1
            b3.chksum = None  # the router rewrites the checksum
        else:
            b3.hlim -= 1
        b = Ether(src=MAC_C, dst=MAC_D) / Dot1Q(vlan=20) / b3
        pkts += [a, b]
        labels += ["mirror-%d-a" % n, "mirror-%d-b" % n]
    frames = [bytes(p) for p in pkts]

    def expect(variant, i):
        return expected(variant, Ether(frames[i]))

    write(outdir, "mirror", frames, labels, expect)


DUPS_VARIANTS = ["packet", "packet-l2-none", "flow", "srcip"]


def gen_dups(outdir):
    """A replay fixture whose duplicates are known: unique packets, exact copies of
    earlier ones at random distances, copies as a second TAP point sees them (TTL - 1,
    new checksum, other MACs and VLAN) and malformed frames that must be forwarded."""
    rnd = random.Random(2026)
    base = []
    for i in range(700):
        kind = rnd.randrange(6)
        src4 = "10.%d.%d.%d" % (rnd.randrange(4), rnd.randrange(256), rnd.randrange(1, 255))
        dst4 = "192.0.2.%d" % rnd.randrange(1, 255)
        sport, dport = rnd.randrange(1024, 65535), rnd.choice([53, 80, 443, 8080, 123])
        payload = Raw(bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 120))))
        if kind == 0:
            l3 = IP(src=src4, dst=dst4, ttl=64, id=i) / UDP(sport=sport, dport=dport) / payload
        elif kind == 1:
            l3 = IP(src=src4, dst=dst4, ttl=64, id=i) / TCP(sport=sport, dport=dport,
                                                            flags="PA", seq=i) / payload
        elif kind == 2:
            l3 = IP(src=src4, dst=dst4, ttl=64, id=i) / ICMP(type=8, id=i, seq=1) / payload
        elif kind == 3:
            l3 = (IPv6(src="2001:db8::%x" % rnd.randrange(1, 60000),
                       dst="2001:db8:1::%x" % rnd.randrange(1, 60000), hlim=64) /
                  UDP(sport=sport, dport=dport) / payload)
        elif kind == 4:
            l3 = IP(src=src4, dst=dst4, ttl=64, id=i) / TCP(sport=sport, dport=80, flags="PA") / \
                Raw(b"GET /c?id=%d HTTP/1.1\r\nHost: a\r\n\r\n" % rnd.randrange(50))
        else:
            l3 = (IPv6(src="2001:db8::%x" % rnd.randrange(1, 60000), dst="2001:db8:1::1",
                       hlim=64) / TCP(sport=sport, dport=dport, flags="S"))
        base.append(l3)
    frames, labels = [], []

    def tap_a(l3):
        return Ether(src=MAC_A, dst=MAC_B) / Dot1Q(vlan=10) / l3

    def tap_b(l3):
        c = l3.copy()
        if IP in c:
            c.ttl -= 1
            c.chksum = None
        else:
            c.hlim -= 1
        return Ether(src=MAC_C, dst=MAC_D) / Dot1Q(vlan=20) / c

    sent = []
    bad = malformed_cases()
    for i, l3 in enumerate(base):
        frames.append(bytes(tap_a(l3)))
        labels.append("pkt-%d" % i)
        sent.append(i)
        # after some packets, copies of recent ones
        while rnd.random() < 0.45 and sent:
            j = rnd.choice(sent[-50:])
            if rnd.random() < 0.6:
                frames.append(bytes(tap_a(base[j])))
                labels.append("copy-%d" % j)
            else:
                frames.append(bytes(tap_b(base[j])))
                labels.append("tap-b-%d" % j)
        if i % 60 == 30:
            label, raw, _ = bad[(i // 60) % len(bad)]
            if raw:
                frames.append(raw)
                labels.append("bad-" + label)
    frames = frames[:1200]
    labels = labels[:1200]
    w = RawPcapWriter(os.path.join(outdir, "dups.pcap"), linktype=1, sync=True)
    w.write_header(None)
    for i, f in enumerate(frames):
        w.write_packet(f, sec=1700000000 + i // 1000, usec=(i % 1000) * 1000)
    w.close()

    def key(variant, f):
        p = Ether(f)
        if variant == "packet":
            return key_packet(p)
        if variant == "packet-l2-none":
            return key_packet(p, ignore=(), from_l2=True)
        if variant == "flow":
            return key_flow(p)
        return key_srcip(p)

    overrides = {label: over for label, _, over in bad}
    fixture_variant = {"packet": "packet", "packet-l2-none": "packet-l2", "flow": "flow",
                       "srcip": "srcip"}
    cols = {}
    for v in DUPS_VARIANTS:
        seen, col = set(), []
        for i, f in enumerate(frames):
            if labels[i].startswith("bad-") and \
                    fixture_variant[v] in overrides[labels[i][4:]]:
                col.append("-")  # the reason malformed_cases() gives for this mode
                continue
            try:
                k = key(v, f)
            except NoKey:
                col.append("-")
                continue
            col.append("1" if k in seen else "0")
            seen.add(k)
        cols[v] = col
    lines = ["# pktdedup expected duplicates for dups.pcap, written by scripts/gen_fixtures.py",
             "# 1 = duplicate of an earlier frame, 0 = unique, - = no key",
             "# variants: packet = --key packet; packet-l2-none = --key packet"
             " --compare-from l2 --ignore none; flow = --key flow; srcip = --key srcip",
             "# <index> <label> " + " ".join(DUPS_VARIANTS)]
    for i, label in enumerate(labels):
        lines.append("%d %s %s" % (i, label, " ".join(cols[v][i] for v in DUPS_VARIANTS)))
    with open(os.path.join(outdir, "dups-expected.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


TAP_WINDOWS_NS = (100_000, 10_000_000, 1_000_000_000)


def tap_packets(rnd, n):
    """n distinct IP packets (v4 and v6, TCP, UDP, ICMP) and a few ARP frames, as L3
    layers (or whole frames for ARP), with the times of their copies."""
    out = []
    for i in range(n):
        kind = rnd.random()
        payload = Raw(bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 120))))
        if kind < 0.45:
            l3 = IP(src="10.%d.%d.%d" % (i >> 16, (i >> 8) & 255, i & 255),
                    dst="192.0.2.%d" % rnd.randrange(1, 255), ttl=rnd.randrange(2, 65),
                    id=rnd.randrange(65536)) / UDP(sport=rnd.randrange(1024, 65536),
                                                   dport=53) / payload
        elif kind < 0.75:
            l3 = IP(src="10.%d.%d.%d" % (i >> 16, (i >> 8) & 255, i & 255),
                    dst="198.51.100.%d" % rnd.randrange(1, 255), ttl=rnd.randrange(2, 65),
                    id=rnd.randrange(65536)) / TCP(sport=rnd.randrange(1024, 65536),
                                                   dport=443, flags="PA",
                                                   seq=rnd.randrange(2 ** 32)) / payload
        elif kind < 0.97:
            l3 = IPv6(src="2001:db8::%x" % (i + 1), dst="2001:db8:ff::%x" % rnd.randrange(1, 999),
                      hlim=rnd.randrange(2, 65)) / UDP(sport=rnd.randrange(1024, 65536),
                                                      dport=4789) / payload
        else:
            l3 = ARP(psrc="10.9.%d.%d" % ((i >> 8) & 255, i & 255), pdst="10.9.0.1")
        out.append(l3)
    return out


def tap_frame(l3, feed):
    """The frame as TAP A (VLAN 10, MACs A->B) or B (VLAN 20, MACs C->D, one router hop
    later: TTL - 1, checksum recomputed) captures it."""
    if feed == "A":
        return Ether(src=MAC_A, dst=MAC_B) / Dot1Q(vlan=10) / l3
    c = l3.copy()
    if IP in c:
        c[IP].ttl -= 1
        c[IP].chksum = None
    elif IPv6 in c:
        c[IPv6].hlim -= 1
    return Ether(src=MAC_C, dst=MAC_D) / Dot1Q(vlan=20) / c


def gen_tap(outdir):
    """tap.pcap and tap-late.pcap (see the module docstring)."""
    n = 1500

    for name, lag_a, lag_b in (("tap", 0, 20_000), ("tap-late", 50_000, 0)):
        rnd = random.Random(606)
        pkts = tap_packets(rnd, n)

        def log_uniform(lo, hi):
            return int(math.exp(rnd.uniform(math.log(lo), math.log(hi))))

        events = []  # (arrival position, timestamp ns, feed, packet index)
        t = 1_700_000_000_000_000_000
        for i in range(n):
            t += log_uniform(1_000, 40_000_000)
            while True:
                copies = [(t, "A")]
                if rnd.random() < 0.7:
                    copies.append((t + log_uniform(1_000, 3_000_000_000), "B"))
                if rnd.random() < 0.1:
                    r = t + log_uniform(10_000_000, 5_000_000_000)
                    copies.append((r, "A"))
                    if rnd.random() < 0.5:
                        copies.append((r + log_uniform(1_000, 100_000), "B"))
                placed = [(ts + (lag_a if f == "A" else lag_b) * rnd.random(), ts, f)
                          for ts, f in copies]
                ok = True
                for x in placed:
                    for y in placed:
                        if x is y:
                            continue
                        gap = abs(x[1] - y[1])
                        guard = 2_000 + max(lag_a, lag_b)
                        if any(w - guard - w // 5000 <= gap <= w + guard + w // 5000
                               for w in TAP_WINDOWS_NS):
                            ok = False
                        # tap.pcap: a copy never arrives before an earlier-stamped one
                        if name == "tap" and (x[0] < y[0]) != (x[1] < y[1]):
                            ok = False
                if ok:
                    break
            events += [(pos, ts, f, i) for pos, ts, f in placed]
        events.sort()
        seen_ts = set()
        w = RawPcapWriter(os.path.join(outdir, name + ".pcap"), linktype=1, sync=True,
                          nano=True)
        w.write_header(None)
        for pos, ts, f, i in events:
            while ts in seen_ts:  # every frame's timestamp is unique (tests map by it)
                ts += 1
            seen_ts.add(ts)
            # a nanosecond pcap: the record's second field holds ns
            w.write_packet(bytes(tap_frame(pkts[i], f)), sec=ts // 10 ** 9,
                           usec=ts % 10 ** 9)
        w.close()


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "pcap")
    os.makedirs(outdir, exist_ok=True)
    gen_keys(outdir)
    gen_mirror(outdir)
    gen_dups(outdir)
    gen_tap(outdir)


if __name__ == "__main__":
    main()
