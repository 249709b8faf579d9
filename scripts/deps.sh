#!/usr/bin/env bash
# Install what the build and the tests need, when it is missing (Debian 12); packages
# given as arguments are wanted too (scripts/reproduce.sh adds python3-matplotlib).
# Root installs with apt-get, non-interactively; otherwise the missing packages are
# listed with the command to install them.
set -euo pipefail

# build: compiler, meson, xxHash, libpcap, DPDK 22.11; tests: cmocka, clang and its
# runtimes for libFuzzer, python3 with scapy for the fixture generator, editcap
# (wireshark-common) as the independent dedup reference, tcpreplay, tcpdump and iproute2
# for the inline test on veth pairs; help2man makes the man pages from --help, and
# man-db reads them back in the install test; the exporter's Prometheus client library.
pkgs=(gcc pkg-config meson ninja-build libxxhash-dev libpcap-dev zlib1g-dev libdpdk-dev libcmocka-dev
	clang libclang-rt-14-dev python3 python3-scapy wireshark-common tcpreplay tcpdump iproute2
	help2man man-db python3-prometheus-client
	"$@")
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "pktdedup: missing packages: ${missing[*]}" >&2
	echo "install them with: sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi
echo "pktdedup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
