# kmempool on /proc/kcore while kmp_churn.ko's threads create and destroy
# pools through every API (issue 9 part 3): RUNS separate kmempool runs
# (text, every 5th JSON) and one `kmempool top` doing TOPS walks, each
# output with its exit status; /proc/mempool before, during and after;
# the module's counters.  The checks run on the host (check_churn.py).
. ./common.sh
VML=/work/vmlinux
RUNS=$(cat churn.runs)
TOPS=$(cat churn.tops)
up() { cut -d' ' -f1 /proc/uptime; }
snap proc-boot
run kmp-boot kmempool -s $VML
insmod /lib/kmp_churn.ko threads=4; echo $? > /out/insmod.rc
sleep 1
t0=$(up)
i=0
while [ $i -lt "$RUNS" ]; do
	if [ $((i % 5)) = 4 ]; then
		kmempool -v -s $VML -f json > /tmp/o 2> /tmp/e; rc=$?
		fmt=json
	else
		kmempool -v -s $VML > /tmp/o 2> /tmp/e; rc=$?
		fmt=text
	fi
	{ echo "=== run $i $fmt rc $rc"; cat /tmp/o; echo "--- stderr"; cat /tmp/e; } >> /out/runs
	[ $((i % 10)) = 0 ] && { echo "=== proc $i"; cat /proc/mempool; } >> /out/procs
	i=$((i + 1))
done
t1=$(up)
echo "$t0 $t1" > /out/runs.time
t0=$(up)
kmempool top -s $VML -n "$TOPS" -d 0.01 > /out/top 2> /out/top.err; echo $? > /out/top.rc
t1=$(up)
echo "$t0 $t1" > /out/top.time
for c in rounds created destroyed allocs from_reserve waits resized errors running; do
	echo "$c $(cat /sys/module/kmp_churn/parameters/$c)"
done > /out/counters
rmmod kmp_churn; echo $? > /out/rmmod.rc
snap proc-end
run kmp-end kmempool -s $VML
dmesg > /out/dmesg
exit 0
