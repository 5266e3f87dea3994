#!/bin/bash
# kmempool's JSON against its schema (analyzer/kmempool.schema.json, issue
# 11): every command's JSON on the patched kernel's hang dump and on
# Debian's stock dump is one object of the expected definition, starts with
# "kmempool_json": 1, and is valid against the whole schema (exactly one
# definition); broken copies are refused; the man page's JSON section names
# every key.
#   ANALYZER_O, PATCHED_DUMP, STOCK_DUMP: as in test-crash.sh
GROUP=json
. "$(dirname "$0")/lib.sh"
ANALYZER_O=${ANALYZER_O:-$B/analyzer}
KMP=$ANALYZER_O/kmempool
SCHEMA=$ROOT/analyzer/kmempool.schema.json
CHECK=$ROOT/vmcore-tests/check_json.py
D=$T/json
rm -rf "$D"
mkdir -p "$D"
if [ -z "${PATCHED_DUMP:-}" ]; then
	PATCHED_DUMP=$T/kd-hang/dump-zlib
	[ -f "$T/kd-hang/dumps" ] && $PY "$ROOT/vmcore-tests/mempool.py" extract "$T/kd-hang" >/dev/null
fi
STOCK_DUMP=${STOCK_DUMP:-$T/stock-hang/dump-zlib}

if out=$($PY "$CHECK" --man "$SCHEMA" "$ROOT/analyzer/kmempool.1" 2>&1); then
	ok "kmempool.1's JSON section documents the schema: $out"
else
	not_ok "kmempool.1's JSON section: $out"
fi

# one CASE DEF ARGS...: run kmempool ARGS -f json, check against DEF
one() {
	local c=$1 def=$2 f rc
	shift 2
	f=$D/$c.json
	"$KMP" "$@" -f json >"$f" 2>"$D/$c.err"
	rc=$?
	label="kmempool $(sed "s#$ROOT/##g" <<<"$*") -f json"
	if [ $rc != "${WANT_RC:-0}" ]; then
		not_ok "$c: kmempool $* exit $rc: $(head -1 "$D/$c.err")"
		return
	fi
	if out=$($PY "$CHECK" "$SCHEMA" "$def" "$f" 2>&1); then
		ok "$c: $label: a valid '$def' ($(wc -c <"$f") bytes$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(", %d pools" % len(d["pools"]) if "pools" in d else "")' "$f"))"
	else
		not_ok "$c: $label: not a valid '$def': $(head -3 <<<"$out" | tr '\n' ' ')"
	fi
	if [ "$def" = "$SELFTEST" ]; then
		if out=$($PY "$CHECK" --selftest "$SCHEMA" "$f" "$def" 2>&1); then
			ok "$c: the checker refuses broken copies ($out)"
		else
			not_ok "$c: the checker accepted a broken copy: $out"
		fi
	fi
}

for dump in "$PATCHED_DUMP" "$STOCK_DUMP"; do
	if [ ! -f "$dump" ]; then
		not_ok "dump $dump missing (run the kdump and stock tests first)"
	fi
done
V=$B/kernel/vmlinux
SELFTEST=report
one patched-report report -c "$PATCHED_DUMP" -s "$V"
SELFTEST=waiters_list
one patched-waiters waiters_list waiters -c "$PATCHED_DUMP" -s "$V"
SELFTEST=none
one patched-waiters-stacks waiters_stacks waiters --source stacks -c "$PATCHED_DUMP" -s "$V"
one patched-scan scan scan -c "$PATCHED_DUMP" -s "$V"
SELFTEST=info
one patched-info info info -c "$PATCHED_DUMP" -s "$V"
# A partial report (exit 5) says so, with the reason.
SELFTEST=none WANT_RC=5 one patched-partial report -c "$PATCHED_DUMP" -s "$V" --max-entries 3
if $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False and "--max-entries" in d["reason"] and len(d["pools"]) == 3
' "$D/patched-partial.json" 2>/dev/null; then
	ok "patched-partial: complete false, the reason, the 3 pools read"
else
	not_ok "patched-partial: no complete false / reason / 3 pools"
fi
SV=$B/debian/kernel/vmlinux
M=$B/module-stock/kmp_stock.ko
SELFTEST=scan
one stock-report scan -c "$STOCK_DUMP" -s "$SV" -M "$M"
SELFTEST=waiters_stacks
one stock-waiters waiters_stacks waiters -c "$STOCK_DUMP" -s "$SV" -M "$M"
SELFTEST=none
one stock-scan scan scan -c "$STOCK_DUMP" -s "$SV" -M "$M"
one stock-info info info -c "$STOCK_DUMP" -s "$SV"
# null where the kernel keeps no value: the stock scan's statistics.
if $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kernel"]["mempool_format"] is None
assert d["pools"] and all(p["low_nr"] is None and p["waits"] is None for p in d["pools"])
' "$D/stock-scan.json" 2>/dev/null; then
	ok "stock-scan: mempool_format, low_nr and waits are null without the series"
else
	not_ok "stock-scan: values the stock kernel does not keep are not null"
fi
echo "$pass passed, $fail failed" >&2
[ "$fail" = 0 ]
