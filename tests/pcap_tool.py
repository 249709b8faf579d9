#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Small pcap helper for the end-to-end tests (standard library only; no code shared
with pktdedup):

    pcap_tool.py frames FILE                      hex of every frame, one per line
    pcap_tool.py expect-drop IN EXPECTED VARIANT  frames of IN that are not duplicates
    pcap_tool.py expect-mark IN EXPECTED VARIANT DSCP
                                                  every frame of IN, the duplicates with
                                                  DSCP set and the IPv4 checksum redone
    pcap_tool.py count EXPECTED VARIANT           "<duplicates> <unique> <nokey>"
    pcap_tool.py select IN EXPECTED VARIANT FLAG  frames of IN whose flag is FLAG (0, 1, -)
    pcap_tool.py corpus OUTDIR NSEL FILE...       one file per frame and selector byte
                                                  0..NSEL-1: the byte, a link byte (0
                                                  Ethernet; 3 raw IP, the frame without
                                                  its 14-byte header), then the frame
                                                  (fuzz_key's seed corpus)
"""
import struct
import sys


def frames(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off, out = 24, []
    while off + 16 <= len(data):
        caplen = struct.unpack(end + "I", data[off + 8:off + 12])[0]
        out.append(data[off + 16:off + 16 + caplen])
        off += 16 + caplen
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
    elif cmd == "expect-mark":
        fl = expected(sys.argv[3], sys.argv[4])
        dscp = int(sys.argv[5])
        for f, d in zip(frames(sys.argv[2]), fl):
            print((mark(f, dscp) if d == "1" else f).hex())
    elif cmd == "select":
        fl = expected(sys.argv[3], sys.argv[4])
        for f, d in zip(frames(sys.argv[2]), fl):
            if d == sys.argv[5]:
                print(f.hex())
    elif cmd == "corpus":
        out, nsel, n = sys.argv[2], int(sys.argv[3]), 0
        for path in sys.argv[4:]:
            for f in frames(path):
                for sel in range(nsel):
                    with open("%s/%05d-%d" % (out, n, sel), "wb") as fh:
                        fh.write(bytes([sel, 0]) + f)
                    with open("%s/%05d-%d-raw" % (out, n, sel), "wb") as fh:
                        fh.write(bytes([sel, 3]) + f[14:])
                n += 1
    elif cmd == "count":
        fl = expected(sys.argv[2], sys.argv[3])
        print(fl.count("1"), fl.count("0"), fl.count("-"))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
