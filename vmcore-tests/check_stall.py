#!/usr/bin/env python3
"""Checks of guest/stall.sh's output (the stall report, series 5-6/11)."""
import re
import sys

out = sys.argv[1]
passed = failed = 0


def f(name):
    try:
        with open(f"{out}/{name}", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def check(ok, what):
    global passed, failed
    print(("ok - " if ok else "not ok - ") + "stall: " + what)
    if ok:
        passed += 1
    else:
        failed += 1


dm = f("dmesg")
check(f("insmod.rc").strip() == "0", "the test module loads")
reports = re.findall(r"INFO: task kmp_stalled:\d+ blocked in mempool_alloc\(\) "
                     r"for more than (\d+) seconds\.", dm)
check(len(reports) == 1, f"khungtaskd reports the stalled allocation exactly once ({len(reports)})")
check(bool(reports) and int(reports[0]) >= 4, "after at least hung_task_timeout_secs (4 s)")
check(re.search(r"pool kmp_stall \(\S*kmp_stall\.c:\d+, kmp_stall\), instance test0: "
                r"0 of 1 reserved elements left, 0 other task\(s\) waiting", dm) is not None,
      "the report names the pool, its site, module, instance and reserve")
check(f("detect-count").strip() not in ("", "0"), "hung_task_detect_count counts it")
stall = f("proc-stall").splitlines()
check(len(stall) > 2 and stall[0] == "mempool - version: 1.0" and stall[1].startswith("# name"),
      "/proc/mempool starts with version 1.0 and its column line")
row = [line.split() for line in stall if line.startswith("kmp_stall ")]
cols = stall[1][2:].split() if len(stall) > 1 else []
if row and len(row[0]) == len(cols):
    r = dict(zip(cols, row[0]))
    check(r["curr_nr"] == "0" and r["waiting"] == "1" and r["waits"] == "1"
          and r["emptied"] == "1" and r["owner"] == "kmp_stall" and r["instance"] == "test0"
          and int(r["oldest_wait"]) >= 8 and r["type"] == "private",
          "the stalled pool's line: empty, one waiter waiting >= 8 s, owner, instance")
else:
    check(False, "the stalled pool's line is in /proc/mempool with every column")
check(any(line.startswith("kmalloc_pool") or "kmp_stall.c" in line for line in stall
          if line.split()[:1] == ["kmp_init"]), "an unnamed pool is named after its function (kmp_init)")
check(f("rmmod.rc").strip() == "0", "the module unloads")
check("mempool: module kmp_stall unloads with 1 pool(s) not exited" in dm,
      "unloading with a pool still listed warns once, naming the module")
after = f("proc-after")
check(f("proc-after.rc").strip() == "0" and "kmp_stall" not in after and after.startswith("mempool - version: 1.0"),
      "/proc/mempool reads cleanly afterwards, without the module's pools")
check("BUG:" not in dm and "KASAN" not in dm and "Oops" not in dm, "no BUG, KASAN report or oops")
print(f"stall: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
