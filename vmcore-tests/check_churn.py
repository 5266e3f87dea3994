#!/usr/bin/python3
"""Check what guest/churn.sh brought back (issue 9 part 3): kmempool on
/proc/kcore while kmp_churn.ko creates and destroys pools through every
API.  Every run is complete (exit 0) or "changed" (exit 7, one stderr
line); every line printed is a pool that existed: a boot pool with its
boot attributes, or a pool of kmp_churn whose name, site, owner and type
agree (a pool freed and reused while read would show a foreign name, a
garbage name or site, or a type that does not match its name); after
rmmod the report is /proc/mempool again, byte for byte.

    check_churn.py OUTDIR RUNS TOPS"""
import json
import os
import re
import sys

from mempool import FORMATS, Outdir, Results, read, site_problem

OUT, RUNS, TOPS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
R = Results("churn")
D = Outdir(OUT, R)
# kmp_churn's names (vmcore-tests/module/kmp_churn.c): named kmp_churn_KIND,
# unnamed ones after the function that set them up; the round R is in the
# instance of the kmalloc and private pools (a<R>, then b<R>).
NAMED = re.compile(r"kmp_churn_(kmalloc|slab|cache|private|embedded)")
TYPE_OF = {"kmalloc": {"kmalloc"}, "slab": {"slab"}, "cache": {"slab"},
           "private": {"private"}, "embedded": {"private"},
           "churn_page": {"page"}, "churn_custom": {"private"},
           "churn_init_embedded": {"kmalloc", "slab", "page"}}
STATIC = ("type", "elem_size", "min_nr", "owner")

relabelled = set()   # churn pools seen with an instance (a<R> or b<R>)
boot = D.pools("proc-boot")
R.check(len(boot) > 5, f"/proc/mempool at boot: {len(boot)} pools")
boot_by = {(p["name"], p.get("site")): p for p in boot}
boot_by_name = {p["name"]: p for p in boot}
R.check(D.rc("kmp-boot") == 0 and read(D.f("kmp-boot")) == read(D.f("proc-boot")),
        "before the churn: kmempool on /proc/kcore == /proc/mempool", read(D.f("kmp-boot.err")))
R.check(D.rc("insmod") == 0, "kmp_churn.ko loads (4 threads)")
version = read(D.f("proc-boot")).split("\n")[0].split(": ")[1]
cols = FORMATS[version]


# What kmp_churn's instances carry (kmp_churn.c): a kmalloc pool's size and
# first min_nr, a private pool's first min_nr.
INSTANCE = {"kmalloc": re.compile(r"a[0-9]+s([0-9]+)m([0-9]+)|b[0-9]+s([0-9]+)"),
            "private": re.compile(r"a[0-9]+m([0-9]+)|b[0-9]+")}


def num(p, k):
    v = p.get(k)
    return int(v) if v is not None and re.fullmatch(r"-?[0-9]+", v) else None


def mixed(p, kind):
    """Why the line p of a churn pool cannot be one pool, or None: a size or
    min_nr its instance does not carry, or counters the kernel never keeps
    (0 <= curr_nr, low_nr <= min_nr; a zero-minimum pool keeps at most one
    element since Linux 6.17; low_nr above curr_nr is a pool mempool_resize()
    is shrinking: it drops the lock between the elements it frees and resets
    low_nr after the last)."""
    mn, cur, low, size = num(p, "min_nr"), num(p, "curr_nr"), num(p, "low_nr"), num(p, "elem_size")
    m = INSTANCE[kind].fullmatch(p.get("instance", "-")) if kind in INSTANCE else None
    if m and kind == "kmalloc":
        want_size = int(m.group(1) or m.group(3))
        if size is not None and size != want_size:
            return f"elem_size {size}, instance says {want_size}"
        if m.group(2) is not None and mn is not None and mn != int(m.group(2)):
            return f"min_nr {mn}, instance says {m.group(2)}"
    if m and kind == "private" and m.group(1) is not None and mn is not None and \
            mn != int(m.group(1)):
        return f"min_nr {mn}, instance says {m.group(1)}"
    if mn is not None and cur is not None and not 0 <= cur <= max(mn, 1):
        return f"curr_nr {cur} with min_nr {mn}"
    if low is not None and mn is not None and not 0 <= low <= max(mn, 1):
        return f"low_nr {low} with min_nr {mn}"
    return None


def check_pool(p, where, problems, seen):
    """A pool line (dict of str) is a pool that existed; counts churn pools."""
    name = p["name"]
    # kmempool top has no site column: a boot pool is then known by name
    b = boot_by.get((name, p["site"])) if "site" in p else boot_by_name.get(name)
    if b is not None:
        bad = [k for k in STATIC if str(b[k]) != str(p[k])]
        if bad:
            problems.append(f"{where}: boot pool {name} differs in {bad}: {p}")
        return
    m = NAMED.fullmatch(name)
    kind = m.group(1) if m else name
    if kind not in TYPE_OF:
        problems.append(f"{where}: a pool that did not exist: {p}")
    elif p["type"] not in TYPE_OF[kind] or p["owner"] != "kmp_churn":
        problems.append(f"{where}: {name} has type {p['type']}, owner {p['owner']}")
    elif "site" in p and (os.path.basename(p["site"].rpartition(":")[0]) != "kmp_churn.c" or
                          site_problem(p)):
        problems.append(f"{where}: {name} has site {p['site']}: {site_problem(p)}")
    elif "instance" in p and not (p["instance"] == "-" or kind in ("kmalloc", "private") and
                                  INSTANCE[kind].fullmatch(p["instance"])):
        problems.append(f"{where}: {name} has instance {p['instance']} (freed string?)")
    elif mixed(p, kind):
        problems.append(f"{where}: a line of two pools: {mixed(p, kind)}: {p}")
    else:
        seen.add((name, p.get("site"), p.get("instance")))
        if p.get("instance", "-") != "-":
            relabelled.add((name, p["instance"]))


def text_pools(text, rc, where, problems):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines[:1] != [f"mempool - version: {version}"] or len(lines) < 2 or \
            lines[1].split() != ["#"] + cols:
        problems.append(f"{where}: bad header {lines[:2]}")
        return []
    pools = []
    for line in lines[2:]:
        f = line.split()
        if len(f) != len(cols):
            problems.append(f"{where}: {len(f)} fields: {line!r}")
            continue
        p = dict(zip(cols, f))
        nums = [c for c in cols[2:] if c not in ("owner", "instance", "site")]
        if any(not re.fullmatch(r"-?[0-9]+", p[c]) for c in nums if c != "waiting") or \
                not (re.fullmatch(r"[0-9]+", p["waiting"]) or (p["waiting"] == "?" and rc == 7)):
            problems.append(f"{where}: a field is not a number: {line!r}")
        pools.append(p)
    return pools


runs = re.split(r"^=== run ", read(D.f("runs")), flags=re.M)[1:]
R.check(len(runs) == RUNS, f"{RUNS} kmempool runs came back ({len(runs)})")
rcs, problems, seen, lines_total, retried = {}, [], set(), 0, 0
for r in runs:
    head, _, body = r.partition("\n")
    i, fmt, _, rc = head.split()
    rc = int(rc)
    out, _, err = body.partition("--- stderr\n")
    rcs[rc] = rcs.get(rc, 0) + 1
    where = f"run {i} ({fmt}, exit {rc})"
    errl = [x for x in err.split("\n") if x]
    # -v: a walk that started again from the head says so.
    again = [x for x in errl if "changed while it was read; walked" in x]
    errl = [x for x in errl if x not in again]
    retried += bool(again)
    if rc == 0 and errl:
        problems.append(f"{where}: stderr {errl[:2]}")
    if rc == 7 and (len(errl) != 1 or "changed while" not in errl[0]):
        problems.append(f"{where}: stderr of a changed run: {errl[:3]}")
    if rc not in (0, 7):
        problems.append(f"{where}: exit {rc}: {errl[:2]}")
        continue
    if fmt == "json":
        try:
            d = json.loads(out)
            pools = [{k: str(v) if v is not None else
                      ("-" if k in ("owner", "instance") else "?")
                      for k, v in p.items()} for p in d["pools"]]
            if d["complete"] != (rc == 0) or (rc == 7 and d.get("reason_kind") != "changed"):
                problems.append(f"{where}: complete {d['complete']}, kind {d.get('reason_kind')}")
        except (ValueError, KeyError) as e:
            problems.append(f"{where}: JSON does not parse: {e}")
            continue
    else:
        pools = text_pools(out, rc, where, problems)
    lines_total += len(pools)
    for p in pools:
        check_pool(p, where, problems, seen)
R.check(not problems, f"every run complete (exit 0) or changed (exit 7): "
        f"{rcs.get(0, 0)} complete ({retried} after walking again from the head), "
        f"{rcs.get(7, 0)} changed; every one of the {lines_total} "
        f"lines a pool that existed ({len(seen)} distinct kmp_churn pools seen)",
        "\n".join(problems[:20]))
R.check("instance" not in cols or len(relabelled) >= 5,
        f"{len(relabelled)} churn pools were seen with the instance their thread "
        f"set (a<R>..., then b<R>... after the old string was freed), none with another, "
        f"and none with a size, min_nr or counters of another pool",
        sorted(relabelled)[:10])
zero = {(n, i) for n, i in relabelled if re.fullmatch(r"a[0-9]+s[0-9]+m0", i)}
R.check("instance" not in cols or zero,
        f"zero-minimum churn pools were listed ({len(zero)}; min_nr 0, up to one element "
        f"kept), not left out as corrupt", sorted(zero)[:5])
R.check(len(seen) >= 10 and rcs.get(0, 0) > 0,
        f"the runs saw the churn: {len(seen)} distinct kmp_churn pools in complete reports")
try:
    t0, t1 = (float(x) for x in read(D.f("runs.time")).split())
    print(f"# {RUNS} kmempool runs in {t1 - t0:.1f} s of guest time")
except (OSError, ValueError):
    pass

# One kmempool top: TOPS walks with the DWARF loaded once.
top = read(D.f("top"))
heads = re.findall(r"^# kmempool top - .* - refresh ([0-9]+) - ", top, re.M)
tprob, tseen = [], set()
tcols = None
for line in top.split("\n"):
    if line.startswith("# name "):
        tcols = line[2:].split()     # top's own columns (+reserve, +waits, ...; no site)
        continue
    if not line or line.startswith("#"):
        continue
    f = line.split()
    if tcols is None or len(f) != len(tcols) or "owner" not in tcols:
        tprob.append(f"{len(f)} fields for columns {tcols}: {line!r}")
        continue
    p = dict(zip(tcols, f))
    check_pool(p, "top", tprob, tseen)
partial = len(re.findall(r"list not read to its end|the list changed while read", top))
R.check(D.rc("top") in (0, 7) and len(heads) == TOPS and not tprob,
        f"kmempool top: {len(heads)} walks of /proc/kcore, {partial} of them changed, "
        f"every line a pool that existed ({len(tseen)} distinct kmp_churn pools)",
        "\n".join([f"exit {D.rc('top')}: {read(D.f('top.err'))[:300]}"] + tprob[:20]))

cnt = dict(line.split() for line in read(D.f("counters")).split("\n") if line.strip())
R.check(cnt.get("errors") == "0" and int(cnt.get("created", 0)) > 100,
        f"kmp_churn churned without errors: {cnt.get('created')} pools created, "
        f"{cnt.get('destroyed')} destroyed, {cnt.get('resized')} resizes, "
        f"{cnt.get('from_reserve')} allocations from the reserve", str(cnt))
R.check(D.rc("rmmod") == 0, "kmp_churn unloads")
end = D.pools("proc-end")
R.check([(p["name"], p["site"]) for p in end] == [(p["name"], p["site"]) for p in boot],
        f"after rmmod /proc/mempool lists the {len(boot)} boot pools again")
R.check(D.rc("kmp-end") == 0 and read(D.f("kmp-end")) == read(D.f("proc-end")),
        "after rmmod: kmempool on /proc/kcore == /proc/mempool, byte for byte",
        read(D.f("kmp-end.err")))
bad = [x for x in read(D.f("dmesg")).split("\n")
       if re.search(r"BUG|WARNING|list_(add|del) corruption|kmp_churn: .*failed", x)]
R.check(not bad, "no BUG, WARNING or list corruption in the kernel log", "\n".join(bad[:10]))
print(f"{R.group}: {R.passed} passed, {R.failed} failed")
sys.exit(1 if R.failed else 0)
