#!/bin/bash
# README's demo blocks against real runs (issue 35): the patched half of
# make demo is run here (vmcore-tests/demo.sh --patched, about a minute
# warm) and every line README shows of it must be what it printed, varying
# numbers masked (readme_demo.py); the block of Debian's kernel is compared
# with the last `make demo`'s log (build/demo.log) when there is one.
GROUP=readme
. "$(dirname "$0")/lib.sh"
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
