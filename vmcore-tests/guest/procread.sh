# /proc/mempool read whole with N pools, quiet and while pools come and go
# (series v7: a cursor per open file keeps a full read linear under churn).
# For each N of procread.counts: kmp_test.ko many=N adds N pools; the file
# is read in 4 KiB read()s (dd), three times with nothing else running,
# then three times while kmp_churn.ko's threads create and destroy pools;
# each read timed with /proc/uptime.  Lines, the N pools found, duplicate
# ids and kmp_churn's destroyed count around the churning reads come back.
. ./common.sh
up() { cut -d' ' -f1 /proc/uptime; }
for n in $(cat procread.counts); do
	insmod /lib/kmp_test.ko many=$n; echo $? > /out/insmod-$n.rc
	for mode in quiet churn; do
		if [ $mode = churn ]; then
			insmod /lib/kmp_churn.ko threads=2; echo $? > /out/churn-insmod-$n.rc
			sleep 1
			cat /sys/module/kmp_churn/parameters/destroyed > /out/destroyed0-$n
		fi
		for i in 1 2 3; do
			t0=$(up); dd if=/proc/mempool of=/tmp/m bs=4096 2>/dev/null; t1=$(up)
			echo "$t0 $t1"
			grep -c '^kmp_many ' /tmp/m >> /out/many-$mode-$n
			awk 'NR > 2 { print $NF }' /tmp/m | sort | uniq -d | wc -l >> /out/dupids-$mode-$n
			head -2 /tmp/m > /out/head-$mode-$n
		done > /out/time-$mode-$n
		wc -l < /tmp/m > /out/lines-$mode-$n
		if [ $mode = churn ]; then
			cat /sys/module/kmp_churn/parameters/destroyed > /out/destroyed1-$n
			rmmod kmp_churn; echo $? > /out/churn-rmmod-$n.rc
		fi
	done
	rmmod kmp_test; echo $? > /out/rmmod-$n.rc
	rm -f /tmp/m
done
exit 0
