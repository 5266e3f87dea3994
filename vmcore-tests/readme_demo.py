#!/usr/bin/python3
"""README's `make demo` output against a real run of the demo.

    readme_demo.py check README LOG [BLOCK...]   every line README shows in a
                                                 block is in LOG, in order
    readme_demo.py show LOG BLOCK                the block as README would
                                                 show it, from LOG

README marks each block it shows as the demo's output:

    <!-- demo:NAME -->
    ```
    ...lines...
    ```

("..." on a line of its own: lines left out).  BLOCK names: "patched" (the
patched kernel's half: from the stall report to the triage) and "stock"
(Debian's kernel: waiters and scan).  What varies from run to run is
masked on both sides before they are compared: timestamps, pids, seconds
waited, addresses, build IDs, dates, the dump's size, the checkout's path,
the counts of vmalloc areas and slabs scanned; the scan's rows are found
in any order (sorted by address, and heap objects move from boot to boot).
The pools, their values, names, types, sites and the format version do not
vary and are compared as they are.
"""
import re
import sys

BLOCKS = {
    # first line of the block in the log, the line after its end
    "patched": (r"^==> \[demo\] the kernel.s first stall report", r"^==> \[demo\] rerun by hand"),
    "stock": (r"^\$ kmempool waiters -c .*demo-stock", r"^==> \[demo-stock\] vmcore:"),
}
MASKS = [
    (r"\S*/build/", "build/"),
    (r"\[\s*[0-9]+\.[0-9]+\]", "[T]"),
    (r"\b[0-9a-f]{40}\b", "BUILDID"),
    (r"0x[0-9a-f]+", "0xH"),
    (r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} UTC \([0-9]+\)", "DATE"),
    (r"#[0-9]+ SMP .*", "#N SMP DATE"),
    (r"kmp_waiter:[0-9]+", "kmp_waiter:PID"),
    (r"\bpid [0-9]+", "pid PID"),
    (r"\b[0-9]+ kmp_waiter \((\w), [0-9]+ s\)", r"PID kmp_waiter (\1, N s)"),
    (r"for (more than )?[0-9]+ (s|seconds)\b", r"for \1N \2"),
    (r"\([0-9]+ MiB", "(N MiB"),
    (r"[0-9]+ MiB scanned", "N MiB scanned"),
    (r"[0-9]+ vmalloc areas and [0-9]+ slabs", "N vmalloc areas and N slabs"),
]
TYPES = {"slab", "kmalloc", "page", "private"}


def mask(line):
    for pat, rep in MASKS:
        line = re.sub(pat, rep, line)
    f = line.split()
    # a table row (15 columns; 16 with format 1.1's id): oldest_wait varies
    if len(f) in (15, 16) and f[1] in TYPES and f[11].isdigit():
        f[11] = "N"
    return " ".join(f)


def block_of_log(log, name):
    start, end = (re.compile(x) for x in BLOCKS[name])
    out, inside = [], False
    for line in log.splitlines():
        if not inside and start.search(line):
            inside = True
        elif inside and end.search(line):
            return out
        if inside:
            out.append(line)
    return out if inside else None


def blocks_of_readme(text, name):
    """Every block README marks with this name (an excerpt may be shown twice)."""
    return [m.group(1).split("\n") for m in
            re.finditer(r"<!-- demo:%s -->\n```\n(.*?)\n```" % re.escape(name), text, re.S)]


def check(readme, log, names):
    bad = 0
    for name, shown in [(n, b) for n in names for b in blocks_of_readme(readme, n) or [None]]:
        run = block_of_log(log, name)
        if shown is None or run is None:
            print(f"not ok - README's {name} demo block: "
                  f"{'README has no <!-- demo:' + name + ' --> block' if shown is None else 'the run printed no such block'}")
            bad += 1
            continue
        ran = [mask(x) for x in run if x.strip()]
        i, missing = 0, []
        for line in shown:
            if line.strip() in ("", "..."):
                continue
            want = mask(line)
            f = want.split()
            if len(f) >= 11 and f[1] in TYPES:
                # a table row: the scan sorts by address, and heap objects
                # lie elsewhere each boot, so rows are found in any order
                if want not in ran:
                    missing.append(line)
                continue
            while i < len(ran) and ran[i] != want:
                i += 1
            if i == len(ran):
                missing.append(line)
                i = 0
            else:
                i += 1
        if missing:
            print(f"not ok - README's {name} demo block shows {len(missing)} line(s) this run "
                  f"did not print (in this order; regenerate: readme_demo.py show LOG {name}):")
            for x in missing[:10]:
                print(f"    {x}")
            bad += 1
        else:
            n = sum(1 for x in shown if x.strip() not in ("", "..."))
            print(f"ok - README's {name} demo block: its {n} lines are what a real run printed "
                  f"(varying numbers masked)")
    return bad


def show(log, name):
    run = block_of_log(log, name)
    if run is None:
        sys.exit(f"readme_demo: no {name} block in the log")
    # The report table abridged to the module's pools and the device ones.
    keep = re.compile(r"init_bio:bio |sgpool-8 | (vda|dm-0) |<gendisk vda>|dm-crypt|dm_crypt|raid1|kmp_test|"
                      r"kmp_stock|fs_bio_set\.bio_pool|\*sg_pools\[0\]")
    out, dots = [], False
    for line in run:
        f = line.split()
        row = len(f) >= 11 and f[1] in TYPES
        if row and not keep.search(line):
            if not dots:
                out.append("...")
            dots = True
            continue
        dots = False
        out.append(re.sub(r"\S*/build/", "build/", line))
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "check":
        names = sys.argv[4:] or list(BLOCKS)
        sys.exit(1 if check(open(sys.argv[2]).read(), open(sys.argv[3]).read(), names) else 0)
    if len(sys.argv) == 4 and sys.argv[1] == "show":
        show(open(sys.argv[2]).read(), sys.argv[3])
        sys.exit(0)
    sys.exit(__doc__)
