#!/bin/bash
# Every test of kmempool, in order; `make test` runs this.  Each step prints
# "ok - ..." / "not ok - ..." lines; the last line is "N passed, N failed".
# A step that fails without saying why counts as one failure.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build
mkdir -p "$B/t"
LOG=$B/t/test.log
: > "$LOG"
start=$(date +%s)


# CPU_S: the CPU seconds (user + system) of this shell's finished children
# so far, from the builtin times (its second line), run in the shell itself.
cpu_s() {
	local u s f=$B/t/.times.$BASHPID
	times > "$f"
	{ read -r _; read -r u s; } < "$f"
	rm -f "$f"
	CPU_S=$(awk -v u="$u" -v s="$s" 'function sec(x, m) { m = x; sub(/m.*/, "", m);
		sub(/^[0-9]+m/, "", x); sub(/s$/, "", x); return m * 60 + x }
		BEGIN { printf "%.0f", sec(u) + sec(s) }')
}

# step NAME CMD...: run, show, and keep the output for the count; its wall
# and CPU time (CPU: user + system of everything it ran) after it.
step() {
	local name=$1 t0=$(date +%s) c0 rc before
	shift
	cpu_s; c0=$CPU_S
	echo "==> [test] $name" >&2
	before=$(grep -c '^not ok - ' "$LOG")
	"$@" 2>&1 | tee -a "$LOG"
	rc=${PIPESTATUS[0]}
	if [ "$rc" != 0 ] && [ "$(grep -c '^not ok - ' "$LOG")" = "$before" ]; then
		echo "not ok - $name: failed with status $rc (no test said why)" | tee -a "$LOG"
	fi
	cpu_s
	echo "==> [test] $name: $(( $(date +%s) - t0 )) s ($(( CPU_S - c0 )) s of CPU)" >&2
	return "$rc"
}

build() { make -s -C "$ROOT" "$@"; }

# bg_step LANE NAME CMD...: step NAME in the background, for a step that
# shares nothing with the ones run meanwhile and leaves the CPUs idle much
# of the time (a VM waiting for its hang); bg_lane LANE FUNC runs a
# function of such steps there.  Their lines go to files of their own
# (never interleaved with the foreground's) until bg_join LANE prints them
# and adds them to the log.  One step or function per lane at a time.
declare -A BG_PID
bg_lane() {
	local lane=$1
	shift
	(LOG=$B/t/bg-$lane.log; : > "$LOG"; "$@") > "$B/t/bg-$lane.out" 2>&1 &
	BG_PID[$lane]=$!
}
bg_step() {
	local lane=$1
	shift
	bg_lane "$lane" step "$@"
}
bg_join() {
	local lane=$1 rc
	wait "${BG_PID[$lane]}"; rc=$?
	cat "$B/t/bg-$lane.out"
	cat "$B/t/bg-$lane.log" >> "$LOG"
	return "$rc"
}

# The analyzer's files the unit tests ran on, when they passed (a hash,
# lib.sh files_hash): the Debian package's build (test-deb.sh) leaves out
# the same tests on the same files, on this host with the same compiler.
unit_files() { (. "$ROOT/vmcore-tests/lib.sh"; cd "$ROOT" && git ls-files -z analyzer | files_hash); }
unit=$(unit_files)
if step "analyzer: unit tests and bad input (ASan+UBSan)" build analyzer-check &&
   [ "$(unit_files)" = "$unit" ]; then
	export KMP_UNIT_TESTED=$unit
fi
if step "build: analyzer, kernel, test module, initramfs" build analyzer initrd; then
	built=1
else
	built=0
fi
# The analyzer's other programs the steps below run (layout_probe,
# kmempool-tsan, mkcore, the fuzz harnesses), built here, before steps
# run side by side: make in one object folder from one step at a time.
A=$B/analyzer
step "build: the analyzer's test programs and fuzz harnesses" \
	make -s -C "$ROOT/analyzer" O="$A" "$A/layout_probe" "$A/kmempool-tsan" "$A/mkcore" \
	"$A/fake_vmlinux" "$A/kmempool-testing" fuzz-build
step "build: the CONFIG_PROC_MEMPOOL=n flavor" build initrd-noproc
# make install / uninstall into a staging DESTDIR (issue 11).
step "install" bash "$ROOT/vmcore-tests/test-install.sh"
# Lanes side by side from here (issue 35: the two cores kept busy; no
# step reads what a step of another lane writes while that runs).  Their
# lines come when each is joined.
# 1. The series: patches apply, checkpatch, kernel-doc, a build after each
# (from nothing, 25 minutes of the two CPUs' time: the longest lane).
bg_step series "series" bash "$ROOT/vmcore-tests/test-series.sh"
# 2. The hosts users run (issue 35): in a trixie and a sid chroot, make
# deps, make analyzer and its unit tests, the fuzz harnesses, the .deb
# built and installed with apt (test-hosts.sh --build; the installed
# kmempool reads the stock dumps at the end, once the trixie dump
# exists).  From nothing, mostly downloads and package installs.
bg_step hosts "hosts: build" bash "$ROOT/vmcore-tests/test-hosts.sh" --build
# 3. Debian's own kernels (no series), each VM mostly waiting for its
# hang: the fuzz smoke first (libFuzzer, each harness 6 s; make -C
# analyzer fuzz: 60 s), then bookworm's 6.1 (its inputs cached under
# build/debian, build/module-stock, build/initrd/stock.cpio.gz), debuginfod
# on its dump (issue 20: a real server indexing the rig's -dbg .deb, no
# vmlinux on disk), and Debian 13's 6.12 (its inputs from a private apt
# configuration and a trixie chroot; the other suites: make
# test-kernels).  Their dumps from the dump alone come after the patched
# kernel's kdump step, whose hang dump test-btf reads too.
stock_lane() {
	step "analyzer: fuzz smoke (libFuzzer, each harness 6 s; make -C analyzer fuzz: 60 s)" \
		make -s -C "$ROOT/analyzer" O="$A" fuzz-smoke
	step "stock" bash "$ROOT/vmcore-tests/test-stock.sh"
	step "debuginfod" bash "$ROOT/vmcore-tests/test-debuginfod.sh"
	step "stock-trixie" bash "$ROOT/vmcore-tests/test-stock.sh" trixie
}
bg_lane stock stock_lane
# 4. The patched kernel's VM steps, here.
if [ $built = 1 ]; then
	step "rig" bash "$ROOT/vmcore-tests/test-rig.sh"
	step "live" bash "$ROOT/vmcore-tests/test-live.sh"
	# khungtaskd reports a stalled mempool_alloc(); a leaky module's unload.
	step "stall" bash "$ROOT/vmcore-tests/test-stall.sh"
	step "md" bash "$ROOT/vmcore-tests/test-md.sh"
	step "scale" bash "$ROOT/vmcore-tests/test-scale.sh"
	# kmempool on /proc/kcore while kmp_churn.ko creates and destroys pools (issue 9).
	step "churn" bash "$ROOT/vmcore-tests/test-churn.sh"
	step "noproc" bash "$ROOT/vmcore-tests/test-noproc.sh"
	step "kdump" bash "$ROOT/vmcore-tests/test-kdump.sh"
	# The Debian package: dpkg-buildpackage, lintian, apt-get install in a
	# fresh debootstrap chroot (cached in build/deb-chroot), the report on
	# the kdump step's dump there (the unit tests left out of its build
	# when the analyzer step passed them on the same files, see
	# test-deb.sh); its lines come at the end.
	bg_step deb "deb" bash "$ROOT/vmcore-tests/test-deb.sh"
	# README's demo output against a real run of the demo's patched half.
	step "readme" bash "$ROOT/vmcore-tests/test-readme.sh"
else
	echo "not ok - VM tests: not run, the build failed" | tee -a "$LOG"
fi
# The debug flavor (KASAN, lockdep, DEBUG_LIST, kmemleak; issue 12) and
# the stress run on it are not part of make test: its kernel build alone
# took 22 of a new machine's 83 minutes.  make test-stress runs them
# (make stress: 600 s of loops); README's "Tests" gives its last result.
bg_join stock
# The stock dumps from the dump alone: BTF and kallsyms, no vmlinux (issue
# 33), and the patched kernel's hang dump likewise.
step "btf" bash "$ROOT/vmcore-tests/test-btf.sh" bookworm
step "btf-trixie" bash "$ROOT/vmcore-tests/test-btf.sh" trixie
# The crash extension on the kdump test's hang dump and the stock dump (issue 11).
step "crash" bash "$ROOT/vmcore-tests/test-crash.sh"
# Every command's JSON against analyzer/kmempool.schema.json, on the same dumps.
step "json" bash "$ROOT/vmcore-tests/test-json.sh"
# kmempool top on the hang dump (its cost with 1,000 pools: unit-top in analyzer-check).
step "top" bash "$ROOT/vmcore-tests/test-top.sh"
# The kmempool the hosts step installed in the trixie and sid chroots on
# the stock dumps, the trixie one among them, with each release's
# libraries (libkdumpfile 0.5.4, 0.5.6).
bg_join series
bg_join hosts
step "hosts: run" bash "$ROOT/vmcore-tests/test-hosts.sh" --run
# kmempool triage (issue 20) over the kdump and stock tests' dumps, a truncated copy and crafted cores.
step "triage" bash "$ROOT/vmcore-tests/test-triage.sh"
[ $built = 1 ] && bg_join deb
pass=$(grep -c '^ok - ' "$LOG")
fail=$(grep -c '^not ok - ' "$LOG")
cpu_s
echo "==> [test] all done in $(( $(date +%s) - start )) s, $CPU_S s of CPU (log: $LOG)" >&2
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
