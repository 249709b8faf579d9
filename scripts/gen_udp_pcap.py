#!/usr/bin/env python3
"""Write 64-byte UDP/IPv4 frames (distinct source address and ports) to a pcap: the
traffic of scripts/bench_app.sh, scripts/soak.sh and scripts/bench_offline.sh.
Standard library only.
    python3 scripts/gen_udp_pcap.py OUT.pcap [N] [--mirror LAG]
Without --mirror: N different frames, 1 us apart.
With --mirror LAG: N frames in all, N/2 different ones each seen twice, as a TAP
aggregating two mirror points delivers them: every frame's copy comes LAG frames after
the next LAG originals (2*LAG frames and 2*LAG us after it), byte for byte equal."""
import struct
import sys


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def frame(i):
    udp = struct.pack("!HHHH", 1024 + i % 5000, 53, 8 + 18, 0) + b"x" * 18
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i & 0xffff, 0, 64,
                     17, 0, bytes([10, i >> 16, (i >> 8) & 255, i & 255]),
                     bytes([192, 0, 2, 1]))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + udp


def order(n, lag):
    """Frame numbers in output order."""
    if lag is None:
        yield from range(n)
        return
    d = n // 2
    for k in range(d + lag):
        if k < d:
            yield k
        if 0 <= k - lag < d:
            yield k - lag


def main():
    args = sys.argv[1:]
    lag = None
    if "--mirror" in args:
        at = args.index("--mirror")
        try:
            lag = int(args[at + 1])
        except (IndexError, ValueError):
            sys.exit("gen_udp_pcap.py: --mirror needs a number of frames")
        if lag < 0:
            sys.exit("gen_udp_pcap.py: --mirror LAG must be >= 0")
        del args[at:at + 2]
    if not 1 <= len(args) <= 2:
        sys.exit(__doc__)
    n = int(args[1]) if len(args) > 1 else 65536
    if not 1 <= n <= 1 << 24 or (lag is not None and n < 2):
        sys.exit("gen_udp_pcap.py: N must be 1..16777216 (2.. with --mirror)")
    pending = {}  # --mirror: frames whose copy is still to come
    with open(args[0], "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for p, i in enumerate(order(n, lag)):
            fr = pending.pop(i, None)
            if fr is None:
                fr = frame(i)
                if lag is not None:
                    pending[i] = fr
            f.write(struct.pack("<IIII", p // 1000000, p % 1000000, len(fr), len(fr)) + fr)


if __name__ == "__main__":
    main()
