#!/usr/bin/env bash
# --suggest-window on a capture whose copies' delays are known: 1,000 keys 100 us apart,
# each seen twice; 990 copies 3 us after their original, 9 after 300 us, 1 after 30 ms.
# The windows that catch 99%, 99.9% and all of the copies are the upper bounds of the
# histogram buckets holding 3 us, 300 us and 30 ms: 5us, 500us and 50ms. The keys a
# window holds are the new-key rate times the window; the memory grows with the window;
# without delays (no --filter exact, no --window) the option is refused (status 2).
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

/usr/bin/python3 - "$tmp/d.pcap" <<'PY'
import struct, sys
frames = []
for k in range(1000):
    t = k * 100_000  # ns
    delay = 30_000_000 if k == 500 else 300_000 if k % 100 == 7 and k < 900 else 3_000
    eth = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00"
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 36, 0, 0, 64, 17, 0, b"\x0a\0\0\x01",
                     b"\xc0\0\x02\x01")
    f = eth + ip + struct.pack("!HHHHQ", 1024, 53, 16, 0, k)
    frames += [(t, f), (t + delay, f)]
frames.sort(key=lambda x: x[0])
out = [struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1)]  # nanosecond pcap
for t, f in frames:
    out.append(struct.pack("<IIII", t // 10**9, t % 10**9, len(f), len(f)) + f)
open(sys.argv[1], "wb").write(b"".join(out))
PY

"$bin" --pcap-in "$tmp/d.pcap" --filter exact --suggest-window --estimate-rate off \
	--stats-json "$tmp/s.json" >"$tmp/out.txt" 2>&1
/usr/bin/python3 - "$tmp/s.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
a = d["window_advice"]
assert [x["share"] for x in a] == [0.99, 0.999, 1], a
assert [x["window_ns"] for x in a] == [5_000, 500_000, 50_000_000], a
rate = 1000 / (999 * 100_000 + 3_000)  # new keys per ns over the capture's span
for x in a:
    assert x["keys_per_window_per_worker"] == math.ceil(rate * x["window_ns"]), (x, rate)
    assert x["memory_per_worker"] >= 65536 and x["predicted_fnr"] <= 1e-4, x
    assert x["predicted_fpr"] <= 1e-6, x
mem = [x["memory_per_worker"] for x in a]
assert mem == sorted(mem), mem
print("ok: --suggest-window: 99%% in 5us, 99.9%% in 500us, all in 50ms; memory %s" % mem)
PY
grep -q "99.9% of the copies within 500us: --window 500us --memory" "$tmp/out.txt" ||
	{ echo "FAIL: the summary lacks the advice: $(cat "$tmp/out.txt")" >&2; exit 1; }
rc=0
"$bin" --pcap-in "$tmp/d.pcap" --suggest-window >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] && grep -q "needs the delays of the copies" "$tmp/err" ||
	{ echo "FAIL: --suggest-window without delays: status $rc, $(cat "$tmp/err")" >&2; exit 1; }
echo "ok: --suggest-window without delays: status 2, $(cat "$tmp/err")"
