#!/usr/bin/env bash
# Time windows end to end, on the two-TAP fixtures (pcap/tap.pcap, pcap/tap-late.pcap):
#  1. seen mode == editcap -w on the same pcap with MACs, VLAN tags, TTL and checksum
#     normalised first, packet for packet, at 100 us, 10 ms and 1 s, for exact, the
#     windowed qhtlru (the default), qqhtd and timerbf;
#  2. both modes == the window definition computed by tests/window_ref.py, on both
#     fixtures (tap-late.pcap has copies that arrive before their earlier-stamped
#     original, where editcap -w and the definition part ways);
#  3. the delay histogram: each bucket holds exactly the delays the definition gives
#     (window_ref.py), none above the window;
#  4. option errors; 5. lulls and joined captures; 6. a clock stepped back.
# Every output also carries the input records' timestamps.
set -euo pipefail
source "$(dirname "$0")/e2e_common.sh"
ref="/usr/bin/python3 $root/tests/window_ref.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
key=(--key packet --compare-from l2 --ignore mac,vlan,ttl,checksum)
windows=(100000 10000000 1000000000) # ns: 100 us, 10 ms, 1 s

# qhtlru plans for a gap of one window at line rate: at 1 s (14.9M keys, 14 a row) it
# takes 8-bit ages, whose units (8.4 ms at 1 s) may miss a copy in the window's last two
# (docs/windows.md; tests/test_window.c checks that bound). These captures hold 2,740
# frames: told so, the planner keeps exact ages and the verdicts must be the definition's.
# timerbf's FPR is predicted at that many keys a window (at line rate, 1 s would not keep
# the loss budget in 64 MiB: refused).
fargs() {
	case $1 in
	qhtlru | timerbf) echo "--filter $1 --expected-n 3000" ;;
	*) echo "--filter $1" ;;
	esac
}

# pktdedup's kept frames, as indices into the input
kept() { # in window_ns mode filter... -> indices on stdout
	local in=$1 w=$2 mode=$3
	shift 3
	"$bin" --pcap-in "$in" --pcap-out "$tmp/out.pcap" --window "${w}ns" --window-mode "$mode" \
		"${key[@]}" --stats-json "$tmp/run.json" "$@" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; return 1; }
	# and the output records carry the input's timestamps (the fixtures' are unique)
	$ref indices "$in" "$tmp/out.pcap"
}

# The reference, once for each fixture: the normalised capture, and for each window and
# mode the frames kept and each duplicate's delay ($tmp/FIXTURE.MODE.W[.delays])
for fx in tap tap-late; do
	$ref expect-all "$root/pcap/$fx.pcap" "$tmp/$fx" "${windows[@]}"
done

# 1. editcap -w on the normalised capture
for w in "${windows[@]}"; do
	secs=$(awk -v w="$w" 'BEGIN { printf "%.9f", w / 1e9 }')
	editcap -F nsecpcap -w "$secs" "$tmp/tap.norm.pcap" "$tmp/editcap.pcap" >/dev/null
	$ref indices-by-time "$root/pcap/tap.pcap" "$tmp/editcap.pcap" >"$tmp/editcap.idx"
	total=$(capinfos -Mc "$root/pcap/tap.pcap" | awk '/Number of packets/ { print $NF }')
	[ "$(wc -l <"$tmp/editcap.idx")" -lt "$total" ] || bad "editcap -w $secs removed nothing"
	for f in exact qhtlru qqhtd timerbf; do
		# shellcheck disable=SC2046
		if kept "$root/pcap/tap.pcap" "$w" seen $(fargs $f) >"$tmp/p.idx" &&
			cmp -s "$tmp/editcap.idx" "$tmp/p.idx"; then
			ok "$f --window ${w}ns == editcap -w $secs ($(wc -l <"$tmp/p.idx") kept)"
		else
			bad "$f --window ${w}ns differs from editcap -w $secs"
			diff "$tmp/editcap.idx" "$tmp/p.idx" | head -5
		fi
	done
done

# 2. the definition, both modes, both fixtures
for fx in tap tap-late; do
	for w in "${windows[@]}"; do
		for mode in seen delivered; do
			for f in exact qhtlru qqhtd; do
				# shellcheck disable=SC2046
				if kept "$root/pcap/$fx.pcap" "$w" $mode $(fargs $f) >"$tmp/p.idx" &&
					cmp -s "$tmp/$fx.$mode.$w" "$tmp/p.idx"; then
					ok "$fx $f $mode ${w}ns == definition ($(wc -l <"$tmp/p.idx"))"
				else
					bad "$fx $f $mode ${w}ns differs from the definition"
				fi
			done
		done
	done
done
# the fixtures exercise what they claim: windows and modes change the result
[ "$(wc -l <"$tmp/tap.seen.100000")" -gt "$(wc -l <"$tmp/tap.seen.1000000000")" ] &&
	! cmp -s "$tmp/tap.seen.10000000" "$tmp/tap.delivered.10000000" &&
	ok "fixtures: the window and the mode change what is kept" ||
	bad "fixtures do not exercise windows and modes"

# 3. the delay histogram (exact measures every duplicate's delay)
"$bin" --pcap-in "$root/pcap/tap.pcap" --filter exact --window 1s "${key[@]}" \
	--stats-json "$tmp/h.json" >"$tmp/h.txt" 2>&1
if /usr/bin/python3 - "$tmp/h.json" "$tmp/tap.seen.1000000000.delays" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
h = o["delay_histogram"]
# each bucket holds exactly the duplicates whose delay the definition puts in it
want = [int(x) for x in open(sys.argv[2]).read().split()]
for b in h["buckets"]:
    top = b["to_ns"] if b["to_ns"] is not None else 1 << 64
    n = sum(1 for x in want if b["from_ns"] <= x < top)
    assert b["count"] == n, (b, n)
assert o["window_ns"] == 10**9 and o["window_mode"] == "seen" and o["time"] == "pcap", o
assert h["measured"] == o["total"]["duplicate"] > 0, (h["measured"], o["total"])
assert sum(b["count"] for b in h["buckets"]) == h["measured"]
assert all(b["count"] == 0 for b in h["buckets"] if b["from_ns"] >= 10**9), h
assert h["buckets"][0]["from_ns"] == 0 and h["buckets"][-1]["to_ns"] is None
assert o["ports"] == [] or sum(p["duplicate"] for p in o["ports"]) == o["total"]["duplicate"]
PY
then ok "delay histogram: every bucket == the definition's delays, none at or above 1 s"; else bad "histogram"; fi
grep -q "delay from copy to duplicate" "$tmp/h.txt" && ok "histogram in the summary" ||
	bad "no histogram in the summary"
"$bin" --pcap-in "$root/pcap/tap.pcap" --filter qqhtd --window none --stats-json "$tmp/n.json" \
	>/dev/null 2>&1
/usr/bin/python3 -c \
	'import json,sys; assert json.load(open(sys.argv[1]))["delay_histogram"] is None' \
	"$tmp/n.json" && ok "no histogram without times (qqhtd without a window)" ||
	bad "histogram without times"

# 5. a lull longer than 2^31 timer units: timerbf at 1 ms counts ns, so key 1 at 0 s and
# again at 2.647 s (a unique frame, 2.6 s after its copy) once wrapped into a live timer
# and was dropped; every frame of the bundled captures concatenated end to end (lulls
# between files) is kept by timerbf exactly as by exact
/usr/bin/python3 - "$tmp/lull.pcap" <<'PY'
import sys
from scapy.all import Ether, IP, UDP, wrpcap
f = [Ether() / IP(src="10.0.0.%d" % k, dst="10.0.1.1") / UDP(sport=1000, dport=2000) for k in (1, 2, 1)]
for p, t in zip(f, (0.0, 0.5, 2.647)):
    p.time = 1700000000 + t
wrpcap(sys.argv[1], f)
PY
n=$("$bin" --pcap-in "$tmp/lull.pcap" --filter timerbf --window 1ms --pcap-out "$tmp/lo.pcap" \
	--stats-json "$tmp/l.json" >/dev/null 2>&1 && json "$tmp/l.json" tx || echo error)
[ "$n" = 3 ] && ok "timerbf 1 ms: a copy 2.647 s later is kept (lull past the 32-bit wrap)" ||
	bad "timerbf after a 2.6 s lull: forwarded $n of 3"
# the files go back in time where they join: timerbf then forgets (copies may pass), so
# the check is that it keeps every frame exact keeps
mergecap -a -F pcap -w "$tmp/all.pcap" "$root"/pcap/{dups,keys,mirror,tap,tap-late}.pcap
for w in 1ms 100ms; do
	for f in exact timerbf; do
		n=()
		[ $f = exact ] || n=(--expected-n 20000)
		"$bin" --pcap-in "$tmp/all.pcap" --filter $f --window $w --pcap-out "$tmp/$f.pcap" \
			"${n[@]}" >/dev/null 2>&1 || bad "concatenated $f $w: status $?"
		$ref indices-by-bytes "$tmp/all.pcap" "$tmp/$f.pcap" | sort >"$tmp/$f.idx"
	done
	lost=$(comm -23 "$tmp/exact.idx" "$tmp/timerbf.idx" | wc -l)
	[ "$lost" -eq 0 ] && ok "concatenated fixtures at $w: timerbf keeps every frame exact keeps" ||
		bad "concatenated fixtures at $w: timerbf drops $lost frames exact keeps"
done

# 6. a clock stepped back an hour halfway through a capture: 20,000 packets, each with a
# mirror copy 20 us later, and after the step packet 0's bytes again (sent again an hour
# "before"), with its copy. Windowed rows took packet 0 for a copy of itself an hour
# later, and their times an hour ahead gave every new key a saturated age: at 64 KiB
# (every row touched before the step) all 10,000 copies after it passed. Each windowed
# filter forgets once instead (timerbf did already): every packet's copy is dropped,
# packet 0 again is kept, and the summary and the JSON say so.
/usr/bin/python3 - "$tmp/step.pcap" <<'PY'
import struct, sys
n, out = 20000, [struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)]
def frame(i):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 46, 0, 0, 64, 17, 0, b"\x0a\0\0\x01",
                     b"\xc0\0\x02\x01")
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + \
        struct.pack("!HHHHQ", 1024, 53, 26, 0, i) + b"\0" * 10
def put(us, f):
    out.append(struct.pack("<IIII", us // 10**6, us % 10**6, len(f), len(f)) + f)
t0 = 1700000000 * 10**6
for i in range(n):
    t = t0 + 40 * i - (3600 * 10**6 if i >= n // 2 else 0)
    for k in ([i, 0] if i == n // 2 else [i]):
        put(t, frame(k)); put(t + 20, frame(k)); t += 2
open(sys.argv[1], "wb").write(b"".join(out))
PY
for f in "qhtlru --memory 64K" "qqhtd --window 100ms --memory 64K" \
	"timerbf --window 100ms --memory 4M --expected-n 3000" "qhtlru --workers 2 --memory 64K"; do
	"$bin" --pcap-in "$tmp/step.pcap" --pcap-out /dev/null --filter $f \
		--stats-json "$tmp/s.json" >"$tmp/s.err" 2>&1 || bad "clock step, $f: status $?"
	got="$(json "$tmp/s.json" unique) $(json "$tmp/s.json" duplicate)"
	forgot=$(/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["filters_forgotten"])' "$tmp/s.json")
	if [ "$got" = "20001 20001" ] && [ "$forgot" -ge 1 ] &&
		grep -q "time went back: the .* filter forgot every key it held" "$tmp/s.err"; then
		ok "clock stepped back an hour, $f: every copy dropped, the repeat kept, forgotten $forgot, said"
	else
		bad "clock stepped back an hour, $f: unique, duplicate $got (want 20001 20001), forgotten $forgot"
	fi
done
# out of order within the window's reach (feed A 50 us late) is no step
"$bin" --pcap-in "$root/pcap/tap-late.pcap" --pcap-out /dev/null --stats-json "$tmp/s.json" \
	>"$tmp/s.err" 2>&1
if grep -q "time went back" "$tmp/s.err" || ! grep -q '"filters_forgotten": 0' "$tmp/s.json"; then
	bad "tap-late.pcap: 'time went back' without a step"
else
	ok "tap-late.pcap (feeds 50 us apart): nothing forgotten"
fi

# 4. option errors: status 2 and a message naming the option
expect_2() {
	local what=$1 rc=0
	shift
	"$bin" --pcap-in "$root/pcap/tap.pcap" "$@" >/dev/null 2>"$tmp/err" || rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$what" "$tmp/err"; then
		ok "rejects $* ($(head -1 "$tmp/err"))"
	else
		bad "rc=$rc for $*: $(cat "$tmp/err")"
	fi
}
expect_2 "qqhtd, timerbf, exact, qhtlru" --filter qht --window 1ms
expect_2 "--window" --window 5
expect_2 "--window 0ms: must be above 0 (--window none: no window)" --window 0ms
expect_2 "--window 0: must be above 0 (--window none: no window)" --window 0
expect_2 "--window-mode" --window none --window-mode delivered
expect_2 "--window-mode" --key flow --window-mode delivered
expect_2 "--window-mode" --window 1ms --window-mode both
expect_2 "--f" --filter qqhtd --window 1ms --f 24
expect_2 "windowed 64-byte row" --window 1ms --b 14 --f 27
# timerbf's FPR at one window's keys at line rate: 1.49 million at 100 ms, 0.0045 in
# 64 MiB (it was taken at the filter's capacity, 1e-6: at line rate 20,454 of 3 million
# unique packets were dropped); told the rate, it plans for it
expect_2 "(n = 1488095: one --window at 14.88 Mpps, 10GbE line rate; --expected-n N" \
	--filter timerbf --window 100ms
"$bin" --pcap-in "$root/pcap/tap.pcap" --filter timerbf --window 100ms --expected-n 100000 \
	--pcap-out /dev/null >"$tmp/t.out" 2>&1 || true
if grep -q "plan: timerbf .* at n = expected_n), loss budget 1e-06" "$tmp/t.out"; then
	ok "timerbf --window 100ms --expected-n 100000 plans at n = 100000 within the budget"
else
	bad "timerbf --window 100ms --expected-n 100000 refused or unplanned"
fi
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
