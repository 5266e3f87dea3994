#!/bin/bash
# The chroot of a Debian suite the stock rig builds and captures with:
# `debootstrap --variant=minbase SUITE`, then, with apt inside, make, the
# headers of the kernel REL and their compiler, makedumpfile and
# kexec-tools (the capture kernel's userland must be the suite's own:
# bookworm's makedumpfile 1.7.2 with -d 31 drops 6.12's slab pages) and
# python3-drgn when the suite has it (the checker's oracle).
#
#   qemu/suite-chroot.sh SUITE REL     -> build/debian-SUITE/chroot
#
# Nothing to do for the host's own suite (bookworm here: the rig uses the
# host's headers and tools).  The debootstrap result is kept as a tarball
# (build/debian-SUITE/minbase.tar); the chroot itself is keyed by SUITE,
# REL and this script, so a warm rerun takes no time.  Some suites' headers
# package depends on the image (trixie): the headers are unpacked with
# dpkg --force-depends instead, the module build does not need the image.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/qemu/apt-suite.sh"
SUITE=$1 REL=$2
suite_paths "$SUITE"
R=$SUITE_ROOT
[ -n "$R" ] || exit 0
stage() { echo "==> [suite-chroot $SUITE] $*"; }
die() { echo "suite-chroot $SUITE: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"
command -v debootstrap > /dev/null || die "debootstrap not found (make deps)"
key=$( (echo "$SUITE $REL"; cat "$0") | sha256sum | cut -c1-16)
if [ "$(cat "$R/.kmp-key" 2>/dev/null)" = "$key" ]; then
	stage "cached ($key): $R"
	exit 0
fi
t0=$(date +%s)
mkdir -p "$SUITE_D"
BASE=$SUITE_D/minbase.tar
if [ ! -f "$BASE" ]; then
	stage "debootstrap --variant=minbase $SUITE (once, kept in $BASE)"
	suite_minbase "$SUITE" || die "debootstrap failed ($SUITE_D/debootstrap.log)"
	stage "debootstrap: $(( $(date +%s) - t0 )) s"
fi
suite_root_busy "$R" && die "something is mounted below $R: not replacing it"
rm -rf "$R"; mkdir -p "$R"
tar -C "$R" -xf "$BASE"
mkdir -p "$R/etc/dpkg/dpkg.cfg.d"
echo force-unsafe-io > "$R/etc/dpkg/dpkg.cfg.d/kmp-unsafe-io"
cp /etc/resolv.conf "$R/etc/resolv.conf"
# sid's Release file on the archive may be past its Valid-Until.
echo 'Acquire::Check-Valid-Until "false";' > "$R/etc/apt/apt.conf.d/99kmp-valid-until"
LOG=$SUITE_D/chroot-apt.log
: > "$LOG"
stage "apt-get install make, linux-headers-$REL's dependencies, makedumpfile, kexec-tools, python3-drgn"
in_suite_root "$R" apt-get update -q >> "$LOG" 2>&1 || die "apt-get update in the chroot failed ($LOG)"
in_suite_root "$R" sh -c "cd /tmp && apt-get download -q linux-headers-$REL" >> "$LOG" 2>&1 ||
	die "no linux-headers-$REL in $SUITE ($LOG)"
hdr=$(ls "$R"/tmp/linux-headers-"$REL"_*.deb)
# Its Depends without the alternatives that name an image, versions dropped.
deps=$(dpkg-deb -f "$hdr" Depends | tr ',' '\n' |
	awk '!/linux-image-/ { sub(/\|.*/, ""); sub(/\(.*/, ""); gsub(/[ \t]/, ""); if ($0 != "") print }')
drgn=
in_suite_root "$R" apt-cache show python3-drgn > /dev/null 2>&1 && drgn=python3-drgn
# shellcheck disable=SC2086
in_suite_root "$R" apt-get install -y -q --no-install-recommends make makedumpfile kexec-tools \
	$drgn $deps >> "$LOG" 2>&1 || die "apt-get install in the chroot failed ($LOG)"
in_suite_root "$R" dpkg -i --force-depends "/tmp/$(basename "$hdr")" >> "$LOG" 2>&1 ||
	die "dpkg -i linux-headers-$REL failed ($LOG)"
[ -f "$R/usr/src/linux-headers-$REL/Makefile" ] || die "no /usr/src/linux-headers-$REL/Makefile"
rm -f "$R"/tmp/*.deb
in_suite_root "$R" apt-get clean
# What the chroot has, for the notes.
in_suite_root "$R" dpkg-query -W -f='${Package} ${Version}\n' make makedumpfile kexec-tools \
	python3-drgn 'gcc-[0-9]*' "linux-headers-$REL" 2>/dev/null | grep -v ' $' > "$R/.kmp-versions" || true
echo "$key" > "$R/.kmp-key"
stage "ready in $(( $(date +%s) - t0 )) s: $R ($(tr '\n' ',' < "$R/.kmp-versions" | sed 's/,$//; s/,/, /g'))"
