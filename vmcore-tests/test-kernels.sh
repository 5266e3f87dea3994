#!/bin/bash
# The stock test (vmcore-tests/test-stock.sh) on Debian's own kernel of
# every suite the rig knows: bullseye (5.10), bookworm (6.1), trixie (6.12),
# sid (7.2); `make test-kernels`, not part of `make test`.  KMP_SUITES
# (space separated) picks others.  While one suite's VM runs, the next
# suite's inputs (download, -dbg extraction, chroot, module, initramfs)
# are built in the background: the VM is mostly one busy CPU, the build
# mostly network, xz and dpkg.  The last line is "N passed, N failed".
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/qemu/apt-suite.sh"
B=$ROOT/build
mkdir -p "$B/t"
LOG=$B/t/test-kernels.log
: > "$LOG"
SUITES=(${KMP_SUITES:-$KMP_ALL_SUITES})
start=$(date +%s)
make -s -C "$ROOT" analyzer >&2 || { echo "not ok - test-kernels: the analyzer does not build" | tee -a "$LOG"; }
# prebuild SUITE: its inputs, output to build/t/prebuild-SUITE.log
prebuild() {
	make -s -C "$ROOT" stock SUITE="$1" > "$B/t/prebuild-$1.log" 2>&1
}
PRE_PID= PRE_SUITE=
i=0
for s in "${SUITES[@]}"; do
	t0=$(date +%s)
	echo "==> [test-kernels] $s" >&2
	if [ "$PRE_SUITE" = "$s" ]; then
		wait "$PRE_PID"
		cat "$B/t/prebuild-$s.log" >&2
	else
		make -s -C "$ROOT" stock SUITE="$s" >&2
	fi
	PRE_PID= PRE_SUITE=
	# The next suite builds while this one's VM runs.
	next=${SUITES[$((i + 1))]:-}
	i=$((i + 1))
	if [ -n "$next" ]; then
		prebuild "$next" &
		PRE_PID=$! PRE_SUITE=$next
	fi
	before=$(grep -c '^not ok - ' "$LOG")
	bash "$ROOT/vmcore-tests/test-stock.sh" "$s" 2>&1 | tee -a "$LOG"
	rc=${PIPESTATUS[0]}
	if [ "$rc" != 0 ] && [ "$(grep -c '^not ok - ' "$LOG")" = "$before" ]; then
		echo "not ok - test-kernels: $s failed with status $rc (no test said why)" | tee -a "$LOG"
	fi
	# The same dumps from the dump alone (issue 33; bullseye: the exit 3).
	before=$(grep -c '^not ok - ' "$LOG")
	bash "$ROOT/vmcore-tests/test-btf.sh" "$s" 2>&1 | tee -a "$LOG"
	rc=${PIPESTATUS[0]}
	if [ "$rc" != 0 ] && [ "$(grep -c '^not ok - ' "$LOG")" = "$before" ]; then
		echo "not ok - test-kernels: btf $s failed with status $rc (no test said why)" | tee -a "$LOG"
	fi
	echo "==> [test-kernels] $s: $(( $(date +%s) - t0 )) s" >&2
done
[ -z "$PRE_PID" ] || wait "$PRE_PID"
pass=$(grep -c '^ok - ' "$LOG")
fail=$(grep -c '^not ok - ' "$LOG")
echo "==> [test-kernels] all done in $(( $(date +%s) - start )) s (log: $LOG)" >&2
for s in "${SUITES[@]}"; do
	g=stock-$s; [ "$s" = bookworm ] && g=stock
	echo "    $s: $(grep -c "^ok - $g: " "$LOG") passed, $(grep -c "^not ok - $g: " "$LOG") failed;" \
		"from the dump alone $(grep -c "^ok - btf-$s: " "$LOG") passed, $(grep -c "^not ok - btf-$s: " "$LOG") failed" >&2
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
