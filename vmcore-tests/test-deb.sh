#!/bin/bash
# The Debian package (issue 11): dpkg-buildpackage -us -uc -b on a copy of
# the working tree (the tracked files and debian/) in build/t/deb, its
# contents and dependencies, lintian (pedantic) with no tag, and - when
# debootstrap is there - the .deb installed with apt into a fresh Debian 12
# chroot (minbase, cached in build/deb-chroot), where kmempool --help,
# man -w kmempool and the report on the patched hang dump run.
#   PATCHED_DUMP   default build/t/kd-hang/dump-zlib (vmlinux build/kernel/vmlinux)
GROUP=deb
. "$(dirname "$0")/lib.sh"
D=$T/deb
VER=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
SRC=$D/kmempool-$VER
DEB=$D/kmempool_${VER}_amd64.deb
rm -rf "$D"
mkdir -p "$SRC"
(cd "$ROOT" && { git ls-files; find debian -type f; } | sort -u | grep -v '^build/' |
	while read -r f; do [ -e "$f" ] && echo "$f"; done | tar -cf - -T -) | tar -xf - -C "$SRC"

stage "dpkg-buildpackage -us -uc -b"
t0=$(date +%s)
if (cd "$SRC" && dpkg-buildpackage -us -uc -b) >"$D/build.log" 2>&1 && [ -f "$DEB" ]; then
	ok "dpkg-buildpackage -us -uc -b builds $(basename "$DEB") ($(stat -c %s "$DEB") bytes, $(( $(date +%s) - t0 )) s, unit tests included)"
else
	not_ok "dpkg-buildpackage failed: $(tail -5 "$D/build.log" | tr '\n' ' ')"
	exit 1
fi
if grep -q '^not ok' "$D/build.log"; then
	not_ok "the unit tests in the package build: $(grep -c '^not ok' "$D/build.log") failed"
else
	ok "the unit tests in the package build: $(grep -c '^ok' "$D/build.log") passed"
fi

want="./usr/bin/kmempool
./usr/lib/crash/extensions/kmempool.so
./usr/share/bash-completion/completions/kmempool
./usr/share/doc/kmempool/changelog.gz
./usr/share/doc/kmempool/copyright
./usr/share/man/man1/kmempool.1.gz"
got=$(dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ {print $6}' | sort)
if [ "$got" = "$want" ]; then
	ok "the package holds the binary, the crash extension, bash completion, man page, changelog, copyright"
else
	not_ok "package contents: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
fi
dep=$(dpkg-deb -f "$DEB" Depends)
if grep -q 'libdw1' <<<"$dep" && grep -q 'libelf1' <<<"$dep" && grep -q 'libkdumpfile' <<<"$dep" &&
	grep -q 'libc6' <<<"$dep"; then
	ok "Depends from the shared libraries: $dep"
else
	not_ok "Depends: '$dep'"
fi
# Hardened: the binary is PIE with full RELRO and fortified.
hdr=$(readelf -h "$SRC/debian/build/kmempool")
dyn=$(readelf -d "$SRC/debian/build/kmempool")
syms=$(nm -D "$SRC/debian/build/kmempool")
if grep -q 'DYN' <<<"$hdr" && grep -q 'BIND_NOW' <<<"$dyn" && grep -q '__.*_chk' <<<"$syms"; then
	ok "the binary is PIE, BIND_NOW, fortified (dpkg-buildflags hardening=+all)"
else
	not_ok "the binary lacks PIE, BIND_NOW or fortify"
fi
lint=$(lintian -I -E --pedantic "$D/kmempool_${VER}_amd64.changes" 2>&1 | grep -v 'running with root')
rc=$?
if [ -z "$lint" ]; then
	ok "lintian -I -E --pedantic: no tag ($(lintian --version))"
else
	not_ok "lintian: $(head -5 <<<"$lint" | tr '\n' ' ')"
fi

# A fresh Debian 12 chroot: minbase from debootstrap, cached as a tarball.
if ! command -v debootstrap >/dev/null; then
	not_ok "no debootstrap (apt-get install debootstrap): the chroot install was not tested"
	exit 1
fi
CACHE=$B/deb-chroot/bookworm-minbase.tar
if [ ! -f "$CACHE" ]; then
	stage "debootstrap --variant=minbase bookworm (once, cached in $CACHE)"
	rm -rf "$B/deb-chroot/root.new"
	mkdir -p "$B/deb-chroot"
	# The archive's URI comes from the host's apt sources (qemu/apt-suite.sh).
	uri=$(bash "$ROOT/qemu/apt-suite.sh" uri) || uri=
	if [ -n "$uri" ] && debootstrap --variant=minbase bookworm "$B/deb-chroot/root.new" "$uri" \
		>"$B/deb-chroot/debootstrap.log" 2>&1; then
		tar -C "$B/deb-chroot/root.new" -cf "$CACHE.tmp" . && mv "$CACHE.tmp" "$CACHE"
	fi
	rm -rf "$B/deb-chroot/root.new"
fi
R=$D/chroot
mkdir -p "$R"
if [ -f "$CACHE" ] && tar -C "$R" -xf "$CACHE"; then
	ok "a fresh Debian $(cat "$R/etc/debian_version") chroot (debootstrap minbase)"
else
	not_ok "no chroot: debootstrap failed ($(tail -2 "$B/deb-chroot/debootstrap.log" 2>/dev/null))"
	exit 1
fi
cp /etc/resolv.conf "$R/etc/resolv.conf"
cp "$DEB" "$R/tmp/"
in_chroot() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
if in_chroot apt-get update -q >"$D/chroot-apt.log" 2>&1 &&
	in_chroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		"/tmp/$(basename "$DEB")" man-db >>"$D/chroot-apt.log" 2>&1; then
	ok "apt-get install ./$(basename "$DEB") in the chroot pulls its dependencies ($(grep -c '^Setting up' "$D/chroot-apt.log") packages set up)"
else
	not_ok "apt-get install in the chroot failed: $(tail -3 "$D/chroot-apt.log" | tr '\n' ' ')"
	exit 1
fi
out=$(in_chroot kmempool --help 2>&1)
if [ $? = 0 ] && grep -q '^Usage: kmempool' <<<"$out"; then
	ok "chroot: kmempool --help"
else
	not_ok "chroot: kmempool --help: $(head -2 <<<"$out")"
fi
out=$(in_chroot man -w kmempool 2>&1)
if [ "$out" = /usr/share/man/man1/kmempool.1.gz ]; then
	ok "chroot: man -w kmempool = $out"
else
	not_ok "chroot: man -w kmempool: $out"
fi
if [ -z "${PATCHED_DUMP:-}" ]; then
	PATCHED_DUMP=$T/kd-hang/dump-zlib
	[ -f "$T/kd-hang/dumps" ] && $PY "$ROOT/vmcore-tests/mempool.py" extract "$T/kd-hang" >/dev/null
fi
if [ -f "$PATCHED_DUMP" ] && [ -f "$B/kernel/vmlinux" ]; then
	mkdir -p "$R/tmp/dump"
	ln "$PATCHED_DUMP" "$R/tmp/dump/vmcore" 2>/dev/null || cp "$PATCHED_DUMP" "$R/tmp/dump/vmcore"
	ln "$B/kernel/vmlinux" "$R/tmp/dump/vmlinux" 2>/dev/null || cp "$B/kernel/vmlinux" "$R/tmp/dump/vmlinux"
	in_chroot kmempool -c /tmp/dump/vmcore -s /tmp/dump/vmlinux >"$D/chroot-report" 2>"$D/chroot-report.err"
	rc=$?
	"${ANALYZER_O:-$B/analyzer}/kmempool" -c "$PATCHED_DUMP" -s "$B/kernel/vmlinux" >"$D/host-report" 2>/dev/null
	if [ $rc = 0 ] && head -1 "$D/chroot-report" | grep '^mempool - version: ' > /dev/null &&
		cmp -s "$D/chroot-report" "$D/host-report"; then
		ok "chroot: the installed kmempool reports the hang dump: $(($(wc -l <"$D/chroot-report") - 2)) pools, identical to the built binary's"
	else
		not_ok "chroot: report on the dump: exit $rc, $(head -1 "$D/chroot-report.err")"
	fi
else
	not_ok "chroot: no dump $PATCHED_DUMP to report on (run the kdump test first)"
fi
# Nothing is mounted in the chroot; the dump links go with it.
rm -rf "$R"
echo "$pass passed, $fail failed" >&2
[ "$fail" = 0 ]
