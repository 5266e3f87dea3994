#!/bin/bash
# Run every libFuzzer harness for SECONDS each, FUZZ_JOBS of them at a time
# (default: one per CPU; each harness is one process), and print one test
# line per harness, in the order given:
#   ok - fuzz: fuzz_walk 123456 execs, cov 321, ft 987, corpus 45
#   not ok - fuzz: fuzz_walk: crash/leak/sanitizer report (artifact ...)
#
#   run.sh BINDIR SECONDS HARNESS...
# Inputs that find new coverage go to BINDIR/work/NAME (the committed seed
# corpus in fuzz/corpus/NAME is only read); artifacts to BINDIR/artifacts.
set -u
BIN=$1 SECS=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
JOBS=${FUZZ_JOBS:-$(nproc)}
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1
export LSAN_OPTIONS="suppressions=$HERE/../tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export KMP_FAKE_VMLINUX=$BIN/../fake_vmlinux KMP_FAKE_VMLINUX_V6=$BIN/../fake_vmlinux_v6

# one HARNESS: run it, write its test line(s) to BINDIR/HARNESS.result
one() {
	local h=$1 log=$BIN/$1.log rc execs cov
	mkdir -p "$BIN/work/$h" "$BIN/artifacts" "$HERE/corpus/$h"
	"$BIN/$h" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$BIN/artifacts/$h-" "$BIN/work/$h" "$HERE/corpus/$h" > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1)
	if [ $rc = 0 ] && [ -n "$execs" ] && [ "$execs" -gt 0 ] &&
	   ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY: ' "$log"; then
		echo "ok - fuzz: $h $execs execs in ${SECS}s (${cov:-no coverage line})"
	else
		echo "not ok - fuzz: $h: exit $rc, ${execs:-0} execs; see $log:"
		grep -E 'ERROR|runtime error|SUMMARY|artifact' "$log" | head -5 | sed 's/^/    /'
	fi > "$BIN/$h.result.tmp"
	mv "$BIN/$h.result.tmp" "$BIN/$h.result"
}

running=0
for h in "$@"; do
	rm -f "$BIN/$h.result"
	if [ $running -ge "$JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
	one "$h" &
	running=$((running + 1))
done
wait
# A harness without a result (its runner died) fails as well.
fail=0
for h in "$@"; do
	if [ -f "$BIN/$h.result" ]; then
		cat "$BIN/$h.result"
		grep -q '^not ok - ' "$BIN/$h.result" && fail=1
	else
		echo "not ok - fuzz: $h: no result (see $BIN/$h.log)"
		fail=1
	fi
done
exit $fail
