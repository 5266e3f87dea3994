#!/bin/bash
# Stress on the debug kernel (build/kernel-debug: KASAN, lockdep,
# DEBUG_LIST, DEBUG_OBJECTS, kmemleak, SLUB_DEBUG_ON): module load/unload
# (kmp_test.ko's pools drained and blocked, kmp_churn.ko's threads creating
# and destroying pools), dm-crypt and md raid1 set up and torn down,
# /proc/mempool and kmempool
# on /proc/kcore reading, all at once for STRESS_SECONDS (default 120);
# then the kernel log, kmemleak and /proc/mempool are checked.
#   make test-stress            (STRESS_SECONDS=120)
#   make stress                 (STRESS_SECONDS=600)
# Needs `make initrd-debug` (the Makefile targets build it first).
GROUP=stress
. "$(dirname "$0")/lib.sh"
SECS=${STRESS_SECONDS:-120}
K=$B/kernel-debug
INITRD=$B/initrd/debug.cpio.gz
for f in "$K/bzImage" "$K/vmlinux" "$INITRD"; do
	if [ ! -f "$f" ]; then
		not_ok "inputs: $f missing (make initrd-debug)"
		exit 1
	fi
done
IN=$T/stress-in
mkdir -p "$IN"; echo "$SECS" > "$IN/stress.seconds"
# Boot under KASAN + TCG takes ~1 min; the teardown and kmemleak's scans
# a few more.  The vmlinux (~220 MB) goes in the input tar, into the
# guest's RAM: this kernel has no ext2 to mount it from a disk.
# rcu_cpu_stall_timeout at its maximum: KASAN under TCG is slow enough
# for RCU's stall warning, which is not a finding.  acpi=noirq: evaluating
# the PCI interrupt routing (_PRT, the link devices) in ACPI's interpreter
# under KASAN + TCG hit ACPICA's 30 s loop timeout ("AE_AML_LOOP_TIMEOUT")
# and took 70 of the 80 s to init; with the BIOS's routing table instead
# init is reached in ~9 s.
t0=$(date +%s)
if vm stress "$K" "$INITRD" "$ROOT/vmcore-tests/guest/stress.sh" \
	--input "$K/vmlinux" --input "$IN/stress.seconds" --mem 2048 \
	--append "rcupdate.rcu_cpu_stall_timeout=300 acpi=noirq" --timeout $((SECS + 600)); then
	stage "VM run: $(( $(date +%s) - t0 )) s; boot to init: $(grep -o '^\[ *[0-9.]*\] Run /init' "$T/stress/serial.log" | head -1)"
	$PY "$ROOT/vmcore-tests/check_stress.py" "$T/stress" "$SECS" || fail=$((fail + 1))
fi
[ "$fail" = 0 ]
