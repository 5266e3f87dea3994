/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: exit statuses and error reporting shared by all files. */
#ifndef KMP_H
#define KMP_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Exit statuses; documented in --help and kmempool(1). */
enum kmp_exit {
	KMP_OK = 0,		/* complete report */
	KMP_EUSAGE = 1,		/* bad command line */
	KMP_ECORE = 2,		/* core missing, unreadable or not a kernel dump */
	KMP_EVMLINUX = 3,	/* vmlinux missing, unreadable or without debug info */
	KMP_EMISMATCH = 4,	/* vmlinux does not belong to the core */
	KMP_EPARTIAL = 5,	/* walk stopped at bad data: partial report */
	KMP_EFORMAT = 6,	/* kernel without mempool_list, or unknown format version */
};

#define KMP_ERRLEN 512

/* One error message, filled by the layer that saw the problem. */
struct kmp_err {
	char msg[KMP_ERRLEN];
};

void kmp_seterr(struct kmp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
