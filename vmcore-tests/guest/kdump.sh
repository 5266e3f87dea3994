# kdump scenarios, run in both kernels.  Input files: scenario (formats,
# hang, or corrupt: a pool's tag moved into freed pages just before the
# crash), module.params, dump.level (makedumpfile -d: 23 for the 7.2 base
# with sid's makedumpfile 1.7.8, whose -d 31 drops pages 7.2 uses; free
# pages are excluded either way), bzImage and test.cpio.gz for kexec -p,
# and for the hang scenario vmlinux (for the live kmempool waiters).
#
# first kernel:   dm-crypt + test module, snapshot, load the capture
#                 kernel, crash (formats) or, with a raid1 array too,
#                 hang until the hung-task detector panics (hang)
# capture kernel: write the dump in each format to /dev/vdc, an index of
#                 name/offset/size to /out/dumps
. ./common.sh
SCEN=$(cat scenario)
D=$(cat dump.level 2>/dev/null || echo 31)
MB=1048576

capture() {
	: > /out/dumps
	off=0
	put() {	# put NAME FILE: copy FILE to /dev/vdc at the next MiB boundary
		sz=$(stat -c %s "$2")
		dd if="$2" of=/dev/vdc bs=1M seek=$off conv=notrunc,fsync 2>/dev/null
		echo "$1 $((off * MB)) $sz" >> /out/dumps
		off=$((off + (sz + MB - 1) / MB))
		rm -f "$2"
	}
	if [ "$SCEN" = formats ]; then
		# The plain ELF copy streams straight to the disk.
		sz=$(stat -c %s /proc/vmcore)
		dd if=/proc/vmcore of=/dev/vdc bs=1M conv=fsync 2>/dev/null
		echo "elf 0 $sz" >> /out/dumps
		off=$(((sz + MB - 1) / MB))
		# (makedumpfile 1.7.8 will not overwrite what a failed run left.)
		for f in "elf-filtered -E -d $D" "zlib -c -d $D" "lzo -l -d $D" "kdump -d $D"; do
			set -- $f; n=$1; shift
			rm -f /tmp/dump
			makedumpfile "$@" /proc/vmcore /tmp/dump > /out/makedumpfile-$n.log 2>&1 &&
				put "$n" /tmp/dump
		done
		# Flattened (-F, what Debian's kdump-tools writes): zlib, lzo, uncompressed.
		for f in "flat -c" "flat-lzo -l" "flat-raw"; do
			set -- $f; n=$1; shift
			rm -f /tmp/dump
			makedumpfile -F "$@" -d $D /proc/vmcore > /tmp/dump 2> /out/makedumpfile-$n.log &&
				put "$n" /tmp/dump
		done
	else
		makedumpfile -c -d $D /proc/vmcore /tmp/dump > /out/makedumpfile-zlib.log 2>&1 &&
			put zlib /tmp/dump
	fi
	cat /out/dumps
}

if [ "$KMP_PHASE" = capture ]; then
	capture
	exit 0
fi

load_dm_crypt
setup_dm_crypt; echo $? > /out/dmcrypt.rc
dd if=/dev/urandom of=/dev/mapper/kmpcrypt bs=64k count=16 2>/dev/null
sync
insmod /lib/kmp_test.ko $(cat module.params); echo $? > /out/insmod.rc
kmp_cmd drain kmp_test_kmalloc 2
kexec -p /work/bzImage --initrd=/work/test.cpio.gz \
	--append="console=ttyS0 irqpoll nr_cpus=1 reset_devices panic=1 no_timer_check"
echo $? > /out/kexec.rc
cat /sys/kernel/kexec_crash_loaded > /out/kexec_crash_loaded
uname -r > /out/uname
grep " _stext$" /proc/kallsyms > /out/stext
if [ "$SCEN" = formats ] || [ "$SCEN" = corrupt ]; then
	snap proc-precrash
	[ "$SCEN" = corrupt ] && kmp_cmd lose_name kmp_test_private
	save-results
	echo c > /proc/sysrq-trigger
else
	# A raid1 array, md0 over two loop devices on tmpfs: raid1 keeps its
	# r1bio pool, kmalloc'ed on its own, behind a pointer in its r1conf,
	# which the scan names "*<r1conf>.r1bio_pool" (test-btf.sh checks that
	# name against the pool's tag).
	setup_md_raid1
	# Three waiters started 2 s apart, so that their 5 s wake-ups differ:
	# when the first has waited past the timeout and panics, the others
	# sleep (state D), as tasks that blocked at different times do.
	kmp_cmd block kmp_test_page 1; sleep 2
	kmp_cmd block kmp_test_page 1; sleep 2
	kmp_cmd block kmp_test_page 1
	sleep 1
	ps -o pid,comm,stat > /out/ps-block
	if [ -f /work/vmlinux ]; then
		run kmp-waiters-live kmempool waiters -s /work/vmlinux
		# The stack search (kernels without the series) against the list, live.
		run kmp-waiters-list-live kmempool waiters -f json -s /work/vmlinux
		run kmp-waiters-stacks-live kmempool waiters --source stacks -f json \
			-s /work/vmlinux -M /lib/kmp_test.ko
		# The scan against the list, live (the system is quiet: tasks blocked),
		# with four readers of /proc/kcore at once (each its own open file).
		run kmp-report-live-json kmempool -f json -s /work/vmlinux
		run kmp-scan-live kmempool scan -j 4 -f json -s /work/vmlinux -M /lib/kmp_test.ko
	fi
	snap proc-block
	save-results
	# An ordinary timeout: khungtaskd reports the stalled allocations
	# (series 6/11) and, with hung_task_panic, panics.
	echo 1 > /proc/sys/kernel/hung_task_panic
	echo 10 > /proc/sys/kernel/hung_task_timeout_secs
	sleep 60
	log "no hung-task panic within 60 s"
fi
echo "the first kernel was not crashed" > /out/no-crash
exit 1
