# /etc/kmp-preinit.sh of the stock initramfs, sourced by qemu/init.sh
# before it reads its disks: Debian's kernel has the virtio PCI and block
# drivers and loop as modules.  Runs in the first and the capture kernel.
for m in virtio_pci virtio_blk loop; do
	modprobe "$m" || echo "KMP-PREINIT: modprobe $m failed"
done
i=0
while [ ! -b /dev/vdb ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/vdb ] || echo "KMP-PREINIT: no /dev/vdb after loading virtio_blk"
