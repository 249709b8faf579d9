#!/usr/bin/env bash
# A pcapng whose interfaces differ in link type and snap length (Ethernet, raw IP and
# IEEE 802.11; 65535, 96, none; two sections, simple packet blocks, either byte order,
# the 802.11 interface last or first; tests/mixed_links.py writes it and its oracle) is
# read to its end:
#  - --pcap-out and --dup-out are the oracle's files byte for byte: a packet seen on
#    Ethernet and again through the raw-IP interface is a copy; the 802.11 frames pass
#    without a verdict (bypassed), said; with 2 workers and the default filter too;
#  - --bpf is compiled for each link type ('udp': the same files; 'not udp': the input);
#  - a pcap output takes one link type: status 1 at the first frame of another, said,
#    and the file holds exactly the frames counted forwarded;
#  - from the Ethernet interfaces alone (snap lengths 65535 and none), a pcap file's
#    header snap length is raised to the longest frame (70,000 bytes), which readers
#    would cut otherwise; to a pipe, where the header has gone, such a frame stops the
#    run (status 1, said).
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
count() { capinfos -c -M "$1" | awk '/^Number of packets/ { print $NF }'; }

for order in little big radio-first; do
	d=$tmp/$order
	mkdir -p "$d"
	/usr/bin/python3 "$root/tests/mixed_links.py" "$d" "$order"
	for run in "--filter exact" "--workers 2 --quiet"; do # warnings even with --quiet
		rc=0
		# shellcheck disable=SC2086 # $run: options
		"$bin" --pcap-in "$d/in.pcapng" $run --pcap-out "$d/out.pcapng" \
			--dup-out "$d/d.pcapng" --stats-json "$d/s.json" >/dev/null 2>"$d/err" || rc=$?
		[ "$rc" -eq 0 ] || { cat "$d/err" >&2; fail "$order $run: status $rc"; }
		cmp -s "$d/out.pcapng" "$d/kept.pcapng" || fail "$order $run: --pcap-out differs"
		cmp -s "$d/d.pcapng" "$d/dups.pcapng" || fail "$order $run: --dup-out differs"
		grep -q "6 frames of pcapng interfaces whose link type the keys do not take" \
			"$d/err" || { cat "$d/err" >&2; fail "$order $run: 802.11 frames not said"; }
		[ "$order" != radio-first ] || grep -q "its first interface is of link type" \
			"$d/err" || { cat "$d/err" >&2; fail "radio-first: not said at start"; }
		[ "$(json "$d/s.json" rx)" -eq 89 ] && [ "$(json "$d/s.json" bypassed)" -eq 6 ] ||
			fail "$order $run: rx or bypassed"
	done
done
echo "ok: four link types and snap lengths, two sections, both byte orders, the 802.11" \
	"interface first or last: the outputs are the oracle's; 6 radio frames bypassed, said"

# pktdedup-keys reads them with the same reader: its counts are the oracle's, gzip'd too
keys_bin=$(dirname "$bin")/../keys/pktdedup-keys
for order in little big radio-first; do
	d=$tmp/$order
	gzip -c "$d/in.pcapng" >"$d/in.pcapng.gz"
	for f in in.pcapng in.pcapng.gz; do
		"$keys_bin" --summary "$d/$f" | grep -v "^keys " | cmp -s - "$d/keys-summary.txt" ||
			{ "$keys_bin" --summary "$d/$f" >&2; fail "pktdedup-keys $order $f"; }
	done
done
# simple packet blocks: each frame is as long as the pcap's record says (62 at most, the
# interface's snap length, whatever the block's padding), in both byte orders: the whole
# packets' keys, and the first 64 bytes of the packets cut at 62 (their padding is no
# part of them: no key)
for order in little big; do
	d=$tmp/$order
	for opts in "--key packet" "--key packet --compare-bytes 64"; do
		# shellcheck disable=SC2086
		"$keys_bin" $opts "$d/spb.pcapng" | cmp -s - <("$keys_bin" $opts "$d/spb.pcap") ||
			fail "pktdedup-keys $opts, $order spb.pcapng: other keys than its frames' as a pcap"
	done
done
echo "ok: pktdedup-keys on the three files, plain and gzip'd: frames, distinct keys and" \
	"link-type frames as the oracle counts them; simple packet blocks' frames as a pcap's"

# through a pipe that pauses inside every interface and simple packet block's patched
# fields (so that the reads split them): patched byte by byte all the same
d=$tmp/big
rc=0
/usr/bin/python3 -c 'import os, struct, sys, time
d = open(sys.argv[1], "rb").read()
cuts, off = [], 0
while off < len(d):
    t, n = struct.unpack_from(">II", d, off)
    if t == 1:
        cuts += [off + 9, off + 13]  # inside the link type, inside the snap length
    elif t == 3:
        cuts.append(off + 10)        # inside the length
    off += n
last = 0
for c in cuts + [len(d)]:
    os.write(1, d[last:c])
    last = c
    time.sleep(0.02)' "$d/in.pcapng" |
	"$bin" --pcap-in - --filter exact --pcap-out "$d/trickle.pcapng" --quiet 2>"$d/err" ||
	rc=$?
[ "$rc" -eq 0 ] && cmp -s "$d/trickle.pcapng" "$d/kept.pcapng" ||
	{ cat "$d/err" >&2; fail "split blocks: status $rc, or --pcap-out differs"; }
gzip -c "$d/in.pcapng" >"$d/in.pcapng.gz"
"$bin" --pcap-in "$d/in.pcapng.gz" --filter exact --pcap-out "$d/gz.pcapng" --quiet 2>/dev/null
cmp -s "$d/gz.pcapng" "$d/kept.pcapng" || fail "gzip'd: --pcap-out differs"
echo "ok: the big-endian file through a pipe that splits each patched field, and gzip'd:" \
	"the same output"

d=$tmp/little
"$bin" --pcap-in "$d/in.pcapng" --filter exact --bpf udp --pcap-out "$d/b.pcapng" --quiet \
	2>/dev/null
cmp -s "$d/b.pcapng" "$d/kept.pcapng" || fail "--bpf udp: differs from the run without"
"$bin" --pcap-in "$d/in.pcapng" --filter exact --bpf 'not udp' --pcap-out "$d/b.pcapng" \
	--quiet 2>/dev/null
cmp -s "$d/b.pcapng" "$d/in.pcapng" || fail "--bpf 'not udp': not the input"
# an expression raw IP cannot take: the raw-IP frames pass unchecked, said at the end
"$bin" --pcap-in "$d/in.pcapng" --filter exact --bpf 'ether dst 02:00:00:00:00:01' \
	--pcap-out "$d/b.pcapng" --quiet 2>"$d/err"
cmp -s "$d/b.pcapng" "$d/kept-ether.pcapng" &&
	grep -q "does not compile for link type RAW .*: the frames of that link type passed" "$d/err" ||
	{ cat "$d/err" >&2; fail "--bpf 'ether dst ...': not the Ethernet frames deduplicated alone"; }
echo "ok: --bpf compiled for each link type ('udp': the same files; 'not udp': the input;" \
	"'ether dst': the Ethernet frames alone deduplicated, raw IP unchecked and said)"

rc=0
"$bin" --pcap-in "$d/in.pcapng" --filter exact --pcap-out "$d/o.pcap" --stats-json "$d/p.json" \
	>/dev/null 2>"$d/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "a frame of link type IEEE802_11 (pcapng interface 3) does not go" \
	"$d/err" || { cat "$d/err" >&2; fail "pcap output of several link types: status $rc"; }
[ "$(count "$d/o.pcap")" -eq "$(json "$d/p.json" tx)" ] && [ "$(json "$d/p.json" tx)" -ge 1 ] ||
	fail "the pcap holds $(count "$d/o.pcap") frames, $(json "$d/p.json" tx) counted"
/usr/bin/python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["accounted"] is not True)' \
	"$d/p.json" || fail "pcap output: not accounted"
echo "ok: a pcap output refuses a frame of a second link type: status 1, said; the file" \
	"holds the $(json "$d/p.json" tx) frame(s) counted forwarded"

"$bin" --pcap-in "$d/eth.pcapng" --filter exact --pcap-out "$d/eth.pcap" --quiet 2>/dev/null
/usr/bin/python3 - "$d/eth.pcapng" "$d/eth.pcap" "$d/eth-kept.txt" <<'PY'
import struct, sys
ng, pc, kept = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read(), sys.argv[3]
frames, off = [], 0
while off < len(ng):
    t, n = struct.unpack_from("<II", ng, off)
    if t == 6:
        cap, wire = struct.unpack_from("<II", ng, off + 20)
        frames.append((cap, wire, ng[off + 28:off + 28 + cap]))
    off += n
want = [frames[int(i)] for i in open(kept)]
magic, _, _, _, _, snap, link = struct.unpack_from("<IHHiIII", pc, 0)
got, off = [], 24
while off < len(pc):
    _, _, cap, wire = struct.unpack_from("<IIII", pc, off)
    got.append((cap, wire, pc[off + 16:off + 16 + cap]))
    off += 16 + cap
assert link == 1, link
assert snap == 70000 == max(c for c, _, _ in got), (snap, max(c for c, _, _ in got))
assert got == want, (len(got), len(want))
PY
{ rc=0; "$bin" --pcap-in "$d/eth.pcapng" --filter exact --out-format pcap --pcap-out - \
	--stats-json "$d/q.json" 2>"$d/err" || rc=$?; echo "$rc" >"$d/rc"; } | cat >"$d/pipe.pcap"
rc=$(cat "$d/rc")
[ "$rc" -eq 1 ] && grep -q "a frame of 70000 bytes (pcapng interface 1) is past the snap length" \
	"$d/err" || { cat "$d/err" >&2; fail "a long frame to a pipe: status $rc"; }
[ "$(count "$d/pipe.pcap")" -eq "$(json "$d/q.json" tx)" ] ||
	fail "the pipe has $(count "$d/pipe.pcap") frames, $(json "$d/q.json" tx) counted"
echo "ok: Ethernet interfaces of snap lengths 65535 and none to pcap: header raised to" \
	"70000, every kept frame whole; to a pipe the long frame stops the run (status 1)"
