#!/bin/bash
# Crafted ELF vmcores of a series v6 kernel (tests/mkcore_v6.c) through the
# real kmempool binary, with the v6 test object as vmlinux: the table byte
# for byte (written out below: escaping, kind, padding, owner and instance
# "-", slab/kmalloc/page/private), JSON, and damaged input, each refused
# with one line on stderr and its exit status (5: partial, 6: format).
#
#   crafted_v6.sh KMEMPOOL MKCORE_V6 FAKE_VMLINUX_V6
set -u
export LSAN_OPTIONS="print_suppressions=0:suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
KMP=$1 MKCORE=$2 FAKE=$3
T=$(mktemp -d /tmp/kmp-crafted-v6.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { echo "ok - crafted-v6: $1"; pass=$((pass + 1)); }
bad() { echo "not ok - crafted-v6: $1"; sed 's/^/    /' "$T/err" | head -8; fail=$((fail + 1)); }
core() { "$MKCORE" "$FAKE" "$T/$1.core" ${2:-} || { echo "mkcore_v6 failed" > "$T/err"; return 1; }; }
run() { timeout 60 "$KMP" "$@" > "$T/out" 2> "$T/err"; rc=$?; }
clean_err() { ! grep -qE 'Sanitizer|runtime error' "$T/err"; }

printf '%s\n' \
'mempool - version: 1.0' \
'# name                         type    elem_size min_nr curr_nr low_nr from_reserve    waits waiting   failed  emptied oldest_wait owner instance site' \
'bioset_init:bio                slab          192      2       2      2            0        0       0        0        0           0 - - block/bio.c:1812' \
'dm-crypt_req                   kmalloc       592     64      64     64            5        2       0        1        3           0 dm_crypt dm-0 drivers/md/dm-crypt.c:3349' \
'a\040b\134c\011d               page        16384      4       0      0            9        3       1        0        1          10 kmp_v6 - x\040y.c:7' \
'a_very_long_pool_name_for_the_padding_check:bvec private         0      1       1      0   4294967295        0       0        0        0           0 - md0 lib/sg_pool.c:4294967295' \
	> "$T/expected"

core good
run -c "$T/good.core" -s "$FAKE"
if [ $rc = 0 ] && cmp -s "$T/out" "$T/expected" && [ ! -s "$T/err" ]; then
	ok "the table byte for byte ($(wc -l < "$T/out") lines)"
else
	diff "$T/expected" "$T/out" >> "$T/err"; bad "the table: exit $rc"
fi

run -c "$T/good.core" -s "$FAKE" -f json
if [ $rc = 0 ] && /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["name"]: x for x in d["pools"]}
a = p["bioset_init:bio"]
b = p["a\\040b\\134c\\011d"]
assert (a["site"], a["file"], a["line"], a["function"], a["kind"], a["owner"]) == ("block/bio.c:1812", "block/bio.c", 1812, "bioset_init", "bio", None), a
assert (b["file"], b["type"], b["elem_size"], b["kind"], b["owner"]) == ("x y.c", "page", 16384, None, "kmp_v6"), b
assert d["complete"] is True
' "$T/out" 2>> "$T/err"; then
	ok "JSON: site, file, line, function, kind"
else
	bad "JSON: exit $rc"
fi

# The JSON report against the schema (vmcore-tests/check_json.py), when the checkout has it.
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -f "$HERE/../../vmcore-tests/check_json.py" ]; then
	run -c "$T/good.core" -s "$FAKE" -f json
	if [ $rc = 0 ] && /usr/bin/python3 "$HERE/../../vmcore-tests/check_json.py" \
		"$HERE/../kmempool.schema.json" report "$T/out" 2> "$T/err"; then
		ok "JSON report valid against kmempool.schema.json"
	else
		bad "JSON report against the schema: exit $rc"
	fi
fi

run waiters -c "$T/good.core" -s "$FAKE"
if [ $rc = 0 ] && [ "$(grep -c '^    pid' "$T/out")" = 1 ] && grep -q '^a\\040b\\134c\\011d   ' "$T/out" &&
   grep -qE '^    pid 77 +kmp_v6waiter +D \(uninterruptible\), waiting for 10 s$' "$T/out" && clean_err; then
	ok "waiters: the mempool_alloc() waiter under its pool's line, the foreign entry skipped"
else
	cat "$T/out" >> "$T/err"; bad "waiters: exit $rc"
fi

# The test object lacks the kernel's text symbols (_stext) a scan needs: it
# must refuse cleanly, not crash.
run scan -c "$T/good.core" -s "$FAKE"
if clean_err && [ $rc = 6 ] && grep -q '_stext' "$T/err"; then
	ok "scan on a v6 core without kernel text symbols: refused (exit $rc)"
else
	bad "scan: exit $rc"
fi

run triage "$T/good.core" -s "$FAKE"
if [ $rc = 0 ] && grep -q '"exhausted": \[{"address": "0x[0-9a-f]*", "name": "a\\\\040b\\\\134c\\\\011d"' "$T/out" && clean_err; then
	ok "triage names the exhausted v6 pool as the table does"
else
	cat "$T/out" >> "$T/err"; bad "triage: exit $rc"
fi

# Issue 32 item 4: a reader that closed the pipe (kmempool ... | head -1):
# exit 8 as kmp.h promises, one line on stderr, not death by SIGPIPE.  The
# pipe's read end is closed before kmempool starts, so the write fails
# every time (head -1 may or may not have exited when the lines come).
epipe() {
	/usr/bin/python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=open(os.environ["EPIPE_ERR"], "w"))
print(p.returncode)' "$@"
}
for what in report waiters; do
	args="-c $T/good.core -s $FAKE"
	[ $what = waiters ] && args="waiters $args -f json"
	# shellcheck disable=SC2086
	rc=$(EPIPE_ERR=$T/err epipe "$KMP" $args)
	if [ "$rc" = 8 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q '^kmempool: cannot write the report' "$T/err" &&
	   clean_err; then
		ok "kmempool $what into a closed pipe: exit 8, '$(cut -c1-60 "$T/err")'"
	else
		bad "kmempool $what into a closed pipe: status $rc (want 8; -13 is death by SIGPIPE)"
	fi
done

# Issue 32 item 4: a dump that triage found in a directory others can write
# is swapped, between the search and the analysis, for a symbolic link to
# another file (standing in for /proc/kcore), or for another regular file.
# The test hook KMP_TEST_TRIAGE_STOP (test builds only) stops triage after
# the search; the swap is made while it is stopped.  Triage must refuse the
# swapped dump, never analyse the file the link points to.
# swap NAME HOW REGEX
swap() {
	local name=$1 how=$2 re=$3 pid i st
	rm -rf "$T/store" && mkdir "$T/store" && cp "$T/good.core" "$T/store/vmcore-a" &&
		cp "$T/good.core" "$T/standin" || { bad "$name: setup"; return; }
	KMP_TEST_TRIAGE_STOP=1 "$KMP" triage -s "$FAKE" "$T/store" > "$T/out" 2> "$T/err" &
	pid=$!
	for i in $(seq 600); do
		st=$(sed 's/.*) \(.\).*/\1/' "/proc/$pid/stat" 2>/dev/null)
		[ "$st" = T ] || [ -z "$st" ] && break
		sleep 0.05
	done
	if [ "$st" != T ]; then
		kill -9 "$pid" 2>/dev/null; wait "$pid"; bad "$name: triage did not stop after the search"
		return
	fi
	case $how in
	link) rm "$T/store/vmcore-a" && ln -s "$T/standin" "$T/store/vmcore-a" ;;
	file) mv "$T/standin" "$T/store/vmcore-a" ;;
	esac
	kill -CONT "$pid"
	wait "$pid"; rc=$?
	if [ $rc = 5 ] && grep -q '"complete": false' "$T/out" && grep -qE -- "$re" "$T/out" &&
	   ! grep -q '"exhausted": \[{' "$T/out" && clean_err; then
		ok "$name: refused, exit 5 ($(grep -o '"message": "[^"]*"' "$T/out" | cut -c1-130))"
	else
		cat "$T/out" >> "$T/err"; bad "$name: exit $rc, want 5 and /$re/"
	fi
}
swap "triage: the dump found swapped for a symlink to another file" link 'a symbolic link'
swap "triage: the dump found replaced by another file" file 'replaced by another file'

# expect NAME DAMAGE STATUS REGEX: one stderr line "kmempool: ..." matching REGEX.
expect() {
	local name=$1 damage=$2 want=$3 re=$4 lines
	core "$damage" "$damage" || { bad "$name: no core"; return; }
	run -c "$T/$damage.core" -s "$FAKE"
	lines=$(grep -vc '^kmempool: mempool at .* left out as corrupt' "$T/err")
	if [ "$rc" = "$want" ] && [ "$lines" = 1 ] && grep -q '^kmempool: ' "$T/err" &&
	   grep -qE -- "$re" "$T/err" && clean_err; then
		ok "$name (exit $rc: $(grep -v '^kmempool: mempool at .* left out as corrupt' "$T/err" | cut -c1-140))"
	else
		bad "$name: exit $rc (want $want), want /$re/"
	fi
}
expect "a tag pointer that is not mapped" tag-unmapped 5 'mempool_tag at 0xffff8880dead0000'
expect "a function without a NUL within 4096 bytes" no-nul 5 '1 mempool\(s\) left out as corrupt'
grep -q 'its function at 0x[0-9a-f]* has no NUL within 4096 bytes' "$T/err" &&
	ok "  ... its note names the string and the bound" || bad "  ... no note on the string"
expect "counters breaking low_nr <= curr_nr" counters 5 '1 mempool\(s\) left out as corrupt'
expect "an unknown column line" columns 6 "column line '# name .*instance sitx'"
expect "an unknown version" version 6 "version '1.1'"

echo "crafted-v6: $pass passed, $fail failed"
[ $fail = 0 ]
