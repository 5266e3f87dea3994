#!/usr/bin/python3
"""The same walk as kmempool, in drgn, for the benchmark: print the
/proc/mempool report of a vmcore.   drgn_mempool.py VMCORE VMLINUX"""
import sys

import drgn
from drgn import container_of
from drgn.helpers.linux.list import list_for_each, validate_list_for_each_entry

prog = drgn.Program()
prog.set_core_dump(sys.argv[1])
prog.load_debug_info([sys.argv[2]])
version = prog["mempool_format_version"].string_().decode()
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
