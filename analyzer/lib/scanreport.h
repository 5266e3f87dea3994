/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: `kmempool scan`: every pool found in memory, named, as text or JSON. */
#ifndef KMP_SCANREPORT_H
#define KMP_SCANREPORT_H

#include <stdio.h>

#include "naming.h"
#include "scan.h"

struct kmp_scanreport_opts {
	bool json, verbose;
	uint64_t max_waiters, max_pfn;
	void (*json_kernel)(FILE *f, const void *arg);	/* prints "kernel": {...} */
	const void *json_kernel_arg;
};

/* Returns KMP_OK, KMP_EPARTIAL or KMP_EFORMAT with @err set. */
int kmp_scanreport(FILE *f, const struct kmp_kernel *k, const struct kmp_slablayout *sl,
		   struct kmp_naming *nm, const struct kmp_scanreport_opts *o,
		   struct kmp_err *err);

#endif
