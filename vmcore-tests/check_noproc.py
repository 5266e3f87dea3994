#!/usr/bin/python3
"""Check what guest/noproc.sh brought back: the kernel without
/proc/mempool still keeps mempool_list, and kmempool reads it.

    check_noproc.py OUTDIR SYSTEM_MAP "module params" LIVE_OUTDIR"""
import os
import sys

from mempool import Outdir, ParseError, Results, one, parse, read

OUT, SYSMAP, PARAMS, LIVE = sys.argv[1:5]
R = Results("noproc")
P = {k: int(v) for k, v in (kv.split("=") for kv in PARAMS.split())}


D = Outdir(OUT, R)
f, rc, report = D.f, D.rc, D.pools


R.check(rc("proc-exists") == 1, "/proc/mempool does not exist with CONFIG_PROC_MEMPOOL=n")
R.check(" mempool_list" in read(SYSMAP) and "mempool_list" in read(f("kallsyms")),
        "mempool_list is in System.map and in the running kernel's kallsyms",
        read(f("kallsyms")))
boot = report("kmp-boot")
R.check(rc("kmp-boot") == 0 and len(boot) > 0, f"kmempool on /proc/kcore: {len(boot)} pools",
        read(f("kmp-boot.err")))
try:
    live_boot = parse(read(os.path.join(LIVE, "proc-boot")))
    same = sorted((p["name"], p["site"]) for p in boot) == \
        sorted((p["name"], p["site"]) for p in live_boot) and len(boot) > 0
except (OSError, ParseError) as e:
    same = False
R.check(same, "the same built-in pools (names and sites) as /proc/mempool lists on the "
        "default kernel")
mod = report("kmp-module")
want = {
    "kmp_test_slab": ("slab", P["slab_size"], P["slab_min"], P["slab_min"]),
    "kmp_test_kmalloc": ("kmalloc", P["kmalloc_size"], P["kmalloc_min"], P["kmalloc_min"]),
    "kmp_test_page": ("page", 4096 << P["page_order"], P["page_min"], P["page_min"]),
    "kmp_test_private": ("private", 0, P["private_min"], P["private_min"] - 2),
    "kmp_test_init": ("kmalloc", P["unnamed_size"], P["unnamed_min"], P["unnamed_min"]),
}
R.check(rc("insmod") == 0 and rc("kmp-module") == 0, "module loaded, kmempool exit 0",
        read(f("kmp-module.err")))
for name, (typ, size, mn, cur) in want.items():
    p = one(mod, name)
    R.check(p is not None and (p["type"], p["elem_size"], p["min_nr"], p["curr_nr"],
                               p["owner"]) == (typ, size, mn, cur, "kmp_test"),
            f"{name}: exactly the requested {typ}, elem_size {size}, min_nr {mn}, curr_nr {cur}",
            p)
p = one(mod, "kmp_test_private")
R.check(p is not None and p["from_reserve"] == 2 and p["low_nr"] == P["private_min"] - 2,
        "statistics exist without the file (from_reserve 2 after drain 2)", p)
end = report("kmp-end")
R.check(rc("rmmod") == 0 and not [p for p in end if p["owner"] == "kmp_test"] and
        len(end) == len(boot), "after rmmod the module's pools are off the list")
R.check("release:        " + read(f("uname")).strip() in read(f("kmp-info")),
        "kmempool info names the running release", read(f("kmp-info")))
print(f"noproc: {R.passed} passed, {R.failed} failed")
sys.exit(1 if R.failed else 0)
