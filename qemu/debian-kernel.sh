#!/bin/bash
# Debian's own kernel as a test target (no kmempool series): fetch the
# packages a suite's `linux-image-amd64` resolves to now with `apt-get
# download`, unpack what the rig needs, and make the module build possible.
#
#   qemu/debian-kernel.sh [SUITE]    SUITE: bookworm (default), trixie, sid,
#                                    bullseye -> build/debian[-SUITE]/kernel/
#
# bookworm, the host's own suite, resolves with the host's apt (its
# bookworm-security has the newer 6.1 kernel) and installs the headers
# packages on the host (files only) as before.  Any other suite resolves
# through a private apt configuration (qemu/apt-suite.sh, build/apt/SUITE)
# and gets a chroot of that suite with its headers, compiler, makedumpfile,
# kexec-tools and drgn (qemu/suite-chroot.sh, built while this script
# downloads and unpacks).  Paths per suite: qemu/apt-suite.sh paths SUITE.
#
# DIR/deb/VERSION/   the .deb files (download cache)
# DIR/kernel/        bzImage (Debian's vmlinuz), vmlinux (with DWARF, from
#                    the -dbg package), release, version, config, System.map,
#                    modroot/ (only the modules the tests need, decompressed,
#                    busybox depmod), debug/ (those modules' debug files), .key
# DIR/vmlinux.ext2   an ext2 image holding only vmlinux, for run-vm.sh --disk
#                    (the live analyzer in the VM)
#
# Package layouts differ: 6.1 and 5.10 have boot/ and lib/modules/; 6.12
# has boot/ and usr/lib/modules/ (.ko.xz); 7.2 splits the image into
# linux-binary-REL (usr/lib/modules/REL/vmlinuz), linux-modules-REL and
# linux-base-REL (config, System.map), and its -dbg vmlinux is at
# usr/lib/debug/lib/modules/REL/vmlinux.
#
# Never installs a kernel image on the host: the image and -dbg packages
# are only unpacked.  A warm rerun with the same package version takes a
# second.  KMP_BUILD overrides build/.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SUITE=${1:-bookworm}
. "$ROOT/qemu/apt-suite.sh"
suite_paths "$SUITE"
D=$SUITE_D
OUT=$SUITE_K
if [ "$SUITE" = bookworm ]; then
	stage() { echo "==> [debian-kernel] $*"; }
else
	stage() { echo "==> [debian-kernel $SUITE] $*"; }
fi
die() { echo "debian-kernel: $*" >&2; exit 1; }
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

# The modules the stock tests load (their dependencies come along):
# virtio disks, loop, dm-crypt with aes-xts (AES is built in from 6.1 on,
# a module in 5.10; xts wants ecb), md raid1, and ext4 (which mounts ext2)
# for the vmlinux disk.  A|B: the first of them this kernel has (7.2
# calls crc32c_generic crc32c-cryptoapi, aes_generic aes).
MODS="virtio_pci virtio_blk loop dm-mod dm-crypt md-mod raid1 xts ecb aes_generic|aes ext4 crc32c_generic|crc32c-cryptoapi"

for tool in apt-get apt-cache dpkg-deb modinfo busybox mke2fs xz zstd; do
	command -v "$tool" > /dev/null || die "$tool not found (make deps)"
done

# apt for this suite: the host's own for bookworm, else the private one.
if [ -z "$SUITE_ROOT" ]; then
	acache() { apt-cache "$@"; }
	aupdate() { $SUDO apt-get update -qq; }
	adownload() { apt-get download -q "$@"; }
else
	acache() { suite_apt_cache "$SUITE" "$@"; }
	aupdate() { suite_apt "$SUITE" update -qq > "$D/apt-update.log" 2>&1 ||
		{ cat "$D/apt-update.log" >&2; return 1; }; }
	adownload() { suite_apt "$SUITE" download "$@"; }
fi
mkdir -p "$D"

# Which kernel linux-image-amd64 means today, and its version.
resolve() {
	IMG=$(acache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	[ -n "$IMG" ] || return 1
	VER=$(acache policy "$IMG" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
	[ -n "$VER" ] && [ "$VER" != "(none)" ]
}
if ! resolve; then
	stage "apt-get update (linux-image-amd64 unknown to apt)"
	aupdate
	resolve || die "cannot resolve linux-image-amd64 with apt-cache"
fi
REL=${IMG#linux-image-}			# 6.1.0-57-amd64, 6.12.117+deb13-amd64
ABI=${REL%-amd64}			# 6.1.0-57
MAJMIN=$(echo "$VER" | cut -d. -f1,2)	# 6.1
# The image and what it is split into from 7.x on (follow its Depends).
PARTS=("$IMG")
while read -r p; do PARTS+=("$p"); done < <(acache depends "$IMG" 2>/dev/null | awk -v r="$REL" '
	$1 ~ /Depends:$/ && ($2 == "linux-binary-" r || $2 == "linux-modules-" r ||
			     $2 == "linux-base-" r) { print $2 }' | sort -u)
PKGS=("${PARTS[@]}" "$IMG-dbg")
[ -n "$SUITE_ROOT" ] ||
	PKGS+=("linux-headers-$REL" "linux-headers-$ABI-common" "linux-kbuild-$MAJMIN")
DEBS=$D/deb/$VER
deb() { ls "$DEBS/$1"_*.deb 2>/dev/null | head -1; }

KEY=$( (echo "$SUITE $VER $REL $MODS"; cat "$0") | sha256sum | cut -c1-16)

# Another suite's chroot (headers, compiler, makedumpfile, kexec, drgn)
# builds meanwhile: it needs the network and dpkg, the rest here xz.
CHROOT_PID=
if [ -n "$SUITE_ROOT" ]; then
	bash "$ROOT/qemu/suite-chroot.sh" "$SUITE" "$REL" > "$D/suite-chroot.out" 2>&1 &
	CHROOT_PID=$!
fi
chroot_done() {
	[ -n "$CHROOT_PID" ] || return 0
	local rc=0
	wait "$CHROOT_PID" || rc=$?
	CHROOT_PID=
	cat "$D/suite-chroot.out"
	[ $rc = 0 ] || die "the $SUITE chroot failed (status $rc)"
}
# Leave no chroot build running behind this script.
trap '[ -z "$CHROOT_PID" ] || wait "$CHROOT_PID"' EXIT

# The headers (files only), so that `make -C /usr/src/linux-headers-REL
# M=DIR modules` works.  Checked on every run: cheap.
headers_ok() {
	local p
	[ -z "$SUITE_ROOT" ] || return 0
	for p in "linux-headers-$REL" "linux-headers-$ABI-common" "linux-kbuild-$MAJMIN"; do
		[ "$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null)" = \
			"install ok installed $VER" ] || return 1
	done
	[ -f "/usr/src/linux-headers-$REL/Makefile" ]
}

if [ -f "$OUT/.key" ] && [ "$(cat "$OUT/.key")" = "$KEY" ] && [ -f "$OUT/bzImage" ] &&
   [ -f "$OUT/vmlinux" ] && [ -f "$D/vmlinux.ext2" ] && headers_ok; then
	chroot_done
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
	if ! (cd "$DEBS.tmp" && adownload "${missing[@]/%/=$VER}" > download.log 2>&1); then
		# Stale package lists: the version may be gone from the mirror.
		stage "download failed; apt-get update and retry"
		aupdate
		(cd "$DEBS.tmp" && adownload "${missing[@]/%/=$VER}" > download.log 2>&1) ||
			{ cat "$DEBS.tmp/download.log" >&2; die "apt-get download failed"; }
	fi
	mkdir -p "$DEBS"
	mv "$DEBS.tmp"/*.deb "$DEBS/"
	rm -rf "$DEBS.tmp"
	stage "downloaded in $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s"
fi
for p in "${PKGS[@]}"; do [ -n "$(deb "$p")" ] || die "no .deb for $p in $DEBS"; done

# 2. Headers (bookworm: on the host; other suites: in their chroot).
if ! headers_ok; then
	comp=$(dpkg-deb -f "$(deb "linux-headers-$REL")" Depends | tr ',' '\n' |
		grep -o 'linux-compiler-[^ ]*' | head -1)
	need=()
	for p in $comp; do
		[[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == *'ok installed' ]] || need+=("$p")
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
	chroot_done
	stage "cached ($VER, $KEY): $OUT"
	exit 0
fi

# 3. The image package(s), whole but the docs (8 s), into a staging folder.  A run that
#    stopped half-way may have left the kept vmlinux there: put it back.
NEW=$D/kernel.new
if [ -f "$NEW/vmlinux" ] && [ ! -f "$OUT/vmlinux" ] && [ -f "$OUT/.dbg-key" ]; then
	mv "$NEW/vmlinux" "$OUT/vmlinux"
	[ -d "$NEW/debug" ] && mv "$NEW/debug" "$OUT/debug"
fi
rm -rf "$NEW" "$D/img"; mkdir -p "$NEW" "$D/img"
for p in "${PARTS[@]}"; do
	stage "unpacking $(basename "$(deb "$p")")"
	dpkg-deb --fsys-tarfile "$(deb "$p")" | tar -x -C "$D/img" --exclude=./usr/share
done
# The first of these that exists: boot/ (6.1, 6.12, 5.10) or the modules
# directory (7.2: vmlinuz, config, System.map beside the modules).
pick() {
	local f
	for f in "$@"; do [ -f "$f" ] && { echo "$f"; return 0; }; done
	die "none of: $*"
}
MD=
for m in "$D/img/lib/modules/$REL" "$D/img/usr/lib/modules/$REL"; do
	[ -d "$m/kernel" ] && { MD=$m; break; }
done
[ -n "$MD" ] || die "no modules directory for $REL in ${PARTS[*]}"
cp "$(pick "$D/img/boot/vmlinuz-$REL" "$MD/vmlinuz")" "$NEW/bzImage"
cp "$(pick "$D/img/boot/config-$REL" "$MD/config")" "$NEW/config"
cp "$(pick "$D/img/boot/System.map-$REL" "$MD/System.map")" "$NEW/System.map"
echo "$REL" > "$NEW/release"
echo "$VER" > "$NEW/version"
echo "$SUITE" > "$NEW/suite"

# 4. The modules: MODS and everything they depend on (modinfo), each
#    decompressed (.ko.xz, .ko.zst: busybox depmod and modprobe want .ko).
#    One that this kernel has built in is skipped.
declare -A path=() builtin=()
# (No subprocess per line: there are 3,000-6,000 modules.)
while read -r f; do
	n=${f##*/}; n=${n%.ko*}; path[${n//-/_}]=$f
done < <(cd "$MD" && find kernel -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz')
while read -r f; do
	n=${f##*/}; n=${n%.ko}; builtin[${n//-/_}]=1
done < "$MD/modules.builtin"
MR=$NEW/modroot/lib/modules/$REL
mkdir -p "$MR"
declare -A want=()
add_mod() {
	local n=${1//-/_} f ko d
	[ -n "${want[$n]:-}" ] && return
	f=${path[$n]:-}
	if [ -z "$f" ]; then
		[ -n "${builtin[$n]:-}" ] || die "module $1 neither in $IMG nor built in"
		echo "$1" >> "$NEW/modules.builtin-skipped"
		want[$n]=-
		return
	fi
	ko=${f%.ko*}.ko
	want[$n]=$ko
	mkdir -p "$MR/$(dirname "$ko")"
	case $f in
	*.xz) xz -dc "$MD/$f" > "$MR/$ko" ;;
	*.zst) zstd -q -dc "$MD/$f" > "$MR/$ko" ;;
	*.gz) gzip -dc "$MD/$f" > "$MR/$ko" ;;
	*) cp "$MD/$f" "$MR/$ko" ;;
	esac
	for d in $(modinfo -F depends "$MR/$ko" | tr ',' ' '); do add_mod "$d"; done
}
for alts in $MODS; do
	m=${alts%%|*}
	for a in ${alts//|/ }; do
		n=${a//-/_}
		[ -n "${path[$n]:-}${builtin[$n]:-}" ] && { m=$a; break; }
	done
	add_mod "$m"
done
for f in modules.builtin modules.order modules.builtin.modinfo; do
	[ -f "$MD/$f" ] && cp "$MD/$f" "$MR/"
done
busybox depmod -b "$NEW/modroot" "$REL"
[ -s "$MR/modules.dep" ] || die "busybox depmod wrote no modules.dep"
printf '%s\n' "${want[@]}" | grep -v '^-$' | sort > "$NEW/modules.list"
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
	stage "extracting vmlinux and $(wc -l < "$NEW/modules.list") module debug files from $(basename "$(deb "$IMG-dbg")") (1-2 min)"
	t0=$(date +%s.%N)
	X=$D/dbg.tmp; rm -rf "$X"; mkdir -p "$X"
	# vmlinux: boot/vmlinux-REL (6.1, 6.12, 5.10) or, from 7.x, the
	# modules' debug directory (boot/ then has a link).
	members=("./usr/lib/debug/boot/vmlinux-$REL" "./usr/lib/debug/lib/modules/$REL/vmlinux")
	while read -r f; do members+=("./usr/lib/debug/lib/modules/$REL/$f"); done < "$NEW/modules.list"
	# A module without a debug file is not fatal; vmlinux is.
	dpkg-deb --fsys-tarfile "$(deb "$IMG-dbg")" | tar -x -C "$X" "${members[@]}" 2> "$D/dbg-tar.log" || true
	vml=
	for f in "$X/usr/lib/debug/boot/vmlinux-$REL" "$X/usr/lib/debug/lib/modules/$REL/vmlinux"; do
		[ -f "$f" ] && [ ! -L "$f" ] && { vml=$f; break; }
	done
	[ -n "$vml" ] || { cat "$D/dbg-tar.log" >&2; die "no vmlinux of $REL in the -dbg package"; }
	mv "$vml" "$NEW/vmlinux"
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
chroot_done
stage "ready: $OUT ($REL, $VER)"
