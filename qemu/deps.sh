#!/bin/bash
# Install the Debian packages kmempool's build, rig and tests need, when
# one is missing (a fresh Debian 12 machine).  Quiet when all are there.
set -euo pipefail
# linux-source-6.1: only the analyzer's kernel ctype test reads it (its
# lib/ctype.c) when no 7.2 tree is there yet (the kernels build from the
# pinned base, qemu/kernel-source.sh).
PKGS=(linux-source-6.1 build-essential flex bison libelf-dev libssl-dev bc cpio
	kmod xz-utils gzip qemu-system-x86 busybox-static kexec-tools makedumpfile
	dmsetup libkdumpfile-dev libdeflate-dev libdw-dev elfutils pkg-config python3 python3-drgn
	crash ccache file binutils mdadm)
# libFuzzer harnesses of the analyzer (make -C analyzer fuzz, fuzz-smoke).
PKGS+=(clang-14 libclang-rt-14-dev)
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
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
echo "==> [deps] installing: ${missing[*]}"
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
echo "==> [deps] done"
