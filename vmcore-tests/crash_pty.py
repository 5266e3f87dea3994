#!/usr/bin/python3
"""crash's `mempool` interrupted, through a terminal (issue 21, item 6).

crash installs its SIGINT handler (restart(): longjmp to the prompt) only
when stdin is a terminal, so crash runs on a pty here, as a user's would:
  crash_pty.py VMLINUX DUMP KMEMPOOL.SO CLI-SCAN-FILE [-M MODULE]
One line per check, "PASS text" or "FAIL text", for test-crash.sh.

1. `mempool -s` in full (timed), then again with Ctrl-C at 40% of that time
   (shorter and again if it finished first): nothing of it printed after the
   interrupt, the prompt back;
2. the pager (scroll on, less): quit with q in the middle of `mempool -s`;
3. then `sys` prints the dump's release, and `mempool -s > FILE` is the CLI's
   scan byte for byte, `mempool -s` to the terminal its lines;
4. crash's descriptors and mappings of the vmlinux after all this are those
   after the first, complete `mempool -s` (a session left open by a longjmp
   keeps one descriptor and one mapping of it).
"""
import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time

vml, dump, so, cli_scan = sys.argv[1:5]
extra = " ".join(sys.argv[5:])
# KMP_CRASH_ROOT: crash runs in that chroot (another suite's crash); VMLINUX,
# DUMP and KMEMPOOL.SO are host paths below it, given to crash without it.
root = os.environ.get("KMP_CRASH_ROOT", "").rstrip("/")


def inner(path):
    return path[len(root):] if root and path.startswith(root + "/") else path


if root:
    out_file = os.path.join(os.path.dirname(os.path.abspath(vml)), "pty-scan")
else:
    out_file = os.path.join(os.path.dirname(os.path.abspath(cli_scan)), "pty-scan")
PROMPT = b"crash> "

pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm"
    if root:
        os.execvp("chroot", ["chroot", root, "crash", "--no_modules", "-s", inner(vml),
                             inner(dump)])
    os.execvp("crash", ["crash", "-s", vml, dump])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 160, 0, 0))

buf = b""


def read_until(pat, timeout):
    global buf
    end = time.time() + timeout
    while True:
        i = buf.find(pat)
        if i >= 0:
            got, buf = buf[:i + len(pat)], buf[i + len(pat):]
            return got
        if time.time() > end:
            raise TimeoutError("no %r after %d s; last output: %r" % (pat, timeout, buf[-300:]))
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                buf += os.read(fd, 65536)
            except OSError:
                raise TimeoutError("crash went away; last output: %r" % buf[-300:])


def cmd(line, timeout=120):
    os.write(fd, line.encode() + b"\n")
    return read_until(PROMPT, timeout)


def text(b):
    # Terminal modes newer readlines switch (bracketed paste: ESC [ ? 2004 h/l)
    # are not output of a command.
    return re.sub(r"\x1b\[\?[0-9;]*[hl]", "", b.decode("utf-8", "replace").replace("\r\n", "\n"))


def held():
    """crash's descriptors and mappings of the vmlinux."""
    real = os.path.realpath(vml)
    fds = 0
    for f in os.listdir("/proc/%d/fd" % pid):
        try:
            fds += os.readlink("/proc/%d/fd/%s" % (pid, f)) == real
        except OSError:
            pass
    with open("/proc/%d/maps" % pid) as m:
        maps = sum(1 for line in m if line.rstrip().endswith(real))
    return fds, maps


def check(ok, msg):
    print(("PASS " if ok else "FAIL ") + msg, flush=True)
    return ok


scan_lines = open(cli_scan).read().splitlines()
try:
    read_until(PROMPT, 300)
    cmd("set scroll off")
    check(b"shared object loaded" in cmd("extend " + inner(so)), "extend loads kmempool.so on a terminal")
    t0 = time.time()
    full = text(cmd("mempool -s " + extra))
    full_s = time.time() - t0
    check(scan_lines[-1] in full, "mempool -s on a terminal: %d lines in %.2f s" %
          (len(full.splitlines()), full_s))
    base = held()

    # 1. Ctrl-C while it runs.
    delay, interrupted = 0.4 * full_s, False
    for attempt in range(4):
        os.write(fd, ("mempool -s " + extra + "\n").encode())
        time.sleep(delay)
        t1 = time.time()
        os.write(fd, b"\x03")
        got = text(read_until(PROMPT, 60))
        back = time.time() - t1
        if scan_lines[-1] not in got:
            interrupted = True
            break
        delay /= 3
    check(interrupted, "Ctrl-C %.2f s into mempool -s: the prompt back %.2f s later" % (delay, back))
    printed = [l for l in got.splitlines()[1:] if l.strip() and l.strip() != "^C"
               and not l.startswith("crash>")]
    check(not printed, "nothing of the interrupted command printed after Ctrl-C%s" %
          ("" if not printed else ": " + repr(printed[:3])))

    # 2. The pager quit in the middle.
    cmd("set scroll on")
    os.write(fd, ("mempool -s " + extra + "\n").encode())
    time.sleep(max(1.0, full_s))
    os.write(fd, b"q")
    try:
        read_until(PROMPT, 60)
        check(True, "the pager (less) quit in mempool -s: the prompt back")
    except TimeoutError as e:
        check(False, "the pager quit: %s" % e)
        os.write(fd, b"q\n")
        read_until(PROMPT, 30)
    cmd("set scroll off")

    # 3. crash and mempool after it.
    sys_out = text(cmd("sys"))
    rel = [l for l in sys_out.splitlines() if "RELEASE:" in l]
    check(bool(rel) and "KERNEL:" in sys_out, "sys after them: %s" %
          (rel[0].strip() if rel else repr(sys_out[-200:])))
    if os.path.exists(out_file):
        os.unlink(out_file)
    cmd("mempool -s %s > %s" % (extra, inner(out_file)))
    same = os.path.exists(out_file) and open(out_file).read().splitlines() == scan_lines
    check(same, "mempool -s > FILE after them: the CLI's scan (%d lines)" % len(scan_lines))
    again = text(cmd("mempool -s " + extra)).splitlines()
    check(all(l in again for l in scan_lines), "mempool -s to the terminal after them: the CLI's lines")

    # 4. Nothing of a session stays open.
    now = held()
    check(now == base, "the vmlinux held by crash: %d descriptors, %d mappings, as after a "
          "complete mempool (%d, %d)" % (now + base))
    os.write(fd, b"exit\n")
    _, status = os.waitpid(pid, 0)
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
          "crash exits 0 (status %d)" % status)
except TimeoutError as e:
    check(False, str(e))
    os.kill(pid, 9)
    os.waitpid(pid, 0)
