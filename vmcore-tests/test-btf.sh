#!/bin/bash
# The dump alone (issue 33): kmempool waiters, scan and info on each stock
# dump of a suite (flattened, zlib, ELF) with no vmlinux reachable - no -s,
# DEBUGINFOD_URLS unset, and the places kmempool looks for a vmlinux
# (/usr/lib/debug, /boot, /lib/modules) hidden under empty tmpfs mounts in a
# mount namespace of the run's own - against the same commands with the
# suite's vmlinux (-s, DWARF), by compare_btf.py: the same pools, values and
# waiters; names differ only by the symbol+0xOFF fallback, each listed.  The
# live answers the stock guest took from BTF (guest/stock.sh) against its
# DWARF ones.  A kernel without kallsyms in VMCOREINFO (bullseye's 5.10):
# exit 3 and one line saying what is missing and that -s is needed.
#   vmcore-tests/test-btf.sh [SUITE...]   (default: bookworm trixie; run
#   after test-stock.sh SUITE, whose dumps it reads)
. "$(dirname "$0")/../qemu/apt-suite.sh"
. "$(dirname "$0")/lib.sh"
KMP=${KMP_ANALYZER:-$B/analyzer/kmempool}
SUITES=("$@")
[ ${#SUITES[@]} = 0 ] && SUITES=(bookworm trixie)
pass=0 fail=0

# alone ARGS...: kmempool with nothing but the dump (stdout, stderr as given by the caller)
# heap_oracle DUMP SCANJSON OUT: bench/drgn_heapnames.py with the suite's
# vmlinux, its modules' debug files and kmp_stock.ko, on the host's drgn or
# in the suite's chroot (its own drgn, files hard-linked into its /tmp);
# drgn's warnings (a debug file of a module not loaded) go to OUT.err.
heap_oracle() {
	local kos=() w in
	mapfile -t kos < <(find "$SUITE_K/debug" -name '*.ko' 2>/dev/null; echo "$SUITE_MOD/kmp_stock.ko")
	if [ -z "$SUITE_ROOT" ] || ! chroot "$SUITE_ROOT" /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
		$PY "$ROOT/vmcore-tests/bench/drgn_heapnames.py" "$1" "$SUITE_K/vmlinux" "$2" "${kos[@]}" \
			> "$3" 2> "$3.err"
		return
	fi
	w=$(mktemp -d "$SUITE_ROOT/tmp/kmp-heap.XXXXXX")
	in=/tmp/$(basename "$w")
	local args=() i=0
	for f in "$ROOT/vmcore-tests/bench/drgn_heapnames.py" "$1" "$SUITE_K/vmlinux" "$2" "${kos[@]}"; do
		ln "$f" "$w/$i-$(basename "$f")" 2>/dev/null || cp "$f" "$w/$i-$(basename "$f")"
		args+=("$in/$i-$(basename "$f")")
		i=$((i + 1))
	done
	chroot "$SUITE_ROOT" /usr/bin/env -i LANG=C.UTF-8 PATH=/usr/bin:/bin /usr/bin/python3 -B \
		"${args[@]}" > "$3" 2> "$3.err"
	rm -rf "$w"
}

alone() {
	unshare --mount --propagation private /bin/sh -c '
		for d in /usr/lib/debug /boot /lib/modules /usr/lib/modules; do
			[ -d "$d" ] && mount -t tmpfs -o size=1m,ro none "$d"
		done
		exec env -u DEBUGINFOD_URLS "$@"' sh "$KMP" "$@"
}

# frames_vs_drgn MODE...: each waiter's frames above mempool_alloc*() (ORC)
# in $O/dump-zlib-waiters-MODE.json against drgn's stack trace (the suite's
# drgn in its chroot when it has one, else the host's).
frames_vs_drgn() {
	Z=$D/dump-zlib KO=$SUITE_MOD/kmp_stock.ko
	if [ -n "$SUITE_ROOT" ] && chroot "$SUITE_ROOT" /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
		w=$SUITE_ROOT/tmp/kmp-btf-frames
		mkdir -p "$w"
		for x in "$Z:core" "$SUITE_K/vmlinux:vmlinux" "$KO:kmp_stock.ko" \
			 "$ROOT/vmcore-tests/bench/drgn_stock_frames.py:oracle.py"; do
			ln -f "${x%%:*}" "$w/${x##*:}" 2>/dev/null || cp "${x%%:*}" "$w/${x##*:}"
		done
		timeout 300 chroot "$SUITE_ROOT" /usr/bin/python3 -B /tmp/kmp-btf-frames/oracle.py \
			/tmp/kmp-btf-frames/core /tmp/kmp-btf-frames/vmlinux /tmp/kmp-btf-frames/kmp_stock.ko \
			> "$O/drgn-frames.json" 2> "$O/drgn-frames.err"
		rm -rf "$w"
	else
		timeout 300 /usr/bin/python3 "$ROOT/vmcore-tests/bench/drgn_stock_frames.py" "$Z" \
			"$SUITE_K/vmlinux" "$KO" > "$O/drgn-frames.json" 2> "$O/drgn-frames.err"
	fi
	for mode in "$@"; do
		if $PY - "$O/dump-zlib-waiters-$mode.json" "$O/drgn-frames.json" > "$O/frames-$mode.cmp" 2>&1 <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
mine = {str(w["pid"]): [f["pc"] for f in w.get("frames", [])] for p in k["pools"] for w in p["waiters"]}
bad = [f"pid {p}: kmempool {mine.get(p)} drgn {d.get(p)}" for p in sorted(set(mine) | set(d))
       if mine.get(p) != d.get(p)]
print("; ".join(bad) if bad else f"{len(mine)} waiters, {sum(len(v) for v in mine.values())} frames")
w = next(w for p in k["pools"] for w in p["waiters"])
print(" <- ".join(f["function"] for f in w.get("frames", [])))
sys.exit(1 if bad or not mine or not any(mine.values()) else 0)
PY
		then
			ok "frames above mempool_alloc (ORC, $mode) = drgn's stack traces: $(head -1 "$O/frames-$mode.cmp"), e.g. $(sed -n 2p "$O/frames-$mode.cmp")"
		else
			not_ok "frames above mempool_alloc (ORC, $mode) differ from drgn's: $(head -c 400 "$O/frames-$mode.cmp") $(head -c 200 "$O/drgn-frames.err")"
		fi
	done
}

# The patched kernel's hang dump (test-kdump's), once: with BTF in its
# config (series v7 adds it) the report and waiters from the dump alone
# equal those with its vmlinux; without, exit 3 and one line naming BTF.
GROUP=btf-patched
PD=$T/kd-hang/dump-zlib
if [ -f "$T/kd-hang/dumps" ] && [ -f "$B/kernel/vmlinux" ]; then
	$PY "$ROOT/vmcore-tests/mempool.py" extract "$T/kd-hang" > /dev/null
	O=$T/btf-patched
	mkdir -p "$O"
	if grep -q ' __start_BTF$' "$B/kernel/System.map" 2>/dev/null; then
		"$KMP" -c "$PD" -s "$B/kernel/vmlinux" > "$O/report-dwarf" 2> "$O/report-dwarf.err"
		rcd=$?
		alone -c "$PD" > "$O/report-btf" 2> "$O/report-btf.err"
		rcb=$?
		# 7.x has no tick_nsec: HZ comes from the jiffies clocksource in
		# memory, so from the dump alone too; every byte is the report with
		# the vmlinux, the waits of the pool with waiters included.
		check "the patched kernel's report from the dump alone is the report with its vmlinux, its waiters' oldest_wait too (HZ from the jiffies clocksource in the dump; exit $rcb)" \
			$PY - "$O/report-dwarf" "$O/report-btf" "$rcd" "$rcb" <<'PY'
import sys
d, b = (open(f).read().splitlines() for f in sys.argv[1:3])
rcd, rcb = int(sys.argv[3]), int(sys.argv[4])
cols = d[1].split()[1:] if len(d) > 1 else []
ow, wt = cols.index("oldest_wait"), cols.index("waiting")
timed = [f for f in (line.split() for line in b)
         if len(f) == len(cols) and f[wt].isdigit() and int(f[wt]) > 0 and f[ow].isdigit()]
sys.exit(0 if rcd == 0 and rcb == 0 and len(d) > 2 and d == b and timed else 1)
PY
		"$KMP" waiters -f json --source stacks -c "$PD" -s "$B/kernel/vmlinux" > "$O/waiters-dwarf.json" 2>&1
		alone waiters -f json --source stacks -c "$PD" > "$O/waiters-btf.json" 2>&1
		check "the patched kernel's waiters from its stacks, from the dump alone = with the vmlinux" \
			$PY "$ROOT/vmcore-tests/compare_btf.py" waiters "$O/waiters-dwarf.json" "$O/waiters-btf.json"
		# The referrer rule on the hang's raid1 array (guest/kdump.sh): a pool
		# kmalloc'ed on its own that one object named by type points at
		# ("*<r1conf>.r1bio_pool"), from the dump alone as with the vmlinux;
		# each such name against the pool's tag in memory (the series): the
		# line that created the pool (its site, in the patched tree) stores it
		# in that member.  Without the rule it keeps its cache's name
		# ("<kmalloc-192>+0x0" on the patched 7.2): no such name, a failure.
		"$KMP" scan -f json -c "$PD" -s "$B/kernel/vmlinux" > "$O/scan-dwarf.json" 2> "$O/scan-dwarf.err"
		alone scan -f json -c "$PD" > "$O/scan-btf.json" 2> "$O/scan-btf.err"
		"$KMP" -f json -c "$PD" -s "$B/kernel/vmlinux" > "$O/list.json" 2> "$O/list.err"
		if $PY - "$O/scan-dwarf.json" "$O/scan-btf.json" "$O/list.json" "$B/src" \
			> "$O/referred.cmp" 2>&1 <<'PY'
import json, re, sys
REF = re.compile(r"^\*<[A-Za-z_]\w*(?: \S+)?>(?:\.[A-Za-z_]\w*|\[\d+\])*\.([A-Za-z_]\w*)(?:\[\d+\])*$")
d, b, lst = (json.load(open(f))["pools"] for f in sys.argv[1:4])
nd = {p["address"]: p["name"] for p in d if p["name"].startswith("*<")}
nb = {p["address"]: p["name"] for p in b if p["name"].startswith("*<")}
tags = {p["address"]: p for p in lst}
bad = [] if nd == nb else ["the dump alone names others: "
                           + str(sorted(set(nd.items()) ^ set(nb.items()))[:3])]
for a, n in sorted(nd.items()):
    m, t = REF.match(n), tags.get(a)
    if not m or not t or not t.get("file") or not t.get("line"):
        bad.append(f"{n} at {a}: " + ("not a referrer's name" if not m else "no tag with a site"))
        continue
    try:
        line = open(f"{sys.argv[4]}/{t['file']}").read().splitlines()[t["line"] - 1]
    except (OSError, IndexError) as e:
        bad.append(f"{n} at {a}: its site {t['site']}: {e}")
        continue
    if not re.search(r"(->|\.)" + m.group(1) + r"\s*=[^=]", line):
        bad.append(f"{n} at {a}: its tag says {t['name']} was created at {t['site']}, "
                   f"which stores it elsewhere: {line.strip()}")
if not nd:
    bad.append("no pool named by the one object pointing at it (the raid1 array's r1bio pool): "
               + str(sorted(p["name"] for p in d if p.get("list_name") == "md_r1bio")))
print("; ".join(bad) if bad else ", ".join(f"{n} = {tags[a]['name']} {tags[a].get('instance')}, "
                                           f"created at {tags[a]['site']}"
                                           for a, n in sorted(nd.items())))
sys.exit(1 if bad else 0)
PY
		then
			ok "the patched kernel's pools named by the one object pointing at them, from the dump alone as with the vmlinux, each stored in that member where its tag says it was created: $(cat "$O/referred.cmp")"
		else
			not_ok "the patched kernel's pools named by the one object pointing at them: $(head -c 500 "$O/referred.cmp")"
		fi
	else
		alone waiters -c "$PD" > /dev/null 2> "$O/nobtf.err"
		rc=$?
		check "a kernel without BTF (the patched kernel's config), from the dump alone: exit 3 (got $rc), one line: $(cat "$O/nobtf.err")" \
			test $rc = 3 -a "$(wc -l < "$O/nobtf.err")" = 1 -a -n "$(grep 'no BTF' "$O/nobtf.err")"
	fi
fi

for SUITE in "${SUITES[@]}"; do
	suite_paths "$SUITE" || { echo "not ok - btf: unknown suite $SUITE"; fail=$((fail + 1)); continue; }
	GROUP=btf-$SUITE
	D=$T/$SUITE_T
	O=$T/btf-$SUITE
	mkdir -p "$O"
	if [ ! -f "$D/dump-flat" ]; then
		not_ok "no stock dump of $SUITE ($D/dump-flat): run vmcore-tests/test-stock.sh $SUITE first"
		continue
	fi
	if [ "$SUITE" = bullseye ]; then
		alone waiters -c "$D/dump-flat" > "$O/waiters.out" 2> "$O/waiters.err"
		rc=$?
		if [ $rc = 3 ] && [ "$(wc -l < "$O/waiters.err")" = 1 ] &&
		   grep -q 'kallsyms' "$O/waiters.err" && grep -q -- '-s VMLINUX' "$O/waiters.err" &&
		   [ ! -s "$O/waiters.out" ]; then
			ok "5.10 from the dump alone: exit 3, one line: $(cat "$O/waiters.err")"
		else
			not_ok "5.10 from the dump alone: exit $rc (want 3 and one line naming kallsyms and -s VMLINUX): $(head -c 400 "$O/waiters.err")"
		fi
		# Its frames with the vmlinux (ORC of 5.10: DWARF 4 bit fields, 'end').
		"$KMP" waiters -f json -c "$D/dump-zlib" -s "$SUITE_K/vmlinux" > "$O/dump-zlib-waiters-dwarf.json" 2>&1
		frames_vs_drgn dwarf
		continue
	fi
	# A dump cache of this suite's own (the analyzer's KMEMPOOL_CACHE),
	# empty: the flattened dump's first run from the dump alone writes the
	# entry, the later runs on it and on the zlib dump (the same stored
	# pages) use it, the ELF dump has none; every answer is compared with
	# the vmlinux's below.
	outer_cache=$KMEMPOOL_CACHE
	export KMEMPOOL_CACHE=$O/dcache
	rm -rf "$KMEMPOOL_CACHE"
	for f in dump-flat dump-zlib dump-elf; do
		[ -f "$D/$f" ] || { not_ok "$f: no such dump"; continue; }
		for cmd in waiters scan; do
			"$KMP" $cmd -f json -c "$D/$f" -s "$SUITE_K/vmlinux" > "$O/$f-$cmd-dwarf.json" 2> "$O/$f-$cmd-dwarf.err"
			drc=$?
			alone $cmd -f json -c "$D/$f" > "$O/$f-$cmd-btf.json" 2> "$O/$f-$cmd-btf.err"
			brc=$?
			if [ $drc != $brc ]; then
				not_ok "$f $cmd: exit $brc from the dump alone, $drc with the vmlinux: $(head -c 300 "$O/$f-$cmd-btf.err")"
			elif $PY "$ROOT/vmcore-tests/compare_btf.py" $cmd "$O/$f-$cmd-dwarf.json" \
				"$O/$f-$cmd-btf.json" > "$O/$f-$cmd.cmp" 2>&1; then
				ok "$f $cmd from the dump alone = with the vmlinux (exit $brc; $(tail -1 "$O/$f-$cmd.cmp" | sed 's/^ *//'))"
				[ $f = dump-flat ] && grep 'fallback)$' "$O/$f-$cmd.cmp"
			else
				not_ok "$f $cmd from the dump alone differs: $(grep -v fallback "$O/$f-$cmd.cmp" | head -5 | tr '\n' ';')"
			fi
		done
	done
	# A module's globals named from its BTF (the kernel's btf_modules; 6.12 and
	# 7.2 build kmp_stock.ko with BTF, 6.1's headers do not): each such name
	# is the one the module's DWARF gives (-M).
	"$KMP" scan -f json -c "$D/dump-zlib" -s "$SUITE_K/vmlinux" -M "$SUITE_MOD/kmp_stock.ko" \
		> "$O/dump-zlib-scan-dwarf-M.json" 2>&1
	modbtf=0
	# (grep reads all of readelf's output: with pipefail, an early exit of
	# grep -q can kill readelf with SIGPIPE and fail the pipe.)
	readelf -S "$SUITE_MOD/kmp_stock.ko" 2>/dev/null | grep ' \.BTF ' > /dev/null && modbtf=1
	if $PY - "$O/dump-zlib-scan-btf.json" "$O/dump-zlib-scan-dwarf-M.json" $modbtf > "$O/modbtf.cmp" 2>&1 <<'PY'
import json, sys
b = {p["address"]: p["name"] for p in json.load(open(sys.argv[1]))["pools"]}
d = {p["address"]: p["name"] for p in json.load(open(sys.argv[2]))["pools"]}
mine = {a: n for a, n in b.items() if n.endswith(" [kmp_stock]") and "+0x" not in n and
        not n.startswith("*")}
bad = [f"{a}: BTF {n}, DWARF -M {d.get(a)}" for a, n in mine.items() if d.get(a) != n]
if sys.argv[3] == "1" and not mine:
    bad.append("kmp_stock.ko has BTF, yet none of its globals is named by member")
if sys.argv[3] == "0" and mine:
    bad.append(f"kmp_stock.ko has no BTF, yet {sorted(mine.values())} named by member")
print("; ".join(bad) if bad else ", ".join(sorted(mine.values())) or "none (kmp_stock.ko has no BTF)")
sys.exit(1 if bad else 0)
PY
	then
		ok "the module's globals named from its BTF as its DWARF (-M) names them: $(cat "$O/modbtf.cmp")"
	else
		not_ok "the module's globals from its BTF: $(head -c 300 "$O/modbtf.cmp")"
	fi
	# Pools inside heap objects named by their type, in both modes alike
	# ("<gendisk vda>.bio_split.bio_pool"), and only when every loaded
	# module has BTF (6.1's kmp_stock.ko has none: then no name by type at
	# all, its struct could be the one): each such name of the scan with
	# the vmlinux against drgn (that suite's: in its chroot where it has
	# one) with the vmlinux and the modules' debug files: the object around
	# the pool, its struct's offset and size, its name; and every disk's
	# bio_split pool under its disk's name where gendisk has one.  And a
	# pool kmalloc'ed on its own named by the one such object that points
	# at it ("*<r1conf>.r1bio_pool", sid's raid1), in both modes alike:
	# drgn's object of that struct, whose member there is a pointer to the
	# pool struct holding the pool's address, and no other named object
	# pointing at it; a pool left with its cache's name must not have
	# exactly one such object pointing at it.
	heap_oracle "$D/dump-zlib" "$O/dump-zlib-scan-dwarf.json" "$O/heapnames.json"
	if $PY - "$O/heapnames.json" "$O/dump-zlib-scan-dwarf.json" "$O/dump-zlib-scan-btf.json" \
		$modbtf > "$O/heapnames.cmp" 2>&1 <<'PY'
import json, re, sys
try:
    o = json.load(open(sys.argv[1]))
except ValueError:
    print("drgn gave no answer: " + open(sys.argv[1] + ".err").read()[-300:])
    sys.exit(1)
dpools = json.load(open(sys.argv[2]))["pools"]
bpools = json.load(open(sys.argv[3]))["pools"]
TYPED = r"^<[A-Za-z_]\w*( \S+)?>\."
REFERRED = r"^\*<[A-Za-z_]\w*( \S+)?>[.\[]"  # the referrer rule: "*<r1conf>.r1bio_pool"
typed = [p["name"] for p in dpools if re.match(TYPED, p["name"])]
bnames = sorted(p["name"] for p in bpools if re.match(TYPED, p["name"]))
referred = {p["address"]: p["name"] for p in dpools if re.match(REFERRED, p["name"])}
breferred = {p["address"]: p["name"] for p in bpools if re.match(REFERRED, p["name"])}
bad = o["wrong"] + ([] if bnames == sorted(typed) else ["the dump alone names other heap objects: "
                                                           + str(sorted(set(bnames) ^ set(typed))[:4])])
if breferred != referred:
    bad.append("the dump alone names other pools by the object pointing at them: "
               + str(sorted(set(breferred.items()) ^ set(referred.items()))[:4]))
if sys.argv[4] == "0":
    # kmp_stock.ko has no BTF: its structs are unknown, so no heap object is named by
    # type (drgn's disks then find their pools under their cache's name: not counted),
    # nor any pool by such an object pointing at it
    bad = []
    if typed or bnames or referred or breferred:
        bad.append(f"a loaded module has no BTF, yet {len(typed)} + {len(bnames)} heap objects "
                   f"named by type: {sorted(set(typed + bnames) | set(referred.values()))[:3]}")
    print("; ".join(bad) if bad else "none, as a loaded module (kmp_stock.ko) has no BTF")
    sys.exit(1 if bad else 0)
if not typed:
    bad.append("no pool in a heap object named by its type")
if o.get("referred") != len(referred):
    bad.append(f"drgn confirms {o.get('referred')} of the {len(referred)} pools named by the "
               f"object pointing at them: {sorted(referred.values())[:3]}")
print("; ".join(bad[:4]) if bad else
      f"{o['checked']} of {len(typed)} named by type, {o['disks']} disks, e.g. "
      + ", ".join(sorted(set(re.sub(r"^<(\w+) \S+>", r"<\1 DISK>", n) for n in typed))[:4])
      + f"; {o['referred']} by the one such object pointing at them"
      + "".join(f", {n}" for n in sorted(referred.values())[:3]))
sys.exit(1 if bad or o["checked"] != len(typed) else 0)
PY
	then
		ok "heap objects named by type, and pools by the one of them pointing at them, = drgn's objects, types, names and pointers: $(cat "$O/heapnames.cmp")"
	else
		not_ok "heap objects named by type: $(head -c 500 "$O/heapnames.cmp")"
	fi
	# The text header says where the types came from; info says it too.
	alone waiters -c "$D/dump-zlib" > "$O/waiters.txt" 2> "$O/waiters.txt.err"
	check "waiters' header line says the types came from BTF in the dump" \
		grep -q '^# kmempool waiters - derived from kernel memory (task stacks and BTF from the dump)' "$O/waiters.txt"
	"$KMP" info -c "$D/dump-flat" -s "$SUITE_K/vmlinux" > "$O/info-dwarf" 2>&1
	alone info -c "$D/dump-flat" > "$O/info-btf" 2>&1
	if grep -qx 'types:          BTF from the dump' "$O/info-btf" &&
	   grep -qx 'vmlinux:        none' "$O/info-btf" &&
	   diff <(grep -v '^vmlinux:\|^types:\|^dump cache:' "$O/info-dwarf") \
		<(grep -v '^vmlinux:\|^types:\|^dump cache:' "$O/info-btf") > "$O/info.diff"; then
		ok "info from the dump alone: types: BTF from the dump; release, build ID, KASLR, crash time, panic as with the vmlinux"
	else
		not_ok "info from the dump alone: $(head -c 300 "$O/info.diff") $(grep '^types' "$O/info-btf")"
	fi
	# The dump cache: the runs above on the zlib dump used the entry the
	# flattened dump's first run wrote; with the cache off the answer is
	# the same, byte for byte; an entry whose record of a page is not what
	# the dump stores (one byte of the pages section flipped, its CRC-32
	# made right) is a miss, replaced by a new entry, the answer the same.
	alone info -c "$D/dump-zlib" > "$O/info-cache" 2>&1
	KMEMPOOL_CACHE=off alone waiters -f json -c "$D/dump-zlib" > "$O/nocache-waiters.json" 2>&1
	entry=$(sed -n 's/^dump cache:     hit (\(.*\)), BTF .*$/\1/p' "$O/info-cache")
	if [ -n "$entry" ] && [ -f "$entry" ] && [ "$(find "$KMEMPOOL_CACHE" -name '*.kdc' | wc -l)" = 1 ] &&
	   cmp -s "$O/nocache-waiters.json" "$O/dump-zlib-waiters-btf.json" &&
	   grep -q 'dump cache:     off' <(KMEMPOOL_CACHE=off alone info -c "$D/dump-zlib" 2>&1) &&
	   grep -q 'dump cache:     off (not a kdump-compressed dump)' <(alone info -c "$D/dump-elf" 2>&1); then
		ok "dump cache: the zlib dump's runs used the entry the flattened dump's first run wrote ($(du -k "$entry" | cut -f1) KiB); with KMEMPOOL_CACHE=off the same waiters, byte for byte; none for the ELF dump"
	else
		not_ok "dump cache: $(grep '^dump cache' "$O/info-cache") (entries: $(find "$KMEMPOOL_CACHE" -name '*.kdc' | wc -l)); off = on: $(cmp "$O/nocache-waiters.json" "$O/dump-zlib-waiters-btf.json" 2>&1 && echo same)"
	fi
	# The BTF's answers kept beside the entry (X.kdm): a waiters that asks
	# what the runs before it asked parses no BTF, so adds no answer: the
	# memo file is not written again (same inode); info says so too.
	memo=${entry%.kdc}.kdm
	alone waiters -f json -c "$D/dump-zlib" > "$O/memo1-waiters.json" 2>&1
	m1=$(stat -c '%i %s' "$memo" 2>&1)
	alone waiters -f json -c "$D/dump-zlib" > "$O/memo2-waiters.json" 2>&1
	m2=$(stat -c '%i %s' "$memo" 2>&1)
	alone info -c "$D/dump-zlib" > /dev/null 2>&1
	alone info -c "$D/dump-zlib" > "$O/info-memo" 2>&1
	if [ -n "$entry" ] && [ -f "$memo" ] && [ "$m1" = "$m2" ] &&
	   cmp -s "$O/memo1-waiters.json" "$O/nocache-waiters.json" &&
	   cmp -s "$O/memo2-waiters.json" "$O/nocache-waiters.json" &&
	   grep -qx "dump cache:     hit ($entry), BTF not parsed: its answers kept" "$O/info-memo"; then
		ok "dump cache: the BTF's answers kept beside the entry ($(stat -c %s "$memo") bytes): a second waiters parses no BTF (its memo not rewritten), info says so, the answer the same as with the cache off"
	else
		not_ok "dump cache: kept answers: memo '$m1' -> '$m2'; $(grep '^dump cache' "$O/info-memo"); same as off: $(cmp "$O/memo2-waiters.json" "$O/nocache-waiters.json" 2>&1 && echo yes)"
	fi
	if [ -n "$entry" ] && $PY - "$entry" <<'PY'
import struct, sys, zlib
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
# lib/debuginfo/dumpcache.h: the stored pages' section is the last of 11
# in the table at byte 24, past the CRC-32s (the one at byte 12 covers the
# bytes from the end of the 240-byte header to the BTF, the 10th section;
# made right all the same: only the page differs).
off, ln = struct.unpack_from("<QQ", b, 24 + 10 * 16)
btf, _ = struct.unpack_from("<QQ", b, 24 + 9 * 16)
b[off + ln // 2] ^= 0x20
struct.pack_into("<I", b, 12, zlib.crc32(b[240:btf]) & 0xffffffff)
open(p, "wb").write(b)
PY
	then
		alone info -c "$D/dump-zlib" > "$O/info-cache2" 2>&1
		alone waiters -f json -c "$D/dump-zlib" > "$O/cache2-waiters.json" 2>&1
		alone info -c "$D/dump-zlib" > "$O/info-cache3" 2>&1
		check "dump cache: an entry recording other stored bytes than the dump's (CRC-32 right) is a miss and is rewritten; the answer the same" \
			sh -c 'grep -qx "dump cache:     written ($1)" "$2" && grep -q "^dump cache:     hit ($1), BTF" "$3" && cmp -s "$4" "$5"' \
			sh "$entry" "$O/info-cache2" "$O/info-cache3" "$O/cache2-waiters.json" "$O/dump-zlib-waiters-btf.json"
	else
		not_ok "dump cache: no entry to damage"
	fi
	# triage: a dump whose vmlinux is nowhere still gets its line, the same
	# pools; it writes no dump cache entry (each dump read once).
	export KMEMPOOL_CACHE=$O/dcache-triage
	rm -rf "$KMEMPOOL_CACHE"
	alone triage "$D/dump-flat" > "$O/triage.json" 2> "$O/triage.err"
	rc=$?
	check "triage from the dump alone writes no dump cache entry ($(find "$KMEMPOOL_CACHE" -type f 2>/dev/null | wc -l) files)" \
		[ "$(find "$KMEMPOOL_CACHE" -type f 2>/dev/null | wc -l)" = 0 ]
	export KMEMPOOL_CACHE=$outer_cache
	if [ $rc = 0 ] && $PY - "$O/triage.json" "$O/dump-flat-waiters-dwarf.json" <<'PY'
import json, sys
t = json.loads(open(sys.argv[1]).readline())
w = json.load(open(sys.argv[2]))
exhausted = {p['address'] for p in t['exhausted']}
dry = {p['address'] for p in w['pools'] if p['curr_nr'] == 0 and p['waiting']}
sys.exit(0 if exhausted == dry and t['waiters'] == sum(len(p['waiters']) for p in w['pools']) else 1)
PY
	then
		ok "triage from the dump alone: its line, with the exhausted pools and waiters of the DWARF answer"
	else
		not_ok "triage from the dump alone: exit $rc: $(head -c 300 "$O/triage.json" "$O/triage.err")"
	fi
	# --types dwarf with no vmlinux reachable: exit 3 as before.
	alone waiters --types dwarf -c "$D/dump-flat" > /dev/null 2> "$O/types-dwarf.err"
	rc=$?
	check "--types dwarf with no vmlinux anywhere: exit 3 (got $rc: $(head -c 200 "$O/types-dwarf.err"))" \
		[ $rc = 3 ]
	frames_vs_drgn dwarf btf
	# A copy of the ELF dump with its kallsyms tables or BTF damaged in place
	# (btf_damage.py): one line and exit 6 (or 5), never a signal.
	if [ -f "$D/dump-elf" ] && cp "$D/dump-elf" "$O/dump-elf-damaged"; then
		for c in num_syms names_len token_index btf_magic btf_size btf_id btf_loop; do
			if ! $PY "$ROOT/vmcore-tests/btf_damage.py" "$O/dump-elf-damaged" $c \
				"$SUITE_K/vmlinux" > "$O/damage-$c.patches" 2> "$O/damage-$c.py.err"; then
				not_ok "damaged $c: the dump could not be damaged: $(head -c 200 "$O/damage-$c.py.err")"
				continue
			fi
			alone waiters -c "$O/dump-elf-damaged" > "$O/damage-$c.out" 2> "$O/damage-$c.err"
			rc=$?
			while read -r off n; do
				dd if="$D/dump-elf" of="$O/dump-elf-damaged" bs=1 skip="$off" seek="$off" \
					count="$n" conv=notrunc status=none
			done < "$O/damage-$c.patches"
			if { [ $rc = 6 ] || [ $rc = 5 ]; } && [ "$(wc -l < "$O/damage-$c.err")" = 1 ]; then
				ok "damaged $c in the dump: exit $rc, one line: $(cat "$O/damage-$c.err")"
			else
				not_ok "damaged $c in the dump: exit $rc (want 5 or 6, one line): $(head -c 300 "$O/damage-$c.err")"
			fi
		done
		cmp -s "$D/dump-elf" "$O/dump-elf-damaged" ||
			not_ok "the damaged copy of the ELF dump was not restored"
		rm -f "$O/dump-elf-damaged"
	fi
	# Live in the stock guest: from BTF against with the vmlinux (and -M).
	for cmd in waiters scan; do
		if [ -f "$D/live-btf-$cmd.json" ] && [ -f "$D/live-$cmd.json" ]; then
			if [ "$(cat "$D/live-btf-$cmd.rc")" = "$(cat "$D/live-$cmd.rc")" ] &&
			   $PY "$ROOT/vmcore-tests/compare_btf.py" $cmd "$D/live-$cmd.json" \
				"$D/live-btf-$cmd.json" --live > "$O/live-$cmd.cmp" 2>&1; then
				ok "live $cmd on /proc/kcore from BTF = with the vmlinux ($(tail -1 "$O/live-$cmd.cmp" | sed 's/^ *//'))"
			else
				not_ok "live $cmd on /proc/kcore from BTF differs (exit $(cat "$D/live-btf-$cmd.rc") vs $(cat "$D/live-$cmd.rc")): $(grep -v fallback "$O/live-$cmd.cmp" | head -4 | tr '\n' ';') $(head -c 200 "$D/live-btf-$cmd.err")"
			fi
		else
			not_ok "live $cmd from BTF: the guest left no answer (an initramfs from before issue 33?)"
		fi
	done
done
echo "$pass passed, $fail failed" >&2
[ $fail = 0 ]
