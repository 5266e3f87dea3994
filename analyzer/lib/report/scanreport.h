/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: `kmempool scan`: every pool found in memory, named, as text or JSON. */
#ifndef KMP_SCANREPORT_H
#define KMP_SCANREPORT_H

#include <stdio.h>

#include "placename.h"
#include "pools.h"
#include "scan.h"

struct kmp_scanreport_opts {
	bool json, verbose;
	uint64_t max_waiters, max_pfn;
	unsigned int threads;	/* of the slab search, kmp_scan(); 0: one per CPU */
	void (*json_kernel)(FILE *f, const void *arg);	/* prints "kernel": {...} */
	const void *json_kernel_arg;
	struct kmp_notes notes;	/* the scan's statistics and notes (kmp.h) */
};

/*
 * What the series keeps in a pool the scan found (kernels with it): shown
 * only when it keeps the kernel's rules, "?" (JSON null, no list_name)
 * otherwise, with @why saying what is wrong.
 */
struct kmp_series_vals {
	bool have;		/* the kernel has the series */
	bool counters_ok;	/* read, and 0 <= low_nr <= min_nr */
	bool name_ok;		/* read, and a name by the kernel's rule */
	int64_t low_nr;
	uint64_t nr_reserve, nr_wait;
	char why[256];
	char name[KMP_NAME_MAX];
};

/* Read the series' values of the pool @pi into @sv. */
void kmp_scan_series_read(const struct kmp_kernel *k, const struct kmp_poolinfo *pi,
			  struct kmp_series_vals *sv);

/*
 * Print the @n pools at @v (sorted by address) that a scan found, @ok and
 * @err its result; a pool whose series values break the kernel's rules
 * makes a complete scan partial.  Returns true, or false with @err.
 */
bool kmp_scanreport_print(FILE *f, const struct kmp_kernel *k, struct kmp_naming *nm,
			  const struct kmp_scanreport_opts *o, const struct kmp_found *v, size_t n,
			  const struct kmp_scan_stats *st, bool ok, struct kmp_err *err);

/* Scan, then print.  Returns true for a complete scan, else false with @err. */
bool kmp_scanreport(FILE *f, const struct kmp_kernel *k, const struct kmp_slablayout *sl,
		    struct kmp_naming *nm, const struct kmp_scanreport_opts *o,
		    struct kmp_err *err);

#endif
