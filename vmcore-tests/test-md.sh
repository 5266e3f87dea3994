#!/bin/bash
# md raid1 in the VM: its pools, and raid1_reshape() moving one.
GROUP=md
. "$(dirname "$0")/lib.sh"
if vm md "$B/kernel" "$B/initrd/test.cpio.gz" "$ROOT/vmcore-tests/guest/md.sh" \
	--input "$B/kernel/vmlinux" --mem 1024 --timeout 300; then
	REL=$(cat "$B/kernel/release")
	$PY "$ROOT/vmcore-tests/check_md.py" "$T/md" \
		"$B/kernel/modroot/lib/modules/$REL/kernel/drivers/md/raid1.ko" || fail=$((fail + 1))
fi
[ "$fail" = 0 ]
