#!/usr/bin/env bash
# The inline worker (a net_pcap port, not replay) on pcap/dups.pcap read once, its output
# written by net_pcap's tx_pcap, against the fixture generator's expectations:
#  - drop, exact filter, packet keys: the frames out are the input's non-duplicates, in
#    input order;
#  - mark: every frame out in order, exactly the duplicates marked (as replay marks them);
#  - --dup-port 1: the kept frames out of port 0, the copies (marked with mark) out of
#    port 1, each in order; a --dup-port that kept packets leave by refused (status 2);
#  - count: every frame out, in input order (bursts sent whole as received, when every
#    packet goes on, interleave with packets buffered one by one), and the duplicate and
#    unique counts are the generator's;
#  - drop on mirrored traffic (scripts/gen_udp_pcap.py --mirror: 64 originals, then
#    their 64 copies): whole bursts of originals, copies dropped; editcap -D's frames;
#    the same with a filter far from the core (qhtlru 16 MiB), whose bursts wait for
#    the next before they are decided (pipelined), the last at the quiet link.
#  - two workers with software dispatch, one key: a full ring loses nothing, and the
#    times of the lookups handed over after it (the default window) arrive intact.
#  - three workers with software dispatch, each receiving a third of the mirrored
#    traffic (so each owner drains two rings): exactly one of each distinct frame out,
#    with the exact filter and with a far one (each worker's own keys then wait a burst,
#    the last until the link is quiet), the second with smaller rings (--dispatch-ring);
#    and fifteen workers on one CPU, the worker count of a 16-core machine's sweep:
#    each owner drains 14 rings of the smallest size (128 lookups);
#  - three workers with software dispatch and --action count on one port: each worker's
#    frames out in its queue's order (none waits for a verdict), the duplicates exact;
#  - three workers with software dispatch and one RX queue: worker 0 receives, workers
#    1 and 2 only decide; exactly one of each distinct frame out; with one TX queue the
#    port is refused at start (status 2), and a pool too small for it is named;
#  - two workers with software dispatch stop while one shares its CPU with a busy
#    loop: both leave, every packet accounted for;
#  - a pair of ports with software dispatch, one RX queue each (worker 0 receives both)
#    and two (every worker receives both): each port's frames leave by the other; with
#    --action count each port's duplicates are counted against it.
# In each run pktdedup's counters add up (rx = tx + dropped), and tx is what reached
# the file. The packet key's runs have no window (--window none): their truth counts
# every copy, and workers that take turns on one CPU, or a loaded machine, can receive a
# copy more than the default 100 ms after its original in RX time. The periodic line printed at the stop, after the ports closed, gives their
# loss as read before (the JSON's) without querying a closed port.
set -euo pipefail
. "$(dirname "$0")/e2e_common.sh"
tmp=$(mktemp -d)
prefix=pdinl$$
trap 'rm -rf "$tmp" /var/run/dpdk/$prefix' EXIT

run() { # in out json pktdedup-options...
	local rc=0
	until_rx "$($tool frames "$1" | wc -l)" "$bin" --no-huge -m 512 --no-pci --no-shconf \
		--file-prefix "$prefix" --log-level '*:warning' -l 0 \
		--vdev "net_pcap0,rx_pcap=$1,tx_pcap=$2" -- --ports 0 --stats-json "$3" \
		--window none "${@:4}" || rc=$?
	[ "$rc" -eq 0 ] || { echo "FAIL: status $rc: $(cat "$tmp/err")" >&2; exit 1; }
	/usr/bin/python3 -c 'import json,sys
t = json.load(open(sys.argv[1]))["total"]
sys.exit(0 if t["rx"] == t["tx"] + t["dropped"] and t["tx_failed"] == 0 else 1)' "$3" ||
		{ echo "FAIL: counters do not add up: $(cat "$3")" >&2; exit 1; }
	[ "$(json "$3" tx)" -eq "$($tool frames "$2" | wc -l)" ] ||
		{ echo "FAIL: tx $(json "$3" tx) but $($tool frames "$2" | wc -l) frames written" >&2; exit 1; }
}

n=$($tool frames "$in" | wc -l)
run "$in" "$tmp/drop.pcap" "$tmp/drop.json" --filter exact --key packet --action drop \
	--stats-interval 1
# the last periodic line comes after the ports closed: their loss as read at the stop,
# and no query of a closed port
! grep -q "Invalid port" "$tmp/err" || { echo "FAIL: $(grep "Invalid port" "$tmp/err")" >&2; exit 1; }
last=$(grep -o 'lost_at_ports [0-9]*' "$tmp/err" | tail -1)
[ "$last" = "lost_at_ports $(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["lost_at_ports"])' "$tmp/drop.json")" ] ||
	{ echo "FAIL: last periodic line says '$last', the JSON $(cat "$tmp/drop.json")" >&2; exit 1; }
$tool expect-drop "$in" "$exp" packet >"$tmp/want.txt"
$tool frames "$tmp/drop.pcap" >"$tmp/got.txt"
diff -q "$tmp/want.txt" "$tmp/got.txt" >/dev/null ||
	{ echo "FAIL: drop: not the input's non-duplicates in order ($(wc -l <"$tmp/got.txt") of $(wc -l <"$tmp/want.txt"))" >&2; exit 1; }
echo "ok: drop: $(wc -l <"$tmp/got.txt") of $n frames out, the non-duplicates in order"

# mark: every frame out in order, exactly the duplicates with DSCP 10 and a valid
# checksum, at the IP header the key parse found (carried in the mbuf to the action)
run "$in" "$tmp/mark.pcap" "$tmp/mark.json" --filter exact --key packet --action mark \
	--mark-dscp 10
$tool expect-mark "$in" "$exp" packet 10 >"$tmp/want.txt"
$tool frames "$tmp/mark.pcap" >"$tmp/got.txt"
diff -q "$tmp/want.txt" "$tmp/got.txt" >/dev/null ||
	{ echo "FAIL: mark: not the input with exactly its duplicates marked" >&2; exit 1; }
echo "ok: mark: all $n frames out in order, $(json "$tmp/mark.json" marked) duplicates marked"

# --dup-port: the copies leave by a port of their own (net_pcap1, send only), the kept
# frames by port 0: each file holds the generator's frames, in order; a --dup-port that
# the kept frames leave by is refused (status 2: the copies would go out with them)
for mode in drop mark; do
	rc=0
	act=(--action "$mode")
	[ "$mode" = drop ] || act+=(--mark-dscp 10)
	until_rx "$n" "$bin" --no-huge -m 512 --no-pci --no-shconf --file-prefix "$prefix" \
		--log-level '*:warning' -l 0 \
		--vdev "net_pcap0,rx_pcap=$in,tx_pcap=$tmp/dp-kept.pcap" \
		--vdev "net_pcap1,tx_pcap=$tmp/dp-dups.pcap" -- --ports 0 --dup-port 1 \
		--filter exact --key packet --window none "${act[@]}" \
		--stats-json "$tmp/dp.json" 2>/dev/null || rc=$?
	[ "$rc" -eq 0 ] || { echo "FAIL: --dup-port ($mode): status $rc: $(cat "$tmp/err")" >&2; exit 1; }
	$tool expect-drop "$in" "$exp" packet >"$tmp/want.txt"
	$tool frames "$tmp/dp-kept.pcap" | diff -q "$tmp/want.txt" - >/dev/null ||
		{ echo "FAIL: --dup-port ($mode): port 0 did not get the kept frames" >&2; exit 1; }
	# the copies, in order (marked with --action mark), and every frame sent counted
	$tool expect-dups "$in" "$exp" packet $([ "$mode" = mark ] && echo 10) >"$tmp/want.txt"
	n_k=$($tool frames "$tmp/dp-kept.pcap" | wc -l)
	n_d=$($tool frames "$tmp/dp-dups.pcap" | wc -l)
	$tool frames "$tmp/dp-dups.pcap" | diff -q "$tmp/want.txt" - >/dev/null &&
		[ "$(json "$tmp/dp.json" tx)" -eq $((n_k + n_d)) ] ||
		{ echo "FAIL: --dup-port ($mode): $n_d copies out, not the $(wc -l <"$tmp/want.txt") wanted" >&2; exit 1; }
done
for ports in 0 0,1; do
	rc=0
	"$bin" --no-huge -- --ports "$ports" --dup-port 0 >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 2 ] && grep -q "dup-port 0: the kept packets leave by that port" "$tmp/err" ||
		{ echo "FAIL: --ports $ports --dup-port 0: status $rc" >&2; exit 1; }
done
echo "ok: --dup-port: the kept frames by port 0, the copies by port 1 (drop and mark), each" \
	"as the generator says; a --dup-port among --ports refused"

run "$in" "$tmp/count.pcap" "$tmp/count.json" --filter exact --key packet --action count
$tool frames "$in" >"$tmp/want.txt"
$tool frames "$tmp/count.pcap" >"$tmp/got.txt"
diff -q "$tmp/want.txt" "$tmp/got.txt" >/dev/null ||
	{ echo "FAIL: count: the frames out are not the input in order" >&2; exit 1; }
read -r dups uniq nokey <<<"$($tool count "$exp" packet)"
[ "$(json "$tmp/count.json" duplicate)" -eq "$dups" ] && [ "$(json "$tmp/count.json" unique)" -eq "$uniq" ] ||
	{ echo "FAIL: count: duplicate/unique $(json "$tmp/count.json" duplicate)/$(json "$tmp/count.json" unique), want $dups/$uniq" >&2; exit 1; }
echo "ok: count: all $n frames out in order; $dups duplicates, $uniq unique, $nokey without key"

/usr/bin/python3 "$root/scripts/gen_udp_pcap.py" "$tmp/mirror.pcap" 4096 --mirror 64
run "$tmp/mirror.pcap" "$tmp/mdrop.pcap" "$tmp/mdrop.json" --filter exact --key packet --action drop
editcap -F pcap -D "$(nframes "$tmp/mirror.pcap")" "$tmp/mirror.pcap" "$tmp/editcap.pcap" \
	>/dev/null 2>&1
$tool frames "$tmp/editcap.pcap" >"$tmp/want.txt"
$tool frames "$tmp/mdrop.pcap" >"$tmp/got.txt"
diff -q "$tmp/want.txt" "$tmp/got.txt" >/dev/null ||
	{ echo "FAIL: mirrored: not editcap -D's frames ($(wc -l <"$tmp/got.txt") of $(wc -l <"$tmp/want.txt"))" >&2; exit 1; }
run "$tmp/mirror.pcap" "$tmp/fdrop.pcap" "$tmp/fdrop.json" --filter qhtlru --memory 16M \
	--seed 7 --key packet --action drop
$tool frames "$tmp/fdrop.pcap" >"$tmp/got.txt"
diff -q "$tmp/want.txt" "$tmp/got.txt" >/dev/null ||
	{ echo "FAIL: mirrored, far filter: not editcap -D's frames ($(wc -l <"$tmp/got.txt") of $(wc -l <"$tmp/want.txt"))" >&2; exit 1; }
echo "ok: mirrored traffic: editcap -D's $(wc -l <"$tmp/got.txt") frames of 4096, in order"

# Two workers, software dispatch, net_null (a queue per worker: both receive), every
# frame the same key: the owner's ring overflows. Nothing is lost: what its ring cannot
# take its receiver forwards unchecked (dispatch_full, bypassed), with --action count
# every packet leaves, and at the stop both rings are drained (no mbuf left behind).
# With the packet key's default window each lookup carries its time, those handed over
# after a full ring too (hand_over_rest): a time lost on the way reads as the clock
# stepped back, and the filter would forget (filters_forgotten). Two lcores on one
# CPU, so that it runs on a one-core machine too.
until_rx any "$bin" --no-huge -m 512 --no-pci --no-shconf \
	--file-prefix "$prefix" --log-level '*:warning' --log-level 'pktdedup:info' \
	--lcores '0@0,1@0' --vdev net_null0 -- --ports 0 --dispatch software --key packet \
	--filter qhtlru --memory 1M --action count --seed 7 --stats-json "$tmp/sw.json" ||
	{ echo "FAIL: software dispatch: $(cat "$tmp/err")" >&2; exit 1; }
grep -q "dispatch software (rings), every worker receives" "$tmp/err" ||
	{ echo "FAIL: software dispatch: not every worker receives: $(cat "$tmp/err")" >&2; exit 1; }
/usr/bin/python3 - "$tmp/sw.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t, w = d["total"], d["workers_detail"]
assert d["dispatch"] == "software" and all(x["rx"] > 0 for x in w), w
assert d["dispatch_ring"] == 2048, d["dispatch_ring"] # the default, one receiver an owner
assert d["accounted"] and d["mbufs_in_use"] == 0, d
assert t["tx"] == t["rx"] and t["dropped"] == 0 and t["tx_failed"] == 0, t
assert t["dispatch_full"] > 0 and t["bypassed"] == t["dispatch_full"], t
assert t["unique"] + t["duplicate"] + t["bypassed"] == t["rx"], t
assert t["dispatched_in"] == t["dispatched_out"] > 0, t
assert d["window_ns"] == 100000000 and d["filters_forgotten"] == 0, d
print("ok: software dispatch, one key: both workers received; %d of %d packets passed "
      "unchecked at a full ring, none lost; the times handed over kept" %
      (t["dispatch_full"], t["rx"]))
PY

# Three (and fifteen) workers with software dispatch on as many lcores of one CPU, a
# net_pcap port with a queue per worker, each reading every third (fifteenth) frame of
# the mirrored traffic (an original and its copy, 64 frames apart, reach different
# workers, so every copy is handed over): the frames out, over the TX files, are
# exactly the distinct frames of the input, whichever copy came first. With --filter
# exact nothing unique can be dropped; with qhtlru (16 MiB, or 1 MiB a worker for
# fifteen) and a fixed seed none of the 2048 keys meets another's fingerprint. A copy
# passes only if bypassed at a full ring, and the run says how many were (no window:
# workers that take turns on one CPU receive a copy 100 ms and more after its original,
# the default window's, in RX time). The exact
# filter's run is timed (its delays): a lookup handed over carries the packet's time, so
# every copy's delay is under a second, and most are 1 us or more
# (an original and its copy come from queues read by workers that take turns on one
# CPU: 99% of them in three runs; a time lost on the way reads as 0 or as decades).
$tool frames "$tmp/mirror.pcap" | sort -u >"$tmp/want.txt"
spread() { # workers filter-options...
	local n=$1 rc=0 i vdev=net_pcap0
	shift
	$tool split "$tmp/mirror.pcap" "$n" "$tmp/part"
	for ((i = 0; i < n; i++)); do vdev+=",rx_pcap=$tmp/part.$i.pcap"; done
	for ((i = 0; i < n; i++)); do vdev+=",tx_pcap=$tmp/out.$i.pcap"; done
	until_rx 4096 "$bin" --no-huge -m 768 --no-pci --no-shconf \
		--file-prefix "$prefix" --log-level '*:warning' --log-level 'pktdedup:info' \
		--lcores "(0-$((n - 1)))@0" --vdev "$vdev" \
		-- --ports 0 --dispatch software --key packet --window none "$@" --action drop \
		--stats-json "$tmp/three.json" || rc=$?
	[ "$rc" -ne 137 ] ||
		{ echo "FAIL: $n workers $*: still running 20 s after SIGINT (killed)" >&2; exit 1; }
	[ "$rc" -eq 0 ] || { echo "FAIL: $n workers $*: status $rc: $(cat "$tmp/err")" >&2; exit 1; }
	grep -q "dispatch software (rings), every worker receives" "$tmp/err" ||
		{ echo "FAIL: $n workers: not every worker receives: $(cat "$tmp/err")" >&2; exit 1; }
	for ((i = 0; i < n; i++)); do $tool frames "$tmp/out.$i.pcap"; done | sort >"$tmp/got.txt"
	/usr/bin/python3 - "$tmp/three.json" "$tmp/want.txt" "$tmp/got.txt" "$n" "$*" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t, w = d["total"], d["workers_detail"]
want, got = open(sys.argv[2]).read().split(), open(sys.argv[3]).read().split()
assert len(w) == int(sys.argv[4]) and all(x["rx"] > 0 and x["dispatched_in"] > 0 for x in w), w
assert d["accounted"] and d["mbufs_in_use"] == 0, d
assert t["rx"] == t["tx"] + t["dropped"] and t["tx_failed"] == 0, t
assert t["dispatched_in"] == t["dispatched_out"] > 0, t
assert t["rx"] == 4096 and t["tx"] == len(got), (t, len(got))
assert set(got) == set(want), "frames out are not the input's distinct frames"
assert len(got) - len(want) <= t["dispatch_full"], (len(got), len(want), t)
if "exact" in sys.argv[5]: # timed for its delays: each lookup carries its time
    h = d["delay_histogram"]
    assert d["time"] == "rx-tsc", d["time"]
    assert h["measured"] == t["duplicate"] > 0, h
    assert all(b["count"] == 0 for b in h["buckets"] if b["from_ns"] >= 10**9), h
    assert 2 * sum(b["count"] for b in h["buckets"] if b["from_ns"] >= 1000) >= \
        h["measured"], h
print("ok: %s workers, software dispatch, %s: %d frames of 4096 out, the %d distinct "
      "ones (%d handed over, %d bypassed at a full ring)" % (sys.argv[4], sys.argv[5], len(got),
      len(want), t["dispatched_in"], t["dispatch_full"]))
PY
}
ring() { # lookups a ring the last run's start line must give
	grep -q "software dispatch: $1 lookups a ring" "$tmp/err" ||
		{ echo "FAIL: not $1 lookups a ring: $(cat "$tmp/err")" >&2; exit 1; }
}
spread 3 --filter exact
ring 1024 # the default 2048 lookups for an owner, from its two receivers
spread 3 --filter qhtlru --memory 16M --seed 7 --dispatch-ring 512
ring 256
spread 15 --filter qhtlru --memory 1M --seed 7
ring 128 # 2048 / 14 receivers, rounded down to a power of two

# --action count with three workers and one port: a packet is sent on at once and no
# verdict comes back (its owner counts the duplicate against the port itself). Each
# worker sends its queue's frames as they came, in order (nothing waits for a verdict),
# and the counts are exact: 2048 duplicates, all on port 0, though most copies were
# decided by a worker that did not receive them.
count_run() { # what rx lcores ports json --vdev...: software dispatch, exact, --action count
	local what=$1 rx=$2 lcores=$3 ports=$4 json=$5 rc=0
	shift 5
	until_rx "$rx" "$bin" --no-huge -m 768 --no-pci --no-shconf \
		--file-prefix "$prefix" --log-level '*:warning' --lcores "$lcores" "$@" \
		-- --ports "$ports" --dispatch software --key packet --window none --filter exact \
		--action count --stats-json "$json" || rc=$?
	[ "$rc" -eq 0 ] || { echo "FAIL: $what: status $rc: $(cat "$tmp/err")" >&2; exit 1; }
}
$tool split "$tmp/mirror.pcap" 3 "$tmp/c3"
count_run "count, three workers" 4096 '(0-2)@0' 0 "$tmp/c3.json" \
	--vdev "net_pcap0,rx_pcap=$tmp/c3.0.pcap,rx_pcap=$tmp/c3.1.pcap,rx_pcap=$tmp/c3.2.pcap,tx_pcap=$tmp/c3o.0.pcap,tx_pcap=$tmp/c3o.1.pcap,tx_pcap=$tmp/c3o.2.pcap"
for i in 0 1 2; do # worker i receives queue i and sends on its own TX queue
	$tool frames "$tmp/c3.$i.pcap" >"$tmp/c3want.txt"
	$tool frames "$tmp/c3o.$i.pcap" >"$tmp/c3got.txt"
	diff -q "$tmp/c3want.txt" "$tmp/c3got.txt" >/dev/null ||
		{ echo "FAIL: count, three workers: worker $i did not send its queue's frames in order" >&2; exit 1; }
done
/usr/bin/python3 - "$tmp/c3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t, w, port = d["total"], d["workers_detail"], d["ports"][0]
assert d["accounted"] and d["mbufs_in_use"] == 0, d
assert all(x["rx"] > 0 and x["dispatched_in"] > 0 for x in w), w
assert t["dispatched_in"] == t["dispatched_out"] > 0 and t["dispatch_full"] == 0, t
assert t["rx"] == t["tx"] == 4096 and t["unique"] == t["duplicate"] == 2048, t
assert port["duplicate"] == 2048, port
print("ok: count, three workers, software dispatch: all 4096 frames out, 2048 duplicates "
      "counted on port 0 (%d lookups handed over)" % t["dispatched_in"])
PY

# Three workers, software dispatch, one RX queue (net_pcap with one input and a TX file
# per worker): worker 0 receives everything and workers 1 and 2 only decide, publishing
# their verdicts every few rounds of a loop that receives nothing. An owner's lookups
# come from worker 0 alone, so its one ring holds all --dispatch-ring 4096 of them, as
# many as the input has frames: no ring can fill, though the lcores share a CPU. The
# frames out are the input's distinct frames, each once, none passed unchecked, and no
# mbuf is left behind.
rc=0
until_rx 4096 "$bin" --no-huge -m 768 --no-pci --no-shconf \
	--file-prefix "$prefix" --log-level '*:warning' --log-level 'pktdedup:info' \
	--lcores '0@0,1@0,2@0' \
	--vdev "net_pcap0,rx_pcap=$tmp/mirror.pcap,tx_pcap=$tmp/one.0.pcap,tx_pcap=$tmp/one.1.pcap,tx_pcap=$tmp/one.2.pcap" \
	-- --ports 0 --dispatch software --dispatch-ring 4096 --key packet --window none --filter qhtlru \
	--memory 16M --seed 7 --action drop --stats-json "$tmp/one.json" || rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: one receiver: status $rc: $(cat "$tmp/err")" >&2; exit 1; }
grep -q "dispatch software (rings), worker 0 receives" "$tmp/err" ||
	{ echo "FAIL: one receiver: not worker 0 alone: $(cat "$tmp/err")" >&2; exit 1; }
ring 4096
for i in 0 1 2; do $tool frames "$tmp/one.$i.pcap"; done | sort >"$tmp/got.txt"
/usr/bin/python3 - "$tmp/one.json" "$tmp/want.txt" "$tmp/got.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t, w = d["total"], d["workers_detail"]
want, got = open(sys.argv[2]).read().split(), open(sys.argv[3]).read().split()
assert w[0]["rx"] == 4096 and all(x["rx"] == 0 and x["dispatched_in"] > 0 for x in w[1:]), w
assert d["accounted"] and d["mbufs_in_use"] == 0 and d["dispatch_ring"] == 4096, d
assert t["rx"] == t["tx"] + t["dropped"] and t["tx"] == len(got), (t, len(got))
assert set(got) == set(want), "frames out are not the input's distinct frames"
assert len(got) == len(want) and t["dispatch_full"] == 0, (len(got), len(want), t)
print("ok: software dispatch, worker 0 receives: %d frames of 4096 out, the %d distinct "
      "ones (%d and %d decided by workers 1 and 2, %d bypassed at a full ring)" % (len(got),
      len(want), w[1]["dispatched_in"], w[2]["dispatched_in"], t["dispatch_full"]))
PY

# The same port with one TX file, so one TX queue, for three workers: refused at start
# (status 2), naming the port's queues and what to change, not the port's EINVAL. A pool
# too small for infinite_rx (which keeps every frame of the file in an mbuf): the RX
# queue and the pool's size are named.
rc=0
"$bin" --no-huge -m 512 --no-pci --no-shconf --file-prefix "$prefix" --log-level '*:warning' \
	--lcores '0@0,1@0,2@0' --vdev "net_pcap0,rx_pcap=$tmp/mirror.pcap,tx_pcap=$tmp/q.pcap" \
	-- --ports 0 >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "port 0 (net_pcap0) has 1 TX queue, and each of the 3 workers sends on \
one of its own: use --workers 1" "$tmp/err" ||
	{ echo "FAIL: one TX queue, three workers: status $rc: $(cat "$tmp/err")" >&2; exit 1; }
# (at EAL's default log levels: the port that never started is not stopped, which
# ethdev would answer with "already stopped")
rc=0
"$bin" --no-huge -m 512 --no-pci --no-shconf --file-prefix "$prefix" \
	-l 0 --vdev "net_pcap0,rx_pcap=$tmp/mirror.pcap,infinite_rx=1" -- --ports 0 \
	--mbufs 2048 >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "port 0: RX queue 0: Invalid argument (its pool holds 2048 mbufs" \
	"$tmp/err" && ! grep -q "already stopped" "$tmp/err" ||
	{ echo "FAIL: infinite_rx, a small pool: status $rc: $(cat "$tmp/err")" >&2; exit 1; }
echo "ok: a port with fewer TX queues than workers: status 2 and what to change; a pool" \
	"too small for infinite_rx: its size named"

# The stop with software dispatch while one worker's CPU is shared with a busy loop, so
# that it is descheduled for milliseconds at random points (between handing its last
# lookups over and counting itself out, or while its verdict ring is full): both
# workers still leave, every packet accounted for. Three runs; needs two CPUs. A worker
# that left while lookups for it waited unpublished, or in a ring whose verdict ring was
# full, hung this in about half the runs.
if [ "$(nproc)" -ge 2 ]; then
	taskset -c 0 sh -c 'while :; do :; done' &
	hog=$!
	for i in 1 2 3; do
		rc=0
		until_rx any "$bin" --no-huge -m 768 --no-pci --no-shconf \
			--file-prefix "$prefix" --log-level '*:warning' --lcores '0@0,1@1' \
			--vdev net_null0 -- --ports 0 --dispatch software --key packet --window none \
			--filter qhtlru --memory 16M --seed 7 --action drop \
			--stats-json "$tmp/busy.json" || rc=$?
		if [ "$rc" -eq 137 ]; then
			kill "$hog"
			echo "FAIL: stop with a busy CPU: still running 20 s after SIGINT (run $i)" >&2
			exit 1
		fi
		[ "$rc" -eq 0 ] || { kill "$hog"; echo "FAIL: stop with a busy CPU: status $rc: $(cat "$tmp/err")" >&2; exit 1; }
		/usr/bin/python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); t = d["total"]
sys.exit(0 if d["accounted"] and d["mbufs_in_use"] == 0 and t["rx"] == t["tx"] + t["dropped"] else 1)' "$tmp/busy.json" ||
			{ kill "$hog"; echo "FAIL: stop with a busy CPU: $(cat "$tmp/busy.json")" >&2; exit 1; }
	done
	kill "$hog"
	wait "$hog" 2>/dev/null || true
	echo "ok: software dispatch stops with a busy CPU: 3 runs, every packet accounted for"
else
	echo "skip: the stop with a busy CPU needs two CPUs"
fi

# A pair of ports with software dispatch, and one RX queue each: worker 0 receives both,
# so the packets whose verdicts come back from worker 1 are of both ports, and each must
# leave by its own port's peer (a burst sent whole only when all are of one port). Then
# two RX queues each: every worker receives a queue of each port, two bursts a round,
# and takes more than a burst of lookups and of verdicts at a time. With --action count
# every frame of port 0 leaves on port 1 and every frame of port 1 on port 0.
pair() { # RX queues a port
	local nq=$1 rc=0 p q i v=() who="every worker receives"
	$tool split "$tmp/mirror.pcap" $((2 * nq)) "$tmp/pair"
	for p in 0 1; do
		v+=(--vdev "net_pcap$p")
		for ((i = 0; i < nq; i++)); do v[-1]+=",rx_pcap=$tmp/pair.$((p * nq + i)).pcap"; done
		v[-1]+=",tx_pcap=$tmp/p$p.0.pcap,tx_pcap=$tmp/p$p.1.pcap"
	done
	until_rx 4096 "$bin" --no-huge -m 768 --no-pci --no-shconf \
		--file-prefix "$prefix" --log-level '*:warning' --log-level 'pktdedup:info' \
		--lcores '0@0,1@0' "${v[@]}" -- --ports 0,1 --dispatch software --key packet --window none \
		--filter exact --action count --stats-json "$tmp/pair.json" || rc=$?
	[ "$rc" -eq 0 ] || { echo "FAIL: a pair of ports, $nq queues: status $rc: $(cat "$tmp/err")" >&2; exit 1; }
	[ "$nq" -gt 1 ] || who="worker 0 receives"
	grep -q "dispatch software (rings), $who" "$tmp/err" ||
		{ echo "FAIL: a pair of ports, $nq queues: not '$who': $(cat "$tmp/err")" >&2; exit 1; }
	for p in 0 1; do
		q=$((1 - p))
		for ((i = 0; i < nq; i++)); do $tool frames "$tmp/pair.$((p * nq + i)).pcap"; done |
			sort >"$tmp/want.txt"
		for i in 0 1; do $tool frames "$tmp/p$q.$i.pcap"; done | sort >"$tmp/got.txt"
		diff -q "$tmp/want.txt" "$tmp/got.txt" >/dev/null ||
			{ echo "FAIL: a pair of ports, $nq queues: port $q did not send exactly port $p's frames" >&2; exit 1; }
	done
	[ "$(json "$tmp/pair.json" dispatched_in)" -gt 0 ] ||
		{ echo "FAIL: a pair of ports, $nq queues: nothing was dispatched: $(cat "$tmp/pair.json")" >&2; exit 1; }
	echo "ok: a pair of ports, $nq RX queue(s) each, software dispatch: each port's frames left by the other"
}
pair 1
pair 2

# --action count with software dispatch sends each packet on before its verdict comes
# back, and counts the verdict, when it comes, against the port the packet came from.
# Port 0 reads the mirrored traffic (2048 distinct frames, each twice), port 1 the
# fixture (its generator's duplicates), each in two RX queues, so that every worker
# receives both ports and hands lookups of both to the other: each port's duplicates
# are exactly its own input's (no frame is in both), and every frame leaves.
$tool split "$tmp/mirror.pcap" 2 "$tmp/cm"
$tool split "$in" 2 "$tmp/cf"
count_run "count by port" $((4096 + n)) '0@0,1@0' 0,1 "$tmp/cnt.json" \
	--vdev "net_pcap0,rx_pcap=$tmp/cm.0.pcap,rx_pcap=$tmp/cm.1.pcap,tx_pcap=$tmp/c0.0.pcap,tx_pcap=$tmp/c0.1.pcap" \
	--vdev "net_pcap1,rx_pcap=$tmp/cf.0.pcap,rx_pcap=$tmp/cf.1.pcap,tx_pcap=$tmp/c1.0.pcap,tx_pcap=$tmp/c1.1.pcap"
read -r fdups _ _ <<<"$($tool count "$exp" packet)"
$tool frames "$tmp/mirror.pcap" | sort -u >"$tmp/m.txt"
$tool frames "$in" | sort -u >"$tmp/f.txt"
/usr/bin/python3 - "$tmp/cnt.json" "$tmp/m.txt" "$tmp/f.txt" "$fdups" \
	"$($tool frames "$in" | wc -l)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t, ports = d["total"], {p["port"]: p for p in d["ports"]}
m, f = set(open(sys.argv[2]).read().split()), set(open(sys.argv[3]).read().split())
assert not m & f, "a frame is in both inputs"
assert d["accounted"] and d["mbufs_in_use"] == 0, d
assert t["dispatched_in"] == t["dispatched_out"] > 0 and t["dispatch_full"] == 0, t
assert t["rx"] == t["tx"] == 4096 + int(sys.argv[5]) and t["dropped"] == 0, t
assert ports[0]["duplicate"] == 2048 and ports[1]["duplicate"] == int(sys.argv[4]), ports
assert ports[0]["duplicate"] + ports[1]["duplicate"] == t["duplicate"], (ports, t)
print("ok: count with software dispatch, a pair of ports: every frame out, %d and %d "
      "duplicates counted against the ports they came from" % (ports[0]["duplicate"],
      ports[1]["duplicate"]))
PY

# --unparseable drop with the click key on pcap/keys.pcap: the frames kept are those the
# generator's keys say (pcap_tool.py expect-keep, as a port gives them: whole): the first
# of each click, and the requests that go on in another segment or share one, which are
# clicks the key cannot judge (passed unchecked); every other keyless frame dropped. One
# worker, frame for frame; two with software dispatch (drop, then count, whose keyless
# frames take the other way out), by the counts.
keys=$root/pcap/keys.pcap
run "$keys" "$tmp/clicks.pcap" "$tmp/clicks.json" --filter exact --key click \
	--unparseable drop
$tool expect-keep "$keys" "$root/pcap/keys.click.txt" whole >"$tmp/want.txt"
$tool frames "$tmp/clicks.pcap" | cmp -s - "$tmp/want.txt" ||
	{ echo "FAIL: --key click --unparseable drop: not the frames expected" >&2; exit 1; }
read -r nk ok distinct unjudged < <(awk '!/^#/ { n++; if ($3 == "ok") { ok++; if (!seen[$4]++) d++ }
	if ($3 == "split-request" || $3 == "several-requests") u++ }
	END { print n, ok, d, u }' "$root/pcap/keys.click.txt")
$tool split "$keys" 2 "$tmp/kpart"
for action in drop count; do
	until_rx "$nk" "$bin" --no-huge -m 768 --no-pci --no-shconf --file-prefix "$prefix" \
		--log-level '*:warning' --lcores '(0-1)@0' \
		--vdev "net_pcap0,rx_pcap=$tmp/kpart.0.pcap,rx_pcap=$tmp/kpart.1.pcap,tx_pcap=$tmp/k0.pcap,tx_pcap=$tmp/k1.pcap" \
		-- --ports 0 --dispatch software --filter exact --key click --unparseable drop \
		--action "$action" --stats-json "$tmp/kd.json" ||
		{ echo "FAIL: clicks, 2 workers, $action: $(cat "$tmp/err")" >&2; exit 1; }
	want=$((distinct + unjudged))
	[ "$action" = drop ] || want=$((ok + unjudged))
	[ "$(json "$tmp/kd.json" tx)" -eq "$want" ] && [ "$(json "$tmp/kd.json" rx)" -eq "$nk" ] &&
		[ "$(json "$tmp/kd.json" dropped)" -eq $((nk - want)) ] ||
		{ echo "FAIL: clicks, 2 workers, $action: $(cat "$tmp/kd.json")" >&2; exit 1; }
done
echo "ok: --key click --unparseable drop: the first of each of $distinct clicks and the" \
	"$unjudged the key cannot judge kept, the other keyless frames dropped; with 2" \
	"workers (software dispatch) too, drop and count"
