#!/usr/bin/env bash
# pktdedup --snapshot, end to end through net_pcap on pcap/dups.pcap:
#  - the file split in two halves (editcap -r), a restart with the snapshot between
#    them: the two outputs together are the whole file minus the generator's
#    duplicates, so the second half's copies of first-half packets were caught;
#  - the snapshot file is mode 0600;
#  - a truncated, a corrupted, a non-snapshot file, and snapshots made with another
#    worker count, key, seed or filter size: refused with a message saying which,
#    status 3, the file left as it was (a file that is no snapshot at all, a capture,
#    even with --snapshot-policy fresh); with --snapshot-policy fresh: status 0 and the
#    output of a run without a snapshot;
#  - --snapshot-interval writes snapshots while running (looping net_pcap), reports the
#    longest copy step, and the result loads.
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=$($tool frames "$in" | wc -l)
half=$((n / 2))
editcap -F pcap -r "$in" "$tmp/a.pcap" "1-$half"
editcap -F pcap -r "$in" "$tmp/b.pcap" "$((half + 1))-$n"
run() { "$bin" --filter exact --key packet --window none "$@"; }

# 1. two halves with a restart between them = the whole file
run --pcap-in "$tmp/a.pcap" --pcap-out "$tmp/ao.pcap" --snapshot "$tmp/s.snap" \
	--stats-json "$tmp/a.json" >/dev/null 2>"$tmp/a.err"
grep -q "does not exist yet" "$tmp/a.err"
grep -q "written" "$tmp/a.err"
[ "$(stat -c %a "$tmp/s.snap")" = 600 ] || { echo "FAIL: snapshot mode $(stat -c %a "$tmp/s.snap")" >&2; exit 1; }
cp "$tmp/s.snap" "$tmp/s.orig"
run --pcap-in "$tmp/b.pcap" --pcap-out "$tmp/bo.pcap" --snapshot "$tmp/s.snap" \
	--stats-json "$tmp/b.json" >/dev/null 2>"$tmp/b.err"
grep -q "loaded: 1 worker" "$tmp/b.err" || { cat "$tmp/b.err" >&2; exit 1; }
{ $tool frames "$tmp/ao.pcap"; $tool frames "$tmp/bo.pcap"; } >"$tmp/got.txt"
$tool expect-drop "$in" "$exp" packet >"$tmp/want.txt"
diff -q "$tmp/want.txt" "$tmp/got.txt" >/dev/null ||
	{ echo "FAIL: halves with a snapshot != whole file minus duplicates" >&2; exit 1; }
run --pcap-in "$tmp/b.pcap" --pcap-out "$tmp/fresh.pcap" --stats-json "$tmp/f.json" \
	>/dev/null 2>&1
dup_b=$(json "$tmp/b.json" duplicate)
dup_f=$(json "$tmp/f.json" duplicate)
total=$(($(json "$tmp/a.json" duplicate) + dup_b))
read -r want_dups _ _ <<<"$($tool count "$exp" packet)"
[ "$total" -eq "$want_dups" ] && [ "$dup_b" -gt "$dup_f" ] ||
	{ echo "FAIL: duplicates $total (want $want_dups), second half $dup_b vs $dup_f fresh" >&2; exit 1; }
echo "ok: halves with a snapshot = whole file: $total duplicates; the second half" \
	"caught $((dup_b - dup_f)) copies of first-half packets"

# 2. unusable snapshots: refused (status 3, file untouched), or fresh on request
refused() { # name "expected words" [options...]
	local name=$1 words=$2 rc=0 out=(--pcap-out "$tmp/r.pcap")
	shift 2
	[ "${NOOUT:-}" = 1 ] && out=() # several workers: no output file (order)
	cp "$tmp/bad.snap" "$tmp/bad.before"
	run --pcap-in "$tmp/b.pcap" "${out[@]}" --snapshot "$tmp/bad.snap" "$@" \
		>/dev/null 2>"$tmp/r.err" || rc=$?
	[ "$rc" -eq 3 ] || { echo "FAIL: $name: status $rc, want 3" >&2; cat "$tmp/r.err" >&2; exit 1; }
	grep -q "refused: .*$words" "$tmp/r.err" ||
		{ echo "FAIL: $name: message lacks '$words':" >&2; cat "$tmp/r.err" >&2; exit 1; }
	cmp -s "$tmp/bad.snap" "$tmp/bad.before" || { echo "FAIL: $name: file changed" >&2; exit 1; }
	rc=0
	run --pcap-in "$tmp/b.pcap" "${out[@]}" --snapshot "$tmp/bad.snap" \
		--snapshot-policy fresh --seed 7 "$@" >/dev/null 2>"$tmp/fr.err" || rc=$?
	if [ "${FOREIGN:-}" = 1 ]; then # not a snapshot at all: fresh leaves it alone too
		[ "$rc" -eq 3 ] && grep -q "not over a file of another kind" "$tmp/fr.err" &&
			cmp -s "$tmp/bad.snap" "$tmp/bad.before" ||
			{ echo "FAIL: $name: fresh policy (status $rc)" >&2; cat "$tmp/fr.err" >&2; exit 1; }
		echo "ok: $name: refused, with --snapshot-policy fresh too, the file left alone"
		return
	fi
	[ "$rc" -eq 0 ] && grep -q "starting with empty filters" "$tmp/fr.err" ||
		{ echo "FAIL: $name: fresh policy (status $rc)" >&2; cat "$tmp/fr.err" >&2; exit 1; }
	if [ ${#out[@]} -ne 0 ]; then
		run --pcap-in "$tmp/b.pcap" --pcap-out "$tmp/ref.pcap" --seed 7 "$@" >/dev/null 2>&1
		[ "$($tool frames "$tmp/r.pcap")" = "$($tool frames "$tmp/ref.pcap")" ] ||
			{ echo "FAIL: $name: fresh output differs from a run without snapshot" >&2; exit 1; }
	fi
	echo "ok: $name: refused ($(sed -n 's/.*refused: //p' "$tmp/r.err" | head -1))"
}
size=$(stat -c %s "$tmp/s.orig")
head -c $((size / 2)) "$tmp/s.orig" >"$tmp/bad.snap"
refused truncated "truncated: $((size / 2)) of $size bytes"
cp "$tmp/s.orig" "$tmp/bad.snap"
# flip every bit of one byte (writing a fixed value left the file as it was whenever
# the byte already held it: 1 run in 256 passed a corrupted file as good)
byte=$(od -An -tu1 -j $((size - 100)) -N 1 "$tmp/bad.snap" | tr -d ' ')
printf "\\x$(printf %02x $((byte ^ 255)))" |
	dd of="$tmp/bad.snap" bs=1 seek=$((size - 100)) conv=notrunc status=none
cmp -s "$tmp/bad.snap" "$tmp/s.orig" && { echo "FAIL: the corruption changed nothing" >&2; exit 1; }
refused corrupted "checksum mismatch"
cp "$in" "$tmp/bad.snap" # a capture named by mistake
FOREIGN=1 refused not-a-snapshot "not a pktdedup snapshot"
head -c 5 "$tmp/s.orig" >"$tmp/bad.snap" # cut inside its magic: a snapshot still
refused "cut in its magic" "not a pktdedup snapshot"
cp "$tmp/s.orig" "$tmp/bad.snap"
NOOUT=1 refused "other worker count" "made with 1 worker, this run has 2" --workers 2 \
	--dispatch software
cp "$tmp/s.orig" "$tmp/bad.snap"
refused "other key" 'made with "key packet.*this run has "key flow' --key flow
cp "$tmp/s.orig" "$tmp/bad.snap"
refused "other seed" "another hash seed" --seed 12345
run --pcap-in "$tmp/a.pcap" --filter qqhtd --memory 1M --snapshot "$tmp/bad.snap" \
	--snapshot-policy fresh >/dev/null 2>&1 # overwrite it with a qqhtd 1 MiB snapshot
refused "other filter size" "made with --memory 1048576, this run has --memory 2097152" \
	--filter qqhtd --memory 2M
refused "other filter" "made with --filter qqhtd, this run has --filter exact"

# 3. periodic snapshots while running: net_pcap looping the file for 3 s
rc=0
timeout --preserve-status -s INT 3 "$bin" --no-huge -m 256 --no-pci --no-telemetry --no-shconf \
	--file-prefix "snap$$" --log-level '*:warning' -l 0 \
	--vdev "net_pcap0,rx_pcap=$in,infinite_rx=1" -- --ports 0 --filter qqhtd \
	--memory 8M --snapshot "$tmp/p.snap" --snapshot-interval 200ms \
	--stats-json "$tmp/p.json" >/dev/null 2>"$tmp/p.err" || rc=$?
rm -rf "/var/run/dpdk/snap$$"
[ "$rc" -eq 0 ] || { echo "FAIL: periodic run status $rc" >&2; cat "$tmp/p.err" >&2; exit 1; }
read -r written steps stepmax <<<"$(/usr/bin/python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))["snapshot"]
print(s["periodic_written"], s["copy_steps"], s["step_max_us"])' "$tmp/p.json")"
[ "$written" -ge 3 ] && [ "$steps" -ge $((written * 32)) ] ||
	{ echo "FAIL: periodic snapshots: $written written in $steps steps" >&2; exit 1; }
/usr/bin/python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["accounted"] else 1)' "$tmp/p.json"
"$bin" --pcap-in "$tmp/a.pcap" --filter qqhtd --memory 8M --snapshot "$tmp/p.snap" \
	>/dev/null 2>"$tmp/p2.err" || { cat "$tmp/p2.err" >&2; exit 1; }
grep -q "loaded: 1 worker" "$tmp/p2.err"
echo "ok: periodic: $written snapshots of 8 MiB in $steps copy steps, longest step" \
	"$stepmax us; the last one loads"

# 6. a slow pipe (issue 38 N7): a frame every 50 ms into --pcap-in -, --snapshot-interval 1s,
#    kill -9 after 4 s: a periodic snapshot was written on time (by the clock, not after
#    so many frames), and it loads with the keys seen
feed() {
	/usr/bin/python3 - <<'PY'
import struct, sys, time
out = sys.stdout.buffer
out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
for i in range(400):
    frame = (bytes(12) + b"\x08\x00" + bytes([0x45, 0, 0, 28]) + struct.pack(">I", i) +
             bytes([64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]) + bytes(8))
    try:
        out.write(struct.pack("<IIII", 1700000000 + i, 0, len(frame), len(frame)) + frame)
        out.flush()
    except BrokenPipeError:
        break
    time.sleep(0.05)
PY
}
feed | "$bin" --pcap-in - --snapshot "$tmp/slow.snap" --snapshot-interval 1s --memory 8M \
	>/dev/null 2>"$tmp/slow.err" &
slow=$!
sleep 4
kill -9 "$slow" 2>/dev/null || true
wait "$slow" 2>/dev/null || true
[ -s "$tmp/slow.snap" ] || { cat "$tmp/slow.err" >&2; echo "FAIL: slow pipe: no periodic snapshot in 4 s" >&2; exit 1; }
"$bin" --pcap-in "$tmp/a.pcap" --memory 8M --snapshot "$tmp/slow.snap" >/dev/null 2>"$tmp/slow2.err" ||
	{ cat "$tmp/slow2.err" >&2; exit 1; }
keys=$(grep -o 'loaded: 1 worker, [0-9]* keys' "$tmp/slow2.err" | grep -o '[0-9]* keys' | cut -d' ' -f1)
[ "${keys:-0}" -gt 0 ] || { cat "$tmp/slow2.err" >&2; echo "FAIL: slow pipe: the snapshot holds no keys" >&2; exit 1; }
echo "ok: a frame every 50 ms on a pipe, killed at 4 s: a periodic snapshot of $keys keys loads"

# 7. periodic writes that fail (a file size limit, SIGXFSZ ignored) every 100 ms: said
#    once, not at each try; when the limit goes (prlimit) the next write says how many
#    failed before it, the JSON counts both, and the run ends with status 0
rc=0
(trap '' XFSZ; ulimit -S -f 100; exec "$bin" --no-huge -m 256 --no-pci --no-telemetry \
	--no-shconf --file-prefix "snapf$$" -l 0 --vdev net_null0 -- --ports 0 --memory 4M \
	--snapshot "$tmp/f.snap" --snapshot-interval 100ms --stats-json "$tmp/f.json") \
	>/dev/null 2>"$tmp/f.err" &
fpid=$!
await_line "$tmp/f.err" "snapshot: .*File too large" "$fpid" && sleep 1 &&
	prlimit --pid "$fpid" --fsize=unlimited: && sleep 0.5 || rc=9
stop_run "$fpid" || rc=$?
rm -rf "/var/run/dpdk/snapf$$"
read -r written failed <<<"$(/usr/bin/python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))["snapshot"]
print(s["periodic_written"], s["periodic_failed"])' "$tmp/f.json")"
[ "$rc" -eq 0 ] && [ "$(grep -c "snapshot: .*File too large" "$tmp/f.err")" -eq 1 ] &&
	[ "$failed" -ge 2 ] &&
	grep -q "written again, after $failed failed writes" "$tmp/f.err" && [ "$written" -ge 1 ] ||
	{ cat "$tmp/f.err" >&2; echo "FAIL: failing periodic writes ($rc, $written, $failed)" >&2; exit 1; }
echo "ok: $failed periodic writes failed (File too large): said once; the next one written" \
	"says so; status 0"
# inline, the packet key's 100 ms window is over before a restart is: the keys a snapshot
# restores match nothing, and the run says so; a replay's next file follows its last
# frame in time, so there it is not said
grep -q -- "--snapshot with a 0.1 s window: a restart takes longer" "$tmp/f.err" ||
	{ cat "$tmp/f.err" >&2; echo "FAIL: inline --snapshot with 100 ms: not said" >&2; exit 1; }
[ -s "$tmp/slow2.err" ] && ! grep -q -- "--snapshot with a" "$tmp/slow2.err" ||
	{ echo "FAIL: replay --snapshot: the restart warning" >&2; exit 1; }
echo "ok: inline --snapshot with the 100 ms window: restored keys match nothing, said (not in replay)"

# 8. a capture older than the snapshot's (replayed out of order, or a clock that went
#    back): 1,000 unique frames an hour "later", then the same 1,000 bytes stamped an
#    hour before, each sent once in its own capture. The restored rows took every one of
#    the earlier frames for a copy of its later self (1,000 dropped); the filter forgets
#    instead, and says so.
/usr/bin/python3 - "$tmp" <<'PY'
import struct, sys
def frame(i):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 46, 0, 0, 64, 17, 0, b"\x0a\0\0\x01",
                     b"\xc0\0\x02\x01")
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + \
        struct.pack("!HHHHQ", 1024, 53, 26, 0, i) + b"\0" * 10
for name, base in (("later", 1700003600), ("earlier", 1700000000)):
    out = [struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)]
    for i in range(1000):
        f = frame(i)
        out.append(struct.pack("<IIII", base, i * 100, len(f), len(f)) + f)
    open("%s/%s.pcap" % (sys.argv[1], name), "wb").write(b"".join(out))
PY
for run in later earlier; do
	"$bin" --pcap-in "$tmp/$run.pcap" --pcap-out /dev/null --snapshot "$tmp/step.snap" \
		--stats-json "$tmp/$run.json" >"$tmp/$run.err" 2>&1 ||
		{ cat "$tmp/$run.err" >&2; echo "FAIL: $run: status $?" >&2; exit 1; }
done
[ "$(json "$tmp/earlier.json" unique)" -eq 1000 ] &&
	grep -q "time went back: the qhtlru filter forgot every key" "$tmp/earlier.err" ||
	{ cat "$tmp/earlier.err" >&2; echo "FAIL: an older capture after the snapshot:" \
		"$(json "$tmp/earlier.json" duplicate) dropped" >&2; exit 1; }
echo "ok: a capture an hour older than the snapshot's: its 1,000 frames kept, the forgetting said"
