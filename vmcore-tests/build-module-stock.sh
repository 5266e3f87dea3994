#!/bin/bash
# Build the stock test module kmp_stock.ko for a Debian suite's kernel
# (qemu/debian-kernel.sh SUITE made the kernel dir and the headers):
# bookworm against the headers installed on the host, any other suite in
# that suite's chroot (its headers and compiler; /proc mounted for the
# build, 7.2's objtool reads it).  Output: qemu/apt-suite.sh paths SUITE
# (SUITE_MOD: build/module-stock for bookworm, build/module-stock-SUITE).
#   vmcore-tests/build-module-stock.sh [SUITE]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
. "$ROOT/qemu/apt-suite.sh"
SUITE=${1:-bookworm}
suite_paths "$SUITE"
KDIR=$SUITE_K OUT=$SUITE_MOD R=$SUITE_ROOT
[ -f "$KDIR/release" ] || { echo "build-module-stock: no $KDIR (run qemu/debian-kernel.sh $SUITE)" >&2; exit 1; }
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
REL=$(cat "$KDIR/release")
HDR=/usr/src/linux-headers-$REL
[ -f "$R$HDR/Makefile" ] || { echo "build-module-stock: no $R$HDR (run qemu/debian-kernel.sh $SUITE)" >&2; exit 1; }
# Rebuild only when the source, the kernel package or the chroot changed.
key=$( (cat "$HERE/module-stock/kmp_stock.c" "$HERE/module-stock/Makefile" "$0" \
	"$KDIR/version" "$KDIR/release"; [ -z "$R" ] || cat "$R/.kmp-key") | sha256sum | cut -c1-16)
if [ -f "$OUT/kmp_stock.ko" ] && [ "$(cat "$OUT/.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
echo "==> [module-stock] building kmp_stock.ko against $R$HDR"
rm -rf "$OUT"; mkdir -p "$OUT"
cp "$HERE/module-stock/kmp_stock.c" "$HERE/module-stock/Makefile" "$OUT/"
t0=$(date +%s.%N)
if [ -z "$R" ]; then
	make -C "$HDR" M="$OUT" modules > "$OUT/build.log" 2>&1 || rc=$?
else
	# In the chroot, in a directory of its own; the results are copied out.
	W=/tmp/kmp-stock-module
	rm -rf "$R$W"; mkdir -p "$R$W"
	cp "$OUT/kmp_stock.c" "$OUT/Makefile" "$R$W/"
	in_suite_root "$R" make -C "$HDR" M="$W" modules > "$OUT/build.log" 2>&1 || rc=$?
	[ -f "$R$W/kmp_stock.ko" ] && cp "$R$W/kmp_stock.ko" "$OUT/"
	rm -rf "${R:?}$W"
fi
if [ "${rc:-0}" != 0 ] || [ ! -f "$OUT/kmp_stock.ko" ]; then
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
echo "==> [module-stock] built in $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s ($SUITE, vermagic $vm)"
echo "$key" > "$OUT/.key"
