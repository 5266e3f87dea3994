// SPDX-License-Identifier: GPL-2.0
/* kmempool: validated list walk. */
#include <inttypes.h>

#include "field.h"
#include "walk.h"

static bool read_ptr(struct kmp_mem *mem, uint64_t addr, const struct kmp_field *f,
		     uint64_t *val, struct kmp_err *err)
{
	return kmp_read_uint(mem, addr + f->off, f->size, val, err);
}

/* A node's next and prev: one read when they lie side by side, as in struct list_head. */
static bool read_links(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t node,
		       uint64_t *next, uint64_t *prev, struct kmp_err *err)
{
	const struct kmp_field n = { .off = 0, .size = 8, .ok = true };
	const struct kmp_field p = { .off = 8, .size = 8, .ok = true };
	unsigned char b[16];

	if (l->lh_next.size != 8 || l->lh_prev.size != 8 || l->lh_prev.off != l->lh_next.off + 8)
		return read_ptr(mem, node, &l->lh_next, next, err) &&
		       read_ptr(mem, node, &l->lh_prev, prev, err);
	return kmp_read(mem, node + l->lh_next.off, b, sizeof(b), err) &&
	       kmp_field_get(b, sizeof(b), &n, next, err) && kmp_field_get(b, sizeof(b), &p, prev, err);
}

/*
 * After a broken prev link at @pos: is @pos one of the first @n entries
 * (a cycle back into the list)?  Returns its 1-based index, or 0.  Runs
 * only on that error path, so the good path pays nothing for it.
 */
static uint64_t seen_before(struct kmp_mem *mem, const struct kmp_layout *l,
			    uint64_t head, uint64_t pos, uint64_t n)
{
	uint64_t node = head;
	struct kmp_err why;

	for (uint64_t i = 1; i <= n; i++) {
		if (!read_ptr(mem, node, &l->lh_next, &node, &why))
			return 0;
		if (node == pos)
			return i;
	}
	return 0;
}

enum kmp_walk_status kmp_list_walk(struct kmp_mem *mem, const struct kmp_layout *l,
				   uint64_t head, uint64_t max, kmp_visit_fn visit,
				   void *arg, uint64_t *last_good, struct kmp_err *err)
{
	uint64_t prev = head, pos, count = 0;
	uint64_t tortoise = head, power = 1, lam = 1;
	struct kmp_err why;

	*last_good = head;
	if (!read_ptr(mem, head, &l->lh_next, &pos, &why)) {
		kmp_wraperr(err, &why, "cannot read list head at 0x%" PRIx64 ": %s", head, why.msg);
		return KMP_WALK_BROKEN;
	}
	while (pos != head) {
		uint64_t next, back;

		if (pos == tortoise) {
			kmp_fault(err, KMP_ERR_CORRUPT, pos, "cycle in list: node 0x%" PRIx64 " comes again after %"
				   PRIu64 " entries (last good node 0x%" PRIx64 ")",
				   pos, count, *last_good);
			return KMP_WALK_BROKEN;
		}
		if (++count > max) {
			kmp_seterr(err, KMP_ERR_CORRUPT, "more than %" PRIu64 " entries after 0x%" PRIx64
				   "; list corrupt? (raise the bound with --max-entries)",
				   max, head);
			return KMP_WALK_BROKEN;
		}
		if (!pos || (pos & 7)) {
			kmp_fault(err, KMP_ERR_CORRUPT, prev, "bad next pointer 0x%" PRIx64 " in node 0x%" PRIx64
				   " (last good node 0x%" PRIx64 ")", pos, prev, *last_good);
			return KMP_WALK_BROKEN;
		}
		if (!read_links(mem, l, pos, &next, &back, &why)) {
			kmp_wraperr(err, &why, "unreadable list node 0x%" PRIx64 " (last good node 0x%"
				   PRIx64 "): %s", pos, *last_good, why.msg);
			return KMP_WALK_BROKEN;
		}
		if (back != prev) {
			uint64_t first = seen_before(mem, l, head, pos, count - 1);

			if (first) {
				kmp_fault(err, KMP_ERR_CORRUPT, pos, "cycle in list: node 0x%" PRIx64 " (entry %" PRIu64
					   ") comes again after entry %" PRIu64 " (last good node 0x%"
					   PRIx64 ")", pos, first, count - 1, *last_good);
				return KMP_WALK_BROKEN;
			}
			kmp_fault(err, KMP_ERR_CORRUPT, pos, "broken prev link: node 0x%" PRIx64 " points back to 0x%"
				   PRIx64 ", expected 0x%" PRIx64 " (last good node 0x%" PRIx64 ")",
				   pos, back, prev, *last_good);
			return KMP_WALK_BROKEN;
		}
		if (!visit(pos, arg, err))
			return KMP_WALK_STOPPED;
		*last_good = pos;
		/* Brent: move the tortoise to the hare at every power of two. */
		if (lam == power) {
			tortoise = pos;
			power *= 2;
			lam = 0;
		}
		prev = pos;
		pos = next;
		lam++;
	}
	return KMP_WALK_DONE;
}
