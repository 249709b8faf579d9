#!/usr/bin/env bash
# Make this machine ready for pktdedup inline (docs/app.md, "Inline on ports"): reserve
# hugepages and mount a hugetlbfs with DPDK's own tool (dpdk-hugepages.py, Debian's dpdk
# package, installed when missing), then say which lcores this shell may give EAL and
# which ports DPDK can drive (dpdk-devbind.py), with a command that runs.
#   sudo bash scripts/setup-inline.sh [--hugepages SIZE]   (default 2G; "0" reserves none)
#   bash scripts/setup-inline.sh --check                  (report only; no root needed)
# Hugepages already reserved are kept (no --clear): only what is missing up to SIZE is
# added. Exit status: 0 ready, 1 something is missing (said how to fix), 2 bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."
size=2G
check=0
while [ $# -gt 0 ]; do
	case $1 in
	--hugepages) size=${2:?--hugepages needs a size such as 2G}; shift 2 ;;
	--check) check=1; shift ;;
	-h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "setup-inline.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
	esac
done
say() { echo "setup-inline: $*"; }
missing=0

# DPDK's tools
if ! command -v dpdk-hugepages.py >/dev/null || ! command -v dpdk-devbind.py >/dev/null; then
	if [ "$check" = 1 ]; then
		say "dpdk-hugepages.py and dpdk-devbind.py are missing: apt-get install dpdk"
		missing=1
	else
		bash scripts/deps.sh dpdk
	fi
fi

# hugepages: what is free now, what a reservation adds
free_mb() { awk '/^HugePages_Free:/ { f = $2 } /^Hugepagesize:/ { s = $2 }
	END { printf "%d", f * s / 1024 }' /proc/meminfo; }
want_mb=$(awk -v s="$size" 'BEGIN { n = s + 0; u = toupper(substr(s, length(s)));
	if (u == "G") n *= 1024; else if (u == "K") n /= 1024; printf "%d", n }')
if [ "$check" = 0 ] && [ "$want_mb" -gt 0 ] && [ "$(free_mb)" -lt "$want_mb" ]; then
	if [ "$(id -u)" != 0 ]; then
		say "reserving hugepages needs root: sudo bash scripts/setup-inline.sh"
		exit 1
	fi
	total_mb=$(awk '/^HugePages_Total:/ { t = $2 } /^Hugepagesize:/ { s = $2 }
		END { printf "%d", t * s / 1024 }' /proc/meminfo)
	dpdk-hugepages.py --reserve "$((total_mb + want_mb - $(free_mb)))M"
fi
if [ "$check" = 0 ] && [ "$want_mb" -gt 0 ] && ! grep -q ' hugetlbfs ' /proc/mounts; then
	mkdir -p /dev/hugepages # some minimal systems (VMs, containers) lack the mount point
	dpdk-hugepages.py --mount
fi
if [ "$(free_mb)" -gt 0 ] && grep -q ' hugetlbfs ' /proc/mounts; then
	say "hugepages: $(free_mb) MiB free on $(awk '$3 == "hugetlbfs" { print $2; exit }' /proc/mounts)"
else
	say "hugepages: none free or no hugetlbfs mounted: sudo bash scripts/setup-inline.sh;" \
		"without them, give EAL --no-huge -m 1024 (virtual devices only)"
	missing=1
fi

# lcores: the CPUs this shell may run on (EAL's -l); one per worker, the first also the
# main lcore
cpus=$(taskset -pc $$ | sed 's/.*: //')
say "lcores: $cpus (EAL -l takes these, one per worker: -l $cpus for all of them)"

# ports: what DPDK can drive
if command -v dpdk-devbind.py >/dev/null; then
	say "network devices (bind one to vfio-pci with dpdk-devbind.py -b vfio-pci PCI to give it to DPDK):"
	dpdk-devbind.py --status-dev net 2>/dev/null | sed 's/^/  /' || true
fi
say "virtual devices need no binding: --vdev net_null0 (a sink and source of empty" \
	"frames), --vdev net_pcap0,rx_pcap=IN.pcap,tx_pcap=OUT.pcap, --vdev net_af_packet0,iface=eth0"
nohuge=""
[ "$missing" = 0 ] || nohuge="--no-huge -m 1024 "
say "try: build/app/pktdedup/pktdedup -l ${cpus%%[,-]*} ${nohuge}--no-pci --vdev net_null0 --" \
	"--ports 0 --stats-interval 1   (Ctrl-C stops it)"
exit "$missing"
