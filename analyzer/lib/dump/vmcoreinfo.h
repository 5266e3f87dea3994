/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: the VMCOREINFO lines the analyzer uses. */
#ifndef KMP_VMCOREINFO_H
#define KMP_VMCOREINFO_H

#include <stdbool.h>
#include <stdint.h>

struct kmp_vmcoreinfo {
	char osrelease[65];
	char build_id[129];	/* even-length lower-case hex, or "" */
	uint64_t kerneloffset;
	bool have_kerneloffset;
	int64_t crashtime;
	bool have_crashtime;
	/*
	 * "" or why the first bad line of the ones above is bad, e.g.
	 * "KERNELOFFSET=zz: not a hexadecimal number".  The parse goes on
	 * after a bad line, but the caller must refuse the dump.
	 */
	char bad[192];
	/*
	 * The release is one whose BUILD-ID line is known to be garbage
	 * (kmp_build_id_known_broken()): build_id is left empty and a bad
	 * BUILD-ID line is not an error.
	 */
	bool build_id_ignored;
};

/* Parse @text (may be NULL: everything stays unset). */
void kmp_vmcoreinfo_parse(const char *text, struct kmp_vmcoreinfo *vi);

/*
 * The one look-up of a line of VMCOREINFO text @text (may be NULL): the
 * value of the last line whose key (the text before its first '=') is
 * exactly @key, as libkdumpfile keeps the last; its length (up to the
 * newline or the end) in *@len.  NULL if there is no such line.  The
 * address translation (ddxlat.c: SYMBOL(x), NUMBER(x), OFFSET(s.m),
 * OSRELEASE) and the page size (session.c) ask through it; the fields
 * kmempool validates strictly come from kmp_vmcoreinfo_parse().
 */
const char *kmp_vmcoreinfo_value(const char *text, const char *key, size_t *len);

/*
 * True if @version ("6.1.115", "6.1.115-1-amd64", ...) is a stable kernel
 * whose VMCOREINFO BUILD-ID is garbage: the backports of upstream commit
 * 905415ff3ffb ("lib/buildid: harden build ID parsing logic") to the
 * stable trees broke the parsing of the kernel's own build ID until a
 * follow-up fix.  Such a dump is matched by release and linux_banner.
 */
bool kmp_build_id_known_broken(const char *version);

/*
 * The same, for a linux_banner: its release, or the distribution's
 * version after "Debian " (Debian's release strings carry an ABI name,
 * 6.1.0-27-amd64, and the upstream version only in the banner).
 */
bool kmp_build_id_known_broken_banner(const char *banner);

#endif
