#!/usr/bin/python3
"""Oracle for the frames `kmempool waiters` prints (issue 33 item 4), in
drgn: for every task in D state with a frame whose function's name starts
with mempool_alloc, the program counters of the frames above the outermost
such frame (its caller first), as drgn's stack trace has them (inline
frames, which share their caller's pc, counted once).  Prints JSON
{"PID": ["0xPC", ...]} (keys sorted).
    drgn_stock_frames.py VMCORE VMLINUX [MODULE.ko...]"""
import json
import sys

import drgn
from drgn.helpers.linux.pid import for_each_task
from drgn.helpers.linux.sched import task_state_to_char

prog = drgn.Program()
prog.set_core_dump(sys.argv[1])
prog.load_debug_info(sys.argv[2:])
out = {}
for task in for_each_task(prog):
    try:
        if task_state_to_char(task) != "D":
            continue
        frames = list(prog.stack_trace(task))
    except (drgn.FaultError, ValueError):
        continue
    last = None
    for i, frame in enumerate(frames):
        if (frame.name or "").startswith("mempool_alloc"):
            last = i
    if last is None:
        continue
    pcs = []
    for frame in frames[last + 1:]:
        if frame.is_inline:
            continue
        pcs.append(hex(frame.pc))
    out[str(task.pid.value_())] = pcs
print(json.dumps(dict(sorted(out.items()))))
