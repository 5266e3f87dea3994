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
if vm procread "$B/kernel" "$B/initrd/test.cpio.gz" "$ROOT/vmcore-tests/guest/procread.sh" \
	--input "$T/procread-in/procread.counts" --mem 1024 --timeout 1200; then
	$PY "$ROOT/vmcore-tests/check_procread.py" "$T/procread" "$COUNTS" || fail=$((fail + 1))
fi
[ "$fail" = 0 ]
