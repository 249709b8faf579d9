#!/usr/bin/env bash
# The committed fixtures in pcap/ are exactly what scripts/gen_fixtures.py writes: a
# change to the generator (or a hand edit of a fixture) that is not regenerated fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$root/scripts/gen_fixtures.py" "$tmp"
for f in "$tmp"/*; do
	cmp "$f" "$root/pcap/$(basename "$f")" ||
		{ echo "pcap/$(basename "$f") differs from the generator's output:" \
			"run /usr/bin/python3 scripts/gen_fixtures.py" >&2; exit 1; }
done
echo "$(ls "$tmp" | wc -l) fixture files match the generator"
