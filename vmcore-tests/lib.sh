# Shared by the end-to-end test scripts (bash).
set -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$ROOT/build
T=$B/t
PY=/usr/bin/python3
mkdir -p "$T"
# The analyzer's dump cache (kmempool(1), KMEMPOOL_CACHE): the tests' own,
# never the user's ~/.cache (test-btf.sh gives each suite an empty one).
export KMEMPOOL_CACHE=${KMEMPOOL_CACHE:-$T/dcache}
# What the live and kdump tests ask the test module to create.
MODULE_PARAMS="slab_min=7 slab_size=200 kmalloc_min=3 kmalloc_size=100 page_min=2 page_order=1 private_min=5 private_size=72 unnamed_min=2 unnamed_size=24"
pass=0 fail=0
ok() { echo "ok - $GROUP: $*"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $GROUP: $*"; fail=$((fail + 1)); }
# ddcheck_lines PREFIX DUMP PERCENT: analyzer/tests/ddcheck.c's lines, each
# counted (a run that fails without a "not ok" line counts as one)
ddcheck_lines() {
	local out rc n
	out=$("$B/analyzer/ddcheck" "$2" "$3")
	rc=$?
	printf '%s\n' "$out" | sed "s/^\(not \)\{0,1\}ok - /&$GROUP: $1/"
	pass=$((pass + $(printf '%s\n' "$out" | grep -c '^ok - ')))
	n=$(printf '%s\n' "$out" | grep -c '^not ok - ')
	[ "$rc" != 0 ] && [ "$n" = 0 ] && n=1
	fail=$((fail + n))
}
# check "name" cmd...: ok if the command succeeds
check() { local n=$1; shift; if "$@"; then ok "$n"; else not_ok "$n"; fi; }

stage() { echo "==> [$GROUP] $*" >&2; }
# vm NAME KERNELDIR INITRD SCRIPT [run-vm options]: boot, record ok/not ok
vm() {
	local name=$1 kdir=$2 initrd=$3 script=$4 rc
	shift 4
	stage "booting $(basename "$kdir") for $name"
	bash "$ROOT/qemu/run-vm.sh" --kernel "$kdir" --initrd "$initrd" --script "$script" \
		--input "$ROOT/vmcore-tests/guest/common.sh" --out "$T/$name" "$@"
	rc=$?
	if [ $rc = 0 ]; then
		ok "VM run $name: booted, guest script finished ($(tail -1 "$T/$name/qemu.log"))"
	else
		not_ok "VM run $name: failed with status $rc (serial log: $T/$name/serial.log)"
		tail -15 "$T/$name/serial.log" 2>/dev/null | sed 's/^/    /'
	fi
	return $rc
}

# kernel_tarball: the path of the kernel source tarball to unpack (KMP_TARBALL,
# or the base pinned in kernel-patches/base.conf, fetched once by
# qemu/kernel-source.sh), recompressed once with zstd when zstd is there
# (the same files; unpacking xz costs ~10 s of a CPU per tree here, zstd
# ~2 s), kept in build/rig-cache under a key of the pinned package and
# version (or, for KMP_TARBALL, its size and date).  Without zstd, the
# tarball itself.
kernel_tarball() {
	local tb=${KMP_TARBALL:-} id key zt
	if [ -z "$tb" ]; then
		tb=$(bash "$ROOT/qemu/kernel-source.sh" tarball) || return 1
		id="$(bash "$ROOT/qemu/kernel-source.sh" package) $(bash "$ROOT/qemu/kernel-source.sh" version)"
	else
		id=$(stat -L -c '%s %Y' "$tb" 2>/dev/null)
	fi
	if command -v zstd >/dev/null && [ -r "$tb" ]; then
		key=$(echo "$id" | sha256sum | cut -c1-16)
		zt=$B/rig-cache/$(basename "$tb" .tar.xz)-$key.tar.zst
		if [ ! -f "$zt" ]; then
			stage "recompressing $(basename "$tb") with zstd (once: $zt)"
			# Older copies of this tarball only.
			mkdir -p "$B/rig-cache"
			rm -f "$B/rig-cache/$(basename "$tb" .tar.xz)"-*.tar.zst*
			if xz -dc "$tb" | zstd -q -1 -T0 -o "$zt.tmp"; then
				mv "$zt.tmp" "$zt"
			else
				rm -f "$zt.tmp"
			fi
		fi
		[ -f "$zt" ] && tb=$zt
	fi
	echo "$tb"
}

# ctype_tree TARBALL CACHE: the two files of a kernel source tarball that
# analyzer/tests/kernel_ctype.sh compiles (lib/ctype.c,
# include/linux/ctype.h), unpacked once into CACHE/NAME-KEY (KEY: the
# tarball's path, size and time; other keys' copies of NAME removed), and
# that directory's path printed; false when there is no such tarball or
# the files are not in it.  (Unpacking linux-source-X.tar.xz for them costs
# ~10 s of a CPU, each run of the test without this.)
ctype_tree() {
	local tb=$1 cache=$2 d key
	[ -f "$tb" ] || return 1
	key=$(stat -L -c '%n %s %Y' "$tb" | sha256sum | cut -c1-16)
	d=$cache/$(basename "$tb")-$key
	if [ ! -f "$d/lib/ctype.c" ] || [ ! -f "$d/include/linux/ctype.h" ]; then
		rm -rf "$cache/$(basename "$tb")"-*
		mkdir -p "$d.tmp"
		tar -xJf "$tb" -C "$d.tmp" --wildcards --no-wildcards-match-slash \
			'*/lib/ctype.c' '*/include/linux/ctype.h' 2> /dev/null &&
			[ "$(ls "$d.tmp" | wc -l)" = 1 ] && mv "$d.tmp"/* "$d" || { rm -rf "$d.tmp" "$d"; return 1; }
		rm -rf "$d.tmp"
		[ -f "$d/lib/ctype.c" ] && [ -f "$d/include/linux/ctype.h" ] || { rm -rf "$d"; return 1; }
	fi
	echo "$d"
}

# files_hash: a hash of the files named on stdin (NUL-separated, relative
# to the current directory), of their names and contents in name order.
files_hash() {
	LC_ALL=C sort -z | xargs -0 sha256sum -- 2> /dev/null | sha256sum | cut -c1-16
}
