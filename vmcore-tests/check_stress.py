#!/usr/bin/python3
"""Check what guest/stress.sh brought back from the debug kernel: every
loop ran and none of its steps failed (kmp_churn.ko's counters: pools
created and destroyed, reserve use, waiters, moves, no error), the kernel log holds no report of
KASAN, lockdep, DEBUG_LIST, DEBUG_OBJECTS, the hung-task detector or any
other BUG/WARNING, kmemleak finds nothing allocated by mempool code, and
/proc/mempool is back to its boot contents once everything is unloaded.

    check_stress.py OUTDIR SECONDS

Prints the loops' iteration counts and kmempool's exit statuses on
stderr (the measurements); known noise of KASAN under TCG (the RCU stall
warning) is counted there, not failed."""
import collections
import os
import re
import sys

from mempool import Results, read

OUT, SECS = sys.argv[1], int(sys.argv[2])
R = Results("stress")
WORKERS = {"module": "insmod/drain/refill/block/release/rmmod of kmp_test.ko (all four pools)",
           "churn": "insmod/rmmod of kmp_churn.ko, its threads creating and destroying pools",
           "crypt": "dm-crypt target over a loop device created, read, written, removed",
           "md": "md raid1 array written, read, stopped and started again, grown and shrunk",
           "proc": "cat /proc/mempool",
           "kcore": "kmempool on /proc/kcore"}
# Kernel log reports that fail the run: (what, regex).
REPORTS = [
    ("BUG", r"BUG:"),
    ("KASAN", r"KASAN"),
    ("WARNING", r"WARNING:"),
    ("lockdep", r"possible recursive locking|inconsistent lock state|"
                r"circular locking|possible irq lock inversion|"
                r"suspicious RCU usage|lock held when returning|"
                r"bad unlock balance|held lock freed"),
    ("DEBUG_LIST", r"list_add corruption|list_del corruption"),
    ("ODEBUG (DEBUG_OBJECTS)", r"ODEBUG"),
    ("hung task", r"hung_task|blocked for more than"),
]
# Known under KASAN + TCG (slow emulation), not a finding: counted only.
NOISE = re.compile(r"rcu_sched self-detected stall|rcu: INFO: rcu_sched")
KMEMLEAK_OURS = re.compile(r"mempool|bioset|bio_set")


def f(name):
    return os.path.join(OUT, name)


def text(name):
    try:
        return read(f(name))
    except OSError:
        return None


def num(name):
    try:
        return int(read(f(name)).strip())
    except (OSError, ValueError):
        return None


def info(msg):
    print(f"    {msg}", file=sys.stderr)


def pools(name):
    """/proc/mempool text -> list of (name, type, elem_size, min_nr, owner),
    curr_nr by line; None if it does not parse."""
    t = text(name)
    if t is None:
        return None
    lines = t.splitlines()
    if len(lines) < 2 or not lines[0].startswith("mempool - version: ") or \
            not lines[1].startswith("# "):
        return None
    cols = lines[1].split()[1:]
    want = ["name", "type", "elem_size", "min_nr", "curr_nr", "owner", "site"]
    if any(c not in cols for c in want):
        return None
    rows = []
    for line in lines[2:]:
        fl = line.split()
        if len(fl) != len(cols):
            return None
        rows.append(dict(zip(cols, fl)))
    return rows


serial = text("serial.log") or ""
R.check("KMP-DONE phase=first rc=0" in serial,
        "the kernel log is complete (the guest script finished and powered off)",
        serial[-2000:])

# The set-up the loops work on.
R.check(num("mdadm-create.rc") == 0, "md raid1 array over loop1 and loop2 created",
        text("mdadm-create.log"))

# kmp_test.ko own_alloc=1 (module defaults): its pools allocate through the
# module's function, so they are private (element size 0: the series
# derives sizes from the allocation functions), and the flag empties their
# reserve.
OWN = {"kmp_test_slab": (4, 0), "kmp_test_kmalloc": (3, 0),
       "kmp_test_page": (2, 0), "kmp_test_private": (5, 0)}
for snapname, taken in (("proc-own-drain", 2), ("proc-own-refill", 0)):
    got = {p["name"]: p for p in pools(snapname) or []}
    bad = [n for n, (mn, size) in OWN.items()
           if n not in got or got[n]["type"] != "private" or got[n]["owner"] != "kmp_test" or
           got[n]["elem_size"] != str(size) or got[n]["min_nr"] != str(mn) or
           got[n]["curr_nr"] != str(mn - taken) or got[n].get("from_reserve") != "2"]
    R.check(num("own-insmod.rc") == 0 and num("own-rmmod.rc") == 0 and not bad,
            f"kmp_test.ko own_alloc=1, {'drained by 2' if taken else 'refilled'}: its 4 pools "
            f"private (elem_size 0), curr_nr min_nr{' - 2' if taken else ''}, "
            f"from_reserve 2 (the allocator failed on the module's flag, pool->alloc untouched)",
            f"{bad}\n{text('own-insmod.err')}\n{text(snapname)}")

# Each loop ran, and none of its steps failed.
start, end = num("stress.start"), num("stress.end")
if start is not None and end is not None:
    info(f"loops ran {end - start} s (asked for {SECS} s)")
for w, what in WORKERS.items():
    n, b = num(f"w-{w}.count"), num(f"w-{w}.bad")
    log = text(f"w-{w}.log") or ""
    info(f"{w}: {n} iterations, {b} failures")
    if w == "kcore":
        continue
    R.check(n is not None and n > 0 and b == 0,
            f"{what}: {n} iterations, no step failed", log[-3000:])

# kmp_churn's counters, read after its threads stopped, before each rmmod.
CHURN = ["running", "rounds", "created", "destroyed", "allocs", "from_reserve", "waits",
         "resized", "errors"]
cycles = []
for line in (text("w-churn.counters") or "").splitlines():
    fl = line.split()
    try:
        d = {fl[i]: int(fl[i + 1]) for i in range(0, len(fl) - 1, 2)}
    except ValueError:
        d = {}
    cycles.append((line, d))
tot = {c: sum(d.get(c, 0) for _, d in cycles) for c in CHURN}
info(f"kmp_churn: {len(cycles)} loads; " + ", ".join(f"{c} {tot[c]}" for c in CHURN[1:]))
badc = [ln for ln, d in cycles if any(c not in d for c in CHURN) or d["running"] != 0 or
        d["errors"] != 0 or d["created"] != d["destroyed"] or d["created"] <= 0]
R.check(cycles and not badc and all(tot[c] > 0 for c in
                                    ("from_reserve", "waits", "resized")),
        f"kmp_churn: {len(cycles)} loads, {tot['created']} pools created and as many destroyed, "
        f"{tot['from_reserve']} allocations from the reserve, {tot['waits']} waiters woken "
        f"by a free, {tot['resized']} resizes, no error",
        "\n".join(badc[:10]) or text("w-churn.counters"))

# kmempool on /proc/kcore under the churn: exit 0, or 7 ("changed": live
# memory kept changing while it was read) with a message.
klog = text("w-kcore.log")
if klog is None:
    R.check(False, "kmempool on /proc/kcore ran in the loop (no vmlinux in the guest?)")
else:
    statuses = collections.Counter()
    badruns = []
    for line in klog.splitlines():
        m = re.match(r"\d+ iteration \d+: rc (\d+): ?(.*)$", line)
        if not m:
            badruns.append(line)
            continue
        rc, msg = int(m.group(1)), m.group(2).strip()
        statuses[rc] += 1
        if rc == 0 or (rc == 7 and "changed" in msg):
            continue
        badruns.append(line)
    info("kmempool exit statuses: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    for line in klog.splitlines():
        if ": rc 7:" in line:
            info("first exit 7: " + line[:300])
            break
    R.check(sum(statuses.values()) > 0 and statuses[0] > 0 and not badruns,
            f"kmempool on /proc/kcore during the loops: {sum(statuses.values())} runs, "
            f"{statuses[0]} complete (0), {statuses[7]} changed while read (7, saying so), "
            f"no other status", "\n".join(badruns[:20]))
    R.check(num("kmp-end.rc") == 0 and text("kmp-end") is not None and
            text("kmp-end") == text("proc-end"),
            "kmempool on /proc/kcore after the loops: exit 0, exactly /proc/mempool",
            (text("kmp-end.err") or "") + (text("kmp-end") or ""))

# Series v7: a pool freed while listed on purpose (guest/stress.sh, between
# the marks): debugobjects reports it and the fixup takes it off the list.
ob, oe = serial.find("KMP-MARK-ODEBUG-BEGIN"), serial.find("KMP-MARK-ODEBUG-END")
if 0 <= ob < oe:    # the marks' own lines too
    ob, oe = serial.rfind("\n", 0, ob) + 1, serial.find("\n", oe) + 1 or len(serial)
od = serial[ob:oe] if 0 <= ob < oe else ""
R.check(num("free-listed.rc") == 0 and len(re.findall(
            r"ODEBUG: free active \(active state 0\) object: \S+ object type: mempool "
            r"hint: kmp_victim_alloc", od)) == 1,
        "a pool freed while listed (kfree() without mempool_exit()) is caught by "
        "debugobjects: 'free active ... object type: mempool', once",
        od[:3000] or "no marks in the serial log")
fl = text("proc-freed-listed") or ""
R.check(fl.startswith("mempool - version: ") and "kmp_freed_listed" not in fl,
        "and taken off the list: /proc/mempool reads cleanly after, without it", fl[:500])
R.check(not re.search(r"KASAN|\bBUG:", od), "no KASAN report or BUG for it (caught before "
        "any reader followed freed memory)", od[:3000])

# The kernel log: the serial console has all of it (dmesg's ring may wrap);
# the deliberate report between the marks above is not a finding.
lines = (serial[:ob] + serial[oe:] if 0 <= ob < oe else serial).splitlines()
noise = [ln for ln in lines if NOISE.search(ln)]
info(f"RCU stall warnings (KASAN under TCG, not counted): {len(noise)}")
for what, rx in REPORTS:
    hits = [ln for ln in lines if re.search(rx, ln) and not NOISE.search(ln)]
    R.check(not hits, f"kernel log: no {what} report", "\n".join(hits[:20]))

# kmemleak after everything was unloaded.
scan_ok = num("kmemleak-scan.rc") == 0 and num("kmemleak.rc") == 0
leaks = []
kl = text("kmemleak") or ""
for block in re.split(r"(?m)^(?=unreferenced object )", kl):
    if block.startswith("unreferenced object "):
        leaks.append(block)
ours = [b for b in leaks if KMEMLEAK_OURS.search(b)]
info(f"kmemleak: {len(leaks)} unreferenced objects in all, {len(ours)} from mempool/bio_set "
     f"code; scans took {num('kmemleak-scan.seconds')} s")
R.check(scan_ok and not ours,
        f"kmemleak scan at the end: nothing allocated by mempool or bio_set code "
        f"({len(leaks)} unreferenced objects elsewhere)",
        (text("kmemleak-scan.err") or "") + "".join(ours)[:3000])

# /proc/mempool after the loops and the unloads: the boot contents.
boot, endp = pools("proc-boot"), pools("proc-end")
key = ("name", "type", "elem_size", "min_nr", "owner", "site")
R.check(boot is not None and endp is not None and len(boot) > 0 and
        sorted(tuple(p[k] for k in key) for p in boot) ==
        sorted(tuple(p[k] for k in key) for p in endp) and num("rmmod.rc") == 0,
        f"/proc/mempool after the loops and the unloads: the {len(boot or [])} pools of boot "
        "(name, type, elem_size, min_nr, owner, site)",
        f"rmmod rc {num('rmmod.rc')}: {text('rmmod.err')}\nboot:\n{text('proc-boot')}\n"
        f"end:\n{text('proc-end')}")
full = [p["name"] for p in boot or [] if p["curr_nr"] == p["min_nr"]]
R.check(endp is not None and all(
        any(q["name"] == n and q["curr_nr"] == q["min_nr"] for q in endp) for n in full),
        f"/proc/mempool at the end: the {len(full)} reserves that were full at boot are full",
        text("proc-end"))
sys.exit(1 if R.failed else 0)
