# /proc/mempool read whole with N pools, quiet and while pools come and go
# (series v7: a cursor per open file keeps a full read linear under churn).
# For each N of procread.counts: kmp_test.ko many=N adds N pools; the file
# is read in 4 KiB read()s three times with nothing else running, then
# three times while kmp_churn.ko's threads create and destroy pools, each
# read kept and checked (the N pools, no id twice); then three more reads
# of each kind timed by readtime (vmcore-tests/scale/readtime.c: wall time
# and the reader's system CPU time, which the churning threads' own work
# does not inflate).  kmp_churn's destroyed count around the churning
# reads comes back too.
. ./common.sh
chmod +x ./readtime
for n in $(cat procread.counts); do
	insmod /lib/kmp_test.ko many=$n; echo $? > /out/insmod-$n.rc
	for mode in quiet churn; do
		if [ $mode = churn ]; then
			insmod /lib/kmp_churn.ko threads=2; echo $? > /out/churn-insmod-$n.rc
			sleep 1
			cat /sys/module/kmp_churn/parameters/destroyed > /out/destroyed0-$n
		fi
		for i in 1 2 3; do
			./readtime /proc/mempool 4096 /tmp/m > /dev/null
			grep -c '^kmp_many ' /tmp/m >> /out/many-$mode-$n
			awk 'NR > 2 { print $NF }' /tmp/m | sort | uniq -d | wc -l >> /out/dupids-$mode-$n
			head -2 /tmp/m > /out/head-$mode-$n
		done
		wc -l < /tmp/m > /out/lines-$mode-$n
		for i in 1 2 3; do ./readtime /proc/mempool 4096; done > /out/readtime-$mode-$n 2>&1
		if [ $mode = churn ]; then
			cat /sys/module/kmp_churn/parameters/destroyed > /out/destroyed1-$n
			rmmod kmp_churn; echo $? > /out/churn-rmmod-$n.rc
		fi
	done
	rmmod kmp_test; echo $? > /out/rmmod-$n.rc
	rm -f /tmp/m
done
exit 0
