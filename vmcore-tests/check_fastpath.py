#!/usr/bin/python3
"""Check what bench-fastpath.sh measured (issue 12 part 3): kmp_bench.ko
ran in the patched and in the stock kernel, in every mode and boot; its
numbers are positive and sane; under -icount the instruction counts
repeat exactly and meet the issue's goals; and the sizes it printed are
the kernels' (from each vmlinux's DWARF, through gdb), the patched
mempool_t being larger than the stock one by exactly the members the
series adds.

    check_fastpath.py OUTDIR PATCHED_KERNELDIR STOCK_KERNELDIR \\
                      PATCHED_SRC STOCK_SRC"""
import os
import re
import statistics
import subprocess
import sys

from mempool import Results, read

OUT, KP, KS, SP, SS = sys.argv[1:6]
R = Results("fastpath")
TESTS = ["kmalloc_kfree", "success", "success_private", "reserve", "create_destroy",
         "create_destroy_named"]
KDIR = {"patched": KP, "stock": KS}
SRC = {"patched": SP, "stock": SS}


def bench(path):
    """begin/size/result/end lines of one boot's bench.txt"""
    b = {"result": {}}
    for line in read(path).splitlines():
        w = line.split()
        if not w:
            continue
        kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
        if w[0] == "result":
            b["result"][kv.get("test")] = kv
        elif w[0] in ("begin", "size", "end"):
            b[w[0]] = kv
    return b


def num(kv, key):
    try:
        return float(kv[key])
    except (KeyError, TypeError, ValueError):
        return -1.0


# Which modes ran, how many boots each.
try:
    modes = [line.split() for line in read(os.path.join(OUT, "modes")).splitlines()]
except OSError as e:
    modes = []
    R.check(False, f"bench-fastpath.sh left {OUT}/modes", e)
R.check(sorted(m[0] for m in modes) == ["icount", "time"],
        "both modes ran: icount (instructions) and time (TSC)", modes)
runs = {}
for mode, boots, accel in modes:
    for k in ("patched", "stock"):
        for i in range(1, int(boots) + 1):
            d = os.path.join(OUT, f"{mode}-{k}-{i}")
            try:
                runs[(mode, k, i)] = bench(os.path.join(d, "bench.txt"))
            except OSError as e:
                runs[(mode, k, i)] = {"result": {}, "error": str(e)}

# The stock kernel is really the tree without the series.
for k, want in (("patched", True), ("stock", False)):
    smap = read(os.path.join(KDIR[k], "System.map"))
    R.check((" mempool_list\n" in smap) == want,
            f"{k} kernel: mempool_list {'is' if want else 'is not'} in System.map")

sizes = {}
for (mode, k, i), b in sorted(runs.items()):
    tag = f"{mode} {k} boot {i}"
    begin, end = b.get("begin", {}), b.get("end", {})
    series = "1" if k == "patched" else "0"
    R.check(begin.get("series") == series and end.get("status") == "0",
            f"{tag}: kmp_bench ran to the end (status 0) and was built "
            f"{'with' if series == '1' else 'without'} the series", b)
    bad = []
    for t in TESTS:
        r = b["result"].get(t, {})
        c, lo, hi, ns = (num(r, x) for x in ("cycles", "min", "max", "ns"))
        if not (0 < lo <= c <= hi < 1e6 and ns > 0):
            bad.append(f"{t}: {r}")
    R.check(not bad, f"{tag}: all {len(TESTS)} tests, 0 < min <= median <= max < 10^6 "
            "cycles per operation, ns > 0", "\n".join(bad))
    R.check(num(begin, "tsc_khz") > 0, f"{tag}: tsc_khz {begin.get('tsc_khz')} > 0")
    sizes.setdefault(k, []).append(b.get("size"))

for k in ("patched", "stock"):
    R.check(len({str(s) for s in sizes.get(k, [])}) == 1,
            f"{k}: every boot printed the same sizes", sizes.get(k))


def med(mode, k, t):
    vals = [num(b["result"].get(t, {}), "cycles") for (m, kk, _), b in runs.items()
            if m == mode and kk == k]
    return vals, statistics.median(vals) if vals else -1


# Under -icount, guest instructions: exact, so they must repeat and obey
# what the code does.
for k in ("patched", "stock"):
    same = {t: med("icount", k, t)[0] for t in TESTS if not t.startswith("create")}
    R.check(all(len(v) >= 2 and len(set(v)) == 1 for v in same.values()),
            f"icount {k}: every boot counts the same instructions per alloc/free pair", same)
    for t in ("create_destroy", "create_destroy_named"):
        cd = med("icount", k, t)[0]
        R.check(len(cd) >= 2 and max(cd) - min(cd) <= 0.01 * min(cd),
                f"icount {k}: {t} repeats within 1%", cd)
    m = {t: med("icount", k, t)[1] for t in TESTS}
    R.check(m["kmalloc_kfree"] < m["success"] and m["kmalloc_kfree"] < m["success_private"],
            f"icount {k}: a pool's alloc+free ({m['success']:.0f}) costs more than the "
            f"kmalloc+kfree it does ({m['kmalloc_kfree']:.0f})", m)
    R.check(m["create_destroy"] > 4 * m["kmalloc_kfree"],
            f"icount {k}: create+destroy ({m['create_destroy']:.0f}) costs more than the "
            f"4 kmalloc+kfree of its reserve", m)
for t, goal in (("success", 1.01), ("reserve", 1.05)):
    p, s = med("icount", "patched", t)[1], med("icount", "stock", t)[1]
    R.check(s > 0 and p / s <= goal,
            f"icount: {t} path patched/stock = {p:.0f}/{s:.0f} = {p / s if s > 0 else 0:.3f}"
            f" <= {goal} (the issue's goal)")


# The sizes the module printed against each vmlinux's DWARF.
GDB = r'''
import gdb
for t in ("struct mempool_s", "struct bio_set"):
    ty = gdb.lookup_type(t)
    print("S", t.split()[1], ty.sizeof)
    for f in ty.fields():
        print("F", t.split()[1], f.name, f.bitpos // 8, f.type.sizeof)
'''


def dwarf(vmlinux):
    """{struct: (sizeof, {member: (offset, size)})} from gdb"""
    p = subprocess.run(["gdb", "-nx", "-batch", "-ex", "python\n" + GDB + "\nend", vmlinux],
                       capture_output=True, text=True, timeout=300)
    out = {}
    for line in p.stdout.splitlines():
        w = line.split()
        if w[:1] == ["S"]:
            out[w[1]] = (int(w[2]), {})
        elif w[:1] == ["F"] and w[1] in out:
            out[w[1]][1][w[2]] = (int(w[3]), int(w[4]))
    return out, p.stderr


D = {}
for k in ("patched", "stock"):
    D[k], err = dwarf(os.path.join(KDIR[k], "vmlinux"))
    R.check(set(D[k]) == {"mempool_s", "bio_set"},
            f"{k}: gdb reads struct mempool_s and struct bio_set from the vmlinux", err)
    got = (sizes.get(k) or [{}])[0] or {}
    for name, st in (("mempool_t", "mempool_s"), ("bio_set", "bio_set")):
        dw = D[k].get(st, (-1, {}))[0]
        R.check(str(dw) == got.get(name),
                f"{k}: sizeof({name}) {got.get(name)} as the module printed = {dw} in the DWARF")


def members(path):
    """member names declared in typedef struct mempool_s { ... } mempool_t"""
    text = read(path)
    m = re.search(r"typedef struct mempool_s \{(.*?)\} mempool_t;", text, re.S)
    if not m:
        return None
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    return [re.search(r"(\w+)\s*(\[[^]]*\])?\s*$", d.strip()).group(1)
            for d in body.split(";") if d.strip()]


if set(D.get("patched", {})) == set(D.get("stock", {})) == {"mempool_s", "bio_set"}:
    pm, sm = D["patched"]["mempool_s"][1], D["stock"]["mempool_s"][1]
    R.check(all(pm.get(n) == v for n, v in sm.items()),
            "mempool_s: every stock member keeps its offset and size in the patched kernel "
            "(the series only appends)", f"stock {sm}\npatched {pm}")
    hp = members(os.path.join(SRC["patched"], "include/linux/mempool.h"))
    hs = members(os.path.join(SRC["stock"], "include/linux/mempool.h"))
    added = [n for n in pm if n not in sm]
    R.check(hp is not None and hs is not None and
            added == [n for n in hp if n not in hs],
            f"mempool_s: the members only the patched DWARF has are the ones the series' "
            f"mempool.h adds: {' '.join(added)}", f"DWARF {added}\nheaders {hp} {hs}")
    for st in ("mempool_s", "bio_set"):
        (ps, pf), (ss, sf) = D["patched"][st], D["stock"][st]
        new = {n: v[1] for n, v in pf.items() if n not in sf}
        grown = {n: pf[n][1] - v[1] for n, v in sf.items() if n in pf and pf[n][1] != v[1]}
        want = sum(new.values()) + sum(grown.values())
        R.check(set(sf) <= set(pf) and ps - ss == want,
                f"{st}: patched {ps} - stock {ss} = {ps - ss} bytes, exactly the members the "
                f"series adds ({' + '.join(f'{n} {v}' for n, v in new.items()) or 'none'}"
                f"{''.join(f' + {n} grown {v}' for n, v in grown.items())}), no new padding")
print(f"fastpath: {R.passed} passed, {R.failed} failed")
sys.exit(1 if R.failed else 0)
