# /proc/mempool with many pools: the test module adds N pools, the file is
# read whole (cat: 128 KiB reads) and in 4 KiB reads (dd), timed with
# /proc/uptime; line counts, distinct instances (the N pools share one name
# and site, kmp_many, and are told apart by instance) and kmempool's report of
# /proc/kcore (compared in the guest: the files are large) come back;
# readtime (vmcore-tests/scale/readtime.c) times each 4 KiB read().
. ./common.sh
VML=/work/vmlinux
up() { cut -d' ' -f1 /proc/uptime; }
for n in $(cat scale.counts); do
	insmod /lib/kmp_test.ko many=$n; echo $? > /out/insmod-$n.rc
	# Three passes each of cat and of kmempool on /proc/kcore: the host may
	# be busy, the best of each is compared (issue: within 2x of the file).
	for i in 1 2 3; do
		t0=$(up); cat /proc/mempool > /tmp/m; t1=$(up)
		echo "$t0 $t1"
	done > /out/time-cat-$n
	t0=$(up); dd if=/proc/mempool of=/tmp/m4k bs=4096 2>/dev/null; t1=$(up)
	echo "$t0 $t1" > /out/time-dd-$n
	head -2 /tmp/m > /out/head-$n
	wc -l < /tmp/m > /out/lines-$n
	grep -c '^kmp_many ' /tmp/m > /out/many-$n
	awk '$1 == "kmp_many" { print $14 }' /tmp/m | sort -u | wc -l > /out/distinct-$n
	cmp -s /tmp/m /tmp/m4k; echo $? > /out/cmp-dd-$n.rc
	# The longest single 4 KiB read() bounds the time mempool_lock is held.
	# Three timed passes; the host may be busy, the best one counts.
	chmod +x ./readtime
	for i in 1 2 3; do ./readtime /proc/mempool 4096; done > /out/readtime-$n 2>&1
	kmempool -s $VML > /tmp/k 2> /out/kmp-$n.err; echo $? > /out/kmp-$n.rc
	for i in 1 2 3; do
		t0=$(up); kmempool -s $VML > /dev/null 2>&1; t1=$(up)
		echo "$t0 $t1"
	done > /out/time-kmp-$n
	cmp -s /tmp/m /tmp/k; echo $? > /out/cmp-kmp-$n.rc
	rmmod kmp_test; echo $? > /out/rmmod-$n.rc
	rm -f /tmp/m /tmp/m4k /tmp/k
done
snap proc-end
exit 0
