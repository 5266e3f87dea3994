#!/usr/bin/python3
"""Independent oracle for the stack-based `kmempool waiters`, in drgn:
every task in D state whose stack has a mempool_alloc() frame, grouped by
that frame's `pool` argument.  Prints JSON {"0xPOOL": [pid, ...]} (pids
sorted, keys sorted); a waiter whose `pool` drgn cannot recover goes
under "unknown", a task drgn cannot read under "unreadable" (by address).
    drgn_stock_waiters.py VMCORE VMLINUX"""
import json
import sys

import drgn
from drgn.helpers.linux.pid import for_each_task
from drgn.helpers.linux.sched import task_state_to_char

prog = drgn.Program()
prog.set_core_dump(sys.argv[1])
prog.load_debug_info([sys.argv[2]])
pools = {}
for task in for_each_task(prog):
    try:
        if task_state_to_char(task) != "D":
            continue
    except drgn.FaultError:
        pools.setdefault("unreadable", []).append(hex(task.value_()))
        continue
    try:
        frames = list(prog.stack_trace(task))
    except (drgn.FaultError, ValueError):
        continue
    for frame in frames:
        if frame.name != "mempool_alloc":
            continue
        try:
            key = hex(frame["pool"].value_())
        except (KeyError, LookupError, drgn.ObjectAbsentError, drgn.FaultError):
            key = "unknown"
        pools.setdefault(key, []).append(task.pid.value_())
        break
print(json.dumps({k: sorted(v) for k, v in sorted(pools.items())}))
