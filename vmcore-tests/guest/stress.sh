# Stress run in the debug kernel (KASAN, lockdep, DEBUG_LIST, DEBUG_OBJECTS,
# kmemleak, SLUB_DEBUG_ON): for stress.seconds, concurrently and in loops,
#   module  insmod kmp_test.ko own_alloc=1 (every other time with many=16):
#           drain and refill each of its four pools, GFP_ATOMIC allocations
#           on a failing allocator, block and release waiters on the page
#           and the private pool, re-initialize the embedded kmalloc pool,
#           leave one waiter blocked for rmmod to release, rmmod
#   churn   insmod kmp_churn.ko threads=2 seconds=S (S up to 20): kernel
#           threads create and destroy pools of every type through every
#           creation API (init/exit in place, resize), with
#           allocations from the reserve and waiters woken by frees; wait
#           for its threads to stop, keep its counters, rmmod
#   crypt   a dm-crypt target over loop4: create, read (decrypt), write
#           (encrypt), remove; every 4th time rmmod dm_crypt dm_mod too
#   md      raid1 md0 over loop1+loop2: I/O, then in turn stopped and
#           started again (mdadm --stop / --assemble), array_state inactive
#           / active in place, stopped with raid1 reloaded, and grown to
#           three disks (loop3) and shrunk back (raid1_reshape() replaces
#           the r1bio pool)
#   proc    cat /proc/mempool
#   kcore   kmempool on /proc/kcore (when vmlinux is among the inputs),
#           every exit status recorded in /out/w-kcore.log
# then unloads everything, snapshots /proc/mempool, runs a kmemleak scan.
# Per worker: /out/w-NAME.count (iterations), /out/w-NAME.bad (failures),
# /out/w-NAME.log (what failed); kmp_churn's counters of each load in
# /out/w-churn.counters.
. ./common.sh
export MDADM_NO_UDEV=1 DM_DISABLE_UDEV=1
SECS=$(cat stress.seconds)
VML=/work/vmlinux
KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
MD_DEVS="/dev/loop1 /dev/loop2"

mount -t debugfs debugfs /sys/kernel/debug 2> /out/debugfs.err
snap proc-boot
lsmod > /out/lsmod-boot

load_dm_crypt
modprobe raid1 2>> /out/modprobe.err
dd if=/dev/zero of=/tmp/crypt.img bs=1M count=8 2>/dev/null
for i in 1 2 3; do
	dd if=/dev/zero of=/tmp/md$i.img bs=1M count=8 2>/dev/null
	losetup /dev/loop$i /tmp/md$i.img
done
mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 --assume-clean \
	$MD_DEVS > /out/mdadm-create.log 2>&1; echo $? > /out/mdadm-create.rc

# kmp_test.ko own_alloc=1 once, before the loops: each of its four pools
# (of type private then) drained by 2 with its allocator failing on the
# module's flag, then refilled.
insmod /lib/kmp_test.ko own_alloc=1 2> /out/own-insmod.err; echo $? > /out/own-insmod.rc
for p in slab kmalloc page private; do kmp_cmd drain kmp_test_$p 2; done
snap proc-own-drain
for p in slab kmalloc page private; do kmp_cmd refill kmp_test_$p; done
snap proc-own-refill
rmmod kmp_test; echo $? > /out/own-rmmod.rc

# A pool freed while listed, on purpose: debugobjects must report it and
# take it off the list (series v7, CONFIG_DEBUG_OBJECTS_MEMPOOL); the
# kernel log between the marks is checked for that report only.
insmod /lib/kmp_test.ko 2>> /out/odebug.err
echo KMP-MARK-ODEBUG-BEGIN > /dev/kmsg
kmp_cmd free_listed x 2>> /out/odebug.err; echo $? > /out/free-listed.rc
sleep 2	# a free may be checked late (KASAN's quarantine)
echo KMP-MARK-ODEBUG-END > /dev/kmsg
snap proc-freed-listed
rmmod kmp_test 2>> /out/odebug.err

now() { date +%s; }
# bad WORKER WHAT: count and log one failure of a worker
bad() { eval "bad_$1=\$((bad_$1 + 1))"; echo "$(now) iteration $n: $2" >> /out/w-$1.log; }
# done_worker WORKER: save its counts
done_worker() { echo $n > /out/w-$1.count; eval "echo \$bad_$1" > /out/w-$1.bad; }

w_module() {
	n=0 bad_module=0
	while [ $(now) -lt $END ]; do
		extra=; [ $((n % 2)) = 1 ] && extra=many=16
		# own_alloc=1: every pool allocates through the module's
		# function, which fails on a flag; pool->alloc is never swapped
		# (mm/mempool.c's KASAN and poison hooks go by pool->alloc and
		# pool->free, so a swap gives false reports on this kernel).
		if ! insmod /lib/kmp_test.ko own_alloc=1 $extra 2>> /out/w-module.log; then
			bad module "insmod $extra"; n=$((n + 1)); sleep 1; continue
		fi
		for p in slab kmalloc page private; do
			kmp_cmd drain kmp_test_$p 3 || bad module "drain $p"
			kmp_cmd refill kmp_test_$p || bad module "refill $p"
		done
		kmp_cmd atomic kmp_test_slab 12 || bad module "atomic slab"
		kmp_cmd refill kmp_test_slab || bad module "refill slab"
		kmp_cmd reinit kmp_test_kmalloc || bad module "reinit kmalloc"
		kmp_cmd block kmp_test_page 2 || bad module "block page"
		kmp_cmd block kmp_test_private 2 || bad module "block private"
		sleep 0.3
		kmp_cmd release kmp_test_page || bad module "release page"
		kmp_cmd release kmp_test_private || bad module "release private"
		kmp_cmd block kmp_test_kmalloc 1 || bad module "block kmalloc"
		sleep 0.2
		rmmod kmp_test 2>> /out/w-module.log || { bad module rmmod; sleep 1; rmmod kmp_test; }
		n=$((n + 1))
	done
	done_worker module
}

w_crypt() {
	n=0 bad_crypt=0
	while [ $(now) -lt $END ]; do
		losetup /dev/loop4 /tmp/crypt.img || bad crypt losetup
		if dmsetup create --noudevsync kmpstress --table \
			"0 16384 crypt aes-xts-plain64 $KEY 0 /dev/loop4 0" 2>> /out/w-crypt.log; then
			dd if=/dev/mapper/kmpstress of=/dev/null bs=64k count=32 2>/dev/null ||
				bad crypt "dd read"
			dd if=/dev/urandom of=/dev/mapper/kmpstress bs=64k count=32 conv=fsync \
				2>/dev/null || bad crypt "dd write"
			if ! dmsetup remove --noudevsync kmpstress 2>> /out/w-crypt.log; then
				bad crypt "dmsetup remove"
				sleep 1; dmsetup remove --noudevsync kmpstress
			fi
		else
			bad crypt "dmsetup create"
		fi
		losetup -d /dev/loop4 || bad crypt "losetup -d"
		if [ $((n % 4)) = 3 ]; then
			rmmod dm_crypt 2>> /out/w-crypt.log || bad crypt "rmmod dm_crypt"
			rmmod dm_mod 2>> /out/w-crypt.log || bad crypt "rmmod dm_mod"
			modprobe dm-crypt 2>> /out/w-crypt.log || bad crypt "modprobe dm-crypt"
		fi
		n=$((n + 1))
	done
	done_worker crypt
}

# md_remove3: fail loop3 and take it out (busy while a recovery stops)
md_remove3() {
	mdadm /dev/md0 --fail /dev/loop3 >> /out/w-md.log 2>&1
	for t in 1 2 3 4 5 6 7 8 9 10; do
		mdadm /dev/md0 --remove /dev/loop3 >> /out/w-md.log 2>&1 && return 0
		sleep 0.5
	done
	return 1
}

w_md() {
	n=0 bad_md=0
	while [ $(now) -lt $END ]; do
		dd if=/dev/urandom of=/dev/md0 bs=64k count=16 conv=fsync 2>/dev/null ||
			bad md "dd write"
		dd if=/dev/md0 of=/dev/null bs=64k count=16 2>/dev/null || bad md "dd read"
		case $((n % 4)) in
		0|2)
			mdadm --stop /dev/md0 >> /out/w-md.log 2>&1 || bad md "mdadm --stop"
			if [ $((n % 4)) = 2 ]; then
				rmmod raid1 2>> /out/w-md.log || bad md "rmmod raid1"
				modprobe raid1 2>> /out/w-md.log || bad md "modprobe raid1"
			fi
			mdadm --assemble --run /dev/md0 $MD_DEVS >> /out/w-md.log 2>&1 ||
				bad md "mdadm --assemble"
			;;
		1)
			echo inactive > /sys/block/md0/md/array_state || bad md "array_state inactive"
			echo active > /sys/block/md0/md/array_state || bad md "array_state active"
			;;
		3)	# raid1_reshape() twice: mempool_move() of the r1bio pool
			mdadm --zero-superblock /dev/loop3 > /dev/null 2>&1
			mdadm /dev/md0 --add /dev/loop3 >> /out/w-md.log 2>&1 || bad md "mdadm --add"
			mdadm --grow /dev/md0 --raid-devices=3 >> /out/w-md.log 2>&1 ||
				bad md "mdadm --grow to 3"
			md_remove3 || bad md "mdadm --fail/--remove loop3"
			mdadm --grow /dev/md0 --raid-devices=2 >> /out/w-md.log 2>&1 ||
				bad md "mdadm --grow to 2"
			;;
		esac
		n=$((n + 1))
	done
	done_worker md
}

# churn_param NAME: a counter of kmp_churn
churn_param() { cat /sys/module/kmp_churn/parameters/$1 2>/dev/null || echo -1; }

w_churn() {
	n=0 bad_churn=0
	: > /out/w-churn.counters
	while [ $(now) -lt $((END - 3)) ]; do
		s=$((END - $(now) - 2)); [ $s -gt 20 ] && s=20
		if ! insmod /lib/kmp_churn.ko threads=2 seconds=$s 2>> /out/w-churn.log; then
			bad churn "insmod seconds=$s"; n=$((n + 1)); sleep 1; continue
		fi
		t=0
		while [ "$(churn_param running)" != 0 ] && [ $t -lt $((s * 10 + 300)) ]; do
			sleep 0.5; t=$((t + 5))
		done
		line="cycle $n seconds $s"
		for c in running rounds created destroyed allocs from_reserve waits resized errors; do
			line="$line $c $(churn_param $c)"
		done
		echo "$line" >> /out/w-churn.counters
		rmmod kmp_churn 2>> /out/w-churn.log || { bad churn rmmod; sleep 1; rmmod kmp_churn; }
		n=$((n + 1))
	done
	done_worker churn
}

w_proc() {
	n=0 bad_proc=0
	while [ $(now) -lt $END ]; do
		cat /proc/mempool > /tmp/proc.txt || bad proc "cat /proc/mempool"
		head -1 /tmp/proc.txt | grep -q '^mempool - version: ' || bad proc "no version line"
		n=$((n + 1))
	done
	done_worker proc
}

w_kcore() {
	n=0 bad_kcore=0
	: > /out/w-kcore.log
	while [ $(now) -lt $END ]; do
		kmempool -s $VML > /tmp/kcore.txt 2> /tmp/kcore.err
		rc=$?
		echo "$(now) iteration $n: rc $rc: $(head -c 400 /tmp/kcore.err | tr '\n' ' ')" >> /out/w-kcore.log
		n=$((n + 1))
	done
	done_worker kcore
}

START=$(now)
END=$((START + SECS))
echo $START > /out/stress.start
log "stress: $SECS s from $START"
echo KMP-STRESS-START > /dev/kmsg
w_module & w_churn & w_crypt & w_md & w_proc &
[ -f $VML ] && w_kcore &
wait
echo $(now) > /out/stress.end
echo KMP-STRESS-END > /dev/kmsg
log "stress: loops done"

# Everything unloaded again.
lsmod > /out/lsmod-loops-end
grep -q '^kmp_test ' /proc/modules && rmmod kmp_test
grep -q '^kmp_churn ' /proc/modules && rmmod kmp_churn
dmsetup remove --noudevsync kmpstress 2>/dev/null
losetup -d /dev/loop4 2>/dev/null
mdadm --stop /dev/md0 > /out/mdadm-stop.log 2>&1; echo $? > /out/mdadm-stop.rc
for i in 1 2 3; do losetup -d /dev/loop$i; done
rc=0
for m in dm_crypt dm_mod raid1 md_mod; do rmmod $m 2>> /out/rmmod.err || rc=1; done
echo $rc > /out/rmmod.rc
sleep 1
snap proc-end
lsmod > /out/lsmod-end
if [ -f $VML ]; then
	run kmp-end kmempool -s $VML
	snap proc-end-after
fi

# kmemleak: objects younger than 5 s are not reported; scan twice.
sleep 6
t0=$(now)
echo scan > /sys/kernel/debug/kmemleak 2> /out/kmemleak-scan.err
echo $? > /out/kmemleak-scan.rc
echo scan > /sys/kernel/debug/kmemleak 2>> /out/kmemleak-scan.err
echo $(($(now) - t0)) > /out/kmemleak-scan.seconds
cat /sys/kernel/debug/kmemleak > /out/kmemleak 2> /out/kmemleak.err
echo $? > /out/kmemleak.rc
dmesg > /out/dmesg
exit 0
