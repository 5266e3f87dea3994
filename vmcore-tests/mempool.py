"""Shared helpers of the end-to-end checks: parse /proc/mempool text,
ask gdb (an independent DWARF reader) for sizes, print TAP-like lines,
cut the dumps a capture kernel wrote out of the scratch disk.

    mempool.py extract OUTDIR   the last, for shell scripts: prints
                                "NAME PATH" for each dump"""
import os
import re
import subprocess
import sys

HEADER0 = "mempool - version: 1.0"
COLUMNS = ["name", "type", "elem_size", "min_nr", "curr_nr", "low_nr",
           "from_reserve", "waits", "waiting", "owner"]
# Each format version's columns; a minor version only appends.
FORMATS = {"1.0": COLUMNS, "1.1": COLUMNS + ["failed", "emptied"]}
FORMATS["1.2"] = FORMATS["1.1"] + ["oldest_wait", "instance"]
NUMERIC = set(COLUMNS[2:9]) | {"failed", "emptied", "oldest_wait"}
TYPES = {"slab", "kmalloc", "page", "private"}
# Anything that looks like a kernel pointer: 16 hex digits, or ffff....
ADDR_RE = re.compile(r"(0x)?ffff[0-9a-f]{8,}|\b[0-9a-f]{16}\b", re.I)


class Results:
    def __init__(self, group):
        self.group = group
        self.passed = 0
        self.failed = 0

    def check(self, cond, name, detail=""):
        if cond:
            self.passed += 1
            print(f"ok - {self.group}: {name}")
        else:
            self.failed += 1
            print(f"not ok - {self.group}: {name}")
            for line in str(detail).splitlines()[:30]:
                print(f"    {line}")
        return cond


class ParseError(Exception):
    pass


def parse(text):
    """Return a list of pool dicts; raise ParseError on any bad line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    prefix = "mempool - version: "
    if len(lines) < 2 or not lines[0].startswith(prefix) or \
            lines[0][len(prefix):] not in FORMATS:
        raise ParseError(f"bad version line: {lines[:1]}")
    cols = FORMATS[lines[0][len(prefix):]]
    hdr = lines[1].split()
    if hdr[:1] != ["#"] or hdr[1:] != cols:
        raise ParseError(f"bad column line: {lines[1]!r}")
    pools = []
    for n, line in enumerate(lines[2:], 3):
        f = line.split()
        if len(f) != len(cols):
            raise ParseError(f"line {n}: {len(f)} fields: {line!r}")
        p = dict(zip(cols, f))
        if p["type"] not in TYPES:
            raise ParseError(f"line {n}: type {p['type']!r}")
        for k in (c for c in cols if c in NUMERIC):
            if not re.fullmatch(r"-?[0-9]+", p[k]):
                raise ParseError(f"line {n}: {k} {p[k]!r} is not a number")
            p[k] = int(p[k])
        pools.append(p)
    return pools


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def by_name(pools, name):
    return [p for p in pools if p["name"] == name]


def one(pools, name):
    m = by_name(pools, name)
    return m[0] if len(m) == 1 else None


def gdb_values(binary, exprs):
    """Evaluate C expressions on a binary's DWARF with gdb; ints."""
    args = ["gdb", "-batch", "-nx"]
    for e in exprs:
        args += ["-ex", f"p/d (long)({e})"]
    out = subprocess.run(args + [binary], capture_output=True, text=True,
                         timeout=120).stdout
    vals = [int(m) for m in re.findall(r"^\$\d+ = (-?\d+)$", out, re.M)]
    if len(vals) != len(exprs):
        raise RuntimeError(f"gdb gave {vals} for {exprs}: {out[-500:]}")
    return vals


class Outdir:
    """The files a guest script brought back."""

    def __init__(self, path, results):
        self.path = path
        self.results = results

    def f(self, name):
        return os.path.join(self.path, name)

    def rc(self, name):
        """Exit status a guest script saved in NAME.rc, None if missing."""
        try:
            return int(read(self.f(name + ".rc")).strip())
        except (OSError, ValueError):
            return None

    def pools(self, name):
        """A saved report, parsed; a failed check (and []) if it does not parse."""
        try:
            return parse(read(self.f(name)))
        except (OSError, ParseError) as e:
            self.results.check(False, f"{name} parses", e)
            return []


def extract_dumps(outdir):
    """Cut the dumps out of OUTDIR/scratch.img as OUTDIR/dumps (lines
    "NAME OFFSET SIZE") says, into OUTDIR/dump-NAME; the scratch image is
    removed.  Returns {NAME: path}; a second call finds the files."""
    dumps = {}
    index = read(os.path.join(outdir, "dumps")).splitlines()
    scratch = os.path.join(outdir, "scratch.img")
    if not os.path.exists(scratch):
        for line in index:
            path = os.path.join(outdir, "dump-" + line.split()[0])
            if os.path.exists(path):
                dumps[line.split()[0]] = path
        return dumps
    with open(scratch, "rb") as disk:
        for line in index:
            name, off, size = line.split()
            path = os.path.join(outdir, f"dump-{name}")
            disk.seek(int(off))
            left = int(size)
            with open(path, "wb") as o:
                while left:
                    b = disk.read(min(left, 1 << 20))
                    if not b:
                        break
                    o.write(b)
                    left -= len(b)
            dumps[name] = path
    os.unlink(scratch)
    return dumps


if __name__ == "__main__" and sys.argv[1:2] == ["extract"]:
    for dump_name, dump_path in extract_dumps(sys.argv[2]).items():
        print(dump_name, dump_path)
