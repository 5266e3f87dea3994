#!/bin/bash
# kmempool and debuginfod (issue 20), against a real debuginfod server
# (Debian's package debuginfod) on 127.0.0.1 and a free port, its database,
# scratch space and the client's cache under build/t/debuginfod.  The server
# indexes the -dbg .deb that the stock rig downloaded (Debian's vmlinux and
# modules with DWARF) and the rig's own kmp_stock.ko; the stock test's dump
# (build/t/stock-hang*/dump-zlib, `make test-stock`) is analysed with no
# vmlinux on disk:
#   - without DEBUGINFOD_URLS: exit 3, the message of before, libdebuginfod
#     not even loaded;
#   - with it and an empty cache: the vmlinux (and kmp_stock.ko, by the
#     build ID read from memory) downloaded, progress on a terminal, the
#     answer byte for byte the one with -s and -M;
#   - a dump whose BUILD-ID the server does not have: exit 3, one line;
#   - the server stopped: the same answer from the cache alone; with an
#     empty cache, exit 3 and one line;
#   - kmempool triage on the dump, from the cache.
# The server's index is kept in build/debuginfod-index, keyed by the .deb
# and the module (indexing the 0.8-1 GB .deb takes 2-3 min; a warm rerun
# starts the server on the kept database, which skips unchanged files).
# The server is killed at the end in all cases (trap).  Times are printed.
#   vmcore-tests/test-debuginfod.sh      (KMP_ANALYZER: another kmempool)
GROUP=debuginfod
. "$(dirname "$0")/lib.sh"
. "$ROOT/qemu/apt-suite.sh"
KMP=${KMP_ANALYZER:-$B/analyzer/kmempool}
D=$T/debuginfod
SERVER=

stop_server() {
	if [ -n "$SERVER" ]; then
		kill "$SERVER" 2>/dev/null
		wait "$SERVER" 2>/dev/null
		SERVER=
	fi
}
trap 'stop_server' EXIT
trap 'stop_server; exit 1' INT TERM

secs() { printf '%.1f' "$(echo "$(date +%s.%N) - $1" | bc)"; }

if ! command -v debuginfod >/dev/null || ! command -v dpkg-deb >/dev/null; then
	not_ok "debuginfod or dpkg-deb missing (make deps installs debuginfod)"
	echo "$pass passed, $fail failed" >&2
	exit 1
fi
[ -x "$KMP" ] || make -s -C "$ROOT" analyzer >&2

# The stock dump and the suite it comes from (bookworm's first, as make test makes it).
DUMP= SUITE=
for s in bookworm $KMP_ALL_SUITES; do
	suite_paths "$s" 2>/dev/null || continue
	if [ -f "$T/$SUITE_T/dump-zlib" ]; then
		DUMP=$T/$SUITE_T/dump-zlib SUITE=$s
		break
	fi
done
if [ -z "$DUMP" ]; then
	not_ok "no stock dump (build/t/stock-hang*/dump-zlib): run make test-stock first"
	echo "$pass passed, $fail failed" >&2
	exit 1
fi
suite_paths "$SUITE"
rm -rf "$D"
mkdir -p "$D/debs" "$D/ko" "$D/tmp"
# A link of our own: the stock test may write a new dump meanwhile.
ln -f "$DUMP" "$D/dump-zlib" 2>/dev/null || cp "$DUMP" "$D/dump-zlib"
DUMP=$D/dump-zlib
VMLINUX=$SUITE_K/vmlinux
KO=$SUITE_MOD/kmp_stock.ko

# 1. No DEBUGINFOD_URLS: as before, and libdebuginfod is not loaded.
# (--types dwarf: without it a dump that carries BTF and kallsyms is
# answered from them when no vmlinux is found; these checks are of the search.)
env -u DEBUGINFOD_URLS LD_DEBUG=files "$KMP" waiters --types dwarf -c "$DUMP" -f json \
	>"$D/nourls.json" 2>"$D/nourls.ld"
rc=$?
grep -v '^ *[0-9]*:' "$D/nourls.ld" >"$D/nourls.err"
REL=$(sed -n 's/^kmempool: no vmlinux found for release \([^ ]*\) (build ID \([0-9a-f]*\)); give one with -s$/\1/p' "$D/nourls.err")
BID=$(sed -n 's/^kmempool: no vmlinux found for release \([^ ]*\) (build ID \([0-9a-f]*\)); give one with -s$/\2/p' "$D/nourls.err")
if [ $rc = 3 ] && [ -n "$BID" ] && [ "$(wc -l <"$D/nourls.err")" = 1 ] &&
   ! grep -q 'libdebuginfod' "$D/nourls.ld"; then
	ok "no DEBUGINFOD_URLS, no vmlinux on disk: exit 3, the one line of before (release $REL, build ID $BID), libdebuginfod not loaded"
else
	not_ok "no DEBUGINFOD_URLS: exit $rc, $(head -2 "$D/nourls.err" | tr '\n' ' '); libdebuginfod loaded: $(grep -c libdebuginfod "$D/nourls.ld")"
fi
DEB=$(ls "$SUITE_D"/deb/*/linux-image-"$REL"-dbg_*.deb 2>/dev/null | tail -1)
if [ -z "$DEB" ] || [ ! -f "$VMLINUX" ] || [ ! -f "$KO" ]; then
	not_ok "the $SUITE rig's -dbg .deb for $REL, vmlinux or kmp_stock.ko missing (make stock SUITE=$SUITE)"
	echo "$pass passed, $fail failed" >&2
	exit 1
fi
ln -s "$DEB" "$D/debs/"
cp -p "$KO" "$D/ko/"
# The index, kept across runs for this .deb and module (see the top).
IKEY=$( (basename "$DEB"; stat -L -c '%s %Y' "$DEB"; sha256sum < "$KO") | sha256sum | cut -c1-16)
IDX=$B/debuginfod-index/$IKEY
if [ -f "$IDX/db.sqlite" ] && [ -f "$IDX/indexed" ]; then
	cached_index=1
else
	cached_index=0
	rm -rf "$B/debuginfod-index"; mkdir -p "$IDX"
fi
# The reference: the same dump with the files given by hand.
env -u DEBUGINFOD_URLS "$KMP" waiters -c "$DUMP" -s "$VMLINUX" -M "$KO" -f json >"$D/ref.json" \
	2>"$D/ref.err"
ref_rc=$?

# 2. The server: the .deb (dpkg-deb extracts it; -U needs bsdtar) and the module.
PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT
t0=$(date +%s.%N)
TMPDIR=$D/tmp debuginfod -p "$PORT" -d "$IDX/db.sqlite" -Z '.deb=dpkg-deb --fsys-tarfile' -F -L \
	-t 0 -g 0 -c 2 -v "$D/debs" "$D/ko" >"$D/server.log" 2>&1 &
SERVER=$!
stage "debuginfod (pid $SERVER) on $URL indexing $(basename "$DEB") ($(( $(stat -L -c %s "$DEB") / 1048576 )) MiB)"
metric() { curl -s --max-time 5 "$URL/metrics" | sed -n "s/^$1 //p"; }
indexed=0
for i in $(seq 1200); do
	kill -0 "$SERVER" 2>/dev/null || break
	# Both traversed, nothing left to scan (-L: the .deb counts as a file too);
	# on a kept index, traversed with nothing to scan again.
	if { { [ "$(metric 'scanned_files_total{source=".deb archive"}')" = 1 ] &&
	       [ "$(metric 'found_debuginfo_total{source="files"}')" = 1 ]; } ||
	     { [ $cached_index = 1 ] && [ "$(metric 'thread_work_total{role="traverse"}')" -ge 1 ] 2>/dev/null; }; } &&
	   [ "$(metric 'thread_busy{role="scan"}')" = 0 ] &&
	   [ "$(metric 'thread_work_pending{role="scan"}')" = 0 ]; then
		indexed=1
		break
	fi
	sleep 0.5
done
if [ $indexed = 1 ]; then
	touch "$IDX/indexed"
	if [ $cached_index = 1 ]; then
		ok "debuginfod up on the index kept for $(basename "$DEB") and kmp_stock.ko in $(secs "$t0") s"
	else
		ok "debuginfod indexed $(basename "$DEB") and kmp_stock.ko in $(secs "$t0") s ($(metric 'found_debuginfo_total{source=".deb archive"}') debug files in the .deb)"
	fi
else
	not_ok "debuginfod did not index $(basename "$DEB") within 600 s (log: $D/server.log)"
	tail -5 "$D/server.log" | sed 's/^/    /'
	echo "$pass passed, $fail failed" >&2
	exit 1
fi

export DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$D/cache DEBUGINFOD_TIMEOUT=300
unset DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE
# 3. An empty cache: downloaded, on a terminal (script gives one) with progress.
t0=$(date +%s.%N)
script -qec "'$KMP' waiters -c '$DUMP' -f json >'$D/cold.json' 2>/dev/tty" /dev/null \
	>"$D/cold.tty" 2>&1
rc=$?
cold=$(secs "$t0")
tr '\r' '\n' <"$D/cold.tty" | sed 's/\x1b\[K//g' >"$D/cold.err"
V=$D/cache/$BID/debuginfo
if [ $rc = 0 ] && [ $ref_rc = 0 ] && cmp -s "$D/cold.json" "$D/ref.json" && [ -f "$V" ]; then
	ok "empty cache: the vmlinux ($(( $(stat -c %s "$V") / 1048576 )) MiB) from debuginfod in $cold s, the answer byte for byte the one with -s and -M"
else
	not_ok "empty cache: exit $rc (reference $ref_rc), $(head -c 300 "$D/cold.err" | tr '\n' ' ')"
fi
if grep -qE "^kmempool: debuginfod: vmlinux $REL: [0-9.]+ of [0-9.]+ MB" "$D/cold.err" &&
   grep -qE "^kmempool: debuginfod: vmlinux $REL: [0-9.]+ MB in [0-9]+ s" "$D/cold.err"; then
	ok "progress on a terminal: $(grep -cE ' of [0-9.]+ MB' "$D/cold.err") lines like '$(grep -E ' of [0-9.]+ MB' "$D/cold.err" | tail -1)', then '$(grep -E ' MB in ' "$D/cold.err" | tail -1)'"
else
	not_ok "no progress lines on the terminal: $(head -c 300 "$D/cold.err" | tr '\n' ' ')"
fi
MODS=$(ls "$D/cache" | grep -vxc "$BID\|cache_clean_interval_s")
if [ "$MODS" -ge 1 ] && ! grep -q 'note: module kmp_stock' "$D/cold.err" &&
   grep -q 'kmp_stock_devs\[' "$D/cold.json"; then
	ok "kmp_stock.ko from debuginfod by the build ID read from memory: pools named by member ($(grep -o '"name": "kmp_stock_devs[^"]*"' "$D/cold.json" | head -1))"
else
	not_ok "kmp_stock.ko not fetched ($MODS other files in the cache): $(grep 'kmp_stock' "$D/cold.err" | head -2 | tr '\n' ' ')"
fi
# Without a terminal: no progress, nothing on stderr once it is cached.
"$KMP" waiters -c "$DUMP" -f json >"$D/warm.json" 2>"$D/warm.err"
rc=$?
if [ $rc = 0 ] && cmp -s "$D/warm.json" "$D/ref.json" && [ ! -s "$D/warm.err" ]; then
	ok "cached, stderr not a terminal: the same answer, nothing on stderr"
else
	not_ok "cached run: exit $rc, stderr: $(head -2 "$D/warm.err" | tr '\n' ' ')"
fi

# 4. A build ID the server does not have: the dump's BUILD-ID line changed in a copy.
UNK=$($PY -c 'import sys; h = "0123456789abcdef"; print("".join(h[15 - h.index(c)] for c in sys.argv[1]))' "$BID")
$PY - "$DUMP" "$D/dump-unknown" "$BID" "$UNK" <<'EOF'
import sys
src, dst, old, new = sys.argv[1:]
data = open(src, "rb").read()
assert data.count(b"BUILD-ID=" + old.encode()) >= 1
open(dst, "wb").write(data.replace(b"BUILD-ID=" + old.encode(), b"BUILD-ID=" + new.encode()))
EOF
"$KMP" waiters --types dwarf -c "$D/dump-unknown" >"$D/unknown.out" 2>"$D/unknown.err"
rc=$?
want="kmempool: no vmlinux found for release $REL on disk, and debuginfod has no debug file for build ID $UNK ($URL); give one with -s"
if [ $rc = 3 ] && [ "$(cat "$D/unknown.err")" = "$want" ] && [ ! -s "$D/unknown.out" ]; then
	ok "unknown build ID: exit 3, one line: $want"
else
	not_ok "unknown build ID: exit $rc, stderr: $(head -3 "$D/unknown.err" | tr '\n' ' ')"
fi

# 5. The server stopped: the cache alone answers; an empty cache cannot.
stop_server
if curl -s --max-time 5 "$URL/metrics" >/dev/null; then
	not_ok "the server still answers after it was stopped"
fi
t0=$(date +%s.%N)
"$KMP" waiters -c "$DUMP" -f json >"$D/cached.json" 2>"$D/cached.err"
rc=$?
if [ $rc = 0 ] && cmp -s "$D/cached.json" "$D/ref.json" && [ ! -s "$D/cached.err" ]; then
	ok "server stopped: the same answer from the cache in $(secs "$t0") s"
else
	not_ok "server stopped, from the cache: exit $rc, $(head -2 "$D/cached.err" | tr '\n' ' ')"
fi
DEBUGINFOD_CACHE_PATH=$D/cache-empty "$KMP" waiters --types dwarf -c "$DUMP" >"$D/down.out" 2>"$D/down.err"
rc=$?
if [ $rc = 3 ] && [ "$(wc -l <"$D/down.err")" = 1 ] &&
   grep -q "^kmempool: no vmlinux found for release $REL on disk, and debuginfod ($URL) failed for build ID $BID: .*; give one with -s$" "$D/down.err"; then
	ok "server stopped, empty cache: exit 3, one line: $(cat "$D/down.err")"
else
	not_ok "server stopped, empty cache: exit $rc, $(head -3 "$D/down.err" | tr '\n' ' ')"
fi
# triage finds the vmlinux the same way.
"$KMP" triage "$DUMP" >"$D/triage.json" 2>"$D/triage.err"
rc=$?
if [ $rc = 0 ] && $PY -c '
import json, sys
d = json.loads(open(sys.argv[1]).read())
assert d["complete"] and d["kernel"]["vmlinux"] == sys.argv[2] and d["waiters"] == 5, d
assert any(p["name"].startswith("kmp_stock_devs[") for p in d["exhausted"])
' "$D/triage.json" "$V"; then
	ok "kmempool triage: the vmlinux and kmp_stock.ko from the cache, 5 waiters"
else
	not_ok "kmempool triage with debuginfod: exit $rc, $(head -c 300 "$D/triage.json") $(head -2 "$D/triage.err")"
fi
echo "$pass passed, $fail failed" >&2
[ "$fail" = 0 ]
