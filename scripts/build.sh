#!/usr/bin/env bash
# Configure and build into build/ (override with BUILD_DIR). Meson options given
# (bash scripts/build.sh -Dmarch=native) set up a new build directory, or are applied to
# the existing one (meson configure), never dropped.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BUILD_DIR:-build}
quietly() { # a command's output only when it fails
	local out
	out=$("$@" 2>&1) || { printf '%s\n' "$out" >&2; return 1; }
}
if [ ! -f "$dir/build.ninja" ]; then
	quietly meson setup "$dir" "$@"
elif [ $# -gt 0 ]; then
	echo "build.sh: $dir exists: applying $* to it (meson configure)" >&2
	quietly meson configure "$dir" "$@"
fi
quietly ninja -C "$dir"
