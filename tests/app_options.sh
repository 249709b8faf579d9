#!/usr/bin/env bash
# pktdedup's option checking and its handling of bad input files.
#  - every bad value, unit, range, unknown name and conflicting pair: exit status 2 and
#    a message naming the option (nothing starts: these fail before EAL);
#  - --pcap-in missing or not a pcap: status 1 and a message; truncated mid-record:
#    status 1, and the frames before the damage are processed and written (the output
#    equals a run on those frames cut out by editcap).
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
checked=0

bad() { # "words the message must contain" options...
	local words=$1 rc=0
	shift
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "FAIL: pktdedup $*: status $rc, want 2" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	if ! grep -qF -- "$words" "$tmp/err"; then
		echo "FAIL: pktdedup $*: message lacks '$words':" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	checked=$((checked + 1))
}

p=(--pcap-in "$in")
bad "--filter" "${p[@]}" --filter nosuch
bad "--memory" "${p[@]}" --memory 12Q
bad "--memory" "${p[@]}" --memory -5M
bad "--memory" "${p[@]}" --memory 99999999999999G
bad "--fpr" "${p[@]}" --fpr 1.5
bad "--fpr" "${p[@]}" --fpr abc
bad "--seed" "${p[@]}" --seed 12x
bad "--k" "${p[@]}" --k -1
bad "--b" "${p[@]}" --filter qqhtd --b 100000
bad "--k: filter qqhtd: k: not a parameter of qqhtd" "${p[@]}" --k 3
bad "--q: filter sbf: fpbuf_q: not a parameter" "${p[@]}" --filter sbf --q 0.1
bad "--b: filter lru: qht_b: not a parameter" "${p[@]}" --filter lru --b 4
bad "--key" "${p[@]}" --key ethernet
bad "--ignore" "${p[@]}" --key packet --ignore ttl,nosuch
bad "--ignore" "${p[@]}" --key flow --ignore ttl
bad "--compare-from" "${p[@]}" --key packet --compare-from l7
bad "--click-param" "${p[@]}" --key flow --click-param id
bad "--action" "${p[@]}" --action delete
bad "--mark-dscp" "${p[@]}" --action mark --mark-dscp 64
bad "--mark-dscp" "${p[@]}" --mark-dscp 5
bad "--dup-port" "${p[@]}" --dup-port 1
bad "--dup-port" --no-huge -- --action count --dup-port 1
bad "--unparseable" "${p[@]}" --unparseable keep
bad "--ports 0: --pcap-in makes its own port" "${p[@]}" --ports 0
bad "--ports" --no-huge -- --ports 0,0
bad "--ports" --no-huge -- --ports 0,1,2
bad "--workers" "${p[@]}" --workers 0
bad "--workers" "${p[@]}" --workers 65
bad "--dispatch" "${p[@]}" --dispatch magic
bad "--rx-desc" "${p[@]}" --rx-desc 1000
bad "--tx-desc" "${p[@]}" --tx-desc 16
bad "--mbufs" "${p[@]}" --mbufs 10
bad "--pcap-out" --no-huge -- --pcap-out "$tmp/o.pcap"
ln -s "$in" "$tmp/link.pcap"
bad "the same file as --pcap-in" "${p[@]}" --pcap-out "$tmp/link.pcap"
bad "--stats-interval" "${p[@]}" --stats-interval 0
bad "--stats-interval" "${p[@]}" --stats-interval 5parsecs
bad "--snapshot-interval" "${p[@]}" --snapshot-interval 10s
bad "--snapshot-interval" "${p[@]}" --snapshot "$tmp/s" --snapshot-interval 1us
bad "--snapshot-policy" "${p[@]}" --snapshot "$tmp/s" --snapshot-policy maybe
bad "--snapshot-policy" "${p[@]}" --snapshot-policy fresh
bad "--snapshot" "${p[@]}" --snapshot "$in"
bad "needs a value" "${p[@]}" --filter
bad "unknown option --frobnicate" "${p[@]}" --frobnicate
bad "unexpected argument" "${p[@]}" stray
bad "no EAL options" "${p[@]}" -- --filter sbf
bad "give EAL options" --filter sbf
# the planner's checks, before anything starts
bad "filter sbf" "${p[@]}" --filter sbf --max 1000
echo "ok: $checked bad option sets: status 2, each message names its option"

# --help: every option listed
"$bin" --help >"$tmp/help"
for o in filter memory fpr seed key ignore compare-from action mark-dscp dup-port \
	unparseable ports workers dispatch rx-desc mbufs pcap-in pcap-out snapshot \
	snapshot-interval snapshot-policy stats-interval stats-json; do
	grep -q -- "--$o" "$tmp/help" || { echo "FAIL: --help lacks --$o" >&2; exit 1; }
done
echo "ok: --help lists every option"

# bad input files
rc=0
"$bin" --pcap-in "$tmp/none.pcap" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "No such file" "$tmp/err" || { echo "FAIL: missing pcap ($rc)" >&2; exit 1; }
echo "this is not a capture" >"$tmp/text.pcap"
rc=0
"$bin" --pcap-in "$tmp/text.pcap" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "unknown file format" "$tmp/err" || { echo "FAIL: not a pcap ($rc)" >&2; exit 1; }
size=$(stat -c %s "$in")
head -c $((size / 3)) "$in" >"$tmp/cut.pcap"
rc=0
"$bin" --pcap-in "$tmp/cut.pcap" --pcap-out "$tmp/cut-out.pcap" --filter exact --key packet \
	>/dev/null 2>"$tmp/err" || rc=$?
good=$(sed -n 's/.* after \([0-9]*\) frames.*/\1/p' "$tmp/err" | head -1)
[ "$rc" -eq 1 ] && [ -n "$good" ] && [ "$good" -gt 0 ] ||
	{ echo "FAIL: truncated pcap: status $rc" >&2; cat "$tmp/err" >&2; exit 1; }
editcap -F pcap -r "$in" "$tmp/head.pcap" "1-$good"
"$bin" --pcap-in "$tmp/head.pcap" --pcap-out "$tmp/head-out.pcap" --filter exact --key packet \
	>/dev/null 2>&1
[ "$($tool frames "$tmp/cut-out.pcap")" = "$($tool frames "$tmp/head-out.pcap")" ] ||
	{ echo "FAIL: truncated pcap: output differs from the run on its $good whole frames" >&2; exit 1; }
echo "ok: missing and non-pcap input: status 1; truncated input: status 1, its $good whole" \
	"frames processed and written"

# files written at the end are checked at the start: nothing runs, no output is made
unwritable() { # "words the message must contain" options...
	local words=$1 rc=0
	shift
	rm -f "$tmp/early.pcap"
	"$bin" "${p[@]}" --pcap-out "$tmp/early.pcap" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" -ne 1 ] || ! grep -qF -- "$words" "$tmp/err" || grep -q "packets in" "$tmp/out" "$tmp/err" ||
		[ -e "$tmp/early.pcap" ]; then
		echo "FAIL: pktdedup $*: status $rc (want 1, before any packet), message:" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
}
unwritable "--snapshot $tmp/no/dir/s: cannot write in $tmp/no/dir" --snapshot "$tmp/no/dir/s"
unwritable "--snapshot $tmp: is a directory" --snapshot "$tmp"
unwritable "--stats-json $tmp/no/s.json: cannot write in $tmp/no" --stats-json "$tmp/no/s.json"
unwritable "--stats-json $tmp: is a directory" --stats-json "$tmp"
echo "ok: a --snapshot or --stats-json that cannot be written stops the run at start (status 1)"
