/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the one binary search over a sorted run of addresses, for the
 * symbol tables (kallsyms.c, vmsyms.c).  Each element is @stride bytes
 * and begins with its uint64_t key.
 */
#ifndef KMP_BSEARCH_H
#define KMP_BSEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The first element in [@lo, @hi) of @base whose key is at least @v, or,
 * with @above, above @v; @hi if there is none.  O(log n), whatever the
 * keys (a run of equal keys costs nothing more).
 */
static inline size_t kmp_first_key(const void *base, size_t stride, size_t lo, size_t hi,
				   uint64_t v, bool above)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, (const char *)base + mid * stride, sizeof(k));
		if (k < v || (above && k == v))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The same over uint32_t keys (a table of offsets from a base). */
static inline size_t kmp_first_key32(const uint32_t *key, size_t lo, size_t hi, uint32_t v,
				     bool above)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key[mid] < v || (above && key[mid] == v))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
