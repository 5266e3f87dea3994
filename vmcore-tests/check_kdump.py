#!/usr/bin/python3
"""Check the kdump runs: dumps in every format against the /proc/mempool
snapshot taken just before the crash, and the hang scenario's waiters.

    check_kdump.py formats OUTDIR VMLINUX KMEMPOOL
    check_kdump.py hang OUTDIR VMLINUX KMEMPOOL "module params"
    check_kdump.py corrupt OUTDIR VMLINUX KMEMPOOL

KMEMPOOL is normally the ASan+UBSan build: a sanitizer report fails the
check it happens in."""
import json
import os
import re
import subprocess
import sys

from mempool import ParseError, Results, extract_dumps, find_line, kaslr_truth, one, parse, read

# fs_bio_set's bio pool, named after the function that sets it up (series 8/11).
FS_BIO = f"{find_line('block/bio.c', 'bioset_init(&fs_bio_set')[1]}:bio"

MODE, OUT, VML, KMP = sys.argv[1:5]
R = Results("kdump-" + MODE)
MAGIC = {"elf": b"\x7fELF", "elf-filtered": b"\x7fELF", "zlib": b"KDUMP   ",
         "lzo": b"KDUMP   ", "kdump": b"KDUMP   ", "flat": b"makedumpfile",
         "flat-lzo": b"makedumpfile", "flat-raw": b"makedumpfile"}


def f(name):
    return os.path.join(OUT, name)


ENV = dict(os.environ, LSAN_OPTIONS="print_suppressions=0:suppressions=" + os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "analyzer", "tests", "lsan.supp"))


def kmp(*args, timeout=120):
    p = subprocess.run([KMP, *args], capture_output=True, text=True, timeout=timeout, env=ENV)
    clean = not re.search(r"Sanitizer|runtime error", p.stderr)
    return p.returncode, p.stdout, p.stderr, clean


def rc_file(n):
    try:
        return int(read(f(n)).strip())
    except (OSError, ValueError):
        return None


R.check(rc_file("kexec.rc") == 0 and rc_file("kexec_crash_loaded") == 1,
        "kexec -p loaded the capture kernel in the first kernel")
dumps = extract_dumps(OUT) if os.path.exists(f("dumps")) else {}
uname = read(f("uname")).strip()
KASLR = kaslr_truth(f("stext"), VML)

if MODE == "formats":
    R.check(sorted(dumps) == sorted(MAGIC), "the capture kernel wrote all eight dump formats",
            sorted(dumps))
    snapshot = read(f("proc-precrash"))
    try:
        pools = parse(snapshot)
    except ParseError as e:
        pools = []
    R.check(any(p["owner"] == "dm_crypt" for p in pools) and
            any(p["owner"] == "kmp_test" for p in pools) and
            one(pools, "kmp_test_kmalloc") and one(pools, "kmp_test_kmalloc")["from_reserve"] == 2,
            f"the pre-crash snapshot has dm-crypt's and the module's pools ({len(pools)} pools)")
    for name, path in sorted(dumps.items()):
        with open(path, "rb") as d:
            head = d.read(16)
        R.check(head.startswith(MAGIC[name]), f"{name}: the file is what it claims "
                f"({MAGIC[name]!r}, {os.path.getsize(path) >> 20} MiB)", head)
        outputs = {}
        todo = [(name, path)]
        if name.startswith("flat"):
            # Read in place; then reassembled by makedumpfile -R, which must
            # give the same, byte for byte.
            fixed = path + ".kdump"
            if os.path.exists(fixed):
                os.unlink(fixed)
            with open(path, "rb") as src:
                p = subprocess.run(["makedumpfile", "-R", fixed], stdin=src,
                                   capture_output=True, text=True)
            R.check(p.returncode == 0, f"{name}: makedumpfile -R reassembles it", p.stderr)
            todo.append((f"{name}, reassembled", fixed))
        for label, dpath in todo:
            rc, out, err, clean = kmp("-c", dpath, "-s", VML)
            outputs[label] = out
            R.check(rc == 0 and out == snapshot and clean,
                    f"{label}: kmempool prints exactly the pre-crash /proc/mempool, byte for byte"
                    + (" (read in place)" if label.startswith("flat") and dpath == path else ""),
                    err + "\n".join(l for l in out.splitlines() if l not in snapshot.splitlines()))
            rc, out, err, clean = kmp("info", "-c", dpath, "-s", VML)
            outputs[label + " info"] = [ln for ln in out.splitlines()
                                        if not ln.startswith(("source:", "dump format:"))]
            kv = dict(re.findall(r"^([a-z ]+):\s+(.*)$", out, re.M))
            fmt = "elf" if label.startswith("elf") else "diskdump"
            if dpath == path and name.startswith("flat"):
                fmt = "flattened " + fmt
            R.check(rc == 0 and kv.get("release") == uname and kv.get("dump format") == fmt and
                    re.match(r"20\d\d-\d\d-\d\d ", kv.get("crash time", "")) and
                    int(kv.get("kaslr offset", "-1"), 16) == KASLR and
                    "sysrq triggered crash" in kv.get("panic", "") and clean,
                    f"{label}: kmempool info: release {uname}, format {fmt}, crash time, KASLR "
                    f"offset (where /proc/kallsyms put _stext), panic message", out + err)
        if len(todo) == 2:
            R.check(outputs[name] == outputs[f"{name}, reassembled"] and
                    outputs[name + " info"] == outputs[f"{name}, reassembled info"],
                    f"{name}: in place and reassembled, report and info are identical "
                    f"(but for the file name and format)")
            os.unlink(todo[1][1])

    # makedumpfile -F -E is not among the captures; the same kind of file
    # made here: the elf-filtered dump as a flattened stream of 4 KiB records,
    # its two halves interleaved (makedumpfile writes regions that way).
    src = dumps.get("elf-filtered")
    if src:
        flatelf = f("elf-filtered.flat")
        size = os.path.getsize(src)
        half = size // 2 // 4096 * 4096
        nrec = 0
        with open(src, "rb") as i, open(flatelf, "wb") as o:
            o.write((b"makedumpfile".ljust(16, b"\0") + (1).to_bytes(8, "big") +
                     (1).to_bytes(8, "big")).ljust(4096, b"\0"))
            for k in range(0, half, 4096):
                for start, lim in ((k, half), (half + k, size)):
                    n = min(4096, lim - start) if start < lim else 0
                    if n <= 0:
                        continue
                    i.seek(start)
                    o.write(start.to_bytes(8, "big") + n.to_bytes(8, "big") + i.read(n))
                    nrec += 1
            for start in range(2 * half, size, 4096):  # past the interleaved part
                i.seek(start)
                n = min(4096, size - start)
                o.write(start.to_bytes(8, "big") + n.to_bytes(8, "big") + i.read(n))
                nrec += 1
            o.write(b"\xff" * 16)
        rc, out, err, clean = kmp("-c", flatelf, "-s", VML)
        rc2, info, err2, clean2 = kmp("info", "-c", flatelf, "-s", VML)
        R.check(rc == 0 and out == snapshot and clean and clean2 and
                re.search(r"^dump format:\s+flattened elf$", info, re.M),
                f"elf-filtered flattened here ({nrec} records of 4 KiB, interleaved): read in "
                f"place, the same report; info says 'flattened elf'", err + err2 + info)
        os.unlink(flatelf)

    # A flattened stream cut short (the capture ran out of disk or time):
    # what the records before the cut hold is read; past it, one line
    # naming the missing address and "flattened dump truncated"; a partial
    # report is a prefix of the full one.  Never a wrong complete report.
    full = snapshot.splitlines(keepends=True)
    for fname in ("flat", "flat-raw"):
        src = dumps.get(fname)
        if not src:
            continue
        size = os.path.getsize(src)
        seen = {}
        bad = []
        for pct in (10, 30, 45, 60, 75, 90, 99):
            cut = f("flat-truncated")
            with open(src, "rb") as i, open(cut, "wb") as o:
                o.write(i.read(size * pct // 100))
            rc, out, err, clean = kmp("-c", cut, "-s", VML)
            seen.setdefault(rc, pct)
            lines = out.splitlines(keepends=True)
            if not clean or err.count("\n") != (0 if rc == 0 else 1):
                bad.append(f"{pct}%: rc {rc}, stderr {err!r}")
            elif rc == 5 and not (lines == full[:len(lines)] and len(lines) < len(full) and
                                  "flattened dump truncated" in err and
                                  re.search(r"0x[0-9a-f]+", err)):
                bad.append(f"{pct}%: partial report is not a prefix or the reason is missing: "
                           f"{err}")
            elif rc == 2 and "flattened dump truncated" not in err:
                bad.append(f"{pct}%: exit 2 without 'flattened dump truncated': {err}")
            elif rc == 0 and out != snapshot:
                bad.append(f"{pct}%: complete but different")
            elif rc not in (0, 2, 5):
                bad.append(f"{pct}%: exit {rc}: {err}")
        os.unlink(cut)
        R.check(not bad and (2 in seen or 5 in seen),
                f"{fname} cut at 10%..99% ({size >> 10} KiB): exit 2 or a partial report "
                f"(exit 5) that is a prefix of the full one, naming the address and "
                f"'flattened dump truncated'",
                "\n".join(bad) + f"\nfirst percent per exit status: {seen}")

    # JSON on one of them
    rc, out, err, clean = kmp("-c", dumps["zlib"], "-s", VML, "-f", "json")
    try:
        j = json.loads(out)
        ok = rc == 0 and j["complete"] and len(j["pools"]) == len(pools) and \
            j["kernel"]["format"] == "diskdump" and j["kernel"]["release"] == uname
    except (ValueError, KeyError, TypeError):
        ok = False
    R.check(ok, "zlib: --format=json holds the same pools", out[:500] + err)

    # An independent reader of the same dump: drgn, walking the list with
    # its own DWARF and dump code, must print the same report.
    drgn = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench", "drgn_mempool.py")
    p = subprocess.run(["/usr/bin/python3", drgn, dumps["zlib"], VML], capture_output=True,
                       text=True, timeout=300)
    R.check(p.returncode == 0 and p.stdout == snapshot,
            "zlib: drgn's walk of mempool_list prints the same report", p.stderr[-800:])

    # A kernel whose /proc/mempool format is newer than this kmempool:
    # the version string in an ELF dump is changed to 9.9, at the file
    # offset of mempool_format_version (symbol + KASLR offset, through the
    # PT_LOAD that maps the kernel image).
    sym = subprocess.run(["nm", VML], capture_output=True, text=True).stdout
    vaddr = int(re.search(r"^([0-9a-f]+) \S mempool_format_version$", sym, re.M).group(1), 16)
    info = kmp("info", "-c", dumps["elf-filtered"], "-s", VML)[1]
    vaddr += int(re.search(r"^kaslr offset:\s+0x([0-9a-f]+)", info, re.M).group(1), 16)
    hdrs = subprocess.run(["readelf", "-lW", dumps["elf-filtered"]], capture_output=True,
                          text=True).stdout
    where = None
    for m in re.finditer(r"^\s+LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ 0x([0-9a-f]+)",
                         hdrs, re.M):
        off, va, filesz = (int(m.group(i), 16) for i in (1, 2, 3))
        if va <= vaddr < va + filesz:
            where = off + vaddr - va
    newer = f("dump-newer-format")
    with open(dumps["elf-filtered"], "rb") as d:
        data = bytearray(d.read())
    hits = 0
    if where is not None and re.fullmatch(rb"1\.[0-9]\0", bytes(data[where:where + 4])):
        data[where:where + 3] = b"9.9"
        hits = 1
    with open(newer, "wb") as o:
        o.write(data)
    del data
    rc, out, err, clean = kmp("-c", newer, "-s", VML)
    R.check(hits == 1 and rc == 6 and out == "" and err.count("\n") == 1 and
            "format is version '9.9'" in err and clean,
            f"a dump whose kernel has /proc/mempool format 9.9: refused, exit 6 "
            f"(version string at file offset {where})", err)
    rc, out, err, clean = kmp("info", "-c", newer, "-s", VML)
    R.check(rc == 0 and re.search(r"^mempool format: 9\.9$", out, re.M) and clean,
            "kmempool info still describes that dump, naming format 9.9", out + err)
    # The same kernel claiming a newer minor version, 1.2 (series v7 has
    # 1.1): its columns may have grown, so it is refused too, not
    # printed with 1.1's columns under a 1.2 header.
    with open(newer, "r+b") as o:
        o.seek(where)
        o.write(b"1.2")
    rc, out, err, clean = kmp("-c", newer, "-s", VML)
    R.check(snapshot.startswith("mempool - version: 1.1\n") and rc == 6 and out == "" and
            err.count("\n") == 1 and "'1.2'" in err and "1.1" in err and clean,
            f"a dump whose version string says 1.2 (a newer minor version than this kernel's "
            f"1.1): refused, exit 6 ({err.strip()[:90]})", err)
    os.unlink(newer)

    # Cut short on purpose: the walk stops at the first missing byte,
    # names the address and the truncation, and prints what it read.
    full = snapshot.splitlines(keepends=True)
    src = dumps["elf-filtered"]
    size = os.path.getsize(src)
    seen = {}
    bad = []
    for pct in range(5, 100, 5):
        cut = f("truncated")
        with open(src, "rb") as i, open(cut, "wb") as o:
            o.write(i.read(size * pct // 100))
        rc, out, err, clean = kmp("-c", cut, "-s", VML)
        seen.setdefault(rc, pct)
        lines = out.splitlines(keepends=True)
        if not clean or err.count("\n") != (0 if rc == 0 else 1):
            bad.append(f"{pct}%: rc {rc}, stderr {err!r}")
        elif rc == 5 and not (2 <= len(lines) < len(full) and lines == full[:len(lines)] and
                              "the dump is truncated" in err and re.search(r"0x[0-9a-f]+", err)):
            bad.append(f"{pct}%: partial report is not a prefix or the reason is missing: {err}")
        elif rc == 0 and out != snapshot:
            bad.append(f"{pct}%: complete but different")
        elif rc not in (0, 2, 5):
            bad.append(f"{pct}%: exit {rc}: {err}")
    os.unlink(cut)
    R.check(not bad and 5 in seen and 2 in seen,
            f"elf-filtered cut at 5%..95%: exit 2 below {seen.get(5, '?')}%, partial reports (exit 5)"
            f" that are prefixes of the full one, naming the address past the end",
            "\n".join(bad) + f"\nfirst percent per exit status: {seen}")

    # Cut at page boundaries below the shortest cut that still gives the
    # complete report.  makedumpfile -E does not page-align PT_LOAD data, so
    # pages the walk reads straddle such a cut; libkdumpfile reading through
    # mmap() made that SIGBUS (here it did at 5 of 1430 page cuts).  Every
    # cut: exit 0 with the full report, or 2 or 5 with one line, never a
    # signal.
    def cut_run(nbytes):
        cut = f("truncated")
        with open(src, "rb") as i, open(cut, "wb") as o:
            o.write(i.read(nbytes))
        r = kmp("-c", cut, "-s", VML)
        os.unlink(cut)
        return r

    lo, hi = 0, (size + 4095) // 4096
    while hi - lo > 1:
        mid = (lo + hi) // 2
        rc, out, err, clean = cut_run(mid * 4096)
        if rc == 0 and out == snapshot:
            hi = mid
        else:
            lo = mid
    bad = []
    seen = {}
    for pg in range(max(hi - 128, 1), hi + 1):
        rc, out, err, clean = cut_run(pg * 4096)
        seen[rc] = seen.get(rc, 0) + 1
        lines = out.splitlines(keepends=True)
        if rc < 0 or rc > 5 or not clean:
            bad.append(f"page {pg}: exit {rc} {err[-300:]}")
        elif rc == 0 and out != snapshot:
            bad.append(f"page {pg}: complete but different")
        elif rc in (2, 5) and (err.count("\n") != 1 or lines != full[:len(lines)]):
            bad.append(f"page {pg}: exit {rc}, not a prefix or not one line: {err}")
    R.check(not bad and seen.get(5, 0) > 0,
            f"elf-filtered cut at each of the 128 page boundaries below the shortest complete cut "
            f"(page {hi}): no signal, the full report or one line and a prefix "
            f"(exit statuses: {seen})", "\n".join(bad[:10]))

elif MODE == "corrupt":
    R.check(sorted(dumps) == ["zlib"], "the crash was captured (zlib dump)")
    full = read(f("proc-precrash")).splitlines(keepends=True)
    cut = next((i for i, ln in enumerate(full) if ln.startswith("kmp_test_private ")), None)
    rc, out, err, clean = kmp("-c", dumps.get("zlib", "/nonexistent"), "-s", VML)
    # The freed tag's page is either excluded by makedumpfile (the walk
    # stops there: the pools before it, one line), or, when the kernel
    # zeroed it, kept as a zero page (that pool alone is left out as
    # corrupt, named with its tag's address, the rest printed), or kept
    # after the page was reused (a string pointer in it leads nowhere the
    # dump holds: a fault, so the walk stops there as for an excluded
    # page, the read and the tag named; seen once, in a capture of 2026-12-06).
    missing = (cut is not None and out == "".join(full[:cut]) and err.count("\n") == 1 and
               re.search(r"mempool_tag at 0x[0-9a-f]+: address 0x[0-9a-f]+ is not in the dump "
                         r"\(page excluded by makedumpfile", err) is not None)
    zeroed = (cut is not None and out == "".join(full[:cut] + full[cut + 1:]) and
              err.count("\n") == 2 and
              re.search(r"left out as corrupt: its tag at 0x[0-9a-f]+ has no \w+", err) is not None
              and "1 mempool(s) left out as corrupt" in err)
    reused = (cut is not None and out == "".join(full[:cut]) and err.count("\n") == 1 and
              re.search(r"\w+ of mempool_tag at 0x[0-9a-f]+: cannot read 0x[0-9a-f]+ from the dump",
                        err) is not None)
    R.check(rc == 5 and (missing or zeroed or reused) and clean,
            "a pool's tag (name, function, site) in pages makedumpfile excluded, zeroed or reused: exit 5, "
            "the pool named by its tag's address and why, the others as the kernel listed them",
            err + out[-400:])

else:  # hang
    P = {k: int(v) for k, v in (kv.split("=") for kv in sys.argv[5].split())}
    R.check(sorted(dumps) == ["zlib"], "the hung-task panic was captured (zlib dump)",
            read(f("serial.log"))[-1500:])
    serial = read(f("serial.log"))
    try:
        pre = one(parse(read(f("proc-block"))), "kmp_test_page")
    except (OSError, ParseError):
        pre = None
    R.check("Kernel panic - not syncing: hung_task: blocked tasks" in serial and
            re.search(r"INFO: task kmp_waiter:\d+ blocked in I/O wait for more than "
                      r"1\d seconds\.", serial) and pre is not None and
            re.search(r"      Blocked in mempool_alloc\(\) on pool kmp_test_page, instance -, "
                      r"set up at " + re.escape(pre["site"]) + r" \[kmp_test\] \S+: 0 of " +
                      str(P["page_min"]) + r" reserved elements left, \d allocation\(s\) "
                      r"sleeping on it", serial),
            "with hung_task_timeout_secs 10 and hung_task_panic, khungtaskd reported the "
            "stalled allocation (pool, site, owner, reserve, other waiters) and panicked",
            serial[-3000:])
    ps = [ln.split() for ln in read(f("ps-block")).splitlines()[1:]]
    pids = sorted(int(x[0]) for x in ps if len(x) >= 2 and x[1] == "kmp_waiter")
    R.check(len(pids) == 3, f"the module started 3 kmp_waiter tasks: {pids}")

    def waiters(text):
        pool_lines = [ln for ln in text.splitlines()[2:] if not ln.startswith("    ")]
        listed = [(int(m.group(1)), m.group(2), m.group(3))
                  for m in re.finditer(r"^    pid (\d+)\s+(\S+)\s+(\S) ", text, re.M)]
        return pool_lines, listed

    for label, text in [("live, /proc/kcore before the panic", read(f("kmp-waiters-live"))),
                        ("the vmcore", None)]:
        if text is None:
            rc, text, err, clean = kmp("waiters", "-c", dumps.get("zlib", "/nonexistent"),
                                       "-s", VML)
        else:
            rc, err, clean = rc_file("kmp-waiters-live.rc"), read(f("kmp-waiters-live.err")), True
        pool_lines, listed = waiters(text)
        # In the dump the task that panicked is awake (R), still queued.
        states = sorted(s for _, _, s in listed)
        R.check(rc == 0 and clean and len(pool_lines) == 1 and
                pool_lines[0].split()[0] == "kmp_test_page" and
                sorted(p for p, _, _ in listed) == pids and
                all(c == "kmp_waiter" for _, c, _ in listed) and
                states in (["D", "D", "D"], ["D", "D", "R"]),
                f"kmempool waiters on {label}: exactly the 3 tasks on kmp_test_page, state D "
                f"(on the vmcore one may be R: the one that panicked)", text + err)
    rc, out, err, clean = kmp("-c", dumps.get("zlib", "/nonexistent"), "-s", VML)
    try:
        p = one(parse(out), "kmp_test_page")
    except ParseError:
        p = None
    R.check(rc == 0 and p is not None and p["curr_nr"] == 0 and p["low_nr"] == 0 and
            p["waiting"] == 3 and p["waits"] == 3 and p["from_reserve"] == P["page_min"],
            f"the dump shows the exhaustion: curr_nr 0, low_nr 0, waiting 3, "
            f"waits 3 (one per blocked call), from_reserve {P['page_min']}", p)
    R.check(p is not None and 10 <= p["oldest_wait"] <= 120,
            "oldest_wait, from the dump's jiffies and the waiters' start times: at least the "
            "10 s timeout that panicked", p)
    rc, out, err, clean = kmp("waiters", "-c", dumps.get("zlib", "/nonexistent"), "-s", VML)
    w = [int(x) for x in re.findall(r"^    pid \d+\s+kmp_waiter\s+[DR] \([a-z]+\), "
                                    r"waiting for (\d+) s$", out, re.M)]
    R.check(rc == 0 and len(w) == 3 and p is not None and max(w) == p["oldest_wait"] and
            min(w) >= 5, "kmempool waiters on the vmcore: how long each task has waited, the "
            "longest equal to oldest_wait", out + err)
    rc, out, err, clean = kmp("waiters", "-c", dumps.get("zlib", "/nonexistent"), "-s", VML,
                              "-f", "json")
    try:
        j = json.loads(out)
        ok = len(j["pools"]) == 1 and j["pools"][0]["name"] == "kmp_test_page" and \
            sorted(w["pid"] for w in j["pools"][0]["waiters"]) == pids and \
            all(w["state"] in "DR" and w["comm"] == "kmp_waiter" for w in j["pools"][0]["waiters"])
    except (ValueError, KeyError, TypeError, IndexError):
        ok = False
    R.check(ok, "kmempool waiters --format=json on the vmcore: the same", out[:800])
    # The search of task stacks, which kernels without the series get, must agree with
    # mempool_list: the same pools at the same addresses with the same tasks and values.
    ko = os.path.join(os.path.dirname(os.path.dirname(VML)), "module", "kmp_test.ko")

    def by_pool(j):
        # The stack search looks at tasks in D state: the list's awake waiter (the one
        # that panicked, R) is left out of the comparison, and with it the count.
        return {p["address"]: (p["min_nr"], p["curr_nr"],
                               sorted(w["pid"] for w in p["waiters"] if w["state"] == "D"))
                for p in j["pools"]}

    zlib = dumps.get("zlib", "/nonexistent")
    for label, lst, stk in [
            ("live, /proc/kcore", (rc_file("kmp-waiters-list-live.rc"),
                                   read(f("kmp-waiters-list-live"))),
             (rc_file("kmp-waiters-stacks-live.rc"), read(f("kmp-waiters-stacks-live")))),
            ("the vmcore", kmp("waiters", "-f", "json", "-c", zlib, "-s", VML)[:2],
             kmp("waiters", "--source", "stacks", "-f", "json", "-c", zlib, "-s", VML,
                 "-M", ko)[:2])]:
        try:
            jl, js = json.loads(lst[1]), json.loads(stk[1])
            ok = (lst[0] == 0 and stk[0] == 0 and jl["complete"] and js["complete"] and
                  js["source"] == "stacks" and jl["source"] == "list" and
                  by_pool(jl) == by_pool(js) and len(js["pools"]) == 1 and
                  len(js["pools"][0]["waiters"]) >= 2 and
                  set(w["pid"] for w in js["pools"][0]["waiters"]) <= set(pids) and
                  js["pools"][0]["name"] == jl["pools"][0]["name"] == "kmp_test_page" and
                  js["pools"][0]["alloc"] == "kmp_fail_alloc [kmp_test]" and
                  # the kernel's rule (the allocation function, swapped by the
                  # test): private, as the list says, of unknown size
                  js["pools"][0]["type"] == jl["pools"][0]["type"] == "private" and
                  js["pools"][0]["elem_size"] is None and
                  not js["unknown"])
        except (ValueError, KeyError, TypeError, IndexError):
            ok = False
        R.check(ok, f"waiters from task stacks == waiters from mempool_list on {label}: the "
                f"pool at the same address, its min_nr, curr_nr and the tasks in D state; "
                f"named by its tag as the list names it (kmp_test_page), alloc derived, type by the "
                f"kernel's rule as the list has it",
                f"list: {lst}\nstacks: {stk}")
    # The scan (the inventory kernels without the series get) against mempool_list: the
    # same pools, none missing, none extra, with the same values.  The side-by-side
    # list of derived and kernel names is left as an artifact for review.
    def scan_vs_list(label, rc1, lst_out, rc2, scan_out, scan_err, clean, artifact):
        try:
            jl, js = json.loads(lst_out), json.loads(scan_out)
            # type and elem_size by one rule, the kernel's (mempool_type(): the
            # allocation function), in the list and the scan alike; a private
            # pool's size is unknown to both: 0 in the kernel's table, null in
            # the scan's JSON (the hang's kmp_test_page, whose pool->alloc the
            # test swapped, is private in both)
            def row(p, scan):
                size = p["elem_size"]
                if not scan and p["type"] == "private" and size == 0:
                    size = None
                return (p["type"], size, p["min_nr"], p["curr_nr"], p["waiting"])
            want = {p["address"]: row(p, False) for p in jl["pools"]}
            got = {p["address"]: row(p, True) for p in js["pools"]}
            missing, extra = set(want) - set(got), set(got) - set(want)
            differ = {a: (want[a], got[a]) for a in set(want) & set(got) if want[a] != got[a]}
            with open(f(artifact), "w") as out:
                for p in js["pools"]:
                    out.write(f"{p['address']}  {p.get('list_name', '?'):32} {p['name']}\n")
            ok = (rc1 == 0 and rc2 == 0 and clean and js["complete"] and len(want) >= 30 and
                  not missing and not extra and not differ and
                  all(p.get("list_name") for p in js["pools"]))
        except (ValueError, KeyError, TypeError) as e:
            ok, missing, extra, differ = False, e, None, None
        R.check(ok, f"kmempool scan on {label} finds exactly the pools on mempool_list (same addresses, "
                "type, elem_size, min_nr, curr_nr, waiting), none missing, none extra",
                f"missing {missing} extra {extra} differ {differ}\n{scan_err}")
        return ok, js if ok else None

    ok, js = scan_vs_list("the vmcore", *kmp("-f", "json", "-c", zlib, "-s", VML)[:2],
                          *kmp("scan", "-f", "json", "-c", zlib, "-s", VML, "-M", ko),
                          "scan-vs-list.txt")
    scan_vs_list("live, /proc/kcore", rc_file("kmp-report-live-json.rc"),
                 read(f("kmp-report-live-json")), rc_file("kmp-scan-live.rc"),
                 read(f("kmp-scan-live")), read(f("kmp-scan-live.err")), True,
                 "scan-vs-list-live.txt")
    names = {p.get("list_name"): p["name"] for p in (js["pools"] if ok else [])}
    # kmp_test's page pool is pointed at by two of its globals (page_pool, pools[2].pool)
    R.check(ok and names.get("kmp_test_page") in ("*pools[2].pool [kmp_test]",
                                                  "*page_pool [kmp_test]") and
            names.get("kmp_test_private") == "private_pool [kmp_test]" and
            names.get(FS_BIO) == "fs_bio_set.bio_pool" and
            names.get("sgpool-16") == "*sg_pools[1].pool" and
            names.get("kmp_test_init") == "*unnamed_pool [kmp_test]" and
            # raid1's r1bio pool (guest/kdump.sh's array), kmalloc'ed on its own:
            # by the one object named by type that points at it
            names.get("md_r1bio") == "*<r1conf>.r1bio_pool",
            "the scan names pools after where they live: globals with member paths from "
            "DWARF (vmlinux and module), pointers from globals, a pointer in the one heap "
            "object named by type that points at it (see scan-vs-list.txt)",
            names)
    rc, out, err, clean = kmp("waiters", "--source", "stacks", "-c", zlib, "-s", VML)
    R.check(rc == 0 and clean and
            re.search(r"^pool 0x[0-9a-f]+  kmp_test_page$", out, re.M) and
            out.startswith("# kmempool waiters - derived from kernel memory"),
            "without module debug info the pool is still named by its series v6 tag (in "
            "memory); the header says the answer is derived from memory", out + err)
    rc, out, err, clean = kmp("info", "-c", dumps.get("zlib", "/nonexistent"), "-s", VML)
    R.check(rc == 0 and re.search(r"^panic:\s+Kernel panic - not syncing: hung_task: "
                                  r"blocked tasks$", out, re.M),
            "kmempool info shows the panic message", out + err)

print(f"kdump-{MODE}: {R.passed} passed, {R.failed} failed")
sys.exit(1 if R.failed else 0)
