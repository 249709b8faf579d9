#!/usr/bin/env bash
# The scale-out design of docs/scale-out.md, simulated on pcap/dups.pcap (timestamps made
# distinct, 1 us apart, so that merging by time is exact): a switch hashes each frame's
# fields (crc32 of pktdedup-keys' key for those fields) to one of N boxes, each box
# deduplicates its share alone (pktdedup --filter exact), the outputs are merged by
# timestamp. Checks:
#  - packet keys, the switch hashing the 5-tuple (the flow key's fields, a subset of the
#    packet key's): the merge is the one-process output, frame for frame, for N = 2, 3, 5;
#  - a box fails (its share passes undeduplicated): every frame of the one-process
#    output is still there (nothing unique lost), only copies are added;
#  - srcip keys on 2,000 UDP frames from 20 senders, 97 source ports each: with a
#    5-tuple hash one sender's packets reach several boxes and its repeats pass (the
#    merge differs); with the source address alone as the hash (a subset of the key's
#    fields) the merge is the one-process output again.
# Usage: e2e_scaleout.sh PKTDEDUP PKTDEDUP-KEYS
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
keys=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

/usr/bin/python3 - "$in" "$tmp/in.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
magic = struct.unpack("<I", d[:4])[0]
assert magic == 0xa1b2c3d4, hex(magic)  # microsecond pcap, little-endian
out, o, i = [d[:24]], 24, 0
while o + 16 <= len(d):
    _, _, c, l = struct.unpack("<IIII", d[o:o + 16])
    out.append(struct.pack("<IIII", i // 1000000, i % 1000000, c, l) + d[o + 16:o + 16 + c])
    o, i = o + 16 + c, i + 1
open(sys.argv[2], "wb").write(b"".join(out))
PY

dedup() { # in out key
	"$bin" --pcap-in "$1" --pcap-out "$2" --filter exact --key "$3" --quiet
}

# split IN into N shard files by crc32 of each frame's HASHMODE key (frames without one:
# box 0); with FAIL=k the output of box k is its input (a failed box passes everything)
simulate() { # n hashmode dedupkey out
	"$keys" --key "$2" "$tmp/in.pcap" >"$tmp/keys.txt"
	/usr/bin/python3 - "$tmp/in.pcap" "$tmp/keys.txt" "$1" "$tmp/shard" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
n = int(sys.argv[3])
box = {}
for line in open(sys.argv[2]):
    f = line.split()
    box[int(f[0])] = zlib.crc32(bytes.fromhex(f[2])) % n if f[1] == "ok" else 0
shards = [[d[:24]] for _ in range(n)]
o, i = 24, 0
while o + 16 <= len(d):
    c = struct.unpack("<I", d[o + 8:o + 12])[0]
    shards[box[i]].append(d[o:o + 16 + c])
    o, i = o + 16 + c, i + 1
for k, s in enumerate(shards):
    open("%s%d.pcap" % (sys.argv[4], k), "wb").write(b"".join(s))
PY
	for k in $(seq 0 $(($1 - 1))); do
		if [ "${FAIL:-x}" = "$k" ]; then
			cp "$tmp/shard$k.pcap" "$tmp/out$k.pcap"
		else
			dedup "$tmp/shard$k.pcap" "$tmp/out$k.pcap" "$3"
		fi
	done
	/usr/bin/python3 - "$4" "$tmp"/out*.pcap <<'PY'
import heapq, struct, sys
def frames(path):
    d = open(path, "rb").read()
    o = 24
    while o + 16 <= len(d):
        s, u, c, _ = struct.unpack("<IIII", d[o:o + 16])
        yield (s, u), d[o:o + 16 + c]
        o += 16 + c
head = open(sys.argv[2], "rb").read()[:24]
merged = heapq.merge(*[frames(p) for p in sys.argv[2:]], key=lambda f: f[0])
open(sys.argv[1], "wb").write(head + b"".join(f for _, f in merged))
PY
	rm -f "$tmp"/out*.pcap "$tmp"/shard*.pcap
}

n=$($tool frames "$tmp/in.pcap" | wc -l)
dedup "$tmp/in.pcap" "$tmp/one.pcap" packet
for boxes in 2 3 5; do
	simulate "$boxes" flow packet "$tmp/merged.pcap"
	cmp -s "$tmp/one.pcap" "$tmp/merged.pcap" ||
		{ echo "FAIL: $boxes boxes: the merge is not the one-process output" >&2; exit 1; }
done
echo "ok: packet keys, switch hashing the 5-tuple: 2, 3 and 5 boxes merged = one process" \
	"($($tool frames "$tmp/one.pcap" | wc -l) of $n frames)"

FAIL=1 simulate 3 flow packet "$tmp/failed.pcap"
/usr/bin/python3 - "$tmp/one.pcap" "$tmp/failed.pcap" <<'PY'
import struct, sys
def frames(path):
    d = open(path, "rb").read()
    o, out = 24, []
    while o + 16 <= len(d):
        c = struct.unpack("<I", d[o + 8:o + 12])[0]
        out.append(d[o:o + 16 + c])
        o += 16 + c
    return out
one, failed = frames(sys.argv[1]), frames(sys.argv[2])
missing = set(one) - set(failed)
assert not missing, "%d unique frames lost" % len(missing)
print("ok: box 1 of 3 failed: all %d frames of the one-process output kept, %d copies "
      "passed" % (len(one), len(failed) - len(one)))
PY

/usr/bin/python3 - "$tmp/in.pcap" <<'PY'
import struct, sys
out = [struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)]
for i in range(2000):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + 8, i, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1 + i % 20]), b"\xc0\0\x02\x01")
    frame = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + \
        struct.pack("!HHHHQ", 1000 + i % 97, 53, 16, 0, i)
    out.append(struct.pack("<IIII", 0, i, len(frame), len(frame)) + frame)
open(sys.argv[1], "wb").write(b"".join(out))
PY
dedup "$tmp/in.pcap" "$tmp/one-src.pcap" srcip
simulate 3 flow srcip "$tmp/src-5tuple.pcap"
! cmp -s "$tmp/one-src.pcap" "$tmp/src-5tuple.pcap" ||
	{ echo "FAIL: srcip keys with a 5-tuple hash should let copies through" >&2; exit 1; }
simulate 3 srcip srcip "$tmp/src-src.pcap"
cmp -s "$tmp/one-src.pcap" "$tmp/src-src.pcap" ||
	{ echo "FAIL: srcip keys, switch hashing the source: not the one-process output" >&2; exit 1; }
echo "ok: srcip keys: a 5-tuple hash lets $(($($tool frames "$tmp/src-5tuple.pcap" | wc -l) -
	$($tool frames "$tmp/one-src.pcap" | wc -l))) copies through; hashing the source alone" \
	"gives the one-process output"
