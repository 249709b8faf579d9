#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Small pcap helper for the end-to-end tests (standard library only; no code shared
with pktdedup):

    pcap_tool.py frames FILE                      hex of every frame, one per line
    pcap_tool.py expect-drop IN EXPECTED VARIANT  frames of IN that are not duplicates
    pcap_tool.py expect-snap IN EXPECTED VARIANT SNAP [drop]
                                                  IN cut at SNAP bytes (editcap -s), the
                                                  packet key: frames cut inside their
                                                  packet (by its IP length; not IP: the
                                                  frame) kept, the others as EXPECTED;
                                                  with drop (--unparseable drop) those
                                                  with no key and not cut left out
    pcap_tool.py count-cut IN SNAP                how many frames of IN a cut at SNAP
                                                  bytes cuts inside their packet
    pcap_tool.py expect-keep IN KEYS [whole]      frames of IN kept by --unparseable drop
                                                  with KEYS (gen_fixtures.py's expected
                                                  keys of IN): the first of each key, and
                                                  those whose key needs bytes the packet
                                                  has (split-request, several-requests,
                                                  truncated where the record's original
                                                  length is longer; with whole, as a port
                                                  gives them, never)
    pcap_tool.py expect-mark IN EXPECTED VARIANT DSCP
                                                  every frame of IN, the duplicates with
                                                  DSCP set and the IPv4 checksum redone
    pcap_tool.py count EXPECTED VARIANT           "<duplicates> <unique> <nokey>"
    pcap_tool.py select IN EXPECTED VARIANT FLAG  frames of IN whose flag is FLAG (0, 1, -)
    pcap_tool.py bpf-expect IN MATCHED KEPT       frames of IN not in MATCHED or in KEPT
                                                  (and on stderr: how many not in MATCHED)
    pcap_tool.py ngpackets FILE                   pcapng: each packet block's interface,
                                                  raw timestamp, lengths, data and options
    pcap_tool.py ngblocks FILE                    pcapng: every block, type and body
    pcap_tool.py ngswap IN OUT                    pcapng: IN in the other byte order
    pcap_tool.py ngspb IN OUT                     pcapng: IN's packets as simple blocks
    pcap_tool.py fits FILE LIMIT                  "N END": the packets of a pcap or pcapng
                                                  file wholly in its first LIMIT bytes,
                                                  and where the last ends (the header's
                                                  end without one; 0: no whole header)
    pcap_tool.py distinct FILE N                  how many different frames (bytes) the
                                                  first N records of a pcap file hold
    pcap_tool.py split IN N OUT                   IN's records dealt in turn to N files,
                                                  OUT.0.pcap .. OUT.N-1.pcap
    pcap_tool.py corpus OUTDIR NSEL FILE...       one file per frame and selector byte
                                                  0..NSEL-1: the byte, a link byte (0
                                                  Ethernet; 3 raw IP, the frame without
                                                  its 14-byte header), then the frame
                                                  (fuzz_key's seed corpus)
    pcap_tool.py corpus-decap OUTDIR NSEL FILE... the same, Ethernet with every tunnel
                                                  opened (link byte 4)
"""
import struct
import sys


def records(path, wire=False):
    """(seconds, fraction, frame) of every record of a pcap file; with wire, its
    original length too."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off, out = 24, []
    while off + 16 <= len(data):
        sec, frac, caplen, orig = struct.unpack(end + "IIII", data[off:off + 16])
        frame = data[off + 16:off + 16 + caplen]
        out.append((sec, frac, frame, orig) if wire else (sec, frac, frame))
        off += 16 + caplen
    return out


def frames(path):
    return [r[2] for r in records(path)]


def records_ns(path):
    """(timestamp in ns, frame) of every record: nanosecond or microsecond pcap."""
    with open(path, "rb") as fh:
        nano = struct.unpack("<I", fh.read(4))[0] in (0xA1B23C4D, 0x4D3CB2A1)
    unit = 1 if nano else 1000
    return [(sec * 10 ** 9 + frac * unit, f) for sec, frac, f in records(path)]


NG_SHB, NG_IDB, NG_SPB, NG_EPB = 0x0A0D0D0A, 1, 3, 6


def ng_blocks(data):
    """(type, body, byte order) of each block of a pcapng file."""
    off, end = 0, "<"
    while off + 12 <= len(data):
        t = struct.unpack(end + "I", data[off:off + 4])[0]
        if t == NG_SHB:  # the same in both orders; its byte-order magic says which
            end = "<" if data[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
        ln = struct.unpack(end + "I", data[off + 4:off + 8])[0]
        assert ln >= 12 and ln % 4 == 0, "bad block length at %d" % off
        yield t, data[off + 8:off + ln - 4], end
        off += ln


def ng_packets(path):
    out = []
    for t, body, end in ng_blocks(open(path, "rb").read()):
        if t == NG_EPB:
            iface, hi, lo, cap, ln = struct.unpack(end + "5I", body[:20])
            pad = (cap + 3) & ~3
            out.append((iface, hi, lo, cap, ln, body[20:20 + cap].hex(),
                        body[20 + pad:].hex()))
        elif t == NG_SPB:
            ln = struct.unpack(end + "I", body[:4])[0]
            out.append(("spb", ln, body[4:4 + ln].hex()))  # without the padding
    return out


# option values that are numbers, by (block type, option code): their size
NG_NUMERIC = {(NG_EPB, 2): 4, (NG_IDB, 8): 8, (NG_IDB, 14): 8}


def ng_swap_options(t, opts, end, other):
    out, off = b"", 0
    while off + 4 <= len(opts):
        code, ln = struct.unpack(end + "HH", opts[off:off + 4])
        val = opts[off + 4:off + 4 + ln]
        size = NG_NUMERIC.get((t, code))
        if size:
            val = struct.pack(other + ("I" if size == 4 else "Q"),
                              struct.unpack(end + ("I" if size == 4 else "Q"), val)[0])
        out += struct.pack(other + "HH", code, ln) + val + b"\0" * ((4 - ln % 4) % 4)
        off += 4 + ((ln + 3) & ~3)
        if code == 0:
            break
    return out


def ng_swap(data):
    """The same blocks in the other byte order (section, interface and packet blocks,
    with string, one-byte and the listed numeric options: what the tests write)."""
    out = b""
    for t, body, end in ng_blocks(data):
        o = ">" if end == "<" else "<"
        if t == NG_SHB:
            _, major, minor, seclen = struct.unpack(end + "IHHq", body[:16])
            nb = struct.pack(o + "IHHq", 0x1A2B3C4D, major, minor, seclen) + \
                ng_swap_options(t, body[16:], end, o)
        elif t == NG_IDB:
            lt, res, snap = struct.unpack(end + "HHI", body[:8])
            nb = struct.pack(o + "HHI", lt, res, snap) + ng_swap_options(t, body[8:], end, o)
        elif t == NG_EPB:
            f = struct.unpack(end + "5I", body[:20])
            pad = (f[3] + 3) & ~3
            nb = struct.pack(o + "5I", *f) + body[20:20 + pad] + \
                ng_swap_options(t, body[20 + pad:], end, o)
        else:
            sys.exit("ngswap: block type %#x not handled" % t)
        out += struct.pack(o + "II", t, len(nb) + 12) + nb + struct.pack(o + "I", len(nb) + 12)
    return out


def expected(path, variant):
    cols = None
    flags = []
    for line in open(path):
        if line.startswith("# <index>"):
            cols = line.split()[3:]
        if line.startswith("#"):
            continue
        f = line.split()
        flags.append(f[2 + cols.index(variant)])
    return flags


def packet_end(frame):
    """Where a frame's packet ends: Ethernet, VLAN tags, then the IPv4 total length or
    the IPv6 payload length (RFC 791, 8200; 0, a jumbogram: the frame); the frame's end
    for anything else (a frame shorter than an Ethernet header too)."""
    if len(frame) < 14:
        return len(frame)
    off, et = 14, struct.unpack("!H", frame[12:14])[0]
    while et in (0x8100, 0x88A8, 0x9100) and len(frame) >= off + 4:
        et = struct.unpack("!H", frame[off + 2:off + 4])[0]
        off += 4
    if et == 0x0800 and len(frame) >= off + 4:
        return off + struct.unpack("!H", frame[off + 2:off + 4])[0]
    if et == 0x86DD and len(frame) >= off + 6:
        plen = struct.unpack("!H", frame[off + 4:off + 6])[0]
        return off + 40 + plen if plen else len(frame)
    return len(frame)


def checksum(b):
    s = 0
    for i in range(0, len(b), 2):
        s += (b[i] << 8) | b[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def mark(frame, dscp):
    f = bytearray(frame)
    off, et = 14, struct.unpack("!H", f[12:14])[0]
    while et in (0x8100, 0x88A8, 0x9100):
        et = struct.unpack("!H", f[off + 2:off + 4])[0]
        off += 4
    if et == 0x0800:
        ihl = (f[off] & 15) * 4
        f[off + 1] = (dscp << 2) | (f[off + 1] & 3)
        f[off + 10:off + 12] = b"\0\0"
        f[off + 10:off + 12] = struct.pack("!H", checksum(bytes(f[off:off + ihl])))
    elif et == 0x86DD:
        tc = ((f[off] & 15) << 4) | (f[off + 1] >> 4)
        tc = (dscp << 2) | (tc & 3)
        f[off] = (f[off] & 0xF0) | (tc >> 4)
        f[off + 1] = ((tc & 15) << 4) | (f[off + 1] & 15)
    return bytes(f)


def main():
    cmd = sys.argv[1]
    if cmd == "frames":
        for f in frames(sys.argv[2]):
            print(f.hex())
    elif cmd == "expect-drop":
        fl = expected(sys.argv[3], sys.argv[4])
        for f, d in zip(frames(sys.argv[2]), fl):
            if d != "1":
                print(f.hex())
    elif cmd == "expect-snap":
        fl = expected(sys.argv[3], sys.argv[4])
        snap = int(sys.argv[5])
        drop = sys.argv[6:] == ["drop"]
        for f, d in zip(frames(sys.argv[2]), fl):
            cut = snap < min(len(f), packet_end(f))
            if cut or d == "0" or (d == "-" and not drop):
                print(f[:snap].hex())
    elif cmd == "count-cut":
        snap = int(sys.argv[3])
        print(sum(1 for f in frames(sys.argv[2]) if snap < min(len(f), packet_end(f))))
    elif cmd == "expect-keep":
        seen = set()
        for (_, _, f, orig), line in zip(records(sys.argv[2], wire=True),
                                         (l for l in open(sys.argv[3]) if l[0] != "#")):
            reason, key = (line.split() + [None])[2:4]
            if (reason == "ok" and key not in seen) or \
                    reason in ("split-request", "several-requests") or \
                    (reason == "truncated" and orig > len(f) and sys.argv[4:] != ["whole"]):
                print(f.hex())
            seen.add(key)
    elif cmd == "expect-mark":
        fl = expected(sys.argv[3], sys.argv[4])
        dscp = int(sys.argv[5])
        for f, d in zip(frames(sys.argv[2]), fl):
            print((mark(f, dscp) if d == "1" else f).hex())
    elif cmd == "expect-dups":
        # the copies alone, in order; marked with DSCP when it is given
        fl = expected(sys.argv[3], sys.argv[4])
        dscp = int(sys.argv[5]) if len(sys.argv) > 5 else None
        for f, d in zip(frames(sys.argv[2]), fl):
            if d == "1":
                print((f if dscp is None else mark(f, dscp)).hex())
    elif cmd == "select":
        fl = expected(sys.argv[3], sys.argv[4])
        for f, d in zip(frames(sys.argv[2]), fl):
            if d == sys.argv[5]:
                print(f.hex())
    elif cmd == "bpf-expect":
        # IN's frames outside MATCHED (a BPF's matches), and those of MATCHED that KEPT
        # (their dedup) kept; records are told apart by timestamp (IN in strict order)
        recs = records(sys.argv[2])
        assert len({r[:2] for r in recs}) == len(recs), "timestamps not unique"
        matched = {r[:2] for r in records(sys.argv[3])}
        kept = {r[:2] for r in records(sys.argv[4])}
        for r in recs:
            if r[:2] not in matched or r[:2] in kept:
                print(r[2].hex())
        print(len(recs) - len(matched), file=sys.stderr)
    elif cmd == "ngpackets":
        for p in ng_packets(sys.argv[2]):
            print(*p)
    elif cmd == "ngblocks":
        for t, body, end in ng_blocks(open(sys.argv[2], "rb").read()):
            print("%#x" % t, end, body.hex())
    elif cmd == "ngspb":
        # IN's enhanced packet blocks as simple packet blocks (no interface, time or
        # options; one-interface files)
        out = b""
        for t, body, end in ng_blocks(open(sys.argv[2], "rb").read()):
            if t == NG_EPB:
                iface, hi, lo, cap, ln = struct.unpack(end + "5I", body[:20])
                t, body = NG_SPB, struct.pack(end + "I", ln) + body[20:20 + ((cap + 3) & ~3)]
            out += struct.pack(end + "II", t, len(body) + 12) + body + \
                struct.pack(end + "I", len(body) + 12)
        with open(sys.argv[3], "wb") as fh:
            fh.write(out)
    elif cmd == "ngswap":
        with open(sys.argv[3], "wb") as fh:
            fh.write(ng_swap(open(sys.argv[2], "rb").read()))
    elif cmd in ("corpus", "corpus-decap"):
        # (name suffix, link byte, a header, the frame's bytes from): Ethernet, raw IP
        # and BSD loopback (AF_INET), or Ethernet with every tunnel opened
        links = ([("", 0, b"", 0), ("-raw", 3, b"", 14), ("-null", 0x83, b"\2\0\0\0", 14)]
                 if cmd == "corpus" else [("-decap", 4, b"", 0)])
        out, nsel, n = sys.argv[2], int(sys.argv[3]), 0
        for path in sys.argv[4:]:
            for f in frames(path):
                for sel in range(nsel):
                    for suffix, link, head, start in links:
                        with open("%s/%05d-%d%s" % (out, n, sel, suffix), "wb") as fh:
                            fh.write(bytes([sel, link]) + head + f[start:])
                n += 1
    elif cmd == "split":
        # IN's records dealt in turn to N pcap files OUT.0.pcap .. OUT.N-1.pcap
        data = open(sys.argv[2], "rb").read()
        n, out = int(sys.argv[3]), sys.argv[4]
        files = [open("%s.%d.pcap" % (out, i), "wb") for i in range(n)]
        for fh in files:
            fh.write(data[:24])
        end = "<" if struct.unpack("<I", data[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D) else ">"
        off, i = 24, 0
        while off + 16 <= len(data):
            caplen = struct.unpack(end + "I", data[off + 8:off + 12])[0]
            files[i % n].write(data[off:off + 16 + caplen])
            off, i = off + 16 + caplen, i + 1
        for fh in files:
            fh.close()
    elif cmd == "fits":
        data, limit = open(sys.argv[2], "rb").read(), int(sys.argv[3])
        n, end = 0, 0
        if struct.unpack("<I", data[:4])[0] == NG_SHB:
            off = 0
            for t, body, _ in ng_blocks(data):
                off += len(body) + 12
                if off > limit:
                    break
                if t in (NG_EPB, NG_SPB):
                    n, end = n + 1, off
                elif n == 0:
                    end = off  # the section and interface blocks before any packet
        else:
            rec = records(sys.argv[2])
            off = 24
            end = 24 if limit >= 24 else 0
            for r in rec:
                off += 16 + len(r[2])
                if off > limit:
                    break
                n, end = n + 1, off
        print(n, end)
    elif cmd == "distinct":
        print(len(set(frames(sys.argv[2])[:int(sys.argv[3])])))
    elif cmd == "count":
        fl = expected(sys.argv[2], sys.argv[3])
        print(fl.count("1"), fl.count("0"), fl.count("-"))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
