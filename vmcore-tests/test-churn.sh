#!/bin/bash
# kmempool walking /proc/kcore while pools are created and destroyed
# (issue 9 part 3): every run complete (exit 0) or "changed" (exit 7),
# never a line for a pool that did not exist; see check_churn.py.
#   CHURN_RUNS (150): separate kmempool runs; CHURN_TOPS (300): walks of
#   one `kmempool top`.
GROUP=churn
. "$(dirname "$0")/lib.sh"
RUNS=${CHURN_RUNS:-150}
TOPS=${CHURN_TOPS:-300}
mkdir -p "$T/churn-in"
echo "$RUNS" > "$T/churn-in/churn.runs"
echo "$TOPS" > "$T/churn-in/churn.tops"
if vm churn "$B/kernel" "$B/initrd/test.cpio.gz" "$ROOT/vmcore-tests/guest/churn.sh" \
	--input "$B/kernel/vmlinux" --input "$T/churn-in/churn.runs" \
	--input "$T/churn-in/churn.tops" --mem 1024 --timeout 900; then
	$PY "$ROOT/vmcore-tests/check_churn.py" "$T/churn" "$RUNS" "$TOPS" || fail=$((fail + 1))
fi
[ "$fail" = 0 ]
