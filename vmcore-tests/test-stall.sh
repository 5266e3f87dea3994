#!/bin/bash
# A stall reported by the hung task detector (series 6/11) and a leaky
# module's unload (5/11), on the default kernel (build/kernel, -cpu max:
# 7.2 under TCG): a test module (module-stall/kmp_stall.c, built here
# against build/obj-default) stalls a task in mempool_alloc() on an emptied
# pool and unloads leaving a pool listed; check_stall.py checks that
# khungtaskd reports the stall once, naming the pool, that the unload warns
# and unlinks, and /proc/mempool 1.0; and that kmempool in the guest, on
# /proc/kcore with the kernel's vmlinux, prints /proc/mempool byte for byte
# before, during and after the stall and kmempool waiters names the
# stalled task and its pool.
GROUP=stall
. "$(dirname "$0")/lib.sh"
K=$B/kernel
if [ ! -f "$K/bzImage" ] || [ ! -f "$K/objdir" ] || [ ! -f "$(cat "$K/objdir")/Module.symvers" ]; then
	not_ok "no default kernel build in $K (make kernel builds it)"
	exit 1
fi
OBJ=$(cat "$K/objdir")
M=$T/stall-mod; rm -rf "$M"; mkdir -p "$M"
cp "$ROOT/vmcore-tests/module-stall/kmp_stall.c" "$ROOT/vmcore-tests/module-stall/Makefile" "$M/"
if make -s -C "$OBJ" M="$M" modules > "$M/build.log" 2>&1; then
	ok "the stall test module builds against the default kernel's tree"
else
	not_ok "the stall test module does not build (log: $M/build.log)"; exit 1
fi
O=$T/stall; rm -rf "$O"
bash "$ROOT/qemu/run-vm.sh" --kernel "$K" --initrd "$B/initrd/test.cpio.gz" \
	--script "$ROOT/vmcore-tests/guest/stall.sh" --out "$O" --input "$M/kmp_stall.ko" \
	--input "$K/vmlinux" --mem 1024 --timeout 400 > "$T/stall.log" 2>&1
check "the kernel boots and runs the stall scenario (log: $T/stall.log)" test -s "$O/dmesg"
"$PY" "$ROOT/vmcore-tests/check_stall.py" "$O" --kmempool || fail=1
[ "$fail" = 0 ]
