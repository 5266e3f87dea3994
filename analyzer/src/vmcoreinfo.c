// SPDX-License-Identifier: GPL-2.0
/* kmempool: parse VMCOREINFO text ("KEY=value" lines). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmcoreinfo.h"

static void copy_value(char *dst, size_t size, const char *val, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, val, len);
	dst[len] = '\0';
}

void kmp_vmcoreinfo_parse(const char *text, struct kmp_vmcoreinfo *vi)
{
	memset(vi, 0, sizeof(*vi));
	while (text && *text) {
		const char *eol = strchr(text, '\n');
		size_t len = eol ? (size_t)(eol - text) : strlen(text);
		const char *eq = memchr(text, '=', len);

		if (eq) {
			size_t klen = (size_t)(eq - text);
			const char *val = eq + 1;
			size_t vlen = len - klen - 1;
			char num[32];

			if (klen == 9 && !memcmp(text, "OSRELEASE", 9)) {
				copy_value(vi->osrelease, sizeof(vi->osrelease), val, vlen);
			} else if (klen == 8 && !memcmp(text, "BUILD-ID", 8)) {
				copy_value(vi->build_id, sizeof(vi->build_id), val, vlen);
			} else if (klen == 12 && !memcmp(text, "KERNELOFFSET", 12)) {
				copy_value(num, sizeof(num), val, vlen);
				vi->kerneloffset = strtoull(num, NULL, 16);
				vi->have_kerneloffset = true;
			} else if (klen == 9 && !memcmp(text, "CRASHTIME", 9)) {
				copy_value(num, sizeof(num), val, vlen);
				vi->crashtime = strtoll(num, NULL, 10);
				vi->have_crashtime = true;
			}
		}
		text += len + (eol ? 1 : 0);
	}
}
