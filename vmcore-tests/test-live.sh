#!/bin/bash
# Live tests in the VM with the default kernel: /proc/mempool, built-in
# names, dm-crypt, the test module, kmempool on /proc/kcore.
GROUP=live
. "$(dirname "$0")/lib.sh"
PARAMS=$MODULE_PARAMS
mkdir -p "$T/live-in"; echo "$PARAMS" > "$T/live-in/module.params"
if vm live "$B/kernel" "$B/initrd/test.cpio.gz" "$ROOT/vmcore-tests/guest/live.sh" \
	--input "$B/kernel/vmlinux" --input "$T/live-in/module.params" --mem 1024 --timeout 300; then
	REL=$(cat "$B/kernel/release")
	$PY "$ROOT/vmcore-tests/check_live.py" "$T/live" "$B/kernel/vmlinux" \
		"$B/kernel/modroot/lib/modules/$REL/kernel/drivers/md" "$PARAMS" "$B/module" ||
		fail=$((fail + 1))
fi
[ "$fail" = 0 ]
