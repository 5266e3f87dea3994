/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the kernel's own rules for a pool's reserve, in one place for
 * the list walk (pools.c, poolrec.c), the pool check of the scan and of the waiters
 * (poolcheck.c) and the scan's report (scanreport.c).
 *
 * How many elements a pool keeps: mm/mempool.c fills the reserve up to
 * min_nr and never past it (add_element() BUG()s at min_nr), except for a
 * pool of min_nr 0.  Up to Linux 6.16 such a pool's array is
 * kmalloc_array(0, ...), i.e. ZERO_SIZE_PTR, and it never keeps an
 * element.  Since "mm: mempool: fix wake-up edge case bug for zero-minimum
 * pools" (Linux 6.17; in none of Debian's 5.10, 6.1 or 6.12 kernels, read
 * from their linux-source packages, and in 7.2) mempool_init() allocates
 * max(1, min_nr) slots and fills them, and mempool_free() gives a
 * zero-minimum pool one element back when it has none: curr_nr is 0 or 1.
 * Which of the two a kernel follows shows in the pool itself, whatever its
 * version or backports: the array is ZERO_SIZE_PTR, or a real allocation
 * of one slot.  mempool_resize() refuses a new min_nr <= 0, and
 * mempool_exit() leaves the array NULL (and the reserve empty).
 */
#ifndef KMP_POOLRULE_H
#define KMP_POOLRULE_H

#include <stdint.h>

/* What kmalloc(0) and kmalloc_array(0, ...) return: ZERO_SIZE_PTR. */
#define KMP_ZERO_SIZE_PTR 16u

/*
 * The most elements the pool with @min_nr and the reserve array @elements
 * may hold: min_nr, or for a zero-minimum pool 1 when its array is a real
 * allocation (Linux 6.17 on) and 0 when it is ZERO_SIZE_PTR or NULL.
 */
static inline int64_t kmp_pool_capacity(int64_t min_nr, uint64_t elements)
{
	if (min_nr > 0)
		return min_nr;
	return elements == 0 || elements == KMP_ZERO_SIZE_PTR ? 0 : 1;
}

/*
 * The slots the reserve array of a pool with @min_nr must have room for,
 * when it is a real allocation: max(1, min_nr).
 */
static inline int64_t kmp_pool_slots(int64_t min_nr)
{
	return min_nr > 1 ? min_nr : 1;
}

/* The kernel's rule for the counters: 0 <= curr_nr <= capacity. */
static inline int kmp_pool_curr_ok(int64_t min_nr, int64_t curr_nr, uint64_t elements)
{
	return min_nr >= 0 && curr_nr >= 0 && curr_nr <= kmp_pool_capacity(min_nr, elements);
}

#endif
