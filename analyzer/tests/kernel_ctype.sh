#!/bin/bash
# The analyzer's name rule against the kernel's own character table: the
# kernel's lib/ctype.c and include/linux/ctype.h, compiled as they are,
# next to lib/mempool/namerule.c; for every byte value 0..255, kmp_kernel_isprint(),
# kmp_kernel_isspace() and kmp_name_byte_ok() must equal the kernel's
# isprint(), isspace() and the series' rule (isprint() && !isspace(),
# mempool_make_word()).
#
#   kernel_ctype.sh [KERNEL_TREE | linux-source-X.tar.xz]
#
# Without an argument: $KMP_KERNEL_SRC, ../build/src (the series' tree),
# the pinned base's tarball (qemu/kernel-source.sh), the release's
# /usr/src/linux-source-X.tar.xz (make deps installs it), the first that
# exists; none: "skip".
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-}
if [ -z "$src" ]; then
	for c in "${KMP_KERNEL_SRC:-}" "$here/../../build/src" \
		$(ls "$here"/../../build/kernel-source/*/linux-source-*.tar.xz 2>/dev/null | head -1) \
		$(ls -v /usr/src/linux-source-*.tar.xz 2>/dev/null | tail -1); do
		if [ -n "$c" ] && { [ -f "$c/lib/ctype.c" ] || [ -f "$c" ]; }; then
			src=$c
			break
		fi
	done
fi
if [ -z "$src" ]; then
	echo "skip - kernel ctype: no kernel tree (set KMP_KERNEL_SRC)"
	echo "kernel-ctype: 0 passed, 0 failed"
	exit 0
fi
T=$(mktemp -d /tmp/kmp-ctype.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/linux"
if [ -f "$src" ]; then
	top=$(tar -tJf "$src" 2>/dev/null | head -1)
	top=${top%%/*}
	tar -xJf "$src" -C "$T" "$top/lib/ctype.c" "$top/include/linux/ctype.h" &&
		mv "$T/$top/lib/ctype.c" "$T/ctype.c" &&
		mv "$T/$top/include/linux/ctype.h" "$T/linux/ctype.h" ||
		{ echo "not ok - kernel ctype: cannot extract the two files from $src"; exit 1; }
else
	cp "$src/lib/ctype.c" "$T/ctype.c" && cp "$src/include/linux/ctype.h" "$T/linux/ctype.h" ||
		{ echo "not ok - kernel ctype: cannot read $src"; exit 1; }
fi
# What ctype.c and ctype.h need from the rest of the kernel: nothing but these.
: > "$T/linux/compiler.h"
echo '#define EXPORT_SYMBOL(sym)' > "$T/linux/export.h"
cat > "$T/check.c" <<'EOF'
#include <stdio.h>
#include <linux/ctype.h>
#include "namerule.h"

int main(void)
{
	int bad = 0;

	for (int c = 0; c < 256; c++) {
		bool p = isprint(c), s = isspace(c), keep = p && !s;

		if (p != kmp_kernel_isprint((unsigned char)c) ||
		    s != kmp_kernel_isspace((unsigned char)c) ||
		    keep != kmp_name_byte_ok((unsigned char)c)) {
			printf("    byte 0x%02x: kernel isprint %d isspace %d, kmempool %d %d, "
			       "kept %d\n", c, p, s, kmp_kernel_isprint((unsigned char)c),
			       kmp_kernel_isspace((unsigned char)c),
			       kmp_name_byte_ok((unsigned char)c));
			bad++;
		}
	}
	return bad != 0;
}
EOF
if ! ${CC:-gcc} -std=gnu11 -Wall -Werror -I"$T" -I"$here/../lib/mempool" -o "$T/check" "$T/check.c" \
	"$T/ctype.c" "$here/../lib/mempool/namerule.c" 2> "$T/cc.err"; then
	echo "not ok - kernel ctype: the kernel's table does not compile here:"
	sed 's/^/    /' "$T/cc.err" | head -10
	echo "kernel-ctype: 0 passed, 1 failed"
	exit 1
fi
if "$T/check"; then
	echo "ok - kernel ctype: the name rule equals the kernel's table of $src on all 256 bytes"
	echo "kernel-ctype: 1 passed, 0 failed"
else
	echo "not ok - kernel ctype: the name rule differs from the kernel's table of $src"
	echo "kernel-ctype: 0 passed, 1 failed"
	exit 1
fi
