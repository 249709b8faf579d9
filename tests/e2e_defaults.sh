#!/usr/bin/env bash
# The defaults lose nothing but copies, and say what they chose:
#  - the default key is the packet: a 10-packet TCP connection with distinct payloads
#    keeps all 10 (and its one exact copy is dropped), where a flow key would keep 1;
#  - the default loss budget is 1e-6: the plan says so, predicts no more, and 2,000,000
#    unique frames lose at most 2;
#  - the start-up line and the JSON give the resolved parameters, the predicted FPR and
#    how many keys the state remembers (checked against the layout's own arithmetic);
#  - a filter that cannot keep the budget is refused (status 2) unless --fpr accepts it;
#  - the README's quick-start count lines are what the main job prints;
#  - the packet key's window is 100 ms: mirror copies dropped, a host's own repeats
#    300 ms and 1 s later kept, and said at the start.
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# one TCP connection, 10 segments with distinct payloads, segment 5 seen twice (a copy)
/usr/bin/python3 - "$tmp/tcp.pcap" <<'PY'
import struct, sys
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
def seg(i):
    payload = b"segment %02d of the connection" % i
    tcp = struct.pack("!HHIIBBHHH", 40000, 80, 1000 + 100 * i, 1, 5 << 4, 0x18, 512, 0, 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), 7 + i, 0x4000,
                     64, 6, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + tcp + payload
out = open(sys.argv[1], "wb")
out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
for t, i in enumerate(list(range(5)) + [4] + list(range(5, 10))):
    f = seg(i)
    out.write(struct.pack("<IIII", 1700000000, t, len(f), len(f)) + f)
PY
"$bin" --pcap-in "$tmp/tcp.pcap" --pcap-out "$tmp/tcp-out.pcap" --stats-json "$tmp/tcp.json" \
	>/dev/null 2>"$tmp/tcp.err" || fail "default run: status $?"
[ "$($tool frames "$tmp/tcp-out.pcap" | wc -l)" -eq 10 ] ||
	fail "default key: $($tool frames "$tmp/tcp-out.pcap" | wc -l) of 10 segments kept"
[ "$(json "$tmp/tcp.json" duplicate)" -eq 1 ] || fail "default key: the copy was not dropped"
editcap -F pcap -D 100 "$tmp/tcp.pcap" "$tmp/tcp-editcap.pcap" >/dev/null 2>&1
cmp "$tmp/tcp-editcap.pcap" "$tmp/tcp-out.pcap" || fail "default run: not editcap -D's file"
"$bin" --pcap-in "$tmp/tcp.pcap" --pcap-out "$tmp/flow.pcap" --key flow >/dev/null 2>&1
[ "$($tool frames "$tmp/flow.pcap" | wc -l)" -eq 1 ] || fail "--key flow: not 1 segment"
"$bin" --help >"$tmp/help.txt"
grep -q "packet (default)" "$tmp/help.txt" || fail "--help: the default key"
echo "ok: default key packet: 10 of 10 segments kept, the copy dropped (= editcap -D);" \
	"--key flow keeps 1"

# the plan, said: the default filter is qhtlru, one row of b fingerprints of f bits in
# each of the 2^20 cache lines of 64 MiB, and the plan predicts its miss rate at the gap
# it assumed
/usr/bin/python3 - "$tmp/tcp.json" "$tmp/tcp.err" <<'PY'
import json, math, re, sys
p = json.load(open(sys.argv[1]))["plan"]
err = open(sys.argv[2]).read()
assert p["filter"] == "qhtlru" and p["loss_budget"] == 1e-6, p
b, f = p["qht_b"], p["qht_f"]
assert b * f <= 512 and 1 - (1 - 1 / (2 ** f - 1)) ** b <= 1e-6, (b, f)
assert abs(p["predicted_fpr"] - (1 - (1 - 1 / (2 ** f - 1)) ** b)) < 1e-12, p
assert p["remembers"] == (64 << 20) // 64 * b, p
# LRU rows: a copy g keys later is missed iff b of them land in its row, Poisson(g/rows)
rows, g = (64 << 20) // 64, p["assumed_gap"]
lam = g / rows
poisson_tail = 1 - sum(math.exp(-lam) * lam ** j / math.factorial(j) for j in range(b))
assert g > 0 and abs(p["predicted_fnr"] - poisson_tail) < 1e-6 * max(1, poisson_tail), p
assert ("a copy %d distinct keys after its original is missed with predicted probability "
        "%.3g" % (g, p["predicted_fnr"])) in err, err
line = "plan: qhtlru b=%d f=%d; remembers about the last %d distinct keys per worker; " \
       "predicted false-positive rate %.3g" % (b, f, p["remembers"], p["predicted_fpr"])
assert line in err and "loss budget 1e-06" in err, err
print("ok: plan said: qhtlru b=%d f=%d, predicted FPR %.3g, remembers %d keys" %
      (b, f, p["predicted_fpr"], p["remembers"]))
PY

# with --window and no --filter: qhtlru's windowed rows, planned for a gap of one window
# at 14.88 Mpps (1 ms: 14,880 keys). At 64 MiB (1,048,576 rows, 0.014 keys a row) rows
# never overflow, and the window's edge decides: 7 lanes of 27 bits with 37-bit ages,
# exact to the ns (14 lanes of 24 bits would keep 8-bit ages). At 1 MiB and 10 ms
# (148,809 keys over 16,384 rows: 9.1 a row) overflow dominates: 14 lanes of 24 bits
# (1-(1-1/(2^24-1))^14 = 8.3e-7 <= 1e-6; 23 bits would give 1.7e-6).
for run in "--window 1ms:7:27:14880" "--window 10ms --memory 1M:14:24:148809"; do
	IFS=: read -r opts b f gap <<<"$run"
	# shellcheck disable=SC2086
	"$bin" --pcap-in "$tmp/tcp.pcap" $opts --stats-json "$tmp/win.json" >"$tmp/win.out" 2>&1 ||
		fail "$opts without --filter: status $?"
	/usr/bin/python3 - "$tmp/win.json" "$b" "$f" "$gap" <<'PY' || fail "$opts: not windowed qhtlru b=$b f=$f"
import json, sys
p = json.load(open(sys.argv[1]))["plan"]
b, f, gap = map(int, sys.argv[2:])
assert p["filter"] == "qhtlru" and (p["qht_b"], p["qht_f"]) == (b, f), p
assert p["assumed_gap"] == gap, p
PY
	grep -q "after its original is missed with predicted probability .* (assumed: one --window at 14.88 Mpps" "$tmp/win.out" ||
		fail "$opts: the plan line does not say the gap came from the window"
	echo "ok: $opts without --filter plans windowed qhtlru b=$b f=$f for a gap of $gap keys"
done

# a filter that cannot keep the budget: refused, unless --fpr accepts its rate
rc=0
"$bin" --pcap-in "$tmp/tcp.pcap" --filter bsbf >/dev/null 2>"$tmp/bsbf.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "predicted false-positive rate 0.25.*above the loss budget" \
	"$tmp/bsbf.err" || { cat "$tmp/bsbf.err" >&2; fail "bsbf at 1e-6: status $rc"; }
"$bin" --pcap-in "$tmp/tcp.pcap" --filter bsbf --fpr 0.25 >/dev/null 2>&1 ||
	fail "bsbf --fpr 0.25: status $?"
echo "ok: bsbf (predicted 0.25) refused at the default budget, accepted with --fpr 0.25"
# a Bloom filter never forgets: past its capacity its FPR climbs toward 1 (1 MiB and 3
# million unique frames dropped 1,254,298 under a plan of 1e-6), so only a run that says
# how many distinct keys it will see (--expected-n) may have one
rc=0
"$bin" --pcap-in "$tmp/tcp.pcap" --filter bloom --memory 1M >/dev/null 2>"$tmp/bl.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "filter bloom never forgets a key: past 287129 distinct keys" \
	"$tmp/bl.err" || { cat "$tmp/bl.err" >&2; fail "bloom without --expected-n: status $rc"; }
"$bin" --pcap-in "$tmp/tcp.pcap" --pcap-out /dev/null --filter bloom --memory 1M \
	--expected-n 1000 >"$tmp/bl.err" 2>&1 || { cat "$tmp/bl.err" >&2; fail "bloom --expected-n"; }
grep -q "plan: bloom k=.*; remembers every key (its false-positive rate grows with them)" \
	"$tmp/bl.err" || { cat "$tmp/bl.err" >&2; fail "bloom's plan line"; }
echo "ok: bloom refused without --expected-n (it never forgets), planned with it"

# 2,000,000 unique frames through the default filter: at most 2 dropped (fixed seed:
# the same verdicts every run)
/usr/bin/python3 "$root/scripts/gen_udp_pcap.py" "$tmp/unique.pcap" 2000000 >/dev/null
"$bin" --pcap-in "$tmp/unique.pcap" --seed 12345 --stats-json "$tmp/unique.json" \
	>/dev/null 2>&1 || fail "2M unique: status $?"
lost=$(json "$tmp/unique.json" duplicate)
[ "$(json "$tmp/unique.json" rx)" -eq 2000000 ] && [ "$lost" -le 2 ] ||
	fail "2M unique frames: $lost dropped as copies"
echo "ok: 2,000,000 unique frames, default filter: $lost dropped (budget: 2)"

# Without --seed each run draws its own hash key, and every worker's filter uses it: a
# small bsbf's false positives (which frames are taken for copies) differ between two
# runs, and are the same with one --seed given twice.
/usr/bin/python3 "$root/scripts/gen_udp_pcap.py" "$tmp/u20k.pcap" 20000 >/dev/null
small() { # out [seed option]
	"$bin" --pcap-in "$tmp/u20k.pcap" --pcap-out "$1" --filter bsbf --fpr 0.25 \
		--memory 4KB --workers 2 --quiet "${@:2}" >/dev/null 2>&1 || fail "bsbf 4KB: status $?"
}
small "$tmp/s1.pcap" && small "$tmp/s2.pcap"
small "$tmp/s3.pcap" --seed 3 && small "$tmp/s4.pcap" --seed 3
cmp -s "$tmp/s3.pcap" "$tmp/s4.pcap" || fail "one --seed twice: different outputs"
! cmp -s "$tmp/s1.pcap" "$tmp/s2.pcap" ||
	fail "two runs without --seed dropped the same frames: the hash key is not drawn per run"
echo "ok: without --seed the filters' hash key is drawn per run (two runs differ; one seed twice does not)"

# The README's quick start shows the main job's count lines (scripts/quickstart.sh's
# command): they are what it prints now, its time left out.
counts() { grep -E '^pktdedup: (1200 packets in |forwarded )' | sed 's/ in [0-9.]* s:/ in T s:/'; }
want=$(counts <"$root/README.md")
got=$("$bin" --pcap-in "$in" --pcap-out "$tmp/quick.pcap" --key packet \
	--stats-json "$tmp/quick.json" 2>&1 | counts)
[ -n "$want" ] && [ "$want" = "$got" ] ||
	fail "README's quick-start lines: '$want'; the main job prints: '$got'"
echo "ok: README's quick-start counts are the main job's"

# The packet key's default window, 100 ms: a mirror's copy 50 us after its packet is
# dropped, the same bytes sent again by their host later are kept. An IPv6 TCP segment
# without timestamps (a retransmission 300 ms later: TCP's least timeout is 200 ms) and
# an IPv4 DNS query with IP ID 0 and DF (an unconnected Linux socket's; retried 1 s
# later), each packet with its mirror copy. Without a window (--window none) every
# repeat went as a copy.
/usr/bin/python3 - "$tmp/rtx.pcap" <<'PY'
import struct, sys
eth = lambda t: b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01" + struct.pack("!H", t)
payload = b"x" * 100
tcp = struct.pack("!HHIIBBHHH", 50000, 443, 1000, 2000, 5 << 4, 0x18, 512, 0, 0) + payload
v6 = eth(0x86DD) + struct.pack("!IHBB", 6 << 28, len(tcp), 6, 64) + \
    bytes.fromhex("20010db8000000000000000000000001") + \
    bytes.fromhex("20010db8000000000000000000000002") + tcp
dns = struct.pack("!HHHHHH", 4242, 0x0100, 1, 0, 0, 0) + b"\x07example\x03com\x00" + \
    struct.pack("!HH", 1, 1)
udp = struct.pack("!HHHH", 40000, 53, 8 + len(dns), 0) + dns
v4 = eth(0x0800) + struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17,
                               0, bytes([192, 0, 2, 1]), bytes([192, 0, 2, 53])) + udp
out = open(sys.argv[1], "wb")
out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
# (microseconds, frame): each packet, then its mirror copy 50 us later
for us, f in ((0, v6), (50, v6), (10000, v4), (10050, v4), (300000, v6), (300050, v6),
              (1010000, v4), (1010050, v4)):
    out.write(struct.pack("<IIII", 1700000000 + us // 1000000, us % 1000000, len(f), len(f)) + f)
PY
"$bin" --pcap-in "$tmp/rtx.pcap" --pcap-out "$tmp/rtx-out.pcap" --stats-json "$tmp/rtx.json" \
	>/dev/null 2>"$tmp/rtx.err" || fail "default window: status $?"
[ "$(json "$tmp/rtx.json" unique)" -eq 4 ] && [ "$(json "$tmp/rtx.json" duplicate)" -eq 4 ] ||
	fail "default window: $(json "$tmp/rtx.json" unique) unique, want the 4 sent (2 again)"
kept=$(/usr/bin/python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(); o = 24; t = []
while o + 16 <= len(d):
    s, u, c, _ = struct.unpack("<IIII", d[o:o + 16]); t.append(str((s - 1700000000) * 10**6 + u))
    o += 16 + c
print(" ".join(t))' "$tmp/rtx-out.pcap")
[ "$kept" = "0 10000 300000 1010000" ] || fail "default window: kept the frames of us $kept"
grep -q "window 100ms, the default with --key packet" "$tmp/rtx.err" ||
	{ cat "$tmp/rtx.err" >&2; fail "default window: not said"; }
! grep -q "no window" "$tmp/rtx.err" || fail "default window: says 'no window'"
# without a window (asked for, or a filter that takes none) the repeats go as copies,
# and the start line says so
for opts in "--window none" "--filter sbf"; do
	"$bin" --pcap-in "$tmp/rtx.pcap" $opts --stats-json "$tmp/rtx-none.json" \
		>/dev/null 2>"$tmp/rtx.err" || fail "$opts: status $?"
	[ "$(json "$tmp/rtx-none.json" unique)" -eq 2 ] || fail "$opts: not 2 unique"
	grep -q "no window (.*): the same bytes sent again later .* count as a copy" \
		"$tmp/rtx.err" || { cat "$tmp/rtx.err" >&2; fail "$opts: the start line does not say"; }
done
echo "ok: default window 100 ms: a retransmission 300 ms and a DNS retry 1 s later kept," \
	"their mirror copies 50 us later dropped; --window none and --filter sbf drop the" \
	"repeats too, and say so"
