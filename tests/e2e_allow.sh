#!/usr/bin/env bash
# --allow N against a plain model in Python, on the bundled pcap/dups.pcap with the exact
# filter (so the model's truth is the filter's): the keys come from pktdedup-keys, and a
# frame is kept when it has no key (forwarded by default), when its key is new (never
# seen, or with --window not within W of its last copy: every copy restarts the window,
# the default seen mode; with --window-mode delivered, of the last time it was new), or
# when it is among the first N copies since.
#  - --key click --allow 1 and 2 (192 HTTP requests, 111 distinct);
#  - --key srcip --allow 3, and --allow 1 with --window 20ms, seen and delivered;
#  - the counters: allowed = the copies kept, duplicate = all copies, dropped = the rest.
# Usage: e2e_allow.sh PKTDEDUP PKTDEDUP-KEYS
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
keys=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # key allow window-ns(0: none) mode pktdedup-options...
	local key=$1 allow=$2 win=$3 mode=$4 w=()
	shift 4
	[ "$win" = 0 ] || w=(--window "${win}ns" --window-mode "$mode")
	"$keys" --key "$key" "$in" >"$tmp/keys.txt"
	"$bin" --pcap-in "$in" --pcap-out "$tmp/out.pcap" --filter exact --key "$key" \
		--allow "$allow" "${w[@]}" --quiet --stats-json "$tmp/s.json" "$@"
	/usr/bin/python3 - "$in" "$tmp/keys.txt" "$tmp/out.pcap" "$tmp/s.json" "$allow" "$win" "$key" \
		"$mode" <<'PY'
import json, struct, sys
def frames(path):
    d = open(path, "rb").read()
    nsec = struct.unpack("<I", d[:4])[0] == 0xa1b23c4d
    o, out = 24, []
    while o + 16 <= len(d):
        s, u, c, _ = struct.unpack("<IIII", d[o:o + 16])
        out.append((s * 10**9 + (u if nsec else u * 1000), d[o + 16:o + 16 + c]))
        o += 16 + c
    return out
inp, got = frames(sys.argv[1]), frames(sys.argv[3])
allow, window = int(sys.argv[5]), int(sys.argv[6])
key = {}
for line in open(sys.argv[2]):
    f = line.split()
    if f[1] == "ok":
        key[int(f[0])] = f[2]
last, count, want, copies, allowed = {}, {}, [], 0, 0
for i, (t, frame) in enumerate(inp):
    k = key.get(i)
    if k is None:
        want.append(frame)
        continue
    if k in last and (window == 0 or t <= last[k] or t - last[k] <= window):
        copies += 1
        count[k] += 1
        if count[k] <= allow:
            allowed += 1
            want.append(frame)
    else:
        count[k] = 0
        want.append(frame)
        if sys.argv[8] == "delivered":
            last[k] = t  # the window runs from the time the key was new
    if sys.argv[8] == "seen":
        last[k] = max(last.get(k, t), t)
assert [f for _, f in got] == want, "kept %d frames, the model %d" % (len(got), len(want))
t = json.load(open(sys.argv[4]))["total"]
assert (t["allowed"], t["duplicate"], t["dropped"]) == (allowed, copies, copies - allowed), \
    (t, allowed, copies)
print("ok: --key %s --allow %d%s: the model's %d frames of %d; %d of %d copies allowed"
      % (sys.argv[7], allow, " --window %dns (%s)" % (window, sys.argv[8]) if window else "",
         len(want), len(inp), allowed, copies))
PY
}

check click 1 0 seen
check click 2 0 seen
check srcip 3 0 seen
check srcip 1 20000000 seen
check srcip 1 20000000 delivered
