#!/usr/bin/python3
"""Check what guest/md.sh brought back: md raid1's pools, and the list
after raid1_reshape() moved the r1bio pool (mempool_move()).

    check_md.py OUTDIR RAID1_KO"""
import sys

from mempool import Outdir, Results, by_name, gdb_values, one, read

OUT, RAID1 = sys.argv[1:3]
R = Results("md")
D = Outdir(OUT, R)
NR_RAID_BIOS = 256      # drivers/md/raid1.c
bios_off, ptr = gdb_values(RAID1, ["&((struct r1bio *)0)->bios", "sizeof(void *)"])


def r1bio_size(disks):
    return bios_off + 2 * disks * ptr   # r1bio_size(): bios[raid_disks * 2]


def names(pools):
    return sorted(p["name"] for p in pools)


before, md, grown = D.pools("proc-before"), D.pools("proc-md"), D.pools("proc-grown")
R.check(D.rc("mdadm-create") == 0, "mdadm --create: raid1 over loop1 and loop2",
        read(D.f("mdadm-create.log")))
added = list(md)
for p in before:
    for i, q in enumerate(added):
        if q == p:
            del added[i]
            break
want = {"bio_split:bio": "-", "md_bio_set:bio": "md_mod", "md_bio_set:bvec": "md_mod",
        "md_sync_set:bio": "md_mod", "md_sync_set:bvec": "md_mod", "md_io_acct:bio": "md_mod",
        "md_r1bio": "raid1", "md_raid1_split:bio": "raid1"}
R.check(sorted((p["name"], p["owner"]) for p in added) == sorted(want.items()),
        "the array adds exactly the md core's and raid1's named pools, with their owners",
        [(p["name"], p["owner"]) for p in added])
R.check(all(p["instance"] == "md0" for p in added),
        "every pool the array adds says instance md0 (format 1.2)",
        [(p["name"], p["instance"]) for p in added])
md2 = D.pools("proc-md2")
R.check(D.rc("mdadm-create2") == 0 and all(
    sorted(p["instance"] for p in by_name(md2, n)) == ["md0", "md1"]
    for n in want if n != "bio_split:bio") and
    {"md0", "md1"} <= {p["instance"] for p in by_name(md2, "bio_split:bio")},
    "a second array md1: each of its pools is there twice, told apart as md0 and md1",
    [(p["name"], p["instance"]) for p in md2 if p["instance"].startswith("md")])
R.check(D.rc("kmp-md2") == 0 and read(D.f("kmp-md2")) in
        (read(D.f("proc-md2")), read(D.f("proc-md2-after"))),
        "kmempool prints the two arrays' pools byte for byte", read(D.f("kmp-md2.err")))
# The md1 gendisk (its bio_split:bio) goes when md frees the mddev, later.
R.check(D.rc("mdadm-stop2") == 0 and [
    p for p in D.pools("proc-md2-stopped")
    if (p["name"], p["instance"]) != ("bio_split:bio", "md1")] == md,
        "mdadm --stop /dev/md1: md1's pools are gone (its disk's may linger), md0's unchanged",
        [(p["name"], p["instance"]) for p in D.pools("proc-md2-stopped")])
p = one(md, "md_r1bio")
R.check(p is not None and (p["type"], p["min_nr"], p["elem_size"]) ==
        ("private", NR_RAID_BIOS, r1bio_size(2)),
        f"md_r1bio: private, min_nr {NR_RAID_BIOS}, elem_size {r1bio_size(2)} for 2 disks", p)
R.check(D.rc("kmp-md") == 0 and read(D.f("kmp-md")) == read(D.f("proc-md")),
        "kmempool on /proc/kcore prints exactly /proc/mempool with the array running",
        read(D.f("kmp-md.err")))
R.check(D.rc("insmod") == 0, "kmp_test.ko loads with the addresses of mempool_list and "
        "mempool_lock")
mb = by_name(md, "md_bio_set:bio")
pk = by_name(D.pools("proc-poked"), "md_bio_set:bio")
R.check(D.rc("poke") == 0 and len(mb) == 1 and len(pk) == 1 and
        (pk[0]["from_reserve"], pk[0]["low_nr"], pk[0]["curr_nr"]) ==
        (mb[0]["from_reserve"] + 2, mb[0]["min_nr"] - 2, mb[0]["min_nr"]),
        "2 allocations from md_bio_set:bio's reserve (allocator failing) are counted", pk)
R.check(D.rc("md-inactive") == 0 and not by_name(D.pools("proc-inactive"), "md_bio_set:bio"),
        "array_state inactive: the array's bio_sets are exited, their pools gone",
        names(D.pools("proc-inactive")))
rs = by_name(D.pools("proc-restarted"), "md_bio_set:bio")
R.check(D.rc("md-active") == 0 and read(D.f("md-state")).strip() in ("clean", "active") and
        len(rs) == 1 and
        (rs[0]["from_reserve"], rs[0]["low_nr"], rs[0]["curr_nr"], rs[0]["waits"],
         rs[0].get("failed"), rs[0].get("emptied")) ==
        (0, rs[0]["min_nr"], rs[0]["min_nr"], 0, 0, 0),
        "array_state active again: md_bio_set:bio re-initialized in the same memory starts "
        "from 0 (from_reserve, low_nr, waits, failed, emptied)", rs)
R.check(len(rs) == 1 and rs[0]["instance"] == "md0",
        "and it is md0's again (the instance is set on each initialization)", rs)
R.check(names(D.pools("proc-restarted")) == names(md),
        "after the restart the same pools as before the stop", sorted(
            set(names(D.pools("proc-restarted"))) ^ set(names(md))))
R.check(D.rc("mdadm-grow") == 0 and read(D.f("raid-disks")).strip() == "3",
        "mdadm --grow --raid-devices=3 (raid1_reshape)", read(D.f("mdadm-grow.log")))
g = by_name(grown, "md_r1bio")
R.check(len(g) == 1 and g[0]["elem_size"] == r1bio_size(3) and g[0]["min_nr"] == NR_RAID_BIOS
        and g[0]["curr_nr"] == NR_RAID_BIOS,
        f"after the reshape one md_r1bio, elem_size {r1bio_size(3)} for 3 disks, full", g)
R.check(len(g) == 1 and g[0]["instance"] == "md0",
        "the r1bio pool raid1_reshape() put in place says instance md0", g)
R.check(names(grown) == names(md), "the reshape moved the pool: the same pools, none lost "
        "or doubled", sorted(set(names(grown)) ^ set(names(md))))
R.check(D.rc("kmp-grown") == 0 and read(D.f("kmp-grown")) in
        (read(D.f("proc-grown")), read(D.f("proc-grown-after"))),
        "after mempool_move() the list walks cleanly (prev links checked) and matches the file",
        read(D.f("kmp-grown.err")))
R.check(D.rc("mdadm-stop") == 0 and D.rc("rmmod-md") == 0 and
        read(D.f("proc-md-rmmod")) == read(D.f("proc-before")) and D.rc("kmp-md-rmmod") == 0,
        "after mdadm --stop and rmmod raid1 md_mod the list is as before the array")
print(f"md: {R.passed} passed, {R.failed} failed")
sys.exit(1 if R.failed else 0)
