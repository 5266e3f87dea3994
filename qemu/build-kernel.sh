#!/bin/bash
# Build the patched kernel for one flavor, cached by a hash of its inputs.
#
#   qemu/build-kernel.sh [default|noproc|debug] [--config-only]
#
# KMP_PATCHES, KMP_FRAGMENT and KMP_BUILD override the series folder, the
# config fragment and the build folder (the rig's own tests use them);
# --config-only stops after the configuration has been checked.
#
# The object directory build/obj-FLAVOR is kept: external modules (the
# test module in vmcore-tests/) are built against it.
# default: build/kernel/{bzImage,vmlinux,modroot/,release}
# noproc:  build/kernel-noproc/... (CONFIG_PROC_MEMPOOL=n)
# debug:   build/kernel-debug/... (fragment + kmempool-debug.config: KASAN,
#          lockdep, DEBUG_LIST, DEBUG_OBJECTS, kmemleak, SLUB_DEBUG_ON, ...)
# Stage lines go to stdout, the full build log to build/logs/.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FLAVOR=${1:-default}
CONFIG_ONLY=0; [ "${2:-}" = --config-only ] && CONFIG_ONLY=1
# The source: the base pinned in kernel-patches/base.conf (Linux 7.2,
# fetched once by qemu/kernel-source.sh), or KMP_TARBALL (the rig's own
# tests).  The cache key names the pinned package and version.
if [ -n "${KMP_TARBALL:-}" ]; then
	TARBALL=$KMP_TARBALL
	TARVER="$(basename "$TARBALL") $(stat -L -c '%s %Y' "$TARBALL" 2>/dev/null || echo '?')"
else
	TARBALL=$(bash "$ROOT/qemu/kernel-source.sh" tarball) || exit 1
	TARVER="$(bash "$ROOT/qemu/kernel-source.sh" package) $(bash "$ROOT/qemu/kernel-source.sh" version)"
fi
PATCHES=${KMP_PATCHES:-$ROOT/kernel-patches}
FRAGMENT=${KMP_FRAGMENT:-$PATCHES/kmempool.config}
B=${KMP_BUILD:-$ROOT/build}
case "$FLAVOR" in
default) OUT="$B/kernel" ;;
noproc)  OUT="$B/kernel-noproc" ;;
debug)   OUT="$B/kernel-debug" ;;
*) echo "build-kernel: unknown flavor '$FLAVOR' (default|noproc|debug)" >&2; exit 2 ;;
esac
OBJ="$B/obj-$FLAVOR"
LOGS="$B/logs"; mkdir -p "$LOGS"
stage() { echo "==> [kernel:$FLAVOR] $*"; }
die() { echo "build-kernel: $*" >&2; exit 1; }

[ -r "$TARBALL" ] || die "$TARBALL not found (qemu/kernel-source.sh fetches the pinned base)"

# The fragment this flavor uses.
FRAG="$B/fragment-$FLAVOR.config"
mkdir -p "$B"
if [ "$FLAVOR" = noproc ]; then
	sed 's/^CONFIG_PROC_MEMPOOL=y$/# CONFIG_PROC_MEMPOOL is not set/' "$FRAGMENT" > "$FRAG.tmp"
elif [ "$FLAVOR" = debug ]; then
	cat "$FRAGMENT" "$PATCHES/kmempool-debug.config" > "$FRAG.tmp"
else
	cp "$FRAGMENT" "$FRAG.tmp"
fi
mv "$FRAG.tmp" "$FRAG"

# The patches applied, in order; the cover letter is not one of them.
mapfile -t SERIES < <(ls "$PATCHES"/0*.patch | grep -v cover-letter)
[ ${#SERIES[@]} -gt 0 ] || die "no patches in $PATCHES"
SRCKEY=$( (echo "$TARVER"; cat "${SERIES[@]}") | sha256sum | cut -c1-16)
KEY=$( (echo "$SRCKEY"; cat "$FRAG" "$0") | sha256sum | cut -c1-16)
if [ -f "$OUT/.key" ] && [ "$(cat "$OUT/.key")" = "$KEY" ] && \
   [ -f "$OUT/bzImage" ] && [ -f "$OUT/vmlinux" ] && \
   [ -f "$OBJ/Module.symvers" ] && [ -f "$B/src/Makefile" ]; then
	stage "cached ($KEY): $OUT"
	exit 0
fi

# One source tree at a stable path, so ccache hits after a patch change.
SRC="$B/src"
if [ "$(cat "$SRC/.kmp-patched" 2>/dev/null)" != "$SRCKEY" ]; then
	stage "extracting $(basename "$TARBALL") ($TARVER)"
	rm -rf "$SRC"; mkdir -p "$SRC"
	tar xf "$TARBALL" -C "$SRC" --strip-components=1
	stage "applying ${#SERIES[@]} patches"
	for p in "${SERIES[@]}"; do
		if ! patch -d "$SRC" -p1 --forward --batch --quiet < "$p" > "$LOGS/patch.log" 2>&1; then
			cat "$LOGS/patch.log" >&2
			rm -rf "$SRC"
			die "patch $(basename "$p") does not apply to $TARVER"
		fi
	done
	echo "$SRCKEY" > "$SRC/.kmp-patched"
else
	stage "source tree ready: $SRC"
fi

# The noproc flavor differs from the default one by one option: it starts
# from a copy of default's objects (built from the same patched source),
# and kbuild's per-option dependencies rebuild only what that option
# touches (minutes instead of a full build; issue 35).
DEF_OBJ="$B/obj-default"
if [ "$FLAVOR" = noproc ] && [ ! -f "$OBJ/vmlinux" ] && [ -f "$DEF_OBJ/vmlinux" ] &&
   [ "$(cat "$DEF_OBJ/.kmp-srckey" 2>/dev/null)" = "$SRCKEY" ]; then
	stage "starting from the default flavor's objects ($DEF_OBJ)"
	rm -rf "$OBJ.tmp"
	cp -a "$DEF_OBJ" "$OBJ.tmp" && mv "$OBJ.tmp" "$OBJ"
fi
stage "configuring (tinyconfig + $(basename "$FRAGMENT"))"
mkdir -p "$OBJ"
CC="gcc"; command -v ccache >/dev/null && CC="ccache gcc"
export CCACHE_NOHASHDIR=true CCACHE_BASEDIR="$B"
# ccache's base directory makes the compiler see ../src/FILE: map it to
# FILE, as the kernel's own -fmacro-prefix-map does for absolute paths, so
# that __FILE__ (a pool's site) is relative to the source tree.
MK=(make -C "$SRC" O="$OBJ" CC="$CC" KCFLAGS="-fmacro-prefix-map=../src/=" -j"$(nproc)")
"${MK[@]}" -s tinyconfig > "$LOGS/config-$FLAVOR.log" 2>&1
(cd "$SRC" && scripts/kconfig/merge_config.sh -m -O "$OBJ" "$OBJ/.config" "$FRAG") >> "$LOGS/config-$FLAVOR.log" 2>&1
"${MK[@]}" -s olddefconfig >> "$LOGS/config-$FLAVOR.log" 2>&1
missing=0
while IFS= read -r line; do
	case "$line" in ''|'#'*) [ "${line#\# CONFIG_}" = "$line" ] && continue ;; esac
	if ! grep -qxF -- "$line" "$OBJ/.config"; then
		echo "build-kernel: config line lost by olddefconfig: $line" >&2
		missing=1
	fi
done < "$FRAG"
[ $missing = 0 ] || die "the kernel config lacks fragment lines (see above)"
if [ $CONFIG_ONLY = 1 ]; then
	stage "configuration complete: every fragment line is in $OBJ/.config"
	exit 0
fi

stage "building bzImage and modules (log: $LOGS/build-$FLAVOR.log)"
start=$(date +%s)
if ! "${MK[@]}" bzImage modules > "$LOGS/build-$FLAVOR.log" 2>&1; then
	grep -E 'error|Error' "$LOGS/build-$FLAVOR.log" | head -20 >&2
	die "kernel build failed, see $LOGS/build-$FLAVOR.log"
fi
stage "built in $(( $(date +%s) - start )) s"
echo "$SRCKEY" > "$OBJ/.kmp-srckey"

rm -rf "$OUT"; mkdir -p "$OUT"
REL=$(cat "$OBJ/include/config/kernel.release")
"${MK[@]}" -s modules_install INSTALL_MOD_PATH="$OUT/modroot" DEPMOD=/bin/true > /dev/null
rm -f "$OUT/modroot/lib/modules/$REL/build" "$OUT/modroot/lib/modules/$REL/source"
depmod -b "$OUT/modroot" "$REL"
cp "$OBJ/arch/x86/boot/bzImage" "$OUT/bzImage"
cp "$OBJ/vmlinux" "$OUT/vmlinux"
cp "$OBJ/System.map" "$OBJ/.config" "$OUT/"
echo "$REL" > "$OUT/release"
echo "$OBJ" > "$OUT/objdir"
echo "$KEY" > "$OUT/.key"
stage "ready: $OUT (release $REL)"
