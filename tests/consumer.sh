#!/usr/bin/env bash
# The library as others get it: `meson install --destdir`, then a consumer program built
# with pkg-config, linked shared and static (both must run and agree); every installed
# header compiles alone; the shared library exports the headers' API and nothing else.
set -euo pipefail
build=$1
src=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
pc=$(find "$tmp/root" -name libpktdedup.pc)
so=$(find "$tmp/root" -name 'libpktdedup.so.*' -type f)
inc=$(dirname "$(find "$tmp/root" -name pd_filter.h)")
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$tmp/root
cc=${CC:-cc}

# shellcheck disable=SC2046
if $cc -std=c11 -Wall -Wextra -Werror -o "$tmp/shared" "$src/consumer.c" \
	$(pkg-config --cflags --libs libpktdedup) &&
	LD_LIBRARY_PATH=$(dirname "$so") "$tmp/shared" > "$tmp/shared.out"; then
	ok "shared consumer: $(head -1 "$tmp/shared.out")"
else
	bad "shared consumer"
fi
# shellcheck disable=SC2046
if $cc -std=c11 -Wall -Wextra -Werror -static -o "$tmp/static" "$src/consumer.c" \
	$(pkg-config --static --cflags --libs libpktdedup) && "$tmp/static" > "$tmp/static.out"; then
	ok "static consumer"
else
	bad "static consumer"
fi
if [ -s "$tmp/shared.out" ] && cmp -s "$tmp/shared.out" "$tmp/static.out"; then
	ok "shared and static agree ($(grep long "$tmp/shared.out"))"
else
	bad "shared and static differ: $(cat "$tmp/shared.out" "$tmp/static.out" 2>/dev/null)"
fi

# Each installed header on its own, strict C11 (and as C++ where g++ is present).
for h in "$inc"/*.h; do
	if printf '#include <pktdedup/%s>\ntypedef int header_test_tu;\n' "$(basename "$h")" |
		$cc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$(dirname "$inc")" -x c -; then
		ok "header $(basename "$h") alone"
	else
		bad "header $(basename "$h") alone"
	fi
done

# Exports: exactly the functions the headers declare with PD_API.
nm -D --defined-only "$so" | awk '$2 == "T" {print $3}' | sort > "$tmp/exported"
grep -h -A1 '^PD_API$' "$inc"/*.h | grep -o 'pd_[a-z0-9_]*(' | tr -d '(' | sort -u > "$tmp/api"
if [ -s "$tmp/api" ] && cmp -s "$tmp/exported" "$tmp/api"; then
	ok "exports: the $(wc -l < "$tmp/api") API functions only"
else
	bad "exports differ from the API: $(diff "$tmp/api" "$tmp/exported" | grep '^[<>]' | tr '\n' ' ')"
fi

echo "consumer: $fails failure(s)"
[ $fails -eq 0 ]
