#!/bin/bash
# Debian's own kernel (no series) in QEMU, KASLR on: five tasks blocked in
# mempool_alloc() on two emptied private pools of the stock test module,
# with dm-crypt and md raid1 set up; the live answer of `kmempool waiters`
# on /proc/kcore, then a sysrq crash captured by Debian's kernel as kdump
# kernel in three formats (flattened as kdump-tools writes it, zlib, ELF).
# check_stock.py checks the analyzer's answer on each against the ground
# truth (ps and the module's own log), with drgn as a second oracle.
#   vmcore-tests/test-stock.sh [SUITE]   (or SUITE=...; default bookworm)
# SUITE picks Debian's kernel of bullseye (5.10), bookworm (6.1), trixie
# (6.12) or sid (7.2); each has its kernel dir, module, initramfs and chroot
# (qemu/apt-suite.sh paths SUITE), the checks' group is stock-SUITE (stock
# for bookworm), the output build/t/stock-hang-SUITE (stock-hang).
SUITE=${1:-${SUITE:-bookworm}}
. "$(dirname "$0")/../qemu/apt-suite.sh"
suite_paths "$SUITE" || exit 2
if [ "$SUITE" = bookworm ]; then GROUP=stock; else GROUP=stock-$SUITE; fi
. "$(dirname "$0")/lib.sh"
# KMP_ANALYZER: another analyzer binary (in the initramfs and on the host).
KMP=${KMP_ANALYZER:-$B/analyzer/kmempool}
K=$SUITE_K
KO=$SUITE_MOD/kmp_stock.ko
INITRD=$SUITE_INITRD
# Pool sizes the test module is asked for (block_* are set by the guest).
STOCK_PARAMS="slab_min=4 slab_size=200 dev0_min=0 dev1_min=6 dev_size=112 page_min=2 page_order=1 buf_min=5 buf_size=300 private_min=8 private_size=72 big_min=3"

stage "building Debian's $SUITE kernel dir, kmp_stock.ko, stock initramfs (cached)"
t0=$(date +%s.%N)
if ! make -s -C "$ROOT" module-stock SUITE="$SUITE" >&2 ||
   ! { [ -x "$KMP" ] || make -s -C "$ROOT" analyzer >&2; } ||
   ! bash "$ROOT/vmcore-tests/build-initrd-stock.sh" "$SUITE" "$KMP" >&2; then
	not_ok "build: Debian's $SUITE kernel, kmp_stock.ko, stock initramfs"
	exit 1
fi
stage "build/cache check: $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s"

# What the analyzer takes from this kernel: every piece found among its
# alternatives in the analyzer's one table of them (analyzer/lib/base/kpieces.c),
# from the vmlinux alone (analyzer/tests/layout_probe.c).
PROBE=$B/analyzer/layout_probe
if make -s -C "$ROOT/analyzer" O="$B/analyzer" "$PROBE" >&2 &&
   "$PROBE" "$K/vmlinux" > "$T/$SUITE_T-layout" 2>&1; then
	ok "layout_probe: every piece the analyzer needs is in $(cat "$K/release")'s vmlinux ($(sed -n 's/^where a waiter sleeps  *//p' "$T/$SUITE_T-layout"); $(sed -n 's/^slab pages  *//p' "$T/$SUITE_T-layout"))"
else
	not_ok "layout_probe: $(grep MISSING "$T/$SUITE_T-layout" | tr -s ' ' | tr '\n' ';')"
fi

# The drgn oracle: the suite's own python3-drgn in its chroot when it has
# one (trixie 0.0.31), else the host's (0.0.22).
DRGN_ROOT=()
if [ -n "$SUITE_ROOT" ] && chroot "$SUITE_ROOT" /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
	DRGN_ROOT=(--drgn-root "$SUITE_ROOT")
fi

IN=$T/$SUITE_T-in
mkdir -p "$IN"
echo "$STOCK_PARAMS" > "$IN/module.params"
echo "$SUITE_DUMPLEVEL" > "$IN/dump.level"
# The vmlinux (633 MB) reaches the guest as a read-only ext2 disk (mounted,
# not copied into its RAM).  The capture kernel's 384 MB hold Debian's
# kernel, the initramfs and one compressed dump at a time in tmpfs (~40 MB);
# the ELF dump (150-300 MB) goes straight to the scratch disk.
if vm "$SUITE_T" "$K" "$INITRD" "$ROOT/vmcore-tests/guest/stock.sh" \
	--input "$IN/module.params" --input "$IN/dump.level" --input "$K/bzImage" --input "$INITRD" \
	--disk "$SUITE_EXT2" --append "crashkernel=384M" --cpu "$SUITE_CPU" \
	--mem 1536 --scratch 2048 --timeout 600; then
	$PY "$ROOT/vmcore-tests/check_stock.py" "$T/$SUITE_T" "$K/vmlinux" "$KMP" \
		"$KO" "$STOCK_PARAMS block_private=3 block_dev1=2" --group "$GROUP" \
		"${DRGN_ROOT[@]}" || fail=$((fail + 1))
	# Threads calling libkdumpfile at once crashed it in about one scan in
	# 30 (lib/dump/kdump.c: now one call at a time): 40 scans with -j 2 of the
	# zlib dump, each exiting 0 with the output of -j 1.
	Z=$T/$SUITE_T/dump-zlib
	if [ -f "$Z" ] && "$KMP" scan -j 1 -c "$Z" -s "$K/vmlinux" -M "$KO" > "$T/$SUITE_T-scan-j1" 2>&1; then
		bad=0
		for i in $(seq 40); do
			"$KMP" scan -j 2 -c "$Z" -s "$K/vmlinux" -M "$KO" > "$T/$SUITE_T-scan-j2" 2>&1 &&
				cmp -s "$T/$SUITE_T-scan-j1" "$T/$SUITE_T-scan-j2" || bad=$((bad + 1))
		done
		if [ $bad = 0 ]; then
			ok "$SUITE: 40 scans of the zlib dump with two threads exit 0 and print what one thread prints"
		else
			not_ok "$SUITE: $bad of 40 scans of the zlib dump with two threads crashed or differ from one thread's"
		fi
	else
		not_ok "$SUITE: kmempool scan -j 1 of the zlib dump failed"
	fi
	# The same threads under ThreadSanitizer: four, each with a reader of
	# its own, libkdumpfile under its lock; no report, the output of -j 1.
	if make -s -C "$ROOT/analyzer" O="$B/analyzer" "$B/analyzer/kmempool-tsan" \
		> "$T/$SUITE_T-tsan.build" 2>&1 &&
	   TSAN_OPTIONS="halt_on_error=1" "$B/analyzer/kmempool-tsan" scan -j 4 -c "$Z" \
		-s "$K/vmlinux" -M "$KO" > "$T/$SUITE_T-scan-tsan" 2>&1 &&
	   cmp -s "$T/$SUITE_T-scan-j1" "$T/$SUITE_T-scan-tsan"; then
		ok "$SUITE: a scan of the zlib dump with four threads under ThreadSanitizer: no report, the output of one thread"
	else
		not_ok "$SUITE: the scan under ThreadSanitizer failed or differs ($T/$SUITE_T-scan-tsan)"
	fi
	# Its pages by kmempool's own reader (lib/dump/diskdump.c): each the same as
	# libkdumpfile's, and all of them taken; the runs use it (it reads the
	# page descriptors 170 at a time: 4080 bytes, which libkdumpfile never
	# asks for).  Its translation (lib/dump/ddxlat.c): the same as libkdumpfile's.
	ddcheck_lines "$SUITE: " "$Z" 100
	# With both, libkdumpfile reads no page of this dump: waiters meets no
	# page left out, and under a shim loaded as libkdumpfile that ends the
	# run if it opens the dump prints what it prints without it; a scan
	# meets pages left out and asks libkdumpfile only to confirm its first
	# "not in the dump" answers (at most 8 reads in all, lib/dump/kdump.c), under
	# a shim that counts them, and prints what it prints without it.
	"$KMP" waiters -c "$Z" -s "$K/vmlinux" -M "$KO" > "$T/$SUITE_T-waiters-plain" 2>&1
	rc=$?
	KMP_TEST_KDUMPFILE=$B/analyzer/kdump_forbid.so "$B/analyzer/kmempool-testing" waiters \
		-c "$Z" -s "$K/vmlinux" -M "$KO" > "$T/$SUITE_T-waiters-forbid" 2>&1
	frc=$?
	if [ $rc = 0 ] && [ $frc = 0 ] && cmp -s "$T/$SUITE_T-waiters-plain" "$T/$SUITE_T-waiters-forbid"; then
		ok "$SUITE: kmempool waiters reads the zlib dump without opening it in libkdumpfile (same output)"
	else
		not_ok "$SUITE: kmempool waiters under kdump_forbid.so: exit $frc (plain run: $rc) ($(head -c 200 "$T/$SUITE_T-waiters-forbid"))"
	fi
	"$KMP" scan -c "$Z" -s "$K/vmlinux" -M "$KO" > "$T/$SUITE_T-scan-plain" 2>&1
	rc=$?
	rm -f "$T/$SUITE_T-scan-count"
	KMP_TEST_KDUMP_COUNT=$T/$SUITE_T-scan-count KMP_TEST_KDUMPFILE=$B/analyzer/kdump_count.so \
		"$B/analyzer/kmempool-testing" scan -c "$Z" -s "$K/vmlinux" -M "$KO" > "$T/$SUITE_T-scan-counted" 2>&1
	frc=$?
	# The shim writes its counts at exit when it was loaded; libkdumpfile is
	# loaded on demand, so no file means it was never opened.
	if [ -f "$T/$SUITE_T-scan-count" ]; then
		read -r _ opens _ reads < "$T/$SUITE_T-scan-count"
	elif [ $frc = 0 ]; then
		opens=0 reads=0
	fi
	if [ $rc = 0 ] && [ $frc = 0 ] && cmp -s "$T/$SUITE_T-scan-plain" "$T/$SUITE_T-scan-counted" &&
	   [ "${reads:-99}" -le 8 ] && [ "${opens:-99}" -le 1 ]; then
		ok "$SUITE: kmempool scan reads the zlib dump's pages itself: libkdumpfile opened ${opens} time(s), ${reads} read(s) to confirm pages left out (at most 8), same output"
	else
		not_ok "$SUITE: kmempool scan under kdump_count.so: exit $frc (plain run: $rc), opens ${opens:-?} reads ${reads:-?} (want <= 1, <= 8)"
	fi
	for cmd in waiters scan; do
		n=$(strace -f -e trace=pread64 "$KMP" "$cmd" -c "$Z" -s "$K/vmlinux" -M "$KO" 2>&1 >/dev/null |
			grep -cE "pread64\(.*, 4080, [0-9]+\) = 4080$" || true)
		if [ "$n" -gt 0 ] 2>/dev/null; then
			ok "$SUITE: kmempool $cmd reads the dump's pages itself ($n blocks of page descriptors)"
		else
			not_ok "$SUITE: kmempool $cmd left every page to libkdumpfile (no block of descriptors read)"
		fi
	done
	# Symbols by name come from one read of .strtab and .symtab a run
	# (lib/debuginfo/symscan.c): reads starting at .strtab's offset, counted.
	stroff=$(readelf -SW "$K/vmlinux" | sed -n 's/.* \.strtab  *STRTAB  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
	[ -n "$stroff" ] && stroff=$((16#$stroff))
	for cmd in waiters scan; do
		n=$(strace -f -e trace=pread64 "$KMP" "$cmd" -c "$Z" -s "$K/vmlinux" -M "$KO" 2>&1 >/dev/null |
			grep -cE "pread64\(.*, $stroff\) = [0-9]+$" || true)
		if [ -n "$stroff" ] && [ "$n" = 1 ]; then
			ok "$SUITE: kmempool $cmd reads the symbol names once (1 read from .strtab's start)"
		else
			not_ok "$SUITE: kmempool $cmd reads .strtab from its start $n times (want 1; offset '$stroff')"
		fi
	done
fi
[ "$fail" = 0 ]
