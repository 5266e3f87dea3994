# The stock-kernel scenario "hang", run in Debian's own kernel (no series)
# and its kdump capture kernel, the same for every suite's kernel (5.10,
# 6.1, 6.12, 7.2).  Input files: module.params (the test module's pool
# sizes), bzImage and the initramfs (stock.cpio.gz, stock-SUITE.cpio.gz)
# for kexec -p.  With run-vm.sh --disk build/debian[-SUITE]/vmlinux.ext2
# the vmlinux is on the last virtio disk (label kmpvmlinux), for the live
# analyzer on /proc/kcore.  dump.level (optional, default 31): makedumpfile's
# -d for the three dumps (23 for 7.2, whose slab pages sid's makedumpfile
# 1.7.8 takes for user pages).
#
# first kernel:   dm-crypt over loop, md raid1 over two loops, kmp_stock
#                 with block_private=3 block_dev1=2, wait for the five
#                 waiters in D state, ground truth (ps, the module's log),
#                 live `kmempool waiters -f json`, kexec -p, sysrq crash
# capture kernel: makedumpfile -F -c -d 31 (flat, as Debian's kdump-tools
#                 writes it), -c -d 31 (zlib), -E -d 31 (elf) to /dev/vdc
#                 (-d from dump.level);
#                 index "NAME OFFSET SIZE" in /out/dumps
. ./common.sh
MB=1048576
NWAIT=5
# makedumpfile without its progress bar: common, error and report messages.
QUIET="--message-level 22"
DL=$(cat /work/dump.level 2>/dev/null || echo 31)

# elf_end DEV: where the ELF64 file on DEV ends (its last segment's end)
elf_end() {
	phoff=$(od -An -t u8 -j 32 -N 8 "$1")
	phnum=$(od -An -t u2 -j 56 -N 2 "$1")
	od -An -v -t u8 -j $phoff -N $((phnum * 56)) "$1" | tr -s ' ' '\n' | grep . |
		awk -v h=$((phoff + phnum * 56)) 'BEGIN { e = h }
			NR % 7 == 2 { o = $1 } NR % 7 == 5 && o + $1 > e { e = o + $1 }
			END { printf "%d\n", e }'
}

capture() {
	: > /out/dumps
	t0=$(date +%s)
	# The ELF dump is 150-300 MB (small holes between kept pages are
	# written as zeros), too big for tmpfs here: first, straight to the
	# scratch disk at offset 0 (-f: the device exists).  Not through a
	# loop device at an offset: that cached every page twice (the loop's
	# and the disk's) in the capture kernel's 384 MB, and one such capture
	# stopped writing for good (CI, 2026-12-07).
	log "capture: makedumpfile -E -d $DL to /dev/vdc"
	makedumpfile -f -E -d $DL $QUIET /proc/vmcore /dev/vdc > /out/makedumpfile-elf.log 2>&1
	echo $? > /out/makedumpfile-elf.rc
	sync
	end=$(elf_end /dev/vdc)
	echo "elf 0 $end" >> /out/dumps
	off=$(((end + MB - 1) / MB))
	put() {	# put NAME FILE: copy FILE to /dev/vdc at the next MiB boundary
		sz=$(stat -c %s "$2")
		dd if="$2" of=/dev/vdc bs=1M seek=$off conv=notrunc,fsync 2>/dev/null
		echo "$1 $((off * MB)) $sz" >> /out/dumps
		off=$((off + (sz + MB - 1) / MB))
		rm -f "$2"
	}
	# The compressed dumps go through /tmp (tmpfs).
	log "capture: makedumpfile -F -c -d $DL ($(($(date +%s) - t0)) s)"
	makedumpfile -F -c -d $DL $QUIET /proc/vmcore > /tmp/dump 2> /out/makedumpfile-flat.log
	echo $? > /out/makedumpfile-flat.rc
	put flat /tmp/dump
	log "capture: makedumpfile -c -d $DL ($(($(date +%s) - t0)) s)"
	makedumpfile -c -d $DL $QUIET /proc/vmcore /tmp/dump > /out/makedumpfile-zlib.log 2>&1
	echo $? > /out/makedumpfile-zlib.rc
	[ -f /tmp/dump ] && put zlib /tmp/dump
	echo $(($(date +%s) - t0)) > /out/capture-seconds
	log "capture: done in $(cat /out/capture-seconds) s"
	cat /out/dumps
}

# In the capture kernel, before the dump is written: kmempool waiters on
# /proc/vmcore itself (a triage printed before the dump exists), with the
# vmlinux from the ext2 disk; check_stock.py wants the answer of the saved
# dumps.
vmcore_triage() {
	dev=$(findfs LABEL=kmpvmlinux 2>/dev/null)
	[ -n "$dev" ] || { echo "no vmlinux disk" > /out/vmcore-waiters.err; return; }
	modprobe ext4 2>> /out/modprobe.err
	mkdir -p /mnt/vml
	mount -t ext2 -o ro "$dev" /mnt/vml 2> /out/vmcore-waiters.err || return
	timeout 120 kmempool waiters -f json -c /proc/vmcore -s /mnt/vml/vmlinux \
		-M /lib/kmp_stock.ko > /out/vmcore-waiters.json 2> /out/vmcore-waiters.err
	echo $? > /out/vmcore-waiters.rc
	umount /mnt/vml
}

if [ "$KMP_PHASE" = capture ]; then
	free -m > /out/capture-free
	makedumpfile -v 2>&1 | head -1 > /out/makedumpfile-version
	echo "$DL" > /out/makedumpfile-level
	vmcore_triage
	capture
	exit 0
fi

uname -r > /out/uname
cat /proc/cmdline > /out/cmdline
# KASLR: where _stext really is (the checker compares with vmlinux).
grep ' _stext$' /proc/kallsyms > /out/stext

# dm-crypt over loop (xts wants ecb; AES is built in from 6.1 on, a
# module in 5.10).  What this kernel has built in is not in modules.dep.
for m in aes_generic xts ecb dm-crypt; do
	grep -q "/$m.ko:" "/lib/modules/$(uname -r)/modules.dep" || continue
	modprobe "$m" 2>> /out/modprobe.err || log "modprobe $m failed"
done
setup_dm_crypt; echo $? > /out/dmcrypt.rc
dd if=/dev/urandom of=/dev/mapper/kmpcrypt bs=64k count=16 2>/dev/null
sync

# md raid1 over two loop devices.
setup_md_raid1
dd if=/dev/urandom of=/dev/md0 bs=64k count=16 2>/dev/null
sync
cat /proc/mdstat > /out/mdstat
lsmod > /out/lsmod

# The test module: five tasks blocked on two emptied private pools.
insmod /lib/kmp_stock.ko $(cat module.params) block_private=3 block_dev1=2
echo $? > /out/insmod.rc
i=0
while :; do
	ps -o pid,comm,stat > /out/ps-block
	n=$(awk '$2 == "kmp_waiter" && $3 ~ /^D/' /out/ps-block | wc -l)
	[ "$n" = $NWAIT ] && break
	i=$((i + 1))
	[ $i -ge 50 ] && { log "only $n of $NWAIT waiters in D state after 10 s"; break; }
	sleep 0.2
done
dmesg | grep 'kmp_stock: ' > /out/kmp_stock.log

# Live: kmempool waiters on /proc/kcore, with vmlinux from the ext2 disk
# and the module's DWARF (for member names).
VML=
dev=$(findfs LABEL=kmpvmlinux 2>/dev/null)
if [ -n "$dev" ]; then
	modprobe ext4 2>> /out/modprobe.err
	mkdir -p /mnt/vml
	if mount -t ext2 -o ro "$dev" /mnt/vml 2> /out/mount-vmlinux.err; then
		VML=/mnt/vml/vmlinux
	fi
fi
if [ -n "$VML" ]; then
	t0=$(date +%s)
	timeout 120 kmempool waiters -f json -s $VML -M /lib/kmp_stock.ko > /out/live-waiters.json 2> /out/live-waiters.err
	echo $? > /out/live-waiters.rc
	echo $(($(date +%s) - t0)) > /out/live-waiters.seconds
	timeout 60 kmempool info -s $VML > /out/live-info 2> /out/live-info.err
	timeout 120 kmempool scan -f json -s $VML -M /lib/kmp_stock.ko > /out/live-scan.json \
		2> /out/live-scan.err
	echo $? > /out/live-scan.rc
	echo $? > /out/live-info.rc
else
	log "no vmlinux disk: live analyzer not run"
fi
# Live from the kernel alone (issue 33): its BTF and kallsyms, no vmlinux
# and no module debug info (test-btf.sh compares with the answers above).
for cmd in waiters scan; do
	timeout 120 kmempool $cmd -f json --types btf > /out/live-btf-$cmd.json 2> /out/live-btf-$cmd.err
	echo $? > /out/live-btf-$cmd.rc
done
timeout 60 kmempool info --types btf > /out/live-btf-info 2> /out/live-btf-info.err
echo $? > /out/live-btf-info.rc
# The waiters must still be asleep after all that.
ps -o pid,comm,stat > /out/ps-precrash

kexec -p /work/bzImage --initrd="$(ls /work/stock*.cpio.gz | head -1)" \
	--append="console=ttyS0 irqpoll nr_cpus=1 reset_devices panic=1 no_timer_check"
echo $? > /out/kexec.rc
cat /sys/kernel/kexec_crash_loaded > /out/kexec_crash_loaded
save-results
echo c > /proc/sysrq-trigger
echo "the first kernel was not crashed" > /out/no-crash
exit 1
