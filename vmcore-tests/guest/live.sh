# Live tests inside the VM (default kernel): snapshots of /proc/mempool
# and kmempool's report of /proc/kcore at each step, for the host to check.
. ./common.sh
VML=/work/vmlinux
stat -c '%a %u' /proc/mempool > /out/proc-mode
snap proc-boot
ls /sys/block > /out/sys-block
run kmp-boot kmempool -s $VML
snap proc-boot-after
run kmp-info kmempool info -s $VML
run kmp-info-json kmempool info -s $VML -f json
uname -r > /out/uname
grep " _stext$" /proc/kallsyms > /out/stext

load_dm_crypt
setup_dm_crypt; echo $? > /out/dmcrypt.rc
# dm-crypt names its device by dm_table_device_name(): major:minor.
for d in /sys/block/dm-*; do echo "${d##*/} $(cat "$d/dev")"; done > /out/dm-devs
snap proc-dmcrypt
# Some I/O through the target, so its pools are used.
dd if=/dev/urandom of=/dev/mapper/kmpcrypt bs=64k count=16 2>/dev/null
sync
insmod /lib/kmp_test.ko $(cat module.params); echo $? > /out/insmod.rc
# Instances: set, replaced, on an allocated and an embedded pool.
kmp_cmd instance kmp_test_slab first; kmp_cmd instance kmp_test_slab kmp-slab0
kmp_cmd instance kmp_test_private kmp-private0
snap proc-module
run kmp-module kmempool -s $VML
snap proc-module-after
run kmp-module-json kmempool -s $VML -f json

kmp_cmd drain kmp_test_kmalloc 2; snap proc-drain
kmp_cmd refill kmp_test_kmalloc; snap proc-refill
kmp_cmd drain kmp_test_slab 100; snap proc-drain-over
kmp_cmd refill kmp_test_slab; snap proc-refill-over

# A corrupt prev link on real kernel memory, then repaired.
snap proc-corrupt
kmp_cmd corrupt_prev kmp_test_page
run kmp-corrupt kmempool -s $VML
run kmp-corrupt-json kmempool -s $VML -f json
kmp_cmd repair kmp_test_page
run kmp-repaired kmempool -s $VML
snap proc-repaired

kmp_cmd block kmp_test_page 3
sleep 2
snap proc-block
run kmp-waiters kmempool waiters -s $VML
run kmp-waiters-json kmempool waiters -s $VML -f json
ps -o pid,comm,stat > /out/ps-block 2>/dev/null || ps > /out/ps-block
kmp_cmd release kmp_test_page
sleep 1
snap proc-release
run kmp-waiters-none kmempool waiters -s $VML

# Format 1.1 counters: non-blocking allocations that fail, the reserve
# running dry, one wait per sleeping allocation however long it sleeps.
kmp_cmd atomic kmp_test_private 8; snap proc-atomic
kmp_cmd refill kmp_test_private; snap proc-atomic-refill
# Blocked past hung_task_timeout_secs (10 s): khungtaskd (checking every
# second) reports the stall once, naming the pool.
echo 1 > /proc/sys/kernel/hung_task_check_interval_secs
echo 10 > /proc/sys/kernel/hung_task_timeout_secs
echo KMP-MARK-STALL > /dev/kmsg
kmp_cmd block kmp_test_private 1
sleep 17
snap proc-block12
run kmp-block12 kmempool -s $VML
snap proc-block12-after
run kmp-waiters12 kmempool waiters -s $VML
run kmp-waiters12-json kmempool waiters -s $VML -f json
dmesg > /out/dmesg-stall
echo 0 > /proc/sys/kernel/hung_task_timeout_secs
kmp_cmd release kmp_test_private
sleep 1
snap proc-block12-release
# Re-initialization resets the counters.
kmp_cmd reinit kmp_test_private; echo $? > /out/reinit.rc
snap proc-reinit
# Initializing a pool that is still listed: refused by the module here
# (only a CONFIG_DEBUG_OBJECTS_MEMPOOL kernel catches it).
echo KMP-MARK-LISTED > /dev/kmsg
kmp_cmd init_listed kmp_test_kmalloc 2> /out/init-listed.err; echo $? > /out/init-listed.rc
snap proc-listed
dmesg > /out/dmesg-listed
run kmp-listed kmempool -s $VML

rmmod kmp_test; echo $? > /out/rmmod.rc
snap proc-rmmod
teardown_dm_crypt; echo $? > /out/dmremove.rc
snap proc-dmremove
# Two dm-crypt devices: their alike pools are told apart by the instance.
setup_dm_crypt2; echo $? > /out/dmcrypt2.rc
ls /sys/block > /out/sys-block-dm2
for d in /sys/block/dm-*; do echo "${d##*/} $(cat "$d/dev")"; done > /out/dm-devs-dm2
snap proc-dm2
run kmp-dm2 kmempool -s $VML
snap proc-dm2-after
teardown_dm_crypt2; echo $? > /out/dmremove2.rc
snap proc-dmremove2
# A dm-snapshot: the pools of its kcopyd and dm-io clients.
dd if=/dev/zero of=/tmp/origin.img bs=1M count=8 2>/dev/null
dd if=/dev/zero of=/tmp/cow.img bs=1M count=8 2>/dev/null
losetup /dev/loop2 /tmp/origin.img && losetup /dev/loop3 /tmp/cow.img &&
	DM_DISABLE_UDEV=1 dmsetup create --noudevsync kmpsnap --table \
		"0 16384 snapshot /dev/loop2 /dev/loop3 P 8"
echo $? > /out/dmsnap.rc
snap proc-snap
run kmp-snap kmempool -s $VML
snap proc-snap-after
DM_DISABLE_UDEV=1 dmsetup remove --noudevsync kmpsnap && losetup -d /dev/loop2 &&
	losetup -d /dev/loop3
echo $? > /out/dmsnapremove.rc
snap proc-snapremove
rmmod dm_snapshot && rmmod dm_bufio; echo $? > /out/rmmod-snap.rc
# A thin pool and an era target: each has a persistent-data block
# manager with a bufio client.  Both metadata devices are zeroed, so the
# targets format them.
for i in 2 3 4 5; do
	dd if=/dev/zero of=/tmp/pd$i.img bs=1M count=8 2>/dev/null
	losetup /dev/loop$i /tmp/pd$i.img || echo "losetup loop$i failed" >> /out/dmpd.err
done
DM_DISABLE_UDEV=1 dmsetup create --noudevsync kmpthin --table \
	"0 16384 thin-pool /dev/loop2 /dev/loop3 128 0" 2>> /out/dmpd.err &&
	DM_DISABLE_UDEV=1 dmsetup create --noudevsync kmpera --table \
		"0 16384 era /dev/loop4 /dev/loop5 128" 2>> /out/dmpd.err
echo $? > /out/dmpd.rc
snap proc-pd
run kmp-pd kmempool -s $VML
snap proc-pd-after
r=0
DM_DISABLE_UDEV=1 dmsetup remove --noudevsync kmpthin || r=1
DM_DISABLE_UDEV=1 dmsetup remove --noudevsync kmpera || r=1
for i in 2 3 4 5; do losetup -d /dev/loop$i || r=1; done
echo $r > /out/dmpdremove.rc
snap proc-pdremove
rmmod dm_thin_pool && rmmod dm_era && rmmod dm_persistent_data &&
	rmmod dm_bio_prison && rmmod dm_bufio
echo $? > /out/rmmod-pd.rc
rmmod dm_crypt; rmmod dm_mod; echo $? > /out/rmmod-dm.rc
snap proc-dm-rmmod
run kmp-end kmempool -s $VML
snap proc-end
lsmod > /out/lsmod-end
# Without -s: the vmlinux is found where drgn looks, by release and build ID.
mkdir -p /boot
ln -s $VML /boot/vmlinux-$(uname -r)
snap proc-autofind
run kmp-autofind kmempool
run kmp-autofind-info kmempool info
rm /boot/vmlinux-$(uname -r)
# --types dwarf: the search for a vmlinux, not the fallback to the kernel's
# own BTF (issue 33; a kernel built with CONFIG_DEBUG_INFO_BTF answers from it).
run kmp-notfound kmempool --types dwarf
exit 0
