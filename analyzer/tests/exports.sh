#!/bin/bash
# What the program exports (issue 35): pread() and no other function of
# its own - lib/dump/fdhook.c's hook, which libkdumpfile (loaded with
# dlopen()) must find in the executable, exported by name with
# cli/kmempool.dynlist rather than because a linked library calls pread().
#   tests/exports.sh PROGRAM...
set -u
pass=0 fail=0
for prog in "$@"; do
	funcs=$(nm -D --defined-only "$prog" 2>/dev/null | awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')
	if [ "$funcs" = "pread " ]; then
		echo "ok - ${prog##*/} exports pread() and no other function of its own"
		pass=$((pass + 1))
	else
		echo "not ok - ${prog##*/} exports these functions: '${funcs}' (want: pread)"
		fail=$((fail + 1))
	fi
done
echo "exports: $pass passed, $fail failed"
[ $fail = 0 ]
