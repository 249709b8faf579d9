#!/usr/bin/env bash
# What `meson install` puts on a machine, into a scratch --destdir: the four programs, the
# man pages (each tool's made from its own --help, so an option in --help is in the man
# page), the library's page, the systemd unit and its options file. The unit is not
# restarted after a bad option's status or a refused snapshot's (checked on a snapshot
# made with another --memory), but is after status 1. The unit passes
# `systemd-analyze verify` where systemd is present (pointed at the scratch binary). The
# options file's PKTDEDUP_OPTIONS run as the unit runs them (its EAL options made net_null
# ports, its state directory the scratch one, its --memory 4M), stopped by SIGTERM as
# systemctl stops it: status 0, the plan and the summary on the output the journal
# keeps, the JSON written. With
# JOURNAL_STREAM naming that output, as systemd names it, none of it goes to syslog as
# well (an LD_PRELOAD'd syslog(3) catches what would); without, EAL's stream sends it.
#   bash tests/install.sh BUILD_DIR
set -euo pipefail
build=$(realpath "$1")
dest=$(mktemp -d)
trap 'rm -rf "$dest" "/var/run/dpdk/pdinst$$"' EXIT
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
	# a terminal's 80 columns (help2man's page wraps by itself, a terminal does not)
	wide=$("$root/bin/$t" --help 2>&1 | awk 'length > 80' | head -1)
	[ -z "$wide" ] || fail "$t --help: a line over 80 columns: $wide"
done
# grep reads the whole page (grep -q would leave at the match, man could die of SIGPIPE)
MANWIDTH=200 man -l "$root/share/man/man3/libpktdedup.3" 2>/dev/null |
	grep pd_filter_create >/dev/null || fail "libpktdedup.3"
echo "ok: the man pages hold every option of their tool's --help; no --help line over 80 columns"

# the unit and its options file
grep -q "^ExecStart=$prefix/bin/pktdedup \$EAL_OPTIONS -- \$PKTDEDUP_OPTIONS$" \
	"$root/lib/systemd/system/pktdedup@.service" || fail "the unit's ExecStart"
grep -q "^EnvironmentFile=$prefix/etc/pktdedup/%i.conf$" \
	"$root/lib/systemd/system/pktdedup@.service" || fail "the unit's EnvironmentFile"
# the statuses the unit does not restart on: a bad option's, and a refused snapshot's
# (made with other options: a restart every 5 s would refuse it again, the ports down)
no_restart=" $(sed -n 's/^RestartPreventExitStatus=//p' "$root/lib/systemd/system/pktdedup@.service") "
in_list() { [[ $no_restart == *" $1 "* ]]; }
in_list 2 || fail "the unit restarts on bad options (status 2)"
in_list 1 && fail "the unit does not restart after a runtime failure (status 1)"
src=$(dirname "$0")/../pcap/dups.pcap
"$root/bin/pktdedup" --pcap-in "$src" --memory 4M --snapshot "$dest/s.snap" >/dev/null 2>&1 ||
	fail "a run with --snapshot"
rc=0
"$root/bin/pktdedup" --pcap-in "$src" --memory 8M --snapshot "$dest/s.snap" >/dev/null \
	2>"$dest/err" || rc=$?
grep -q "refused: made with --memory 4194304" "$dest/err" && in_list "$rc" ||
	{ cat "$dest/err" >&2; fail "a snapshot refused: status $rc, which the unit restarts on"; }
grep -q -- "--snapshot-policy fresh" "$root/etc/pktdedup/default.conf" ||
	fail "default.conf's snapshot advice lacks --snapshot-policy fresh"
"$root/bin/pktdedup" --pcap-in "$src" --memory 8M --snapshot "$dest/s.snap" \
	--snapshot-policy fresh >/dev/null 2>&1 || fail "--snapshot-policy fresh"
echo "ok: the unit is not restarted after statuses$no_restart(a refused snapshot gave $rc)," \
	"but is after status 1; default.conf's snapshot advice has --snapshot-policy fresh"
(set -u; . "$root/etc/pktdedup/default.conf"; [ -n "$EAL_OPTIONS" ] && [ -n "$PKTDEDUP_OPTIONS" ]) ||
	fail "default.conf does not set EAL_OPTIONS and PKTDEDUP_OPTIONS"
# syslog(3) caught in a file, to see what goes there as well as to standard error
cat >"$dest/syslog.c" <<'C'
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
static void put(const char *fmt, va_list ap)
{
	FILE *f = fopen(getenv("PD_SYSLOG"), "a");
	if (f == NULL)
		return;
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fclose(f);
}
void syslog(int pri, const char *fmt, ...)
{
	va_list ap;
	(void)pri;
	va_start(ap, fmt);
	put(fmt, ap);
	va_end(ap);
}
void __syslog_chk(int pri, int flag, const char *fmt, ...)
{
	va_list ap;
	(void)pri, (void)flag;
	va_start(ap, fmt);
	put(fmt, ap);
	va_end(ap);
}
C
${CC:-cc} -shared -fPIC -o "$dest/syslog.so" "$dest/syslog.c" || fail "cc syslog.so"
state=$dest/state
mkdir "$state"
service_run() { # journal|tty: stderr named by JOURNAL_STREAM as systemd names it, or not
	: >"$state/journal"
	rm -f "$state/syslog"
	(
		set -u
		. "$root/etc/pktdedup/default.conf"
		opts=$(sed -e "s|/var/lib/pktdedup/|$state/|g" -e 's/--memory [^ ]*/--memory 4M/' \
			<<<"$PKTDEDUP_OPTIONS")
		if [ "$1" = journal ]; then
			JOURNAL_STREAM=$(stat -c %d:%i "$state/journal")
			export JOURNAL_STREAM
		else
			unset JOURNAL_STREAM
		fi
		export PD_SYSLOG=$state/syslog LD_PRELOAD=$dest/syslog.so
		export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
		# word-split as systemd splits $PKTDEDUP_OPTIONS
		# shellcheck disable=SC2086
		exec "$root/bin/pktdedup" -l 0 --no-huge -m 256 --no-pci --no-shconf \
			--file-prefix "pdinst$$" --vdev net_null0 --vdev net_null1 -- $opts
	) >>"$state/journal" 2>&1 &
	pid=$!
	for ((i = 0; i < 300; i++)); do # its start lines, then SIGTERM
		grep -q "^pktdedup: plan: .*predicted false-positive rate" "$state/journal" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 0.3
	kill -TERM "$pid" 2>/dev/null || true
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$state/journal" >&2; fail "default.conf's options ($1): status $rc"; }
	grep -q "^pktdedup: plan: .*predicted false-positive rate" "$state/journal" &&
		grep -q "accounted: yes; lost at the ports: 0$" "$state/journal" ||
		{ cat "$state/journal" >&2; fail "default.conf's options ($1): no plan or summary"; }
	grep -q "^pktdedup: ports 0 <-> 1, " "$state/journal" ||
		{ cat "$state/journal" >&2; fail "default.conf's options ($1): no start line"; }
}
service_run journal
[ -s "$state/default.json" ] || fail "default.conf's options: the JSON not written"
! grep -E "^(pktdedup|EAL|TELEMETRY)" "$state/syslog" 2>/dev/null ||
	fail "under the journal, lines went to syslog as well (the journal keeps both)"
echo "ok: default.conf's options, stopped by SIGTERM: status 0, the plan and summary for the" \
	"journal (once: none to syslog), the JSON written"
service_run tty # elsewhere EAL's stream is left as it is: syslog too
grep -q "^pktdedup: ports 0 <-> 1, " "$state/syslog" ||
	fail "outside the journal, EAL's log stream no longer reaches syslog"
echo "ok: outside the journal the same lines reach syslog as well, as EAL's stream sends them"

if command -v systemd-analyze >/dev/null; then
	units=$(mktemp -d)
	sed -e "s|^ExecStart=$prefix|ExecStart=$root|" -e "s|^EnvironmentFile=$prefix|EnvironmentFile=$root|" \
		"$root/lib/systemd/system/pktdedup@.service" >"$units/pktdedup@default.service"
	systemd-analyze verify --man=no "$units/pktdedup@default.service" ||
		{ rm -rf "$units"; fail "systemd-analyze verify"; }
	rm -rf "$units"
	echo "ok: systemd-analyze verify pktdedup@default.service"
fi
