"""A pcapng whose interfaces differ in link type and snap length, and what pktdedup
must make of it (tests/e2e_links.sh). Standard library only; nothing shared with
pktdedup.

    mixed_links.py DIR [big|radio-first]

writes DIR/in.pcapng and, as the oracle, DIR/kept.pcapng and DIR/dups.pcapng: the
input without the packet blocks --key packet drops, and with only those (a packet
block's IP packet seen before on any interface is a copy; frames with no IP packet to
key pass, and so do those a snap length cut inside their packet), every other block as
it was; DIR/kept-ether.pcapng, what --bpf 'ether dst
02:00:00:00:00:01' keeps (it matches every Ethernet frame, and compiles for no other
link type: those pass); DIR/keys-summary.txt, what pktdedup-keys
--summary must count (frames, distinct keys, frames cut short, frames of the 802.11
interface). Also
DIR/eth.pcapng: the Ethernet interfaces' packets alone (snap lengths 65535 and 0), and
DIR/eth-kept.txt, the numbers of its packets kept, for a pcap output whose header must
grow to the longest frame; DIR/spb.pcapng, section 2 alone, and DIR/spb.pcap, its frames
as a raw-IP pcap whose records give their lengths (a simple packet block's frame ends at
its interface's snap length, not at the block's padding).

Little-endian, or big-endian with "big" (libpcap reads one byte order a file);
"radio-first": little-endian with the 802.11 interface first, as if0.
Section 1:
  if0 Ethernet, snap 65535; if1 raw IP (LINKTYPE_RAW 101), snap 96;
  if2 Ethernet, snap 0 (no limit: frames of 70,000 bytes); if3 IEEE 802.11 (105).
Section 2 (its interfaces numbered anew):
  if0 raw IP, snap 62, its packets in simple packet blocks (no interface, time or
  captured length: those lengths come from if0's snap length; 62 is no multiple of 4,
  so a block's padding is not part of its frame).
"""
import os
import struct
import sys

out_dir = sys.argv[1]
E = ">" if sys.argv[2:] == ["big"] else "<"
# the interfaces' numbers in section 1; "radio-first" puts the 802.11 one first
ETH, RAW, ETH0, RADIO = (1, 2, 3, 0) if sys.argv[2:] == ["radio-first"] else (0, 1, 2, 3)


def block(t, body, e=E):
    body += b"\0" * ((4 - len(body) % 4) % 4)
    n = 12 + len(body)
    return struct.pack(e + "II", t, n) + body + struct.pack(e + "I", n)


def shb(e):
    return block(0x0A0D0D0A, struct.pack(e + "IHHq", 0x1A2B3C4D, 1, 0, -1), e)


def idb(linktype, snap, e=E):
    return block(1, struct.pack(e + "HHI", linktype, 0, snap), e)


def epb(iface, frame, ts, wire=None, e=E):
    return block(6, struct.pack(e + "IIIII", iface, ts >> 32, ts & 0xFFFFFFFF, len(frame),
                                wire or len(frame)) + frame, e)


def spb(frame, wire, e=E):
    return block(3, struct.pack(e + "I", wire) + frame, e)


def ip4(i, size):
    """An IPv4/UDP packet of `size` bytes, distinct for each i."""
    body = bytes((i * 13 + j) & 255 for j in range(size - 28))
    udp = struct.pack("!HHHH", 2000 + i, 53, 8 + len(body), 0) + body
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i & 0xFFFF, 0, 64, 17, 0,
                       bytes([10, 1, i >> 8 & 255, i & 255]), bytes([192, 0, 2, 7])) + udp


def eth(ip, i):
    return b"\x02\0\0\0\0\x01\x02\0\0\0\0" + bytes([i & 255]) + b"\x08\x00" + ip


blocks, ipkey, kept, dups = [], [], [], []
eth_only, eth_kept, on_eth = [], [], []
seen = set()
ts = 1_700_000_000_000_000  # microseconds (no if_tsresol: the default)


CUT = "cut"  # a packet a snap length cut: the packet key needs the bytes cut


def packet(blk, key, eth_iface=None):
    """One packet block; key: its IP packet (None: nothing to key, CUT: cut short; either
    passes). With eth_iface, eth.pcapng has it too, on that interface."""
    n = len(ipkey)
    blocks.append(blk)
    ipkey.append(key)
    on_eth.append(eth_iface is not None)
    if key not in (None, CUT) and key in seen:
        dups.append(n)
    else:
        kept.append(n)
        if key not in (None, CUT):
            seen.add(key)
    if eth_iface is not None:  # Ethernet copies are copies on Ethernet alone too
        if kept[-1] == n:
            eth_kept.append(len(eth_only))
        eth_only.append(blk[:8] + struct.pack(E + "I", eth_iface) + blk[12:])


ifs = {ETH: idb(1, 65535), RAW: idb(101, 96), ETH0: idb(1, 0), RADIO: idb(105, 65535)}
head = shb(E) + b"".join(ifs[i] for i in range(4))
eth_head = shb(E) + idb(1, 65535) + idb(1, 0)
for i in range(40):
    p = ip4(i, 60 + i)  # 60..99 bytes
    ts += 10
    packet(epb(ETH, eth(p, i), ts), p, eth_iface=0)
    if i % 3 == 0:  # the same packet through the tunnel interface: a copy
        ts += 10
        packet(epb(RAW, p, ts), p)
    if i % 5 == 0:  # and again on the first interface: a copy
        ts += 10
        packet(epb(ETH, eth(p, i + 100), ts), p, eth_iface=0)
    if i % 7 == 0:  # a radio frame: no key, passes
        ts += 10
        radio = bytes([0x08, 0x02]) + bytes((i + j) & 255 for j in range(40))
        packet(epb(RADIO, radio, ts), None)
# raw IP longer than if1's snap length, cut there: no key, it passes
big = ip4(500, 300)
ts += 10
packet(epb(RAW, big[:96], ts, wire=len(big)), CUT)
# 70,000-byte frames on if2 (no snap limit), over if0's 65535: an IP packet of 65,000
# bytes and a trailer (ignored by the key); the second a copy
jumbo = ip4(600, 65000)
for k in range(2):
    ts += 10
    packet(epb(ETH0, eth(jumbo, 600 + k) + bytes(70000 - 14 - 65000), ts), jumbo,
           eth_iface=1)
# a fresh small one on if2 and its copy on if1
p = ip4(700, 80)
ts += 10
packet(epb(ETH0, eth(p, 7), ts), p, eth_iface=1)
ts += 10
packet(epb(RAW, p, ts), p)

# section 2: simple packet blocks on a raw-IP interface of snap 62
sec2 = shb(E) + idb(101, 62)
n1 = len(blocks)
sec2_frames = []  # (captured bytes, original length) of each simple packet block


def spb2(cut, wire):
    sec2_frames.append((cut, wire))
    return spb(cut, wire)


for i in range(10):
    p = ip4(800 + i, 48 if i % 2 == 0 else 120)  # the long ones cut at 62
    cut = p[:62]
    key = p if len(p) <= 62 else CUT
    packet(spb2(cut, len(p)), key)
    if len(p) <= 62:  # copies of the whole ones, and of one seen in section 1
        packet(spb2(cut, len(p)), key)
packet(spb2(ip4(2, 62), 62), ip4(2, 62))



def write(name, numbers):
    """The file with the packet blocks numbered `numbers`, every other block kept."""
    pick = set(numbers)
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(head + b"".join(b for n, b in enumerate(blocks[:n1]) if n in pick) + sec2 +
                b"".join(b for n, b in enumerate(blocks[n1:], n1) if n in pick))


write("in.pcapng", range(len(blocks)))
write("kept.pcapng", kept)
write("dups.pcapng", dups)
# a --bpf that matches every Ethernet frame and compiles for no other link type: copies
# dropped among the Ethernet frames alone, every other frame kept
eth_seen, kept_ether = set(), []
for n, k in enumerate(ipkey):
    if on_eth[n] and k in eth_seen:
        continue
    if on_eth[n] and k is not CUT:
        eth_seen.add(k)
    kept_ether.append(n)
write("kept-ether.pcapng", kept_ether)
with open(os.path.join(out_dir, "eth.pcapng"), "wb") as f:
    f.write(eth_head + b"".join(eth_only))
radios = sum(1 for k in ipkey if k is None)
cuts = sum(1 for k in ipkey if k is CUT)
with open(os.path.join(out_dir, "keys-summary.txt"), "w") as f:
    f.write("frames %d\ndistinct %d\ntruncated %d\nlink-type %d\n"
            % (len(ipkey), len(kept) - radios - cuts, cuts, radios))
# section 2 alone, and its frames as a raw-IP pcap (lengths explicit, no padding)
with open(os.path.join(out_dir, "spb.pcapng"), "wb") as f:
    f.write(sec2 + b"".join(blocks[n1:]))
with open(os.path.join(out_dir, "spb.pcap"), "wb") as f:
    f.write(struct.pack(E + "IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 62, 101))
    for cut, wire in sec2_frames:
        f.write(struct.pack(E + "IIII", 0, 0, len(cut), wire) + cut)
with open(os.path.join(out_dir, "eth-kept.txt"), "w") as f:
    f.write("".join(f"{n}\n" for n in eth_kept))
