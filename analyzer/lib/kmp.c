// SPDX-License-Identifier: GPL-2.0
/* kmempool: error message helper. */
#include <stdio.h>

#include "kmp.h"

void kmp_seterr(struct kmp_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}
