#!/usr/bin/env python3
"""The rig's shell scripts under `set -o pipefail` (their own, or lib.sh's,
qemu/apt-suite.sh's): no pipe may end in `grep -q`.  grep -q exits at its
first match; a writer still writing then dies of SIGPIPE (status 141) and
pipefail makes the whole pipe fail - a match read as "no match", at random
(CI saw it: readelf -S | grep -q .BTF).  Prints each such line; exit 1 if any.
    lint-pipes.py ROOT"""
import os, re, sys

root = sys.argv[1]
PIPE_GREP_Q = re.compile(r"(?<!\|)\|(?!\|)\s*grep\s+(-[A-Za-z]*q[A-Za-z]*\b|--quiet\b)")
bad = []
for d in ("qemu", "vmcore-tests", ".ci"):
    for dirpath, _, files in os.walk(os.path.join(root, d)):
        for f in sorted(files):
            p = os.path.join(dirpath, f)
            try:
                text = open(p, encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue
            if not (f.endswith(".sh") or text.startswith("#!/bin/bash")):
                continue
            strict = ("pipefail" in text or "lib.sh" in text or "apt-suite.sh" in text)
            if not strict:
                continue
            for n, line in enumerate(text.splitlines(), 1):
                code = line.split("#", 1)[0] if not line.lstrip().startswith("#") else ""
                # bash -c '...' strings run in a shell of their own, without pipefail.
                if "bash -c" in code or "sh -c" in code:
                    continue
                if PIPE_GREP_Q.search(code):
                    bad.append(f"{os.path.relpath(p, root)}:{n}: {line.strip()}")
print("\n".join(bad) if bad else "none")
sys.exit(1 if bad else 0)
