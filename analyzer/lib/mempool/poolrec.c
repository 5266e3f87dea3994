// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: a pool's record (struct mempool of series v5, v6 and v7) taken
 * apart by the layout: its members, its counters, whether two reads hold
 * the same pool.
 */
#include <inttypes.h>
#include <string.h>

#include "field.h"
#include "poolrule.h"
#include "poolwalk.h"

/*
 * The members of a pool record that a line prints or derives its values
 * from and that the kernel sets once, at mempool_init() (min_nr and the
 * array also at a resize): a pool that reads with other values in these
 * is another pool, freed and made again at the same address, or one that
 * changed under the walk.  The counters are not among them: they move
 * with every allocation, and a line takes them from one read.
 */
static size_t identity_fields(const struct kmp_layout *l, const struct kmp_field **out)
{
	const struct kmp_field *const id5[] = { &l->list_next, &l->list_prev, &l->name, &l->owner,
						&l->type, &l->elem_size, &l->min_nr, &l->elements,
						&l->instance };
	const struct kmp_field *const id6[] = { &l->list_next, &l->list_prev, &l->tag,
						&l->instance, &l->alloc, &l->pool_data, &l->min_nr,
						&l->elements, &l->id };
	/* series v7 adds the pool's id, its row's key */
	size_t n = l->v6 ? sizeof(id6) / sizeof(id6[0]) - (l->v7 ? 0 : 1) :
		   sizeof(id5) / sizeof(id5[0]) - (l->v12 ? 0 : 1);

	memcpy(out, l->v6 ? id6 : id5, n * sizeof(*out));
	return n;
}

/* Do the records @was and @now (read from @addr) hold the same pool?  Else @err (changed). */
bool kmp_poolrec_same(const struct kmp_layout *l, uint64_t addr, const unsigned char *was,
		      const unsigned char *now, struct kmp_err *err)
{
	const struct kmp_field *id[16];
	size_t n = identity_fields(l, id);
	uint64_t v0, v1;

	for (size_t i = 0; i < n; i++) {
		if (!kmp_field_get(was, l->pool_size, id[i], &v0, err) ||
		    !kmp_field_get(now, l->pool_size, id[i], &v1, err))
			return false;
		if (v0 != v1) {
			kmp_fault(err, KMP_ERR_CHANGED, addr, "mempool at 0x%" PRIx64 " changed while "
				  "it was read (%s)", addr, id[i]->name ? id[i]->name : "a member");
			return false;
		}
	}
	return true;
}

bool kmp_poolrec_counters(const struct kmp_layout *l, const unsigned char *buf,
			  struct kmp_pool *p, struct kmp_err *err)
{
	return kmp_field_sget(buf, l->pool_size, &l->min_nr, &p->min_nr, err) &&
	       kmp_field_sget(buf, l->pool_size, &l->curr_nr, &p->curr_nr, err) &&
	       kmp_field_sget(buf, l->pool_size, &l->low_nr, &p->low_nr, err) &&
	       kmp_field_get(buf, l->pool_size, &l->elements, &p->elements, err);
}

/*
 * What the kernel keeps under the pool's lock (low_nr: the series'): the
 * reserve holds 0 to min_nr elements, a zero-minimum pool's 0 or 1 since
 * Linux 6.17 (poolrule.h), and low_nr is the least it has held, so never
 * more than min_nr.  Not always at most curr_nr: mempool_resize() drops
 * the lock between the elements it frees when it shrinks a pool and sets
 * low_nr (and min_nr) only after the last, so until then curr_nr falls
 * below low_nr, a state /proc/mempool prints as it is.
 */
bool kmp_poolrec_counters_ok(const struct kmp_pool *p)
{
	return p->low_nr >= 0 && p->low_nr <= kmp_pool_capacity(p->min_nr, p->elements) &&
	       kmp_pool_curr_ok(p->min_nr, p->curr_nr, p->elements);
}

bool kmp_poolrec_read(const struct kmp_layout *l, const unsigned char *buf, struct kmp_poolrec *r,
		      struct kmp_err *err)
{
	size_t len = l->pool_size;

	memset(r, 0, sizeof(*r));
	if (l->v6)
		return (!l->v7 || kmp_field_get(buf, len, &l->id, &r->id, err)) &&
		       kmp_field_get(buf, len, &l->tag, &r->tag, err) &&
		       kmp_field_get(buf, len, &l->instance, &r->instance, err) &&
		       kmp_field_get(buf, len, &l->alloc, &r->alloc, err) &&
		       kmp_field_get(buf, len, &l->pool_data, &r->pool_data, err) &&
		       kmp_field_get(buf, len, &l->nr_reserve, &r->nr_reserve, err) &&
		       kmp_field_get(buf, len, &l->nr_wait, &r->nr_wait, err) &&
		       kmp_field_get(buf, len, &l->nr_fail, &r->nr_fail, err) &&
		       kmp_field_get(buf, len, &l->nr_empty, &r->nr_empty, err);
	return kmp_field_get(buf, len, &l->name, &r->name, err) &&
	       kmp_field_get(buf, len, &l->owner, &r->owner, err) &&
	       (!l->v12 || kmp_field_get(buf, len, &l->instance, &r->instance, err)) &&
	       kmp_field_sget(buf, len, &l->type, &r->type, err) &&
	       kmp_field_get(buf, len, &l->elem_size, &r->elem_size, err) &&
	       kmp_field_get(buf, len, &l->nr_reserve, &r->nr_reserve, err) &&
	       kmp_field_get(buf, len, &l->nr_wait, &r->nr_wait, err) &&
	       (!l->nr_fail.ok || !l->nr_empty.ok ||
		(kmp_field_get(buf, len, &l->nr_fail, &r->nr_fail, err) &&
		 kmp_field_get(buf, len, &l->nr_empty, &r->nr_empty, err)));
}

/*
 * Every member the walk takes from a pool's bytes, checked once before
 * the walk: a layout that does not fit is one error, not one per pool.
 */
bool kmp_poolrec_fits(const struct kmp_layout *l, struct kmp_err *err)
{
	const struct kmp_field *const fs[] = { &l->name, &l->owner, &l->type, &l->elem_size,
					       &l->nr_reserve, &l->nr_wait, &l->min_nr,
					       &l->curr_nr, &l->low_nr, &l->list_next,
					       &l->list_prev, &l->elements, &l->instance,
					       &l->nr_fail, &l->nr_empty };
	const struct kmp_field *const fs6[] = { &l->tag, &l->instance, &l->alloc, &l->pool_data,
						&l->nr_reserve, &l->nr_wait, &l->nr_fail,
						&l->nr_empty, &l->min_nr, &l->curr_nr, &l->low_nr,
						&l->list_next, &l->list_prev, &l->elements };
	size_t n = sizeof(fs) / sizeof(fs[0]) - 3;

	if (l->v6)
		return kmp_fields_fit(fs6, sizeof(fs6) / sizeof(fs6[0]), l->pool_size, err) &&
		       (!l->v7 || kmp_fields_fit((const struct kmp_field *const[]){ &l->id }, 1,
						 l->pool_size, err));
	if (l->v12)
		n++;
	if (!kmp_fields_fit(fs, n, l->pool_size, err))
		return false;
	return !l->nr_fail.ok || !l->nr_empty.ok || kmp_fields_fit(fs + 13, 2, l->pool_size, err);
}

/*
 * Is the wait queue of the pool whose bytes are @buf (read from @addr)
 * empty?  Its head's next pointer points at the head itself.
 */
bool kmp_poolrec_queue_empty(const struct kmp_layout *l, const unsigned char *buf, uint64_t addr)
{
	struct kmp_field next = { .off = l->wait_head.off + l->lh_next.off,
				  .size = l->lh_next.size, .ok = l->wait_head.ok && l->lh_next.ok };
	struct kmp_err why;
	uint64_t v;

	return next.off >= l->wait_head.off &&
	       kmp_field_get(buf, l->pool_size, &next, &v, &why) && v == addr + l->wait_head.off;
}
