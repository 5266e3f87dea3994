#!/usr/bin/python3
"""Independent oracle for the stack-based `kmempool waiters`, in drgn:
every task in D state whose stack has a mempool_alloc() frame, grouped by
that frame's `pool` argument.  Prints JSON {"0xPOOL": [pid, ...]} (pids
sorted, keys sorted); a waiter whose `pool` drgn cannot recover goes
under "unknown", a task drgn cannot read under "unreadable" (by address).
The frame is the innermost one whose function's name starts with
mempool_alloc and whose `pool` drgn can read: 6.1 and 5.10 have
mempool_alloc(), 6.12 mempool_alloc_noprof(), 7.2 two such frames per
waiter.  drgn's task_state_to_char() reads `state` (5.10) or `__state`.
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
    key = None
    for frame in frames:
        if not (frame.name or "").startswith("mempool_alloc"):
            continue
        try:
            key = hex(frame["pool"].value_())
            break
        except (KeyError, LookupError, drgn.ObjectAbsentError, drgn.FaultError):
            key = "unknown"
    if key is not None:
        pools.setdefault(key, []).append(task.pid.value_())
print(json.dumps({k: sorted(v) for k, v in sorted(pools.items())}))
