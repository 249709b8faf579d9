#!/usr/bin/env bash
# pktdedup-keys against the generator's expected keys (every fixture file, its config
# line turned into options), its summary against an independent count, and its errors.
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for want in "$root"/pcap/*.*.txt; do
	base=$(basename "$want")
	pcap="$root/pcap/${base%%.*}.pcap"
	args=()
	for kv in $(sed -n 's/^# config: //p' "$want"); do
		k=${kv%%=*} v=${kv#*=}
		case $k in
		mode) args+=(--key "$v") ;;
		param) args+=(--click-param "$v") ;;
		ignore) args+=(--ignore "$v") ;;
		from) args+=(--compare-from "$v") ;;
		frag) args+=(--frag "$v") ;;
		bytes) args+=(--compare-bytes "$v") ;;
		vlan) args+=(--vlan-mode "$v") ;;
		*) echo "unknown config $k in $base" >&2; exit 1 ;;
		esac
	done
	# expected lines are "<index> <label> <reason> [<key>]": drop the label
	grep -v '^#' "$want" | awk '{ $2 = ""; sub(/  /, " "); print }' >"$tmp/want"
	"$bin" "${args[@]}" "$pcap" >"$tmp/got"
	diff -u "$tmp/want" "$tmp/got" || { echo "FAIL: $base (${args[*]})" >&2; exit 1; }
	n=$((n + 1))
done
echo "$n fixture files match"

# --summary: keys and distinct keys counted independently from the listing
"$bin" --key packet "$root/pcap/mirror.pcap" >"$tmp/list"
"$bin" --key packet --summary "$root/pcap/mirror.pcap" >"$tmp/sum"
keys=$(grep -c ' ok ' "$tmp/list")
distinct=$(awk '$2 == "ok" { print $3 }' "$tmp/list" | sort -u | wc -l)
grep -qx "keys $keys" "$tmp/sum"
grep -qx "distinct $distinct" "$tmp/sum"
[ "$distinct" -eq $((keys / 2)) ] # every packet of mirror.pcap was captured twice

expect_rc() { # expected status, then the command
	local want=$1 rc=0
	shift
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" -ne "$want" ] || { [ "$want" -ne 0 ] && [ ! -s "$tmp/err" ]; }; then
		echo "FAIL: $* -> $rc (want $want with a message)" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
}
expect_rc 2 "$bin" --key bogus "$root/pcap/keys.pcap"
expect_rc 2 "$bin" --key flow --ignore ttl "$root/pcap/keys.pcap"
expect_rc 2 "$bin" --key packet --ignore color "$root/pcap/keys.pcap"
expect_rc 2 "$bin" --key packet --compare-from l7 "$root/pcap/keys.pcap"
expect_rc 2 "$bin" --key flow --click-param id "$root/pcap/keys.pcap"
expect_rc 2 "$bin" --key click --click-param 'a=b' "$root/pcap/keys.pcap"
expect_rc 2 "$bin" --frobnicate "$root/pcap/keys.pcap"
expect_rc 2 "$bin" --key flow --compare-bytes 40 "$root/pcap/keys.pcap"
expect_rc 2 "$bin" --key packet --compare-bytes 0 "$root/pcap/keys.pcap"
expect_rc 2 "$bin" --key packet --vlan-mode both "$root/pcap/keys.pcap"
expect_rc 2 "$bin" --key packet --ignore vlan --vlan-mode separate "$root/pcap/keys.pcap"
expect_rc 2 "$bin" --key packet --ignore mac "$root/pcap/keys.pcap"
grep -q "mac needs --compare-from l2" "$tmp/err"
# --ignore vlan and --vlan-mode ignore are one thing
"$bin" --key packet --compare-from l2 --ignore ttl,checksum,vlan "$root/pcap/keys.pcap" >"$tmp/a"
"$bin" --key packet --compare-from l2 --vlan-mode ignore "$root/pcap/keys.pcap" >"$tmp/b"
cmp "$tmp/a" "$tmp/b"
expect_rc 2 "$bin"
expect_rc 1 "$bin" "$tmp/missing.pcap"
grep -qx "pktdedup-keys: $tmp/missing.pcap: No such file or directory" "$tmp/err"
: >"$tmp/empty.pcap" # every open error names the file, once
expect_rc 1 "$bin" "$tmp/empty.pcap"
grep -qx "pktdedup-keys: $tmp/empty.pcap: shorter than a pcap file header" "$tmp/err"
printf 'not a pcap file at all' >"$tmp/junk.pcap"
expect_rc 1 "$bin" "$tmp/junk.pcap"
# standard input, gzip'd or not, gives the file's keys; a terminal there is refused
"$bin" --key flow "$root/pcap/keys.pcap" >"$tmp/a"
"$bin" --key flow - <"$root/pcap/keys.pcap" | cmp -s - "$tmp/a"
gzip -c "$root/pcap/keys.pcap" | "$bin" --key flow - | cmp -s - "$tmp/a"
script -qec "$bin --key flow -" /dev/null >"$tmp/tty" 2>&1 && rc=0 || rc=$?
[ "$rc" -eq 2 ] && grep -q "standard input is a terminal" "$tmp/tty"
# cut mid-record: the frames before the damage are listed, then an error
size=$(stat -c %s "$root/pcap/mirror.pcap")
head -c $((size - 10)) "$root/pcap/mirror.pcap" >"$tmp/cut.pcap"
expect_rc 1 "$bin" --key packet "$tmp/cut.pcap"
[ "$(wc -l <"$tmp/out")" -eq $((keys - 1)) ]
grep -q "after $((keys - 1)) frames" "$tmp/err"
expect_rc 0 "$bin" --help
cp "$tmp/out" "$tmp/help"
expect_rc 0 "$bin" -h # as --help, in every tool
cmp "$tmp/out" "$tmp/help"
expect_rc 2 "$bin" -x "$root/pcap/keys.pcap"
grep -q "unknown option -x" "$tmp/err"
expect_rc 2 "$bin" -xq "$root/pcap/keys.pcap" # inside a group: not the word before it
grep -q "unknown option -x$" "$tmp/err"
expect_rc 2 "$bin" "$root/pcap/keys.pcap" --key
grep -q "option --key needs a value" "$tmp/err"
# Linux cooked (SLL, SLL2), raw-IP and BSD loopback (NULL, LOOP) copies of keys.pcap
# written by scapy: the same keys as the Ethernet frames they came from, in every mode
# (raw IP and loopback: the untagged IP frames).
/usr/bin/python3 "$root/tests/link_types.py" "$root/pcap/keys.pcap" "$tmp"
for opts in "--key flow" "--key packet" "--key srcip" "--key click" \
	"--key flow --vlan-mode separate" "--key packet --compare-from l4" \
	"--key packet --vlan-mode separate"; do
	# shellcheck disable=SC2086
	"$bin" $opts "$root/pcap/keys.pcap" | cut -d' ' -f2- >"$tmp/eth.keys"
	for l in sll sll2; do
		# shellcheck disable=SC2086
		"$bin" $opts "$tmp/$l.pcap" | cut -d' ' -f2- | cmp -s - "$tmp/eth.keys" ||
			{ echo "FAIL: $l keys differ ($opts)"; exit 1; }
	done
	# shellcheck disable=SC2086
	"$bin" $opts "$tmp/raw.pcap" | cut -d' ' -f2- >"$tmp/raw.keys"
	awk 'NR == FNR { want[$1 + 1] = 1; next } FNR in want' "$tmp/raw.idx" "$tmp/eth.keys" |
		cmp -s - "$tmp/raw.keys" || { echo "FAIL: raw keys differ ($opts)"; exit 1; }
	for l in null loop; do
		# shellcheck disable=SC2086
		"$bin" $opts "$tmp/$l.pcap" | cut -d' ' -f2- | cmp -s - "$tmp/raw.keys" ||
			{ echo "FAIL: $l keys differ ($opts)"; exit 1; }
	done
done
echo "ok: SLL, SLL2, raw IP and BSD loopback give the Ethernet frames' keys" \
	"($(wc -l <"$tmp/raw.idx") raw)"
"$bin" --version | grep -qx "pktdedup-keys [0-9]*\.[0-9]*\.[0-9]*"
echo "errors and summary ok"
