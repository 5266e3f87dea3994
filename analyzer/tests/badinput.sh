#!/bin/bash
# Bad input for kmempool: every case must end with its documented exit
# status and exactly one line on stderr, "kmempool: ...", that contains the
# expected words; never a crash, a sanitizer report or a hang.
#
#   badinput.sh KMEMPOOL FAKE_VMLINUX [DUMP VMLINUX OTHER_VMLINUX]
#
# With only the first two arguments it runs the cases that need no real
# dump (part of `make -C analyzer check`).  The vmcore tests add a real
# dump, its vmlinux and the vmlinux of another build, for the cases that
# need them: wrong vmlinux, vmlinux without debug info, truncated dump.
set -u
export LSAN_OPTIONS="print_suppressions=0:suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
KMP=$1 FAKE=$2 DUMP=${3:-} VML=${4:-} OTHER=${5:-}
T=$(mktemp -d /tmp/kmp-bad.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
# Debian's python3 (a python3 found first on PATH, e.g. a pyenv shim, can
# take a second to start; these scripts run it dozens of times)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# expect NAME STATUS WORDS -- ARGS...
expect() {
	local name=$1 want=$2 words=$3 rc lines
	shift 4
	timeout 60 "$KMP" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	lines=$(wc -l < "$T/err")
	if [ "$rc" = "$want" ] && [ "$lines" = 1 ] && grep -q '^kmempool: ' "$T/err" &&
	   grep -qiF -- "$words" "$T/err" &&
	   ! grep -qE 'Sanitizer|runtime error' "$T/err"; then
		echo "ok - $name (exit $rc: $(cut -c1-110 "$T/err"))"
		pass=$((pass + 1))
	else
		echo "not ok - $name: exit $rc (want $want), $lines stderr lines, want '$words':"
		sed 's/^/    /' "$T/err" | head -20
		fail=$((fail + 1))
	fi
}

# Deterministic "random" bytes.
"$PY" -c 'import random,sys; r=random.Random(42); sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(65536)))' > "$T/random"
: > "$T/empty"
printf 'ab' > "$T/short"
# The start of a flattened dump: makedumpfile's signature and type.
printf 'makedumpfile\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' > "$T/flat"
# Whole flattened files (makedumpfile -F): a 4096-byte header, records
# {offset, size, data} (big endian), an end marker.
flat() {	# flat OUT RECORD... with RECORD = OFFSET:SIZE[:DATASIZE]
	"$PY" - "$@" <<'PY'
import struct, sys
out = open(sys.argv[1], "wb")
h = b"makedumpfile\0\0\0\0" + struct.pack(">qq", 1, 1)
out.write(h + bytes(4096 - len(h)))
for r in sys.argv[2:]:
    f = [int(x) for x in r.split(":")]
    n = f[2] if len(f) > 2 else max(f[1], 0)
    out.write(struct.pack(">qq", f[0], f[1]) + bytes((i * 7 + 3) & 255 for i in range(n)))
out.write(struct.pack(">qq", -1, -1))
PY
}
flat "$T/flat-negative" 0:4096 -4096:4096
flat "$T/flat-overlap" 0:8192 4096:4096
flat "$T/flat-huge" 0:4096 8192:4611686018427387904:16
flat "$T/flat-garbage" 4096:8192 0:4096
flat "$T/flat-empty"
# A flattened ELF core whose header is damaged (e_phentsize 0, one section
# header at 64): the ELF checks must see the reassembled header.
"$PY" - "$T/flat-badelf" <<'PY'
import struct, sys
eh = b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 64,
                                                        0, 64, 0, 1, 64, 1, 0)
ph = struct.pack("<IIQQQQQQ", 4, 0, 120, 0, 0, 16, 16, 4) + bytes(16)
h = b"makedumpfile\0\0\0\0" + struct.pack(">qq", 1, 1)
with open(sys.argv[1], "wb") as o:
    o.write(h + bytes(4096 - len(h)))
    o.write(struct.pack(">qq", 64, len(ph)) + ph)	# written out of order
    o.write(struct.pack(">qq", 0, len(eh)) + eh)
    o.write(struct.pack(">qq", -1, -1))
PY
# kdump-compressed headers whose fields do not fit the file: libkdumpfile
# 0.5.1 sized a table from them and asked for exabytes (found by fuzzing).
"$PY" - "$T/kdump-" <<'PY'
import struct, sys
def kdump(path, block, sub, bitmap, mapnr, size, version=6, mapnr64=None):
    h = bytearray(size)
    h[0:8] = b"KDUMP   "
    struct.pack_into("<i", h, 8, version)
    struct.pack_into("<iiII", h, 428, block, sub, bitmap, mapnr)
    if mapnr64 is not None and size >= block + 104:
        struct.pack_into("<Q", h, block + 96, mapnr64)
    open(path, "wb").write(h)
kdump(sys.argv[1] + "block0", 0, 1, 2, 10, 16384)
kdump(sys.argv[1] + "bitmap-past-eof", 4096, 1, 1000, 10, 16384)
kdump(sys.argv[1] + "mapnr", 4096, 1, 2, 10, 16384, mapnr64=1 << 40)
PY
head -c 4096 /dev/zero > "$T/zeros"
printf 'ELF?' > "$T/notelf"

expect "unknown option" 1 "--help" -- --bogus
expect "unknown command" 1 "unknown command" -- frobnicate
expect "unknown output format" 1 "unknown format" -- -f xml
expect "bad --max-entries" 1 "positive number" -- --max-entries 0
expect "missing core file" 2 "cannot open core" -- -c "$T/nonexistent" -s "$FAKE"
expect "core is a directory" 2 "directory" -- -c "$T" -s "$FAKE"
expect "empty core" 2 "too short" -- -c "$T/empty" -s "$FAKE"
expect "two-byte core" 2 "too short" -- -c "$T/short" -s "$FAKE"
expect "random bytes as core" 2 "not a kernel dump" -- -c "$T/random" -s "$FAKE"
expect "zeros as core" 2 "not a kernel dump" -- -c "$T/zeros" -s "$FAKE"
expect "flattened header cut short" 2 "flattened dump truncated inside its header" -- \
	-c "$T/flat" -s "$FAKE"
expect "flattened record with a negative offset" 2 "bad flattened record" -- \
	-c "$T/flat-negative" -s "$FAKE"
expect "flattened records overlapping" 2 "flattened records overlap" -- \
	-c "$T/flat-overlap" -s "$FAKE"
expect "flattened record of 4 EiB" 2 "bad flattened record" -- -c "$T/flat-huge" -s "$FAKE"
expect "flattened file without records" 2 "holds no records" -- -c "$T/flat-empty" -s "$FAKE"
expect "flattened file of bytes that are no dump" 2 "not a kernel dump" -- \
	-c "$T/flat-garbage" -s "$FAKE"
expect "flattened ELF core with a damaged header" 2 "e_phentsize" -- \
	-c "$T/flat-badelf" -s "$FAKE"
expect "an ELF program as core" 2 "not a kernel dump" -- -c "$FAKE" -s "$FAKE"
expect "kdump header with block size 0" 2 "kdump block size 0" -- -c "$T/kdump-block0" -s "$FAKE"
expect "kdump bitmaps past the end of the file" 2 "does not fit the file" -- \
	-c "$T/kdump-bitmap-past-eof" -s "$FAKE"
expect "kdump header claiming 2^40 pages" 2 "its bitmaps hold" -- -c "$T/kdump-mapnr" -s "$FAKE"

# --help documents every exit status.
if "$KMP" --help | grep -q '^  6  ' && "$KMP" --help | grep -q '^  5  partial'; then
	echo "ok - --help lists the exit statuses"; pass=$((pass + 1))
else
	echo "not ok - --help lacks the exit statuses"; fail=$((fail + 1))
fi

if [ -n "$DUMP" ]; then
	expect "missing vmlinux" 3 "cannot open vmlinux" -- -c "$DUMP" -s "$T/nonexistent"
	expect "vmlinux is a directory" 3 "not a regular file" -- -c "$DUMP" -s "$T"
	expect "vmlinux is random bytes" 3 "not an ELF file" -- -c "$DUMP" -s "$T/random"
	objcopy --strip-debug "$VML" "$T/vmlinux-nodebug"
	expect "vmlinux without debug info" 3 "no DWARF" -- -c "$DUMP" -s "$T/vmlinux-nodebug"
	expect "vmlinux of another build" 4 "does not match" -- -c "$DUMP" -s "$OTHER"
	# Its linux_banner is read by its symbol's size: the build IDs differ.
	expect "a test object as vmlinux" 4 "does not match the core: build ID" -- -c "$DUMP" -s "$FAKE"
	# Cut short: the header and the first part survive, the rest is gone.
	size=$(stat -c %s "$DUMP")
	head -c $((size / 3)) "$DUMP" > "$T/truncated"
	timeout 60 "$KMP" -c "$T/truncated" -s "$VML" > "$T/out" 2> "$T/err"
	rc=$?
	# 2 or 5, never 4: a "different" banner in a cut dump is zeros read as data.
	if { [ $rc = 5 ] || [ $rc = 2 ]; } && [ "$(wc -l < "$T/err")" = 1 ] &&
	   grep -qiE 'truncat|beyond|missing|excluded|no data|cannot read' "$T/err" &&
	   ! grep -qE 'Sanitizer|runtime error' "$T/err"; then
		echo "ok - dump truncated to a third (exit $rc: $(cut -c1-110 "$T/err"))"
		pass=$((pass + 1))
	else
		echo "not ok - dump truncated to a third: exit $rc"; sed 's/^/    /' "$T/err" | head
		fail=$((fail + 1))
	fi
	head -c 3000 "$DUMP" > "$T/stub"
	expect "dump truncated to 3000 bytes" 2 "truncated" -- -c "$T/stub" -s "$VML"
fi

echo "badinput: $pass passed, $fail failed"
[ "$fail" = 0 ]
