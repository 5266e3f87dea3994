// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: live memory changes under the walk: a pool read from the list
 * is read again (with the pools before it in its page, one read) and its
 * strings compared before its line is made.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "poolwalk.h"
#include "readcache.h"

/*
 * Live memory: is the pool at @addr, whose record was read into a->buf and
 * again just now into a->again, still the same pool on the list?  Every
 * member its line is made of (identity_fields()) must read as before, and
 * the node before it must still point to it: its next pointer is taken
 * from @sp (read with a->again) when it is there, else read now.
 */
static bool same_and_linked(struct kmp_pw *a, uint64_t addr, const struct kmp_spans *sp,
			    struct kmp_err *err)
{
	const struct kmp_layout *l = a->l;
	size_t len = l->pool_size;
	uint64_t prev = 0, next = 0, prev_next = 0, at;
	struct kmp_err why;
	bool have = false;

	if (!kmp_poolrec_same(l, addr, a->buf, a->again, err))
		return false;
	if (!kmp_field_get(a->again, len, &l->list_prev, &prev, err) ||
	    !kmp_field_get(a->again, len, &l->list_next, &next, err))
		return false;
	at = prev + l->lh_next.off;
	if (sp) {
		const unsigned char *b = kmp_spans_get(sp, at, l->lh_next.size);
		struct kmp_field pn = { .off = 0, .size = l->lh_next.size, .ok = true };

		have = b && kmp_field_get(b, l->lh_next.size, &pn, &prev_next, &why);
	}
	/* list_del_init() leaves the node pointing at itself: gone from the list. */
	if (prev == addr + l->list.off || next == addr + l->list.off ||
	    (!have && !kmp_read_uint(a->fresh, at, l->lh_next.size, &prev_next, &why)) ||
	    prev_next != addr + l->list.off) {
		kmp_fault(err, KMP_ERR_CHANGED, addr, "mempool at 0x%" PRIx64 " left the list "
			  "while it was read", addr);
		return false;
	}
	return true;
}

/* Live memory: the pool at @addr read again now, and same_and_linked(). */
bool kmp_pw_still_listed(struct kmp_pw *a, uint64_t addr, struct kmp_err *err)
{
	struct kmp_err why;

	if (!kmp_read(a->fresh, addr, a->again, a->l->pool_size, &why)) {
		kmp_fault(err, KMP_ERR_CHANGED, addr, "mempool at 0x%" PRIx64 " changed while "
			  "it was read", addr);
		return false;
	}
	return same_and_linked(a, addr, NULL, err);
}

/*
 * The strings of the pending pools read again (one read when they share a
 * page): each must hold the bytes the walk read.  After the pools are
 * checked, so a string that was freed and reused under a pool made again
 * at the same address is not printed.
 */
static bool strings_same(struct kmp_pw *a, struct kmp_err *err)
{
	struct kmp_spans *sp = a->spans;
	struct kmp_err why;

	kmp_spans_reset(sp);
	for (size_t i = 0; i < a->npend; i++)
		for (size_t j = 0; j < a->pend[i].nstr; j++)
			kmp_spans_add(sp, a->pend[i].str[j].ptr, a->pend[i].str[j].len + 1);
	if (!kmp_spans_read(sp, a->fresh)) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	for (size_t i = 0; i < a->npend; i++) {
		for (size_t j = 0; j < a->pend[i].nstr; j++) {
			const struct kmp_pw_str *c = &a->pend[i].str[j];
			const unsigned char *b = kmp_spans_get(sp, c->ptr, c->len + 1);
			unsigned char *one = NULL;
			bool same;

			/* Not in a span (crossing a page): read alone. */
			if (!b && (one = malloc(c->len + 1)) &&
			    kmp_read(a->fresh, c->ptr, one, c->len + 1, &why))
				b = one;
			same = b && !memcmp(b, c->bytes, c->len + 1);
			free(one);
			if (!same) {
				kmp_fault(err, KMP_ERR_CHANGED, a->pend[i].addr, "mempool at 0x%"
					  PRIx64 " changed while it was read (a string at 0x%" PRIx64
					  ")", a->pend[i].addr, c->ptr);
				return false;
			}
		}
	}
	return true;
}

/*
 * Live memory: check the pending pools again with one read of the span
 * of their page that holds them (and the nodes before them, where those
 * lie in it), then finish them in list order.  On a page that cannot be
 * read so, each is read again alone.
 */
bool kmp_pw_flush_pending(struct kmp_pw *a, struct kmp_err *err)
{
	const struct kmp_layout *l = a->l;
	size_t size = l->pool_size, n = a->npend;
	struct kmp_spans *sp = a->spans;
	unsigned char *keep = a->buf;
	struct kmp_err why;
	bool ok = true;

	/* The records and the links before them, read now: one read a page. */
	kmp_spans_reset(sp);
	for (size_t i = 0; i < n; i++) {
		uint64_t prev;

		kmp_spans_add(sp, a->pend[i].addr, size);
		if (kmp_field_get(a->pend[i].buf, size, &l->list_prev, &prev, &why))
			kmp_spans_add(sp, prev + l->lh_next.off, l->lh_next.size);
	}
	if (!kmp_spans_read(sp, a->fresh)) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		ok = false;
	}
	/* Every pool checked again, then their strings, then each finished in list order. */
	for (size_t i = 0; ok && i < n; i++) {
		struct kmp_pw_pending *pd = &a->pend[i];
		const unsigned char *now = kmp_spans_get(sp, pd->addr, size);

		a->buf = pd->buf;
		if (now) {
			memcpy(a->again, now, size);
			ok = same_and_linked(a, pd->addr, sp, err);
		} else {
			ok = kmp_pw_still_listed(a, pd->addr, err);
		}
		memcpy(pd->buf + size, a->again, size);	/* the record as read again */
	}
	ok = ok && strings_same(a, err);
	for (size_t i = 0; i < n; i++) {
		struct kmp_pw_pending *pd = &a->pend[i];

		kmp_pw_free_strs(pd->str, &pd->nstr);
		if (!ok) {
			kmp_pool_free_strings(&pd->p);
			continue;
		}
		a->buf = pd->buf;
		memcpy(a->again, pd->buf + size, size);
		ok = kmp_pw_finish(a, pd->addr, &pd->r, &pd->p, err);
	}
	a->npend = 0;
	a->buf = keep;
	return ok;
}

void kmp_pw_drop_pending(struct kmp_pw *a)
{
	for (size_t i = 0; i < a->npend; i++) {
		kmp_pool_free_strings(&a->pend[i].p);
		kmp_pw_free_strs(a->pend[i].str, &a->pend[i].nstr);
	}
	a->npend = 0;
	kmp_pw_free_strs(a->cur, &a->ncur);
}
