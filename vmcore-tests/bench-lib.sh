# Shared by the benchmarks (sourced): TMP, failed and results in $TMP/results.
# The clock: bench/runtime.c, built here, times one run of a command from
# fork() to wait4() and takes its peak RSS from wait4().
RUNTIME=$ROOT/build/bench/runtime
if [ ! -x "$RUNTIME" ] || [ "$ROOT/vmcore-tests/bench/runtime.c" -nt "$RUNTIME" ]; then
	mkdir -p "$ROOT/build/bench"
	gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$RUNTIME" \
		"$ROOT/vmcore-tests/bench/runtime.c"
fi
# measure NAME RUNS CMD...: median wall seconds and max peak RSS (KB) of
# RUNS runs, after one to warm the page cache (its output kept in
# $TMP/NAME.out, a failure noted in $failed)
measure() {
	local name=$1 runs=$2 i rc=0
	shift 2
	"$@" > "$TMP/$name.out" 2> "$TMP/$name.err" || rc=$?	# warm the page cache
	if [ "$rc" != 0 ]; then
		echo "==> [bench] $name exited $rc: $(head -c 300 "$TMP/$name.err")" >&2
		failed="$failed $name"
	fi
	: > "$TMP/$name.times"
	for ((i = 0; i < runs; i++)); do
		"$RUNTIME" "$@" >> "$TMP/$name.times" || true
	done
	sort -n "$TMP/$name.times" | awk -v n="$name" -v r="$runs" '
		{ t[NR] = $1; if ($2 > m) m = $2 }
		END { printf "%s %s %d %d\n", n, t[int((NR + 1) / 2)], m, r }' >> "$TMP/results"
}
# The clock's own cost, for the record: the median of /bin/true under it.
clock_cost() {
	local i
	for ((i = 0; i < 21; i++)); do "$RUNTIME" /bin/true; done | sort -n |
		awk '{ t[NR] = $1 } END { printf "%.1f ms", t[11] * 1000 }'
}
