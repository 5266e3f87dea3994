#!/usr/bin/python3
"""Check what guest/scale.sh brought back: /proc/mempool read whole and in
4 KiB reads with N extra pools, no pool skipped or repeated, kmempool on
/proc/kcore byte-identical, and the read time growing linearly.

    check_scale.py OUTDIR "N1 N2 ..." [--goals MAX_SECONDS]

Absolute times are noise on a busy machine, so the test asserts none: it
prints them.  With --goals (make bench) the time goals are printed as
"goal met" / "goal NOT met" lines, which do not change the exit status."""
import sys

from mempool import Outdir, Results, read

OUT, COUNTS = sys.argv[1], [int(n) for n in sys.argv[2].split()]
LIMIT = float(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--goals" else None
R = Results("scale")
goals = []


def goal(met, text):
    """A time goal: reported under make bench, never a test result."""
    goals.append(f"# scale goal {'met' if met else 'NOT met'}: {text}")
D = Outdir(OUT, R)
times = {}
# kmempool on /proc/kcore against cat /proc/mempool at the largest count:
# the goal is 2x (a bench goal, not a test).  Measured on this rig
# (best of 3 each, TCG): 4.5x before the walk's page cache, 3.2x with lines
# of 8 pages read at once, 1.2x-1.9x once the rows were no longer printed
# with printf(), and 1.2x-1.4x with the other core busy building a kernel since
# the pools of a tag share its strings and the rows are laid out in place
# (the walk is CPU-bound in the guest: 7.9k instructions a pool, then 4.8k).
# What the walk reads is checked exactly by the unit test (21 reads for 256
# pools).
KMP_RATIO = 2.0
for n in COUNTS:
    def num(name):
        try:
            return int(read(D.f(f"{name}-{n}")).strip())
        except (OSError, ValueError):
            return -1

    def secs(name):
        """The best of the "t0 t1" lines of a timing file (inf if none)."""
        best = float("inf")
        try:
            for line in read(D.f(f"{name}-{n}")).splitlines():
                t0, t1 = (float(x) for x in line.split())
                best = min(best, t1 - t0)
        except (OSError, ValueError):
            pass
        return best
    R.check(D.rc(f"insmod-{n}") == 0, f"{n}: the module adds {n} pools")
    R.check(num("many") == n and num("distinct") == n,
            f"{n}: the file lists each of the {n} pools exactly once (kmp_many, by instance)",
            f"lines {num('many')}, distinct instances {num('distinct')}")
    R.check(D.rc(f"cmp-dd-{n}") == 0, f"{n}: 4 KiB reads give the same file as 128 KiB reads")
    R.check(D.rc(f"kmp-{n}") == 0 and D.rc(f"cmp-kmp-{n}") == 0,
            f"{n}: kmempool on /proc/kcore prints the same {num('lines') - 2} pools, byte for byte",
            read(D.f(f"kmp-{n}.err")))
    runs = []
    for line in read(D.f(f"readtime-{n}")).splitlines():
        kv = dict(zip(*[iter(line.split())] * 2))
        try:
            runs.append((float(kv["total_s"]), float(kv["max_read_ms"]), int(kv["reads"]),
                         int(kv["bytes"])))
        except (KeyError, ValueError):
            pass
    best = min(runs) if runs else (float("inf"), float("inf"), 0, 0)
    times[n] = best[0]
    print(f"# scale: {n} pools ({num('lines') - 2} lines): cat {secs('time-cat'):.2f} s, "
          f"dd bs=4096 {secs('time-dd'):.2f} s; 4 KiB read()s, 3 passes: "
          + ", ".join(f"{t:.2f} s (longest read {m:.1f} ms)" for t, m, _, _ in runs))
    R.check(len(runs) == 3 and all(r[2] > n // 100 and r[3] > 0 for r in runs),
            f"{n}: three timed passes of 4 KiB read()s", read(D.f(f"readtime-{n}")))
    longest = max((r[1] for r in runs), default=float("inf"))
    goal(longest <= 100, f"{n}: the longest 4 KiB read() took {longest:.1f} ms "
         f"(bounds the mempool_lock hold; goal 100 ms under TCG)")
    if LIMIT is not None:
        goal(times[n] <= LIMIT, f"{n}: the whole file is read in at most {LIMIT} s "
             f"(best of 3: {times[n]:.2f} s)")
    if n == max(COUNTS):
        # Live at scale: kmempool on /proc/kcore against reading the file,
        # best of three each (/proc/uptime: 10 ms resolution).
        cat, kmp = secs("time-cat"), secs("time-kmp")
        print(f"# scale: {n} pools: kmempool on /proc/kcore {kmp:.2f} s, cat /proc/mempool "
              f"{cat:.2f} s ({kmp / max(cat, 0.01):.1f}x, best of 3 each)")
        goal(kmp <= KMP_RATIO * max(cat, 0.01),
             f"{n}: kmempool on /proc/kcore takes at most {KMP_RATIO}x the time of reading "
             f"/proc/mempool ({kmp / max(cat, 0.01):.1f}x)")
    R.check(D.rc(f"rmmod-{n}") == 0, f"{n}: rmmod removes them")
lo, hi = min(COUNTS), max(COUNTS)
if hi >= 10 * lo:
    # Linear: ten times the pools may cost at most about ten times as long
    # (3x slack for timer resolution and noise); quadratic would be 100x.
    # The smaller time is taken as at least 0.05 s (a faster read is below
    # what the guest's timing resolves; v1's quadratic file needed 3.8 s
    # for 100,000 pools, 76x that floor, so the check still catches it).
    floor = max(times[lo], 0.05)
    ratio = times[hi] / floor
    R.check(ratio <= 3 * hi / lo, f"4 KiB reads: {hi} pools take {ratio:.1f}x the time of {lo} "
            f"(linear: {hi / lo:.0f}x, quadratic: {(hi / lo) ** 2:.0f}x"
            + (f"; {lo} took {times[lo]:.2f} s, counted as 0.05 s)" if times[lo] < 0.05 else ")"))
else:
    R.check(False, f"the pool counts {COUNTS} do not span a factor of 10")
if LIMIT is not None:
    print("\n".join(goals))
print(f"scale: {R.passed} passed, {R.failed} failed")
sys.exit(1 if R.failed else 0)
