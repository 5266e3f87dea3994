#!/bin/bash
# /proc/mempool with 10,000, 30,000 and 100,000 pools: complete, identical
# to kmempool's report of /proc/kcore, and read in linear time.  No absolute
# time is asserted here; SCALE_GOALS=1 (make bench) prints the time goals
# as met or not.
GROUP=scale
. "$(dirname "$0")/lib.sh"
COUNTS="10000 30000 100000"
mkdir -p "$T/scale-in"; echo "$COUNTS" > "$T/scale-in/scale.counts"
if ! gcc -O2 -static -Wall -Wextra -Werror -o "$T/scale-in/readtime" \
	"$ROOT/vmcore-tests/scale/readtime.c"; then
	not_ok "readtime.c does not build (gcc -static)"
	exit 1
fi
if vm scale "$B/kernel" "$B/initrd/test.cpio.gz" "$ROOT/vmcore-tests/guest/scale.sh" \
	--input "$B/kernel/vmlinux" --input "$T/scale-in/scale.counts" \
	--input "$T/scale-in/readtime" --mem 1024 --timeout 600; then
	goals=(); [ -n "${SCALE_GOALS:-}" ] && goals=(--goals 1.0)
	$PY "$ROOT/vmcore-tests/check_scale.py" "$T/scale" "$COUNTS" "${goals[@]}" ||
		fail=$((fail + 1))
fi
[ "$fail" = 0 ]
