#!/usr/bin/env bash
# pktdedup-eval end to end: --keys/--verdicts round trip scored by an independent script,
# the acceptance command for every filter (at N keys: 10M, the command's own, unless the
# second argument says otherwise), the planner, and option errors (exit 2).
set -euo pipefail
eval_bin=$1
n=${2:-10000000}
src=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# 1. Round trip: keys written by Python (with 0 and 2^64-1), verdicts scored by Python.
"$py" - "$tmp/keys.bin" <<'PY'
import random, struct, sys
r = random.Random(7)
keys = [r.randrange(0, 40000) * 0x9E3779B97F4A7C15 % 2**64 for _ in range(200000)]
keys[10:14] = [0, 2**64 - 1, 0, 2**64 - 1]
open(sys.argv[1], "wb").write(b"".join(struct.pack("<Q", k) for k in keys))
PY
# Delivered mode: the truth counts what the filter under test delivered (seed 002,
# Definition 4), with and without the equal-timers heuristic.
for f in qqhtd sbf exact lru timerbf timerbf-delivered timerbf-equal exact-delivered; do
	w=()
	case $f in
	timerbf) w=(--window 5000) ;;
	timerbf-delivered | exact-delivered) w=(--window 5000 --window-mode delivered) ;;
	timerbf-equal) w=(--window 5000 --window-mode delivered --equal-timers 6 --k 8) ;;
	esac
	"$eval_bin" --filter ${f%-*} --memory 64K --keys "$tmp/keys.bin" --verdicts "$tmp/v.bin" \
		"${w[@]}" --json > "$tmp/out.json"
	want=$("$py" "$src/score_verdicts.py" "$tmp/keys.bin" "$tmp/v.bin" "${w[1]:-0}" \
		"${w[3]:-seen}")
	"$py" - "$tmp/out.json" "$want" "$f" <<'PY' && ok "round trip $f" || bad "round trip $f"
import json, sys
got = json.load(open(sys.argv[1]))
want = json.loads(sys.argv[2])
f = sys.argv[3]
fields = ["n", "distinct", "fp", "fn"]
diff = {k: (got[k], want[k]) for k in fields if got[k] != want[k]}
if f.startswith("exact") and (got["fp"] or got["fn"]):
    diff["exact errors"] = (got["fp"], got["fn"])
if diff:
    print(diff)
    sys.exit(1)
PY
done

# 2. The acceptance command works for every filter and prints the JSON fields.
for f in sbf rsbf bsbf bsbfsd rlbsbf qht qhtd qqhtd bloom lru fpbuffering timerbf exact qhtlru; do
	if "$eval_bin" --filter $f --memory 8M --stream uniform --n "$n" --distinct 0.15 \
		--json > "$tmp/$f.json" &&
		"$py" - "$tmp/$f.json" "$n" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
need = ["filter", "memory_bytes", "n", "distinct", "duplicates", "fp", "fn", "fpr", "fnr",
        "error_rate", "keys_per_sec"]
missing = [k for k in need if k not in o]
assert not missing, missing
assert o["n"] == int(sys.argv[2]) and o["distinct"] + o["duplicates"] == o["n"]
if o["filter"] != "timerbf":  # timerbf is scored against the windowed oracle
    assert abs(o["distinct"] / o["n"] - 0.15) < 0.002, o["distinct"]
assert o["keys_per_sec"] > 0
PY
	then ok "$n keys $f"; else bad "$n keys $f"; fi
done

# 3. Zipf stream and the table output.
"$eval_bin" --stream zipf --n 100000 --alpha 1.1 --universe 50000 --memory 256K \
	> "$tmp/zipf.txt" && [ "$(grep -c '' "$tmp/zipf.txt")" -eq 16 ] &&
	ok "zipf table" || bad "zipf table"

# 4. The planner prints parameters and a predicted FPR.
"$eval_bin" --plan --filter qqhtd --memory 64M --fpr 1e-6 > "$tmp/plan.txt" &&
	grep -q "qqhtd .*b=[0-9]* f=[0-9]*" "$tmp/plan.txt" && ok "plan" || bad "plan"

# 5. --series against the independent scorer on every prefix of the same keys.
"$eval_bin" --filter sbf --memory 4K --keys "$tmp/keys.bin" --verdicts "$tmp/v.bin" \
	--series 7 --json > "$tmp/series.json"
"$py" - "$tmp/keys.bin" "$tmp/v.bin" "$tmp/series.json" <<'PY' && ok "series" || bad "series"
import json, struct, sys
data = open(sys.argv[1], "rb").read()
keys = struct.unpack("<%dQ" % (len(data) // 8), data)
v = open(sys.argv[2], "rb").read()
pts = json.load(open(sys.argv[3]))["series"]
n = len(keys)
assert [p["n"] for p in pts] == [-(-n * i // 7) for i in range(1, 8)], [p["n"] for p in pts]
seen, d, fp, fn, j = set(), 0, 0, 0, 0
for i, k in enumerate(keys):
    dup = k in seen
    seen.add(k)
    d += not dup
    fp += (not dup) and v[i] == 1
    fn += dup and v[i] == 0
    if i + 1 == pts[j]["n"]:
        p = pts[j]
        assert p["distinct"] == d, (p, d)
        assert abs(p["fpr"] - fp / d) < 1e-8 and abs(p["fnr"] - fn / (i + 1 - d)) < 1e-8, (p, fp, fn)
        assert 0 < p["state"] <= 1
        j += 1
assert j == 7
PY

# More points than keys: one a key, and the whole stream still read.
"$eval_bin" --filter exact --n 5 --series 10 --json |
	"$py" -c 'import json,sys; o=json.load(sys.stdin); sys.exit(o["n"] != 5 or [p["n"] for p in o["series"]] != [1, 2, 3, 4, 5])' &&
	ok "series > n" || bad "series > n"

# 6. The bitmap oracle (generated streams) against the exact hash set (the filter).
for st in "--stream uniform --distinct 0.3" "--stream zipf" "--stream poisson --lambda 0.3" \
	"--stream bmodel --levels 4"; do
	# shellcheck disable=SC2086
	"$eval_bin" --filter exact --n 300000 $st --json > "$tmp/ex.json" &&
		"$py" -c 'import json,sys; o=json.load(open(sys.argv[1])); sys.exit(o["fp"] or o["fn"] or o["distinct"] in (0, o["n"]))' \
			"$tmp/ex.json" && ok "oracle agrees ($st)" || bad "oracle ($st)"
done

# 7. Poisson and b-model streams (Deng & Rafiei section 5.1): the share of positions with
# a frequent key, overall (poisson) and per half (one b-model level, bias 0.9).
"$eval_bin" --filter exact --n 400000 --stream poisson --lambda 0.3 --spread 1 --series 2 \
	--json > "$tmp/poisson.json"
"$eval_bin" --filter exact --n 400000 --stream bmodel --levels 1 --bias 0.9 --volume 0.5 \
	--spread 1 --series 2 --json > "$tmp/bmodel.json"
"$py" - "$tmp/poisson.json" "$tmp/bmodel.json" <<'PY' && ok "poisson/bmodel shares" || bad "poisson/bmodel shares"
import json, sys
# spread 1: the frequent arrivals fall on a handful of keys (a few dozen distinct)
p = json.load(open(sys.argv[1]))
own = p["distinct"] / p["n"]
assert abs(own - 0.7) < 0.005, own
b = json.load(open(sys.argv[2]))["series"]
half = 200000
own1 = b[0]["distinct"] / half
own2 = (b[1]["distinct"] - b[0]["distinct"]) / half
# the volume 0.5 n splits 0.9 / 0.1 over the halves: densities 0.9 and 0.1, either way round
assert sorted([round(own1, 2), round(own2, 2)]) == [0.1, 0.9], (own1, own2)
PY

# 8. --memory-bits: the qht family gets the lines whose rows come nearest M / (b f).
for bf in "1 2" "2 3" "8 5" "16 6"; do
	set -- $bf
	"$eval_bin" --filter qht --b "$1" --f "$2" --memory-bits 65536 --n 1000 --json \
		> "$tmp/mb.json"
	"$py" - "$tmp/mb.json" "$1" "$2" <<'PY' && ok "memory-bits b=$1 f=$2" || bad "memory-bits b=$1 f=$2"
import json, sys
o = json.load(open(sys.argv[1]))
b, f = int(sys.argv[2]), int(sys.argv[3])
rows = o["memory_bytes"] * 8 // (b * f)
assert abs(rows - 65536 / (b * f)) <= (512 // (b * f)) / 2, rows
PY
done
"$eval_bin" --filter sbf --max 1 --memory-bits 16384 --n 1000 --json |
	grep -q '"memory_bytes": 2048,' && ok "memory-bits sbf" || bad "memory-bits sbf"

"$eval_bin" --version | grep -qx "pktdedup-eval [0-9]*\.[0-9]*\.[0-9]*" && ok "--version" ||
	bad "--version"

# 9. Bad options: exit 2 and a message naming the option.
expect_2() {
	local what=$1
	shift
	local rc=0
	"$eval_bin" "$@" > /dev/null 2> "$tmp/err.txt" || rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$what" "$tmp/err.txt"; then
		ok "rejects $*"
	else
		bad "rc=$rc for $* ($(cat "$tmp/err.txt"))"
	fi
}
printf 'abc' > "$tmp/odd.bin"
expect_2 --filter --filter nope
expect_2 --memory --memory 8X
expect_2 --memory --memory -1
expect_2 --n --n -5
expect_2 "--k needs a single --filter" --k 3
expect_2 "--pstar needs a single --filter" --filter all --pstar 0.1
expect_2 "k: not a parameter of qqhtd" --filter qqhtd --k 3 --n 100
expect_2 --distinct --distinct 1.5
expect_2 --keys --keys "$tmp/missing.bin"
expect_2 "multiple of 8" --keys "$tmp/odd.bin"
: >"$tmp/empty.bin"
expect_2 "empty: no keys" --keys "$tmp/empty.bin"
# --verdicts onto the keys (by a symlink too) would empty them before they are read
head -c 800 /dev/urandom >"$tmp/k.bin"
cp "$tmp/k.bin" "$tmp/k0.bin"
ln -s k.bin "$tmp/k-link.bin"
expect_2 "the same file as --keys" --filter sbf --keys "$tmp/k.bin" --verdicts "$tmp/k-link.bin"
cmp -s "$tmp/k.bin" "$tmp/k0.bin" && ok "the keys are left whole" || bad "the keys were written"
expect_2 --verdicts --verdicts "$tmp/x"
expect_2 "unknown option --bogus" --bogus
expect_2 "unknown option -z (" -zq # inside a group: not the word before it
expect_2 "qht_f" --filter qht --f 40
expect_2 "window" --filter qht --window 10
expect_2 --alpha --alpha 2
expect_2 "needs a value" --memory
expect_2 "at least 64" --memory 63
expect_2 "exclusive" --memory 1M --memory-bits 65536
expect_2 --lambda --lambda 0.5
expect_2 --lambda --stream poisson --lambda 2
expect_2 --spread --spread 10
expect_2 "volume \* (2 bias)^levels" --stream bmodel --bias 0.9 --levels 6 --volume 0.5 --n 10
expect_2 --series --series 0
# filters over the machine's available memory: refused before any is made, with the
# total (a single qhtlru a GiB over MemAvailable; every filter at once, lru and
# fpbuffering 4 times --memory, a ninth of it each)
avail=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
rc=0
"$eval_bin" --filter qhtlru --memory "$((avail / 1024 + 1024))M" --n 100 >/dev/null \
	2>"$tmp/mem.err" || rc=$?
if [ "$rc" -eq 1 ] && grep -q "^pktdedup-eval: qhtlru needs .* GiB, more than the .* GiB this \
machine has available (MemAvailable): lower --memory$" "$tmp/mem.err"; then
	ok "a filter over MemAvailable: status 1, $(cut -c15-60 "$tmp/mem.err")..."
else
	bad "a filter over MemAvailable: status $rc: $(cat "$tmp/mem.err")"
fi
rc=0
"$eval_bin" --memory "$((avail / 9 / 1024 + 64))M" --n 100 >/dev/null 2>"$tmp/mem.err" || rc=$?
if [ "$rc" -eq 1 ] && grep -q "the filters need .* GiB together (all run at once)" \
	"$tmp/mem.err"; then
	ok "every filter at once over MemAvailable: status 1"
else
	bad "every filter at once over MemAvailable: status $rc: $(cat "$tmp/mem.err")"
fi
# the exact oracle (keys from a file) with no memory to grow: status 1 and no scores,
# never scores from a truth that left keys out, never a hang or a crash. The address
# space is capped lower and lower until the oracle runs out (where it does depends on
# what the libraries map, so the cap is searched for). Not with AddressSanitizer, whose
# shadow memory needs an address space no cap allows. (grep reads all of ldd's lines:
# grep -q would leave at the match, and ldd, writing on, would die of SIGPIPE and fail
# the pipe under pipefail, in about one run in four.)
head -c 24000000 /dev/urandom >"$tmp/k3m.bin" # 3,000,000 random 64-bit keys
found=0 caps=$(seq 200000 -20000 20000)
if ldd "$eval_bin" | grep libasan >/dev/null; then
	caps= found=-1
	ok "the exact oracle out of memory: skipped (AddressSanitizer)"
fi
for kb in $caps; do
	rc=0
	(ulimit -v "$kb" && exec "$eval_bin" --filter qhtlru --memory 1M --keys "$tmp/k3m.bin") \
		>"$tmp/cap.out" 2>"$tmp/cap.err" || rc=$?
	if [ "$rc" -eq 1 ] && grep -q "the exact oracle ran out of memory: [0-9]* keys not \
recorded" "$tmp/cap.err"; then
		[ -s "$tmp/cap.out" ] && { bad "oracle out of memory: scores printed"; break; }
		found=$kb
		break
	fi
	[ "$rc" -le 2 ] || { bad "oracle under a ${kb} KiB cap: status $rc"; break; }
done
[ "$found" -gt 0 ] && ok "the exact oracle out of memory (ulimit -v $found): status 1," \
	"no scores"
[ "$found" -ne 0 ] || bad "no cap made the oracle run out: $(cat "$tmp/cap.err")"
# -h is --help, in every tool
if "$eval_bin" -h >"$tmp/h1.txt" && "$eval_bin" --help >"$tmp/h2.txt" &&
	cmp -s "$tmp/h1.txt" "$tmp/h2.txt" && [ -s "$tmp/h1.txt" ]; then
	ok "-h is --help"
else
	bad "-h is not --help"
fi

# a table that cannot be written is an error, not a silent status 0
if "$eval_bin" --n 1000 >/dev/full 2>"$tmp/full.err"; then
	bad "> /dev/full: status 0"
elif grep -q "pktdedup-eval: write error: No space left on device" "$tmp/full.err"; then
	ok "> /dev/full: status 1, said"
else
	bad "> /dev/full: $(cat "$tmp/full.err")"
fi

echo "eval_cli: $fails failure(s)"
[ $fails -eq 0 ]
