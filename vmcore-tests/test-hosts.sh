#!/bin/bash
# kmempool on the Debian releases users run (issue 35 item 1): for each of
# HOST_SUITES (default: trixie sid), in a chroot of that release made from
# the stock rig's debootstrap (build/debian-SUITE/minbase.tar), as a new
# user would on such a host: apt-get install make, `make deps` (qemu/deps.sh
# picks that release's names: clang-N, libclang-rt-N-dev, linux-source-X),
# `make analyzer`, its unit tests (analyzer-check), the fuzz harnesses
# built with that clang and three run 1 s each (that they run: make test's
# fuzz step fuzzes); then the .deb (dpkg-buildpackage -b, from a copy
# without the build folder), its Depends checked against the package that ships the libkdumpfile
# that release has, the .deb installed with apt, and the installed
# kmempool's info, waiters and scan run on a stock dump (the release's own,
# build/t/stock-hang-SUITE from make test-stock SUITE=..., else the first
# other there is; read-only bind mounts) with that release's libraries,
# each printing what the host's build prints.  The chroot with its
# packages is kept (build/debian-SUITE/host, keyed by the suite and
# deps.sh); the source is copied in afresh each run, beside the build
# folder of the last run (make rebuilds what changed: the files keep their
# times), which is kept while the chroot's packages and analyzer/Makefile
# (the flags, which make does not track) are the same.  Every compile
# goes through ccache (the chroot's /var/cache/kmp/ccache, carried over
# when the chroot is made anew; ccache keys an object by the compiler's
# size and time, its arguments and the contents of every file it reads),
# so the .deb's build from scratch and a build folder started anew take
# from it what did not change.  The kernel ctype test of analyzer-check
# reads two files of the release's linux-source tarball, unpacked once
# into /var/cache/kmp/ctype (keyed by the tarball's size and time).
#   vmcore-tests/test-hosts.sh [--build|--run] [SUITE...]
# --build: everything up to the installed .deb; --run: the installed
# kmempool on the stock dumps (after --build; make test runs the build
# early, beside the VM steps, and the run once the trixie dump exists).
GROUP=hosts
. "$(dirname "$0")/lib.sh"
. "$ROOT/qemu/apt-suite.sh"
PHASE=all
case "${1:-}" in --build) PHASE=build; shift ;; --run) PHASE=run; shift ;; esac
SUITES=${*:-${HOST_SUITES:-trixie sid}}
[ "$(id -u)" = 0 ] || { not_ok "needs root (debootstrap, chroot, mount)"; exit 1; }

# in_host R CMD...: CMD in chroot R with /proc mounted and each directory
# of $BINDS ("HOSTDIR:NAME ...") read-only at /NAME (all unmounted however
# CMD ends); cc, gcc and clang-N are ccache's there once make deps has
# installed it (ccache_links).
CCACHE_LINKS=/usr/local/lib/kmp-ccache
in_host() {
	local r=$1
	shift
	(
		mounted=()
		trap 'for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}"; done' EXIT
		trap 'exit 143' INT TERM HUP
		mount -t proc proc "$r/proc" && mounted+=("$r/proc") || exit 1
		for b in ${BINDS:-}; do
			mkdir -p "$r/${b##*:}"
			mount --bind "${b%:*}" "$r/${b##*:}" && mounted+=("$r/${b##*:}") || exit 1
			mount -o remount,bind,ro "$r/${b##*:}" || exit 1
		done
		chroot "$r" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			CCACHE_DIR=/var/cache/kmp/ccache CCACHE_MAXSIZE=2G \
			PATH=$CCACHE_LINKS:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
	)
}

# ccache_links R: cc, gcc and each clang-N of chroot R as links to its
# ccache, in CCACHE_LINKS (first in in_host's PATH); none without ccache.
ccache_links() {
	local r=$1 c
	rm -rf "${r:?}$CCACHE_LINKS"
	[ -x "$r/usr/bin/ccache" ] || return 0
	mkdir -p "$r$CCACHE_LINKS"
	for c in cc gcc $(cd "$r/usr/bin" && ls clang-[0-9]* 2> /dev/null); do
		[ -L "$r/usr/bin/$c" ] || [ -f "$r/usr/bin/$c" ] && ln -s /usr/bin/ccache "$r$CCACHE_LINKS/$c"
	done
	return 0
}

# ccache_hits R: "ccache: H of N compiles cached" since the last ccache -z in R.
ccache_hits() {
	in_host "$1" ccache --print-stats 2> /dev/null | awk -F '\t' '
		$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } $1 == "cache_miss" { m += $2 }
		END { if (h + m) printf "ccache: %d of %d compiles cached", h, h + m; else printf "no ccache" }'
}

one() {
	local s=$1 R L key t0 rel ver dep want got n
	suite_paths "$s" || { not_ok "$s: unknown suite"; return; }
	R=$SUITE_D/host L=$SUITE_D/host-logs
	mkdir -p "$L"
	[ "$PHASE" = run ] || build_one "$s" "$R" "$L" || return
	[ "$PHASE" = build ] || run_one "$s" "$R" "$L"
}

# build_one SUITE R L: the chroot, make deps, the analyzer, its tests, the
# .deb installed; false when a later step cannot go on.
build_one() {
	local s=$1 R=$2 L=$3 key t0 rel ver dep want pk ct
	rm -f "$L/installed.sha256"
	if [ ! -f "$SUITE_D/minbase.tar" ]; then
		stage "$s: debootstrap (once, shared with the stock rig's chroot)"
		suite_minbase "$s" || { not_ok "$s: debootstrap failed"; return 1; }
	fi
	key=$( (echo "$s"; cat "$ROOT/qemu/deps.sh") | sha256sum | cut -c1-16)
	t0=$(date +%s)
	if [ "$(cat "$R/.kmp-key" 2>/dev/null)" != "$key" ]; then
		suite_root_busy "$R" && { not_ok "$s: something is mounted below $R"; return 1; }
		# The caches (ccache, the ctype files) go to the new chroot: keyed by their inputs.
		rm -rf "$SUITE_D/host-cache.keep"
		[ -d "$R/var/cache/kmp" ] && mv "$R/var/cache/kmp" "$SUITE_D/host-cache.keep"
		rm -rf "$R"; mkdir -p "$R"
		tar -C "$R" -xf "$SUITE_D/minbase.tar"
		mkdir -p "$R/var/cache"
		[ -d "$SUITE_D/host-cache.keep" ] && mv "$SUITE_D/host-cache.keep" "$R/var/cache/kmp"
		mkdir -p "$R/etc/dpkg/dpkg.cfg.d"
		echo force-unsafe-io > "$R/etc/dpkg/dpkg.cfg.d/kmp-unsafe-io"
		cp /etc/resolv.conf "$R/etc/resolv.conf"
		echo 'Acquire::Check-Valid-Until "false";' > "$R/etc/apt/apt.conf.d/99kmp-valid-until"
		stage "$s: apt-get install make, then make deps (a new host's first steps)"
		if in_host "$R" sh -c 'apt-get update -q && apt-get install -y -q --no-install-recommends make' \
			> "$L/make.log" 2>&1; then
			:
		else
			not_ok "$s: apt-get install make failed ($L/make.log)"; return 1
		fi
	fi
	# The source afresh, the last run's build folder kept (see the top).
	mkdir -p "$R/src"
	find "$R/src" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
	(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - --no-recursion) |
		tar -C "$R/src" -xf -
	if in_host "$R" make -C /src deps > "$L/deps.log" 2>&1; then
		echo "$key" > "$R/.kmp-key"
		ok "$s: make deps installs by this release's names ($(grep -o 'installing: .*' "$L/deps.log" | grep -oE '(clang|libclang-rt|linux-source)-[0-9.]+(-dev)?' | tr '\n' ' ')$(grep -c 'note:' "$L/deps.log") notes; $(( $(date +%s) - t0 )) s)"
	else
		not_ok "$s: make deps failed ($L/deps.log: $( (grep -m3 -E '^(E:|deps:)' "$L/deps.log" || tail -2 "$L/deps.log") | tr '\n' ' '))"
		return 1
	fi
	ccache_links "$R"
	# The kept build folder only over the same packages (sid moves: a new
	# library's headers mean a build from scratch) and the same
	# analyzer/Makefile (make does not rebuild what a changed flag changes;
	# ccache has what did not change).
	pk=$( (in_host "$R" dpkg-query -W -f='${Package} ${Version}\n'; cat "$R/src/analyzer/Makefile") |
		sha256sum | cut -c1-16)
	if [ "$(cat "$R/.kmp-pkgs" 2>/dev/null)" != "$pk" ]; then
		rm -rf "$R/src/build"
		echo "$pk" > "$R/.kmp-pkgs"
	fi
	rel=$(. "$R/etc/os-release"; echo "${VERSION_CODENAME:-$s}")
	ver=$(in_host "$R" dpkg-query -W -f='${Version}' libkdumpfile-dev)
	# What follows passed whole once is kept (SUITE_D/host-results/KEY),
	# keyed by everything that decides it: the chroot's packages (pk) and
	# the files the build, the tests and the package are made of; with the
	# same key, and the .deb of that run still installed, a rerun reports
	# its lines (saying "cached") instead of building all again (~130 s of
	# CPU a release).  KMP_HOSTS_CACHE=0 builds every time.
	rk=$( (echo "$pk"; cd "$ROOT" && git ls-files -z analyzer debian Makefile qemu/deps.sh \
		vmcore-tests/test-hosts.sh vmcore-tests/lib.sh | files_hash) | sha256sum | cut -c1-16)
	rc=$SUITE_D/host-results/$rk
	if [ "${KMP_HOSTS_CACHE:-1}" = 1 ] && [ -s "$rc/ok" ] && [ -s "$rc/installed.sha256" ] &&
	   [ "$(in_host "$R" sh -c 'sha256sum < /usr/bin/kmempool' 2>/dev/null)" = "$(cat "$rc/installed.sha256")" ]; then
		while IFS= read -r line; do
			ok "$line (cached: same packages and files, key $rk)"
		done < "$rc/ok"
		cp "$rc/installed.sha256" "$L/installed.sha256"
		return 0
	fi
	f0=$fail
	: > "$L/ok.new"
	t0=$(date +%s)
	if in_host "$R" make -C /src analyzer > "$L/analyzer.log" 2>&1 &&
	   in_host "$R" /src/build/analyzer/kmempool --version > "$L/version.out" 2>&1; then
		kok "$s: make analyzer builds against libkdumpfile $ver ($(( $(date +%s) - t0 )) s; $(head -1 "$L/version.out"))"
	else
		not_ok "$s: make analyzer against libkdumpfile $ver failed ($L/analyzer.log: $(grep -m3 -E 'error|Error' "$L/analyzer.log" | tr '\n' ' '))"
		return 1
	fi
	# The unit tests against this release's libraries (ASan+UBSan); the
	# kernel ctype test on the two files of the release's linux-source
	# tarball, the one it would unpack for them (see the top).
	ct=$(ls -v "$R"/usr/src/linux-source-*.tar.xz 2>/dev/null | tail -1)
	ct=$(ctype_tree "$ct" "$R/var/cache/kmp/ctype") && ct=KMP_KERNEL_SRC=${ct#"$R"} || ct=
	if in_host "$R" env $ct make -s -C /src analyzer-check > "$L/check.log" 2>&1; then
		kok "$s: make analyzer-check passes ($(grep -c '^ok - ' "$L/check.log") ok lines)"
	else
		not_ok "$s: make analyzer-check: $(grep -c '^not ok' "$L/check.log") not ok ($L/check.log: $(grep -m2 '^not ok' "$L/check.log" | tr '\n' ' '))"
	fi
	# The libFuzzer harnesses with the release's clang and runtime (make deps): all
	# built (the Makefile's clang: clang, else the newest clang-N; through
	# ccache), three of them run 1 s each from their corpus: they start and
	# run on this release (make test's fuzz step does the fuzzing, 6 s each).
	if in_host "$R" sh -c 'c=$(command -v clang || ls /usr/bin/clang-[0-9]* | sort -V | tail -1)
			command -v ccache > /dev/null && c="ccache $c"
			make -s -C /src/analyzer O=/src/build/analyzer FUZZ_CC="$c" fuzz-build &&
			FUZZ_JOBS=1 bash /src/analyzer/fuzz/run.sh /src/build/analyzer/fuzz 1 \
			fuzz_kobjs fuzz_diskdump fuzz_flat' > "$L/fuzz.log" 2>&1 &&
	   [ "$(grep -c '^ok - fuzz: ' "$L/fuzz.log")" = 3 ]; then
		kok "$s: the fuzz harnesses build with $(in_host "$R" sh -c 'ls /usr/bin/clang-[0-9]* | sort -V | tail -1' | xargs basename) and three run 1 s each ($(grep -oE 'fuzz_[a-z]+ [0-9]+ execs' "$L/fuzz.log" | sed 's/ execs//' | paste -sd, - | sed 's/,/, /g') execs)"
	else
		not_ok "$s: fuzz harnesses ($L/fuzz.log: $(grep -m2 -E 'not ok|rror' "$L/fuzz.log" | tr '\n' ' '))"
	fi
	# The package, its dependency on this release's libkdumpfile, installed with apt.
	t0=$(date +%s)
	rm -rf "$R/deb"; mkdir -p "$R/deb/kmempool"
	if find "$R/src" -mindepth 1 -maxdepth 1 ! -name build -exec cp -a -t "$R/deb/kmempool" {} + &&
	   in_host "$R" sh -c 'ccache -z > /dev/null 2>&1; cd /deb/kmempool && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b' \
		> "$L/deb.log" 2>&1; then
		kok "$s: dpkg-buildpackage -b ($(( $(date +%s) - t0 )) s; $(ccache_hits "$R"))"
	else
		not_ok "$s: dpkg-buildpackage failed ($L/deb.log: $(tail -3 "$L/deb.log" | tr '\n' ' '))"
		return 1
	fi
	dep=$(in_host "$R" sh -c 'dpkg-deb -f /deb/kmempool_*.deb Depends')
	want=$(in_host "$R" sh -c 'dpkg -S "$(readlink -f /usr/lib/x86_64-linux-gnu/libkdumpfile.so)" | cut -d: -f1')
	if [ -n "$want" ] && printf '%s\n' "$dep" | tr ',' '\n' | grep -E "^ *$want \(>= [0-9]" > /dev/null; then
		kok "$s: the .deb depends on $want, the package of the libkdumpfile it loads ($(printf '%s' "$dep" | tr ',' '\n' | grep -E "^ *$want" | sed 's/^ *//'))"
	else
		not_ok "$s: the .deb's Depends ($dep) does not name $want"
	fi
	# The chroot is kept from run to run: the last run's kmempool, of the
	# same version, would stay installed (apt keeps a version it has), so it
	# is removed first, and the installed binary must be this .deb's.
	if in_host "$R" sh -c 'dpkg -r kmempool > /dev/null 2>&1; apt-get install -y -q --no-install-recommends /deb/kmempool_*.deb' \
		> "$L/install.log" 2>&1 && in_host "$R" test -x /usr/bin/kmempool &&
	   [ "$(in_host "$R" sh -c 'dpkg-deb --fsys-tarfile /deb/kmempool_*.deb | tar -xOf - ./usr/bin/kmempool | sha256sum')" = \
	     "$(in_host "$R" sh -c 'sha256sum < /usr/bin/kmempool')" ]; then
		kok "$s: the .deb installs with apt, its binary in /usr/bin ($(in_host "$R" dpkg-query -W -f='${Package} ${Version}' kmempool))"
	else
		not_ok "$s: apt-get install of the .deb failed ($L/install.log)"
		return 1
	fi
	in_host "$R" sh -c 'sha256sum < /usr/bin/kmempool' > "$L/installed.sha256"
	if [ "$fail" = "$f0" ]; then
		rm -rf "$SUITE_D/host-results"; mkdir -p "$rc"
		cp "$L/installed.sha256" "$rc/installed.sha256" && mv "$L/ok.new" "$rc/ok"
	fi
}

# kok LINE: ok, and LINE kept for the build phase's result (build_one).
kok() {
	ok "$@"
	printf '%s\n' "$*" >> "$L/ok.new"
}

# run_one SUITE R L: the installed kmempool on a stock dump (the release's
# own if there is one, else the first other there is), with this release's
# libraries: exit 0 and the very output of the host's build on the same
# dump; the kmempool this run's build phase installed.
run_one() {
	local s=$1 R=$2 L=$3 d

	if [ ! -s "$L/installed.sha256" ] ||
	   [ "$(in_host "$R" sh -c 'sha256sum < /usr/bin/kmempool' 2>/dev/null)" != "$(cat "$L/installed.sha256")" ]; then
		not_ok "$s: no kmempool installed by this run's build phase (test-hosts.sh --build)"
		return
	fi
	for d in "$s" $KMP_ALL_SUITES; do
		dumps "$R" "$s" "$d" && return
	done
	not_ok "$s: no stock dump to read (make test-stock [SUITE=...] first)"
}

# dumps R SUITE DSUITE: the installed kmempool of chroot R (release SUITE)
# on DSUITE's stock dumps; false if there are none.
dumps() {
	local r=$1 s=$2 ds=$3 dir z cmd base rc hrc
	suite_paths "$ds" || return 1
	dir=$T/$SUITE_T
	[ -f "$SUITE_K/vmlinux" ] && [ -f "$SUITE_MOD/kmp_stock.ko" ] || return 1
	z=
	for f in "$dir"/dump-zlib "$dir"/dump-flat "$dir"/dump-*; do
		[ -f "$f" ] && head -c 16 "$f" | grep -aE '^(.ELF|KDUMP|makedumpfile)' > /dev/null && { z=$f; break; }
	done
	[ -n "$z" ] || return 1
	base=$(basename "$z")
	for cmd in info waiters scan; do
		BINDS="$dir:stock $SUITE_K:kernel $SUITE_MOD:mod" in_host "$r" \
			kmempool $cmd -c "/stock/$base" -s /kernel/vmlinux -M /mod/kmp_stock.ko \
			> "$T/hosts-$s-$ds-$cmd.out" 2> "$T/hosts-$s-$ds-$cmd.err"
		rc=$?
		"$B/analyzer/kmempool" $cmd -c "$z" -s "$SUITE_K/vmlinux" -M "$SUITE_MOD/kmp_stock.ko" \
			> "$T/hosts-host-$ds-$cmd.out" 2> /dev/null
		hrc=$?
		# info names the files it read: the chroot's paths differ.
		sed -i "s#/stock/#$dir/#g; s#/kernel/#$SUITE_K/#g; s#/mod/#$SUITE_MOD/#g" "$T/hosts-$s-$ds-$cmd.out"
		if [ $rc = 0 ] && [ $hrc = 0 ] && [ -s "$T/hosts-$s-$ds-$cmd.out" ] &&
		   cmp -s "$T/hosts-$s-$ds-$cmd.out" "$T/hosts-host-$ds-$cmd.out"; then
			ok "$s: the installed kmempool $cmd on $ds's $base: exit 0, the host build's $(wc -l < "$T/hosts-$s-$ds-$cmd.out") lines"
		else
			not_ok "$s: kmempool $cmd on $ds's $base: exit $rc (host $hrc), $(diff "$T/hosts-host-$ds-$cmd.out" "$T/hosts-$s-$ds-$cmd.out" | head -3 | tr '\n' ' ') $(head -2 "$T/hosts-$s-$ds-$cmd.err" | tr '\n' ' ')"
		fi
	done
	return 0
}

for s in $SUITES; do
	one "$s"
done
echo "$pass passed, $fail failed" >&2
[ "$fail" = 0 ]
