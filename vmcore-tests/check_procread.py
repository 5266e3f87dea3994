#!/usr/bin/python3
"""What guest/procread.sh brought back: each full read of /proc/mempool
complete (all N pools of kmp_test.ko, no id twice) quiet and under churn,
and the reader's system CPU time per pool at each N, quiet and under churn
(wall time is printed too; under churn it includes the churning threads'
own work on the same vCPU).  The times are
measurements (make bench), not a test: the goal printed is a full read
under churn costing per pool at the largest N no more than twice what it
costs at the smallest (linear, where v6 was quadratic).

    check_procread.py OUTDIR "N1 N2 ..." """
import sys

from mempool import Outdir, Results, read

OUT, COUNTS = sys.argv[1], [int(n) for n in sys.argv[2].split()]
R = Results("procread")
D = Outdir(OUT, R)
GOAL = 2.0


def lines(name):
    try:
        return [ln for ln in read(D.f(name)).splitlines() if ln.strip()]
    except OSError:
        return []


per_pool = {}
for n in COUNTS:
    R.check(lines(f"insmod-{n}.rc") == ["0"], f"{n}: kmp_test.ko many={n} loads")
    for mode in ("quiet", "churn"):
        many = [int(x) for x in lines(f"many-{mode}-{n}")]
        dups = [int(x) for x in lines(f"dupids-{mode}-{n}")]
        head = lines(f"head-{mode}-{n}")
        R.check(len(many) == 3 and all(m == n for m in many) and dups == [0, 0, 0] and
                head[:1] == ["mempool - version: 1.1"],
                f"{n} pools, {mode}: each of 3 full reads in 4 KiB read()s has all {n} of "
                f"kmp_test's pools and no id twice ({many}, duplicates {dups})")
        runs = []
        for ln in lines(f"readtime-{mode}-{n}"):
            kv = dict(zip(*[iter(ln.split())] * 2))
            try:
                runs.append((float(kv["total_s"]), float(kv["sys_s"]), float(kv["max_read_ms"])))
            except (KeyError, ValueError):
                pass
        R.check(len(runs) == 3, f"{n} pools, {mode}: three timed reads", runs)
        wall = min((r[0] for r in runs), default=float("inf"))
        cpu = min((r[1] for r in runs), default=float("inf"))
        longest = min((r[2] for r in runs), default=float("inf"))
        per_pool[(mode, n)] = cpu / n if runs else None
        total = int(lines(f"lines-{mode}-{n}")[0]) if lines(f"lines-{mode}-{n}") else 0
        print(f"# procread: {n} pools ({total} lines), {mode}: best of 3 full reads {wall:.3f} s "
              f"wall, {cpu:.3f} s system CPU ({1e6 * cpu / n:.2f} us a pool), longest "
              f"read() {longest:.1f} ms")
    d0, d1 = lines(f"destroyed0-{n}"), lines(f"destroyed1-{n}")
    gone = int(d1[0]) - int(d0[0]) if d0 and d1 else -1
    R.check(gone > 0, f"{n}: pools came and went during the churning reads "
            f"({gone} destroyed by kmp_churn.ko meanwhile)")
lo, hi = min(COUNTS), max(COUNTS)
for mode in ("quiet", "churn"):
    a, b = per_pool.get((mode, lo)), per_pool.get((mode, hi))
    if a and b:
        ratio = b / a
        print(f"# procread: {mode}: a pool costs {ratio:.2f}x the system CPU at {hi} it costs at {lo} "
              f"(goal, linear: <= {GOAL}): {'met' if ratio <= GOAL else 'NOT met'}")
print(f"procread: {R.passed} passed, {R.failed} failed")
sys.exit(1 if R.failed else 0)
