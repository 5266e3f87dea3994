// SPDX-License-Identifier: GPL-2.0
/* kmempool: the rule for names read from kernel memory. */
#include <stdio.h>

#include "names.h"

bool kmp_name_ok(const char *s, size_t len, char *why, size_t whylen)
{
	if (!len) {
		snprintf(why, whylen, "is empty");
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x21 || c > 0x7e) {
			snprintf(why, whylen, "has byte 0x%02x at offset %zu (not printable "
				 "ASCII, or white space)", c, i);
			return false;
		}
	}
	return true;
}

void kmp_comm_clean(char *comm)
{
	for (unsigned char *p = (unsigned char *)comm; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
}
