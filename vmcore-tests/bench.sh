#!/bin/bash
# Benchmark: kmempool against drgn and crash on the same vmcore, in one
# run.  Prints median wall time and peak RSS of each, and the ratios.
#
#   vmcore-tests/bench.sh [VMCORE VMLINUX]
#
# Default: the demo's vmcore (make demo makes one if missing).  Not a test:
# it asserts nothing, it measures.  It does check that drgn's walk prints
# the same report as kmempool, so both did the same work.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build
VMCORE=${1:-$B/demo/vmcore} VML=${2:-$B/kernel/vmlinux}
KMP=$B/analyzer/kmempool
[ -f "$VMCORE" ] || bash "$ROOT/vmcore-tests/demo.sh" > /dev/null
make -s -C "$ROOT" analyzer
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

# measure NAME RUNS CMD...: median wall seconds (bash's clock, around
# time(1), which adds about a millisecond) and max peak RSS (KB)
measure() {
	local name=$1 runs=$2 i
	shift 2
	"$@" > "$TMP/$name.out" 2> "$TMP/$name.err" || true	# warm the page cache
	: > "$TMP/$name.times"
	for ((i = 0; i < runs; i++)); do
		t0=$EPOCHREALTIME
		/usr/bin/time -f "%M" -o "$TMP/t" "$@" > /dev/null 2>&1 || true
		t1=$EPOCHREALTIME
		echo "$(echo "$t1 - $t0" | bc) $(cat "$TMP/t")" >> "$TMP/$name.times"
	done
	sort -n "$TMP/$name.times" | awk -v n="$name" -v r="$runs" '
		{ t[NR] = $1; if ($2 > m) m = $2 }
		END { printf "%s %s %d %d\n", n, t[int((NR + 1) / 2)], m, r }' >> "$TMP/results"
}
echo "==> [bench] vmcore $VMCORE ($(( $(stat -c %s "$VMCORE") >> 20 )) MiB), vmlinux $VML"
: > "$TMP/results"
measure kmempool 21 "$KMP" -c "$VMCORE" -s "$VML"
measure kmempool-no-aranges 21 "$KMP" -c "$VMCORE" -s "$VML" --no-aranges
measure kmempool-waiters 21 "$KMP" waiters -c "$VMCORE" -s "$VML"
peers=""
if /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
	measure drgn 5 /usr/bin/python3 "$ROOT/vmcore-tests/bench/drgn_mempool.py" "$VMCORE" "$VML"
	if cmp -s "$TMP/drgn.out" "$TMP/kmempool.out"; then
		echo "==> [bench] drgn's walk prints the same report as kmempool"
	else
		echo "==> [bench] WARNING: drgn's report differs from kmempool's"
	fi
	peers="$peers drgn"
fi
if command -v crash > /dev/null; then
	printf 'list -o mempool_s.list -s mempool_s.name,min_nr,curr_nr -H mempool_list\nquit\n' \
		> "$TMP/crash.in"
	measure crash 3 crash -s "$VML" "$VMCORE" -i "$TMP/crash.in"
	peers="$peers crash"
fi
awk '{ printf "%-22s median %7.3f s   peak RSS %7.1f MB   (%d runs)\n", $1, $2, $3 / 1024, $4 }' \
	"$TMP/results"
base=$(awk '$1 == "kmempool" { print $2, $3 }' "$TMP/results")
for p in $peers; do
	awk -v b="$base" -v p="$p" '$1 == p { split(b, k, " ");
		t = (k[1] > 0) ? $2 / k[1] : 0;
		printf "%-22s %6.1fx the time, %5.1fx the peak RSS of kmempool\n", p, t, $3 / k[2] }' \
		"$TMP/results"
done
awk '$1 == "kmempool" { k = $2 } $1 == "kmempool-no-aranges" { n = $2 }
	END { printf "without .debug_aranges (scan every unit header): %.3f s vs %.3f s\n", n, k }' \
	"$TMP/results"
if command -v valgrind > /dev/null; then
	valgrind --tool=massif --massif-out-file="$TMP/massif" "$KMP" -c "$VMCORE" -s "$VML" \
		> /dev/null 2>&1
	heap=$(grep mem_heap_B "$TMP/massif" | sed 's/.*=//' | sort -n | tail -1)
	valgrind --tool=callgrind --callgrind-out-file="$TMP/cg" "$KMP" -c "$VMCORE" -s "$VML" \
		> /dev/null 2> "$TMP/cg.err"
	ins=$(grep -o 'refs: *[0-9,]*' "$TMP/cg.err" | tr -dc 0-9)
	valgrind --tool=callgrind --callgrind-out-file="$TMP/cg2" "$KMP" -c "$VMCORE" -s "$VML" \
		--no-aranges > /dev/null 2> "$TMP/cg2.err"
	ins2=$(grep -o 'refs: *[0-9,]*' "$TMP/cg2.err" | tr -dc 0-9)
	echo "kmempool heap peak (massif): $(( heap / 1024 )) KB; instructions (callgrind):" \
		"$ins with .debug_aranges, $ins2 without ($(awk -v a="$ins" -v b="$ins2" 'BEGIN { printf "%.1f", b / a }')x)"
fi
