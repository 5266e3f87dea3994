// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: sanity of a layout read from DWARF.  The DWARF of a damaged
 * or hostile vmlinux can claim any offset and size; the pool reader
 * copies struct mempool_s into a buffer of its size and takes fields out
 * of it, so every field must lie inside the struct, and integers must
 * have a size the readers handle.
 */
#include <inttypes.h>

#include "layout_check.h"

struct named_field {
	const char *name;
	const struct kmp_field *f;
	bool integer;		/* read as an integer: size 1, 2, 4 or 8 */
};

static bool int_size(uint64_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

bool kmp_layout_check(const struct kmp_layout *l, const char *path, struct kmp_err *err)
{
	const struct named_field pool[] = {
		{ "list", &l->list, false },
		{ "name", &l->name, true },
		{ "owner", &l->owner, true },
		{ "elem_size", &l->elem_size, true },
		{ "type", &l->type, true },
		{ "min_nr", &l->min_nr, true },
		{ "curr_nr", &l->curr_nr, true },
		{ "low_nr", &l->low_nr, true },
		{ "nr_reserve", &l->nr_reserve, true },
		{ "nr_wait", &l->nr_wait, true },
		{ "nr_fail", &l->nr_fail, true },
		{ "nr_empty", &l->nr_empty, true },
		{ "instance", &l->instance, true },
		{ "wait", &l->wait, false },
	};
	const struct named_field other[] = {
		{ "list_head.next", &l->lh_next, true },
		{ "list_head.prev", &l->lh_prev, true },
		{ "wait_queue_head.head", &l->wqh_head, false },
		{ "wait_queue_entry.private", &l->wqe_private, true },
		{ "wait_queue_entry.entry", &l->wqe_entry, false },
		{ "task_struct.pid", &l->task_pid, true },
		{ "task_struct.comm", &l->task_comm, false },
		{ "task_struct.__state", &l->task_state, true },
		{ "mempool_waiter.entry", &l->waiter_entry, false },
		{ "mempool_waiter.since", &l->waiter_since, true },
	};

	if (l->pool_size == 0 || l->pool_size > KMP_MAX_STRUCT) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: implausible size of struct mempool_s in DWARF: %" PRIu64
			   " bytes (damaged debug info?)", path, l->pool_size);
		return false;
	}
	for (size_t i = 0; i < sizeof(pool) / sizeof(pool[0]); i++) {
		const struct kmp_field *f = pool[i].f;

		if (!f->ok)
			continue;
		if (f->size == 0 || f->off > l->pool_size || f->size > l->pool_size - f->off) {
			kmp_seterr(err, KMP_ERR_FORMAT, "%s: DWARF puts mempool_s.%s (offset %" PRIu64 ", size %"
				   PRIu64 ") outside the struct's %" PRIu64 " bytes (damaged "
				   "debug info?)", path, pool[i].name, f->off, f->size,
				   l->pool_size);
			return false;
		}
		if (pool[i].integer && !int_size(f->size)) {
			kmp_seterr(err, KMP_ERR_FORMAT, "%s: DWARF gives mempool_s.%s a size of %" PRIu64
				   " bytes, not an integer's (damaged debug info?)", path,
				   pool[i].name, f->size);
			return false;
		}
	}
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		const struct kmp_field *f = other[i].f;

		if (!f->ok)
			continue;
		if (f->off > KMP_MAX_STRUCT || f->size > KMP_MAX_STRUCT ||
		    (other[i].integer && !int_size(f->size))) {
			kmp_seterr(err, KMP_ERR_FORMAT, "%s: implausible DWARF for %s (offset %" PRIu64 ", size %"
				   PRIu64 "; damaged debug info?)", path, other[i].name, f->off,
				   f->size);
			return false;
		}
	}
	if (l->v12 && (l->waiter_size > KMP_MAX_STRUCT ||
		       l->waiter_since.off + l->waiter_since.size > l->waiter_size ||
		       l->waiter_entry.off > l->waiter_size)) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: DWARF puts the members of struct mempool_waiter "
			   "outside its %" PRIu64 " bytes (damaged debug info?)", path,
			   l->waiter_size);
		return false;
	}
	return true;
}
