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
it first ("(*sym+0xOFF)+0x78": that rule comes before the type).
And the referrer rule ("*<r1conf>.r1bio_pool": what that member points
at): among the objects named by type, drgn lists every member (in embedded
structs, unions and arrays too) whose type is a pointer to the kernel's
pool struct (mempool_t's) and reads it; a pool named so must be pointed at
by exactly one such member, of an object of that struct, under that name
and path; and a pool left with its cache's name ("<kmalloc-96>+0x0",
"<vmalloc 0x...>+0x0") must not have exactly one.  Prints JSON
{"checked": N, "wrong": [...], "disks": N, "referred": N}.
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
REF = re.compile(r"^\*<([A-Za-z_]\w*)(?: (\S+))?>((?:\.[A-Za-z_]\w*|\[\d+\])+)$")
LAST = re.compile(r"^<[^<>]+>\+0x[0-9a-f]+$")
wrong, checked = [], 0
typed = {}      # object address -> (struct type, its name in the scan: "<gendisk vda>")


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
        typed[obj] = (t, name[:name.index(">") + 1])
    except (LookupError, ValueError, drgn.FaultError) as e:
        wrong.append(f"{name} at {addr:#x}: drgn: {e}")



def peel(t):
    t = t.unqualified()
    while t.kind == drgn.TypeKind.TYPEDEF:
        t = t.type.unqualified()
    return t


def pool_pointers(t, pool, off=0, path="", depth=0):
    """(offset, path) of each pointer to struct POOL in type t, its embedded
    structs, unions and arrays (drgn's reading of the DWARF)."""
    t = peel(t)
    if depth > 32:
        raise ValueError(f"{path}: nested deeper than 32")
    if t.kind == drgn.TypeKind.POINTER:
        p = peel(t.type)
        if p.kind == drgn.TypeKind.STRUCT and p.tag == pool:
            yield off, path
    elif t.kind in (drgn.TypeKind.STRUCT, drgn.TypeKind.UNION):
        for m in t.members:
            if m.bit_field_size or m.bit_offset % 8:
                continue
            yield from pool_pointers(m.type, pool, off + m.bit_offset // 8,
                                     path + ("." + m.name if m.name else ""), depth + 1)
    elif t.kind == drgn.TypeKind.ARRAY and t.length:
        es = sizeof(t.type)
        for i in range(t.length):
            got = list(pool_pointers(t.type, pool, off + i * es, f"{path}[{i}]", depth + 1))
            if not got:
                break       # the element's type holds none: no element does
            yield from got


referred = 0
try:
    pool_tag = peel(prog.type("mempool_t")).tag
except LookupError:
    pool_tag = None
refs = {}       # pointer value -> [(object, its scan name, member path)]
for obj, (t, label) in typed.items() if pool_tag else ():
    for off, path in pool_pointers(t, pool_tag):
        try:
            v = prog.read_u64(obj + off)
        except drgn.FaultError as e:
            wrong.append(f"{label} at {obj:#x}: its {path} cannot be read: {e}")
            continue
        if v:
            refs.setdefault(v, []).append((obj, label, path))
for addr, name in sorted(by_addr.items()):
    m = REF.match(name)
    got = refs.get(addr, [])
    if m:
        want = (m.group(1), m.group(3))
        if len(got) != 1:
            wrong.append(f"{name} at {addr:#x}: {len(got)} objects named by type point at it: "
                         + ", ".join(f"{lb}{p} at {o:#x}" for o, lb, p in got[:3]))
        elif (typed[got[0][0]][0].tag, got[0][2]) != want or \
                got[0][1] != name[1:len(got[0][1]) + 1]:
            wrong.append(f"{name} at {addr:#x}: drgn's one referrer is {got[0][1]}{got[0][2]}")
        else:
            referred += 1
    elif LAST.match(name) and len(got) == 1:
        wrong.append(f"{name} at {addr:#x}: one object named by type points at it, "
                     f"{got[0][1]}{got[0][2]} at {got[0][0]:#x}: the scan did not name it so")

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
print(json.dumps({"checked": checked, "wrong": wrong, "disks": disks, "referred": referred}))
