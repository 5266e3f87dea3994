#!/bin/bash
# Series v6 on a booted kernel (issue 19): the tree make test-series-v6 built
# (build/t/series-v6, kept with KMP_SERIES_KEEP_SRC=1) boots under QEMU
# (-cpu max: 7.2 under TCG), a test module (module-v6/kmp_v6stall.c) stalls
# a task in mempool_alloc() on an emptied pool and unloads leaving a pool
# listed; check_v6stall.py checks that khungtaskd reports the stall once,
# naming the pool, that the unload warns and unlinks, and /proc/mempool 1.0;
# and that kmempool in the guest, on /proc/kcore with the kernel's vmlinux,
# prints /proc/mempool byte for byte before, during and after the stall and
# that kmempool waiters names the stalled task and its pool.
#   KMP_V6_KERNEL=DIR   a qemu/build-kernel.sh build of the series instead
#                       (bzImage, vmlinux, objdir), e.g. build/kernel from
#                       KMP_TARBALL=... KMP_PATCHES=kernel-patches/v6
#   KMP_V6_INITRD=FILE  another initramfs with busybox and kmempool than
#                       build/initrd/test.cpio.gz (make initrd)
GROUP=v6-stall
. "$(dirname "$0")/lib.sh"
if [ -n "${KMP_V6_KERNEL:-}" ]; then
	OBJ=$(cat "$KMP_V6_KERNEL/objdir" 2>/dev/null || echo "$KMP_V6_KERNEL/objdir?")
	VMLINUX=$KMP_V6_KERNEL/vmlinux
	if [ ! -f "$KMP_V6_KERNEL/bzImage" ] || [ ! -f "$OBJ/Module.symvers" ]; then
		not_ok "no v6 kernel build in $KMP_V6_KERNEL (qemu/build-kernel.sh builds one)"
		exit 1
	fi
else
	S=$T/series-v6
	OBJ=$S/obj
	VMLINUX=$OBJ/vmlinux
	if [ ! -f "$OBJ/arch/x86/boot/bzImage" ] || [ ! -f "$OBJ/Module.symvers" ] || [ ! -d "$S/src" ]; then
		not_ok "no v6 kernel build in $S (make test-series-v6 builds it)"
		exit 1
	fi
fi
INITRD=${KMP_V6_INITRD:-$B/initrd/test.cpio.gz}
M=$T/v6-stall-mod; rm -rf "$M"; mkdir -p "$M"
cp "$ROOT/vmcore-tests/module-v6/kmp_v6stall.c" "$ROOT/vmcore-tests/module-v6/Makefile" "$M/"
if make -s -C "$OBJ" M="$M" modules > "$M/build.log" 2>&1; then
	ok "the v6 test module builds against the series' tree"
else
	not_ok "the v6 test module does not build (log: $M/build.log)"; exit 1
fi
K=$T/v6-stall-kernel; mkdir -p "$K"; cp "$OBJ/arch/x86/boot/bzImage" "$K/bzImage"
O=$T/v6-stall; rm -rf "$O"
bash "$ROOT/qemu/run-vm.sh" --kernel "$K" --initrd "$INITRD" \
	--script "$ROOT/vmcore-tests/guest/v6stall.sh" --out "$O" --input "$M/kmp_v6stall.ko" \
	--input "$VMLINUX" --mem 1024 --timeout 900 --cpu max > "$T/v6-stall.log" 2>&1
check "the v6 kernel boots and runs the stall scenario (log: $T/v6-stall.log)" test -s "$O/dmesg"
"$PY" "$ROOT/vmcore-tests/check_v6stall.py" "$O" --kmempool || fail=1
[ "$fail" = 0 ]
