/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: `kmempool waiters` from task stacks (kernels without the
 * series, or --source stacks): the search, grouping by pool, naming, and
 * the text and JSON output.
 */
#ifndef KMP_STACKREPORT_H
#define KMP_STACKREPORT_H

#include <stdio.h>

#include "placename.h"
#include "stackwait.h"

struct kmp_stackreport_opts {
	bool json;
	bool series;		/* the kernel has mempool_list (--source stacks) */
	bool verbose;		/* each waiter's whole stack, not only the frames above mempool_alloc */
	uint64_t max_tasks, max_waiters;
	void (*json_kernel)(FILE *f, const void *arg);	/* prints "kernel": {...} */
	const void *json_kernel_arg;
};

/*
 * Search and print.  Returns true for a complete search, else false with
 * @err (kind format: nothing searched, nothing printed).
 */
bool kmp_stackreport(FILE *f, const struct kmp_kernel *k, const struct kmp_slablayout *sl,
		     struct kmp_naming *nm, const struct kmp_stackreport_opts *o,
		     struct kmp_err *err);

#endif
