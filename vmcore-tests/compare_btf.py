#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Compare kmempool's JSON answer from the dump alone (BTF and kallsyms) with
its answer from the vmlinux (DWARF): the same pools (by address), every
value of each pool and its waiters, the same counts of the search; names may
differ only by the documented fallback, SYMBOL+0xOFF where DWARF gives a
member path inside the global SYMBOL (BTF types no global variables), or
the other way round for a module's global (its BTF names it by member;
DWARF without the module's debug info cannot).  Each
name that differs is printed.  Exit 0: equal up to that; 1: not.

    compare_btf.py waiters|scan DWARF.json BTF.json [--live]

--live: two runs on a running kernel, one after the other: the search's own
counts (bytes and slabs scanned, candidates; the number of tasks) follow the
slabs allocated and the tasks started in between and are not compared; the
pools, values and waiters are, but for a pool's count of tasks on its wait
queue ("waiting"): mempool_alloc() sleeps at most 5 s, then leaves the
queue, tries again and goes back on it, so a run on a running kernel may
find one fewer there than the other did (the test's waiters, started
together, time out together); such a difference is printed, not failed.
"""
import json
import re
import sys

# "*sym+0x18 [mod]", "sym+0x78": the fallback of a pool inside a global;
# "(*sym)+0x10 [mod]": inside the object a global points to (DWARF: sym->member).
FALLBACK = re.compile(r'^(\*?)([A-Za-z_][A-Za-z0-9_.]*)\+0x[0-9a-f]+( \[[A-Za-z0-9_-]+\])?$')
POINTEE = re.compile(r'^\(\*([A-Za-z_][A-Za-z0-9_.]*)\)\+0x[0-9a-f]+( \[[A-Za-z0-9_-]+\])?$')
TOP = {'waiters': ['unknown', 'tasks', 'tasks_blocked', 'complete'],
       'scan': ['scanned_bytes', 'slabs', 'candidates', 'rejected', 'complete']}


def name_ok(dwarf, btf):
    """BTF's name is SYMBOL+0xOFF of the global DWARF names by a path in it."""
    m = POINTEE.match(btf)
    if m:
        return dwarf.startswith(m.group(1) + '->') and dwarf.endswith(m.group(2) or '')
    m = FALLBACK.match(btf)
    if not m:
        return False
    star, sym, mod = m.group(1), m.group(2), m.group(3) or ''
    if not dwarf.startswith(star + sym) or not dwarf.endswith(mod):
        return False
    rest = dwarf[len(star + sym):]
    return rest[:1] in ('.', '[', '-', '+', ' ') or rest == ''


def main():
    kind, dpath, bpath = sys.argv[1:4]
    live = '--live' in sys.argv[4:]
    d, b = json.load(open(dpath)), json.load(open(bpath))
    bad = []
    keys = [k for k in TOP[kind] if not live or k in ('complete', 'unknown', 'tasks_blocked')]
    for key in keys:
        if d.get(key) != b.get(key):
            bad.append(f'{key}: DWARF {d.get(key)!r}, BTF {b.get(key)!r}')
    dp = {p['address']: p for p in d.get('pools', [])}
    bp = {p['address']: p for p in b.get('pools', [])}
    for a in sorted(set(dp) ^ set(bp)):
        bad.append(f'pool {a} only in the {"DWARF" if a in dp else "BTF"} answer')
    names = 0
    for a in sorted(set(dp) & set(bp)):
        p, q = dict(dp[a]), dict(bp[a])
        pn, qn = p.pop('name', None), q.pop('name', None)
        if live and p.get('waiting') != q.get('waiting'):
            print(f'  waiting of {a}: DWARF {p.get("waiting")}, BTF {q.get("waiting")} '
                  '(live: a waiter between its 5 s timeout and its next wait)')
            p.pop('waiting', None)
            q.pop('waiting', None)
        if p != q:
            diff = sorted(k for k in set(p) | set(q) if p.get(k) != q.get(k))
            bad.append(f'pool {a}: {", ".join(f"{k} DWARF {p.get(k)!r} BTF {q.get(k)!r}" for k in diff)}')
        if pn != qn:
            names += 1
            if name_ok(pn or '', qn or ''):
                print(f'  name of {a}: DWARF "{pn}", BTF "{qn}" (the symbol+0xOFF fallback)')
            elif name_ok(qn or '', pn or ''):
                # A module's BTF names what DWARF cannot without the module's debug info (-M).
                print(f'  name of {a}: DWARF "{pn}", BTF "{qn}" (the module\'s BTF, the fallback in DWARF)')
            else:
                bad.append(f'pool {a}: name DWARF "{pn}", BTF "{qn}" (not the fallback)')
    for line in bad:
        print(f'  DIFFERENT: {line}')
    print(f'  {len(dp)} pools each, {names} names by the fallback, {len(bad)} other differences')
    return 1 if bad or not dp else 0


if __name__ == '__main__':
    sys.exit(main())
