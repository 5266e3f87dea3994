#!/usr/bin/python3
"""Checks of the stock-kernel scenario (vmcore-tests/guest/stock.sh on
Debian's own kernel, no series): the rig did what it says (ground truth,
KASLR, dm-crypt, md, kexec, three dumps), drgn finds the same waiters in
the dumps as the module reported, and `kmempool waiters -f json` names
exactly the blocked tasks on exactly the emptied pools, in each dump
(flattened, zlib, ELF) and live on /proc/kcore.

    check_stock.py OUTDIR VMLINUX KMEMPOOL KMP_STOCK_KO "PARAMS"
                   [--group NAME] [--drgn-root DIR]

PARAMS are the module parameters the guest used (name=value ...).  The
analyzer gets the module's DWARF (-M KMP_STOCK_KO, as the guest passes
-M /lib/kmp_stock.ko) to name kmp_stock_devs[1].pool by member.  NAME
(default "stock") prefixes the check lines (stock-trixie, ...).  With
--drgn-root, the drgn oracle runs in that chroot (another Debian suite's,
with its python3-drgn), the dump and vmlinux hard-linked into its /tmp
(copied if that fails) and removed afterwards."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mempool import Outdir, Results, extract_dumps, kaslr_truth, read  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DRGN = os.path.join(HERE, "bench", "drgn_stock_waiters.py")
PY = "/usr/bin/python3"
# A task's address: the direct map, 0xffff... with 4-level paging, 0xff...
# with 5-level paging (7.2 under QEMU's -cpu max).
KERNEL_ADDR = r"0xff[0-9a-f]{14}"
# Pool variable -> the parameter that sets its min_nr, and its type.
POOLS = {
    "kmp_stock_slab": ("slab_min", "slab"),
    "kmp_stock_devs[0].pool": ("dev0_min", "private"),
    "kmp_stock_devs[1].pool": ("dev1_min", "private"),
    "kmp_stock_ctx->page_pool": ("page_min", "page"),
    "kmp_stock_ctx->buf_pool": ("buf_min", "kmalloc"),
    "kmp_stock_private": ("private_min", "private"),
    "kmp_stock_big->pool": ("big_min", "kmalloc"),
}
# The blocked pools: variable -> (parameter with the number of waiters,
# parameter with the element size).
BLOCKED = {
    "kmp_stock_private": ("block_private", "private_size"),
    "kmp_stock_devs[1].pool": ("block_dev1", "dev_size"),
}
POOL_RE = re.compile(r"kmp_stock: pool (\S+) at ([0-9a-f]{16}) type (\S+) "
                     r"min_nr (\d+) curr_nr (\d+) elem_size (\d+)$")
WAITER_RE = re.compile(r"kmp_stock: waiter pid (\d+) on (\S+) at ([0-9a-f]{16})$")
FORMATS = {"flat": b"makedumpfile\0", "zlib": b"KDUMP   ", "elf": b"\x7fELF"}


def ground_truth(r, o, params):
    """The module's log and ps: {address: var}, {address: [pids]}."""
    log = read(o.f("kmp_stock.log")) if os.path.exists(o.f("kmp_stock.log")) else ""
    r.check(o.rc("insmod") == 0 and "kmp_stock: ready" in log,
            "kmp_stock.ko loads on Debian's kernel and says ready",
            f"insmod.rc {o.rc('insmod')}\n{log}")
    pools = {}
    for line in log.splitlines():
        m = POOL_RE.search(line)
        if m:
            pools[m.group(1)] = (int(m.group(2), 16), m.group(3), int(m.group(4)),
                                 int(m.group(6)), int(m.group(5)))
    bad = [v for v, (param, typ) in POOLS.items()
           if v not in pools or pools[v][2] != params[param] or pools[v][1] != typ]
    r.check(not bad and len(pools) == len(POOLS),
            f"the module reports its {len(POOLS)} pools with the requested min_nr",
            f"wrong or missing: {bad}\n{pools}")
    # The kernel's fill (mm/mempool.c): min_nr elements; a zero-minimum pool
    # (dev0_min=0) keeps 1 since Linux 6.17 (its array has a slot), 0 before.
    zero = [(v, p[4]) for v, p in pools.items() if p[2] == 0]
    r.check(all(p[4] == p[2] for p in pools.values() if p[2] > 0) and
            all(c in (0, 1) for _, c in zero) and len(zero) == (params["dev0_min"] == 0),
            f"the kernel filled each reserve: min_nr elements, and the zero-minimum pool "
            f"{[f'{v} curr_nr {c}' for v, c in zero]}",
            str(pools))
    waiters = {}
    for line in log.splitlines():
        m = WAITER_RE.search(line)
        if m:
            waiters.setdefault(m.group(2), []).append(
                (int(m.group(1)), int(m.group(3), 16)))
    ok = True
    truth = {}
    names = {}
    for var, (count, _) in BLOCKED.items():
        w = waiters.get(var, [])
        addr = pools.get(var, (None,))[0]
        ok &= len(w) == params[count] and all(a == addr for _, a in w)
        truth[addr] = sorted(p for p, _ in w)
        names[addr] = var
    r.check(ok and len(waiters) == len(BLOCKED),
            "the module's log names 3 waiters on kmp_stock_private and 2 on "
            "kmp_stock_devs[1].pool, at the pools' addresses", waiters)
    want = sorted(p for ps in truth.values() for p in ps)
    for name in ("ps-block", "ps-precrash"):
        rows = [ln.split() for ln in read(o.f(name)).splitlines()[1:]] \
            if os.path.exists(o.f(name)) else []
        got = sorted(int(f[0]) for f in rows if len(f) >= 3 and f[1] == "kmp_waiter")
        dstate = all(f[2].startswith("D") for f in rows if len(f) >= 3 and f[1] == "kmp_waiter")
        when = "before the live analyzer" if name == "ps-block" else "just before the crash"
        r.check(got == want and dstate and len(want) == 5,
                f"ps {when}: exactly the logged pids are kmp_waiter tasks in D state",
                f"ps: {got}, log: {want}, all D: {dstate}")
    return truth, names, pools


def check_rig(r, o, vmlinux):
    def text(name):
        return read(o.f(name)).strip() if os.path.exists(o.f(name)) else ""
    release = read(os.path.join(os.path.dirname(vmlinux), "release")).strip()
    r.check(text("uname") == release, f"the guest ran Debian's kernel {release}", text("uname"))
    r.check(o.rc("dmcrypt") == 0, "dm-crypt (aes-xts) over loop set up with Debian's modules",
            read(o.f("modprobe.err")) if os.path.exists(o.f("modprobe.err")) else "")
    mdstat = read(o.f("mdstat")) if os.path.exists(o.f("mdstat")) else ""
    r.check(o.rc("mdadm-create") == 0 and re.search(r"md0 : active raid1", mdstat) is not None,
            "md raid1 over two loop devices is active", mdstat)
    loaded = text("kexec_crash_loaded")
    r.check(o.rc("kexec") == 0 and loaded == "1",
            "kexec -p loaded Debian's kernel as capture kernel", f"rc {o.rc('kexec')} loaded {loaded}")
    serial = read(o.f("serial.log"))
    r.check("sysrq triggered crash" in serial and "KMP-INIT phase=capture" in serial and
            text("status.capture") == "0",
            "sysrq crash, the capture kernel ran its script", serial[-1500:])


def check_kaslr(r, o, dumps, vmlinux):
    """VMCOREINFO's KERNELOFFSET explains where /proc/kallsyms put _stext.
    Not asserted nonzero: KASLR may pick offset 0 (one boot in several
    hundred), and a wrong offset is what this is about."""
    off = None
    with open(dumps["elf"], "rb") as f:
        m = re.search(rb"KERNELOFFSET=([0-9a-f]+)\n", f.read(1 << 20))
        if m:
            off = int(m.group(1), 16)
    truth = kaslr_truth(o.f("stext"), vmlinux)
    r.check(off is not None and truth is not None and off == truth,
            "KASLR: KERNELOFFSET in the dump is where /proc/kallsyms put _stext",
            f"KERNELOFFSET {off}, offset of /proc/kallsyms' _stext from the vmlinux's {truth}")


def check_dumps(r, o):
    dumps = {}
    if not os.path.exists(o.f("dumps")):
        r.check(False, "the capture kernel wrote its dump index", "no OUTDIR/dumps")
        return dumps
    dumps = extract_dumps(o.path)
    for name, magic in FORMATS.items():
        path = dumps.get(name)
        log = read(o.f(f"makedumpfile-{name}.log")) if os.path.exists(
            o.f(f"makedumpfile-{name}.log")) else ""
        head = b""
        if path:
            with open(path, "rb") as f:
                head = f.read(len(magic))
        size = os.path.getsize(path) if path else 0
        r.check(o.rc(f"makedumpfile-{name}") == 0 and "makedumpfile Completed" in log and
                head == magic and size > (1 << 20),
                f"{name} dump written by makedumpfile ({size >> 20} MiB)",
                f"rc {o.rc(f'makedumpfile-{name}')}, magic {head!r}\n{log[-600:]}")
    return dumps


def link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def run_drgn(path, vmlinux, root):
    """The oracle script on the host's drgn, or in the chroot ROOT."""
    if not root:
        return subprocess.run([PY, DRGN, path, vmlinux], capture_output=True, text=True,
                              timeout=300)
    work = tempfile.mkdtemp(prefix="kmp-oracle-", dir=os.path.join(root, "tmp"))
    try:
        for src, dst in ((DRGN, "oracle.py"), (path, "core"), (vmlinux, "vmlinux")):
            link_or_copy(src, os.path.join(work, dst))
        inside = "/tmp/" + os.path.basename(work)
        return subprocess.run(["chroot", root, "/usr/bin/env", "-i", "LANG=C.UTF-8",
                               "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "/usr/bin/python3",
                               "-B", f"{inside}/oracle.py", f"{inside}/core",
                               f"{inside}/vmlinux"],
                              capture_output=True, text=True, timeout=300)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def drgn_oracle(r, name, path, vmlinux, truth, root=None):
    p = run_drgn(path, vmlinux, root)
    want = {hex(a): pids for a, pids in truth.items()}
    try:
        got = json.loads(p.stdout)
    except ValueError:
        got = p.stdout + p.stderr
    r.check(got == want, f"{name}: drgn finds the same waiters on the same pools (oracle)",
            f"drgn: {got}\ntruth: {want}")


def check_answer(r, name, rc, text, err, truth, names, pools, params):
    """kmempool waiters -f json against the ground truth."""
    if not r.check(rc == 0, f"{name}: kmempool waiters -f json exits 0", f"exit {rc}: {err}"):
        return
    try:
        ans = json.loads(text)
    except ValueError as e:
        r.check(False, f"{name}: the answer is JSON", f"{e}: {text[:300]}")
        return
    r.check(ans.get("source") == "stacks" and ans.get("complete") is True and
            isinstance(ans.get("kernel"), dict) and isinstance(ans.get("pools"), list),
            f"{name}: source \"stacks\", complete, kernel and pools present",
            {k: ans.get(k) for k in ("source", "complete", "kernel")})
    found = {}
    for p in ans.get("pools") or []:
        try:
            found[int(p["address"], 16)] = p
        except (KeyError, TypeError, ValueError):
            r.check(False, f"{name}: every pool has an address", p)
            return
    pids = sorted(w.get("pid") for p in found.values() for w in p.get("waiters") or [])
    want = sorted(x for v in truth.values() for x in v)
    r.check(pids == want, f"{name}: exactly the {len(want)} blocked pids, each once",
            f"answer {pids}, truth {want}")
    r.check(sorted(a for a, p in found.items() if p.get("waiters")) == sorted(truth),
            f"{name}: the waiters are on exactly the two emptied pools, at the module's addresses",
            f"answer {[hex(a) for a in found]}, truth {[hex(a) for a in truth]}")
    for addr, var in names.items():
        p = found.get(addr)
        if not r.check(p is not None, f"{name}: {var} at {addr:#x} is in the answer"):
            continue
        count, size = BLOCKED[var]
        ws = p.get("waiters") or []
        got = {k: p.get(k) for k in ("type", "min_nr", "curr_nr", "waiting", "elem_size",
                                     "owner", "name")}
        r.check(p.get("type") == "private" and p.get("min_nr") == pools[var][2] and
                p.get("curr_nr") == 0 and p.get("waiting") == params[count] and
                p.get("elem_size") in (None, params[size]) and
                p.get("owner") in (None, "kmp_stock") and var in str(p.get("name")),
                f"{name}: {var}: private, min_nr {pools[var][2]}, curr_nr 0, waiting "
                f"{params[count]}, named after the variable", got)
        r.check(sorted(w.get("pid") for w in ws) == truth[addr] and
                all(w.get("state") == "D" and w.get("comm") == "kmp_waiter" and
                    re.fullmatch(KERNEL_ADDR, str(w.get("task"))) for w in ws),
                f"{name}: {var}: its waiters are pids {truth[addr]}, kmp_waiter, state D, "
                "with their task address", ws)


# What the scan must call the module's pools (module DWARF given with -M).
SCAN_NAMES = {
    "kmp_stock_slab": "*kmp_stock_slab [kmp_stock]",
    "kmp_stock_devs[0].pool": "kmp_stock_devs[0].pool [kmp_stock]",
    "kmp_stock_devs[1].pool": "kmp_stock_devs[1].pool [kmp_stock]",
    "kmp_stock_ctx->page_pool": "kmp_stock_ctx->page_pool [kmp_stock]",
    "kmp_stock_ctx->buf_pool": "kmp_stock_ctx->buf_pool [kmp_stock]",
    "kmp_stock_private": "*kmp_stock_private [kmp_stock]",
    "kmp_stock_big->pool": "kmp_stock_big->pool [kmp_stock]",
}


# How the kernel's raid1 keeps its r1bio pool: a private pool of its own
# (to 7.1), or mempool_create_kmalloc_pool(NR_RAID_BIOS = 256, ...) in 7.x
# (raid1.ko then calls mempool_kmalloc), owned by nobody the scan can name.
RAID1_KMALLOC = False


def raid1_uses_kmalloc_pool(kdir):
    for root, _, files in os.walk(os.path.join(kdir, "modroot")):
        if "raid1.ko" in files:
            nm = subprocess.run(["nm", "-u", os.path.join(root, "raid1.ko")],
                                capture_output=True, text=True)
            return re.search(r"\bmempool_kmalloc\b", nm.stdout) is not None
    return False


def raid1_pool(found):
    if RAID1_KMALLOC:
        return any(p["type"] == "kmalloc" and p["min_nr"] == 256 for p in found.values())
    return any(p["owner"] == "raid1" and p["type"] == "private" for p in found.values())


def check_scan(r, name, rc, text, err, pools, params):
    """kmempool scan: the module's 6 pools with their values and names; dm-crypt's and
    raid1's pools; nothing else claims the module."""
    try:
        ans = json.loads(text)
        found = {int(p["address"], 16): p for p in ans["pools"]}
    except (ValueError, KeyError, TypeError) as e:
        r.check(False, f"{name}: kmempool scan -f json answers JSON", f"exit {rc}: {e} {err}")
        return
    r.check(rc == 0 and ans.get("complete") is True and ans.get("source") == "scan",
            f"{name}: kmempool scan exits 0 with a complete answer", f"exit {rc}: {err}")
    page = 4096
    elem = {"kmp_stock_slab": params["slab_size"], "kmp_stock_ctx->page_pool":
            page << params["page_order"], "kmp_stock_ctx->buf_pool": params["buf_size"],
            "kmp_stock_big->pool": params["buf_size"]}
    bad = []
    live = "live" in name
    for var, (addr, typ, min_nr, _, curr_nr) in pools.items():
        p = found.get(addr)
        blocked = var in BLOCKED
        want = params[BLOCKED[var][0]] if blocked else 0
        # On a running kernel a waiter leaves the queue when its 5 s
        # io_schedule_timeout() ends and goes back on it after another try
        # (mm/mempool.c): the test's waiters, started together, time out
        # together, and a live scan may find fewer there, never more.
        waiting_ok = (p is not None and
                      (p["waiting"] == want or (live and blocked and 0 < p["waiting"] < want)))
        if (p is None or p["type"] != typ or p["min_nr"] != min_nr or
                p["curr_nr"] != (0 if blocked else curr_nr) or
                p["elem_size"] != elem.get(var) or p["name"] != SCAN_NAMES[var] or
                p["low_nr"] is not None or p["waits"] is not None or not waiting_ok):
            bad.append((var, p))
        elif p["waiting"] != want:
            print(f"  {name}: {var}: {p['waiting']} of its {want} waiters on its queue "
                  "(the others between their 5 s timeout and their next wait)")
    r.check(not bad, f"{name}: kmempool scan finds the module's {len(POOLS)} pools at their "
            "addresses (one in a vmalloc'd struct), "
            "with type, min_nr, curr_nr, elem_size, waiting, and names after their variables "
            "(statistics the kernel does not keep are null)", bad)
    mine = sorted(a for a, p in found.items() if p["name"].endswith("[kmp_stock]"))
    r.check(mine == sorted(a for a, *_ in pools.values()),
            f"{name}: no other pool is named after the module's variables", mine)
    r.check(any(p["owner"] == "dm_crypt" and p["type"] == "private" and p["min_nr"] > 0
                for p in found.values()) and
            raid1_pool(found) and
            {"fs_bio_set.bio_pool", "*sg_pools[0].pool"} <= {p["name"] for p in found.values()},
            f"{name}: dm-crypt's and raid1's pools and the block layer's are found and named",
            sorted((p["name"], p["owner"]) for p in found.values()))


def main():
    outdir, vmlinux, kmp, ko, params_s = sys.argv[1:6]
    opts = dict(zip(sys.argv[6::2], sys.argv[7::2]))
    group = opts.get("--group", "stock")
    droot = opts.get("--drgn-root")
    params = {k: int(v) for k, v in (a.split("=") for a in params_s.split())}
    global RAID1_KMALLOC
    RAID1_KMALLOC = raid1_uses_kmalloc_pool(os.path.dirname(vmlinux))
    r = Results(group)
    o = Outdir(outdir, r)
    truth, names, pools = ground_truth(r, o, params)
    check_rig(r, o, vmlinux)
    dumps = check_dumps(r, o)
    if "elf" in dumps:
        check_kaslr(r, o, dumps, vmlinux)
    # The oracle: drgn reads ELF and kdump files; the flattened one after
    # makedumpfile -R (libkdumpfile 0.5.1 cannot read it in place).
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("elf", "zlib", "flat"):
            if name not in dumps:
                continue
            path = dumps[name]
            if name == "flat":
                path = os.path.join(tmp, "flat.kdump")
                with open(dumps[name], "rb") as f:
                    rc = subprocess.run(["makedumpfile", "-R", path], stdin=f,
                                        capture_output=True).returncode
                if not r.check(rc == 0, "flat: makedumpfile -R reassembles it"):
                    continue
            drgn_oracle(r, name, path, vmlinux, truth, droot)
    # kmempool on each dump (the flattened one in place) and live.
    for name in ("flat", "zlib", "elf"):
        if name not in dumps:
            r.check(False, f"{name}: dump present for kmempool waiters")
            continue
        p = subprocess.run([kmp, "waiters", "-f", "json", "-c", dumps[name], "-s", vmlinux,
                            "-M", ko],
                           capture_output=True, text=True, timeout=300)
        check_answer(r, name, p.returncode, p.stdout, p.stderr.strip(), truth, names, pools,
                     params)
    # The scan: the inventory a kernel without the series gets.
    for name in ("flat", "zlib"):
        if name in dumps:
            p = subprocess.run([kmp, "scan", "-f", "json", "-c", dumps[name], "-s", vmlinux,
                                "-M", ko], capture_output=True, text=True, timeout=300)
            check_scan(r, f"{name} scan", p.returncode, p.stdout, p.stderr.strip(), pools,
                       params)
    if os.path.exists(o.f("live-scan.rc")):
        check_scan(r, "live /proc/kcore scan", o.rc("live-scan"), read(o.f("live-scan.json")),
                   read(o.f("live-scan.err")).strip(), pools, params)
    else:
        r.check(False, "live /proc/kcore: kmempool scan ran in the guest", "no live-scan.rc")
    # info on a stock kernel: release, and the panic the sysrq crash left.
    release = read(os.path.join(os.path.dirname(vmlinux), "release")).strip()
    for name in ("zlib", "elf"):
        if name not in dumps:
            continue
        p = subprocess.run([kmp, "info", "-c", dumps[name], "-s", vmlinux],
                           capture_output=True, text=True, timeout=300)
        r.check(p.returncode == 0 and
                re.search(rf"^release:\s+{re.escape(release)}$", p.stdout, re.M) is not None and
                re.search(r"^panic:.*sysrq triggered crash", p.stdout, re.M) is not None,
                f"{name}: kmempool info names the release and the sysrq panic",
                f"exit {p.returncode}\n{p.stdout}{p.stderr}")
    if os.path.exists(o.f("live-waiters.rc")):
        check_answer(r, "live /proc/kcore", o.rc("live-waiters"), read(o.f("live-waiters.json")),
                     read(o.f("live-waiters.err")).strip(), truth, names, pools, params)
    else:
        r.check(False, "live /proc/kcore: kmempool waiters ran in the guest",
                "no live-waiters.rc (was the vmlinux disk mounted?)")
    # In the capture kernel, on /proc/vmcore before any dump was written.
    if os.path.exists(o.f("vmcore-waiters.rc")):
        check_answer(r, "capture kernel /proc/vmcore", o.rc("vmcore-waiters"),
                     read(o.f("vmcore-waiters.json")), read(o.f("vmcore-waiters.err")).strip(),
                     truth, names, pools, params)
    else:
        r.check(False, "capture kernel: kmempool waiters ran on /proc/vmcore",
                read(o.f("vmcore-waiters.err")) if os.path.exists(o.f("vmcore-waiters.err"))
                else "no vmcore-waiters.rc")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
