// SPDX-License-Identifier: GPL-2.0
/* kmempool: a pool's wait queue: how many wait, and how long the longest has. */
#include <inttypes.h>

#include "waitq.h"
#include "walk.h"

bool kmp_wait_queue_length_why(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
			       uint64_t wake, uint64_t max, uint64_t *n, struct kmp_err *why)
{
	struct kmp_queue_arg q = { .ages = false, .wake = wake, .only_wake = wake != 0 };
	bool ok = kmp_wait_queue_scan(mem, l, pool, max, &q, why);

	*n = q.n;
	return ok;
}

bool kmp_wait_queue_length(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
			   uint64_t wake, uint64_t max, uint64_t *n)
{
	struct kmp_err why;

	return kmp_wait_queue_length_why(mem, l, pool, wake, max, n, &why);
}

uint64_t kmp_jiffies_seconds(uint64_t now, uint64_t since, uint64_t hz)
{
	if (!hz || (int64_t)(now - since) <= 0)
		return 0;
	return (now - since) / hz;
}

/*
 * Format 1.2: seconds the allocation whose wait queue entry is at @wqe has
 * waited (struct mempool_waiter around the entry, its start time @since).
 */
bool kmp_waiter_seconds(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t wqe,
			uint64_t now, uint64_t hz, uint64_t *s, struct kmp_err *err)
{
	uint64_t waiter = wqe - l->waiter_entry.off, since;
	struct kmp_err why;

	if (!kmp_read_uint(mem, waiter + l->waiter_since.off, l->waiter_since.size, &since,
			   &why)) {
		kmp_wraperr(err, &why, "waiter 0x%" PRIx64 ": %s", waiter, why.msg);
		return false;
	}
	*s = kmp_jiffies_seconds(now, since, hz);
	return true;
}

static bool queue_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	struct kmp_queue_arg *q = arg;
	uint64_t s;

	/* Series v6: a mempool_alloc() waiter is told by its wake function; skip others. */
	if (q->only_wake) {
		uint64_t wqe = node - q->l->wqe_entry.off, func;
		struct kmp_err why;

		if (!kmp_read_uint(q->mem, wqe + q->l->wqe_func.off, q->l->wqe_func.size, &func,
				   &why)) {
			kmp_wraperr(err, &why, "wait queue entry 0x%" PRIx64 ": %s", wqe, why.msg);
			return false;
		}
		if (func != q->wake)
			return true;
	}
	q->n++;
	if (!q->ages)
		return true;
	if (!kmp_waiter_seconds(q->mem, q->l, node - q->l->wqe_entry.off, q->now, q->hz, &s, err))
		return false;
	if (s > q->oldest)
		q->oldest = s;
	return true;
}

bool kmp_wait_queue_scan(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
			 uint64_t max, struct kmp_queue_arg *q, struct kmp_err *why)
{
	uint64_t last;

	q->mem = mem;
	q->l = l;
	q->n = q->oldest = 0;
	return kmp_list_walk(mem, l, pool + l->wait_head.off, max, queue_visit, q,
			     &last, why) == KMP_WALK_DONE;
}
