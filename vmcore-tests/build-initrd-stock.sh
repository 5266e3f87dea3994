#!/bin/bash
# The stock initramfs, for Debian's kernel of a suite: the same busybox rig
# as the test initramfs (qemu/init.sh), that kernel's modules the tests
# need, a pre-init that loads the virtio and loop drivers before /init
# reads its disks, kmp_stock.ko, the analyzer, kexec, makedumpfile,
# dmsetup, mdadm.  The same image serves the first kernel and the kdump
# capture kernel, so makedumpfile and kexec are the suite's own (from its
# chroot, with its libraries under /suite: bookworm's makedumpfile 1.7.2
# drops 6.12's slab pages with -d 31); for bookworm the host's.  The
# analyzer, dmsetup and mdadm are the host's.
#   vmcore-tests/build-initrd-stock.sh SUITE KMEMPOOL
# Output: SUITE_INITRD of qemu/apt-suite.sh (build/initrd/stock.cpio.gz
# for bookworm, build/initrd/stock-SUITE.cpio.gz).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/qemu/apt-suite.sh"
SUITE=$1 KMP=$2
suite_paths "$SUITE"
KDIR=$SUITE_K KO=$SUITE_MOD/kmp_stock.ko OUT=$SUITE_INITRD R=$SUITE_ROOT
PRE=$ROOT/vmcore-tests/guest/stock-preinit.sh
mkdir -p "$(dirname "$OUT")"
key=$( (cat "$KDIR/.key" "$KDIR/modules.list" "$ROOT/qemu/init.sh" "$ROOT/qemu/save-results.sh" \
	"$ROOT/qemu/mkinitramfs.sh" "$0" "$PRE" "$KMP" "$KO"; [ -z "$R" ] || cat "$R/.kmp-key") |
	sha256sum | cut -c1-16)
if [ -f "$OUT" ] && [ "$(cat "$OUT.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
echo "==> [initrd-stock] building $OUT"
. "$ROOT/qemu/capture-tools.sh"
capture_tools "$R" build-initrd-stock || exit 1
bash "$ROOT/qemu/mkinitramfs.sh" "$OUT" --modules "$KDIR/modroot" \
	--bin "$KMP" --bin-as "$KMP:/usr/bin/kmempool" \
	--bin "$(command -v dmsetup)" "${tools[@]}" --bin "$(command -v mdadm)" \
	--file "$PRE:/etc/kmp-preinit.sh" \
	--file "$KO:/lib/kmp_stock.ko"
echo "$key" > "$OUT.key"
