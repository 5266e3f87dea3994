#!/usr/bin/python3
"""The same walk as kmempool, in drgn, for the benchmark: print the
/proc/mempool report of a vmcore.   drgn_mempool.py VMCORE VMLINUX"""
import sys

import drgn
from drgn.helpers.linux.list import list_for_each, validate_list_for_each_entry

prog = drgn.Program()
prog.set_core_dump(sys.argv[1])
prog.load_debug_info([sys.argv[2]])
version = prog["mempool_format_version"].string_().decode()
v11 = version == "1.1"      # appended: failed, emptied
out = [f"mempool - version: {version}",
       "# %-22s %-7s %9s %6s %7s %6s %12s %8s %7s %s" % (
           "name", "type", "elem_size", "min_nr", "curr_nr", "low_nr",
           "from_reserve", "waits", "waiting", "owner") + (" failed emptied" if v11 else "")]
types = {v: k[len("MEMPOOL_"):].lower() for k, v in prog.type("enum mempool_type").enumerators}
for p in validate_list_for_each_entry("struct mempool_s", prog["mempool_list"].address_of_(),
                                      "list"):
    owner = p.owner.string_().decode() if p.owner else "-"
    out.append("%-24s %-7s %9d %6d %7d %6d %12d %8d %7d %s" % (
        p.name.string_().decode(), types.get(p.type.value_(), "private"), p.elem_size,
        p.min_nr, p.curr_nr, p.low_nr, p.nr_reserve, p.nr_wait,
        sum(1 for _ in list_for_each(p.wait.head.address_of_())), owner) +
        (" %d %d" % (p.nr_fail, p.nr_empty) if v11 else ""))
print("\n".join(out))
