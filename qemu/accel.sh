#!/bin/bash
# Print the QEMU accelerator to use: kvm if a probe boot under KVM reaches
# its script quickly, tcg otherwise.  The answer is cached per kernel.
#   qemu/accel.sh KERNELDIR INITRD
set -uo pipefail
KDIR=$1 INITRD=$2
[ -n "${KMP_ACCEL:-}" ] && { echo "$KMP_ACCEL"; exit 0; }
CACHE="$KDIR/.accel"
[ -f "$CACHE" ] && { cat "$CACHE"; exit 0; }
ans=tcg
if [ -w /dev/kvm ]; then
	d=$(mktemp -d)
	echo 'echo probe' > "$d/script.sh"; tar cf "$d/in.tar" -C "$d" script.sh
	truncate -s 16M "$d/out.img"
	timeout -k 2 15 qemu-system-x86_64 -accel kvm -m 256 -nodefaults -display none \
		-no-reboot -monitor none -serial "file:$d/serial.log" \
		-kernel "$KDIR/bzImage" -initrd "$INITRD" -append "console=ttyS0 panic=1" \
		-drive "file=$d/in.tar,format=raw,if=virtio,readonly=on" \
		-drive "file=$d/out.img,format=raw,if=virtio" >/dev/null 2>&1
	grep -q "KMP-DONE" "$d/serial.log" 2>/dev/null && ans=kvm
	rm -rf "$d"
fi
echo "$ans" > "$CACHE"
echo "$ans"
