#!/bin/bash
# The fast path measured (issue 12 part 3), as a test: bench-fastpath.sh
# with one boot per kernel in time mode and two under -icount (fewer
# rounds than make bench), then check_fastpath.py: the benchmark ran in
# the patched and the stock kernel, its numbers are positive and sane, the
# instruction counts repeat and meet the issue's goals (success path
# patched/stock <= 1.01, reserve path <= 1.05), and the sizes it printed
# are the vmlinux DWARF's, mempool_t larger by exactly the series' members.
#   make test-fastpath      (not part of make test)
GROUP=fastpath
. "$(dirname "$0")/lib.sh"
O=$T/fastpath
t0=$(date +%s)
if FASTPATH_OUT=$O FASTPATH_BOOTS=1 FASTPATH_PARAMS="rounds=7 iters=5000 cd_iters=200" \
	bash "$ROOT/vmcore-tests/bench-fastpath.sh" > "$T/fastpath.log" 2>&1; then
	ok "bench-fastpath.sh: both kernels booted and ran kmp_bench in both modes ($(( $(date +%s) - t0 )) s)"
else
	not_ok "bench-fastpath.sh failed (log: $T/fastpath.log)"
	tail -15 "$T/fastpath.log" | sed 's/^/    /'
fi
sed -n '/^\[icount\]/,$p' "$T/fastpath.log" >&2
$PY "$ROOT/vmcore-tests/check_fastpath.py" "$O" "$B/kernel" "$B/kernel-stock" \
	"$B/src" "$B/stock/src" || fail=$((fail + 1))
[ "$fail" = 0 ]
