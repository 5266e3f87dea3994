"""Check kmempool triage's lines against kmempool waiters run on each dump
by itself (issue 20).

    check_triage.py KMP SCHEMA LINES [--expect DUMP=STATUS]... [-- WAITERS_ARGS...]

LINES holds triage's output.  For each line: it is one object of the
schema's definition "triage" (check_json.py's checker); then kmempool
waiters -f json runs on the same dump with the vmlinux the line names (-s;
none when the line has none) and WAITERS_ARGS (the -M options triage had),
without DEBUGINFOD_URLS, and the line must agree with it: "status" is the
exit status of that run, "complete" is status 0, the pools with waiters
have the same names and the same waiting pids, "waiters" counts them, and
a failure's message is the run's last line on stderr.  --expect: the
status a dump must have.  Prints one "ok"/"not ok" line per dump; exit 1
if any is not ok."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_json  # noqa: E402


def waiting_pools(pools):
    """{name: sorted pids} of the pools that have waiters listed."""
    return {p["name"]: sorted(w["pid"] for w in p["waiters"]) for p in pools if p["waiters"]}


def check_line(kmp, schema, line, extra, expect):
    errs = check_json.check(schema, "triage", line)
    if errs:
        return "not a valid triage line: " + "; ".join(errs[:3])
    d = json.loads(line)
    dump = d["dump"]
    if dump in expect and d["status"] != expect[dump]:
        return f"status {d['status']}, want {expect[dump]}"
    if d["complete"] != (d["status"] == 0):
        return f"complete {d['complete']} with status {d['status']}"
    if d["status"] is None:
        return None if d["error"]["kind"] in ("crash", "timeout") else "status null, not a crash"
    cmd = [kmp, "waiters", "-c", dump, "-f", "json"] + extra
    if d["kernel"]["vmlinux"]:
        cmd += ["-s", d["kernel"]["vmlinux"]]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEBUGINFOD_")}
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != d["status"]:
        return f"status {d['status']}, kmempool waiters exits {r.returncode}"
    err = r.stderr.strip().splitlines()
    if d["status"] != 0:
        want = err[-1] if err else ""
        if want != "kmempool: " + d["error"]["message"]:
            return f"error {d['error']['message']!r}, kmempool waiters says {want!r}"
    if r.stdout.strip():
        ref = json.loads(r.stdout)
        got, want = waiting_pools(d["exhausted"]), waiting_pools(ref["pools"])
        if got != want:
            return f"waiting pools {got}, kmempool waiters: {want}"
        if d["waiters"] != sum(len(v) for v in want.values()):
            return f"waiters {d['waiters']}, kmempool waiters lists {want}"
        if ref["kernel"]["release"] != d["kernel"]["release"]:
            return f"release {d['kernel']['release']}, kmempool waiters: {ref['kernel']['release']}"
        if (ref["kernel"]["mempool_format"] is not None) != d["kernel"]["series"]:
            return f"series {d['kernel']['series']}, mempool_format {ref['kernel']['mempool_format']}"
    elif d["exhausted"] or d["waiters"]:
        return "pools in a line whose dump gives no report"
    return None


def main(argv):
    kmp, schema_path, lines_path = argv[:3]
    rest = argv[3:]
    extra, expect = [], {}
    while rest:
        a = rest.pop(0)
        if a == "--expect":
            k, v = rest.pop(0).rsplit("=", 1)
            expect[k] = None if v == "null" else int(v)
        elif a == "--":
            extra = rest
            break
    schema = json.load(open(schema_path))
    bad = 0
    lines = open(lines_path).read().splitlines()
    seen = set()
    for line in lines:
        try:
            d = json.loads(line)
            name = d["dump"]
        except (ValueError, KeyError):
            print(f"not ok - triage: a line that is not JSON: {line[:120]}")
            bad += 1
            continue
        seen.add(name)
        why = check_line(kmp, schema, line, extra, expect)
        short = os.path.relpath(name)
        what = ("complete, %d pools exhausted, %d waiters" % (len(d["exhausted"]), d["waiters"])
                if d["complete"] else "status %s, %s: %.90s" % (
                    d["status"], d["error"]["kind"], d["error"]["message"]))
        if why:
            print(f"not ok - triage: {short}: {why}")
            bad += 1
        else:
            series = {True: "series", False: "stock", None: "kernel unknown"}[d["kernel"]["series"]]
            print(f"ok - triage: {short} ({series}): {what}; kmempool waiters agrees")
    for name in expect:
        if name not in seen:
            print(f"not ok - triage: no line for {name}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
