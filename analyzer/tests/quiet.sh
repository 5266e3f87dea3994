#!/bin/bash
# Nothing in lib/ writes to stdout or stderr (issue 35): its notes and
# progress go to the caller's callbacks (kmp.h, struct kmp_notes).  The
# library's objects (ARCHIVE, libkmempool.a) must not refer to the
# process's streams, nor to the calls that write to stdout by themselves;
# writing to a FILE the caller hands over (a report) is fine.
#   tests/quiet.sh ARCHIVE [CC]
# Also checks that the check catches an object that writes to stderr.
set -u
archive=$1 cc=${2:-cc}
streams='stderr|stdout|printf|vprintf|puts|putchar|perror|__printf_chk|__vprintf_chk'
pass=0 fail=0

# loud FILE: the objects of FILE that name one of the streams, one line each.
loud() {
	nm -A -u "$1" 2>/dev/null | awk -v re="^($streams)\$" '$NF ~ re { print "    " $1 " " $NF }'
}

if [ ! -s "$archive" ]; then
	echo "not ok - no library archive $archive"
	fail=$((fail + 1))
elif out=$(loud "$archive") && [ -z "$out" ]; then
	echo "ok - lib/ writes nothing to stdout or stderr ($(ar t "$archive" | wc -l) objects)"
	pass=$((pass + 1))
else
	echo "not ok - lib/ objects that write to the process's streams:"
	echo "$out"
	fail=$((fail + 1))
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
printf '#include <stdio.h>\nvoid loud_note(const char *m) { fprintf(stderr, "%%s\\n", m); }\n' > "$T/loud.c"
if ! $cc -c -o "$T/loud.o" "$T/loud.c" || ! ar rcs "$T/loud.a" "$T/loud.o"; then
	echo "not ok - cannot build the object for the self-test"
	fail=$((fail + 1))
elif loud "$T/loud.a" | grep -q 'loud.o: stderr'; then
	echo "ok - the check finds an object that writes to stderr"
	pass=$((pass + 1))
else
	echo "not ok - the check missed an object that writes to stderr"
	fail=$((fail + 1))
fi

echo "quiet: $pass passed, $fail failed"
[ $fail = 0 ]
