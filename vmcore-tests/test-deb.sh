#!/bin/bash
# The Debian package (issue 11): dpkg-buildpackage -us -uc -b on a copy of
# the working tree (the tracked files and debian/) in build/t/deb, its
# contents and dependencies, lintian (pedantic) with no tag, and - when
# debootstrap is there - the .deb installed with apt into a fresh Debian 12
# chroot (minbase, cached in build/deb-chroot), where kmempool --help,
# man -w kmempool and the report on the patched hang dump run.
# The package build's compiles go through ccache when it is installed
# (build/ccache-deb; ccache keys an object by the compiler's size and time,
# its arguments and the contents of every file it reads): still a build
# from scratch, the compiler run only for what changed.
# Its unit tests (debian/rules: make check) are those of make test's
# analyzer step, on this host with the same compiler and flags (check's
# sanitizer builds take no CFLAGS): after that step passed on the same
# analyzer/ files (KMP_UNIT_TESTED, their hash, from run-tests.sh) the
# package is built with nocheck, and what the package's flags make is
# tested on its own build instead: tests/exports.sh on its programs,
# tests/quiet.sh on its libkmempool.a, unit-top linked with that library,
# and the kernel ctype test on this host's linux-source (the analyzer step
# reads the series' tree; its two files unpacked once into
# build/ctype-cache, keyed by the tarball).  Otherwise (make deb, other
# files) the package build runs them all.
#   PATCHED_DUMP   default build/t/kd-hang/dump-zlib (vmlinux build/kernel/vmlinux)
#   KMP_UNIT_TESTED  the hash (lib.sh files_hash) of the analyzer/ files whose unit tests passed
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

# ccache (see the top), and its counts from zero.
cc_env=(env)
if [ -x /usr/lib/ccache/cc ]; then
	cc_env=(env "PATH=/usr/lib/ccache:$PATH" "CCACHE_DIR=$B/ccache-deb" CCACHE_MAXSIZE=2G)
	"${cc_env[@]}" ccache -z > /dev/null
fi
cc_hits() {
	[ ${#cc_env[@]} -gt 1 ] || { printf 'no ccache'; return; }
	"${cc_env[@]}" ccache --print-stats 2> /dev/null | awk -F '\t' '
		$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } $1 == "cache_miss" { m += $2 }
		END { if (h + m) printf "ccache: %d of %d compiles cached", h, h + m; else printf "no ccache" }'
}
# The unit tests in the package build unless make test's analyzer step
# passed them on these very files (see the top).
unit=$(cd "$SRC" && find analyzer ! -type d -print0 | files_hash)
if [ -n "${KMP_UNIT_TESTED:-}" ] && [ "$KMP_UNIT_TESTED" = "$unit" ]; then
	nocheck=1 opts="nocheck ${DEB_BUILD_OPTIONS:-}"
	tests="nocheck: its unit tests passed in make test's analyzer step, on the same analyzer/ files $unit"
else
	nocheck=0 opts=${DEB_BUILD_OPTIONS:-}
	tests="unit tests included"
fi

stage "dpkg-buildpackage -us -uc -b"
t0=$(date +%s)
if (cd "$SRC" && "${cc_env[@]}" DEB_BUILD_OPTIONS="$opts" dpkg-buildpackage -us -uc -b) >"$D/build.log" 2>&1 &&
   [ -f "$DEB" ]; then
	ok "dpkg-buildpackage -us -uc -b builds $(basename "$DEB") ($(stat -c %s "$DEB") bytes, $(( $(date +%s) - t0 )) s, $(cc_hits); $tests)"
else
	not_ok "dpkg-buildpackage failed: $(tail -5 "$D/build.log" | tr '\n' ' ')"
	exit 1
fi
# part CMD...: CMD's ok / not ok lines as this group's, on the package's
# build; one failure more if it fails without a "not ok" line.
part() {
	local out rc n
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E '^(not ok|ok|skip) - ' | sed "s/^\(not ok\|ok\|skip\) - /&$GROUP: the package's build: /"
	pass=$((pass + $(printf '%s\n' "$out" | grep -c '^ok - ')))
	n=$(printf '%s\n' "$out" | grep -c '^not ok - ')
	[ "$rc" != 0 ] && [ "$n" = 0 ] && { n=1; printf '%s\n' "$out" | tail -3 | sed 's/^/    /'; }
	fail=$((fail + n))
}
if [ $nocheck = 0 ]; then
	if grep '^not ok' "$D/build.log" > /dev/null; then
		not_ok "the unit tests in the package build: $(grep -c '^not ok' "$D/build.log") failed"
	else
		ok "the unit tests in the package build: $(grep -c '^ok' "$D/build.log") passed"
	fi
else
	# What the package's flags make (see the top), as check would test it.
	O=$SRC/debian/build
	part bash "$SRC/analyzer/tests/exports.sh" "$O/kmempool" "$O/kmempool-testing"
	part bash "$SRC/analyzer/tests/quiet.sh" "$O/libkmempool.a" cc
	part "${cc_env[@]}" sh -c 'make -s -C "$1/analyzer" O="$2" "$2/unit-top" "$2/fake_vmlinux" &&
		"$2/unit-top" "$2/fake_vmlinux"' sh "$SRC" "$O"
	# The tree the package build's ctype test would read: KMP_KERNEL_SRC, else this host's linux-source.
	ct=${KMP_KERNEL_SRC:-}
	if [ -z "$ct" ]; then
		ct=$(ls -v /usr/src/linux-source-*.tar.xz 2> /dev/null | tail -1)
		[ -n "$ct" ] && { ctype_tree "$ct" "$B/ctype-cache" > "$D/ctype-tree" && ct=$(cat "$D/ctype-tree"); }
	fi
	part bash "$SRC/analyzer/tests/kernel_ctype.sh" $ct
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
