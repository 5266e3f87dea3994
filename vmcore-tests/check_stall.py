#!/usr/bin/env python3
"""Checks of guest/stall.sh's output (the stall report, series v7 1/12 and 7/12,
and kmempool on it)."""
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
# Upstream's first line, byte for byte (the sleep is an I/O wait), with the
# time since the allocation first slept; the pool on a line of its own.
REPORT = re.compile(r"^\[\s*(\d+\.\d+)\] INFO: task kmp_stalled:\d+ blocked in I/O wait "
                    r"for more than (\d+) seconds\.$", re.M)
reports = [(float(t), int(n)) for t, n in REPORT.findall(dm)]
POOL = re.compile(r"^\[\s*\d+\.\d+\]       Blocked in mempool_alloc\(\) on pool kmp_stall, "
                  r"instance test0, set up at \S*kmp_stall\.c:\d+ \[kmp_stall\] kmp_init: "
                  r"0 of 1 reserved elements left, 1 allocation\(s\) sleeping on it$", re.M)
pools = POOL.findall(dm)
check(len(reports) >= 1, f"khungtaskd reports the stalled allocation with upstream's first line "
      f"({len(reports)} report(s))")
check(bool(reports) and reports[0][1] >= 4, "after at least hung_task_timeout_secs (4 s)")
gaps = [b[0] - a[0] for a, b in zip(reports, reports[1:])]
check(all(g >= 0.5 for g in gaps) and all(b[1] >= a[1] for a, b in zip(reports, reports[1:])),
      f"at most once per check interval (1 s), the wait growing: gaps {[round(g, 1) for g in gaps]}")
check(len(pools) == len(reports) and len(reports) > 0,
      f"each report names the pool on its own line: name, instance, site, module, function, "
      f"reserve, sleepers ({len(pools)} of {len(reports)})")
check(f("detect-count").strip() not in ("", "0"), "hung_task_detect_count counts it")
stall = f("proc-stall").splitlines()
check(len(stall) > 2 and stall[0] == "mempool - version: 1.1" and stall[1].startswith("# name"),
      "/proc/mempool starts with version 1.1 and its column line")
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
check(len(re.findall(r"mempool: module kmp_stall unloads with pool kmp_init set up at "
                      r"\S*kmp_stall\.c:\d+ not exited$", dm, re.M)) == 1
      and "WARNING:" not in dm,
      "unloading with a pool still listed warns once (pr_warn, not WARN), naming the module "
      "and the pool's site")
after = f("proc-after")
check(f("proc-after.rc").strip() == "0" and "kmp_stall" not in after and after.startswith("mempool - version: 1.1"),
      "/proc/mempool reads cleanly afterwards, without the module's pools")
check("BUG:" not in dm and "KASAN" not in dm and "Oops" not in dm, "no BUG, KASAN report or oops")

# kmempool on /proc/kcore (the analyzer reading series v6 from memory).
KMP = len(sys.argv) > 2 and sys.argv[2] == "--kmempool"


def same(name, what):
    tries = f(f"{name}.tries").strip()
    check(f(f"{name}-kmp.rc").strip() == "0" and f(f"{name}.cmp.rc").strip() == "0"
          and f(f"{name}-kmp") == f(f"{name}-proc") and f(f"{name}-proc").startswith("mempool - version: 1.1\n"),
          f"kmempool on /proc/kcore prints /proc/mempool byte for byte {what} "
          f"({len(f(name + '-proc').splitlines())} lines, try {tries or '?'} of 5; "
          f"rc {f(name + '-kmp.rc').strip() or '?'}, {f(name + '.cmp').strip() or 'cmp: same'}"
          f"{'; ' + f(name + '-kmp.err').strip()[:300] if f(name + '-kmp.err').strip() else ''})")


if KMP:
    import json
    same("kmp-before", "before the stall")
    same("kmp-stall", "during the stall (a waiter, curr_nr 0, oldest_wait ticking)")
    same("kmp-after", "after the unload")
    w = f("kmp-waiters")
    wl = w.splitlines()
    check(f("kmp-waiters.rc").strip() == "0" and any(l.startswith("kmp_stall ") for l in wl)
          and re.search(r"pid \d+\s+kmp_stalled\s+D \(uninterruptible\), waiting for \d+ s", w) is not None,
          "kmempool waiters names the stalled task (kmp_stalled, D, its wait) under its pool's line "
          f"(rc {f('kmp-waiters.rc').strip()}: {f('kmp-waiters.err').strip()[:200]})")
    try:
        doc = json.loads(f("kmp-stall.json"))
        pool = [p for p in doc["pools"] if p["name"] == "kmp_stall"]
        check(f("kmp-stall-json.rc").strip() == "0" and len(pool) == 1
              and pool[0]["file"].endswith("kmp_stall.c") and pool[0]["kind"] is None
              and pool[0]["function"] == "kmp_init" and pool[0]["owner"] == "kmp_stall"
              and pool[0]["instance"] == "test0" and pool[0]["waiting"] == 1
              and pool[0]["site"] == f"{pool[0]['file']}:{pool[0]['line']}",
              "kmempool -f json: the stalled pool with its site, file, line, function and kind")
    except (ValueError, KeyError, TypeError) as e:
        check(False, f"kmempool -f json reads as JSON with the stalled pool ({e})")
    try:
        wd = json.loads(f("kmp-waiters.json"))
        wp = [p for p in wd["pools"] if p["name"] == "kmp_stall"]
        check(len(wp) == 1 and [t["comm"] for t in wp[0]["waiters"]] == ["kmp_stalled"],
              "kmempool waiters -f json: the pool and its one waiter")
    except (ValueError, KeyError, TypeError) as e:
        check(False, f"kmempool waiters -f json reads as JSON ({e})")
    st = f("kmp-stacks")
    check(f("kmp-stacks.rc").strip() == "0"
          and re.search(r"^pool 0x[0-9a-f]+  kmp_stall\n.*waiting 1, owner kmp_stall\n"
                        r"(?:.*\n)*?    pid \d+\s+kmp_stalled\s+D \(uninterruptible\)", st, re.M) is not None,
          "kmempool waiters --source stacks finds the waiter (mempool_wake_function) on its "
          "stack and names its pool by its tag")
    check(f("kmp-info.rc").strip() == "0" and "mempool format: 1.1" in f("kmp-info"),
          "kmempool info: mempool format 1.1")
print(f"stall: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
