/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: the VMCOREINFO lines the analyzer uses. */
#ifndef KMP_VMCOREINFO_H
#define KMP_VMCOREINFO_H

#include <stdbool.h>
#include <stdint.h>

struct kmp_vmcoreinfo {
	char osrelease[65];
	char build_id[129];
	uint64_t kerneloffset;
	bool have_kerneloffset;
	int64_t crashtime;
	bool have_crashtime;
};

/* Parse @text (may be NULL: everything stays unset). */
void kmp_vmcoreinfo_parse(const char *text, struct kmp_vmcoreinfo *vi);

#endif
