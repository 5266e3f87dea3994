#!/bin/bash
# Build the stock test module kmp_stock.ko against Debian's installed
# headers for the kernel in KERNELDIR (qemu/debian-kernel.sh made both).
#   vmcore-tests/build-module-stock.sh KERNELDIR OUTDIR
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
KDIR=$1 OUT=$2
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
REL=$(cat "$KDIR/release")
HDR=/usr/src/linux-headers-$REL
[ -f "$HDR/Makefile" ] || { echo "build-module-stock: no $HDR (run qemu/debian-kernel.sh)" >&2; exit 1; }
# Rebuild only when the source or the kernel package changed.
key=$( (cat "$HERE/module-stock/kmp_stock.c" "$HERE/module-stock/Makefile" "$0" \
	"$KDIR/version" "$KDIR/release") | sha256sum | cut -c1-16)
if [ -f "$OUT/kmp_stock.ko" ] && [ "$(cat "$OUT/.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
echo "==> [module-stock] building kmp_stock.ko against $HDR"
rm -rf "$OUT"; mkdir -p "$OUT"
cp "$HERE/module-stock/kmp_stock.c" "$HERE/module-stock/Makefile" "$OUT/"
t0=$(date +%s.%N)
if ! make -C "$HDR" M="$OUT" modules > "$OUT/build.log" 2>&1; then
	cat "$OUT/build.log" >&2
	echo "build-module-stock: kmp_stock.ko failed to build" >&2
	exit 1
fi
# The headers' build must not warn about this module.
if grep -E 'warning:|error:' "$OUT/build.log" >&2; then
	echo "build-module-stock: warnings building kmp_stock.ko" >&2
	exit 1
fi
vm=$(modinfo -F vermagic "$OUT/kmp_stock.ko")
case "$vm" in "$REL "*) ;; *) echo "build-module-stock: vermagic '$vm' is not $REL" >&2; exit 1 ;; esac
echo "==> [module-stock] built in $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s"
echo "$key" > "$OUT/.key"
