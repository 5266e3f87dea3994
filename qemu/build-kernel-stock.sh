#!/bin/bash
# The `stock` flavor: the project's own tinyconfig tree (the default
# flavor's fragment) built WITHOUT the patch series, for comparisons such
# as the fast-path benchmark (issue 12 part 3).  Not Debian's kernel
# (that is `make stock`, qemu/debian-kernel.sh).
#
#   qemu/build-kernel-stock.sh [--config-only]
#
# It runs qemu/build-kernel.sh unchanged (so the other flavors' cache keys,
# which hash that script, stay valid) on its own build folder build/stock/:
#   - the series is one marker patch that only adds the file KMP-STOCK at
#     the top of the tree (build-kernel.sh wants at least one patch; the
#     kernel build never reads that file);
#   - the fragment is kernel-patches/kmempool.config without the config
#     symbols the series adds (CONFIG_PROC_MEMPOOL), which an unpatched
#     tree does not know;
#   - the tree is build/stock/src and the objects build/stock/obj-default,
#     so from the object directory the source is ../src as in the patched
#     tree: the same ccache hits for every file the series does not touch.
# Result: build/kernel-stock -> stock/kernel (bzImage, vmlinux, modroot/,
# release, objdir, .key), build/obj-stock -> stock/obj-default.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build
S=$B/stock
PATCHES=$ROOT/kernel-patches
mkdir -p "$S/series"

# put FILE: stdin into FILE, untouched when the content is the same
put() { cat > "$1.tmp"; if cmp -s "$1.tmp" "$1"; then rm -f "$1.tmp"; else mv "$1.tmp" "$1"; fi; }

syms=$(sed -n 's/^+config \([A-Za-z0-9_]*\).*/\1/p' "$PATCHES"/0*.patch | sort -u)
args=()
for sym in $syms; do args+=(-e "^CONFIG_$sym=" -e "^# CONFIG_$sym is not set"); done
if [ ${#args[@]} -gt 0 ]; then
	grep -v "${args[@]}" "$PATCHES/kmempool.config" | put "$S/kmempool-stock.config"
else
	put "$S/kmempool-stock.config" < "$PATCHES/kmempool.config"
fi
put "$S/series/0001-kmp-stock-marker.patch" <<'EOF'
The stock flavor of kmempool's tinyconfig tree: the pinned base without
the series.  This marker only adds a text file no build step reads.
--- /dev/null
+++ b/KMP-STOCK
@@ -0,0 +1 @@
+the pinned base (kernel-patches/base.conf) without the kmempool series (qemu/build-kernel-stock.sh)
EOF

KMP_PATCHES="$S/series" KMP_FRAGMENT="$S/kmempool-stock.config" KMP_BUILD="$S" \
	bash "$ROOT/qemu/build-kernel.sh" default "$@" | sed -u 's/\[kernel:default\]/[kernel:stock]/'
ln -sfn stock/kernel "$B/kernel-stock"
ln -sfn stock/obj-default "$B/obj-stock"
