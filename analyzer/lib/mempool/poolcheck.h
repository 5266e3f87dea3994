/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: does the memory at an address hold an initialized mempool_t?
 * Checked by the DWARF layout alone, so that it works on any kernel: the
 * allocation functions are kernel or module text, 0 <= curr_nr <= what the
 * kernel lets the reserve hold (poolrule.h: min_nr, 1 for a zero-minimum
 * pool since Linux 6.17),
 * the elements array holds curr_nr readable non-NULL pointers, the lock
 * word is sane and the wait queue head's links agree.
 */
#ifndef KMP_POOLCHECK_H
#define KMP_POOLCHECK_H

#include "kernel.h"
#include "slab.h"

#define KMP_FN_MAX 192

struct kmp_poolinfo {
	uint64_t addr;
	const char *type;		/* "slab", "kmalloc", "page", "private": by the
					 * alloc function, as the kernel's mempool_type() */
	int64_t min_nr, curr_nr;
	uint64_t alloc, free, pool_data;
	bool have_elem_size;
	uint64_t elem_size;
	char alloc_name[KMP_FN_MAX];	/* "mempool_alloc_slab(bio-248)", "fn [mod]" */
	char owner[KMP_MODNAME_MAX];	/* module of the pool or its alloc, "" if none */
};

/* Upper bound on min_nr that the check accepts. */
#define KMP_MIN_NR_MAX (1 << 24)

/*
 * Validate the mempool_t at @addr; fill @pi.  False with @why saying which
 * rule failed (the address is not a pool, or no longer one).
 */
bool kmp_pool_check(const struct kmp_kernel *k, const struct kmp_slablayout *sl,
		    uint64_t addr, struct kmp_poolinfo *pi, struct kmp_err *why);

/*
 * Do the members of mempool_t that the checks and the scan take from its
 * bytes fit the struct (field.h)?  False with @err (kind format) naming
 * the first that does not: the layout cannot be used for them.
 */
bool kmp_pool_fields_fit(const struct kmp_layout *l, struct kmp_err *err);

/*
 * The stricter check for a scan of memory, where nothing else vouches for
 * the address: also alloc and free are function entries, the reserve
 * array exists (NULL after mempool_exit()), and a slab pool's cache reads.
 */
bool kmp_pool_check_strict(const struct kmp_kernel *k, const struct kmp_slablayout *sl,
			   uint64_t addr, struct kmp_poolinfo *pi, struct kmp_err *why);

#endif
