#!/bin/sh
# /init of the kmempool test initramfs (busybox).  Runs in the first
# kernel and, after a crash, in the kdump capture kernel.
#
# /dev/vda  input: a tar with script.sh (and any files it needs; the
#           capture kernel unpacks only the files below 4 MiB)
# /dev/vdb  output: a tar of /out, written by save-results and at the end
# /dev/vdc  optional raw scratch disk for large files (dumps)
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
# An initramfs for a kernel whose disk drivers are modules (Debian's) loads
# them here, before the disks below are read.
[ -f /etc/kmp-preinit.sh ] && . /etc/kmp-preinit.sh
mkdir -p /tmp /work /out /run
mount -t tmpfs tmp /tmp
echo 1 > /proc/sys/kernel/printk_ratelimit 2>/dev/null
if [ -e /proc/vmcore ]; then KMP_PHASE=capture; else KMP_PHASE=first; fi
export KMP_PHASE
echo "KMP-INIT phase=$KMP_PHASE release=$(uname -r)"
if [ "$KMP_PHASE" = capture ]; then
	# The capture kernel lives in the crashkernel= reservation: skip the
	# big inputs (vmlinux, kernel images), which only the first kernel uses.
	small=$(tar tvf /dev/vda 2>/dev/null | awk '$3 < 4194304 && $1 !~ /^d/ { print $6 }')
	tar xf /dev/vda -C /work $small 2>/dev/null || echo "KMP-INIT: no input disk"
else
	tar xf /dev/vda -C /work 2>/dev/null || echo "KMP-INIT: no input disk"
fi
# Keep what an earlier phase (the first kernel, before a crash) saved.
tar xf /dev/vdb -C /out 2>/dev/null
rc=127
if [ -f /work/script.sh ]; then
	cd /work
	sh /work/script.sh
	rc=$?
	cd /
fi
echo "$rc" > "/out/status.$KMP_PHASE"
save-results
echo "KMP-DONE phase=$KMP_PHASE rc=$rc"
sync
poweroff -f
