#!/bin/bash
# The CONFIG_PROC_MEMPOOL=n kernel: no file, kmempool still reports.
GROUP=noproc
. "$(dirname "$0")/lib.sh"
PARAMS="slab_min=3 slab_size=136 kmalloc_min=6 kmalloc_size=520 page_min=4 page_order=0 private_min=9 private_size=48 unnamed_min=1 unnamed_size=40"
mkdir -p "$T/noproc-in"; echo "$PARAMS" > "$T/noproc-in/module.params"
if vm noproc "$B/kernel-noproc" "$B/initrd/noproc.cpio.gz" "$ROOT/vmcore-tests/guest/noproc.sh" \
	--input "$B/kernel-noproc/vmlinux" --input "$T/noproc-in/module.params" --mem 1024 \
	--timeout 300; then
	$PY "$ROOT/vmcore-tests/check_noproc.py" "$T/noproc" "$B/kernel-noproc/System.map" \
		"$PARAMS" "$T/live" || fail=$((fail + 1))
fi
[ "$fail" = 0 ]
