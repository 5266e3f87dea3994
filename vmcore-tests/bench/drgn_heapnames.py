#!/usr/bin/python3
"""Oracle, in drgn, for the names kmempool's scan gives pools inside heap
objects by their type ("<gendisk vda>.bio_split.bio_pool": the struct,
the object's own name, the member path).  For each such name in the scan's
JSON: drgn's type of that struct (the vmlinux's or a module's debug info)
puts the path at an offset; the slab object drgn finds around the pool must
start exactly that far below it and be big enough for the struct; the
object's name member (a char array called name or ..._name) must read as
the name given.  And for each disk drgn lists (for_each_disk), the pool of
its bio_split, where gendisk has one, must be in the scan under
"<gendisk DISK>.bio_split.bio_pool" unless a pointer in kernel data named
it first ("(*sym+0xOFF)+0x78": that rule comes before the type).  Prints JSON {"checked": N,
"wrong": [...], "disks": N}.
    drgn_heapnames.py VMCORE VMLINUX SCAN_JSON [MODULE_DEBUG_FILE...]"""
import json
import re
import sys

import drgn
from drgn import Object, offsetof, sizeof
from drgn.helpers.linux.block import disk_name, for_each_disk
from drgn.helpers.linux.slab import slab_object_info

prog = drgn.Program()
prog.set_core_dump(sys.argv[1])
try:
    prog.load_debug_info([sys.argv[2]] + sys.argv[4:])
except drgn.MissingDebugInfoError:
    pass        # modules without a debug file: their types are looked up and fail below
scan = json.load(open(sys.argv[3]))
NAME = re.compile(r"^<([A-Za-z_]\w*)(?: (\S+))?>((?:\.[A-Za-z_]\w*|\[\d+\])+)$")
by_addr = {int(p["address"], 16): p["name"] for p in scan["pools"]}
wrong, checked = [], 0


def name_member(t):
    """The struct's first char array called name or ..._name (kmempool's rule)."""
    for m in t.members:
        if m.name and (m.name == "name" or m.name.endswith("_name")):
            mt = m.type.unqualified()
            if mt.kind == drgn.TypeKind.ARRAY and sizeof(mt.type) == 1:
                return m.name
    return None


for addr, name in sorted(by_addr.items()):
    m = NAME.match(name)
    if not m:
        continue
    st, inst, path = m.groups()
    try:
        t = prog.type("struct " + st)
        obj = addr - offsetof(t, path[1:])
        info = slab_object_info(prog, addr)
        if info is None or info.address != obj:
            wrong.append(f"{name} at {addr:#x}: the slab object around it starts at "
                         f"{info.address if info else 0:#x}, not {obj:#x}")
            continue
        if sizeof(t) > info.slab_cache.object_size.value_():
            wrong.append(f"{name} at {addr:#x}: struct {st} ({sizeof(t)} bytes) is larger "
                         f"than the cache's objects ({info.slab_cache.object_size.value_()})")
            continue
        nm = name_member(t)
        got = Object(prog, t, address=obj).member_(nm).string_().decode() if nm else None
        if inst is not None and got != inst:
            wrong.append(f"{name} at {addr:#x}: the object's {nm} is {got!r}")
            continue
        checked += 1
    except (LookupError, ValueError, drgn.FaultError) as e:
        wrong.append(f"{name} at {addr:#x}: drgn: {e}")

disks = 0
try:
    has_split = any(m.name == "bio_split" for m in prog.type("struct gendisk").members)
except LookupError:
    has_split = False
if has_split:
    for disk in for_each_disk(prog):
        a = disk.bio_split.bio_pool.address_of_().value_()
        want = f"<gendisk {disk_name(disk).decode()}>.bio_split.bio_pool"
        got = by_addr.get(a) or ""
        if got.startswith(("*", "(*")) or "->" in got:
            continue    # reached through a pointer in kernel data: named by that rule first
        if got != want:
            wrong.append(f"disk {disk_name(disk).decode()}: its bio_split pool at {a:#x} is "
                         f"{by_addr.get(a)!r} in the scan, not {want!r}")
        else:
            disks += 1
print(json.dumps({"checked": checked, "wrong": wrong, "disks": disks}))
