#!/usr/bin/python3
"""Check what guest/md.sh brought back: md raid1's pools, their instances,
a restart in place and raid1_reshape()'s new r1bio pool.  Expected names
and sites come from the patched tree (build/src, mempool.py).

    check_md.py OUTDIR RAID1_KO"""
import sys

from mempool import Outdir, Results, by_name, find_line, gdb_values, one, read, tree_path, tree_site

OUT, RAID1 = sys.argv[1:3]
R = Results("md")
D = Outdir(OUT, R)
NR_RAID_BIOS = 256      # drivers/md/raid1.c
bios_off, ptr = gdb_values(RAID1, ["&((struct r1bio *)0)->bios", "sizeof(void *)"])


def r1bio_size(disks):
    return bios_off + 2 * disks * ptr   # offsetof(struct r1bio, bios[raid_disks * 2])


def names(pools):
    return sorted(p["name"] for p in pools)


def keys(pools):
    return sorted((p["name"], p["site"]) for p in pools)


def bioset(path, needle):
    line, func = find_line(path, needle)
    return func, tree_site(path, line)


md_fn, bs_site = bioset("drivers/md/md.c", "bioset_init(&mddev->bio_set")
_, sync_site = bioset("drivers/md/md.c", "bioset_init(&mddev->sync_set")
_, clone_site = bioset("drivers/md/md.c", "bioset_init(&mddev->io_clone_set")
r1_fn, split_site = bioset("drivers/md/raid1.c", "bioset_init(&conf->bio_split")
disk_fn, disk_site = bioset("block/genhd.c", "bioset_init(&disk->bio_split")
before, md, grown = D.pools("proc-before"), D.pools("proc-md"), D.pools("proc-grown")
R.check(D.rc("mdadm-create") == 0, "mdadm --create: raid1 over loop1 and loop2",
        read(D.f("mdadm-create.log")))
added = list(md)
for p in before:
    for i, q in enumerate(added):
        if q == p:
            del added[i]
            break
r1bio = one(added, "md_r1bio")
want = {  # (name, site): (owner, instance)
    (f"{disk_fn}:bio", disk_site): ("-", "md0"),
    (f"{md_fn}:bio", bs_site): ("md_mod", "-"), (f"{md_fn}:bvec", bs_site): ("md_mod", "-"),
    (f"{md_fn}:bio", sync_site): ("md_mod", "-"), (f"{md_fn}:bvec", sync_site): ("md_mod", "-"),
    (f"{md_fn}:bio", clone_site): ("md_mod", "-"),
    ("md_r1bio", r1bio["site"] if r1bio else "?"): ("raid1", "md0"),
    (f"{r1_fn}:bio", split_site): ("raid1", "md0"),
}
R.check(r1bio is not None and tree_path(r1bio["site"]).startswith("drivers/md/raid1.c:") and
        abs(int(r1bio["site"].split(":")[1]) - find_line("drivers/md/raid1.c",
            'mempool_create_kmalloc_pool_named("md_r1bio",')[0]) <= 3,
        "md_r1bio's site is raid1's mempool_create_kmalloc_pool_named() call", r1bio)
R.check(sorted((p["name"], p["site"], p["owner"], p["instance"]) for p in added) ==
        sorted((n, s, o, i) for (n, s), (o, i) in want.items()),
        "the array adds exactly the md core's three bio_sets (named after "
        f"{md_fn}), raid1's md_r1bio and bio_split and md0's disk's, with their owners; "
        "raid1's and the disk's say instance md0",
        sorted((p["name"], p["site"], p["owner"], p["instance"]) for p in added))
md2 = D.pools("proc-md2")
R.check(D.rc("mdadm-create2") == 0 and all(
    sorted(p["instance"] for p in md2 if (p["name"], p["site"]) == k) == ["md0", "md1"]
    for k, (o, i) in want.items() if i == "md0"),
    "a second array md1: raid1's pools and its disk's are there twice, told apart as md0 and md1",
    [(p["name"], p["instance"]) for p in md2 if p["instance"].startswith("md")])
R.check(D.rc("kmp-md2") == 0 and read(D.f("kmp-md2")) in
        (read(D.f("proc-md2")), read(D.f("proc-md2-after"))),
        "kmempool prints the two arrays' pools byte for byte", read(D.f("kmp-md2.err")))
# The md1 gendisk's bio_split goes when md frees the mddev, later.
R.check(D.rc("mdadm-stop2") == 0 and [
    p for p in D.pools("proc-md2-stopped")
    if (p["site"], p["instance"]) != (disk_site, "md1")] == md,
        "mdadm --stop /dev/md1: md1's pools are gone (its disk's may linger), md0's unchanged",
        [(p["name"], p["instance"]) for p in D.pools("proc-md2-stopped")])
p = one(md, "md_r1bio")
R.check(p is not None and (p["type"], p["min_nr"], p["elem_size"]) ==
        ("kmalloc", NR_RAID_BIOS, r1bio_size(2)),
        f"md_r1bio: kmalloc, min_nr {NR_RAID_BIOS}, elem_size {r1bio_size(2)} for 2 disks", p)
R.check(D.rc("kmp-md") == 0 and read(D.f("kmp-md")) == read(D.f("proc-md")),
        "kmempool on /proc/kcore prints exactly /proc/mempool with the array running",
        read(D.f("kmp-md.err")))
R.check(D.rc("insmod") == 0, "kmp_test.ko loads with the addresses of mempool_list and "
        "mempool_lock")
MB = (f"{md_fn}:bio", bs_site)


def mdbio(pools):
    return [p for p in pools if (p["name"], p["site"]) == MB]


mb = mdbio(md)
pk = mdbio(D.pools("proc-poked"))
R.check(D.rc("poke") == 0 and len(mb) == 1 and len(pk) == 1 and
        (pk[0]["from_reserve"], pk[0]["low_nr"], pk[0]["curr_nr"]) ==
        (mb[0]["from_reserve"] + 2, mb[0]["min_nr"] - 2, mb[0]["min_nr"]),
        f"2 allocations from mddev->bio_set's reserve ({MB[0]}, {MB[1]}; allocator failing) "
        "are counted", pk)
R.check(D.rc("md-inactive") == 0 and not mdbio(D.pools("proc-inactive")),
        "array_state inactive: the array's bio_sets are exited, their pools gone",
        names(D.pools("proc-inactive")))
rs = mdbio(D.pools("proc-restarted"))
R.check(D.rc("md-active") == 0 and read(D.f("md-state")).strip() in ("clean", "active") and
        len(rs) == 1 and
        (rs[0]["from_reserve"], rs[0]["low_nr"], rs[0]["curr_nr"], rs[0]["waits"],
         rs[0].get("failed"), rs[0].get("emptied")) ==
        (0, rs[0]["min_nr"], rs[0]["min_nr"], 0, 0, 0),
        "array_state active again: mddev->bio_set's pool re-initialized in the same memory starts "
        "from 0 (from_reserve, low_nr, waits, failed, emptied)", rs)
R.check(names(D.pools("proc-restarted")) == names(md),
        "after the restart the same pools as before the stop", sorted(
            set(names(D.pools("proc-restarted"))) ^ set(names(md))))
R.check(D.rc("mdadm-grow") == 0 and read(D.f("raid-disks")).strip() == "3",
        "mdadm --grow --raid-devices=3 (raid1_reshape)", read(D.f("mdadm-grow.log")))
g = by_name(grown, "md_r1bio")
R.check(len(g) == 1 and g[0]["elem_size"] == r1bio_size(3) and g[0]["min_nr"] == NR_RAID_BIOS
        and g[0]["curr_nr"] == NR_RAID_BIOS,
        f"after the reshape one md_r1bio, elem_size {r1bio_size(3)} for 3 disks, full", g)
R.check(len(g) == 1 and r1bio is not None and g[0]["instance"] == "md0" and g[0]["site"] != r1bio["site"],
        "the r1bio pool raid1_reshape() created in its place says instance md0 (its own site)", g)
R.check(names(grown) == names(md), "after the reshape the same pool names, none lost "
        "or doubled", sorted(set(names(grown)) ^ set(names(md))))
R.check(D.rc("kmp-grown") == 0 and read(D.f("kmp-grown")) in
        (read(D.f("proc-grown")), read(D.f("proc-grown-after"))),
        "after the reshape the list walks cleanly (prev links checked) and matches the file",
        read(D.f("kmp-grown.err")))
R.check(D.rc("mdadm-stop") == 0 and D.rc("rmmod-md") == 0 and
        read(D.f("proc-md-rmmod")) == read(D.f("proc-before")) and D.rc("kmp-md-rmmod") == 0,
        "after mdadm --stop and rmmod raid1 md_mod the list is as before the array")
print(f"md: {R.passed} passed, {R.failed} failed")
sys.exit(1 if R.failed else 0)
