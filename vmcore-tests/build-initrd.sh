#!/bin/bash
# The test initramfs: busybox, the analyzer, dmsetup, kexec, makedumpfile,
# the kernel's modules and the test module.  The same image serves the
# first kernel and the kdump capture kernel.
#   vmcore-tests/build-initrd.sh KERNELDIR KMEMPOOL KMP_TEST_KO OUT
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KDIR=$1 KMP=$2 KO=$3 OUT=$4
# kmp_churn.ko, built beside kmp_test.ko (build-module.sh), goes in too.
CHURN_KO=$(dirname "$KO")/kmp_churn.ko
mkdir -p "$(dirname "$OUT")"
key=$( (cat "$KDIR/.key" "$ROOT/qemu/init.sh" "$ROOT/qemu/save-results.sh" \
	"$ROOT/qemu/mkinitramfs.sh" "$0" "$KMP" "$KO" "$CHURN_KO") | sha256sum | cut -c1-16)
if [ -f "$OUT" ] && [ "$(cat "$OUT.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
echo "==> [initrd] building $OUT"
bash "$ROOT/qemu/mkinitramfs.sh" "$OUT" --modules "$KDIR/modroot" \
	--bin "$KMP" --bin-as "$KMP:/usr/bin/kmempool" \
	--bin "$(command -v dmsetup)" --bin "$(command -v kexec)" --bin "$(command -v makedumpfile)" \
	--bin "$(command -v mdadm)" \
	--file "$KO:/lib/kmp_test.ko" --file "$CHURN_KO:/lib/kmp_churn.ko"
echo "$key" > "$OUT.key"
