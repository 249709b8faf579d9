# Sourced by the tests/e2e_*.sh scripts after `set -euo pipefail`: the binary under test
# (first argument), the fixture pcap/dups.pcap and its generator's expectations, the
# pcap helper, and a JSON reader.
bin=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tool="python3 $root/tests/pcap_tool.py"
in=$root/pcap/dups.pcap
exp=$root/pcap/dups-expected.txt

json() { # file key -> number from the "total" object
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"][sys.argv[2]])' "$1" "$2"
}
