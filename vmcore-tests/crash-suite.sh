#!/bin/bash
# crash for the patched kernel's dumps: the host's crash 8.0.2 (bookworm)
# does not read a 7.2 dump, so the crash test runs the base suite's own
# crash (sid: 9.0.2) in that suite's chroot (qemu/suite-chroot.sh, shared
# with the stock rig and the capture tools), with the extension built there
# against that crash's defs.h by the suite's compiler.
#
#   vmcore-tests/crash-suite.sh       -> prints the chroot's path
#
# In the chroot: crash, gcc, make, pkg-config, libdw-dev, libelf-dev,
# libdebuginfod-dev, libkdumpfile-dev, libdeflate-dev, libbpf-dev (the analyzer's headers; apt,
# once); the analyzer's sources copied to /kmp/src and `make crash-ext`
# into /kmp/build (kmempool.so), redone when the sources change.  The host
# keeps its own crash for the stock bookworm dump.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/qemu/apt-suite.sh"
SUITE=$(. "$ROOT/kernel-patches/base.conf"; echo "$BASE_SUITE")
suite_paths "$SUITE"
R=$SUITE_ROOT
stage() { echo "==> [crash-suite $SUITE] $*" >&2; }
die() { echo "crash-suite: $*" >&2; exit 1; }
[ -n "$R" ] || { echo ""; exit 0; }	# the host's own suite: the host's crash
[ -f "$R/.kmp-key" ] || die "no chroot $R (vmcore-tests/build-initrd.sh builds it)"
LOG=$SUITE_D/crash-suite.log
PKGS=(crash gcc make pkg-config libdw-dev libelf-dev libdebuginfod-dev libkdumpfile-dev libdeflate-dev libbpf-dev)
if ! in_suite_root "$R" dpkg-query -W "${PKGS[@]}" > /dev/null 2>&1; then
	stage "apt-get install ${PKGS[*]}"
	in_suite_root "$R" apt-get install -y -q --no-install-recommends "${PKGS[@]}" > "$LOG" 2>&1 ||
		{ tail -5 "$LOG" >&2; die "apt-get install in the chroot failed ($LOG)"; }
	in_suite_root "$R" apt-get clean
fi
key=$( (in_suite_root "$R" dpkg-query -W crash gcc; cd "$ROOT/analyzer" &&
	git ls-files -z | xargs -0 cat) | sha256sum | cut -c1-16)
if [ "$(cat "$R/kmp/build/.key" 2>/dev/null)" != "$key" ] || [ ! -f "$R/kmp/build/kmempool.so" ]; then
	stage "building kmempool.so against $(in_suite_root "$R" dpkg-query -W -f='crash ${Version}' crash)"
	rm -rf "$R/kmp/src" "$R/kmp/build"; mkdir -p "$R/kmp/src" "$R/kmp/build"
	(cd "$ROOT/analyzer" && git ls-files -z | xargs -0 cp --parents -t "$R/kmp/src")
	in_suite_root "$R" make -s -C /kmp/src O=/kmp/build crash-ext > "$LOG" 2>&1 ||
		{ tail -15 "$LOG" >&2; die "make crash-ext in the chroot failed ($LOG)"; }
	echo "$key" > "$R/kmp/build/.key"
fi
echo "$R"
