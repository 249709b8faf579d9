#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Reference for the window tests, independent of pktdedup's code (scapy decodes the
frames; Debian's python3-scapy, so run with /usr/bin/python3; the records are read with
pcap_tool.py, and scapy is imported only to decode or write frames: the import takes
half a second, and e2e_window asks for indices fifty times):

    window_ref.py normalise IN OUT       OUT: each frame as a packet broker compares it:
                                         MACs zeroed, VLAN tags removed, IPv4 TTL and
                                         header checksum (IPv6 hop limit) zeroed, cut at
                                         the IP length; timestamps kept (nanoseconds)
    window_ref.py indices-by-time IN OUT indices of IN's frames whose timestamps are in
                                         OUT (IN's timestamps are unique)
    window_ref.py indices-by-bytes IN OUT
                                         indices of IN's frames that OUT holds: OUT is IN
                                         with frames left out (greedy, in order; exact
                                         when no frame occurs more than twice)
    window_ref.py indices IN OUT         indices-by-bytes, and status 1 unless
                                         indices-by-time gives the same (OUT's records
                                         carry the timestamps of IN's)
    window_ref.py expect IN W MODE       indices of the frames a window of W ns keeps
                                         (MODE seen or delivered), on normalised frames
    window_ref.py delays IN W MODE       the delay of each duplicate there (ns): its time
                                         minus its reference time T, 0 if not after T
    window_ref.py expect-all IN PREFIX W...
                                         the same for each W and both modes, into files
                                         PREFIX.<mode>.<W> (indices) and
                                         PREFIX.<mode>.<W>.delays, and the normalised
                                         capture into PREFIX.norm.pcap: one
                                         normalisation pass, one import of scapy

The window definition (docs/windows.md): a frame at time t whose normalised bytes were
seen before has a reference time T, the newest time among its earlier copies (seen) or
the time of its last copy kept (delivered); it is a duplicate iff t <= T + W (a copy
newer than the frame counts as within the window).
"""
import sys

from pcap_tool import records_ns as records  # this directory: the standard library only


def normalise(frame):
    from scapy.all import Dot1AD, Dot1Q, Ether, IP, IPv6

    p = Ether(frame)
    p.src = p.dst = "00:00:00:00:00:00"
    while isinstance(p.payload, (Dot1Q, Dot1AD)):
        p.type = p.payload.type
        p.payload = p.payload.payload
    ip = p.payload  # the outer IP header only (scapy also decodes tunnels: VXLAN...)
    if isinstance(ip, IP):
        ip.ttl = 0
        ip.chksum = 0
        length = 14 + ip.len
    elif isinstance(ip, IPv6):
        ip.hlim = 0
        length = 14 + 40 + ip.plen
    else:
        length = None
    raw = bytes(p)
    return raw[:length] if length is not None else raw


def expect(recs, keys, window, mode, delays=None):
    """recs: records(); keys: their normalised frames. Appends to delays, when given,
    each duplicate's delay: t - T, or 0 when its reference time T is not older."""
    ref = {}  # normalised frame -> reference time
    kept = []
    for i, (t, _) in enumerate(recs):
        k = keys[i]
        dup = k in ref and t <= ref[k] + window
        if dup and delays is not None:
            delays.append(max(t - ref[k], 0))
        if mode == "seen":
            ref[k] = max(ref.get(k, t), t)
        elif not dup:
            ref[k] = t
        if not dup:
            kept.append(i)
    return kept


def indices_by_time(inp, out):
    where = {t: i for i, (t, _) in enumerate(records(inp))}
    return [where[t] for t, _ in records(out)]


def indices_by_bytes(inp, out):
    frames = [f for _, f in records(inp)]
    idx, j = [], 0
    for _, f in records(out):
        while frames[j] != f:
            j += 1
        idx.append(j)
        j += 1
    return idx


def write_normalised(path, recs, keys):
    """recs' timestamps with keys (their normalised frames) as a nanosecond pcap."""
    from scapy.utils import RawPcapWriter

    w = RawPcapWriter(path, linktype=1, nano=True, sync=True)
    w.write_header(None)
    for (t, _), k in zip(recs, keys):
        w.write_packet(k, sec=t // 10 ** 9, usec=t % 10 ** 9)
    w.close()


def main():
    cmd = sys.argv[1]
    if cmd == "normalise":
        recs = records(sys.argv[2])
        write_normalised(sys.argv[3], recs, [normalise(f) for _, f in recs])
    elif cmd == "indices-by-time":
        print("\n".join(map(str, indices_by_time(sys.argv[2], sys.argv[3]))))
    elif cmd == "indices-by-bytes":
        print("\n".join(map(str, indices_by_bytes(sys.argv[2], sys.argv[3]))))
    elif cmd == "indices":
        got = indices_by_bytes(sys.argv[2], sys.argv[3])
        try:
            same = indices_by_time(sys.argv[2], sys.argv[3]) == got
        except KeyError:  # a timestamp IN does not have
            same = False
        if not same:
            sys.exit("%s: the records' timestamps are not those of %s's frames" %
                     (sys.argv[3], sys.argv[2]))
        print("\n".join(map(str, got)))
    elif cmd == "delays":
        recs = records(sys.argv[2])
        delays = []
        expect(recs, [normalise(f) for _, f in recs], int(sys.argv[3]), sys.argv[4], delays)
        print("\n".join(map(str, delays)))
    elif cmd in ("expect", "expect-all"):
        recs = records(sys.argv[2])
        keys = [normalise(f) for _, f in recs]
        if cmd == "expect":
            if sys.argv[4] not in ("seen", "delivered"):
                sys.exit("mode: seen or delivered")
            print("\n".join(map(str, expect(recs, keys, int(sys.argv[3]), sys.argv[4]))))
        else:
            write_normalised(sys.argv[3] + ".norm.pcap", recs, keys)
        for w in sys.argv[4:] if cmd == "expect-all" else ():
            for mode in ("seen", "delivered"):
                name = "%s.%s.%s" % (sys.argv[3], mode, w)
                delays = []
                kept = expect(recs, keys, int(w), mode, delays)
                with open(name, "w") as fh:
                    fh.write("".join("%d\n" % i for i in kept))
                with open(name + ".delays", "w") as fh:
                    fh.write("".join("%d\n" % d for d in delays))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
