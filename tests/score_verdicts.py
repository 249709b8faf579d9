#!/usr/bin/python3
"""Independent scorer: exact truth from a raw uint64 key file and FP/FN of a verdict file.

usage: score_verdicts.py KEYS VERDICTS [WINDOW [seen|delivered]]
    -> prints {n, distinct, fp, fn}

With WINDOW, key i (time i + 1) is a true duplicate iff the same key occurred at a time t
with now - t <= WINDOW ("seen" semantics, the specification's common model); in delivered mode
iff the filter under test delivered it (verdict 0) at such a t (seed 002, Definition 4).
"""
import json
import struct
import sys


def main():
    keys_path, verdicts_path = sys.argv[1], sys.argv[2]
    window = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    delivered = len(sys.argv) > 4 and sys.argv[4] == "delivered"
    with open(keys_path, "rb") as f:
        raw = f.read()
    with open(verdicts_path, "rb") as f:
        verdicts = f.read()
    n = len(raw) // 8
    if len(verdicts) != n:
        sys.exit("verdicts: %d bytes for %d keys" % (len(verdicts), n))
    last = {}
    distinct = fp = fn = 0
    for i, (key,) in enumerate(struct.iter_unpack("<Q", raw)):
        now = i + 1
        dup = key in last and (window == 0 or now - last[key] <= window)
        v = verdicts[i]
        if not delivered or v == 0:
            last[key] = now
        if v not in (0, 1):
            sys.exit("verdict %d at %d is not 0 or 1" % (v, i))
        if not dup:
            distinct += 1
            fp += v == 1
        else:
            fn += v == 0
    print(json.dumps({"n": n, "distinct": distinct, "fp": fp, "fn": fn}))


if __name__ == "__main__":
    main()
