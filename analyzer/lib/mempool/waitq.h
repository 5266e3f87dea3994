/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: a pool's wait queue walked (waitq.c), for the pool walk and the
 * waiters; the public calls are in pools.h.
 */
#ifndef KMP_WAITQ_H
#define KMP_WAITQ_H

#include <stdbool.h>
#include <stdint.h>

#include "kmp.h"
#include "layout.h"
#include "mem.h"

/* A pool's wait queue: how many wait, and (format 1.2, @ages) the longest wait. */
struct kmp_queue_arg {
	struct kmp_mem *mem;
	const struct kmp_layout *l;
	bool ages;
	uint64_t now, hz;
	uint64_t wake;		/* series v6: count only entries with this wake function */
	bool only_wake;
	uint64_t n, oldest;
};

/* The queue of the pool at @pool, at most @max entries: @q's n and oldest; false with @why. */
bool kmp_wait_queue_scan(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
			 uint64_t max, struct kmp_queue_arg *q, struct kmp_err *why);
/*
 * Format 1.2: seconds the allocation whose wait queue entry is at @wqe has
 * waited (struct mempool_waiter around the entry, its start time @since).
 */
bool kmp_waiter_seconds(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t wqe,
			uint64_t now, uint64_t hz, uint64_t *s, struct kmp_err *err);

#endif
