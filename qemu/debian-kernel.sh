#!/bin/bash
# Debian's own kernel as a test target (no kmempool series): fetch the
# packages `linux-image-amd64` resolves to now with `apt-get download`,
# unpack what the rig needs under build/debian/, and install the headers
# packages (files only) so that out-of-tree modules build against them.
#
#   qemu/debian-kernel.sh            -> build/debian/kernel/
#
# build/debian/deb/VERSION/   the five .deb files (download cache)
# build/debian/kernel/        bzImage (Debian's vmlinuz), vmlinux (with
#                             DWARF, from the -dbg package), release,
#                             version, config, System.map, modroot/ (only
#                             the modules the tests need, busybox depmod),
#                             debug/ (those modules' debug files), .key
# build/debian/vmlinux.ext2   an ext2 image holding only vmlinux, for
#                             run-vm.sh --disk (the live analyzer in the VM)
#
# Never installs a kernel image on the host: the image and -dbg packages
# are only unpacked.  A warm rerun with the same package version takes a
# second.  KMP_BUILD overrides build/.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${KMP_BUILD:-$ROOT/build}
D=$B/debian
OUT=$D/kernel
stage() { echo "==> [debian-kernel] $*"; }
die() { echo "debian-kernel: $*" >&2; exit 1; }
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

# The modules the stock tests load (their dependencies come along):
# virtio disks, loop, dm-crypt with aes-xts (AES itself is built in, xts
# wants ecb), md raid1, and ext4 (which mounts ext2) for the vmlinux disk.
MODS="virtio_pci virtio_blk loop dm-mod dm-crypt md-mod raid1 xts ecb ext4 crc32c_generic"

for tool in apt-get apt-cache dpkg-deb modinfo busybox mke2fs; do
	command -v "$tool" > /dev/null || die "$tool not found (make deps)"
done

# Which kernel linux-image-amd64 means today, and its version.
resolve() {
	IMG=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	[ -n "$IMG" ] || return 1
	VER=$(apt-cache policy "$IMG" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
	[ -n "$VER" ] && [ "$VER" != "(none)" ]
}
if ! resolve; then
	stage "apt-get update (linux-image-amd64 unknown to apt)"
	$SUDO apt-get update -qq
	resolve || die "cannot resolve linux-image-amd64 with apt-cache"
fi
REL=${IMG#linux-image-}			# 6.1.0-57-amd64
ABI=${REL%-amd64}			# 6.1.0-57
MAJMIN=$(echo "$VER" | cut -d. -f1,2)	# 6.1
PKGS=("$IMG" "$IMG-dbg" "linux-headers-$REL" "linux-headers-$ABI-common" "linux-kbuild-$MAJMIN")
DEBS=$D/deb/$VER
deb() { ls "$DEBS/$1"_*.deb 2>/dev/null | head -1; }

KEY=$( (echo "$VER $REL $MODS"; cat "$0") | sha256sum | cut -c1-16)

# The headers (files only), so that `make -C /usr/src/linux-headers-REL
# M=DIR modules` works.  Checked on every run: cheap.
headers_ok() {
	local p
	for p in "linux-headers-$REL" "linux-headers-$ABI-common" "linux-kbuild-$MAJMIN"; do
		[ "$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null)" = \
			"install ok installed $VER" ] || return 1
	done
	[ -f "/usr/src/linux-headers-$REL/Makefile" ]
}

if [ -f "$OUT/.key" ] && [ "$(cat "$OUT/.key")" = "$KEY" ] && [ -f "$OUT/bzImage" ] &&
   [ -f "$OUT/vmlinux" ] && [ -f "$D/vmlinux.ext2" ] && headers_ok; then
	stage "cached ($VER, $KEY): $OUT"
	exit 0
fi

# 1. Download (cached by version).
missing=()
for p in "${PKGS[@]}"; do [ -n "$(deb "$p")" ] || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
	stage "apt-get download ${missing[*]} ($VER)"
	t0=$(date +%s.%N)
	rm -rf "$DEBS.tmp"; mkdir -p "$DEBS.tmp"
	if ! (cd "$DEBS.tmp" && apt-get download -q "${missing[@]/%/=$VER}" > download.log 2>&1); then
		# Stale package lists: the version may be gone from the mirror.
		stage "download failed; apt-get update and retry"
		$SUDO apt-get update -qq
		(cd "$DEBS.tmp" && apt-get download -q "${missing[@]/%/=$VER}" > download.log 2>&1) ||
			{ cat "$DEBS.tmp/download.log" >&2; die "apt-get download failed"; }
	fi
	mkdir -p "$DEBS"
	mv "$DEBS.tmp"/*.deb "$DEBS/"
	rm -rf "$DEBS.tmp"
	stage "downloaded in $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s"
fi
for p in "${PKGS[@]}"; do [ -n "$(deb "$p")" ] || die "no .deb for $p in $DEBS"; done

# 2. Headers.
if ! headers_ok; then
	comp=$(dpkg-deb -f "$(deb "linux-headers-$REL")" Depends | tr ',' '\n' |
		grep -o 'linux-compiler-[^ ]*' | head -1)
	need=()
	for p in $comp; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
	done
	if [ ${#need[@]} -gt 0 ]; then
		stage "apt-get install ${need[*]} (the headers' compiler dependency)"
		$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" > /dev/null ||
			{ $SUDO apt-get update -qq &&
			  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" > /dev/null; }
	fi
	stage "dpkg -i the headers of $REL ($VER)"
	$SUDO dpkg -i "$(deb "linux-kbuild-$MAJMIN")" "$(deb "linux-headers-$ABI-common")" \
		"$(deb "linux-headers-$REL")" > "$D/dpkg-headers.log" 2>&1 ||
		{ cat "$D/dpkg-headers.log" >&2; die "dpkg -i of the headers failed"; }
	headers_ok || die "headers of $REL not installed after dpkg -i"
fi

if [ -f "$OUT/.key" ] && [ "$(cat "$OUT/.key")" = "$KEY" ] && [ -f "$OUT/bzImage" ] &&
   [ -f "$OUT/vmlinux" ] && [ -f "$D/vmlinux.ext2" ]; then
	stage "cached ($VER, $KEY): $OUT"
	exit 0
fi

# 3. The image package, whole (8 s), into a staging folder.  A run that
#    stopped half-way may have left the kept vmlinux there: put it back.
NEW=$D/kernel.new
if [ -f "$NEW/vmlinux" ] && [ ! -f "$OUT/vmlinux" ] && [ -f "$OUT/.dbg-key" ]; then
	mv "$NEW/vmlinux" "$OUT/vmlinux"
	[ -d "$NEW/debug" ] && mv "$NEW/debug" "$OUT/debug"
fi
rm -rf "$NEW" "$D/img"; mkdir -p "$NEW" "$D/img"
stage "unpacking $(basename "$(deb "$IMG")")"
dpkg-deb --fsys-tarfile "$(deb "$IMG")" | tar -x -C "$D/img" ./boot ./lib/modules
cp "$D/img/boot/vmlinuz-$REL" "$NEW/bzImage"
cp "$D/img/boot/config-$REL" "$NEW/config"
cp "$D/img/boot/System.map-$REL" "$NEW/System.map"
echo "$REL" > "$NEW/release"
echo "$VER" > "$NEW/version"

# 4. The modules: MODS and everything they depend on (modinfo).
MD=$D/img/lib/modules/$REL
declare -A path=()
while read -r f; do
	n=$(basename "$f" .ko); path[${n//-/_}]=$f
done < <(cd "$MD" && find kernel -name '*.ko')
declare -A want=()
add_mod() {
	local n=${1//-/_} f d
	[ -n "${want[$n]:-}" ] && return
	f=${path[$n]:-}
	[ -n "$f" ] || die "module $1 not in $IMG"
	want[$n]=$f
	for d in $(modinfo -F depends "$MD/$f" | tr ',' ' '); do add_mod "$d"; done
}
for m in $MODS; do add_mod "$m"; done
MR=$NEW/modroot/lib/modules/$REL
mkdir -p "$MR"
for n in "${!want[@]}"; do
	mkdir -p "$MR/$(dirname "${want[$n]}")"
	cp "$MD/${want[$n]}" "$MR/${want[$n]}"
done
cp "$MD/modules.builtin" "$MD/modules.order" "$MD/modules.builtin.modinfo" "$MR/"
busybox depmod -b "$NEW/modroot" "$REL"
[ -s "$MR/modules.dep" ] || die "busybox depmod wrote no modules.dep"
printf '%s\n' "${want[@]}" | sort > "$NEW/modules.list"
stage "$(wc -l < "$NEW/modules.list") modules, $(du -sh "$NEW/modroot" | cut -f1)"
rm -rf "$D/img"

# 5. vmlinux and the shipped modules' debug files out of the -dbg package:
#    one pass over it (~60 s of xz).  Kept across script changes while the
#    version and the module list stay the same.
DBGKEY=$( (echo "$VER"; cat "$NEW/modules.list") | sha256sum | cut -c1-16)
if [ -f "$OUT/vmlinux" ] && [ "$(cat "$OUT/.dbg-key" 2>/dev/null)" = "$DBGKEY" ]; then
	stage "vmlinux and module debug files kept ($DBGKEY)"
	mv "$OUT/vmlinux" "$NEW/vmlinux"
	[ -d "$OUT/debug" ] && mv "$OUT/debug" "$NEW/debug"
else
	stage "extracting vmlinux and $(wc -l < "$NEW/modules.list") module debug files from $(basename "$(deb "$IMG-dbg")") (~1 min)"
	t0=$(date +%s.%N)
	X=$D/dbg.tmp; rm -rf "$X"; mkdir -p "$X"
	members=("./usr/lib/debug/boot/vmlinux-$REL")
	while read -r f; do members+=("./usr/lib/debug/lib/modules/$REL/$f"); done < "$NEW/modules.list"
	# A module without a debug file is not fatal; vmlinux is.
	dpkg-deb --fsys-tarfile "$(deb "$IMG-dbg")" | tar -x -C "$X" "${members[@]}" 2> "$D/dbg-tar.log" || true
	[ -f "$X/usr/lib/debug/boot/vmlinux-$REL" ] ||
		{ cat "$D/dbg-tar.log" >&2; die "no vmlinux-$REL in the -dbg package"; }
	mv "$X/usr/lib/debug/boot/vmlinux-$REL" "$NEW/vmlinux"
	mkdir -p "$NEW/debug"
	[ -d "$X/usr/lib/debug/lib" ] && mv "$X/usr/lib/debug/lib" "$NEW/debug/"
	rm -rf "$X"
	stage "extracted in $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s"
fi
echo "$DBGKEY" > "$NEW/.dbg-key"

# 6. An ext2 image of vmlinux alone: the guest mounts it read-only instead
#    of copying 633 MB into its RAM.
stage "vmlinux.ext2"
EX=$D/vmlinux.ext2
rm -f "$EX"; X=$D/ext2.tmp; rm -rf "$X"; mkdir -p "$X"
ln "$NEW/vmlinux" "$X/vmlinux"
sz=$(( $(stat -c %s "$NEW/vmlinux") / 1048576 + 32 ))
mke2fs -q -t ext2 -F -L kmpvmlinux -d "$X" "$EX.tmp" "${sz}M" > /dev/null
rm -rf "$X"; mv "$EX.tmp" "$EX"

rm -rf "$OUT"; mv "$NEW" "$OUT"
echo "$KEY" > "$OUT/.key"
stage "ready: $OUT ($REL, $VER)"
