#!/usr/bin/env bash
# pktdedup end to end in replay (--pcap-in), on the bundled fixture pcap/dups.pcap whose
# duplicates the generator knows:
#  - exact filter, whole-frame keys: the output file equals `editcap -D`'s (Wireshark) on
#    the same file, byte for byte (input timestamps kept; nanosecond pcaps stay so);
#  - exact filter, packet keys (TTL/checksum masked): the output is the input minus the
#    generator's duplicates, in order;
#  - mark: every frame out, exactly the duplicates carrying the DSCP, checksum redone;
#  - a write error on --pcap-out fails the run;
#  - count: the output file is the input file; the JSON counters match the generator's counts;
#  - two workers write the file one worker writes.
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=$($tool frames "$in" | wc -l)

check_counts() { # json variant action
	read -r dups uniq nokey <<<"$($tool count "$exp" "$2")"
	[ "$(json "$1" rx)" -eq "$n" ] || { echo "rx != $n" >&2; exit 1; }
	[ "$(json "$1" duplicate)" -eq "$dups" ] || { echo "duplicate != $dups ($2)" >&2; exit 1; }
	[ "$(json "$1" unique)" -eq "$uniq" ] || { echo "unique != $uniq ($2)" >&2; exit 1; }
	[ "$(json "$1" unparseable)" -eq "$nokey" ] || { echo "unparseable != $nokey" >&2; exit 1; }
	# replay has no port: every frame is accounted for by pktdedup's own counters
	/usr/bin/python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["accounted"] and j["mbufs_in_use"] == 0 and j["ports"] == []
         and j["tx_to"] in ("pcap-out", "none") else 1)' "$1" ||
		{ echo "FAIL: accounting ($2 $3)" >&2; exit 1; }
	case $3 in
	drop) [ "$(json "$1" tx)" -eq $((n - dups)) ] && [ "$(json "$1" dropped)" -eq "$dups" ] ;;
	mark) [ "$(json "$1" tx)" -eq "$n" ] && [ "$(json "$1" marked)" -eq "$dups" ] ;;
	count) [ "$(json "$1" tx)" -eq "$n" ] && [ "$(json "$1" dropped)" -eq 0 ] ;;
	esac || { echo "tx/dropped/marked wrong for $3" >&2; exit 1; }
	echo "ok: $2 $3: $dups duplicates, $uniq unique, $nokey without key, of $n"
}

# 1. whole frames against editcap -D (window larger than the file: exact dedup)
"$bin" --pcap-in "$in" --pcap-out "$tmp/l2.pcap" --filter exact --window none --key packet \
	--compare-from l2 --ignore none --stats-json "$tmp/l2.json" >/dev/null 2>&1
editcap -F pcap -D "$(nframes "$in")" "$in" "$tmp/editcap.pcap" >/dev/null
$tool frames "$tmp/editcap.pcap" >"$tmp/editcap.txt"
$tool frames "$tmp/l2.pcap" >"$tmp/l2.txt"
diff -q "$tmp/editcap.txt" "$tmp/l2.txt" >/dev/null ||
	{ echo "FAIL: output differs from editcap -D ($(wc -l <"$tmp/editcap.txt") vs $(wc -l <"$tmp/l2.txt") frames)" >&2; exit 1; }
# the files themselves: the same header and records (input timestamps and lengths)
cmp "$tmp/editcap.pcap" "$tmp/l2.pcap" ||
	{ echo "FAIL: same frames as editcap -D, but not the same file" >&2; exit 1; }
echo "ok: packet key from L2, nothing ignored = editcap -D, byte for byte: $(wc -l <"$tmp/l2.txt") of $n frames"
check_counts "$tmp/l2.json" packet-l2-none drop
# a nanosecond pcap stays one, timestamps to the nanosecond
"$bin" --pcap-in "$root/pcap/tap.pcap" --pcap-out "$tmp/tap.pcap" --filter exact \
	--window none --key packet \
	--compare-from l2 --ignore none >/dev/null 2>&1
editcap -F nsecpcap -D "$(nframes "$root/pcap/tap.pcap")" "$root/pcap/tap.pcap" \
	"$tmp/tap-editcap.pcap" >/dev/null
cmp "$tmp/tap-editcap.pcap" "$tmp/tap.pcap" ||
	{ echo "FAIL: nanosecond pcap/tap.pcap: not editcap -F nsecpcap -D's file" >&2; exit 1; }
echo "ok: nanosecond pcap/tap.pcap = editcap -F nsecpcap -D, byte for byte"
# a write error is an error
if "$bin" --pcap-in "$in" --pcap-out /dev/full >/dev/null 2>"$tmp/full.err"; then
	echo "FAIL: --pcap-out /dev/full succeeded" >&2
	exit 1
fi
grep -q "pcap-out /dev/full: No space left on device after" "$tmp/full.err" &&
	[ "$(grep -c "No space left" "$tmp/full.err")" -eq 1 ] ||
	{ echo "FAIL: --pcap-out /dev/full: not one message" >&2; cat "$tmp/full.err" >&2; exit 1; }
echo "ok: --pcap-out /dev/full: exit 1, $(grep -o 'No space left on device.*' "$tmp/full.err")"

# 2. packet keys with TTL and checksum masked: input minus the generator's duplicates
for v in packet flow srcip; do
	"$bin" --pcap-in "$in" --pcap-out "$tmp/$v.pcap" --filter exact --window none --key "$v" \
		--stats-json "$tmp/$v.json" >/dev/null 2>&1
	$tool expect-drop "$in" "$exp" "$v" >"$tmp/want.txt"
	$tool frames "$tmp/$v.pcap" >"$tmp/got.txt"
	diff -q "$tmp/want.txt" "$tmp/got.txt" >/dev/null ||
		{ echo "FAIL: --key $v drop output" >&2; exit 1; }
	check_counts "$tmp/$v.json" "$v" drop
done

# 3. mark: all frames, the duplicates marked with DSCP 10 and a valid checksum
"$bin" --pcap-in "$in" --pcap-out "$tmp/mark.pcap" --filter exact --window none --key packet \
	--action mark --mark-dscp 10 --stats-json "$tmp/mark.json" >/dev/null 2>&1
$tool expect-mark "$in" "$exp" packet 10 >"$tmp/want.txt"
$tool frames "$tmp/mark.pcap" >"$tmp/got.txt"
diff -q "$tmp/want.txt" "$tmp/got.txt" >/dev/null || { echo "FAIL: mark output" >&2; exit 1; }
check_counts "$tmp/mark.json" packet mark

# 4. count: output = input
"$bin" --pcap-in "$in" --pcap-out "$tmp/count.pcap" --filter exact --window none --key packet \
	--action count --stats-json "$tmp/count.json" >/dev/null 2>&1
cmp -s "$in" "$tmp/count.pcap" || { echo "FAIL: count: output is not the input file" >&2; exit 1; }
check_counts "$tmp/count.json" packet count

# 5. two workers: each owns the keys its hash gives it, the output is the same file
"$bin" --pcap-in "$in" --workers 2 --filter exact \
	--window none --key packet --pcap-out "$tmp/two.pcap" \
	--stats-json "$tmp/two.json" >"$tmp/two.out" 2>&1
check_counts "$tmp/two.json" packet drop
cmp "$tmp/packet.pcap" "$tmp/two.pcap" || { echo "FAIL: 2 workers: another output" >&2; exit 1; }
/usr/bin/python3 - "$tmp/two.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dispatch"] == "software" and d["workers"] == 2, d["dispatch"]
w = d["workers_detail"]
assert all(x["unique"] > 100 for x in w), [x["unique"] for x in w]  # both own keys
print("ok: 2 workers: the one-worker file, uniques per worker",
      [x["unique"] for x in w], "duplicates", d["total"]["duplicate"])
PY
