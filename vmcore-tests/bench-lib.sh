# Shared by the benchmarks (sourced): TMP, failed and results in $TMP/results.
# measure NAME RUNS CMD...: median wall seconds (bash's clock, around
# time(1), which adds about a millisecond) and max peak RSS (KB)
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
		t0=$EPOCHREALTIME
		/usr/bin/time -f "%M" -o "$TMP/t" "$@" > /dev/null 2>&1 || true
		t1=$EPOCHREALTIME
		echo "$(echo "$t1 - $t0" | bc) $(cat "$TMP/t")" >> "$TMP/$name.times"
	done
	sort -n "$TMP/$name.times" | awk -v n="$name" -v r="$runs" '
		{ t[NR] = $1; if ($2 > m) m = $2 }
		END { printf "%s %s %d %d\n", n, t[int((NR + 1) / 2)], m, r }' >> "$TMP/results"
}
