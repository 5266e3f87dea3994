#!/bin/bash
# The rig's own failure modes: each must fail fast with a message saying
# which, never hang.  A series that does not apply, a config that lost an
# option, a guest script that fails, a VM that hangs, a VM that never boots.
GROUP=rig
. "$(dirname "$0")/lib.sh"
R=$T/rig
rm -rf "$R"; mkdir -p "$R/patches"

# expect_fail NAME STATUS WORDS -- CMD...: CMD exits with STATUS (or, for
# "nonzero", anything but 0) and its stderr contains WORDS
expect_fail() {
	local name=$1 want=$2 words=$3 rc t0=$SECONDS
	shift 4
	"$@" > "$R/out" 2> "$R/err"
	rc=$?
	if { [ "$want" = nonzero ] && [ $rc != 0 ]; } || [ "$rc" = "$want" ]; then
		if [ -z "$words" ] || grep -qF -- "$words" "$R/err"; then
			ok "$name: exit $rc in $((SECONDS - t0)) s${words:+: $(grep -F -- "$words" "$R/err" | head -1 | cut -c1-100)}"
			return
		fi
	fi
	not_ok "$name: exit $rc (want $want), stderr lacks '$words'"
	sed 's/^/    /' "$R/err" | tail -8
}

# A fragment asking for an option its dependencies rule out.
cp "$ROOT/kernel-patches/kmempool.config" "$R/bad.config"
echo "CONFIG_KVM_AMD=y" >> "$R/bad.config"
stage "configuring with an impossible option (extracts and patches a tree)"
expect_fail "a config fragment line that olddefconfig drops" nonzero \
	"config line lost by olddefconfig: CONFIG_KVM_AMD=y" -- \
	env KMP_BUILD="$R/build" KMP_FRAGMENT="$R/bad.config" \
	bash "$ROOT/qemu/build-kernel.sh" default --config-only
# The real fragment passes the same check.
if env KMP_BUILD="$R/build" bash "$ROOT/qemu/build-kernel.sh" default --config-only \
	> "$R/out" 2> "$R/err"; then
	ok "the real fragment survives olddefconfig whole"
else
	not_ok "the real fragment does not configure"; sed 's/^/    /' "$R/err" | tail -5
fi

# A series with a patch whose context is not in the tree.
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
stage "applying a series with a patch that does not apply"
expect_fail "a patch that does not apply" nonzero "patch 0099-bogus.patch does not apply" -- \
	env KMP_BUILD="$R/build" KMP_PATCHES="$R/patches" \
	KMP_FRAGMENT="$ROOT/kernel-patches/kmempool.config" \
	bash "$ROOT/qemu/build-kernel.sh" default --config-only
rm -rf "$R/build"

# VMs that fail.
echo 'exit 3' > "$R/fail.sh"
echo 'sleep 600' > "$R/hang.sh"
echo 'echo never' > "$R/never.sh"
VM=(bash "$ROOT/qemu/run-vm.sh" --kernel "$B/kernel" --initrd "$B/initrd/test.cpio.gz")
expect_fail "a guest script that fails: its status comes back" 3 "" -- \
	"${VM[@]}" --script "$R/fail.sh" --out "$R/vm-fail" --timeout 60
expect_fail "a guest that hangs: stopped at the time limit" 124 "did not finish within 20s" -- \
	"${VM[@]}" --script "$R/hang.sh" --out "$R/vm-hang" --timeout 20
expect_fail "a kernel that cannot start init: stopped, not hung" 125 \
	"VM stopped before its script finished" -- \
	"${VM[@]}" --script "$R/never.sh" --out "$R/vm-never" --timeout 60 \
	--append "rdinit=/nonexistent"
[ "$fail" = 0 ]
