#!/usr/bin/env bash
# Every test: install what is missing, build, run the meson test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
dir=${BUILD_DIR:-build}
rc=0
meson test -C "$dir" --print-errorlogs || rc=$?
log="$dir/meson-logs/testlog.json"
if [ -f "$log" ]; then
	pass=$(grep -c '"result": "OK"' "$log" || true)
	fail=$(grep -c '"result": "\(FAIL\|TIMEOUT\|ERROR\)"' "$log" || true)
	echo "tests: $pass passed, $fail failed"
fi
exit $rc
