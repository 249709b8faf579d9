#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Keys with one gap: new key t, then a copy of key t - D (for t < D: a key seen once),
for t = 0 .. N-1 (raw little-endian uint64 keys for pktdedup-eval --keys). Between any
key and its copy come 2D - 1 other keys, all different: D - 1 new ones and D older
ones seen again, or keys seen once (docs/filters.md, "The planner's miss model")."""
import struct
import sys

if len(sys.argv) != 4:
    sys.exit("usage: gap_stream.py OUT N_NEW D")
out, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(out, "wb") as f:
    buf = bytearray()
    for t in range(n):
        buf += struct.pack("<Q", 0x9E3779B97F4A7C15 * (t + 1) % 2**64)
        if t >= d:
            buf += struct.pack("<Q", 0x9E3779B97F4A7C15 * (t - d + 1) % 2**64)
        else:
            buf += struct.pack("<Q", 0xC2B2AE3D27D4EB4F * (t + 1) % 2**64 | 1 << 63)
        if len(buf) >= 1 << 20:
            f.write(buf)
            buf.clear()
    f.write(buf)
