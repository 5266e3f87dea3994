#!/bin/bash
# The crash extension (issue 11): crash in batch mode loads
# kmempool.so and runs `mempool` (report, or the scan on a kernel without the
# series), `mempool -w`, `mempool -s`, their JSON and `mempool -i` on the
# patched kernel's hang dump (the kdump test's) and on Debian's stock dump
# (the stock test's); each output must be exactly the CLI's on the same
# dump (the patched 7.2 dump with the base suite's crash in its chroot,
# crash-suite.sh; the stock bookworm dump with the host's crash 8.0.2).
# Each command's output is redirected by crash into its own file, so
# crash's own chatter (warnings about its task list on 6.1.107+) never enters
# the comparison.  Then (issue 21, item 6) what it links, Ctrl-C and the pager
# on a terminal (crash_pty.py), and 1 against 100 commands under valgrind.
#   ANALYZER_O     analyzer build directory (kmempool, kmempool.so); build/analyzer
#   PATCHED_DUMP   default build/t/kd-hang/dump-zlib (vmlinux build/kernel/vmlinux)
#   STOCK_DUMP     default build/t/stock-hang/dump-zlib (build/debian/kernel/vmlinux)
GROUP=crash
. "$(dirname "$0")/lib.sh"
ANALYZER_O=${ANALYZER_O:-$B/analyzer}
KMP=$ANALYZER_O/kmempool
SO=$ANALYZER_O/kmempool.so
D=$T/crash
rm -rf "$D"
mkdir -p "$D"

if [ -z "${PATCHED_DUMP:-}" ]; then
	PATCHED_DUMP=$T/kd-hang/dump-zlib
	[ -f "$T/kd-hang/dumps" ] && $PY "$ROOT/vmcore-tests/mempool.py" extract "$T/kd-hang" >/dev/null
fi
STOCK_DUMP=${STOCK_DUMP:-$T/stock-hang/dump-zlib}

if [ -x "$KMP" ] && [ -f "$SO" ] && command -v crash >/dev/null; then
	ok "kmempool, kmempool.so and crash ($(crash --version 2>/dev/null | awk '/^crash/ {print $2; exit}')) are there"
else
	not_ok "missing: kmempool ($KMP), kmempool.so ($SO) or crash"
	exit 1
fi

# The extension exports nothing but what crash needs (no pread(), no library symbol).
exported=$(nm -D --defined-only "$SO" | awk '{print $3}' | grep -v -x -e _init -e _fini | tr '\n' ' ')
if [ -z "$exported" ]; then
	ok "kmempool.so exports no symbol of its own"
else
	not_ok "kmempool.so exports: $exported"
fi

# It links neither libkdumpfile nor the pread() hook (issue 21): crash reads the memory.
# (It may call glibc's pread(): the vmlinux's symbol tables are read with it.)
linked=$(ldd "$SO" | awk '/libkdumpfile|libaddrxlat/ {print $1}' | tr '\n' ' ')
hooks=$(nm --defined-only "$SO" | awk '{print $NF}' | grep -E '^(pread|pread64|__pread64|kmp_fdhook_.*|kmp_real_pread|kdump_.*|kmp_core_open|kmp_kdump_open|kmp_flat_.*)(@.*)?$' | tr '\n' ' ')
if [ -z "$linked$hooks" ]; then
	ok "kmempool.so links no libkdumpfile and has no pread() hook ($(ldd "$SO" | grep -c '=>') libraries: $(ldd "$SO" | awk '/=>/ {print $1}' | grep -v -e libc.so -e ld-linux | tr '\n' ' '))"
else
	not_ok "kmempool.so links or holds the file readers: $linked$hooks"
fi

# same NAME FILE-A FILE-B: byte-identical and not empty
same() {
	local n=$1 a=$2 b=$3
	if [ -s "$a" ] && cmp -s "$a" "$b"; then
		ok "$n: identical to the CLI ($(wc -l <"$a") lines)"
	else
		not_ok "$n: differs from the CLI ($(wc -l <"$a" 2>/dev/null) vs $(wc -l <"$b" 2>/dev/null) lines)"
		diff "$b" "$a" 2>&1 | head -8 | sed 's/^/    /'
	fi
}

# The patched kernel's dump (7.2) is read by the base suite's own crash
# (sid's 9.0.2) in its chroot, with the extension built there
# (crash-suite.sh): bookworm's crash 8.0.2 exits 1 on a 7.2 dump, and 9.0.2
# stops at its module list ("invalid structure member offset:
# module_num_gpl_syms"), so it runs with --no_modules (the extension reads
# the modules itself).  CROOT names that chroot for run_case and pty_case
# (empty: the host's crash); the dump, vmlinux and outputs go below
# CROOT/kmp/t/NAME (hard links); /proc is mounted there meanwhile.
CROOT=
CRASH=(crash)
# run_case NAME DUMP VMLINUX [-M MODULE]: one crash session, then the comparisons
run_case() {
	local name=$1 dump=$2 vml=$3 c=$D/$1 t0 t1 secs ic so=$SO
	shift 3
	local mopt=("$@")
	mkdir -p "$c"
	if [ ! -f "$dump" ] || [ ! -f "$vml" ]; then
		not_ok "$name: dump $dump or vmlinux $vml missing (run the kdump and stock tests first)"
		return
	fi
	ic=$c	# the case directory as crash sees it
	if [ -n "$CROOT" ]; then
		ic=/kmp/t/$name
		rm -rf "$CROOT$ic"; mkdir -p "$CROOT$ic"
		ln -f "$dump" "$CROOT$ic/dump" 2>/dev/null || cp "$dump" "$CROOT$ic/dump"
		ln -f "$vml" "$CROOT$ic/vmlinux" 2>/dev/null || cp "$vml" "$CROOT$ic/vmlinux"
		so=/kmp/build/kmempool.so
	fi
	# What the CLI prints.
	"$KMP" -c "$dump" -s "$vml" "${mopt[@]}" >"$c/cli-report" 2>"$c/cli-report.err"
	"$KMP" waiters -c "$dump" -s "$vml" "${mopt[@]}" >"$c/cli-waiters" 2>/dev/null
	"$KMP" scan -c "$dump" -s "$vml" "${mopt[@]}" >"$c/cli-scan" 2>/dev/null
	"$KMP" -c "$dump" -s "$vml" -f json "${mopt[@]}" >"$c/cli-report.json" 2>/dev/null
	"$KMP" waiters -c "$dump" -s "$vml" -f json "${mopt[@]}" >"$c/cli-waiters.json" 2>/dev/null
	"$KMP" scan -c "$dump" -s "$vml" -f json "${mopt[@]}" >"$c/cli-scan.json" 2>/dev/null
	"$KMP" info -c "$dump" -s "$vml" >"$c/cli-info" 2>/dev/null
	# The same through crash: crash's startup alone, then with the commands.
	local cvml=$vml cdump=$dump
	[ -z "$CROOT" ] || { cvml=$ic/vmlinux; cdump=$ic/dump; }
	printf 'exit\n' >"$CROOT$ic/cmds0"
	t0=$(date +%s.%N)
	timeout 300 "${CRASH[@]}" -s "$cvml" "$cdump" -i "$ic/cmds0" >"$c/crash0.log" 2>&1 </dev/null
	t1=$(date +%s.%N)
	{
		echo "extend $so"
		echo "mempool ${mopt[*]} > $ic/ext-report"
		echo "mempool -w ${mopt[*]} > $ic/ext-waiters"
		echo "mempool -s ${mopt[*]} > $ic/ext-scan"
		echo "mempool -j ${mopt[*]} > $ic/ext-report.json"
		echo "mempool -w -j ${mopt[*]} > $ic/ext-waiters.json"
		echo "mempool -s -j ${mopt[*]} > $ic/ext-scan.json"
		echo "mempool -i > $ic/ext-info"
		echo "mempool -x"
		echo "exit"
	} >"$CROOT$ic/cmds"
	timeout 600 "${CRASH[@]}" -s "$cvml" "$cdump" -i "$ic/cmds" >"$c/crash.log" 2>&1 </dev/null
	rc=$?
	if [ -n "$CROOT" ]; then
		# The same files (hard links) under the names crash sees in the chroot.
		for f in "$CROOT$ic"/ext-*; do
			sed "s|$ic/dump|$dump|g; s|$ic/vmlinux|$vml|g" "$f" > "$c/${f##*/}"
		done
	fi
	secs=$(echo "$(date +%s.%N) $t1 $t0" | awk '{printf "%.1f s (crash alone %.1f s)", $1 - $2, $2 - $3}')
	if [ $rc = 0 ] && grep -q 'kmempool.so: shared object loaded' "$c/crash.log"; then
		local which="the host's crash"
		[ -z "$CROOT" ] || which="crash $(chroot "$CROOT" dpkg-query -W -f '${Version}' crash) in $CROOT"
		ok "$name: $which -s loads kmempool.so and runs 8 mempool commands, exit 0 in $secs"
	else
		not_ok "$name: crash exit $rc: $(grep -v '^$' "$c/crash.log" | tail -3 | tr '\n' ' ')"
		return
	fi
	same "$name: mempool" "$c/ext-report" "$c/cli-report"
	same "$name: mempool -w" "$c/ext-waiters" "$c/cli-waiters"
	same "$name: mempool -s" "$c/ext-scan" "$c/cli-scan"
	# JSON: the same but for kernel.format ("crash": memory read by crash).
	local -A opt=([report]="" [waiters]="-w " [scan]="-s ")
	for j in report waiters scan; do
		if $PY - "$c/ext-$j.json" "$c/cli-$j.json" <<'PYEOF'
import json, sys
ext, cli = (json.load(open(p)) for p in sys.argv[1:3])
assert ext["kernel"].pop("format") == "crash", "kernel.format is not crash"
cli["kernel"].pop("format")
assert ext == cli, "JSON differs"
assert ext.get("pools"), "no pools"
PYEOF
		then
			ok "$name: mempool ${opt[$j]}-j: the CLI's JSON, kernel.format \"crash\""
		else
			not_ok "$name: mempool ${opt[$j]}-j: JSON differs from the CLI's"
		fi
	done
	# info: the same lines but the dump format, and where the symbols came
	# from: crash's own table (symbol_value), every one where the vmlinux has it.
	if [ -s "$c/ext-info" ] &&
		diff <(grep -v '^dump format:\|^symbols:' "$c/ext-info") <(grep -v '^dump format:' "$c/cli-info") >/dev/null &&
		grep -qx 'dump format:    crash' "$c/ext-info"; then
		ok "$name: mempool -i: the CLI's info ($(grep '^release:' "$c/ext-info" | tr -s ' '), $(grep '^panic:' "$c/ext-info" | cut -c1-40)...), format crash"
	else
		not_ok "$name: mempool -i differs from kmempool info"
		diff "$c/cli-info" "$c/ext-info" | head -6 | sed 's/^/    /'
	fi
	if grep -qE '^symbols: +[1-9][0-9]* from crash, 0 at another address' "$c/ext-info" &&
		! grep -q '^symbols:' "$c/cli-info"; then
		ok "$name: the symbols come from crash's table: $(grep '^symbols:' "$c/ext-info" | tr -s ' ')"
	else
		not_ok "$name: symbols not from crash: $(grep '^symbols:' "$c/ext-info")"
	fi
	if grep -q 'Usage:' "$c/crash.log" && grep -q 'mempool \[-w | -s | -i\]' "$c/crash.log"; then
		ok "$name: a bad option prints the usage"
	else
		not_ok "$name: mempool -x did not print the usage"
	fi
}

CROOT=$(bash "$ROOT/vmcore-tests/crash-suite.sh") ||
	not_ok "patched: the base suite's crash and the extension built in its chroot (crash-suite.sh)"
if [ -n "$CROOT" ]; then
	CRASH=(chroot "$CROOT" crash --no_modules)
	mount -t proc proc "$CROOT/proc"
fi
run_case patched "$PATCHED_DUMP" "$B/kernel/vmlinux"
[ -z "$CROOT" ] || umount "$CROOT/proc"
PCROOT=$CROOT
CROOT=
CRASH=(crash)
# On the patched kernel the tasks come from the list; the hang has 3 waiters.
if [ "$(grep -c '^    pid ' "$D/patched/ext-waiters" 2>/dev/null)" = 3 ]; then
	ok "patched: mempool -w lists the 3 blocked tasks"
else
	not_ok "patched: mempool -w does not list 3 tasks: $(head -4 "$D/patched/ext-waiters" 2>/dev/null)"
fi
run_case stock "$STOCK_DUMP" "$B/debian/kernel/vmlinux" -M "$B/module-stock/kmp_stock.ko"
# On Debian's kernel the report falls back to the scan, and the waiters come
# from the stacks: 3 + 2 tasks on the module's two pools, named by member.
if grep -q '^pool .* kmp_stock_devs\[1\]\.pool \[kmp_stock\]' "$D/stock/ext-waiters" 2>/dev/null &&
	[ "$(grep -c '^    pid ' "$D/stock/ext-waiters")" = 5 ] &&
	grep -q 'no mempool_list' "$D/stock/crash.log"; then
	ok "stock: mempool falls back to the scan (message on stderr); mempool -w: 5 tasks, kmp_stock_devs[1].pool named"
else
	not_ok "stock: mempool -w or the scan fallback not as expected"
fi
# Ctrl-C and the pager through a terminal (crash_pty.py, issue 21 item 6):
# `mempool -s` interrupted, then sys and mempool as before, nothing left open.
pty_case() {
	local name=$1 dump=$2 vml=$3 c=$D/$1
	shift 3
	if [ ! -s "$c/cli-scan" ]; then
		not_ok "$name: terminal: no CLI scan to compare with"
		return
	fi
	if [ -n "$CROOT" ]; then
		mount -t proc proc "$CROOT/proc"
		KMP_CRASH_ROOT=$CROOT timeout 900 $PY "$ROOT/vmcore-tests/crash_pty.py" \
			"$CROOT/kmp/t/$name/vmlinux" "$CROOT/kmp/t/$name/dump" "$CROOT/kmp/build/kmempool.so" \
			"$c/cli-scan" "$@" >"$c/pty.log" 2>&1
		umount "$CROOT/proc"
	else
		timeout 900 $PY "$ROOT/vmcore-tests/crash_pty.py" "$vml" "$dump" "$SO" "$c/cli-scan" "$@" \
			>"$c/pty.log" 2>&1
	fi
	while read -r verdict msg; do
		case $verdict in
		PASS) ok "$name: terminal: $msg" ;;
		FAIL) not_ok "$name: terminal: $msg" ;;
		esac
	done <"$c/pty.log"
	grep -q '^PASS crash exits 0' "$c/pty.log" || not_ok "$name: terminal: the session did not finish: $(tail -2 "$c/pty.log" | tr '\n' ' ')"
}
CROOT=$PCROOT
[ -f "$PATCHED_DUMP" ] && pty_case patched "$PATCHED_DUMP" "$B/kernel/vmlinux"
CROOT=
pty_case stock "$STOCK_DUMP" "$B/debian/kernel/vmlinux" -M "$B/module-stock/kmp_stock.ko"

# 1 and CRASH_VALGRIND_N (100) mempool commands in one crash under memcheck:
# crash leaks on its own, so the extension's share is what grows with the
# count: the lost bytes, the reachable bytes and the descriptors open at
# exit must be the same, and no loss record or error may have a frame in
# kmempool.so.  On the patched dump (the smaller vmlinux), else the stock one.
# It takes ~5 min here, too long for make test: it runs with
# CRASH_VALGRIND=1 (make test-crash-valgrind), README has its result.
VG_N=${CRASH_VALGRIND_N:-100}
vg_run() {	# vg_run N DUMP VMLINUX [-M MODULE]: crash under memcheck, N commands
	local n=$1 dump=$2 vml=$3 v=$D/valgrind
	shift 3
	{
		echo "extend $SO"
		for ((i = 0; i < n; i++)); do
			case $((i % 4)) in
			0) echo "mempool $* >> $v/out-$n" ;;
			1) echo "mempool -w $* >> $v/out-$n" ;;
			2) echo "mempool -s $* >> $v/out-$n" ;;
			3) echo "mempool -i >> $v/out-$n" ;;
			esac
		done
		echo exit
	} >"$v/cmds-$n"
	timeout 3600 valgrind --leak-check=full --num-callers=40 --track-fds=yes \
		--log-file="$v/vg-$n.log" crash -s "$vml" "$dump" -i "$v/cmds-$n" \
		>"$v/crash-$n.log" 2>&1 </dev/null
}
vg_sum() {	# the numbers that must not grow, from a memcheck log
	awk '/definitely lost:|indirectly lost:|possibly lost:|still reachable:/ {gsub(",", "", $4); printf "%s=%s ", $2, $4}
	     /FILE DESCRIPTORS:/ {printf "fds=%s ", $4}
	     /ERROR SUMMARY:/ {printf "errors=%s", $4}' "$1"
}
if [ "${CRASH_VALGRIND:-0}" != 1 ]; then
	:	# not part of this run (see above)
elif ! command -v valgrind >/dev/null; then
	not_ok "valgrind: not installed (make deps installs it)"
else
	if [ -f "$PATCHED_DUMP" ]; then
		vg=(patched "$PATCHED_DUMP" "$B/kernel/vmlinux")
	else
		vg=(stock "$STOCK_DUMP" "$B/debian/kernel/vmlinux" -M "$B/module-stock/kmp_stock.ko")
	fi
	mkdir -p "$D/valgrind"
	t0=$(date +%s)
	vg_run 1 "${vg[@]:1}"
	vg_run "$VG_N" "${vg[@]:1}"
	secs=$(($(date +%s) - t0))
	one=$(vg_sum "$D/valgrind/vg-1.log")
	many=$(vg_sum "$D/valgrind/vg-$VG_N.log")
	runs=$(grep -c '^release:' "$D/valgrind/out-$VG_N" 2>/dev/null)
	if [ "$runs" = $(((VG_N + 1) / 4)) ] && [ "$(grep -c '^# ' "$D/valgrind/out-$VG_N")" -ge $((VG_N / 4)) ]; then
		ok "${vg[0]}: valgrind: $VG_N mempool commands ran in one crash (mempool, -w, -s, -i; $secs s for both runs)"
	else
		not_ok "${vg[0]}: valgrind: $VG_N mempool commands did not all run ($runs of -i): $(tail -2 "$D/valgrind/crash-$VG_N.log" | tr '\n' ' ')"
	fi
	if [ -n "$one" ] && [ "$one" = "$many" ]; then
		ok "${vg[0]}: valgrind: nothing grows from 1 to $VG_N commands ($many)"
	else
		not_ok "${vg[0]}: valgrind: 1 command: $one; $VG_N: $many"
	fi
	if ! grep -q 'kmempool\.so' "$D/valgrind/vg-$VG_N.log"; then
		ok "${vg[0]}: valgrind: no leak or error with a frame in kmempool.so"
	else
		not_ok "${vg[0]}: valgrind: kmempool.so in $D/valgrind/vg-$VG_N.log"
		grep -B3 -m3 'kmempool\.so' "$D/valgrind/vg-$VG_N.log" | sed 's/^/    /'
	fi
fi
echo "$pass passed, $fail failed" >&2
[ "$fail" = 0 ]
