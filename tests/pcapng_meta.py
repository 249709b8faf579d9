"""A pcapng stream on standard output: a section, an interface, a packet, MB copyable
custom blocks of 1 MiB each, and a second packet (tests/e2e_io.sh: bounded memory for
what comes between packets).

    pcapng_meta.py MB
"""
import struct
import sys

mb = int(sys.argv[1])
out = sys.stdout.buffer


def block(t, body):
    body += b"\0" * ((4 - len(body) % 4) % 4)
    n = 12 + len(body)
    return struct.pack("<II", t, n) + body + struct.pack("<I", n)


def epb(i):
    frame = bytes(12) + b"\x08\x00" + bytes([0x45, 0, 0, 28]) + struct.pack(">I", i) + bytes([64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]) + bytes(8)
    return block(6, struct.pack("<IIIII", 0, 0, i, len(frame), len(frame)) + frame)


out.write(block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
out.write(block(1, struct.pack("<HHI", 1, 0, 65535)))
out.write(epb(1))
custom = block(0x00000BAD, struct.pack("<I", 32473) + bytes(1 << 20))
for _ in range(mb):
    out.write(custom)
out.write(epb(2))
