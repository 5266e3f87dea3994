#!/bin/bash
# kdump in QEMU: a crash dump in six formats compared byte for byte with
# /proc/mempool just before the crash, a cut-short dump, bad input with a
# real dump, and a hang captured after the hung-task detector panicked.
GROUP=kdump
. "$(dirname "$0")/lib.sh"
KMP=$B/analyzer/kmempool-asan
[ -x "$KMP" ] || KMP=$B/analyzer/kmempool
PARAMS=$MODULE_PARAMS
# makedumpfile's dump level in the capture kernel: that of the base's
# suite (qemu/apt-suite.sh; sid's makedumpfile 1.7.8 needs 23 on 7.2).
. "$ROOT/qemu/apt-suite.sh"
suite_paths "$(. "$ROOT/kernel-patches/base.conf"; echo "$BASE_SUITE")"
LEVEL=$SUITE_DUMPLEVEL
for s in formats hang corrupt; do
	mkdir -p "$T/kd-$s-in"
	echo "$s" > "$T/kd-$s-in/scenario"
	echo "$PARAMS" > "$T/kd-$s-in/module.params"
	echo "$LEVEL" > "$T/kd-$s-in/dump.level"
done
IN=(--input "$B/kernel/bzImage" --input "$B/initrd/test.cpio.gz" --append "crashkernel=128M")

# libkdumpfile is loaded only for the dumps it reads (lib/dump/kdumpdl.c): the
# release binary opens it for the ELF dump, not for the zlib one; with the
# library hidden (a mount namespace binds /dev/null over it) the zlib dump
# reads the same and the ELF dump gets one line naming what is missing.
kdumpfile_on_demand() {
	local rel=$B/analyzer/kmempool z=$T/kd-formats/dump-zlib e=$T/kd-formats/dump-elf
	local lib n rc
	[ -f "$z" ] && [ -f "$e" ] || { not_ok "libkdumpfile on demand: no zlib or ELF dump"; return; }
	for d in "$z:0" "$e:1"; do
		n=$(strace -f -e trace=openat "$rel" -c "${d%:*}" -s "$B/kernel/vmlinux" 2>&1 >/dev/null |
			grep -c 'libkdumpfile\.so[^"]*", [^)]*) = [0-9]')
		if [ "$n" = "${d##*:}" ]; then
			ok "libkdumpfile on demand: $(basename "${d%:*}"): opened $n times"
		else
			not_ok "libkdumpfile on demand: $(basename "${d%:*}"): opened $n times (want ${d##*:})"
		fi
	done
	lib=$(realpath "$(gcc -print-file-name=libkdumpfile.so)")
	# CMD...: run with /dev/null bound over the library, in a namespace of its own
	hidden() { unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$lib" "$@"; }
	"$rel" -c "$z" -s "$B/kernel/vmlinux" > "$T/kd-nolib-plain" 2>&1
	hidden "$rel" -c "$z" -s "$B/kernel/vmlinux" > "$T/kd-nolib-zlib" 2>&1
	rc=$?
	if [ $rc = 0 ] && cmp -s "$T/kd-nolib-plain" "$T/kd-nolib-zlib"; then
		ok "libkdumpfile hidden: the zlib dump's report is the same"
	else
		not_ok "libkdumpfile hidden: the zlib dump: exit $rc ($(head -c 200 "$T/kd-nolib-zlib"))"
	fi
	hidden "$rel" -c "$e" -s "$B/kernel/vmlinux" > /dev/null 2> "$T/kd-nolib-elf"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l < "$T/kd-nolib-elf")" = 1 ] &&
	   grep -q "^kmempool: .*: cannot load libkdumpfile\.so\.[0-9]* (package libkdumpfile" "$T/kd-nolib-elf"; then
		ok "libkdumpfile hidden: the ELF dump: exit 2, $(cut -c1-120 "$T/kd-nolib-elf")"
	else
		not_ok "libkdumpfile hidden: the ELF dump: exit $rc (want 2), $(head -c 300 "$T/kd-nolib-elf")"
	fi
}

# The -d 31 trap (issue 32 item 6): the zlib dump refiltered to kdump-tools'
# default (makedumpfile -F -d 31; up to 1.7.8 it drops 7.x slab pages as
# user pages) loses pages the walk needs.  kmempool must end partial
# (exit 5) with one line that names the missing address, the dump level
# the header records, the kernel's release and the level to capture with;
# and its own reader's "not in the dump" is asked of libkdumpfile before
# it stands (under a shim that ends the run when libkdumpfile opens the
# dump: exit 97).  DUMP: the dump to refilter.
refiltered() {
	local z=$1 f=$T/kd-refiltered.flat rel rc
	rm -f "$f"
	if ! makedumpfile -F -d 31 "$z" > "$f" 2> "$T/kd-refiltered.log"; then
		not_ok "-d 31 refiltered: makedumpfile -F -d 31 failed ($(tail -1 "$T/kd-refiltered.log"))"
		return
	fi
	rel=$(strings "$B/kernel/vmlinux" | sed -n 's/^Linux version \([^ ]*\) .*/\1/p' | head -1)
	"$KMP" -c "$f" -s "$B/kernel/vmlinux" > "$T/kd-refiltered.out" 2> "$T/kd-refiltered.err"
	rc=$?
	if [ $rc = 5 ] && grep -q "is not in the dump (page excluded by makedumpfile.*dump level 31, kernel $rel: makedumpfile up to 1.7.8 drops 7.x slab pages as user pages (-d 8 of 31): capture with -d 23)" "$T/kd-refiltered.err"; then
		ok "-d 31 refiltered ($(du -k "$f" | cut -f1) KiB): exit 5, the message names level 31, $rel and -d 23"
	else
		not_ok "-d 31 refiltered: exit $rc, $(grep -m1 'not in the dump' "$T/kd-refiltered.err" | cut -c1-300)"
	fi
	KMP_TEST_KDUMPFILE=$B/analyzer/kdump_forbid.so "$B/analyzer/kmempool-testing" -c "$f" \
		-s "$B/kernel/vmlinux" > /dev/null 2> "$T/kd-refiltered-forbid.err"
	rc=$?
	if [ $rc = 97 ] && grep -q 'kdump_forbid: libkdumpfile asked to open the dump' "$T/kd-refiltered-forbid.err"; then
		ok "-d 31 refiltered: the own reader's 'not in the dump' is asked of libkdumpfile (the shim ends that run: 97)"
	else
		not_ok "-d 31 refiltered: libkdumpfile not asked about the missing page (exit $rc)"
	fi
}

# A small guest, so that the plain ELF copy of /proc/vmcore stays small.  Its
# capture kernel holds each filtered dump in its tmpfs before writing it
# out: the -E dump of 7.2 at -d 23 got OOM-killed in 128 MB, 192 MB it is.
if vm kd-formats "$B/kernel" "$B/initrd/test.cpio.gz" "$ROOT/vmcore-tests/guest/kdump.sh" \
	--input "$B/kernel/bzImage" --input "$B/initrd/test.cpio.gz" --append "crashkernel=192M" \
	--input "$T/kd-formats-in/scenario" --input "$T/kd-formats-in/module.params" \
	--input "$T/kd-formats-in/dump.level" \
	--mem 512 --scratch 1024 --timeout 300; then
	$PY "$ROOT/vmcore-tests/check_kdump.py" formats "$T/kd-formats" "$B/kernel/vmlinux" "$KMP" ||
		fail=$((fail + 1))
	# The pages kmempool reads itself (lib/dump/diskdump.c) against libkdumpfile's:
	# all of a zlib and an uncompressed dump; of an lzo one, those stored raw.
	# And the translation kmempool sets up itself (lib/dump/ddxlat.c) against
	# libkdumpfile's: the lzo dump's is left to libkdumpfile.
	for f in zlib:100 kdump:100 lzo:0; do
		[ -f "$T/kd-formats/dump-${f%%:*}" ] || continue
		ddcheck_lines "" "$T/kd-formats/dump-${f%%:*}" "${f#*:}"
	done
	# Bad input with a real dump: missing, foreign and stripped vmlinux,
	# truncated dumps.
	if [ -f "$T/kd-formats/dump-zlib" ]; then
		bash "$ROOT/analyzer/tests/badinput.sh" "$KMP" "$B/analyzer/fake_vmlinux" \
			"$T/kd-formats/dump-zlib" "$B/kernel/vmlinux" "$B/kernel-noproc/vmlinux" |
			sed 's/^\(not \)\{0,1\}ok - /&badinput with a real dump: /' || fail=$((fail + 1))
	fi
	kdumpfile_on_demand
	[ -f "$T/kd-formats/dump-zlib" ] && refiltered "$T/kd-formats/dump-zlib"
fi

# The hang: vmlinux goes in too, for kmempool waiters on /proc/kcore.
if vm kd-hang "$B/kernel" "$B/initrd/test.cpio.gz" "$ROOT/vmcore-tests/guest/kdump.sh" \
	"${IN[@]}" --input "$T/kd-hang-in/scenario" --input "$T/kd-hang-in/module.params" \
	--input "$T/kd-hang-in/dump.level" \
	--input "$B/kernel/vmlinux" --mem 768 --scratch 256 --timeout 300; then
	$PY "$ROOT/vmcore-tests/check_kdump.py" hang "$T/kd-hang" "$B/kernel/vmlinux" "$KMP" \
		"$PARAMS" || fail=$((fail + 1))
fi
# A pool whose tag lies in pages makedumpfile excluded (freed).
if vm kd-corrupt "$B/kernel" "$B/initrd/test.cpio.gz" "$ROOT/vmcore-tests/guest/kdump.sh" \
	"${IN[@]}" --input "$T/kd-corrupt-in/scenario" --input "$T/kd-corrupt-in/module.params" \
	--input "$T/kd-corrupt-in/dump.level" \
	--mem 384 --scratch 256 --timeout 300; then
	$PY "$ROOT/vmcore-tests/check_kdump.py" corrupt "$T/kd-corrupt" "$B/kernel/vmlinux" "$KMP" ||
		fail=$((fail + 1))
fi
[ "$fail" = 0 ]
