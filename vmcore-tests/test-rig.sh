#!/bin/bash
# The rig's own failure modes: each must fail fast with a message saying
# which, never hang.  A series that does not apply, a config that lost an
# option, a guest script that fails, a VM that hangs, a VM that never boots.
# The two kernel-tree checks and the VM checks are independent and run at
# the same time; their lines are printed in this order when all are done.
# The two trees (1.5 GB each) go to KMP_RIG_SCRATCH, by default a directory
# in /dev/shm when it has 5 GiB free (on this disk writing and removing
# one takes ~30 s, in tmpfs ~6 s), else build/t/rig/scratch.
GROUP=rig
. "$(dirname "$0")/lib.sh"
R=$T/rig
rm -rf "$R"; mkdir -p "$R/patches"
# One scratch directory per clone, emptied at the start (what an
# interrupted run left) and at the end.
S=${KMP_RIG_SCRATCH:-}
if [ -z "$S" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	S=/dev/shm/kmp-rig.$(echo "$ROOT" | sha256sum | cut -c1-8)
	rm -rf "$S"
	[ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt $((5 * 1024 * 1024)) ] || S=
fi
S=${S:-$R/scratch}
rm -rf "$S"; mkdir -p "$S"
trap 'rm -rf "$S"' EXIT
trap 'kill $(jobs -p) 2>/dev/null; wait; exit 130' INT TERM
# Both trees come from the source tarball recompressed once with zstd
# (lib.sh, kernel_tarball).
RIGTAR=$(kernel_tarball)
# The rig's scripts themselves: no pipe ending in grep -q under pipefail.
if out=$($PY "$ROOT/vmcore-tests/lint-pipes.py" "$ROOT" 2>&1); then
	ok "scripts under pipefail: no pipe ends in grep -q (an early exit SIGPIPEs the writer)"
else
	not_ok "scripts under pipefail: pipes ending in grep -q: $(echo "$out" | head -3 | tr '\n' ';')"
fi

# expect_fail NAME STATUS WORDS -- CMD...: CMD exits with STATUS (or, for
# "nonzero", anything but 0) and its stderr contains WORDS (kept in $EF.out
# and $EF.err: EF names the check's files, one per concurrent check)
expect_fail() {
	local name=$1 want=$2 words=$3 rc t0=$SECONDS ef=${EF:-$R/ef}
	shift 4
	"$@" > "$ef.out" 2> "$ef.err"
	rc=$?
	if { [ "$want" = nonzero ] && [ $rc != 0 ]; } || [ "$rc" = "$want" ]; then
		if [ -z "$words" ] || grep -qF -- "$words" "$ef.err"; then
			ok "$name: exit $rc in $((SECONDS - t0)) s${words:+: $(grep -F -- "$words" "$ef.err" | head -1 | cut -c1-100)}"
			return
		fi
	fi
	not_ok "$name: exit $rc (want $want), stderr lacks '$words'"
	sed 's/^/    /' "$ef.err" | tail -8
}

# A fragment asking for an option its dependencies rule out; then the real
# fragment passes the same check (one tree, $S/config).
cp "$ROOT/kernel-patches/kmempool.config" "$R/bad.config"
echo "CONFIG_KVM_AMD=y" >> "$R/bad.config"
config_checks() {
	local EF=$R/config
	expect_fail "a config fragment line that olddefconfig drops" nonzero \
		"config line lost by olddefconfig: CONFIG_KVM_AMD=y" -- \
		env KMP_BUILD="$S/config" KMP_TARBALL="$RIGTAR" KMP_FRAGMENT="$R/bad.config" \
		bash "$ROOT/qemu/build-kernel.sh" default --config-only
	if env KMP_BUILD="$S/config" KMP_TARBALL="$RIGTAR" bash "$ROOT/qemu/build-kernel.sh" default --config-only \
		> "$EF.out" 2> "$EF.err"; then
		ok "the real fragment survives olddefconfig whole"
	else
		not_ok "the real fragment does not configure"; sed 's/^/    /' "$EF.err" | tail -5
	fi
	rm -rf "$S/config"
}

# A series with a patch whose context is not in the tree (another tree, $S/patch).
cp "$ROOT"/kernel-patches/0*.patch "$R/patches/"
cat > "$R/patches/0099-bogus.patch" <<'PATCH'
From: nobody <nobody@example.com>
Subject: [PATCH] bogus

---
--- a/mm/mempool.c
+++ b/mm/mempool.c
@@ -1,3 +1,3 @@
-this line is not in mm/mempool.c
+nor is this one
 and this context is invented
 as is this
PATCH
patch_check() {
	local EF=$R/patch
	expect_fail "a patch that does not apply" nonzero "patch 0099-bogus.patch does not apply" -- \
		env KMP_BUILD="$S/patch" KMP_TARBALL="$RIGTAR" KMP_PATCHES="$R/patches" \
		KMP_FRAGMENT="$ROOT/kernel-patches/kmempool.config" \
		bash "$ROOT/qemu/build-kernel.sh" default --config-only
	rm -rf "$S/patch"
}

# VMs that fail.
echo 'exit 3' > "$R/fail.sh"
echo 'sleep 600' > "$R/hang.sh"
echo 'echo never' > "$R/never.sh"
# A kernel that stops on a stray int3 of its own text patching (as Debian's
# 6.12 did once under TCG): the first boot prints the kernel's words for
# it and reboots at once (sysrq b: QEMU runs with -no-reboot); the second,
# which the scratch disk tells from the first, exits 0.
cat > "$R/int3.sh" <<'SH'
[ "$(dd if=/dev/vdc bs=4 count=1 2>/dev/null)" = seen ] && exit 0
printf seen | dd of=/dev/vdc conv=notrunc,fsync 2>/dev/null
echo '<0>Oops: int3: 0000 [#1] PREEMPT SMP NOPTI (a line of the rig, not of the kernel)' > /dev/kmsg
echo b > /proc/sysrq-trigger
sleep 60
SH
VM=(bash "$ROOT/qemu/run-vm.sh" --kernel "$B/kernel" --initrd "$B/initrd/test.cpio.gz")
vm_checks() {
	local EF=$R/vm
	expect_fail "a guest script that fails: its status comes back" 3 "" -- \
		"${VM[@]}" --script "$R/fail.sh" --out "$R/vm-fail" --timeout 60
	expect_fail "a guest that hangs: stopped at the time limit" 124 "did not finish within 12s" -- \
		"${VM[@]}" --script "$R/hang.sh" --out "$R/vm-hang" --timeout 12
	expect_fail "a kernel that cannot start init: stopped, not hung" 125 \
		"VM stopped before its script finished" -- \
		"${VM[@]}" --script "$R/never.sh" --out "$R/vm-never" --timeout 60 \
		--append "rdinit=/nonexistent"
	expect_fail "a guest kernel stopped once by a stray int3: booted again, the script's status" 0 \
		"stray int3" -- "${VM[@]}" --script "$R/int3.sh" --out "$R/vm-int3" --timeout 120 \
		--scratch 1
}

# The two tree checks' results are kept (build/rig-cache/checks-KEY),
# keyed by what decides them: the tarball, build-kernel.sh and what it
# runs, the fragment and the patches; with the same inputs a rerun
# reports them (saying "cached") instead of unpacking two trees again
# (~60 s of the two CPUs).  KMP_RIG_CACHE=0 runs them every time.
ckey=$( (echo "$RIGTAR"; stat -L -c '%s %Y' "$RIGTAR"
	cat "$ROOT"/qemu/build-kernel.sh "$ROOT"/qemu/kernel-source.sh "$ROOT"/vmcore-tests/lib.sh \
		"$ROOT"/vmcore-tests/test-rig.sh "$ROOT"/kernel-patches/*.config "$R"/patches/*.patch "$R/bad.config") |
	sha256sum | cut -c1-16)
CK=$B/rig-cache/checks-$ckey
cached() {
	local g=$1
	[ "${KMP_RIG_CACHE:-1}" = 1 ] && [ -s "$CK/$g.res" ] || return 1
	sed "s/^ok - .*/& (cached: same tarball, scripts, fragment and patches, key $ckey)/" "$CK/$g.res" > "$R/$g.res"
}
stage "VMs that fail"
pids=()
if ! cached config; then
	stage "configuring with an impossible option (extracts and patches a tree in $S, at the same time)"
	config_checks > "$R/config.res" 2>&1 &
	pids+=($!)
fi
if ! cached patch; then
	stage "applying a series with a patch that does not apply (another tree, at the same time)"
	patch_check > "$R/patch.res" 2>&1 &
	pids+=($!)
fi
vm_checks > "$R/vm.res" 2>&1
for p in "${pids[@]}"; do wait "$p"; done
mkdir -p "$CK"
for g in config patch; do
	# a result is kept only when it passed whole (and was not itself from the cache)
	if ! grep -q '(cached: ' "$R/$g.res" && grep -q '^ok - ' "$R/$g.res" &&
	   ! grep -q '^not ok - ' "$R/$g.res"; then
		grep '^ok - ' "$R/$g.res" | sed 's/ in [0-9]* s: /: /' > "$CK/$g.res"
	fi
done
# Each group's lines in order; a group that printed fewer results than it
# has checks failed without saying why.
for g in config:2 patch:1 vm:4; do
	cat "$R/${g%:*}.res"
	n=$(grep -cE '^(not )?ok - ' "$R/${g%:*}.res")
	[ "$n" = "${g#*:}" ] || not_ok "${g%:*} checks: $n results of ${g#*:} (see $R/${g%:*}.res)"
	fail=$((fail + $(grep -c '^not ok - ' "$R/${g%:*}.res")))
done
[ "$fail" = 0 ]
