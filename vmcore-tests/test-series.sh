#!/bin/bash
# The series against a freshly extracted linux-source-6.1 tarball: every
# patch applies in order, checkpatch --strict reports nothing, every patch
# is signed off, and the tree builds (vmlinux and modules, with the test
# config) after each patch.  KMP_SERIES_BUILD=0 skips the builds, and says so.
GROUP=series
. "$(dirname "$0")/lib.sh"
TARBALL=${KMP_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
S=$T/series
SRC=$S/src OBJ=$S/obj
rm -rf "$SRC"; mkdir -p "$SRC" "$OBJ"
stage "extracting $(basename "$TARBALL")"
tar xf "$TARBALL" -C "$SRC" --strip-components=1
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo "?")
mapfile -t PATCHES < <(ls "$ROOT"/kernel-patches/000[1-9]-*.patch)
check "cover letter and ${#PATCHES[@]} patches present" \
	test -s "$ROOT/kernel-patches/0000-cover-letter.patch" -a ${#PATCHES[@]} -ge 5
CC="gcc"; command -v ccache >/dev/null && CC="ccache gcc"
export CCACHE_NOHASHDIR=true CCACHE_BASEDIR="$B"
MK=(make -C "$SRC" O="$OBJ" CC="$CC" -j"$(nproc)")
if [ "${KMP_SERIES_BUILD:-1}" = 1 ]; then
	cp "$B/kernel/.config" "$OBJ/.config"
fi
n=0
for p in "${PATCHES[@]}"; do
	n=$((n + 1)); name=$(basename "$p")
	if patch -d "$SRC" -p1 --forward --batch --quiet < "$p" > "$S/patch.log" 2>&1; then
		ok "$name applies to linux-source-6.1 $ver"
	else
		not_ok "$name does not apply to linux-source-6.1 $ver"
		sed 's/^/    /' "$S/patch.log" | head -20
		break
	fi
	if out=$(cd "$SRC" && scripts/checkpatch.pl --strict --terse --no-summary "$p" 2>&1) &&
	   [ -z "$out" ]; then
		ok "$name: checkpatch.pl --strict is clean"
	else
		not_ok "$name: checkpatch.pl --strict reports:"; echo "$out" | head -20 | sed 's/^/    /'
	fi
	check "$name is signed off" grep -q '^Signed-off-by: ' "$p"
	if [ "${KMP_SERIES_BUILD:-1}" = 1 ]; then
		stage "building with patches 1-$n"
		start=$(date +%s)
		if "${MK[@]}" -s olddefconfig > "$S/build-$n.log" 2>&1 &&
		   "${MK[@]}" vmlinux modules >> "$S/build-$n.log" 2>&1; then
			ok "the tree builds with patches 1-$n ($(( $(date +%s) - start )) s)"
		else
			not_ok "the tree does not build with patches 1-$n (log: $S/build-$n.log)"
			grep -E 'error' "$S/build-$n.log" | head -10 | sed 's/^/    /'
		fi
	fi
done
[ "${KMP_SERIES_BUILD:-1}" = 1 ] || echo "# series: per-patch builds not run (KMP_SERIES_BUILD=0)"
# The patched tree's doc and Kconfig entries for the file.
check "Documentation/filesystems/proc.rst documents /proc/mempool" \
	grep -q '^mempool$' "$SRC/Documentation/filesystems/proc.rst"
check "mm/Kconfig has PROC_MEMPOOL with help text" \
	bash -c "grep -A8 '^config PROC_MEMPOOL' '$SRC/mm/Kconfig' | grep -q 'help'"
rm -rf "$SRC"
[ "$fail" = 0 ]
