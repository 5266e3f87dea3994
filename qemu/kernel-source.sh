#!/bin/bash
# The kernel source tarball of the pinned base (kernel-patches/base.conf):
# its package fetched with `apt-get download` through the private apt
# configuration of its suite (qemu/apt-suite.sh; the archive's address is
# read from the host's apt sources at run time), its version checked, the
# tarball taken out of the .deb with dpkg-deb -x.  Cached under
#   build/kernel-source/PACKAGE_VERSION/{TARBALL,.ok}
# keyed by package and version (the .deb is deleted once unpacked): a warm
# run only prints the path.
#
#   qemu/kernel-source.sh [tarball|version|package|dir]
#
# prints the tarball's path (default), the pinned version, the package name
# or the cache directory on stdout; stage lines go to stderr.
# KMP_BASE overrides the pin file.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=${KMP_BASE:-$ROOT/kernel-patches/base.conf}
# Always the checkout's build/ (not KMP_BUILD, which other build folders
# such as build/stock set): one download serves them all.
B=$ROOT/build
export KMP_BUILD=$B
stage() { echo "==> [kernel-source] $*" >&2; }
die() { echo "kernel-source: $*" >&2; exit 1; }

[ -r "$BASE" ] || die "no pin file $BASE"
BASE_SUITE= BASE_PACKAGE= BASE_VERSION=
# shellcheck source=/dev/null
. "$BASE"
for v in BASE_SUITE BASE_PACKAGE BASE_VERSION; do
	[ -n "${!v}" ] || die "$BASE does not set $v"
done
case "${1:-tarball}" in
version) echo "$BASE_VERSION"; exit 0 ;;
package) echo "$BASE_PACKAGE"; exit 0 ;;
tarball|dir) ;;
*) echo "usage: $0 [tarball|version|package|dir]" >&2; exit 2 ;;
esac

D=$B/kernel-source/${BASE_PACKAGE}_$BASE_VERSION
TARBALL=$D/$BASE_PACKAGE.tar.xz
if [ "$(cat "$D/.ok" 2>/dev/null)" != "$BASE_PACKAGE $BASE_VERSION" ] || [ ! -s "$TARBALL" ]; then
	# The archive names a version with an epoch "E:V" as "E%3aV" in the file.
	DEB=$D/${BASE_PACKAGE}_${BASE_VERSION/:/%3a}_all.deb
	mkdir -p "$D"
	rm -f "$D/.ok"
	if [ ! -s "$DEB" ]; then
		. "$ROOT/qemu/apt-suite.sh"
		t0=$(date +%s)
		# The package lists, when they do not know this version yet.
		if ! suite_apt_cache "$BASE_SUITE" show "$BASE_PACKAGE=$BASE_VERSION" > /dev/null 2>&1; then
			stage "apt-get update ($BASE_SUITE)"
			suite_apt "$BASE_SUITE" update -qq > "$D/apt-update.log" 2>&1 ||
				{ cat "$D/apt-update.log" >&2; die "apt-get update of $BASE_SUITE failed"; }
		fi
		stage "apt-get download $BASE_PACKAGE=$BASE_VERSION ($BASE_SUITE)"
		rm -rf "$D/dl"; mkdir -p "$D/dl"
		(cd "$D/dl" && suite_apt "$BASE_SUITE" download "$BASE_PACKAGE=$BASE_VERSION") \
			> "$D/download.log" 2>&1 ||
			{ cat "$D/download.log" >&2; die "apt-get download $BASE_PACKAGE=$BASE_VERSION failed (is it still in $BASE_SUITE?)"; }
		f=$(ls "$D"/dl/*.deb 2>/dev/null | head -1)
		[ -n "$f" ] || die "apt-get download left no .deb"
		mv "$f" "$DEB"
		rm -rf "$D/dl"
		stage "downloaded $(du -m "$DEB" | cut -f1) MB in $(( $(date +%s) - t0 )) s"
	fi
	pkg=$(dpkg-deb -f "$DEB" Package) ver=$(dpkg-deb -f "$DEB" Version)
	[ "$pkg $ver" = "$BASE_PACKAGE $BASE_VERSION" ] ||
		{ rm -f "$DEB"; die "the .deb is $pkg $ver, not $BASE_PACKAGE $BASE_VERSION"; }
	stage "extracting the source tarball of $pkg $ver"
	rm -rf "$D/x"
	dpkg-deb -x "$DEB" "$D/x"
	src=$(ls "$D"/x/usr/src/linux-source-*.tar.xz 2>/dev/null | head -1)
	[ -n "$src" ] || die "no usr/src/linux-source-*.tar.xz in $DEB"
	mv "$src" "$TARBALL"
	rm -rf "$D/x" "$DEB"
	echo "$BASE_PACKAGE $BASE_VERSION" > "$D/.ok"
fi
case "${1:-tarball}" in
dir) echo "$D" ;;
*) echo "$TARBALL" ;;
esac
