#!/bin/bash
# make install / make uninstall into a staging DESTDIR (issue 11): the files,
# their modes, the installed binary's --help, the man page through man -l,
# the bash completion's answers, and an uninstall that leaves no file.
# ANALYZER_O (default build/analyzer) is the analyzer's build directory.
GROUP=install
. "$(dirname "$0")/lib.sh"
ANALYZER_O=${ANALYZER_O:-$B/analyzer}
D=$T/install
rm -rf "$D"
mkdir -p "$D"

# inst PREFIX-RELATIVE-PATH MODE: the file is there with that mode
inst() {
	local f=$1 mode=$2 got
	got=$(stat -c %a "$f" 2>/dev/null)
	if [ "$got" = "$mode" ]; then
		ok "installed ${f#$D} (mode $mode)"
	else
		not_ok "installed ${f#$D}: mode '${got:-missing}', want $mode"
	fi
}

# 1. PREFIX=/usr into DESTDIR=$D/usr-prefix
P=$D/usr-prefix
stage "make install PREFIX=/usr DESTDIR=$P"
if make -s -C "$ROOT" install PREFIX=/usr DESTDIR="$P" ANALYZER_O="$ANALYZER_O" \
	>"$D/install.log" 2>&1; then
	ok "make install PREFIX=/usr DESTDIR=... exits 0"
else
	not_ok "make install PREFIX=/usr DESTDIR=... failed: $(tail -3 "$D/install.log")"
fi
inst "$P/usr/bin/kmempool" 755
inst "$P/usr/share/man/man1/kmempool.1" 644
inst "$P/usr/share/bash-completion/completions/kmempool" 644
# The crash extension wherever crash's headers are (make deps installs crash).
if [ -f /usr/include/crash/defs.h ]; then
	inst "$P/usr/lib/crash/extensions/kmempool.so" 644
else
	not_ok "no /usr/include/crash/defs.h (package crash): the extension was not built"
fi
extra=$(cd "$P" && find . \( -type f -o -type l \) | sort | grep -v -x -e ./usr/bin/kmempool \
	-e ./usr/share/man/man1/kmempool.1 -e ./usr/share/bash-completion/completions/kmempool \
	-e ./usr/lib/crash/extensions/kmempool.so)
if [ -z "$extra" ]; then
	ok "nothing else installed"
else
	not_ok "unexpected files installed: $extra"
fi

# The installed binary runs on its own.
out=$("$P/usr/bin/kmempool" --help 2>&1)
rc=$?
if [ $rc = 0 ] && grep -q '^Usage: kmempool' <<<"$out" && grep -q 'waiters' <<<"$out"; then
	ok "installed kmempool --help: exit 0, usage with the commands"
else
	not_ok "installed kmempool --help: exit $rc: $(head -2 <<<"$out")"
fi
out=$("$P/usr/bin/kmempool" --version 2>&1)
if [[ $out =~ ^kmempool\ [0-9]+\.[0-9]+$ ]]; then
	ok "installed kmempool --version: '$out'"
else
	not_ok "installed kmempool --version: '$out'"
fi

# The man page renders, with its sections and no groff warning.
man_out=$(MANWIDTH=80 man -l "$P/usr/share/man/man1/kmempool.1" 2>"$D/man.err")
rc=$?
if [ $rc = 0 ] && grep -q '^NAME' <<<"$man_out" && grep -Eq 'kmempool +- print' <<<"$man_out" &&
	grep -q '^EXIT STATUS' <<<"$man_out" && [ ! -s "$D/man.err" ]; then
	ok "man -l kmempool.1: renders NAME and EXIT STATUS, no warnings ($(wc -l <<<"$man_out") lines)"
else
	not_ok "man -l kmempool.1: exit $rc, stderr: $(head -3 "$D/man.err")"
fi
# man finds it by name through MANPATH in the staging tree.
if MANPATH="$P/usr/share/man" man -w kmempool 2>/dev/null | grep -x "$P/usr/share/man/man1/kmempool.1" > /dev/null; then
	ok "man -w kmempool finds the installed page under MANPATH"
else
	not_ok "man -w kmempool: $(MANPATH="$P/usr/share/man" man -w kmempool 2>&1)"
fi

# The completion's own logic, with bash-completion's helpers stubbed (the
# package need not be installed here): COMP_WORDS -> COMPREPLY.
complete_words() {
	bash -c '
		_init_completion() {
			words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
			cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}
		}
		_filedir() { COMPREPLY+=(FILES); }
		. "$1"; shift
		complete -p kmempool >/dev/null || exit 3
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
		_kmempool
		echo "${COMPREPLY[*]}"' _ "$P/usr/share/bash-completion/completions/kmempool" "$@"
}
comp() {
	local want=$1 got
	shift
	got=$(complete_words "$@" 2>&1)
	if [ "$got" = "$want" ]; then
		ok "completion of '$*': '$got'"
	else
		not_ok "completion of '$*': '$got', want '$want'"
	fi
}
comp "report info waiters scan top triage" kmempool ""
comp "report info waiters scan top" kmempool -c vmcore ""
comp "triage" kmempool tri
comp "FILES" kmempool triage ""
comp "FILES" kmempool triage -j 2 /var/crash ""
comp "--jobs" kmempool triage --jo
comp "" kmempool triage -t ""
comp "scan" kmempool -c vmcore sc
comp "" kmempool waiters ""
comp "--source" kmempool --sou
comp "list stacks" kmempool waiters --source ""
comp "text json" kmempool -f ""
comp "FILES" kmempool -c ""
comp "--max-entries" kmempool --max
comp "" kmempool top -d ""
got=$(complete_words kmempool - | tr ' ' '\n' | sort | tr '\n' ' ')
# Every option --help lists (triage's own options complete after "triage").
want=$("$P/usr/bin/kmempool" --help 2>&1 | sed -n '/^Options/,/^[A-Z]/p' |
	grep -oE '^ +(-[A-Za-z], )?--[a-z-]+' | tr -d ',' | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "completion of '-': every option of --help"
else
	not_ok "completion of '-': '$got', want '$want'"
fi

# Uninstall leaves no file.
if make -s -C "$ROOT" uninstall PREFIX=/usr DESTDIR="$P" ANALYZER_O="$ANALYZER_O" \
	>"$D/uninstall.log" 2>&1; then
	left=$(cd "$P" && find . \( -type f -o -type l \))
	if [ -z "$left" ]; then
		ok "make uninstall PREFIX=/usr: no file left"
	else
		not_ok "make uninstall PREFIX=/usr left: $left"
	fi
else
	not_ok "make uninstall failed: $(tail -3 "$D/uninstall.log")"
fi

# 2. The default PREFIX is /usr/local.
L=$D/default-prefix
make -s -C "$ROOT" install DESTDIR="$L" ANALYZER_O="$ANALYZER_O" >"$D/install2.log" 2>&1
if [ -x "$L/usr/local/bin/kmempool" ] && [ -f "$L/usr/local/share/man/man1/kmempool.1" ] &&
	[ -f "$L/usr/local/share/bash-completion/completions/kmempool" ]; then
	ok "default PREFIX is /usr/local"
else
	not_ok "default PREFIX: $(cd "$L" 2>/dev/null && find . -type f)"
fi
make -s -C "$ROOT" uninstall DESTDIR="$L" ANALYZER_O="$ANALYZER_O" >>"$D/install2.log" 2>&1
left=$(cd "$L" && find . \( -type f -o -type l \))
if [ -z "$left" ]; then
	ok "make uninstall (default PREFIX): no file left"
else
	not_ok "make uninstall (default PREFIX) left: $left"
fi
echo "$pass passed, $fail failed" >&2
[ "$fail" = 0 ]
