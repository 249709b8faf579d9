#!/usr/bin/env bash
# Every test: install what is missing, build, run the meson test suite, run it again in
# a build with AddressSanitizer and UndefinedBehaviorSanitizer, then run each libFuzzer
# harness for FUZZ_SECONDS (default 40).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
dir=${BUILD_DIR:-build}
san=${SAN_BUILD_DIR:-build-san}
pass=0
fail=0

count() { # meson test log -> pass/fail counters
	local log="$1/meson-logs/testlog.json"
	[ -f "$log" ] || return 0
	pass=$((pass + $(grep -c '"result": "OK"' "$log" || true)))
	fail=$((fail + $(grep -c '"result": "\(FAIL\|TIMEOUT\|ERROR\)"' "$log" || true)))
}

BUILD_DIR=$dir bash scripts/build.sh
meson test -C "$dir" --print-errorlogs || true
count "$dir"

echo "== sanitizers: address, undefined ($san)"
if [ ! -f "$san/build.ninja" ]; then
	meson setup "$san" -Db_sanitize=address,undefined -Dbuildtype=debugoptimized >/dev/null
fi
ninja -C "$san" >/dev/null
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
	meson test -C "$san" --print-errorlogs || true
count "$san"

echo "== fuzz"
if bash scripts/fuzz.sh; then pass=$((pass + 1)); else fail=$((fail + 1)); fi

echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
