#!/usr/bin/env python3
"""Write N different 64-byte UDP/IPv4 frames (distinct source address and ports) to a
pcap: the traffic of scripts/bench_app.sh and scripts/soak.sh. Standard library only.
    python3 scripts/gen_udp_pcap.py OUT.pcap [N]"""
import struct
import sys


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 65536
    if not 1 <= n <= 1 << 24:
        sys.exit("gen_udp_pcap.py: N must be 1..16777216")
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i in range(n):
            udp = struct.pack("!HHHH", 1024 + i % 5000, 53, 8 + 18, 0) + b"x" * 18
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i & 0xffff, 0, 64,
                             17, 0, bytes([10, i >> 16, (i >> 8) & 255, i & 255]),
                             bytes([192, 0, 2, 1]))
            ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
            fr = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + udp
            f.write(struct.pack("<IIII", i // 1000000, i % 1000000, len(fr), len(fr)) + fr)


if __name__ == "__main__":
    main()
