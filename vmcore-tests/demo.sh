#!/bin/bash
# make demo: build (cached), boot the patched kernel under QEMU, set up
# dm-crypt and the test module, exhaust a pool until tasks hang; with
# hung_task_timeout_secs=10 and hung_task_panic=1 khungtaskd reports the
# stalled allocations (series 6/11) and panics, kdump captures it (with the
# base suite's makedumpfile, at its dump level); then analyze the vmcore on
# the host and print a triage summary.  Then the same on Debian's own
# kernel (demo-stock.sh), unless --patched is given (make test's readme
# step, which compares README's demo blocks with what this prints).
set -euo pipefail
PATCHED_ONLY=0; [ "${1:-}" = --patched ] && PATCHED_ONLY=1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build D=$B/demo
stage() { echo "==> [demo] $*"; }
stage "building the analyzer, the patched kernel and the initramfs (cached)"
make -s -C "$ROOT" analyzer initrd
rm -rf "$D.in"; mkdir -p "$D.in"
. "$ROOT/qemu/apt-suite.sh"
suite_paths "$(. "$ROOT/kernel-patches/base.conf"; echo "$BASE_SUITE")"
echo "$SUITE_DUMPLEVEL" > "$D.in/dump.level"
echo hang > "$D.in/scenario"
echo "page_min=4 page_order=0" > "$D.in/module.params"
stage "booting $(cat "$B/kernel/release") with crashkernel=128M; dm-crypt, test module, 3 tasks blocked on kmp_test_page;"
stage "waiting for the stall report (10 s), the panic and the kdump capture"
if ! bash "$ROOT/qemu/run-vm.sh" --kernel "$B/kernel" --initrd "$B/initrd/test.cpio.gz" \
	--script "$ROOT/vmcore-tests/guest/kdump.sh" --input "$ROOT/vmcore-tests/guest/common.sh" \
	--input "$D.in/scenario" --input "$D.in/module.params" --input "$D.in/dump.level" \
	--input "$B/kernel/bzImage" \
	--input "$B/initrd/test.cpio.gz" --append "crashkernel=128M" --mem 512 --scratch 256 \
	--timeout 300 --out "$D"; then
	echo "demo: the VM run failed; serial log: $D/serial.log" >&2
	exit 1
fi
# How many of the three tasks khungtaskd reports before it panics depends
# on when its check runs (each waiter leaves its sleep every 5 s): the
# first report and the panic, without the kernel's timestamps.
stage "the kernel's first stall report, and its panic:"
{ grep -m1 -E "INFO: task .* for more than" "$D/serial.log"
  grep -m1 -F "Blocked in mempool_alloc() on pool" "$D/serial.log"
  grep -m1 -F "Kernel panic" "$D/serial.log"; } | sed -E 's/^\[ *[0-9]+\.[0-9]+\] ?//; s/^/    /' || true
read -r _ path < <(/usr/bin/python3 "$ROOT/vmcore-tests/mempool.py" extract "$D")
VMCORE=$D/vmcore
mv "$path" "$VMCORE"
stage "captured $VMCORE ($(( $(stat -c %s "$VMCORE") >> 20 )) MiB, makedumpfile -c -d $SUITE_DUMPLEVEL)"
KMP=$B/analyzer/kmempool VML=$B/kernel/vmlinux
echo
echo "\$ kmempool info -c $VMCORE -s $VML"
"$KMP" info -c "$VMCORE" -s "$VML"
echo
echo "\$ kmempool -c $VMCORE -s $VML"
"$KMP" -c "$VMCORE" -s "$VML"
echo
echo "\$ kmempool waiters -c $VMCORE -s $VML"
"$KMP" waiters -c "$VMCORE" -s "$VML"
echo
stage "triage"
"$KMP" waiters -c "$VMCORE" -s "$VML" -f json > "$D/waiters.json"
"$KMP" -c "$VMCORE" -s "$VML" -f json > "$D/report.json"
/usr/bin/python3 - "$D/waiters.json" "$D/report.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
for e in w["pools"]:
    p = e
    who = ", ".join(f"{t['pid']} {t['comm']} ({t['state']}, {t.get('waited', '?')} s)"
                    for t in e["waiters"])
    state = "is empty" if p["curr_nr"] == 0 else f"has {p['curr_nr']} of {p['min_nr']} left"
    owner = p["owner"] or "built-in code"
    inst = f", device {p['instance']}" if p.get("instance") else ""
    print(f"pool {p['name']} ({p['type']}, {p['elem_size']} bytes, owner {owner}{inst}) {state}: "
          f"{len(e['waiters'])} tasks blocked on it, the longest for {p.get('oldest_wait', '?')} s: "
          f"{who}")
    print(f"  min_nr {p['min_nr']}, {p['from_reserve']} allocations served from the reserve, "
          f"{p['waits']} sleeps on an empty reserve")
dry = [p for p in r["pools"] if p["low_nr"] == 0 and p["waiting"] == 0]
for p in dry:
    print(f"pool {p['name']} ran dry earlier (low_nr 0) but nobody waits on it now")
if not w["pools"]:
    print("no task is waiting on any mempool")
PY
echo
stage "vmcore:  $VMCORE"
stage "vmlinux: $VML"
stage "rerun by hand: $KMP waiters -c $VMCORE -s $VML"
[ $PATCHED_ONLY = 1 ] && exit 0
echo
bash "$ROOT/vmcore-tests/demo-stock.sh"
