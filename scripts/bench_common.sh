# shellcheck shell=bash
# Sourced by the benchmarks (bench_*.sh, check16.sh): what they share.
#
# BIN_DIR=DIR: a release build carried to a machine without the project's packages or a
# compiler (a 16-core VM lent for a day). DIR holds the binaries; on a machine without
# Debian's DPDK, DIR/../lib holds DPDK's libraries and the PMDs, which no binary links
# and EAL must load with -d. Made where the packages are with, for DIR B/bin:
#   mkdir -p B/bin B/lib
#   cp build/app/pktdedup/pktdedup "$(readlink -f "$(command -v dpdk-testpmd)")" B/bin/
#   for d in bus_vdev net_null net_pcap mempool_ring; do
#     cp -L /usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0/librte_$d.so.23 B/lib/; done
#   ldd B/bin/* B/lib/* | awk '/=> \// { print $3 }' | sort -u |
#     grep -v -e /libc.so -e /libm.so -e /libpthread -e /libdl.so | xargs -I{} cp -Ln {} B/lib/
# DIR/../lib must not be under a world-writable folder such as /tmp: DPDK loads no PMD
# from there.

# bin_dir_setup SCRIPT: BIN_DIR made absolute; where Debian's DPDK is missing and
# BIN_DIR/../lib exists, that folder on LD_LIBRARY_PATH and the EAL options that load its
# PMDs in the array bin_dir_eal (empty otherwise). Exits with a message naming SCRIPT
# when the folder cannot serve.
bin_dir_setup() {
	local lib d
	bin_dir_eal=()
	BIN_DIR=$(cd "$BIN_DIR" && pwd)
	lib=$(dirname "$BIN_DIR")/lib
	[ ! -d /usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0 ] && [ -d "$lib" ] || return 0
	d=$lib
	while :; do # lib and every folder above it
		[ $((0$(stat -c %a "$d") & 2)) = 0 ] || { # EAL refuses such plugins
			echo "$1: $d is world-writable: DPDK loads no PMD from under it; put the" \
				"binaries elsewhere" >&2
			exit 1
		}
		[ "$d" != / ] || break
		d=$(dirname "$d")
	done
	export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	for d in bus_vdev net_null net_pcap mempool_ring; do
		bin_dir_eal+=(-d "$lib/librte_$d.so.23")
	done
}

# timed SECS FILE PATTERN COMMAND...: COMMAND in the background, its output in FILE, for
# SECS seconds after the first line that has PATTERN (its first per-second line: EAL's
# start without hugepages takes half a minute with 15 GiB on a 16-core VM), waiting up
# to 2 minutes for it; then SIGINT (the summary comes), SIGKILL 10 s later if needed.
timed() {
	local secs=$1 f=$2 pat=$3 pid i
	shift 3
	: >"$f" # there before the command's shell opens it
	"$@" >"$f" 2>&1 &
	pid=$!
	for ((i = 0; i < 1200; i++)); do
		grep -q -- "$pat" "$f" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && sleep $((secs + 1))
	kill -INT "$pid" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# machine_lines: the machine, for a table to say which gave it: lscpu's model, CPUs and
# caches, the CPU's family and model numbers, and which of the instructions that the
# build chooses at run time or a trial needs it has (AVX-512F and VBMI2: the qht family's
# and qhtlru's widest rows; CLDEMOTE: the rings' trial in docs/speed.md). The
# development VM's host changes from day to day (a Zen 4 with AVX-512, a Zen 3 without),
# and with it what a table measures.
machine_lines() {
	local flags has=() f
	lscpu | grep -E '^(Model name|CPU\(s\)|L2 cache|L3 cache):' | sed 's/  */ /g' || true
	flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
	for f in avx2 avx512f avx512vbmi2 cldemote; do
		[[ " $flags " == *" $f "* ]] && has+=("$f") || has+=("no-$f")
	done
	echo "CPU family $(awk -F': ' '/^cpu family/ { print $2; exit }' /proc/cpuinfo)" \
		"model $(awk -F': ' '/^model\t/ { print $2; exit }' /proc/cpuinfo): ${has[*]}"
}
