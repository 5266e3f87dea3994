#!/bin/bash
# Build an initramfs: busybox-static, qemu/init.sh as /init, host binaries
# with the libraries ldd names, kernel modules and extra files.
#
#   qemu/mkinitramfs.sh OUT.cpio.gz [--modules MODROOT] [--bin PATH]...
#                       [--file SRC:DEST]... [--root DIR --bin PATH...]
#
# --root DIR: the --bin PATHs after it are DIR's (a chroot of another
# Debian suite), with the libraries DIR's own loader resolves there.  They
# go under /suite in the image, PATH becoming a small script that runs
# /suite/PATH with /suite's loader and libraries: another suite's libc,
# libdw, libz... never replace the host's, which the host's binaries use.
# --root "" returns to host binaries.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$1; shift
ROOTFS=$(mktemp -d); trap 'rm -rf "$ROOTFS"' EXIT
mkdir -p "$ROOTFS"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,lib,lib64,boot}
cp /bin/busybox "$ROOTFS/bin/busybox"
for app in $("$ROOTFS/bin/busybox" --list); do
	[ -e "$ROOTFS/bin/$app" ] || ln -s busybox "$ROOTFS/bin/$app"
done
# The kernel's request_module() runs /sbin/modprobe (dm-crypt needs it).
ln -sf ../bin/busybox "$ROOTFS/sbin/modprobe"
cp "$HERE/init.sh" "$ROOTFS/init"; chmod +x "$ROOTFS/init"
cp "$HERE/save-results.sh" "$ROOTFS/bin/save-results"; chmod +x "$ROOTFS/bin/save-results"
add_lib() {
	local lib=$1
	[ -e "$ROOTFS$lib" ] && return
	mkdir -p "$ROOTFS$(dirname "$lib")"
	cp -L "$lib" "$ROOTFS$lib"
}
# the libraries ldd names for FILE (a program or a library)
add_deps() {
	local lib
	for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
		add_lib "$lib"
	done
}
add_bin() {
	local bin=$1 dest=${2:-$1} lib
	mkdir -p "$ROOTFS$(dirname "$dest")"
	cp -L "$bin" "$ROOTFS$dest"
	add_deps "$bin"
	# What it loads with dlopen(), named in its FDO ELF dlopen note
	# (.note.dlopen; kmempool's libkdumpfile): each library and its own.
	local so t
	t=$(mktemp -d)
	if objcopy --dump-section .note.dlopen="$t/note" "$bin" "$t/copy" 2>/dev/null &&
	   [ -f "$t/note" ]; then
		for so in $(grep -ao '"lib[^"]*\.so[^"]*"' "$t/note" | tr -d '"' | sort -u); do
			# awk reads to the end: an early exit would SIGPIPE ldconfig,
			# which pipefail and set -e turn into a silent exit here.
			lib=$(ldconfig -p | awk -v n="$so" '$1 == n && /x86-64/ && !f { print $NF; f = 1 }')
			[ -n "$lib" ] || { echo "mkinitramfs: $bin loads $so, which is not installed" >&2; exit 1; }
			add_lib "$lib"
			add_deps "$lib"
		done
	fi
	rm -rf "$t"
}
LOADER=/lib64/ld-linux-x86-64.so.2
add_root_bin() {
	local r=$1 bin=$2 lib dirs=
	[ -f "$r$bin" ] || { echo "mkinitramfs: no $bin in $r" >&2; exit 1; }
	# Symbolic links are resolved inside DIR (bullseye's /lib64 loader
	# is an absolute link to /lib/x86_64-linux-gnu/ld-2.31.so).
	mkdir -p "$ROOTFS/suite$(dirname "$bin")"
	cp "$r$(chroot "$r" readlink -f "$bin")" "$ROOTFS/suite$bin"
	for lib in $(chroot "$r" "$LOADER" --list "$bin" | grep -o '/[^ ]*' | sort -u); do
		if [ ! -e "$ROOTFS/suite$lib" ]; then
			mkdir -p "$ROOTFS/suite$(dirname "$lib")"
			cp "$r$(chroot "$r" readlink -f "$lib")" "$ROOTFS/suite$lib"
		fi
		[ "$lib" = "$LOADER" ] && continue
		case ":$dirs:" in *":/suite$(dirname "$lib"):"*) ;;
		*) dirs=${dirs:+$dirs:}/suite$(dirname "$lib") ;; esac
	done
	[ -f "$ROOTFS/suite$LOADER" ] || { echo "mkinitramfs: $bin has no $LOADER" >&2; exit 1; }
	mkdir -p "$ROOTFS$(dirname "$bin")"
	printf '#!/bin/sh\nexec /suite%s --library-path %s /suite%s "$@"\n' \
		"$LOADER" "$dirs" "$bin" > "$ROOTFS$bin"
	chmod +x "$ROOTFS$bin"
}
BINROOT=
while [ $# -gt 0 ]; do
	case "$1" in
	--modules) cp -a "$2/lib/modules" "$ROOTFS/lib/"; shift 2 ;;
	--root) BINROOT=$2; shift 2 ;;
	--bin) if [ -n "$BINROOT" ]; then add_root_bin "$BINROOT" "$2"; else add_bin "$2"; fi
		shift 2 ;;
	--bin-as) add_bin "${2%%:*}" "${2#*:}"; shift 2 ;;
	--file) mkdir -p "$ROOTFS$(dirname "${2#*:}")"; cp -L "${2%%:*}" "$ROOTFS${2#*:}"; shift 2 ;;
	*) echo "mkinitramfs: unknown argument $1" >&2; exit 2 ;;
	esac
done
(cd "$ROOTFS" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
