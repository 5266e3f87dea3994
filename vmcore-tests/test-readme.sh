#!/bin/bash
# README's demo blocks against real runs (issue 35): the patched half of
# make demo is run here (vmcore-tests/demo.sh --patched, about a minute
# warm) and every line README shows of it must be what it printed, varying
# numbers masked (readme_demo.py); the block of Debian's kernel is compared
# with the last `make demo`'s log (build/demo.log) when there is one.
GROUP=readme
. "$(dirname "$0")/lib.sh"
# The support table of pieces and their alternatives is the analyzer's one
# table of them (analyzer/lib/base/kpieces.c), as layout_probe --table prints it.
PROBE=$B/analyzer/layout_probe
if make -s -C "$ROOT/analyzer" O="$B/analyzer" "$PROBE" >&2 && "$PROBE" --table > "$T/readme-pieces.want"; then
	sed -n '/^<!-- generated: build\/analyzer\/layout_probe --table/,/^$/p' "$ROOT/README.md" |
		sed '1d;/^$/d' > "$T/readme-pieces.got"
	if [ -s "$T/readme-pieces.got" ] && cmp -s "$T/readme-pieces.want" "$T/readme-pieces.got"; then
		ok "README's support table is layout_probe --table's ($(( $(wc -l < "$T/readme-pieces.want") - 2 )) pieces from analyzer/lib/base/kpieces.c)"
	else
		not_ok "README's support table differs from layout_probe --table: $(diff "$T/readme-pieces.want" "$T/readme-pieces.got" | grep '^[<>]' | head -2 | tr '\n' ' ')"
	fi
else
	not_ok "layout_probe --table did not run"
fi
LOGF=$T/readme-demo.log
if ! bash "$ROOT/vmcore-tests/demo.sh" --patched > "$LOGF" 2>&1; then
	not_ok "the patched half of make demo failed (see $LOGF)"
	tail -5 "$LOGF"
	exit 1
fi
$PY "$ROOT/vmcore-tests/readme_demo.py" check "$ROOT/README.md" "$LOGF" patched ||
	fail=$((fail + 1))
if [ -f "$B/demo.log" ]; then
	$PY "$ROOT/vmcore-tests/readme_demo.py" check "$ROOT/README.md" "$B/demo.log" stock ||
		fail=$((fail + 1))
else
	echo "# README's stock demo block not compared: no build/demo.log (make demo writes it)"
fi
[ "$fail" = 0 ]
