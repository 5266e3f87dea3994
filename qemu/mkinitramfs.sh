#!/bin/bash
# Build an initramfs: busybox-static, qemu/init.sh as /init, host binaries
# with the libraries ldd names, kernel modules and extra files.
#
#   qemu/mkinitramfs.sh OUT.cpio.gz [--modules MODROOT] [--bin PATH]...
#                       [--file SRC:DEST]...
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
add_bin() {
	local bin=$1 dest=${2:-$1}
	mkdir -p "$ROOTFS$(dirname "$dest")"
	cp -L "$bin" "$ROOTFS$dest"
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
		add_lib "$lib"
	done
}
while [ $# -gt 0 ]; do
	case "$1" in
	--modules) cp -a "$2/lib/modules" "$ROOTFS/lib/"; shift 2 ;;
	--bin) add_bin "$2"; shift 2 ;;
	--bin-as) add_bin "${2%%:*}" "${2#*:}"; shift 2 ;;
	--file) mkdir -p "$ROOTFS$(dirname "${2#*:}")"; cp -L "${2%%:*}" "$ROOTFS${2#*:}"; shift 2 ;;
	*) echo "mkinitramfs: unknown argument $1" >&2; exit 2 ;;
	esac
done
(cd "$ROOTFS" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
