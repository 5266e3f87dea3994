#!/bin/bash
# The series (kernel-patches/0001-...) against a freshly extracted tarball
# of the base pinned in kernel-patches/base.conf (Linux 7.2, fetched once by
# qemu/kernel-source.sh): every patch applies in order, checkpatch --strict
# reports nothing, every patch is signed off, and the tree builds with the
# test config (kernel-patches/kmempool.config merged onto tinyconfig) after
# each patch: after patches 1-N for N < last, the directories with the C
# files patch N touches (\`make mm/ block/ ...\`, built-in and modular
# objects, incrementally in one object tree); after the last patch, vmlinux
# and all modules.  (A header change that broke code in a directory the
# patch does not touch would be found by the last build only.)  After each
# patch too: the objects of the C files it touches build with W=1 without a
# compiler or kernel-doc warning (kbuild runs kernel-doc on them with W=1),
# and kernel-doc reports no more warnings than on the base in the C files
# and headers it touches.  Then the exports' documentation, and struct
# mempool's growth: at most KMP_SERIES_GROWTH_MAX bytes, 72 for series v7
# (pahole on mm/mempool.o before the series and on vmlinux after it).
# KMP_SERIES_BUILD=0 skips the builds, and says so.
# KMP_SERIES_DIR, KMP_TARBALL, KMP_SERIES_BASE (the base's name and version)
# and KMP_SERIES_CONFIG (a fragment merged onto tinyconfig) run it on
# another series, tarball or configuration.
# A build that passed is remembered in build/series-cache/, keyed by a hash
# of the base's package and version, the compiler, the config and patches
# 1-N; a rerun with the same inputs reports that result (and says "cached")
# instead of building again.  KMP_SERIES_CACHE=0 builds every time.
GROUP=${KMP_SERIES_GROUP:-series}
. "$(dirname "$0")/lib.sh"
SDIR=${KMP_SERIES_DIR:-$ROOT/kernel-patches}
S=$T/$GROUP
# The tree is unpacked (from the tarball recompressed with zstd, lib.sh)
# into build/t/series/src, beside its objects in build/t/series/obj, so the
# compiler sees the same relative paths under ccache's base directory as
# in the default kernel's build (build/src, build/obj-default) and the
# build after the last patch hits ccache.  (A tree in tmpfs would save
# ~20 s of writing here but, outside build/, miss ccache: 285 s instead
# of 151 s for that build.)
SRC=$S/src OBJ=$S/obj
rm -rf "$SRC"; mkdir -p "$SRC" "$OBJ"
TARBALL=$(kernel_tarball) || { not_ok "no kernel source tarball (qemu/kernel-source.sh)"; exit 1; }
stage "extracting $(basename "$TARBALL")"
tar xf "$TARBALL" -C "$SRC" --strip-components=1
if [ -n "${KMP_SERIES_BASE:-}" ]; then
	BASE_NAME=$KMP_SERIES_BASE
elif [ -n "${KMP_TARBALL:-}" ]; then
	BASE_NAME="$(basename "$KMP_TARBALL") ($(stat -L -c '%s bytes, %Y' "$KMP_TARBALL"))"
else
	BASE_NAME="$(bash "$ROOT/qemu/kernel-source.sh" package) $(bash "$ROOT/qemu/kernel-source.sh" version)"
fi
ver=$BASE_NAME
KMP_SERIES_CONFIG=${KMP_SERIES_CONFIG:-$ROOT/kernel-patches/kmempool.config}
mapfile -t PATCHES < <(ls "$SDIR"/[0-9][0-9][0-9][0-9]-*.patch | grep -v cover-letter)
check "cover letter and ${#PATCHES[@]} patches present" \
	test -s "$SDIR/0000-cover-letter.patch" -a ${#PATCHES[@]} -ge 5
CC="gcc"; command -v ccache >/dev/null && CC="ccache gcc"
export CCACHE_NOHASHDIR=true CCACHE_BASEDIR="$B"
# The flags of qemu/build-kernel.sh (sites relative to the tree), for ccache hits.
MK=(make -C "$SRC" O="$OBJ" CC="$CC" KCFLAGS="-fmacro-prefix-map=../src/=" -j"$(nproc)")
base_size=
if [ "${KMP_SERIES_BUILD:-1}" = 1 ] && [ -n "${KMP_SERIES_CONFIG:-}" ]; then
	"${MK[@]}" -s tinyconfig > "$S/config.log" 2>&1
	(cd "$SRC" && scripts/kconfig/merge_config.sh -m -O "$OBJ" "$OBJ/.config" \
		"$KMP_SERIES_CONFIG") >> "$S/config.log" 2>&1
	"${MK[@]}" -s olddefconfig >> "$S/config.log" 2>&1
	# struct mempool before the series, for the size check after it.  The
	# object is built again whatever its time: the unpatched source
	# (unpacked with the tarball's old times) looks older than the
	# patched object of the last run, which make would keep (it was
	# measured as "120 -> 120").
	rm -f "$OBJ/mm/mempool.o"
	if "${MK[@]}" mm/mempool.o > "$S/build-0.log" 2>&1; then
		base_size=$(pahole -C mempool "$OBJ/mm/mempool.o" 2>/dev/null |
			sed -n 's|.*/\* size: \([0-9]*\),.*|\1|p' | head -1)
		base_text=$(size -A "$OBJ/mm/mempool.o" | awk '$1 == ".text" { print $2 }')
	fi
fi
CACHE=$B/series-cache; mkdir -p "$CACHE"
cache_in=$(echo "$ver"; gcc --version | head -1
	sha256sum < "$KMP_SERIES_CONFIG"; echo "olddefconfig, vmlinux modules, W=1 objects")
# build_key N TARGETS: what the build of TARGETS with patches 1-N depends on
build_key() { (echo "$cache_in"; echo "$2"; cat "${PATCHES[@]:0:$1}") | sha256sum | cut -c1-16; }
# targets P LAST: what to build after patch P: the directories of the C files
# it touches that the kernel has a Makefile for (not other architectures'),
# or everything after the last.
targets() {
	if [ "$2" = 1 ]; then echo "vmlinux modules"; return; fi
	grep -h '^+++ b/' "$1" | sed 's|^+++ b/||' | grep -E '\.c$' | xargs -r -n1 dirname |
		sort -u | while read -r d; do
			case $d in arch/x86/*) ;; arch/*) continue ;; esac	# other architectures
			[ -f "$SRC/$d/Makefile" ] || [ -f "$SRC/$d/Kbuild" ] && echo "$d/"
		done | tr '\n' ' ' | sed 's/ $//'
}
# kernel-doc warnings in the files the series touches, before and after.
mapfile -t TOUCHED < <(grep -h '^+++ b/' "${PATCHES[@]}" | sed 's|^+++ b/||' |
	grep -E '\.(c|h)$' | sort -u)
kdoc() { (cd "$SRC" && for f in "${TOUCHED[@]}"; do [ -f "$f" ] && echo "$f"; done |
	xargs scripts/kernel-doc -none -v 2>&1 | grep -c 'warning:'); }
kdoc_before=$(kdoc)
# Per file, its kernel-doc warnings on the base (0 for a file the series adds).
declare -A KDOC_BASE
for f in "${TOUCHED[@]}"; do
	KDOC_BASE[$f]=0
	[ -f "$SRC/$f" ] && KDOC_BASE[$f]=$(cd "$SRC" && scripts/kernel-doc -none -v "$f" 2>&1 |
		grep -c 'warning:')
done
# w1_objects P: the objects of the C files patch P touches (this architecture's).
w1_objects() {
	grep -h '^+++ b/' "$1" | sed 's|^+++ b/||' | grep -E '\.c$' |
		while read -r c; do
			case $c in arch/x86/*) ;; arch/*) continue ;; esac
			echo "${c%.c}.o"
		done | tr '\n' ' '
}
n=0
for p in "${PATCHES[@]}"; do
	n=$((n + 1)); name=$(basename "$p")
	if patch -d "$SRC" -p1 --forward --batch --quiet < "$p" > "$S/patch.log" 2>&1; then
		ok "$name applies to $BASE_NAME"
	else
		not_ok "$name does not apply to $BASE_NAME"
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
	# kernel-doc on the C files and headers this patch touches: no new warning.
	worse=()
	while read -r f; do
		[ -f "$SRC/$f" ] || continue
		k=$(cd "$SRC" && scripts/kernel-doc -none -v "$f" 2>&1 | grep -c 'warning:')
		[ "$k" -le "${KDOC_BASE[$f]:-0}" ] || worse+=("$f: ${KDOC_BASE[$f]:-0} -> $k")
	done < <(grep -h '^+++ b/' "$p" | sed 's|^+++ b/||' | grep -E '\.(c|h)$' | sort -u)
	if [ ${#worse[@]} = 0 ]; then
		ok "$name: no new kernel-doc warning in the files it touches"
	else
		not_ok "$name: new kernel-doc warnings: ${worse[*]}"
	fi
	last=0; [ "$n" = ${#PATCHES[@]} ] && last=1
	tg=$(targets "$p" $last); [ -n "$tg" ] || tg="mm/"
	what="the tree builds (vmlinux and modules)"
	[ $last = 1 ] || what="$tg build"
	key=$(build_key $n "$tg")
	if [ "${KMP_SERIES_BUILD:-1}" = 1 ] && [ "${KMP_SERIES_CACHE:-1}" = 1 ] &&
	   [ -s "$CACHE/$key" ]; then
		ok "$what with patches 1-$n (cached: $(cat "$CACHE/$key"), same tarball, compiler, config and patches, key $key)"
	elif [ "${KMP_SERIES_BUILD:-1}" = 1 ]; then
		stage "building $tg with patches 1-$n"
		start=$(date +%s)
		# shellcheck disable=SC2086 # $tg: one word per target
		w1=$(w1_objects "$p")
		# shellcheck disable=SC2086 # $tg, $w1: one word per target
		if "${MK[@]}" -s olddefconfig > "$S/build-$n.log" 2>&1 &&
		   { [ -z "$w1" ] || "${MK[@]}" W=1 $w1 > "$S/build-w1-$n.log" 2>&1; } &&
		   ! grep -E 'warning:' "$S/build-w1-$n.log" > "$S/w1-$n.warnings" 2>/dev/null &&
		   "${MK[@]}" $tg >> "$S/build-$n.log" 2>&1; then
			ok "$what with patches 1-$n, and W=1 clean (compiler and kernel-doc) on ${w1:-nothing} ($(( $(date +%s) - start )) s)"
			echo "built, W=1 clean, $(date -u '+%F %H:%M') UTC in $(( $(date +%s) - start )) s" > "$CACHE/$key"
		elif [ -s "$S/w1-$n.warnings" ]; then
			not_ok "W=1 warnings with patches 1-$n on $w1 (log: $S/build-w1-$n.log)"
			head -10 "$S/w1-$n.warnings" | sed 's/^/    /'
		else
			not_ok "$what fails with patches 1-$n (log: $S/build-$n.log)"
			grep -E 'error' "$S/build-$n.log" | head -10 | sed 's/^/    /'
		fi
	fi
done
[ "${KMP_SERIES_BUILD:-1}" = 1 ] || echo "# series: per-patch builds not run (KMP_SERIES_BUILD=0)"
kdoc_after=$(kdoc)
if [ "$kdoc_after" -le "$kdoc_before" ]; then
	ok "no new kernel-doc warnings in the ${#TOUCHED[@]} files the series touches ($kdoc_before before, $kdoc_after after)"
else
	not_ok "kernel-doc: $kdoc_before warnings before the series, $kdoc_after after"
	(cd "$SRC" && scripts/kernel-doc -none -v "${TOUCHED[@]}" 2>&1 | grep 'warning:' | head -10 | sed 's/^/    /')
fi
# Every function the series exports has a kernel-doc comment.
# A function behind alloc_hooks() is documented under the macro's name, as
# the kernel does (mempool_init() for mempool_init_noprof()): the series'
# mempool_init_tag_noprof() under mempool_init().
undoc=()
while read -r file sym; do
	m=${sym%_noprof}; m=${m%_tag}
	grep -qE "^ \* ($sym|${sym%_noprof}|$m)(\(\))? - " "$SRC/$file" || undoc+=("$file:$sym")
done < <(for p in "${PATCHES[@]}"; do
	awk '/^\+\+\+ b\// { f = substr($2, 3) }
	     /^\+EXPORT_SYMBOL(_GPL)?\(/ { s = $0; sub(/.*\(/, "", s); sub(/\).*/, "", s); print f, s }' "$p"
done | sort -u)
if [ ${#undoc[@]} = 0 ]; then
	ok "every function the series exports has kernel-doc"
else
	not_ok "exported without kernel-doc: ${undoc[*]}"
fi
# struct mempool's growth (at most KMP_SERIES_GROWTH_MAX bytes, the cover letter's figure), from the DWARF of
# mm/mempool.o before the series and of the vmlinux built after it.
if [ -n "$base_size" ]; then
	new_size=$(pahole -C mempool "$OBJ/vmlinux" 2>/dev/null |
		sed -n 's|.*/\* size: \([0-9]*\),.*|\1|p' | head -1)
	# For the cover letter's cost section: measured, not asserted.
	echo "# series: mm/mempool.o .text ${base_text:-?} -> $(size -A "$OBJ/mm/mempool.o" 2>/dev/null |
		awk '$1 == ".text" { print $2 }') bytes; struct mempool $base_size -> ${new_size:-?} bytes"
	# It must grow at all (the list node alone does): equal sizes mean the
	# "before" object was a patched one.
	gmax=${KMP_SERIES_GROWTH_MAX:-72}
	check "struct mempool grows by at most $gmax bytes, and grows ($base_size -> ${new_size:-?} bytes)" \
		test -n "$new_size" -a "$(( ${new_size:-9999} - base_size ))" -le "$gmax" \
		-a "${new_size:-0}" -gt "$base_size"
elif [ -n "${KMP_SERIES_CONFIG:-}" ] && [ "${KMP_SERIES_BUILD:-1}" = 1 ]; then
	not_ok "struct mempool's size before the series could not be measured (see $S/build-0.log)"
fi
# The patched tree's doc and Kconfig entries for the file.
check "Documentation/filesystems/proc.rst documents /proc/mempool" \
	grep -q '^mempool$' "$SRC/Documentation/filesystems/proc.rst"
check "mm/Kconfig has PROC_MEMPOOL with help text" \
	bash -c "grep -A8 '^config PROC_MEMPOOL' '$SRC/mm/Kconfig' | grep -q 'help'"
# KMP_SERIES_KEEP_SRC=1 keeps the patched tree.
[ "${KMP_SERIES_KEEP_SRC:-0}" = 1 ] || rm -rf "$SRC"
[ "$fail" = 0 ]
