#!/usr/bin/env bash
# The main job: install what is missing, build, and replay the bundled capture
# pcap/dups.pcap (1,200 packets: exact copies, copies seen at a second TAP point, and
# malformed frames) through pktdedup once, writing the deduplicated capture to
# build/dups-dedup.pcap and printing the counts. Extra arguments go to pktdedup.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
build/app/pktdedup/pktdedup --pcap-in pcap/dups.pcap --pcap-out build/dups-dedup.pcap \
	--key packet --stats-json build/dups-dedup.json "$@"
echo "pktdedup: wrote build/dups-dedup.pcap and build/dups-dedup.json"
