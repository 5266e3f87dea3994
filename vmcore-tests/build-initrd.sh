#!/bin/bash
# The test initramfs: busybox, the analyzer, dmsetup, kexec, makedumpfile,
# the kernel's modules and the test module.  The same image serves the
# first kernel and the kdump capture kernel, so kexec and makedumpfile are
# those of the suite the kernel base comes from (kernel-patches/base.conf:
# sid for 7.2; the host's bookworm makedumpfile 1.7.2 does not know 7.2),
# taken from that suite's chroot (qemu/suite-chroot.sh, shared with the
# stock rig of that suite) with their libraries under /suite, as the stock
# initramfs does (vmcore-tests/build-initrd-stock.sh); the host's when the
# base suite is the host's.
#   vmcore-tests/build-initrd.sh KERNELDIR KMEMPOOL KMP_TEST_KO OUT
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KDIR=$1 KMP=$2 KO=$3 OUT=$4
# kmp_churn.ko, built beside kmp_test.ko (build-module.sh), goes in too.
CHURN_KO=$(dirname "$KO")/kmp_churn.ko
mkdir -p "$(dirname "$OUT")"
. "$ROOT/qemu/apt-suite.sh"
BASE_SUITE=$(. "$ROOT/kernel-patches/base.conf"; echo "$BASE_SUITE")
suite_paths "$BASE_SUITE"
R=$SUITE_ROOT
if [ -n "$R" ]; then
	# The chroot of the base suite, keyed like the stock rig's by the
	# release linux-image-amd64 names there (its headers come with it).
	IMG=$(suite_apt_cache "$BASE_SUITE" depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	if [ -z "$IMG" ]; then
		suite_apt "$BASE_SUITE" update -qq
		IMG=$(suite_apt_cache "$BASE_SUITE" depends linux-image-amd64 2>/dev/null |
			awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	fi
	[ -n "$IMG" ] || { echo "build-initrd: cannot resolve linux-image-amd64 in $BASE_SUITE" >&2; exit 1; }
	bash "$ROOT/qemu/suite-chroot.sh" "$BASE_SUITE" "${IMG#linux-image-}"
fi
key=$( (cat "$KDIR/.key" "$ROOT/qemu/init.sh" "$ROOT/qemu/save-results.sh" \
	"$ROOT/qemu/mkinitramfs.sh" "$0" "$KMP" "$KO" "$CHURN_KO"; [ -z "$R" ] || cat "$R/.kmp-key") |
	sha256sum | cut -c1-16)
if [ -f "$OUT" ] && [ "$(cat "$OUT.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
echo "==> [initrd] building $OUT"
. "$ROOT/qemu/capture-tools.sh"
capture_tools "$R" build-initrd || exit 1
bash "$ROOT/qemu/mkinitramfs.sh" "$OUT" --modules "$KDIR/modroot" \
	--bin "$KMP" --bin-as "$KMP:/usr/bin/kmempool" \
	--bin "$(command -v dmsetup)" "${tools[@]}" --bin "$(command -v mdadm)" \
	--file "$KO:/lib/kmp_test.ko" --file "$CHURN_KO:/lib/kmp_churn.ko"
echo "$key" > "$OUT.key"
