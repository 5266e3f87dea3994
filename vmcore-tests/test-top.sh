#!/bin/bash
# kmempool top (issue 11) on the patched kernel's hang dump: -n refreshes
# -d apart as plain lines when stdout is not a terminal, sorted by pressure
# (the pool the tasks wait on first), deltas '-' then '+0' (a dump does not
# change), the CPU time of each refresh; redrawn in place on a terminal
# (script(1)); refused on a kernel without the series and with -f json.
# The cost with 1,000 pools is measured by the unit test (unit-top).
#   ANALYZER_O, PATCHED_DUMP, STOCK_DUMP: as in test-crash.sh
GROUP=top
. "$(dirname "$0")/lib.sh"
ANALYZER_O=${ANALYZER_O:-$B/analyzer}
KMP=$ANALYZER_O/kmempool
D=$T/top
rm -rf "$D"
mkdir -p "$D"
if [ -z "${PATCHED_DUMP:-}" ]; then
	PATCHED_DUMP=$T/kd-hang/dump-zlib
	[ -f "$T/kd-hang/dumps" ] && $PY "$ROOT/vmcore-tests/mempool.py" extract "$T/kd-hang" >/dev/null
fi
STOCK_DUMP=${STOCK_DUMP:-$T/stock-hang/dump-zlib}
V=$B/kernel/vmlinux
if [ ! -f "$PATCHED_DUMP" ]; then
	not_ok "no dump $PATCHED_DUMP (run the kdump test first)"
	exit 1
fi

t0=$(date +%s.%N)
"$KMP" top -n 3 -d 0.2 -c "$PATCHED_DUMP" -s "$V" >"$D/plain" 2>"$D/plain.err"
rc=$?
secs=$(echo "$(date +%s.%N) $t0" | awk '{printf "%.2f", $1 - $2}')
report=$("$KMP" -c "$PATCHED_DUMP" -s "$V" 2>/dev/null)
npools=$(($(wc -l <<<"$report") - 2))
if [ $rc = 0 ] && [ "$(grep -c '^# kmempool top - ' "$D/plain")" = 3 ] &&
	[ "$(grep -c '^# refresh [0-9]*: [0-9.]* ms CPU$' "$D/plain")" = 3 ] &&
	[ "$(grep -vc '^#' "$D/plain")" = $((3 * npools)) ]; then
	ok "top -n 3 -d 0.2: 3 refreshes of the $npools pools of the report, exit 0, $secs s"
else
	not_ok "top -n 3: exit $rc, $(grep -c '^# kmempool top' "$D/plain") headers, $(grep -vc '^#' "$D/plain") pool lines (want 3 x $npools): $(head -1 "$D/plain.err")"
fi
if ! grep -q $'\033' "$D/plain"; then
	ok "not a terminal: plain lines, no escape sequence"
else
	not_ok "escape sequences in the output to a file"
fi
# The same pools as the report, each refresh.
if diff <(grep -v '^#' "$D/plain" | head -n "$npools" | awk '{print $1}' | sort) \
	<(tail -n +3 <<<"$report" | awk '{print $1}' | sort) >/dev/null; then
	ok "each refresh lists the report's pools"
else
	not_ok "the pools differ from the report's"
fi
# Sorted by pressure: the pool the 3 tasks wait on first, then the emptiest.
first=$(grep -v '^#' "$D/plain" | head -1)
want=$(tail -n +3 <<<"$report" | awk '$9 > 0' | sort -k9,9nr | head -1 | awk '{print $1}')
if [ -n "$want" ] && [ "$(awk '{print $1}' <<<"$first")" = "$want" ] &&
	[ "$(awk '{print $11}' <<<"$first")" = 3 ]; then
	ok "sorted by pressure: $want (3 waiting) first"
else
	not_ok "first line '$first', want the pool with waiters ($want)"
fi
if $PY - "$D/plain" <<'PYEOF'
import sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("#")]
n = len(rows) // 3
for r in range(3):
    t = rows[r * n:(r + 1) * n]
    # waiting descending, then curr_nr/min_nr ascending
    keys = [(-int(x[10]), (int(x[4]) / int(x[3])) if int(x[3]) > 0 else 2) for x in t]
    assert keys == sorted(keys), f"refresh {r + 1} not sorted"
    want = "-" if r == 0 else "+0"
    assert all(x[7] == want and x[9] == want for x in t), f"refresh {r + 1}: deltas not {want}"
PYEOF
then
	ok "every refresh sorted (waiting, then curr_nr/min_nr); deltas '-' on the first, '+0' after"
else
	not_ok "order or deltas wrong"
fi
cpu=$(grep '^# refresh' "$D/plain" | awk '{print $4}' | tr '\n' ' ')
# The CPU each refresh took is a time, not a test (make bench reports the
# cost of a refresh); the test checks that each refresh says it.
if awk -v c="$cpu" 'BEGIN { n = split(c, v, " "); exit !(n == 3) }'; then
	ok "each of the 3 refreshes reports its CPU time (ms: $cpu)"
else
	not_ok "refresh lines without a CPU time: '$cpu'"
fi

# A terminal: the screen is cleared before each refresh.
if command -v script >/dev/null; then
	script -qec "$KMP top -n 2 -d 0 -c $PATCHED_DUMP -s $V" /dev/null >"$D/tty" 2>&1
	if [ "$(grep -o $'\033\\[H\033\\[J' "$D/tty" | wc -l)" = 2 ]; then
		ok "on a terminal: the screen is redrawn in place (2 clears for 2 refreshes)"
	else
		not_ok "on a terminal: $(grep -o $'\033\\[H' "$D/tty" | wc -l) clears for 2 refreshes"
	fi
else
	not_ok "no script(1) to test the terminal mode"
fi
# Refusals.
if [ -f "$STOCK_DUMP" ]; then
	"$KMP" top -n 1 -c "$STOCK_DUMP" -s "$B/debian/kernel/vmlinux" >/dev/null 2>"$D/stock.err"
	rc=$?
	if [ $rc = 6 ] && grep -q 'top needs mempool_list' "$D/stock.err"; then
		ok "a kernel without the series: exit 6, '$(cut -c1-60 "$D/stock.err")...'"
	else
		not_ok "stock kernel: exit $rc: $(head -1 "$D/stock.err")"
	fi
else
	not_ok "no stock dump $STOCK_DUMP"
fi
"$KMP" top -n 1 -f json -c "$PATCHED_DUMP" -s "$V" >/dev/null 2>"$D/json.err"
rc=$?
if [ $rc = 1 ] && grep -q 'top prints text only' "$D/json.err"; then
	ok "top -f json: exit 1, text only"
else
	not_ok "top -f json: exit $rc"
fi
for bad in "-n 0" "-n x" "-d -1" "-d x"; do
	"$KMP" top $bad -c "$PATCHED_DUMP" -s "$V" >/dev/null 2>"$D/bad.err"
	rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <"$D/bad.err")" = 1 ]; then
		ok "top $bad: exit 1, one line: $(cat "$D/bad.err")"
	else
		not_ok "top $bad: exit $rc"
	fi
done
echo "$pass passed, $fail failed" >&2
[ "$fail" = 0 ]
