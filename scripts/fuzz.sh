#!/usr/bin/env bash
# Build every libFuzzer harness in tests/fuzz/ with clang (fuzzer, address, undefined)
# and run each for FUZZ_SECONDS (default 40): fuzz_key seeded with the frames of
# pcap/*.pcap, fuzz_snapshot with a small snapshot of every filter (snapshot_seeds.c),
# fuzz_pcapng (replay's capture reader) with pcap and pcapng cuts of the fixtures,
# fuzz_plan (any filter parameters planned, made and run) with each filter's type.
# Fails on any crash, leak or sanitizer report; the reproducer is left in build/fuzz/.
# The harnesses are built side by side (each compile in the background while the next
# harness's seeds are made; the seed generator at -O0: the same seeds, built in 4.3-4.7
# s against 6.5-7.0 at -O1), then run FUZZ_JOBS at a time (default: the CPUs this shell
# may use), each still for FUZZ_SECONDS of its own: a libFuzzer process keeps one CPU
# busy, so on the 2-core machine running them in turn left one idle: the three there
# were then took 2.5 minutes in turn (CI, 2026-11-27) and 1.8 two at a time, build
# included. Building side by side: `FUZZ_SECONDS=1 bash scripts/fuzz.sh` from no
# build/fuzz took 47-48 s against 62-73 built in turn (2026-11-28, two runs each,
# alternating, the machine busy).
#   FUZZ_SECONDS=600 [FUZZ_JOBS=1] bash scripts/fuzz.sh [HARNESS...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-40}
out=build/fuzz
mkdir -p "$out"
cc=${FUZZ_CC:-clang}
flags=(-g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
	-Ilib/include -Ilib/src)

all_lib=(lib/src/*.c)

harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(tests/fuzz/fuzz_*.c)
jobs=${FUZZ_JOBS:-$(nproc)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: FUZZ_JOBS is a positive number" >&2; exit 2; }
names=()
builds=()
for src in "${harnesses[@]}"; do
	name=$(basename "$src" .c)
	names+=("$name")
	seeds="$out/seeds-$name"
	rm -rf "$seeds"
	mkdir -p "$seeds"
	case "$name" in
	fuzz_key)
		libsrc=(lib/src/key.c lib/src/decap.c)
		# one file per pcap record, selector byte 0..3 (the four key modes), as Ethernet
		# and as raw IP; and scapy's tunnelled copies, well-formed and broken, with
		# every tunnel opened (tests/gen_tunnels.py)
		/usr/bin/python3 tests/pcap_tool.py corpus "$seeds" 4 pcap/*.pcap
		/usr/bin/python3 tests/gen_tunnels.py "$seeds"
		/usr/bin/python3 tests/pcap_tool.py corpus-decap "$seeds" 4 "$seeds"/tunnels.pcap \
			"$seeds"/broken.pcap
		rm -f "$seeds"/*.pcap "$seeds"/*.txt
		;;
	fuzz_snapshot)
		libsrc=("${all_lib[@]}")
		"$cc" -O0 -std=gnu11 -Ilib/include tests/fuzz/snapshot_seeds.c "${libsrc[@]}" \
			-lxxhash -lm -o "$out/snapshot_seeds"
		"$out/snapshot_seeds" "$seeds"
		;;
	fuzz_pcapng)
		# replay's reader without DPDK (tests/fuzz/app_shim.h stands in for pktdedup.h);
		# seeds: the first records of each fixture as pcap and as pcapng (editcap), one
		# with comments and two interfaces, one big-endian, one with simple packet blocks,
		# two gzip'd, and the start of tests/mixed_links.py's (interfaces of four link
		# types and snap lengths, both byte orders)
		libsrc=(-D_GNU_SOURCE -include tests/fuzz/app_shim.h -Iapp/pktdedup
			app/pktdedup/replay_in{,_pcap,_pcapng,_gzip}.c -lpcap -lz)
		for p in pcap/*.pcap; do
			b=$(basename "$p" .pcap)
			editcap -F pcap -r "$p" "$seeds/$b.pcap" 1-6
			editcap -F pcapng -r "$p" "$seeds/$b.pcapng" 1-6
		done
		mergecap -I none -F pcapng -w "$seeds/two.pcapng" "$seeds/dups.pcap" "$seeds/keys.pcap"
		editcap -a 2:"a comment" "$seeds/two.pcapng" "$seeds/comment.pcapng"
		/usr/bin/python3 tests/pcap_tool.py ngswap "$seeds/comment.pcapng" "$seeds/big-endian.pcapng"
		/usr/bin/python3 tests/pcap_tool.py ngspb "$seeds/dups.pcapng" "$seeds/spb.pcapng"
		gzip -c "$seeds/dups.pcap" >"$seeds/dups.pcap.gz"
		gzip -c "$seeds/comment.pcapng" >"$seeds/comment.pcapng.gz"
		for e in little big; do
			mkdir -p "$out/mixed-$e"
			/usr/bin/python3 tests/mixed_links.py "$out/mixed-$e" "$e"
			head -c 4096 "$out/mixed-$e/in.pcapng" >"$seeds/mixed-$e.pcapng"
		done
		;;
	fuzz_plan)
		# the planner and the constructors; seeds: each filter type (and one past the
		# last) with a 4 KiB budget, every other field zero
		libsrc=("${all_lib[@]}")
		/usr/bin/python3 - "$seeds" <<'PY'
import struct, sys
for t in range(15):
    open("%s/type-%d" % (sys.argv[1], t), "wb").write(struct.pack("<QQ", t, 4096))
PY
		;;
	*) echo "fuzz.sh: no sources listed for $name" >&2; exit 1 ;;
	esac
	# in the background, while the next harness's seeds are made (above)
	"$cc" "${flags[@]}" "$src" "${libsrc[@]}" -lxxhash -lm -o "$out/$name" &
	builds+=($!)
	mkdir -p "$out/corpus-$name"
done
for pid in "${builds[@]}"; do
	wait "$pid" || { echo "fuzz.sh: a harness did not build" >&2; exit 1; }
done

fuzz() { # name -> its log in $out/$name.log, its exit status in $out/$name.rc
	local rc=0
	"$out/$1" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$out/$1-" \
		"$out/corpus-$1" "$out/seeds-$1" 2>"$out/$1.log" || rc=$?
	echo "$rc" >"$out/$1.rc"
}
running=0
for name in "${names[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	rm -f "$out/$name.rc"
	echo "fuzz: $name for ${secs}s"
	fuzz "$name" &
	running=$((running + 1))
done
wait
failed=0
for name in "${names[@]}"; do
	if [ "$(cat "$out/$name.rc" 2>/dev/null)" != 0 ]; then
		tail -40 "$out/$name.log" >&2
		echo "fuzz: $name FAILED (reproducer and log in $out/)" >&2
		failed=1
		continue
	fi
	grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$out/$name.log" |
		sed "s/^/fuzz: $name /"
done
exit "$failed"
