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

from mempool import ParseError, Results, extract_dumps, one, parse, read

MODE, OUT, VML, KMP = sys.argv[1:5]
R = Results("kdump-" + MODE)
MAGIC = {"elf": b"\x7fELF", "elf-d31": b"\x7fELF", "zlib": b"KDUMP   ",
         "lzo": b"KDUMP   ", "kdump": b"KDUMP   ", "flat": b"makedumpfile"}


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

if MODE == "formats":
    R.check(sorted(dumps) == sorted(MAGIC), "the capture kernel wrote all six dump formats",
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
        if name == "flat":
            rc, out, err, clean = kmp("-c", path, "-s", VML)
            R.check(rc == 2 and "makedumpfile -R" in err and err.count("\n") == 1 and
                    out == "" and clean, "flat: refused with the advice to run makedumpfile -R",
                    err)
            fixed = path + ".kdump"
            if os.path.exists(fixed):
                os.unlink(fixed)
            with open(path, "rb") as src:
                p = subprocess.run(["makedumpfile", "-R", fixed], stdin=src,
                                   capture_output=True, text=True)
            R.check(p.returncode == 0, "flat: makedumpfile -R reassembles it", p.stderr)
            path, name = fixed, "flat, reassembled"
        rc, out, err, clean = kmp("-c", path, "-s", VML)
        R.check(rc == 0 and out == snapshot and clean,
                f"{name}: kmempool prints exactly the pre-crash /proc/mempool, byte for byte",
                err + "\n".join(l for l in out.splitlines() if l not in snapshot.splitlines()))
        rc, out, err, clean = kmp("info", "-c", path, "-s", VML)
        kv = dict(re.findall(r"^([a-z ]+):\s+(.*)$", out, re.M))
        fmt = "elf" if name.startswith("elf") else "diskdump"
        R.check(rc == 0 and kv.get("release") == uname and kv.get("dump format") == fmt and
                re.match(r"20\d\d-\d\d-\d\d ", kv.get("crash time", "")) and
                int(kv.get("kaslr offset", "0"), 16) != 0 and
                "sysrq triggered crash" in kv.get("panic", "") and clean,
                f"{name}: kmempool info: release {uname}, format {fmt}, crash time, KASLR "
                f"offset, panic message", out + err)
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
    info = kmp("info", "-c", dumps["elf-d31"], "-s", VML)[1]
    vaddr += int(re.search(r"^kaslr offset:\s+0x([0-9a-f]+)", info, re.M).group(1), 16)
    hdrs = subprocess.run(["readelf", "-lW", dumps["elf-d31"]], capture_output=True,
                          text=True).stdout
    where = None
    for m in re.finditer(r"^\s+LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ 0x([0-9a-f]+)",
                         hdrs, re.M):
        off, va, filesz = (int(m.group(i), 16) for i in (1, 2, 3))
        if va <= vaddr < va + filesz:
            where = off + vaddr - va
    newer = f("dump-newer-format")
    with open(dumps["elf-d31"], "rb") as d:
        data = bytearray(d.read())
    hits = 0
    if where is not None and data[where:where + 4] == b"1.0\0":
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
    os.unlink(newer)

    # Cut short on purpose: the walk stops at the first missing byte,
    # names the address and the truncation, and prints what it read.
    full = snapshot.splitlines(keepends=True)
    src = dumps["elf-d31"]
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
            f"elf-d31 cut at 5%..95%: exit 2 below {seen.get(5, '?')}%, partial reports (exit 5)"
            f" that are prefixes of the full one, naming the address past the end",
            "\n".join(bad) + f"\nfirst percent per exit status: {seen}")

elif MODE == "corrupt":
    R.check(sorted(dumps) == ["zlib"], "the crash was captured (zlib dump)")
    full = read(f("proc-precrash")).splitlines(keepends=True)
    cut = next((i for i, ln in enumerate(full) if ln.startswith("kmp_test_private ")), None)
    rc, out, err, clean = kmp("-c", dumps.get("zlib", "/nonexistent"), "-s", VML)
    R.check(rc == 5 and cut is not None and out == "".join(full[:cut]) and
            err.count("\n") == 1 and "name of mempool at 0x" in err and
            "is not in the dump (page excluded by makedumpfile" in err and clean,
            "a name in pages makedumpfile excluded: exit 5, the pools before it, one line "
            "naming the address and why it is missing", err + out[-400:])

else:  # hang
    P = {k: int(v) for k, v in (kv.split("=") for kv in sys.argv[5].split())}
    R.check(sorted(dumps) == ["zlib"], "the hung-task panic was captured (zlib dump)",
            read(f("serial.log"))[-1500:])
    R.check("Kernel panic - not syncing: hung_task: blocked tasks" in read(f("serial.log")),
            "the hung-task detector panicked the kernel")
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
        R.check(rc == 0 and clean and len(pool_lines) == 1 and
                pool_lines[0].split()[0] == "kmp_test_page" and
                sorted(p for p, _, _ in listed) == pids and
                all(c == "kmp_waiter" and s == "D" for _, c, s in listed),
                f"kmempool waiters on {label}: exactly the 3 tasks, state D, on kmp_test_page",
                text + err)
    rc, out, err, clean = kmp("-c", dumps.get("zlib", "/nonexistent"), "-s", VML)
    try:
        p = one(parse(out), "kmp_test_page")
    except ParseError:
        p = None
    R.check(rc == 0 and p is not None and p["curr_nr"] == 0 and p["low_nr"] == 0 and
            p["waiting"] == 3 and p["waits"] >= 3 and p["from_reserve"] == P["page_min"],
            f"the dump shows the exhaustion: curr_nr 0, low_nr 0, waiting 3, waits >= 3, "
            f"from_reserve {P['page_min']}", p)
    rc, out, err, clean = kmp("waiters", "-c", dumps.get("zlib", "/nonexistent"), "-s", VML,
                              "-f", "json")
    try:
        j = json.loads(out)
        ok = len(j["pools"]) == 1 and j["pools"][0]["pool"]["name"] == "kmp_test_page" and \
            sorted(w["pid"] for w in j["pools"][0]["waiters"]) == pids and \
            all(w["state"] == "D" and w["comm"] == "kmp_waiter" for w in j["pools"][0]["waiters"])
    except (ValueError, KeyError, TypeError, IndexError):
        ok = False
    R.check(ok, "kmempool waiters --format=json on the vmcore: the same", out[:800])
    rc, out, err, clean = kmp("info", "-c", dumps.get("zlib", "/nonexistent"), "-s", VML)
    R.check(rc == 0 and re.search(r"^panic:\s+Kernel panic - not syncing: hung_task: blocked "
                                  r"tasks$", out, re.M), "kmempool info shows the panic message",
            out + err)

print(f"kdump-{MODE}: {R.passed} passed, {R.failed} failed")
sys.exit(1 if R.failed else 0)
