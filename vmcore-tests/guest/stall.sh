#!/bin/sh
# Inside the VM (the default kernel): a task stalls in mempool_alloc() on an
# emptied pool; the hung task detector must report it once, naming the
# pool; unloading the module that left a pool listed must warn and unlink
# it, and /proc/mempool must read cleanly afterwards.
cd /work
cat /proc/mempool > /out/proc-before 2>&1
echo 1 > /proc/sys/kernel/hung_task_check_interval_secs
echo 4 > /proc/sys/kernel/hung_task_timeout_secs
insmod ./kmp_stall.ko; echo $? > /out/insmod.rc
sleep 12
cat /proc/mempool > /out/proc-stall 2>&1
cat /proc/sys/kernel/hung_task_detect_count > /out/detect-count
echo 0 > /proc/sys/kernel/hung_task_timeout_secs
rmmod kmp_stall; echo $? > /out/rmmod.rc
cat /proc/mempool > /out/proc-after 2>&1; echo $? > /out/proc-after.rc
dmesg > /out/dmesg
