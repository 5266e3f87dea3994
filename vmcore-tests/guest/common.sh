# Helpers for the guest scripts (busybox sh).  Sourced by each.
set -u
log() { echo "KMP-GUEST: $*"; }
# run NAME CMD...: stdout to /out/NAME, exit status to /out/NAME.rc
run() {
	n=$1; shift
	"$@" > "/out/$n" 2> "/out/$n.err"
	echo $? > "/out/$n.rc"
}
snap() { cat /proc/mempool > "/out/$1" 2>/dev/null; }
# The AES module is aes_generic up to 6.x, aes on 7.x (the kernel's own).
load_dm_crypt() {
	aes=aes_generic
	[ -n "$(find /lib/modules/$(uname -r) -name aes.ko 2>/dev/null)" ] && aes=aes
	for m in cryptomgr $aes xts dm-mod dm-crypt; do
		modprobe "$m" 2>> /out/modprobe.err || log "modprobe $m failed"
	done
}
# dm-crypt over a loop device on tmpfs with a fixed key:
# setup_dm_crypt [NAME LOOP] (default kmpcrypt over loop0).
setup_dm_crypt() {
	local name=${1:-kmpcrypt} loop=${2:-0}
	dd if=/dev/zero of=/tmp/disk$loop.img bs=1M count=16 2>/dev/null
	losetup /dev/loop$loop /tmp/disk$loop.img || return 1
	DM_DISABLE_UDEV=1 dmsetup create --noudevsync "$name" --table \
		"0 32768 crypt aes-xts-plain64 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f 0 /dev/loop$loop 0"
}
teardown_dm_crypt() {
	DM_DISABLE_UDEV=1 dmsetup remove --noudevsync "${1:-kmpcrypt}"
	losetup -d "/dev/loop${2:-0}"
}
# md raid1 /dev/md0 over loop1 and loop2 (8 MiB each on tmpfs), without
# udev; mdadm's output and status to /out/mdadm-create.log and .rc.
setup_md_raid1() {
	export MDADM_NO_UDEV=1
	modprobe raid1 2>> /out/modprobe.err || log "modprobe raid1 failed"
	for i in 1 2; do
		dd if=/dev/zero of=/tmp/md$i.img bs=1M count=8 2>/dev/null
		losetup /dev/loop$i /tmp/md$i.img
	done
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 --assume-clean \
		/dev/loop1 /dev/loop2 > /out/mdadm-create.log 2>&1
	echo $? > /out/mdadm-create.rc
}
# Two targets, kmpcrypt over loop0 and kmpcrypt2 over loop1.
setup_dm_crypt2() {
	setup_dm_crypt && setup_dm_crypt kmpcrypt2 1
}
teardown_dm_crypt2() {
	teardown_dm_crypt kmpcrypt2 1
	teardown_dm_crypt
}
kmp_cmd() { echo "$*" > /proc/kmp_test; }
