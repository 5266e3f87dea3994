#!/bin/bash
# Build the test modules kmp_test.ko and kmp_churn.ko against a built
# kernel flavor.
#   vmcore-tests/build-module.sh KERNELDIR OUTDIR
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
KDIR=$1 OUT=$2
OBJ=$(cat "$KDIR/objdir")
mkdir -p "$OUT"
# Rebuild only when the source or the kernel changed.
key=$( (cat "$HERE/module/kmp_test.c" "$HERE/module/kmp_churn.c" "$HERE/module/Makefile" \
	"$KDIR/.key") | sha256sum | cut -c1-16)
if [ -f "$OUT/kmp_test.ko" ] && [ -f "$OUT/kmp_churn.ko" ] && \
	[ "$(cat "$OUT/.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
echo "==> [module] building kmp_test.ko, kmp_churn.ko against $OBJ"
rm -rf "$OUT"; mkdir -p "$OUT"
cp "$HERE/module/kmp_test.c" "$HERE/module/kmp_churn.c" "$HERE/module/Makefile" "$OUT/"
if ! make -C "$OBJ" M="$OUT" modules > "$OUT/build.log" 2>&1; then
	cat "$OUT/build.log" >&2
	echo "build-module: kmp_test.ko or kmp_churn.ko failed to build" >&2
	exit 1
fi
echo "$key" > "$OUT/.key"
