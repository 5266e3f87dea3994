#!/bin/bash
# Build the fast-path benchmark module kmp_bench.ko against a built kernel
# flavor (the patched build/kernel or the unpatched build/kernel-stock).
#   vmcore-tests/build-bench-module.sh KERNELDIR OUTDIR
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
KDIR=$1 OUT=$2
OBJ=$(cat "$KDIR/objdir")
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
# Rebuild only when the source or the kernel changed.
key=$( (cat "$HERE/bench-module/kmp_bench.c" "$HERE/bench-module/Kbuild" "$KDIR/.key") |
	sha256sum | cut -c1-16)
if [ -f "$OUT/kmp_bench.ko" ] && [ "$(cat "$OUT/.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
echo "==> [bench-module] building kmp_bench.ko against $OBJ"
rm -rf "$OUT"; mkdir -p "$OUT"
cp "$HERE/bench-module/kmp_bench.c" "$HERE/bench-module/Kbuild" "$OUT/"
if ! make -C "$OBJ" M="$OUT" W=1 modules > "$OUT/build.log" 2>&1; then
	cat "$OUT/build.log" >&2
	echo "build-bench-module: kmp_bench.ko failed to build" >&2
	exit 1
fi
if grep -q 'warning:' "$OUT/build.log"; then
	grep 'warning:' "$OUT/build.log" >&2
	echo "build-bench-module: kmp_bench.ko builds with warnings" >&2
	exit 1
fi
echo "$key" > "$OUT/.key"
