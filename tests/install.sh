#!/usr/bin/env bash
# What `meson install` puts on a machine, into a scratch --destdir: the four programs, the
# man pages (each tool's made from its own --help, so an option in --help is in the man
# page), the library's page, the systemd unit and its options file. The unit passes
# `systemd-analyze verify` where systemd is present (pointed at the scratch binary).
#   bash tests/install.sh BUILD_DIR
set -euo pipefail
build=$(realpath "$1")
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
meson install -C "$build" --destdir "$dest" --no-rebuild >"$dest.log" 2>&1 ||
	{ cat "$dest.log" >&2; rm -f "$dest.log"; fail "meson install"; }
rm -f "$dest.log"
prefix=$(meson introspect "$build" --buildoptions |
	/usr/bin/python3 -c 'import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
root=$dest$prefix
for f in bin/pktdedup bin/pktdedup-eval bin/pktdedup-keys bin/pktdedup-prometheus \
	share/man/man1/pktdedup.1 share/man/man1/pktdedup-eval.1 share/man/man1/pktdedup-keys.1 \
	share/man/man3/libpktdedup.3 lib/systemd/system/pktdedup@.service etc/pktdedup/default.conf; do
	[ -s "$root/$f" ] || fail "not installed: $prefix/$f"
done
[ -x "$root/bin/pktdedup-prometheus" ] || fail "pktdedup-prometheus is not executable"
tools=(pktdedup pktdedup-eval pktdedup-keys)
if /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then # its page needs it
	tools+=(pktdedup-prometheus)
	"$root/bin/pktdedup-prometheus" --version | grep -q "^pktdedup-prometheus " ||
		fail "pktdedup-prometheus --version"
fi
echo "ok: meson install: programs, man pages, unit, options file"

# the man pages: every long option of each tool's --help is in its page
for t in "${tools[@]}"; do
	[ -s "$root/share/man/man1/$t.1" ] || fail "not installed: $prefix/share/man/man1/$t.1"
	page=$(MANWIDTH=200 man -l "$root/share/man/man1/$t.1" 2>/dev/null) || fail "man -l $t.1"
	for o in $("$root/bin/$t" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -q -- "$o" <<<"$page" || fail "$t.1 lacks $o"
	done
done
# grep reads the whole page (grep -q would leave at the match, man could die of SIGPIPE)
MANWIDTH=200 man -l "$root/share/man/man3/libpktdedup.3" 2>/dev/null |
	grep pd_filter_create >/dev/null || fail "libpktdedup.3"
echo "ok: the man pages hold every option of their tool's --help"

# the unit and its options file
grep -q "^ExecStart=$prefix/bin/pktdedup \$EAL_OPTIONS -- \$PKTDEDUP_OPTIONS$" \
	"$root/lib/systemd/system/pktdedup@.service" || fail "the unit's ExecStart"
grep -q "^EnvironmentFile=$prefix/etc/pktdedup/%i.conf$" \
	"$root/lib/systemd/system/pktdedup@.service" || fail "the unit's EnvironmentFile"
(set -u; . "$root/etc/pktdedup/default.conf"; [ -n "$EAL_OPTIONS" ] && [ -n "$PKTDEDUP_OPTIONS" ]) ||
	fail "default.conf does not set EAL_OPTIONS and PKTDEDUP_OPTIONS"
if command -v systemd-analyze >/dev/null; then
	units=$(mktemp -d)
	sed -e "s|^ExecStart=$prefix|ExecStart=$root|" -e "s|^EnvironmentFile=$prefix|EnvironmentFile=$root|" \
		"$root/lib/systemd/system/pktdedup@.service" >"$units/pktdedup@default.service"
	systemd-analyze verify --man=no "$units/pktdedup@default.service" ||
		{ rm -rf "$units"; fail "systemd-analyze verify"; }
	rm -rf "$units"
	echo "ok: systemd-analyze verify pktdedup@default.service"
fi
