#!/usr/bin/env bash
# Replay loses nothing but copies, whatever the file, the worker count or a signal:
#  - 200,000 frames, 100,000 distinct: --workers 1, 2 and 4 write the same file, and with
#    --filter exact --window none --key packet it is editcap -D's, byte for byte; no frame
#    unaccounted;
#  - frames of 65,226 and 131,072 bytes (libpcap reads up to 262,144) are deduplicated
#    like any other, written whole;
#  - a damaged record after 3 good ones: status 1, exactly those 3 frames written; two
#    captures joined with cat (the second big-endian, nanosecond, or as the first): status
#    1 at the second header, the first's frames written and nothing of the header;
#  - timestamps after 2038 (2,147,483,653 s) are written as read;
#  - SIGINT or SIGHUP during a replay from a pipe: status 130 or 129, "interrupted", the
#    frames read so far written, the snapshot too, and a summary that says it; SIGUSR1:
#    the counter line, and the run goes on.
#  - a worker thread that cannot be made (a user id of its own, ulimit -u 2): status 1
#    with the reason and the fix, and no hang (the threads already made are sent back);
#  - a capture cut at a snap length (editcap -s 80): the packet key withholds the frames
#    cut inside their packet, said, and --unparseable drop keeps them; the flow key and
#    --compare-bytes 40 give the whole capture's verdicts; clicks that span segments or
#    share one are kept by --unparseable drop too.
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -z "${feeder:-}" ] || kill "$feeder" 2>/dev/null || true' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# pcap writer for the cases below (standard library; no code shared with pktdedup)
cat >"$tmp/mk.py" <<'PY'
import struct, sys

def hdr(snap=262144):
    return struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snap, 1)

def rec(frame, sec, usec=0, wire=None):
    return struct.pack("<IIII", sec, usec, len(frame), wire or len(frame)) + frame

def eth(ethertype, payload, i=0):
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0" + bytes([i & 255]) + struct.pack("!H", ethertype) + payload

def udp4(i, size):
    body = bytes((i * 7 + j) & 255 for j in range(size - 42))
    udp = struct.pack("!HHHH", 1024 + i, 53, 8 + len(body), 0) + body
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i & 0xffff, 0, 64, 17, 0,
                     bytes([10, 0, i >> 8 & 255, i & 255]), bytes([192, 0, 2, 1]))
    return eth(0x0800, ip + udp, i)

cmd, out = sys.argv[1], open(sys.argv[2], "wb")
out.write(hdr())
if cmd == "large":  # a GRO-sized UDP frame, a 128 KiB non-IP frame, a small one: each twice
    big = eth(0x88B5, bytes((j * 13) & 255 for j in range(131072 - 14)), 1)
    fr = [udp4(1, 65226), big, udp4(2, 64)]
    for t, f in enumerate(fr + fr):
        out.write(rec(f, 1700000000 + t))
elif cmd == "damaged":  # 3 good records, then one claiming 262145 bytes, then zeros
    for i in range(3):
        out.write(rec(udp4(i, 64), 1700000000 + i))
    out.write(struct.pack("<IIII", 1700000003, 0, 262145, 262145) + bytes(300000))
elif cmd == "joined":  # 3 frames, then another capture's header (argv[3]) and 3 more
    for i in range(3):
        out.write(rec(udp4(i, 64), 1700000000 + i))
    out.write(hdr() if sys.argv[3] == "same" else
              struct.pack(">IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
    for i in range(3, 6):
        out.write(rec(udp4(i, 64), 1700000000 + i) if sys.argv[3] == "same" else
                  struct.pack(">IIII", 1700000000 + i, 0, 64, 64) + udp4(i, 64))
elif cmd == "y2038":  # after 2^31 s, each frame twice
    for i in range(4):
        out.write(rec(udp4(i % 2, 64), 2147483653 + i, 1000 * i))
elif cmd == "stream":  # N distinct frames (argv[3])
    for i in range(int(sys.argv[3])):
        out.write(rec(udp4(i % 60000, 64)[:12] + struct.pack("!H", 0x88B5) +
                      struct.pack("!I", i) + bytes(46), 1700000000, i))
PY
mk() { /usr/bin/python3 "$tmp/mk.py" "$@"; }
ts_of() { # seconds of every record
	/usr/bin/python3 -c 'import struct,sys
d = open(sys.argv[1], "rb").read(); o = 24
while o + 16 <= len(d):
    s, u, c, l = struct.unpack("<IIII", d[o:o + 16]); print(s); o += 16 + c' "$1"
}
accounted() { # json file -> rx = tx + dropped, nothing else lost
	/usr/bin/python3 -c 'import json,sys
t = json.load(open(sys.argv[1]))["total"]
sys.exit(0 if t["rx"] == t["tx"] + t["dropped"] and t["tx_failed"] + t["dispatch_full"] == 0
         else 1)' "$1"
}

# 1. 200k frames with copies: any worker count, the same bytes; exact = editcap -D
/usr/bin/python3 "$root/scripts/gen_udp_pcap.py" "$tmp/many.pcap" 200000 --mirror 64 >/dev/null
# every copy comes 128 frames after its original: a window of 256 frames is exact
editcap -F pcap -D 256 "$tmp/many.pcap" "$tmp/editcap.pcap" >/dev/null 2>&1
for filter in exact qqhtd; do
	for w in 1 2 4; do
		"$bin" --pcap-in "$tmp/many.pcap" --pcap-out "$tmp/$filter-$w.pcap" --workers "$w" \
			--filter "$filter" --key packet --seed 7 --stats-json "$tmp/$filter-$w.json" \
			>/dev/null 2>&1 || fail "$filter --workers $w: status $?"
		accounted "$tmp/$filter-$w.json" || fail "$filter --workers $w: frames unaccounted"
		[ "$(json "$tmp/$filter-$w.json" rx)" -eq 200000 ] || fail "$filter --workers $w: rx"
		cmp -s "$tmp/$filter-1.pcap" "$tmp/$filter-$w.pcap" ||
			fail "$filter --workers $w: not the file one worker writes"
	done
	[ "$(json "$tmp/$filter-4.json" duplicate)" -eq 100000 ] ||
		fail "$filter: $(json "$tmp/$filter-4.json" duplicate) duplicates, want 100000"
done
cmp "$tmp/editcap.pcap" "$tmp/exact-1.pcap" || fail "exact: not editcap -D's file"
echo "ok: 200,000 frames: --workers 1, 2, 4 write the same file (exact and qqhtd)," \
	"100,000 duplicates, exact = editcap -D byte for byte"

# 2. large frames: keyed and deduplicated, written whole
mk large "$tmp/large.pcap"
rc=0
"$bin" --pcap-in "$tmp/large.pcap" --pcap-out "$tmp/large-out.pcap" --filter exact --window none \
	--key packet --stats-json "$tmp/large.json" >/dev/null 2>"$tmp/large.err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/large.err" >&2; fail "large frames: status $rc"; }
editcap -F pcap -D 100 "$tmp/large.pcap" "$tmp/large-editcap.pcap" >/dev/null 2>&1
cmp "$tmp/large-editcap.pcap" "$tmp/large-out.pcap" || fail "large frames: not editcap -D's file"
[ "$(json "$tmp/large.json" duplicate)" -eq 3 ] && [ "$(json "$tmp/large.json" unparseable)" -eq 0 ] ||
	fail "large frames: counts"
echo "ok: frames of 65,226 and 131,072 bytes deduplicated, output = editcap -D"

# 3. a damaged record: the frames before it, and nothing else
mk damaged "$tmp/bad.pcap"
rc=0
"$bin" --pcap-in "$tmp/bad.pcap" --pcap-out "$tmp/bad-out.pcap" --filter exact \
	--window none --key packet \
	>/dev/null 2>"$tmp/bad.err" || rc=$?
[ "$rc" -eq 1 ] || fail "damaged: status $rc, want 1"
grep -q "after 3 frames" "$tmp/bad.err" || { cat "$tmp/bad.err" >&2; fail "damaged: message"; }
[ "$($tool frames "$tmp/bad-out.pcap" | wc -l)" -eq 3 ] ||
	fail "damaged: $($tool frames "$tmp/bad-out.pcap" | wc -l) frames written, want 3"
[ "$(stat -c %s "$tmp/bad-out.pcap")" -eq $((24 + 3 * (16 + 64))) ] || fail "damaged: file size"
echo "ok: damaged record after 3 frames: status 1, exactly those 3 written"
for second in same swapped; do
	mk joined "$tmp/joined.pcap" $second
	rc=0
	"$bin" --pcap-in "$tmp/joined.pcap" --pcap-out "$tmp/joined-out.pcap" --action count \
		>/dev/null 2>"$tmp/joined.err" || rc=$?
	[ "$rc" -eq 1 ] || { cat "$tmp/joined.err" >&2; fail "joined ($second): status $rc, want 1"; }
	grep -q "a second pcap file header .* after 3 frames" "$tmp/joined.err" ||
		{ cat "$tmp/joined.err" >&2; fail "joined ($second): message"; }
	cmp -n $((24 + 3 * (16 + 64))) "$tmp/joined.pcap" "$tmp/joined-out.pcap" &&
		[ "$(stat -c %s "$tmp/joined-out.pcap")" -eq $((24 + 3 * (16 + 64))) ] ||
		fail "joined ($second): not the first capture's 3 frames alone"
done
echo "ok: two captures joined with cat: status 1 at the second header, the first's frames alone"

# 4. times after 2038
mk y2038 "$tmp/y2038.pcap"
"$bin" --pcap-in "$tmp/y2038.pcap" --pcap-out "$tmp/y2038-out.pcap" --filter exact \
	--window none --key packet \
	--action count >/dev/null 2>&1 || fail "y2038: status $?"
[ "$(ts_of "$tmp/y2038.pcap")" = "$(ts_of "$tmp/y2038-out.pcap")" ] ||
	fail "y2038: times $(ts_of "$tmp/y2038-out.pcap" | tr '\n' ' ')"
cmp "$tmp/y2038.pcap" "$tmp/y2038-out.pcap" || fail "y2038: --action count changed the file"
echo "ok: timestamps after 2038 written as read"

# 5. SIGINT or SIGHUP (a terminal that closes) while reading a pipe: 130 or 129, the
#    frames read so far written, the snapshot too, and said so; SIGINT with three workers
#    and the periodic snapshot's thread (the reader, the main thread, takes the signal)
mk stream "$tmp/stream.pcap" 3000
mkfifo "$tmp/fifo"
head -c $((24 + 1000 * (16 + 64))) "$tmp/stream.pcap" >"$tmp/part.pcap"
for sig in "INT:130:Interrupt:--workers 3 --snapshot-interval 3600s" HUP:129:Hangup:; do
	IFS=: read -r name want says more <<<"$sig"
	rm -f "$tmp/int.snap"
	# the feeder writes 1000 frames, then keeps the pipe open (no end of file); exec, so
	# that killing it ends the sleep, which would hold the test's output open for 30 s
	{ cat "$tmp/part.pcap"; exec sleep 30; } >"$tmp/fifo" &
	feeder=$!
	rc=0
	: >"$tmp/int.err" # no line of the signal before passes for this run's
	# SIGHUP at its default whatever this suite inherited (under nohup pktdedup keeps
	# an ignored hangup ignored)
	# shellcheck disable=SC2086
	env --default-signal=HUP "$bin" --pcap-in "$tmp/fifo" --pcap-out "$tmp/int-out.pcap" --filter exact \
		--window none --key packet \
		--snapshot "$tmp/int.snap" $more >"$tmp/int.out" 2>"$tmp/int.err" &
	pid=$!
	for _ in $(seq 100); do
		grep -q "replay of" "$tmp/int.err" && break
		sleep 0.1
	done
	sleep 0.5
	kill -"$name" "$pid"
	wait "$pid" || rc=$?
	kill "$feeder" 2>/dev/null || true
	feeder=
	[ "$rc" -eq "$want" ] || { cat "$tmp/int.err" >&2; fail "SIG$name: status $rc, want $want"; }
	grep -q "interrupted by $says after 1000 frames" "$tmp/int.err" ||
		{ cat "$tmp/int.err" >&2; fail "SIG$name: no 'interrupted' message"; }
	[ "$($tool frames "$tmp/int-out.pcap" | wc -l)" -eq 1000 ] || fail "SIG$name: frames written"
	grep -q "1000 packets" "$tmp/int.out" || fail "SIG$name: no summary"
	[ -s "$tmp/int.snap" ] || fail "SIG$name: no snapshot"
	echo "ok: SIG$name while reading a pipe${more:+ ($more)}: status $want, the 1000 frames" \
		"read written, the snapshot too, said so"
done
# SIGUSR1 asks for the counter line (as of tcpdump and dd) and stops nothing: sent while
# the reader waits on the pipe, the line comes with the next frames (here the end), and
# the run ends as any other (status 0, every frame written); it killed the run (138)
{ cat "$tmp/part.pcap"; exec sleep 30; } >"$tmp/fifo" &
feeder=$!
"$bin" --pcap-in "$tmp/fifo" --pcap-out "$tmp/usr1.pcap" --filter exact --window none >/dev/null \
	2>"$tmp/usr1.err" &
pid=$!
await_line "$tmp/usr1.err" "replay of" "$pid" || fail "SIGUSR1: the replay did not start"
sleep 0.5
kill -USR1 "$pid"
sleep 0.3
kill -0 "$pid" 2>/dev/null || fail "SIGUSR1 ended the replay"
kill "$feeder" 2>/dev/null || true
feeder=
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 0 ] && grep -q "^pktdedup: [0-9.]*s rx 1000 " "$tmp/usr1.err" &&
	[ "$($tool frames "$tmp/usr1.pcap" | wc -l)" -eq 1000 ] ||
	{ cat "$tmp/usr1.err" >&2; fail "SIGUSR1: status $rc, or no counter line"; }
echo "ok: SIGUSR1 while reading a pipe: the counter line (rx 1000), the run goes on to its" \
	"end, status 0"

# Linux cooked (SLL, SLL2), raw-IP and BSD loopback captures (pcap/dups.pcap rewritten by
# scapy): the same frames kept as from the Ethernet original, and the output keeps the
# input's link type (--action mark on them: below).
/usr/bin/python3 "$root/tests/link_types.py" "$in" "$tmp" strip-tags
"$bin" --pcap-in "$in" --pcap-out "$tmp/eth-out.pcap" --filter exact --window none --key packet \
	--stats-json "$tmp/eth.json" >/dev/null 2>&1 || fail "Ethernet replay"
for l in sll sll2; do
	"$bin" --pcap-in "$tmp/$l.pcap" --pcap-out "$tmp/$l-out.pcap" --filter exact --window none \
		--key packet --stats-json "$tmp/$l.json" >/dev/null 2>"$tmp/$l.err" ||
		{ cat "$tmp/$l.err" >&2; fail "$l replay"; }
	for k in rx tx duplicate unparseable; do
		[ "$(json "$tmp/$l.json" $k)" -eq "$(json "$tmp/eth.json" $k)" ] ||
			fail "$l: $k $(json "$tmp/$l.json" $k), Ethernet $(json "$tmp/eth.json" $k)"
	done
done
/usr/bin/python3 - "$tmp/eth-out.pcap" "$tmp/sll-out.pcap" "$tmp/sll2-out.pcap" <<'PY' ||
import struct, sys
lt = [struct.unpack("<I", open(p, "rb").read()[20:24])[0] for p in sys.argv[1:]]
sys.exit(0 if lt == [1, 113, 276] else 1)
PY
	fail "output link types"
# raw IP (the IP packets, tags stripped): the same copies dropped as among those frames
# from Ethernet
"$bin" --pcap-in "$tmp/raw.pcap" --pcap-out "$tmp/raw-out.pcap" --filter exact \
	--window none --key packet \
	--stats-json "$tmp/raw.json" >/dev/null 2>&1 || fail "raw replay"
# written as pcapng, its interface says LINKTYPE_RAW (101), not Linux's DLT_RAW (12), and
# capinfos reads the frames back as raw IP (issue 38 N9)
"$bin" --pcap-in "$tmp/raw.pcap" --pcap-out "$tmp/raw-out.pcapng" --out-format pcapng \
	--filter exact --window none --key packet >/dev/null 2>&1 || fail "raw replay to pcapng"
/usr/bin/python3 - "$tmp/raw-out.pcapng" <<'PY' || fail "raw to pcapng: the IDB's link type is not 101"
import struct, sys
b = open(sys.argv[1], "rb").read()
shb_len = struct.unpack("<I", b[4:8])[0]
assert struct.unpack("<I", b[shb_len:shb_len + 4])[0] == 1          # an IDB follows the SHB
sys.exit(0 if struct.unpack("<H", b[shb_len + 8:shb_len + 10])[0] == 101 else 1)
PY
capinfos -E "$tmp/raw-out.pcapng" | grep "Raw IP" >/dev/null || fail "raw to pcapng: capinfos does not read raw IP"
# the expected counts from pktdedup-keys' Ethernet keys of the same frames
keys_bin=$(dirname "$bin")/../keys/pktdedup-keys
"$keys_bin" --key packet "$in" >"$tmp/eth.keys"
want=$(/usr/bin/python3 - "$tmp/raw.idx" "$tmp/eth.keys" <<'PY'
import sys
idx = {int(x) for x in open(sys.argv[1])}
seen, dup, bad = set(), 0, 0
for line in open(sys.argv[2]):
    f = line.split()
    if int(f[0]) not in idx:
        continue
    if f[1] != "ok":
        bad += 1
    elif f[2] in seen:
        dup += 1
    else:
        seen.add(f[2])
print(len(idx), dup, bad)
PY
)
got="$(json "$tmp/raw.json" rx) $(json "$tmp/raw.json" duplicate) $(json "$tmp/raw.json" unparseable)"
[ "$got" = "$want" ] || fail "raw: rx duplicate unparseable $got, want $want"
# --action mark on every link type: the SLL and SLL2 runs write the Ethernet run's frames
# byte for byte behind their own link headers, marks included; the raw-IP run marks
# exactly its copies, each changed only in its DSCP (46) and IPv4 checksum
mark=(--action mark --mark-dscp 46 --filter exact --window none --key packet)
"$bin" --pcap-in "$in" --pcap-out "$tmp/eth-m.pcap" "${mark[@]}" \
	--stats-json "$tmp/eth-m.json" >/dev/null 2>&1 || fail "Ethernet mark"
for l in sll sll2 raw null loop; do
	"$bin" --pcap-in "$tmp/$l.pcap" --pcap-out "$tmp/$l-m.pcap" "${mark[@]}" \
		--stats-json "$tmp/$l-m.json" >/dev/null 2>"$tmp/$l-m.err" ||
		{ cat "$tmp/$l-m.err" >&2; fail "--action mark on $l"; }
done
[ "$(json "$tmp/sll-m.json" marked)" -eq "$(json "$tmp/eth-m.json" marked)" ] &&
	[ "$(json "$tmp/eth-m.json" marked)" -gt 100 ] || fail "SLL: marked count"
/usr/bin/python3 - "$tmp" <<'PY' || fail "--action mark on SLL, SLL2, raw IP and BSD loopback"
import json, struct, sys
from scapy.all import RawPcapReader
d = sys.argv[1]
rec = lambda n: [b for b, _ in RawPcapReader("%s/%s" % (d, n))]
eth = rec("eth-m.pcap")
for name, hdr in (("sll", 16), ("sll2", 20)):
    got = rec(name + "-m.pcap")
    assert [g[hdr:] for g in got] == [e[14:] for e in eth], name
raw_in, raw_out = rec("raw.pcap"), rec("raw-m.pcap")
t = json.load(open(d + "/raw-m.json"))["total"]
assert len(raw_in) == len(raw_out) and t["marked"] == t["duplicate"] > 50, t
changed = 0
for a, b in zip(raw_in, raw_out):
    if a == b:
        continue
    changed += 1
    if b[0] >> 4 == 4:
        assert b[1] >> 2 == 46 and b[1] & 3 == a[1] & 3
        ihl = (b[0] & 15) * 4
        s = sum(struct.unpack("!%dH" % (ihl // 2), b[:ihl]))
        while s >> 16:
            s = (s & 0xffff) + (s >> 16)
        assert s == 0xffff and a[2:10] == b[2:10] and a[12:] == b[12:]
    else:
        assert ((b[0] & 15) << 2 | b[1] >> 6) == 46 and a[2:] == b[2:]
assert changed == t["marked"], (changed, t)
# BSD loopback (NULL, LOOP): raw IP's frames and marks behind their own 4-byte header, in
# their own link type (pcap header: 0, 108)
for name, lt in (("null", 0), ("loop", 108)):
    got, orig = rec(name + "-m.pcap"), rec(name + ".pcap")
    assert [g[4:] for g in got] == raw_out and [g[:4] for g in got] == [o[:4] for o in orig]
    assert struct.unpack("<I", open("%s/%s-m.pcap" % (d, name), "rb").read()[20:24])[0] == lt
PY
echo "ok: SLL and SLL2 replays keep (and mark) the Ethernet replay's frames, in their link type;" \
	"raw IP keys its $(wc -l <"$tmp/raw.idx") IP frames and marks exactly its copies; BSD" \
	"loopback (NULL, LOOP) does what raw IP does, behind its header"

# 6. a worker thread the system refuses: as a user id no account and no other process has
#    (ulimit -u counts a user's processes, and app_options, which may run beside this test,
#    runs as nobody), with ulimit -u 2 (the main thread and one more), --workers 3 stops at
#    worker 2 with status 1, the reason and the fix, within 30 s. Where that user cannot
#    run the build (a private home), it is not checked.
uid=61000
while getent passwd "$uid" >/dev/null || [ "$(ps -u "$uid" --no-headers | wc -l)" -ne 0 ]; do
	uid=$((uid + 1))
done
if [ "$(id -u)" -eq 0 ] &&
	setpriv --reuid="$uid" --regid="$uid" --clear-groups "$bin" --version >/dev/null 2>&1; then
	mkdir "$tmp/other"
	chmod 777 "$tmp" "$tmp/other"
	cp "$root/pcap/dups.pcap" "$tmp/other/"
	rc=0
	# shellcheck disable=SC2016
	timeout -s KILL 30 setpriv --reuid="$uid" --regid="$uid" --clear-groups bash -c \
		'ulimit -u 2 && exec "$0" --pcap-in "$1/dups.pcap" --pcap-out "$1/o.pcap" \
		--workers 3 --memory 1M' "$bin" "$tmp/other" >/dev/null 2>"$tmp/thr.err" || rc=$?
	[ "$rc" -eq 1 ] && grep -q "cannot start worker 2: .*ulimit -u: raise it or give fewer --workers" \
		"$tmp/thr.err" || { cat "$tmp/thr.err" >&2; fail "a thread refused: status $rc"; }
	echo "ok: a worker thread refused (uid $uid, ulimit -u 2, --workers 3): status 1, the" \
		"reason and the fix"
else
	echo "note: a refused thread not checked (not root, or uid $uid cannot run $bin here)"
fi

# 7. a capture cut at a snap length (editcap -s 80 of the fixture: the frames keep 80
#    bytes and their original lengths). The packet key needs the bytes cut: frames cut
#    inside their packet pass unchecked, said, the others go as the generator says
#    (pcap_tool.py expect-snap). The flow key needs headers alone: the whole capture's
#    verdicts. --compare-bytes 40 needs 40 bytes from L3, which every frame holds: the
#    whole capture's verdicts too (its output cut by editcap).
editcap -F pcap -s 80 "$in" "$tmp/s80.pcap"
"$bin" --pcap-in "$tmp/s80.pcap" --pcap-out "$tmp/s80.out.pcap" --workers 2 --window none \
	--stats-json "$tmp/s80.json" >/dev/null 2>"$tmp/s80.err" || fail "snap 80: status $?"
$tool expect-snap "$in" "$exp" packet 80 >"$tmp/want.txt"
$tool frames "$tmp/s80.out.pcap" | cmp -s - "$tmp/want.txt" ||
	fail "snap 80, packet key: not the frames expected"
cut=$(/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["total"]["unparseable_reasons"]["truncated"])' "$tmp/s80.json")
incut=$($tool count-cut "$in" 80)
grep -q "frames are shorter than their packets (a snap length cut them; the first holds 80 of" \
	"$tmp/s80.err" && grep -q "the packet key needs bytes cut from $incut: those passed unchecked" \
	"$tmp/s80.err" || { cat "$tmp/s80.err" >&2; fail "snap 80: no warning of the frames cut"; }
$tool expect-drop "$in" "$exp" flow | cut -c1-160 >"$tmp/want.txt"
"$bin" --pcap-in "$tmp/s80.pcap" --pcap-out "$tmp/s80.flow.pcap" --key flow >/dev/null \
	2>"$tmp/s80.err"
$tool frames "$tmp/s80.flow.pcap" | cmp -s - "$tmp/want.txt" ||
	fail "snap 80, flow key: not the whole capture's verdicts"
! grep -q "shorter than their packets" "$tmp/s80.err" || fail "snap 80, flow key: warned"
# --unparseable drop drops the frames without a key for what they are, not those cut
"$bin" --pcap-in "$tmp/s80.pcap" --pcap-out "$tmp/s80.drop.pcap" --unparseable drop --window none \
	>/dev/null 2>&1 || fail "snap 80, --unparseable drop: status $?"
$tool expect-snap "$in" "$exp" packet 80 drop >"$tmp/want.txt"
$tool frames "$tmp/s80.drop.pcap" | cmp -s - "$tmp/want.txt" ||
	fail "snap 80, --unparseable drop: not the frames expected"
# nor clicks split over segments, several in one, or cut: pcap/keys.pcap, its frames
# as the generator keys them (pcap_tool.py expect-keep)
"$bin" --pcap-in "$root/pcap/keys.pcap" --pcap-out "$tmp/clicks.pcap" --key click \
	--filter exact --window none --unparseable drop >/dev/null 2>&1 || fail "clicks: status $?"
$tool expect-keep "$root/pcap/keys.pcap" "$root/pcap/keys.click.txt" >"$tmp/want.txt"
$tool frames "$tmp/clicks.pcap" | cmp -s - "$tmp/want.txt" ||
	fail "--key click --unparseable drop: not the clicks expected"
"$bin" --pcap-in "$in" --pcap-out "$tmp/w40.pcap" --compare-bytes 40 2>/dev/null
"$bin" --pcap-in "$tmp/s80.pcap" --pcap-out "$tmp/s40.pcap" --compare-bytes 40 2>/dev/null
$tool frames "$tmp/w40.pcap" | cut -c1-160 >"$tmp/want.txt"
$tool frames "$tmp/s40.pcap" | cmp -s - "$tmp/want.txt" ||
	fail "snap 80, --compare-bytes 40: not the whole capture's verdicts"
echo "ok: a capture cut at 80 bytes: no packet key for the $incut frames cut in their packet" \
	"($cut truncated in all), said, and kept with --unparseable drop; the flow key and --compare-bytes" \
	"40 give the whole capture's verdicts; clicks split, several or cut kept too"
