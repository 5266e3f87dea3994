# md raid1 over three loop devices: create with two disks, grow to three
# (raid1_reshape() replaces the r1bio pool), stop, unload.
. ./common.sh
export MDADM_NO_UDEV=1
VML=/work/vmlinux
modprobe raid1 2>> /out/modprobe.err
for i in 1 2 3 4 5; do
	dd if=/dev/zero of=/tmp/md$i.img bs=1M count=8 2>/dev/null
	losetup /dev/loop$i /tmp/md$i.img
done
# The test module reaches md's pools through mempool_list (addresses from
# /proc/kallsyms); it is loaded before the first snapshot, so it is part
# of every one.
LA=$(awk '$3 == "mempool_list" { print "0x" $1 }' /proc/kallsyms)
LK=$(awk '$3 == "mempool_lock" { print "0x" $1 }' /proc/kallsyms)
insmod /lib/kmp_test.ko list_addr=$LA lock_addr=$LK; echo $? > /out/insmod.rc
snap proc-before
mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 --assume-clean \
	/dev/loop1 /dev/loop2 > /out/mdadm-create.log 2>&1; echo $? > /out/mdadm-create.rc
sleep 1
snap proc-md
run kmp-md kmempool -s $VML
# A second array: raid1's pools again, told apart by their instance.
mdadm --create /dev/md1 --run --level=1 --raid-devices=2 --metadata=1.2 --assume-clean \
	/dev/loop4 /dev/loop5 > /out/mdadm-create2.log 2>&1; echo $? > /out/mdadm-create2.rc
sleep 1
snap proc-md2
run kmp-md2 kmempool -s $VML
snap proc-md2-after
mdadm --stop /dev/md1 > /out/mdadm-stop2.log 2>&1; echo $? > /out/mdadm-stop2.rc
snap proc-md2-stopped
# Stop and start the array in place (inactive keeps the mddev but stops
# raid1, whose pools are exited, and initializes them again on active):
# the counters of the second life start from 0.
# raid1's bio_split of md0 (named after the function that sets it up; on
# 7.2 the md core's own bio_sets live as long as the mddev, raid1's pools
# go with the array's personality).
MDBIO=$(awk '$15 ~ /drivers\/md\/raid1\.c:/ && $1 ~ /:bio$/ && $14 == "md0" { print $1; exit }' /proc/mempool)
kmp_cmd poke "$MDBIO" 2; echo $? > /out/poke.rc
snap proc-poked
echo inactive > /sys/block/md0/md/array_state; echo $? > /out/md-inactive.rc
snap proc-inactive
echo active > /sys/block/md0/md/array_state; echo $? > /out/md-active.rc
sleep 1
cat /sys/block/md0/md/array_state > /out/md-state
snap proc-restarted
mdadm /dev/md0 --add /dev/loop3 > /out/mdadm-add.log 2>&1
mdadm --grow /dev/md0 --raid-devices=3 > /out/mdadm-grow.log 2>&1; echo $? > /out/mdadm-grow.rc
cat /sys/block/md0/md/raid_disks > /out/raid-disks
# Wait for the resync onto the new disk to finish (its buffer pool goes).
for i in $(seq 1 60); do
	[ "$(cat /sys/block/md0/md/sync_action)" = idle ] && break
	sleep 0.5
done
snap proc-grown
run kmp-grown kmempool -s $VML
snap proc-grown-after
mdadm --stop /dev/md0 > /out/mdadm-stop.log 2>&1; echo $? > /out/mdadm-stop.rc
snap proc-stopped
rmmod raid1; rmmod md_mod; echo $? > /out/rmmod-md.rc
snap proc-md-rmmod
run kmp-md-rmmod kmempool -s $VML
rmmod kmp_test
exit 0
