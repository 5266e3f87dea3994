#!/bin/sh
# Inside the VM (series v6 kernel): a task stalls in mempool_alloc() on an
# emptied pool; the hung task detector must report it once, naming the
# pool; unloading the module that left a pool listed must warn and unlink
# it, and /proc/mempool must read cleanly afterwards.  kmempool, reading
# /proc/kcore with the kernel's vmlinux (/work/vmlinux, when given), must
# print /proc/mempool byte for byte before and during the stall, and
# kmempool waiters must name the stalled task and its pool.
cd /work
VML=/work/vmlinux

# same NAME: /proc/mempool, kmempool's report, /proc/mempool again, until
# both reads of the file agree with each other and kmempool's matches them
# (oldest_wait ticks once a second: a read may straddle a tick); at most 5
# tries; NAME.cmp.rc is cmp's status of the last try, NAME.tries its count.
same() {
	n=0
	while [ $n -lt 5 ]; do
		n=$((n + 1))
		cat /proc/mempool > /out/$1-proc 2>&1
		kmempool -s $VML > /out/$1-kmp 2> /out/$1-kmp.err; echo $? > /out/$1-kmp.rc
		cat /proc/mempool > /out/$1-proc2 2>&1
		cmp /out/$1-proc /out/$1-proc2 > /dev/null 2>&1 || continue
		cmp /out/$1-proc /out/$1-kmp > /out/$1.cmp 2>&1; echo $? > /out/$1.cmp.rc
		[ "$(cat /out/$1.cmp.rc)" = 0 ] && break
	done
	echo $n > /out/$1.tries
}

cat /proc/mempool > /out/proc-before 2>&1
if [ -f $VML ]; then
	same kmp-before
	kmempool -s $VML -f json > /out/kmp-before.json 2> /out/kmp-before-json.err
	echo $? > /out/kmp-before-json.rc
fi
echo 1 > /proc/sys/kernel/hung_task_check_interval_secs
echo 4 > /proc/sys/kernel/hung_task_timeout_secs
insmod ./kmp_v6stall.ko; echo $? > /out/insmod.rc
sleep 12
cat /proc/mempool > /out/proc-stall 2>&1
if [ -f $VML ]; then
	same kmp-stall
	kmempool waiters -s $VML > /out/kmp-waiters 2> /out/kmp-waiters.err
	echo $? > /out/kmp-waiters.rc
	kmempool waiters -s $VML -f json > /out/kmp-waiters.json 2> /out/kmp-waiters-json.err
	echo $? > /out/kmp-waiters-json.rc
	kmempool -s $VML -f json > /out/kmp-stall.json 2> /out/kmp-stall-json.err
	echo $? > /out/kmp-stall-json.rc
	kmempool info -s $VML > /out/kmp-info 2>&1; echo $? > /out/kmp-info.rc
	kmempool waiters --source stacks -s $VML > /out/kmp-stacks 2>&1; echo $? > /out/kmp-stacks.rc
fi
cat /proc/sys/kernel/hung_task_detect_count > /out/detect-count
echo 0 > /proc/sys/kernel/hung_task_timeout_secs
rmmod kmp_v6stall; echo $? > /out/rmmod.rc
cat /proc/mempool > /out/proc-after 2>&1; echo $? > /out/proc-after.rc
if [ -f $VML ]; then
	same kmp-after
fi
dmesg > /out/dmesg
