#!/bin/bash
# Install the Debian packages kmempool's build, rig and tests need, when
# one is missing.  Quiet when all are there.  Tested on Debian 12
# (bookworm), 13 (trixie) and sid (make test's hosts step builds in their
# chroots with this script).  Names that change with the release are asked
# of apt, not written here:
#   clang-N, libclang-rt-N-dev   N: the version the release's `clang` depends on
#                                (bookworm 14, trixie 19)
#   linux-source-X               the one the release's `linux-source` depends
#                                on (bookworm 6.1, trixie 6.12), or none: only
#                                the kernel ctype test reads it (its lib/ctype.c)
#                                when no kernel tree is there yet (the kernels
#                                build from the pinned base, qemu/kernel-source.sh)
# A package the release does not have (python3-drgn, crash, debuginfod on
# some) is left out with a note; the tests that need it say so.
set -euo pipefail
PKGS=(build-essential flex bison libelf-dev libssl-dev bc cpio
	kmod xz-utils gzip qemu-system-x86 busybox-static kexec-tools makedumpfile
	dmsetup libkdumpfile-dev libdeflate-dev libdw-dev elfutils pkg-config python3 python3-drgn
	crash ccache file binutils mdadm)
# Install, crash extension and Debian package tests (issue 11).
PKGS+=(man-db debhelper lintian debootstrap)
# The crash extension under memcheck (make test-crash-valgrind), massif in make bench.
PKGS+=(valgrind)
# Counting the analyzer's reads of the vmlinux's symbol tables (test-stock).
PKGS+=(strace)
# debuginfod (issue 20): the client library's header, and the server the test starts.
PKGS+=(libdebuginfod-dev debuginfod)
# The series test reads struct mempool's size with pahole (make test-series).
PKGS+=(dwarves)
# The dump-alone back end (issue 33): kernel BTF parsed with libbpf.
PKGS+=(libbpf-dev)
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
installed() { [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == *'ok installed' ]]; }
# The package the release's unversioned package $1 depends on, matching $2.
default_of() {
	apt-cache depends "$1" 2>/dev/null | sed -n "s/^ *Depends: \\($2\\)\$/\\1/p" | head -1
}
# Package lists first where there are none (a fresh chroot).
if ! apt-cache show --no-all-versions clang > /dev/null 2>&1; then
	$SUDO apt-get update -qq
fi
# libFuzzer harnesses of the analyzer (make -C analyzer fuzz, fuzz-smoke):
# the release's clang and its libFuzzer runtime.
clang=$(default_of clang 'clang-[0-9][0-9]*')
if [ -n "$clang" ]; then
	PKGS+=("$clang" "libclang-rt-${clang#clang-}-dev")
else
	echo "==> [deps] note: this release names no default clang; the fuzz harnesses need one" >&2
fi
src=$(default_of linux-source 'linux-source-[0-9][0-9.]*')
[ -n "$src" ] && PKGS+=("$src")
missing=()
for p in "${PKGS[@]}"; do
	installed "$p" && continue
	if ! apt-cache show --no-all-versions "$p" > /dev/null 2>&1; then
		echo "==> [deps] note: $(. /etc/os-release; echo "${VERSION_CODENAME:-this release}") has no $p: left out" >&2
		continue
	fi
	missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
echo "==> [deps] installing: ${missing[*]}"
# A download cut short (or, on sid, an index that moved under us) fails one
# attempt: fresh lists and a second try; apt's own errors are kept for the
# message when that fails too.
err=$(mktemp); trap 'rm -f "$err"' EXIT
for try in 1 2; do
	$SUDO apt-get update -qq
	if $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null 2> "$err"; then
		cat "$err" >&2
		echo "==> [deps] done"
		exit 0
	fi
	cat "$err" >&2
	[ $try = 1 ] && { echo "==> [deps] apt-get install failed; again with fresh package lists in 10 s" >&2; sleep 10; }
done
echo "deps: apt-get install failed: $(grep -m2 '^E:' "$err" | tr '\n' ' ')" >&2
exit 1
