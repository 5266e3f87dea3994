#!/bin/bash
# One place for the stock rig's per-suite facts (Debian's own kernels of
# bullseye, bookworm, trixie, sid), sourced by its scripts (bash):
#
#   archive_uri          the package archive's URI, read at run time from the
#                        host's apt sources (never written in the repository)
#   suite_paths SUITE    sets SUITE_D (build/debian for bookworm, else
#                        build/debian-SUITE), SUITE_K (its kernel/ dir),
#                        SUITE_EXT2 (vmlinux.ext2), SUITE_MOD (the stock
#                        module's dir), SUITE_INITRD, SUITE_T (the test's
#                        output name under build/t), SUITE_ROOT (the suite's
#                        chroot; empty when the host is that suite),
#                        SUITE_CPU (QEMU -cpu model; empty: QEMU's default),
#                        SUITE_DUMPLEVEL (makedumpfile -d in the capture kernel)
#   suite_apt SUITE ARGS apt-get with a private configuration for SUITE
#                        under build/apt/SUITE (the host's apt is not used)
#
# Run as a command: qemu/apt-suite.sh uri | paths SUITE | apt SUITE ARGS...
KMP_ROOT=${KMP_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
KMP_B=${KMP_BUILD:-$KMP_ROOT/build}
KMP_ALL_SUITES="bullseye bookworm trixie sid"

host_codename() {
	(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-bookworm}")
}

# The URI of the host's main archive: the URIs: line of the deb822 entry
# whose Suites name the host's release itself (not -updates, -security), or
# the matching line of /etc/apt/sources.list.
archive_uri() {
	local code uri f
	code=$(host_codename)
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		uri=$(awk -v s="$code" '
			function flush() { if (deb && hit && u != "" && out == "") out = u
					   deb = 0; hit = 0; u = "" }
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			tolower($1) == "uris:" { u = $2 }
			tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == s) hit = 1 }
			END { flush(); print out }' "$f")
		[ -n "$uri" ] && { echo "${uri%/}"; return 0; }
	done
	if [ -r /etc/apt/sources.list ]; then
		uri=$(awk -v s="$code" '$1 == "deb" {
				i = 2; if ($i ~ /^\[/) while ($i !~ /\]$/) i++
				if ($i ~ /^\[/ || $i ~ /\]$/) i++
				if ($(i + 1) == s) { print $i; exit } }' /etc/apt/sources.list)
		[ -n "$uri" ] && { echo "${uri%/}"; return 0; }
	fi
	echo "apt-suite: no '$code' entry in the host's apt sources" >&2
	return 1
}

suite_paths() {
	local s=$1
	case " $KMP_ALL_SUITES " in *" $s "*) ;;
	*) echo "apt-suite: unknown suite '$s' (one of: $KMP_ALL_SUITES)" >&2; return 1 ;; esac
	if [ "$s" = bookworm ]; then
		SUITE_D=$KMP_B/debian SUITE_MOD=$KMP_B/module-stock
		SUITE_INITRD=$KMP_B/initrd/stock.cpio.gz SUITE_T=stock-hang
	else
		SUITE_D=$KMP_B/debian-$s SUITE_MOD=$KMP_B/module-stock-$s
		SUITE_INITRD=$KMP_B/initrd/stock-$s.cpio.gz SUITE_T=stock-hang-$s
	fi
	SUITE_K=$SUITE_D/kernel
	SUITE_EXT2=$SUITE_D/vmlinux.ext2
	# The host's own suite uses the host (its headers, makedumpfile, drgn).
	if [ "$s" = "$(host_codename)" ]; then SUITE_ROOT=; else SUITE_ROOT=$SUITE_D/chroot; fi
	# Debian's 7.2 oopses at boot under TCG with QEMU's default CPU model.
	case $s in sid) SUITE_CPU=max ;; *) SUITE_CPU= ;; esac
	# makedumpfile's -d of the capture kernel: 31 as kdump-tools writes,
	# but sid's makedumpfile 1.7.8 takes 7.2's slab pages for user pages
	# (-d 8 drops signal_structs, module structures...): 23 there.
	case $s in sid) SUITE_DUMPLEVEL=23 ;; *) SUITE_DUMPLEVEL=31 ;; esac
}

# suite_apt SUITE ARGS...: apt-get on SUITE's package lists only: one
# sources.list line "deb URI SUITE main", its own lists, cache and an empty
# dpkg status, no host sources or preferences (the empty directory "none"
# stands for "no parts": "-" works too but apt warns about it).  The binary
# caches are named: this image's apt.conf.d may switch them off, and then
# every apt-cache call parses the lists again (1.5 s instead of 0.2 s).
# sid's Release file on the archive may be past its Valid-Until: not
# checked.
suite_apt_opts() {
	local d=$KMP_B/apt/$1
	APT_OPTS=(-o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts="$d/none"
		-o Dir::Etc::preferences=/dev/null -o Dir::Etc::preferencesparts="$d/none"
		-o Dir::State::Lists="$d/lists" -o Dir::State::status="$d/status"
		-o Dir::Cache="$d/cache" -o Dir::Cache::pkgcache="$d/cache/pkgcache.bin"
		-o Dir::Cache::srcpkgcache="$d/cache/srcpkgcache.bin"
		-o Acquire::Check-Valid-Until=false)
}
# One apt run per suite configuration at a time (make test's lanes may
# both want a suite's packages): a lock beside its lists.
suite_apt() {
	local s=$1 d uri
	shift
	d=$KMP_B/apt/$s
	uri=$(archive_uri) || return 1
	mkdir -p "$d"
	(
	flock 9 || exit 1
	if [ "$(cat "$d/sources.list" 2>/dev/null)" != "deb $uri $s main" ]; then
		mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/none"
		: > "$d/status"
		echo "deb $uri $s main" > "$d/sources.list.tmp"
		mv "$d/sources.list.tmp" "$d/sources.list"
	fi
	suite_apt_opts "$s"
	apt-get -q "${APT_OPTS[@]}" -o APT::Get::List-Cleanup=false \
		-o APT::Sandbox::User=root "$@"
	) 9> "$d.lock"
}
# suite_apt_cache SUITE ARGS...: apt-cache on the same configuration.
suite_apt_cache() {
	suite_apt_opts "$1"
	shift
	apt-cache "${APT_OPTS[@]}" "$@"
}

# in_suite_root DIR CMD...: CMD inside the chroot DIR with a clean
# environment and /proc mounted for it (apt, and 7.2's objtool, read it);
# /proc is unmounted again however CMD ends (also on INT/TERM/HUP).
in_suite_root() {
	local r=$1
	shift
	(
		m=0
		trap '[ $m = 0 ] || umount "$r/proc"' EXIT
		trap 'exit 143' INT TERM HUP
		mount -t proc proc "$r/proc" && m=1 || exit 1
		chroot "$r" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
	)
}
# suite_minbase SUITE: `debootstrap --variant=minbase SUITE` once, kept as
# SUITE_D/minbase.tar (the stock rig's chroot and the hosts test start from it).
suite_minbase() {
	local s=$1 uri base
	suite_paths "$s" || return 1
	base=$SUITE_D/minbase.tar
	[ -f "$base" ] && return 0
	mkdir -p "$SUITE_D"
	# one debootstrap of a suite at a time (the stock rig and the hosts
	# test may both want it first): the second waits, then finds the tar
	(
	flock 9 || exit 1
	[ -f "$base" ] && exit 0
	uri=$(archive_uri) || exit 1
	suite_root_busy "$SUITE_D/minbase.d" && exit 1
	rm -rf "$SUITE_D/minbase.d"
	# dpkg without an fsync per file (the chroots are throw-away build
	# trees): debootstrap's unpacking took 107 s with them, 91 s without.
	mkdir -p "$SUITE_D/minbase.d/etc/dpkg/dpkg.cfg.d"
	echo force-unsafe-io > "$SUITE_D/minbase.d/etc/dpkg/dpkg.cfg.d/kmp-unsafe-io"
	debootstrap --variant=minbase "$s" "$SUITE_D/minbase.d" "$uri" > "$SUITE_D/debootstrap.log" 2>&1 ||
		{ tail -5 "$SUITE_D/debootstrap.log" >&2; exit 1; }
	tar -C "$SUITE_D/minbase.d" -cf "$base.tmp" . && mv "$base.tmp" "$base" && rm -rf "$SUITE_D/minbase.d"
	) 9> "$SUITE_D/minbase.lock"
}
# suite_root_busy DIR: something is mounted below DIR (never rm -rf it then)
suite_root_busy() {
	awk -v r="$1/" 'index($2 "/", r) == 1 { f = 1 } END { exit !f }' /proc/self/mounts
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	case "${1:-}" in
	uri) archive_uri ;;
	paths) suite_paths "$2"; for v in SUITE_D SUITE_K SUITE_EXT2 SUITE_MOD SUITE_INITRD \
		SUITE_T SUITE_ROOT SUITE_CPU SUITE_DUMPLEVEL; do echo "$v=${!v}"; done ;;
	apt) s=$2; shift 2; suite_apt "$s" "$@" ;;
	*) echo "usage: $0 uri | paths SUITE | apt SUITE APT-GET-ARGS..." >&2; exit 2 ;;
	esac
fi
