#!/usr/bin/python3
"""Check what vmcore-tests/guest/live.sh brought back from the VM.

    check_live.py OUTDIR VMLINUX MODULES_DIR "module params"

Expected sizes come from the kernel's DWARF through gdb, expected counts
from the parameters the test gave the module; nothing is copied from an
earlier run."""
import json
import os
import re
import sys

from mempool import ADDR_RE, Outdir, ParseError, Results, by_name, gdb_values, one, parse, read

OUT, VML, MODS, PARAMS = sys.argv[1:5]
R = Results("live")
P = {k: int(v) for k, v in (kv.split("=") for kv in PARAMS.split())}
BIO_INLINE_VECS = 4     # include/linux/bio.h
BIO_MAX_VECS = 256      # include/linux/bio.h
MIN_IOS = 64            # drivers/md/dm-crypt.c
DM_RESERVED_IOS = 16    # drivers/md/dm.c, RESERVED_BIO_BASED_IOS
PAGE_SIZE = 4096


D = Outdir(OUT, R)
f, rc, snap = D.f, D.rc, D.pools


def names(pools):
    return sorted(p["name"] for p in pools)


def kmp_matches(kmp, before, after, what, shown=1500):
    """kmempool's report KMP (run in the guest between the snapshots BEFORE
    and AFTER of /proc/mempool) exits 0 and equals one of them byte for
    byte; returns the report."""
    k = read(f(kmp))
    R.check(rc(kmp) == 0 and k in (read(f(before)), read(f(after))), what,
            read(f(kmp + ".err")) + k[:shown])
    return k


def multiset_minus(a, b):
    rest = list(b)
    out = []
    for p in a:
        key = (p["name"], p["type"], p["elem_size"], p["min_nr"], p["owner"])
        for i, q in enumerate(rest):
            if (q["name"], q["type"], q["elem_size"], q["min_nr"], q["owner"]) == key:
                del rest[i]
                break
        else:
            out.append(p)
    return out


# --- the file itself -----------------------------------------------------
snaps = sorted(n for n in os.listdir(OUT) if n.startswith("proc-") and n != "proc-mode")
R.check(len(snaps) >= 15, f"{len(snaps)} snapshots of /proc/mempool came back", snaps)
R.check(read(f("proc-mode")).split() == ["400", "0"], "/proc/mempool is mode 0400, owner root",
        read(f("proc-mode")))
bad = []
for n in snaps:
    try:
        parse(read(f(n)))
    except ParseError as e:
        bad.append(f"{n}: {e}")
R.check(not bad, "version line, column line and every pool line of every snapshot parse", bad)
leaks = [f"{n}: {m.group(0)}" for n in snaps for m in ADDR_RE.finditer(read(f(n)))]
R.check(not leaks, "no snapshot holds anything that looks like a kernel address", leaks)

# --- built-in pools ------------------------------------------------------
bio, bvec, dio_off, sg = gdb_values(VML, [
    "sizeof(struct bio)", "sizeof(struct bio_vec)",
    "&((struct blkdev_dio *)0)->bio", "sizeof(struct scatterlist)"])
boot = snap("proc-boot")
disks = read(f("sys-block")).split()
want = {  # name: (type, elem_size, min_nr, count)
    "fs_bio_set:bio": ("slab", bio + BIO_INLINE_VECS * bvec, 2, 1),
    "fs_bio_set:bvec": ("slab", BIO_MAX_VECS * bvec, 2, 1),
    "blkdev_dio:bio": ("slab", dio_off + bio + BIO_INLINE_VECS * bvec, 4, 1),
    "blkdev_dio:bvec": ("slab", BIO_MAX_VECS * bvec, 4, 1),
    "bio_split:bio": ("slab", bio, 2, len(disks)),
}
for n in (8, 16, 32, 64, 128):
    want[f"sgpool-{n}"] = ("slab", n * sg, 2, 1)
R.check(sorted(set(names(boot))) == sorted(want),
        "the built-in pools of this config are exactly the named ones",
        f"got {sorted(set(names(boot)))}\nwant {sorted(want)}")
insts = sorted(p["instance"] for p in by_name(boot, "bio_split:bio"))
R.check(insts == sorted(disks), "each disk's bio_split:bio names its disk as instance "
        "(format 1.2)", f"instances {insts}\ndisks {sorted(disks)}")
R.check(all(p["instance"] == "-" for p in boot if p["name"] != "bio_split:bio"),
        "the other built-in pools serve no device: instance -",
        [p for p in boot if p["name"] != "bio_split:bio" and p["instance"] != "-"])
for name, (typ, size, mn, count) in want.items():
    got = by_name(boot, name)
    R.check(len(got) == count and all(
        (p["type"], p["elem_size"], p["min_nr"], p["curr_nr"], p["low_nr"], p["owner"]) ==
        (typ, size, mn, mn, mn, "-") for p in got),
        f"{name}: {count} pool(s), {typ}, elem_size {size}, min_nr {mn}, built-in",
        got)

# --- dm-crypt --------------------------------------------------------------
R.check(rc("dmcrypt") == 0, "dmsetup created the dm-crypt target over loop0",
        read(f("modprobe.err")))
dm = snap("proc-dmcrypt")
new = multiset_minus(dm, boot)
dmcrypt_req = gdb_values(os.path.join(MODS, "dm-crypt.ko"),
                         ["sizeof(struct dm_crypt_request)"])[0]
R.check(sorted(p["name"] for p in new) == sorted([
    "bio_split:bio", "dm-crypt_req", "dm-crypt_page", "dm-crypt:bio", "dm-crypt:bvec",
    "dm-io_bs:bio", "dm-bs:bio"]), "dm-crypt adds exactly its pools and dm's",
    [p["name"] for p in new])
for name, typ, size, mn, owner in [
        ("dm-crypt_page", "private", PAGE_SIZE, BIO_MAX_VECS, "dm_crypt"),
        ("dm-crypt:bio", "slab", bio + BIO_INLINE_VECS * bvec, MIN_IOS, "dm_crypt"),
        ("dm-crypt:bvec", "slab", BIO_MAX_VECS * bvec, MIN_IOS, "dm_crypt")]:
    p = one(new, name)
    R.check(p is not None and (p["type"], p["elem_size"], p["min_nr"], p["owner"]) ==
            (typ, size, mn, owner), f"{name}: {typ}, elem_size {size}, min_nr {mn}, owner {owner}",
            p)
p = one(new, "dm-crypt_req")
R.check(p is not None and p["type"] == "kmalloc" and p["min_nr"] == MIN_IOS and
        p["owner"] == "dm_crypt" and dmcrypt_req < p["elem_size"] < PAGE_SIZE,
        f"dm-crypt_req: kmalloc, min_nr {MIN_IOS}, elem_size above "
        f"sizeof(struct dm_crypt_request) = {dmcrypt_req} (plus the cipher's request)", p)
for name in ("dm-io_bs:bio", "dm-bs:bio"):
    p = one(new, name)
    R.check(p is not None and p["type"] == "slab" and p["min_nr"] == DM_RESERVED_IOS and
            p["owner"] == "dm_mod" and p["elem_size"] > bio,
            f"{name}: slab, min_nr {DM_RESERVED_IOS}, owned by dm_mod", p)
dm_new = [p for p in new if p["name"] != "bio_split:bio"]
R.check(len(dm_new) == 6 and {p["instance"] for p in dm_new} == {"dm-0"},
        "the pools of the dm-crypt device and target all say instance dm-0",
        [(p["name"], p["instance"]) for p in dm_new])
R.check(sorted(p["instance"] for p in new if p["name"] == "bio_split:bio") == ["dm-0"],
        "the mapped device's own disk adds a bio_split:bio for dm-0",
        [(p["name"], p["instance"]) for p in new])

# --- two dm-crypt devices, told apart (format 1.2's instance) ----------------
dm2 = snap("proc-dm2")
dm2_disks = sorted(d for d in read(f("sys-block-dm2")).split() if d.startswith("dm-"))
req = by_name(dm2, "dm-crypt_req")
R.check(rc("dmcrypt2") == 0 and len(dm2_disks) == 2 and
        sorted(p["instance"] for p in req) == dm2_disks,
        f"two dm-crypt targets: two dm-crypt_req pools, instances {dm2_disks}",
        [(p["name"], p["instance"]) for p in req])
for name in ("dm-crypt_page", "dm-crypt:bio", "dm-crypt:bvec", "dm-bs:bio", "dm-io_bs:bio"):
    got = sorted(p["instance"] for p in by_name(dm2, name))
    R.check(got == dm2_disks, f"{name}: one per device, instances {dm2_disks}", got)
split2 = sorted(p["instance"] for p in by_name(dm2, "bio_split:bio"))
R.check(all(d in split2 for d in dm2_disks + ["loop0", "loop1"]),
        "bio_split:bio of loop0, loop1 and both dm devices are there by instance", split2)
kmp_matches("kmp-dm2", "proc-dm2", "proc-dm2-after",
            "kmempool on /proc/kcore prints the instances byte for byte")
R.check(rc("dmremove2") == 0 and names(snap("proc-dmremove2")) == names(boot),
        "both devices removed: their pools are gone", names(snap("proc-dmremove2")))
# --- a dm-snapshot: helpers' pools named after their callers (10-11/14) -------
snapnew = multiset_minus(snap("proc-snap"), snap("proc-dmremove2"))
want_snap = {f"dm_snapshot:snapshot_ctr:kcopyd{k}" for k in
             ("", ":dm-io", ":dm-io:bio", ":dm-io:bvec")}
want_snap |= {f"dm_snapshot:read_header:dm-io{k}" for k in ("", ":bio", ":bvec")}
want_snap.add("dm_snapshot:snapshot_ctr")
R.check(rc("dmsnap") == 0 and
        {p["name"] for p in snapnew if p["owner"] == "dm_snapshot"} == want_snap and
        len([p for p in snapnew if p["owner"] == "dm_snapshot"]) == len(want_snap),
        "dm-snapshot's kcopyd and dm-io clients are named after dm-snapshot's "
        "functions and owned by dm_snapshot (8 pools)",
        sorted((p["name"], p["owner"]) for p in snapnew))
R.check(not [p for p in snap("proc-snap") if p["name"] in
             ("dm-io_client", "dm-io:bio", "dm_mod:dm_kcopyd_client_create")],
        "no pool carries a helper's own name (dm-io_client, dm_mod:dm_kcopyd_client_create)",
        names(snap("proc-snap")))
R.check(one(snapnew, "dm_snapshot:snapshot_ctr:kcopyd:dm-io") is not None and
        one(snapnew, "dm_snapshot:snapshot_ctr:kcopyd:dm-io")["min_nr"] == DM_RESERVED_IOS and
        one(snapnew, "dm_snapshot:snapshot_ctr:kcopyd:dm-io")["type"] == "slab",
        f"the kcopyd client's dm-io pool: slab, min_nr {DM_RESERVED_IOS}",
        one(snapnew, "dm_snapshot:snapshot_ctr:kcopyd:dm-io"))
kmp_matches("kmp-snap", "proc-snap", "proc-snap-after",
            "kmempool on /proc/kcore prints the snapshot's pools byte for byte")
R.check(rc("dmsnapremove") == 0 and rc("rmmod-snap") == 0 and
        names(snap("proc-snapremove")) == names(snap("proc-dmremove2")),
        "snapshot removed, dm_snapshot unloaded: its pools are gone",
        names(multiset_minus(snap("proc-snapremove"), snap("proc-dmremove2"))))
# --- a thin pool and an era target: block managers named after them (12/14) --
pdnew = multiset_minus(snap("proc-pd"), snap("proc-snapremove"))
PD_OWNER = {"dm_thin_pool:__create_persistent_data_objects:bufio:dm-io": "dm_thin_pool",
            "dm_era:create_persistent_data_objects:bufio:dm-io": "dm_era"}
want_pd = {(n + k, o) for n, o in PD_OWNER.items() for k in ("", ":bio", ":bvec")}
got_pd = sorted((p["name"], p["owner"]) for p in pdnew if ":bufio:" in p["name"])
R.check(rc("dmpd") == 0 and set(got_pd) == want_pd and len(got_pd) == len(want_pd),
        "thin-pool and era: each block manager's bufio pools are named after the "
        "target's function and owned by its module (6 pools)",
        read(f("dmpd.err")) + str(sorted((p["name"], p["owner"]) for p in pdnew)))
R.check(rc("dmpd") == 0 and
        not [p for p in snap("proc-pd") if p["owner"] == "dm_persistent_data" or
             p["name"].startswith("dm_persistent_data:")],
        "no pool carries the block manager's own name (dm_persistent_data:...)",
        names(snap("proc-pd")))
kmp_matches("kmp-pd", "proc-pd", "proc-pd-after",
            "kmempool on /proc/kcore prints the thin pool's and era's pools byte for byte")
R.check(rc("dmpdremove") == 0 and rc("rmmod-pd") == 0 and
        names(snap("proc-pdremove")) == names(snap("proc-snapremove")),
        "thin pool and era removed, modules unloaded: their pools are gone",
        names(multiset_minus(snap("proc-pdremove"), snap("proc-snapremove"))))
R.check(multiset_minus(snap("proc-dmremove"), boot) == [] and
        len(snap("proc-dmremove")) == len(boot) and rc("dmremove") == 0,
        "after dmsetup remove the target's pools are gone",
        names(multiset_minus(snap("proc-dmremove"), boot)))
after = snap("proc-dm-rmmod")
R.check(rc("rmmod-dm") == 0 and not [p for p in after if p["owner"] in ("dm_crypt", "dm_mod")]
        and names(after) == names(boot), "after rmmod dm_crypt dm_mod no dm pool is left",
        names(after))

# --- the test module -------------------------------------------------------
R.check(rc("insmod") == 0, "kmp_test.ko loads with the test's parameters", PARAMS)
mod = snap("proc-module")
added = multiset_minus(mod, dm)
want_mod = {
    "kmp_test_slab": ("slab", P["slab_size"], P["slab_min"]),
    "kmp_test_kmalloc": ("kmalloc", P["kmalloc_size"], P["kmalloc_min"]),
    "kmp_test_page": ("page", PAGE_SIZE << P["page_order"], P["page_min"]),
    "kmp_test_private": ("private", P["private_size"], P["private_min"]),
    "kmp_test:kmp_test_init": ("kmalloc", P["unnamed_size"], P["unnamed_min"]),
}
R.check(sorted(p["name"] for p in added) == sorted(want_mod),
        "the module adds exactly its five pools (one unnamed, default name)",
        [p["name"] for p in added])
for name, (typ, size, mn) in want_mod.items():
    p = one(added, name)
    R.check(p is not None and (p["type"], p["elem_size"], p["min_nr"], p["curr_nr"], p["low_nr"],
                               p["from_reserve"], p["waits"], p["waiting"], p["owner"]) ==
            (typ, size, mn, mn, mn, 0, 0, 0, "kmp_test"),
            f"{name}: {typ}, elem_size {size}, min_nr {mn}, full reserve, owner kmp_test", p)
got = {p["name"]: p["instance"] for p in added}
R.check(got == {"kmp_test_slab": "kmp-slab0", "kmp_test_private": "kmp-private0",
                "kmp_test_kmalloc": "-", "kmp_test_page": "-", "kmp_test:kmp_test_init": "-"},
        "mempool_set_instance(): set, replaced (kmp_test_slab: first, then kmp-slab0), "
        "others -", got)


def pool(snapname, name):
    return one(snap(snapname), name)


km = P["kmalloc_min"]
d = pool("proc-drain", "kmp_test_kmalloc")
R.check(d is not None and (d["curr_nr"], d["low_nr"], d["from_reserve"], d["waits"]) ==
        (km - 2, km - 2, 2, 0), "drain 2: curr_nr and low_nr drop by 2, from_reserve 2", d)
d = pool("proc-refill", "kmp_test_kmalloc")
R.check(d is not None and (d["curr_nr"], d["low_nr"], d["from_reserve"]) == (km, km - 2, 2),
        "refill: curr_nr back to min_nr, low_nr keeps the low mark", d)
sm = P["slab_min"]
d = pool("proc-drain-over", "kmp_test_slab")
R.check(d is not None and (d["curr_nr"], d["low_nr"], d["from_reserve"], d["waits"]) ==
        (0, 0, sm, 0), "drain past min_nr with GFP_NOWAIT: reserve empty, nobody waits", d)
d = pool("proc-refill-over", "kmp_test_slab")
R.check(d is not None and d["curr_nr"] == sm and d["low_nr"] == 0, "refill after emptying", d)

# --- a corrupt prev link in the running kernel ----------------------------
full = read(f("proc-corrupt")).splitlines(keepends=True)
cut = next((i for i, ln in enumerate(full) if ln.startswith("kmp_test_page ")), None)
err = read(f("kmp-corrupt.err"))
R.check(rc("kmp-corrupt") == 5 and cut is not None and
        read(f("kmp-corrupt")) == "".join(full[:cut]) and err.count("\n") == 1 and
        "broken prev link" in err and "0xdead000000000400" in err and "last good node" in err,
        "corrupt prev link on /proc/kcore: exit 5, the pools before it, one line naming it",
        err + read(f("kmp-corrupt"))[-600:])
try:
    j = json.loads(read(f("kmp-corrupt-json")))
    ok = j["complete"] is False and len(j["pools"]) == (cut or 0) - 2
except (ValueError, KeyError, TypeError):
    ok = False
R.check(ok, "the JSON of that partial report says complete: false")
R.check(rc("kmp-repaired") == 0 and read(f("kmp-repaired")) == read(f("proc-repaired")),
        "after the repair the report is complete again")

# --- blocked tasks, live --------------------------------------------------
pm = P["page_min"]
b = pool("proc-block", "kmp_test_page")
R.check(b is not None and b["curr_nr"] == 0 and b["waiting"] == 3 and b["waits"] == 3 and
        b["from_reserve"] == pm, "block 3: reserve empty, 3 tasks waiting, waits 3", b)
ps = [ln.split() for ln in read(f("ps-block")).splitlines()[1:]]
waiter_pids = sorted(int(x[0]) for x in ps if len(x) >= 2 and x[1] == "kmp_waiter")
text = read(f("kmp-waiters"))
listed = [(int(m.group(1)), m.group(2), m.group(3))
          for m in re.finditer(r"^    pid (\d+)\s+(\S+)\s+(\S) ", text, re.M)]
pool_lines = [ln for ln in text.splitlines()[2:] if not ln.startswith("    ")]
R.check(rc("kmp-waiters") == 0 and len(pool_lines) == 1 and
        pool_lines[0].split()[0] == "kmp_test_page" and
        sorted(p for p, _, _ in listed) == waiter_pids and len(waiter_pids) == 3 and
        all(c == "kmp_waiter" and s == "D" for _, c, s in listed),
        "kmempool waiters on /proc/kcore lists exactly the 3 blocked kmp_waiter tasks, state D",
        f"{text}\nps pids {waiter_pids}\n{read(f('kmp-waiters.err'))}")
try:
    j = json.loads(read(f("kmp-waiters-json")))
    jp = j["pools"]
    ok = (len(jp) == 1 and jp[0]["name"] == "kmp_test_page" and
          sorted(w["pid"] for w in jp[0]["waiters"]) == waiter_pids and
          j["kernel"]["format"] == "kcore")
except (ValueError, KeyError, IndexError, TypeError) as e:
    ok, jp = False, e
R.check(ok, "kmempool waiters --format=json: the same pool and tasks", jp)
r = pool("proc-release", "kmp_test_page")
R.check(r is not None and r["waiting"] == 0 and r["curr_nr"] == pm,
        "release: waiters gone, reserve full", r)
R.check("# no task is waiting on any mempool" in read(f("kmp-waiters-none")) and
        rc("kmp-waiters-none") == 0, "kmempool waiters with nobody waiting says so")
R.check(rc("rmmod") == 0 and not [p for p in snap("proc-rmmod") if p["owner"] == "kmp_test"],
        "rmmod kmp_test: its pools are gone")

# --- format 1.1: failed, emptied, waits once per call, reset on reinit ------
R.check(read(f("proc-boot")).split("\n")[:2] == [
    "mempool - version: 1.2",
    "# name                   type    elem_size min_nr curr_nr low_nr from_reserve    waits "
    "waiting owner failed emptied oldest_wait instance"], "this kernel's /proc/mempool is "
    "format 1.2: failed, emptied, oldest_wait and instance appended",
    read(f("proc-boot"))[:300])
pv = P["private_min"]
d = pool("proc-atomic", "kmp_test_private")
R.check(d is not None and (d["curr_nr"], d["low_nr"], d["from_reserve"], d["emptied"],
                           d["failed"], d["waits"]) == (0, 0, pv, 1, 8 - pv, 0),
        f"8 GFP_ATOMIC allocations, allocator failing: {pv} from the reserve, emptied 1, "
        f"failed {8 - pv}, no wait", d)
d = pool("proc-atomic-refill", "kmp_test_private")
R.check(d is not None and (d["curr_nr"], d["low_nr"], d["emptied"], d["failed"]) ==
        (pv, 0, 1, 8 - pv), "refill: reserve full, the counters keep their values", d)
d = pool("proc-block12", "kmp_test_private")
R.check(d is not None and (d["curr_nr"], d["waiting"], d["waits"], d["from_reserve"],
                           d["emptied"], d["failed"]) == (0, 1, 1, 2 * pv, 2, 8 - pv + 1),
        "one task blocked 17 s (three 5 s timeouts) in mempool_alloc(): waits 1, not 4; "
        "the blocking caller never counts as failed", d)
R.check(d is not None and 15 <= d["oldest_wait"] <= 25 and d["instance"] == "kmp-private0",
        "oldest_wait: the waiter has waited 15-25 s (slept 17 s after blocking)", d)
R.check(all(p["oldest_wait"] == 0 for p in snap("proc-block12") if not p["waiting"]),
        "oldest_wait is 0 on every pool nobody waits on")


def same_but_wait(k, before, after):
    """k equals before/after except oldest_wait, which lies between theirs."""
    try:
        kp, bp, ap = parse(k), parse(before), parse(after)
    except ParseError as e:
        return False, e
    strip = [{c: v for c, v in p.items() if c != "oldest_wait"} for p in kp]
    if k.split("\n")[:2] != before.split("\n")[:2] or len(kp) != len(bp) or len(kp) != len(ap):
        return False, "header or pool count differs"
    for i, (x, b, a) in enumerate(zip(kp, bp, ap)):
        if strip[i] != {c: v for c, v in b.items() if c != "oldest_wait"} or \
                not b["oldest_wait"] <= x["oldest_wait"] <= a["oldest_wait"]:
            return False, f"line {i + 3}: {x} vs {b} .. {a}"
    return True, ""


ok, why = same_but_wait(read(f("kmp-block12")), read(f("proc-block12")),
                        read(f("proc-block12-after")))
R.check(rc("kmp-block12") == 0 and ok,
        "kmempool on /proc/kcore prints the 1.2 report byte for byte, waiter sleeping "
        "(oldest_wait between the file's before and after)",
        f"{why}\n" + read(f("kmp-block12.err")) + read(f("kmp-block12"))[-400:])
wt = re.findall(r"^    pid \d+\s+kmp_waiter\s+D \(uninterruptible\), waiting for (\d+) s$",
                read(f("kmp-waiters12")), re.M)
R.check(rc("kmp-waiters12") == 0 and len(wt) == 1 and 15 <= int(wt[0]) <= 25,
        "kmempool waiters says how long the task has waited (15-25 s)",
        read(f("kmp-waiters12")) + read(f("kmp-waiters12.err")))
try:
    jw = json.loads(read(f("kmp-waiters12-json")))["pools"]
    ok = len(jw) == 1 and jw[0]["instance"] == "kmp-private0" and \
        15 <= jw[0]["oldest_wait"] <= 25 and 15 <= jw[0]["waiters"][0]["waited"] <= 25
except (ValueError, KeyError, IndexError, TypeError) as e:
    ok, jw = False, e
R.check(ok, "the JSON has oldest_wait, instance and each waiter's waited", jw)
st = read(f("dmesg-stall"))
st = st[st.find("KMP-MARK-STALL"):]
infos = re.findall(r"INFO: task kmp_waiter:\d+ blocked for more than 10 seconds in "
                   r"mempool_alloc\(\)\.", st)
R.check(len(infos) == 1 and re.search(
    r"pool kmp_test_private, instance kmp-private0, owner kmp_test: 0 other tasks waiting, "
    r"the longest for 1\d seconds", st) and "mempool_alloc" in st[st.find("Call Trace"):],
    "past hung_task_timeout_secs the kernel warns once, naming pool, instance and owner, "
    "with the waiting task's stack", st[:3000])
R.check("Kernel panic" not in st and "blocked for more than" not in st.replace(
    infos[0] if infos else "@@", "", 1),
    "no second warning for the same allocation, and no panic (hung_task_panic is 0)",
    st[:3000])
d = pool("proc-block12-release", "kmp_test_private")
R.check(d is not None and (d["waiting"], d["waits"], d["curr_nr"]) == (0, 1, pv),
        "release: the waiter got its element, waits still 1", d)
d = pool("proc-reinit", "kmp_test_private")
R.check(rc("reinit") == 0 and d is not None and
        (d["curr_nr"], d["low_nr"], d["from_reserve"], d["waits"], d["failed"],
         d["emptied"], d["waiting"]) == (pv, pv, 0, 0, 0, 0, 0),
        "mempool_exit() and init again in the same memory: every counter starts from 0", d)
R.check(d is not None and d["instance"] == "-",
        "and the instance (kmp-private0) is gone with mempool_exit()", d)
dm_ = read(f("dmesg-listed"))
dm_ = dm_[dm_.find("KMP-MARK-LISTED"):]
R.check(rc("init-listed") != 0 and "Device or resource busy" in read(f("init-listed.err")) and
        "mempool: initializing kmp_test_kmalloc, which is still initialized" in dm_ and
        "WARNING:" in dm_, "initializing a pool that is still listed: WARN in dmesg, "
        "refused with EBUSY", read(f("init-listed.err")) + dm_[:1500])
R.check(rc("move-listed") != 0 and "Device or resource busy" in read(f("move-listed.err")) and
        "mempool: moving kmp_test_moved onto kmp_test_kmalloc, which is still initialized"
        in dm_, "mempool_move() onto a listed pool: WARN in dmesg, refused with EBUSY",
        read(f("move-listed.err")) + dm_[:1500])
before_l, after_l = snap("proc-reinit"), snap("proc-listed")
R.check(after_l == before_l and rc("kmp-listed") == 0 and
        read(f("kmp-listed")) == read(f("proc-listed")),
        "after the refusals the list is unchanged and walks cleanly (kmempool == file)",
        read(f("kmp-listed.err")))

# --- kmempool on /proc/kcore == cat /proc/mempool --------------------------
for kmp, before, after_ in [("kmp-boot", "proc-boot", "proc-boot-after"),
                            ("kmp-module", "proc-module", "proc-module-after"),
                            ("kmp-end", "proc-end", "proc-end")]:
    kmp_matches(kmp, before, after_,
                f"{kmp}: kmempool on /proc/kcore prints exactly cat /proc/mempool "
                f"({len(read(f(kmp)).splitlines()) - 2} pools)", 2000)
R.check(len(parse(read(f("kmp-module")))) >= len(boot) + 12,
        "that comparison included dm-crypt's and the module's pools")
try:
    j = json.loads(read(f("kmp-module-json")))
    text_pools = parse(read(f("kmp-module")))
    ok = j["complete"] is True and len(j["pools"]) == len(text_pools) and all(
        jp["name"] == tp["name"] and jp["elem_size"] == tp["elem_size"] and
        jp["curr_nr"] == tp["curr_nr"] and (jp["owner"] or "-") == tp["owner"]
        for jp, tp in zip(j["pools"], text_pools))
except (ValueError, KeyError, TypeError) as e:
    ok = False
R.check(ok, "kmempool --format=json holds the same pools as the text report")

# --- kmempool info -------------------------------------------------------------
info = read(f("kmp-info"))
rel = read(f("uname")).strip()
kv = dict(re.findall(r"^([a-z ]+):\s+(.*)$", info, re.M))
R.check(rc("kmp-info") == 0 and kv.get("release") == rel and kv.get("dump format") == "kcore",
        f"kmempool info names the running release {rel} and the source kcore", info)
R.check(int(kv.get("kaslr offset", "0"), 16) != 0, "KASLR is on (nonzero offset)", info)
try:
    ij = json.loads(read(f("kmp-info-json")))
    ok = ij["release"] == rel and ij["build_id"] == kv.get("build id")
except (ValueError, KeyError) as e:
    ok = False
R.check(ok, "kmempool info --format=json agrees")

# --- finding the vmlinux without -s -------------------------------------------
R.check(rc("kmp-autofind") == 0 and read(f("kmp-autofind")) == read(f("proc-autofind")) and
        f"vmlinux:        /boot/vmlinux-{rel}" in read(f("kmp-autofind-info")),
        f"without -s kmempool finds /boot/vmlinux-{rel} (build ID checked) and reports",
        read(f("kmp-autofind.err")) + read(f("kmp-autofind-info")))
R.check(rc("kmp-notfound") == 3 and "no vmlinux found for release " + rel in
        read(f("kmp-notfound.err")), "with no vmlinux anywhere: exit 3, one line saying so",
        read(f("kmp-notfound.err")))

print(f"live: {R.passed} passed, {R.failed} failed")
sys.exit(1 if R.failed else 0)
