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
trap 'rm -rf "$tmp"; [ -z "${first:-}" ] || kill "$first" "$feeder" 2>/dev/null || true' EXIT
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
head -c 100000 /dev/zero >"snap.tmp.$dead"
ln -s victim "snap.tmp.${dead}x" # not a PID: not ours
head -c 10 /dev/zero >"snap.tmp.$$"   # this shell is alive
"$bin" --pcap-in cap.pcap --snapshot snap >/dev/null 2>err.txt || fail "stale: status $?"
grep -q "removed 1 temporary file (100000 bytes)" err.txt || { cat err.txt >&2; fail "stale: message"; }
[ ! -e "snap.tmp.$dead" ] && [ -e "snap.tmp.$$" ] && [ -L "snap.tmp.${dead}x" ] ||
	fail "stale: the wrong files removed"
echo "ok: the temporary file of a dead run removed, a live process's kept"

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
{ head -c 24 cap.pcap; sleep 30; } >feed &
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
[ "$rc" -eq 1 ] && [ "$(cat out.pcap)" = "yesterday's output" ] ||
	{ cat err.txt >&2; fail "refused snapshot: status $rc, --pcap-out changed"; }
echo "ok: a run refused before its first frame leaves --pcap-out untouched"
