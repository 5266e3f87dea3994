#!/bin/bash
# The stock initramfs, for Debian's kernel: the same busybox rig as the
# test initramfs (qemu/init.sh), Debian's modules the tests need, a
# pre-init that loads the virtio and loop drivers before /init reads its
# disks, kmp_stock.ko, the analyzer, kexec, makedumpfile, dmsetup, mdadm.
# The same image serves the first kernel and the kdump capture kernel.
#   vmcore-tests/build-initrd-stock.sh KERNELDIR KMEMPOOL KMP_STOCK_KO OUT
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KDIR=$1 KMP=$2 KO=$3 OUT=$4
PRE=$ROOT/vmcore-tests/guest/stock-preinit.sh
mkdir -p "$(dirname "$OUT")"
key=$( (cat "$KDIR/.key" "$KDIR/modules.list" "$ROOT/qemu/init.sh" "$ROOT/qemu/save-results.sh" \
	"$ROOT/qemu/mkinitramfs.sh" "$0" "$PRE" "$KMP" "$KO") | sha256sum | cut -c1-16)
if [ -f "$OUT" ] && [ "$(cat "$OUT.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
echo "==> [initrd-stock] building $OUT"
bash "$ROOT/qemu/mkinitramfs.sh" "$OUT" --modules "$KDIR/modroot" \
	--bin "$KMP" --bin-as "$KMP:/usr/bin/kmempool" \
	--bin "$(command -v dmsetup)" --bin "$(command -v kexec)" --bin "$(command -v makedumpfile)" \
	--bin "$(command -v mdadm)" \
	--file "$PRE:/etc/kmp-preinit.sh" \
	--file "$KO:/lib/kmp_stock.ko"
echo "$key" > "$OUT.key"
