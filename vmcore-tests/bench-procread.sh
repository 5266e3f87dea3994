#!/bin/bash
# A full read of /proc/mempool at 10,000 and 100,000 pools, quiet and while
# pools come and go (series v7 keeps it linear: a cursor per open file;
# v6's resume restarted from the list's head after any mempool_exit()).
# Boots the default kernel (build/kernel) once; guest/procread.sh reads,
# check_procread.py checks each read is complete and prints the time per
# pool and the ratio between the counts.  PROCREAD_COUNTS overrides the
# counts.
#   make bench-procread        (also part of make bench)
GROUP=procread
. "$(dirname "$0")/lib.sh"
COUNTS=${PROCREAD_COUNTS:-10000 100000}
mkdir -p "$T/procread-in"; echo "$COUNTS" > "$T/procread-in/procread.counts"
if ! gcc -O2 -static -Wall -Wextra -Werror -o "$T/procread-in/readtime" \
	"$ROOT/vmcore-tests/scale/readtime.c"; then
	not_ok "readtime.c does not build (gcc -static)"
	exit 1
fi
# One vCPU under TCG with -icount shift=0 (as bench-fastpath's icount mode):
# the guest's clock advances by one nanosecond per guest instruction, so the
# times are the guest's work, whatever else the host runs; the churning
# threads run between the reader's read() calls, which is where v6's
# resume failed.
if KMP_ACCEL=tcg KMP_QEMU_ARGS="-icount shift=0" vm procread "$B/kernel" \
	"$B/initrd/test.cpio.gz" "$ROOT/vmcore-tests/guest/procread.sh" \
	--input "$T/procread-in/procread.counts" --input "$T/procread-in/readtime" \
	--mem 1024 --smp 1 --timeout 1800; then
	$PY "$ROOT/vmcore-tests/check_procread.py" "$T/procread" "$COUNTS" || fail=$((fail + 1))
fi
[ "$fail" = 0 ]
