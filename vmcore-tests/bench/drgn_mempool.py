#!/usr/bin/python3
"""The same walk as kmempool, in drgn, for the benchmark: print the
/proc/mempool report of a vmcore.   drgn_mempool.py VMCORE VMLINUX
Series v6 (Linux 7.2: struct mempool_tag) as mempool_seq_show() prints it,
series v7 (an id per pool, ':' escaped in names, readers' cursors on the
list), or the earlier series' formats 1.0-1.2."""
import subprocess
import sys

import drgn
from drgn import container_of
from drgn.helpers.linux.list import list_for_each, validate_list_for_each_entry

prog = drgn.Program()
prog.set_core_dump(sys.argv[1])
prog.load_debug_info([sys.argv[2]])
version = prog["mempool_format_version"].string_().decode()


def v6_report():
    """Series v6: name from the code tag, type and size from the allocation
    function, waiters by their wake function, HZ from jiffies_64's initial
    value in the vmlinux (INITIAL_JIFFIES, 32-bit -300 * HZ; 7.2 has no tick_nsec)."""
    cols = prog["mempool_format_columns"].string_().decode()
    out = [f"mempool - version: {version}", cols]
    gdb = subprocess.run(["gdb", "-batch", "-nx", "-ex", "p/d (long)jiffies_64", sys.argv[2]],
                         capture_output=True, text=True).stdout
    init = int(gdb.split("=")[-1])     # (unsigned int)(-300 * HZ), widened
    hz = ((1 << 32) - init if init > 0 else -init) // 300
    now = prog["jiffies_64"].value_()
    wake = prog["mempool_wake_function"].address_
    fn = {prog[n].address_: n for n in ("mempool_alloc_slab", "mempool_kmalloc",
                                        "mempool_alloc_pages")}
    waiter_t = prog.type("struct mempool_waiter")
    v7 = prog.type("struct mempool").has_member("id")

    def esc(b, more=""):
        return "".join("\\%03o" % c if chr(c) in " \t\n\v\f\r\\" + more else chr(c) for c in b)

    for p in validate_list_for_each_entry("struct mempool", prog["mempool_list"].address_of_(),
                                          "list"):
        t = p.tag
        if v7 and not t:
            continue    # a /proc/mempool reader's cursor
        colon = ":" if v7 else ""
        name = esc(t.name.string_() if t.name else t.ct.function.string_(), colon)
        if t.kind:
            name += ":" + esc(t.kind.string_(), colon)
        a = fn.get(p.alloc.value_())
        if a == "mempool_alloc_slab":
            typ, size = "slab", drgn.cast("struct kmem_cache *", p.pool_data).object_size.value_()
        elif a == "mempool_kmalloc":
            typ, size = "kmalloc", p.pool_data.value_()
        elif a == "mempool_alloc_pages":
            typ, size = "page", prog["PAGE_SIZE"].value_() << p.pool_data.value_() \
                if "PAGE_SIZE" in prog else 4096 << p.pool_data.value_()
        else:
            typ, size = "private", 0
        n = oldest = 0
        for node in list_for_each(p.wait.head.address_of_()):
            wqe = container_of(node, "struct wait_queue_entry", "entry")
            if wqe.func.value_() != wake:
                continue
            n += 1
            since = container_of(wqe, waiter_t, "entry").since.value_()
            oldest = max(oldest, ((now - since) % (1 << 64)) // hz)
        out.append("%s%*s %-7s %9d %6d %7d %6d %12d %8d %7d %8d %8d %11d %s %s %s:%d" % (
            name, max(0, 30 - len(name)), "", typ, size, p.min_nr, p.curr_nr, p.low_nr,
            p.nr_reserve, p.nr_wait, n, p.nr_fail, p.nr_empty, oldest,
            esc(t.ct.modname.string_()) if t.ct.modname else "-",
            esc(p.instance.string_()) if p.instance else "-",
            esc(t.ct.filename.string_()), t.ct.lineno) + (" %d" % p.id if v7 else ""))
    print("\n".join(out))
    sys.exit(0)


try:
    prog.type("struct mempool_tag")
    v6_report()
except LookupError:
    pass
v11 = version in ("1.1", "1.2")     # appended: failed, emptied
v12 = version == "1.2"              # appended: oldest_wait, instance
out = [f"mempool - version: {version}",
       "# %-22s %-7s %9s %6s %7s %6s %12s %8s %7s %s" % (
           "name", "type", "elem_size", "min_nr", "curr_nr", "low_nr",
           "from_reserve", "waits", "waiting", "owner") + (" failed emptied" if v11 else "") +
       (" oldest_wait instance" if v12 else "")]
if v12:
    now = prog["jiffies_64"].value_()
    hz = round(1e9 / prog["tick_nsec"].value_())
    waiter_t = prog.type("struct mempool_waiter")


def queue(p):
    """Tasks waiting on pool p, and (1.2) how long the first has waited, in s."""
    n = oldest = 0
    for node in list_for_each(p.wait.head.address_of_()):
        n += 1
        if v12:
            wqe = container_of(node, "struct wait_queue_entry", "entry")
            since = container_of(wqe, waiter_t, "entry").since.value_()
            d = (now - since) % (1 << 64)
            if d < (1 << 63):
                oldest = max(oldest, d // hz)
    return n, oldest


types = {v: k[len("MEMPOOL_"):].lower() for k, v in prog.type("enum mempool_type").enumerators}
for p in validate_list_for_each_entry("struct mempool_s", prog["mempool_list"].address_of_(),
                                      "list"):
    owner = p.owner.string_().decode() if p.owner else "-"
    waiting, oldest = queue(p)
    out.append("%-24s %-7s %9d %6d %7d %6d %12d %8d %7d %s" % (
        p.name.string_().decode(), types.get(p.type.value_(), "private"), p.elem_size,
        p.min_nr, p.curr_nr, p.low_nr, p.nr_reserve, p.nr_wait, waiting, owner) +
        (" %d %d" % (p.nr_fail, p.nr_empty) if v11 else "") +
        (" %d %s" % (oldest, p.instance.string_().decode() if p.instance else "-")
         if v12 else ""))
print("\n".join(out))
