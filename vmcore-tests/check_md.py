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
R1BIO_SITE = tree_site("drivers/md/raid1.c", find_line(
    "drivers/md/raid1.c", 'conf->r1bio_pool = mempool_create_kmalloc_pool_named("md_r1bio",')[0])
RESHAPE_SITE = tree_site("drivers/md/raid1.c", find_line(
    "drivers/md/raid1.c", 'newpool = mempool_create_kmalloc_pool_named("md_r1bio",')[0])
R.check(r1bio is not None and r1bio["site"] == R1BIO_SITE,
        f"md_r1bio's site is raid1's mempool_create_kmalloc_pool_named() call ({R1BIO_SITE})",
        r1bio)
R.check(sorted((p["name"], p["site"], p["owner"], p["instance"]) for p in added) ==
        sorted((n, s, o, i) for (n, s), (o, i) in want.items()),
        "the array adds exactly the md core's three bio_sets (named after "
        f"{md_fn}), raid1's md_r1bio and bio_split and md0's disk's, with their owners; "
        "raid1's and the disk's say instance md0",
        sorted((p["name"], p["site"], p["owner"], p["instance"]) for p in added))
md2 = D.pools("proc-md2")
R.check(D.rc("mdadm-create2") == 0 and all(
    sorted(p["instance"] for p in md2 if (p["name"], p["site"]) == k and
           p["instance"].startswith("md")) == ["md0", "md1"]
    for k, (o, i) in want.items() if i == "md0"),
    "a second array md1: raid1's pools and its disk's are there twice, told apart as md0 and md1",
    [(p["name"], p["instance"]) for p in md2 if p["instance"].startswith("md")])
R.check(D.rc("kmp-md2") == 0 and read(D.f("kmp-md2")) in
        (read(D.f("proc-md2")), read(D.f("proc-md2-after"))),
        "kmempool prints the two arrays' pools byte for byte", read(D.f("kmp-md2.err")))
# The md1 gendisk's bio_split and md1's mddev bio_sets go when md frees the
# mddev, later; raid1's pools go with the stop.
stopped = D.pools("proc-md2-stopped")
left = list(stopped)
for p in md:
    if p in left:
        left.remove(p)
R.check(D.rc("mdadm-stop2") == 0 and
        not [p for p in stopped if p["owner"] == "raid1" and p["instance"] == "md1"] and
        all(p["site"] in (disk_site, bs_site, sync_site, clone_site) for p in left) and
        len(left) == len(stopped) - len(md),
        "mdadm --stop /dev/md1: raid1's md1 pools are gone, md0's unchanged (md1's disk "
        "and mddev bio_sets may linger until md frees the mddev)",
        [(p["name"], p["instance"], p["site"]) for p in left])
p = one(md, "md_r1bio")
R.check(p is not None and (p["type"], p["min_nr"], p["elem_size"]) ==
        ("kmalloc", NR_RAID_BIOS, r1bio_size(2)),
        f"md_r1bio: kmalloc, min_nr {NR_RAID_BIOS}, elem_size {r1bio_size(2)} for 2 disks", p)
R.check(D.rc("kmp-md") == 0 and read(D.f("kmp-md")) == read(D.f("proc-md")),
        "kmempool on /proc/kcore prints exactly /proc/mempool with the array running",
        read(D.f("kmp-md.err")))
R.check(D.rc("insmod") == 0, "kmp_test.ko loads with the addresses of mempool_list and "
        "mempool_lock")
# raid1's bio_split of md0: exited when the array goes inactive, initialized
# again when it is active (7.2's md core bio_sets live with the mddev).
MB = (f"{r1_fn}:bio", split_site)


def mdbio(pools):
    return [p for p in pools if (p["name"], p["site"]) == MB and p["instance"] == "md0"]


mb = mdbio(md)
pk = mdbio(D.pools("proc-poked"))
R.check(D.rc("poke") == 0 and len(mb) == 1 and len(pk) == 1 and
        (pk[0]["from_reserve"], pk[0]["low_nr"], pk[0]["curr_nr"]) ==
        (mb[0]["from_reserve"] + 2, mb[0]["min_nr"] - 2, mb[0]["min_nr"]),
        f"2 allocations from raid1's bio_split reserve ({MB[0]}, {MB[1]}; allocator failing) "
        "are counted", pk)
R.check(D.rc("md-inactive") == 0 and not mdbio(D.pools("proc-inactive")) and
        not [p for p in D.pools("proc-inactive") if p["owner"] == "raid1"],
        "array_state inactive: raid1's pools are exited, gone from the list",
        names(D.pools("proc-inactive")))
rs = mdbio(D.pools("proc-restarted"))
R.check(D.rc("md-active") == 0 and read(D.f("md-state")).strip() in ("clean", "active") and
        len(rs) == 1 and
        (rs[0]["from_reserve"], rs[0]["low_nr"], rs[0]["curr_nr"], rs[0]["waits"],
         rs[0].get("failed"), rs[0].get("emptied")) ==
        (0, rs[0]["min_nr"], rs[0]["min_nr"], 0, 0, 0),
        "array_state active again: raid1's bio_split pool initialized again starts "
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
R.check(len(g) == 1 and g[0]["instance"] == "md0" and g[0]["site"] == RESHAPE_SITE,
        f"the r1bio pool raid1_reshape() created in its place says instance md0, site "
        f"{RESHAPE_SITE}", g)
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
