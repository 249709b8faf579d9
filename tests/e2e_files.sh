#!/usr/bin/env bash
# Files are never clobbered and snapshots are written safely:
#  - no output may be an input or another output, by identity, not spelling: another
#    path, a symlink, a hard link, standard input or output; status 2, every file intact;
#  - a symlink planted at the snapshot's temporary name is not written through;
#  - temporary files left by runs killed mid-write are removed by the next run (those of
#    a live process are left alone);
#  - --snapshot LINK writes the file the link points to, and the link stays;
#  - a second run on a snapshot in use is refused (status 1); a FIFO is refused at once;
#  - a run refused before its first frame leaves --pcap-out as it was.
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -z "${first:-}" ] || kill "$first" ${feeder:+"$feeder"} 2>/dev/null || true' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") # the tests below run in $tmp
cd "$tmp"
cp "$in" cap.pcap
ln -s cap.pcap link.pcap
ln cap.pcap hard.pcap
echo '{"mine": 1}' >mine.json

refused() { # words-of-the-message pktdedup-options...
	local want=$1 rc=0
	shift
	"$bin" "$@" </dev/null >out.txt 2>err.txt || rc=$?
	[ "$rc" -eq 2 ] && grep -q -- "$want" err.txt ||
		{ cat err.txt >&2; fail "$* : status $rc, want 2 and '$want'"; }
	cmp -s cap.pcap "$in" || fail "$*: the input was changed"
	[ "$(cat mine.json)" = '{"mine": 1}' ] || fail "$*: mine.json was changed"
}
refused "--stats-json cap.pcap: the same file as --pcap-in" --pcap-in cap.pcap --stats-json cap.pcap
refused "--stats-json mine.json: the same file as --pcap-out" --pcap-in cap.pcap \
	--pcap-out mine.json --stats-json mine.json
refused "--snapshot mine.json: the same file as --stats-json" --pcap-in cap.pcap \
	--stats-json mine.json --snapshot mine.json
refused "--snapshot ./cap.pcap: the same file as --pcap-in" --pcap-in cap.pcap --snapshot ./cap.pcap
refused "--pcap-out cap.pcap: the same file as --pcap-in link.pcap" --pcap-in link.pcap \
	--pcap-out cap.pcap
refused "--pcap-out hard.pcap: the same file as --pcap-in" --pcap-in cap.pcap --pcap-out hard.pcap
refused "--stats-json new.json: the same file as --pcap-out" --pcap-in cap.pcap \
	--pcap-out "$tmp/new.json" --stats-json new.json
[ ! -e new.json ] || fail "new.json was made"
rc=0
"$bin" --pcap-in - --stats-json cap.pcap <cap.pcap >/dev/null 2>err.txt || rc=$?
[ "$rc" -eq 2 ] && grep -q "the same file as --pcap-in -" err.txt && cmp -s cap.pcap "$in" ||
	fail "--pcap-in - < cap.pcap --stats-json cap.pcap: status $rc"
refused "the same file as --pcap-out - (standard output)" --pcap-in cap.pcap --pcap-out - \
	--stats-json -
refused "--stats-json : expected a file name" --pcap-in cap.pcap --stats-json ''
refused "--pcap-out : expected a file name" --pcap-in cap.pcap --pcap-out ''
echo "ok: 10 ways of naming one file twice refused (status 2), every file intact"

# dangling links name the file they would make (issue 38 N2): status 2, nothing written
ln -s t.pcap dangling.pcap
refused "--dup-out t.pcap: the same file as --pcap-out dangling.pcap" --pcap-in cap.pcap \
	--pcap-out dangling.pcap --dup-out t.pcap
refused "--stats-json dangling.pcap: the same file as --pcap-out t.pcap" --pcap-in cap.pcap \
	--pcap-out t.pcap --stats-json dangling.pcap
refused "--snapshot dangling.pcap: the same file as --pcap-out t.pcap" --pcap-in cap.pcap \
	--pcap-out t.pcap --snapshot dangling.pcap
ln -s dangling.pcap chain.pcap # a link to the dangling link
refused "--dup-out chain.pcap: the same file as --pcap-out t.pcap" --pcap-in cap.pcap \
	--pcap-out t.pcap --dup-out chain.pcap
[ ! -e t.pcap ] || fail "t.pcap was made"
# one pipe named twice (N4): /dev/stdout is standard output
for args in "--pcap-out /dev/stdout --stats-json -" "--pcap-out - --dup-out /dev/stdout"; do
	# shellcheck disable=SC2086
	set +e
	"$bin" --pcap-in cap.pcap $args 2>err.txt </dev/null | cat >piped.out
	rc=${PIPESTATUS[0]}
	set -e
	[ "$rc" -eq 2 ] && grep -q "the same stream as" err.txt && [ ! -s piped.out ] ||
		{ cat err.txt >&2; fail "$args into a pipe: status $rc"; }
done
"$bin" --pcap-in cap.pcap --pcap-out /dev/null --dup-out /dev/null >/dev/null 2>err.txt ||
	{ cat err.txt >&2; fail "--pcap-out /dev/null --dup-out /dev/null: status $?"; }
# a socket is two directions: read from it and written back to it (socket activation,
# socat) is not one stream named twice; the output is the file a plain run writes
"$bin" --pcap-in cap.pcap --pcap-out plain.pcap >/dev/null 2>&1
/usr/bin/python3 - "$bin" cap.pcap plain.pcap <<'PY' || fail "--pcap-in - --pcap-out - on one socket"
import socket, subprocess, sys, threading
a, b = socket.socketpair()
p = subprocess.Popen([sys.argv[1], "--pcap-in", "-", "--pcap-out", "-", "--quiet"],
                     stdin=b, stdout=b, stderr=subprocess.PIPE)
b.close()
out = []
def read():
    while True:
        x = a.recv(65536)
        if not x:
            return
        out.append(x)
t = threading.Thread(target=read)
t.start()
a.sendall(open(sys.argv[2], "rb").read())
a.shutdown(socket.SHUT_WR)
rc = p.wait()
t.join()
assert rc == 0, (rc, p.stderr.read())
assert b"".join(out) == open(sys.argv[3], "rb").read()
PY
echo "ok: dangling links and chains of them, and one pipe named twice, refused (status 2);" \
	"one socket read and written back, allowed"

# a file name that is not UTF-8 (issue 38 N8): the JSON stays valid UTF-8
cp cap.pcap $'x\xff.pcap'
"$bin" --pcap-in $'x\xff.pcap' --stats-json name.json >/dev/null 2>err.txt ||
	{ cat err.txt >&2; fail "x\\xff.pcap: status $?"; }
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8")); assert "x\ufffd.pcap" in json.dumps(d, ensure_ascii=False), d' \
	name.json || fail "--pcap-in x\\xff.pcap: the JSON is not valid UTF-8 or lacks the name"
echo "ok: a file name that is not UTF-8 appears in the JSON as U+FFFD"

# a symlink planted at the temporary name: the PID is known because exec keeps it
echo "precious" >victim
bash -c 'ln -s victim snap.tmp.$$ && exec "$0" --pcap-in cap.pcap --snapshot snap' "$bin" \
	>/dev/null 2>err.txt || { cat err.txt >&2; fail "planted symlink: status $?"; }
[ "$(cat victim)" = precious ] || fail "planted symlink: its target was overwritten"
"$bin" --pcap-in cap.pcap --snapshot snap --stats-json s.json >/dev/null 2>err.txt ||
	fail "planted symlink: the snapshot written does not load"
grep -q "snapshot snap loaded" err.txt || fail "planted symlink: snapshot not loaded"
echo "ok: a symlink planted at snap.tmp.PID is not written through; the snapshot loads"

# temporary files of dead runs are removed, a live process's are kept
sleep 0 &
dead=$!
wait "$dead"
{ printf PKTDSNAP; head -c 99992 /dev/zero; } >"snap.tmp.$dead" # a writer's, cut short
chmod 600 "snap.tmp.$dead"
ln -s victim "snap.tmp.${dead}x" # not a PID: not ours
head -c 10 /dev/zero >"snap.tmp.$$"   # this shell is alive
cp cap.pcap snap.tmp.999998           # a dead PID, but a capture: not a writer's
cp "$in" st.tmp.999997                # the run's own input (issue 38 N5)
chmod 600 snap.tmp.999998 st.tmp.999997
printf PKTD >snap.tmp.999996; chmod 644 snap.tmp.999996 # the magic, but not mode 0600
"$bin" --pcap-in cap.pcap --snapshot snap >/dev/null 2>err.txt || fail "stale: status $?"
grep -q "removed 1 temporary file (100000 bytes)" err.txt || { cat err.txt >&2; fail "stale: message"; }
[ ! -e "snap.tmp.$dead" ] && [ -e "snap.tmp.$$" ] && [ -L "snap.tmp.${dead}x" ] &&
	cmp -s snap.tmp.999998 "$in" && [ -e snap.tmp.999996 ] ||
	fail "stale: the wrong files removed"
"$bin" --pcap-in st.tmp.999997 --snapshot st --pcap-out st-out.pcap >/dev/null 2>err.txt ||
	{ cat err.txt >&2; fail "--pcap-in st.tmp.999997 --snapshot st: status $?"; }
cmp -s st.tmp.999997 "$in" || fail "the run's own input st.tmp.999997 was removed"
echo "ok: a dead writer's temporary file removed; a live process's, a capture, the run's" \
	"own input and a file of another mode kept"

# --snapshot LINK: the target is written, the link stays
mkdir real
ln -s real/state state-link
"$bin" --pcap-in cap.pcap --snapshot real/state >/dev/null 2>&1
"$bin" --pcap-in cap.pcap --snapshot state-link --stats-json l.json >/dev/null 2>err.txt ||
	{ cat err.txt >&2; fail "--snapshot link: status $?"; }
[ -L state-link ] && [ -f real/state ] && grep -q "loaded" err.txt ||
	fail "--snapshot link: the link was replaced"
echo "ok: --snapshot LINK writes where the link points, the link stays"

# a snapshot in use: the second run is refused; a FIFO as the snapshot is refused at once
mkfifo feed
# exec: killing the feeder ends the sleep, which would hold the test's output open
{ head -c 24 cap.pcap; exec sleep 30; } >feed &
feeder=$!
"$bin" --pcap-in feed --snapshot shared >/dev/null 2>first.err &
first=$!
for _ in $(seq 100); do grep -q "replay of" first.err && break; sleep 0.1; done
rc=0
"$bin" --pcap-in cap.pcap --snapshot shared >/dev/null 2>err.txt || rc=$?
[ "$rc" -eq 1 ] && grep -q "in use by another run" err.txt ||
	{ cat err.txt >&2; fail "shared snapshot: status $rc"; }
kill -INT "$first"
wait "$first" || true
kill "$feeder" 2>/dev/null || true
first=
mkfifo snapfifo
rc=0
timeout 20 "$bin" --pcap-in cap.pcap --snapshot snapfifo >/dev/null 2>err.txt || rc=$?
[ "$rc" -eq 1 ] && grep -q "not a regular file" err.txt ||
	{ cat err.txt >&2; fail "--snapshot FIFO: status $rc (124: it hung)"; }
echo "ok: a snapshot in use refused (status 1); --snapshot FIFO refused at once"

# a run that stops before its first frame (here: a refused snapshot) leaves --pcap-out as
# it was: the output is opened last
echo "yesterday's output" >out.pcap
printf 'not a snapshot' >junk.snap
rc=0
"$bin" --pcap-in cap.pcap --pcap-out out.pcap --snapshot junk.snap >/dev/null 2>err.txt || rc=$?
[ "$rc" -eq 3 ] && [ "$(cat out.pcap)" = "yesterday's output" ] ||
	{ cat err.txt >&2; fail "refused snapshot: status $rc, --pcap-out changed"; }
echo "ok: a run refused before its first frame leaves --pcap-out untouched"

# --stats-json is replaced whole (a temporary file renamed over it): through a symlink the
# target is written and the link stays, with the file's mode; a write that fails (a file
# size limit below the JSON's size, SIGXFSZ ignored) leaves the old file as it was and no
# temporary file; a FIFO is written in place, its reader gets the JSON
echo '{"old": 1}' >report.json
chmod 640 report.json
ln -s report.json report-link.json
"$bin" --pcap-in cap.pcap --stats-json report-link.json --quiet
[ -L report-link.json ] && [ "$(stat -c %a report.json)" = 640 ] &&
	/usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))["total"]' report.json ||
	fail "--stats-json LINK: the link, the mode or the JSON"
cp report.json report-before.json
rc=0
(trap '' XFSZ; ulimit -f 1; exec "$bin" --pcap-in cap.pcap --stats-json report-link.json \
	--quiet) 2>err.txt || rc=$?
[ "$rc" -eq 1 ] && grep -q "stats-json report-link.json: writing failed: File too large; the file is as it was" \
	err.txt && cmp -s report.json report-before.json && [ -z "$(ls report.json.tmp.* 2>/dev/null)" ] ||
	{ cat err.txt >&2; fail "--stats-json that cannot be written whole: status $rc, or the old file changed"; }
mkfifo report.fifo
cat report.fifo >from-fifo.json &
reader=$!
"$bin" --pcap-in cap.pcap --stats-json report.fifo --quiet
wait "$reader"
/usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))["total"]' from-fifo.json ||
	fail "--stats-json FIFO: the reader got no JSON"
# a FIFO nobody reads yet: the wait is said, a reader then gets the JSON; Ctrl-C ends a
# wait, said, status 1
"$bin" --pcap-in cap.pcap --stats-json report.fifo 2>wait.err >/dev/null &
run=$!
await_line wait.err "--stats-json report.fifo is a FIFO with no reader: waiting for one" "$run" ||
	{ cat wait.err >&2; fail "--stats-json FIFO without a reader: the wait not said"; }
cat report.fifo >late.json
wait "$run" || fail "--stats-json FIFO, a reader late: status $?"
/usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))["total"]' late.json ||
	fail "--stats-json FIFO, a reader late: no JSON"
: >wait.err # no line of the run before (await_line)
"$bin" --pcap-in cap.pcap --stats-json report.fifo 2>wait.err >/dev/null &
run=$!
await_line wait.err "waiting for one" "$run" || fail "--stats-json FIFO: the second wait not said"
rc=0
stop_run "$run" || rc=$?
[ "$rc" -eq 1 ] && grep -q "report.fifo: the wait for a reader ended by a signal: not written" \
	wait.err || { cat wait.err >&2; fail "--stats-json FIFO, Ctrl-C while waiting: status $rc"; }
echo "ok: --stats-json replaced whole: through a link (which stays, mode kept); a failed" \
	"write leaves the old file; a FIFO written in place, its wait for a reader said"

# an output another run is writing (it holds a lock on it from before it empties it) is
# left to that run: the second is refused (status 1) and the first's file comes out whole
rm -f fifo-in busy.pcap
mkfifo fifo-in
: >first.err # no line of the first run above passes for this one's
"$bin" --pcap-in fifo-in --pcap-out busy.pcap --filter exact >/dev/null 2>first.err &
first=$!
exec 7>fifo-in
head -c 24 cap.pcap >&7 # the header: the first run has opened its output
for _ in $(seq 100); do grep -q "replay of" first.err && break; sleep 0.1; done
sleep 0.3
rc=0
"$bin" --pcap-in cap.pcap --pcap-out busy.pcap --filter exact >/dev/null 2>err.txt || rc=$?
tail -c +25 cap.pcap >&7
exec 7>&-
wait "$first" || { cat first.err >&2; fail "the first run failed"; }
first=
"$bin" --pcap-in cap.pcap --pcap-out alone.pcap --filter exact --quiet
[ "$rc" -eq 1 ] && grep -q "busy.pcap: in use by another run" err.txt && cmp -s busy.pcap alone.pcap ||
	{ cat err.txt >&2; fail "a second run on a busy --pcap-out: status $rc, or the first's file changed"; }
echo "ok: a --pcap-out another run is writing: the second run refused (status 1), the" \
	"first's file whole"
