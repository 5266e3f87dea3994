#!/bin/bash
# The second half of make demo: Debian's own kernel, which has no series.
# Boot it under QEMU (KASLR on) with dm-crypt, md raid1 and the stock test
# module, block 5 tasks in mempool_alloc() on two emptied pools, crash it
# with sysrq (a stock kernel's hung-task detector never fires on these
# waiters), let Debian's kernel capture the dump the way kdump-tools does
# (makedumpfile -F -c -d 31, flattened), and analyze it in place.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build D=$B/demo-stock
stage() { echo "==> [demo-stock] $*"; }
stage "Debian's kernel, its -dbg vmlinux and the stock initramfs (downloaded and built once)"
make -s -C "$ROOT" analyzer stock
K=$B/debian/kernel
rm -rf "$D.in"; mkdir -p "$D.in"
echo "slab_min=4 slab_size=200 dev0_min=3 dev1_min=6 dev_size=112 page_min=2 page_order=1 buf_min=5 buf_size=300 private_min=8 private_size=72 big_min=3" \
	> "$D.in/module.params"
stage "booting $(cat "$K/release") with crashkernel=384M; dm-crypt, md raid1, 5 tasks blocked;"
stage "sysrq crash, capture by Debian's kernel (a minute or two under TCG)"
if ! bash "$ROOT/qemu/run-vm.sh" --kernel "$K" --initrd "$B/initrd/stock.cpio.gz" \
	--script "$ROOT/vmcore-tests/guest/stock.sh" --input "$ROOT/vmcore-tests/guest/common.sh" \
	--input "$D.in/module.params" --input "$K/bzImage" --input "$B/initrd/stock.cpio.gz" \
	--disk "$B/debian/vmlinux.ext2" --append "crashkernel=384M" --mem 1536 --scratch 2048 \
	--timeout 600 --out "$D"; then
	echo "demo-stock: the VM run failed; serial log: $D/serial.log" >&2
	exit 1
fi
/usr/bin/python3 "$ROOT/vmcore-tests/mempool.py" extract "$D" > "$D/extracted"
VMCORE=$(awk '$1 == "flat" { print $2 }' "$D/extracted")
[ -n "$VMCORE" ] || { echo "demo-stock: no flattened dump in $D" >&2; exit 1; }
stage "captured $VMCORE ($(( $(stat -c %s "$VMCORE") >> 20 )) MiB, makedumpfile -F -c -d 31, as kdump-tools writes it)"
KMP=$B/analyzer/kmempool VML=$K/vmlinux KO=$B/module-stock/kmp_stock.ko
# The dump cache the dump-alone run writes: under build/, not the user's
# ~/.cache/kmempool (kmempool(1), KMEMPOOL_CACHE).
export KMEMPOOL_CACHE=${KMEMPOOL_CACHE:-$D/dcache}
# First from the dump alone, as a support engineer with nothing else would
# (no -s: the vmlinux is not installed here, so the kernel's own BTF,
# kallsyms and ORC tables are read from the dump; no debuginfod).
echo
echo "\$ kmempool waiters -c $VMCORE"
env -u DEBUGINFOD_URLS "$KMP" waiters -c "$VMCORE"
echo
echo "\$ kmempool info -c $VMCORE -s $VML"
"$KMP" info -c "$VMCORE" -s "$VML"
echo
echo "\$ kmempool waiters -c $VMCORE -s $VML -M $KO"
"$KMP" waiters -c "$VMCORE" -s "$VML" -M "$KO"
echo
echo "\$ kmempool scan -c $VMCORE -s $VML -M $KO"
"$KMP" scan -c "$VMCORE" -s "$VML" -M "$KO"
echo
stage "vmcore:  $VMCORE"
stage "vmlinux: $VML"
