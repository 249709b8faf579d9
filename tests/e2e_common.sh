# Sourced by the tests/e2e_*.sh scripts after `set -euo pipefail`: the binary under test
# (first argument), the fixture pcap/dups.pcap and its generator's expectations, the
# pcap helper, a JSON reader, and until_rx for runs on ports fed by files.
bin=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The tests run Debian's interpreter by its path (scapy is Debian's): the python3 first on
# PATH may be another, and pyenv's shim took 0.43 s to start against 0.03, at 475 starts
# in the release suite: 328 and 358 s with it, 217 and 231 without (2026-11-28).
tool="/usr/bin/python3 $root/tests/pcap_tool.py"
in=$root/pcap/dups.pcap
exp=$root/pcap/dups-expected.txt

# The frames in a capture: editcap -D's window over the whole file. editcap compares a
# frame with every slot of its window, so its largest, -D 1000000, took 1-4 s a file for
# the same output as the file's own count (0.01 s).
nframes() { capinfos -c -M "$1" | awk '/^Number of packets/ { print ($NF > 0 ? $NF : 1) }'; }

json() { # file key -> number from the "total" object
	/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"][sys.argv[2]])' \
		"$1" "$2"
}

# Waits until FILE holds a line matching PATTERN (grep -q), for at most 30 s and only
# while process PID lives; status 0 if the line came. Empty FILE before starting the
# process when an earlier run wrote it: the process's own redirection (`2>FILE &`)
# happens in the child, which a busy machine may run after the first look here, and a
# line of the earlier run then passes for its own (a signal sent on it reached a shell
# not yet pktdedup, which ignores SIGINT in a job started with '&', and the run went on).
await_line() { # file pattern pid
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || break
		sleep 0.1
	done
	grep -q -- "$2" "$1" 2>/dev/null
}

# Stops process PID (a child of this shell) with SIGINT, as Ctrl-C would, and answers its
# status; 137 if it was still running 20 s after the SIGINT (then it is killed).
stop_run() { # pid
	local pid=$1 i
	kill -INT "$pid" 2>/dev/null || true
	for ((i = 0; i < 200; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null || true
		return 137
	fi
	wait "$pid"
}

# Runs pktdedup on ports fed by files (the arguments) until its counter line says it
# received RX packets, every frame of its files, then stops it with stop_run: a run takes
# what the machine needs (half a second here), not a fixed 3 or 4. RX "any" stops it
# UNTIL_SECS (default 0.5) after its first counter line instead, for sources that never
# run dry. Its stderr goes to $tmp/err (the test's scratch directory), with a counter line
# every 100 ms; its stdout to UNTIL_OUT (default /dev/null).
until_rx() { # rx pktdedup-command...
	local want=$1 pid
	shift
	: >"$tmp/err" # no line of an earlier run (await_line)
	"$@" --stats-interval 100ms >"${UNTIL_OUT:-/dev/null}" 2>"$tmp/err" &
	pid=$!
	if [ "$want" = any ]; then
		await_line "$tmp/err" "s rx " "$pid" && sleep "${UNTIL_SECS:-0.5}"
	else
		await_line "$tmp/err" "s rx $want " "$pid"
	fi
	stop_run "$pid"
}
