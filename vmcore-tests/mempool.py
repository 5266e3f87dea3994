"""Shared helpers of the end-to-end checks: parse /proc/mempool text,
ask gdb (an independent DWARF reader) for sizes, print TAP-like lines,
cut the dumps a capture kernel wrote out of the scratch disk.

    mempool.py extract OUTDIR   the last, for shell scripts: prints
                                "NAME PATH" for each dump"""
import os
import re
import subprocess
import sys

HEADER0 = "mempool - version: 1.1"
# Format 1.0 of series v6; series v7 (mempool_seq_show() in
# kernel-patches/0008) appended the pool's id: format 1.1.
COLUMNS_V6 = ["name", "type", "elem_size", "min_nr", "curr_nr", "low_nr",
              "from_reserve", "waits", "waiting", "failed", "emptied",
              "oldest_wait", "owner", "instance", "site"]
COLUMNS = COLUMNS_V6 + ["id"]
# Each format version's columns; a minor version only appends.
FORMATS = {"1.0": COLUMNS_V6, "1.1": COLUMNS}
NUMERIC = set(COLUMNS[2:12]) | {"id"}
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
        if "site" in p and not re.fullmatch(r"[^\s:]+\.[ch]:[1-9][0-9]*", p["site"]):
            raise ParseError(f"line {n}: site {p['site']!r} is not FILE:LINE")
        for k in (c for c in cols if c in NUMERIC):
            if not re.fullmatch(r"-?[0-9]+", p[k]):
                raise ParseError(f"line {n}: {k} {p[k]!r} is not a number")
            p[k] = int(p[k])
        pools.append(p)
    return pools


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The patched tree the default kernel was built from (qemu/build-kernel.sh).
SRC = os.environ.get("KMP_SRC", os.path.join(ROOT, "build", "src"))
_FUNC_RE = re.compile(r"^[A-Za-z_][^;{}]*?\b([A-Za-z_]\w*)\s*\(")
_src_cache = {}



def _tree_prefix():
    """How the kernel spells its source tree in a site: series v7 prints a
    site relative to the source tree ("block/bio.c", as distributions'
    in-tree builds and /proc/allocinfo do; qemu/build-kernel.sh maps the
    out-of-tree build's "../src/" away), so nothing."""
    return ""


TREE = _tree_prefix()


def tree_path(path):
    """A site's file as a path in the patched tree (TREE stripped)."""
    return path[len(TREE):] if TREE and path.startswith(TREE) else path


def tree_site(path, line):
    """The site the kernel prints for line LINE of PATH in the patched tree."""
    return f"{TREE}{path}:{line}"


# The test modules' sources, for sites outside the kernel tree (an external
# module's file name is relative to its own directory).
MODULE_SRC = [os.path.join(ROOT, "vmcore-tests", d) for d in ("module", "module-stall")]


def src_lines(path):
    if path not in _src_cache:
        _src_cache[path] = None
        for d in [SRC] + ([] if "/" in path and not os.path.isabs(path) else MODULE_SRC):
            f = os.path.join(d, path if not os.path.isabs(path) else path)
            if os.path.isabs(path) and d != SRC:
                f = os.path.join(d, os.path.basename(path))
            try:
                with open(f, errors="replace") as fh:
                    _src_cache[path] = fh.read().split("\n")
                break
            except OSError:
                pass
    return _src_cache[path]


def enclosing_function(lines, lineno):
    """The C function whose body holds line LINENO (1-based) of LINES: the
    nearest line above it that starts at column 0 with a declaration
    (kernel style) and is not a statement, macro or label."""
    for i in range(lineno - 2, -1, -1):
        line = lines[i]
        if not line or line[0] in " \t#{}/*" or line.rstrip().endswith(";"):
            continue
        m = _FUNC_RE.match(line)
        if m and m.group(1) not in ("if", "for", "while", "switch", "sizeof"):
            return m.group(1)
    return None


def site_problem(pool):
    """Why POOL's name does not agree with the code at its site (file:line
    in the patched tree), or None.  The name is the subsystem's (a string
    at the site's statement, or an expression there that is not NULL), else
    the function holding the site; a bio_set's pools are that function's,
    with ":bio" or ":bvec" (the site calls bioset_init())."""
    path, _, line = pool["site"].rpartition(":")
    path = tree_path(path)
    lines = src_lines(path)
    if lines is None:
        return f"{pool['site']}: no such file in {SRC}"
    n = int(line)
    if n > len(lines):
        return f"{pool['site']}: the file has {len(lines)} lines"
    func = enclosing_function(lines, n)
    stmt = " ".join(lines[n - 1:n + 3])
    name = pool["name"]
    if name.endswith((":bio", ":bvec")):
        if "bioset_init(" not in lines[n - 1]:
            return f"{pool['site']}: a bio_set's pool, but the line does not call bioset_init(): {lines[n - 1].strip()!r}"
        if name.rsplit(":", 1)[0] != func:
            return f"{pool['site']}: named {name!r}, set up in {func}()"
        return None
    if f'"{name}"' in stmt:
        return None
    if name == func:
        if "_named(" in stmt:
            return f"{pool['site']}: named after its function {func}, but set up by a _named() call: {stmt.strip()!r}"
        return None
    if "TAG_INIT(" in stmt and "TAG_INIT(NULL" not in stmt.replace(" ", ""):
        return None     # a name the subsystem passes at run time (sgpool-N)
    return f"{pool['site']}: named {name!r}, but the site is in {func}() and its statement has no such name: {stmt.strip()[:160]!r}"


def find_line(path, needle):
    """The 1-based number of the one line of PATH (in the patched tree)
    that contains NEEDLE, and the function holding it; (None, None) if no
    line or several do."""
    lines = src_lines(path) or []
    hits = [i + 1 for i, ln in enumerate(lines) if needle in ln]
    if len(hits) != 1:
        return None, None
    return hits[0], enclosing_function(lines, hits[0])


_mod_index = {}


def owner_of(site, obj_dirs):
    """The module the series names as a pool's owner, from the build: the
    module whose .mod file (kbuild's list of a module's objects) in one of
    OBJ_DIRS (the kernel's object tree first, then external modules' build
    directories) lists the object of the site's file, with '-' as '_'; "-"
    for a file built into the kernel."""
    path = tree_path(site.rpartition(":")[0])
    key = tuple(obj_dirs)
    if key not in _mod_index:
        idx = {}
        for n, d in enumerate(obj_dirs):
            for dirpath, _, files in os.walk(d):
                for fn in files:
                    if fn.endswith(".mod"):
                        mod = fn[:-4].replace("-", "_")
                        for o in read(os.path.join(dirpath, fn)).split():
                            o = os.path.normpath(o)
                            # in-tree: relative to the object tree; external:
                            # known by the object's file name
                            idx.setdefault(o if n == 0 else os.path.basename(o), mod)
        _mod_index[key] = idx
    idx = _mod_index[key]
    obj = os.path.splitext(path)[0] + ".o"
    if not os.path.isabs(path) and obj in idx:
        return idx[obj]
    if os.path.isabs(path) or "/" not in path:
        return idx.get(os.path.basename(obj), "-")
    return "-"


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def by_name(pools, name):
    return [p for p in pools if p["name"] == name]


def one(pools, name):
    m = by_name(pools, name)
    return m[0] if len(m) == 1 else None


def kaslr_truth(stext_file, binary):
    """The KASLR offset a guest really ran with: where its /proc/kallsyms
    put _stext, less _stext's link address in the vmlinux (nm).  None when
    either is missing."""
    try:
        run = int(read(stext_file).split()[0], 16)
    except (OSError, IndexError, ValueError):
        return None
    out = subprocess.run(["nm", binary], capture_output=True, text=True, timeout=120).stdout
    m = re.search(r"^([0-9a-f]+) [Tt] _stext$", out, re.M)
    return (run - int(m.group(1), 16)) % (1 << 64) if m else None


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


def gdb_strings(binary, names):
    """The C strings (char arrays) NAMES in a binary's data, read with gdb."""
    args = ["gdb", "-batch", "-nx"]
    for n in names:
        args += ["-ex", f"printf \"@@%s@@\\n\", {n}"]
    out = subprocess.run(args + [binary], capture_output=True, text=True,
                         timeout=120).stdout
    vals = re.findall(r"^@@(.*)@@$", out, re.M)
    if len(vals) != len(names):
        raise RuntimeError(f"gdb gave {vals} for {names}: {out[-500:]}")
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
