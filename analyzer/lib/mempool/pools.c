// SPDX-License-Identifier: GPL-2.0
/* kmempool: the walk of mempool_list: each pool's record read, checked and sent to a sink. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "field.h"
#include "poolrule.h"
#include "poolwalk.h"
#include "readcache.h"
#include "tagname.h"
#include "waitq.h"
#include "walk.h"

long kmp_live_pause_ns = 2000000L;

static void emit_note(struct kmp_pools *st, const char *msg)
{
	kmp_note(&st->notes, "%s", msg);
}

void kmp_pw_note(struct kmp_pw *a, const char *fmt, ...)
{
	char msg[KMP_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!a->kept) {
		emit_note(a->st, msg);
	} else if (a->nkept < KMP_PW_NOTES_KEPT) {
		memcpy(a->kept[a->nkept++], msg, sizeof(msg));
	} else {
		a->dropped++;
	}
}

static void flush_notes(struct kmp_pw *a)
{
	char msg[KMP_ERRLEN];

	for (size_t i = 0; i < a->nkept; i++)
		emit_note(a->st, a->kept[i]);
	if (a->dropped) {
		snprintf(msg, sizeof(msg), "%zu more kmp_pw_note(s) like these not shown", a->dropped);
		emit_note(a->st, msg);
	}
	a->nkept = a->dropped = 0;
}

/*
 * Are @p's counters what the kernel keeps?  Live memory is read without
 * the pool's lock: an allocation between the reads of curr_nr and low_nr
 * breaks the rule for a moment, so the record is read again (three times
 * at most) before the pool is called corrupt.  True: *@bad says whether
 * the pool is left out (one note); false: @err is set (live: the pool
 * left the list while it was read).
 */
static bool check_counters(struct kmp_pw *a, uint64_t addr, struct kmp_pool *p,
			   bool *bad, struct kmp_err *err)
{
	struct kmp_err why;

	*bad = false;
	for (int i = 0; a->mem->live && !kmp_poolrec_counters_ok(p) && i < 3; i++) {
		if (!kmp_read(a->fresh, addr, a->again, a->l->pool_size, &why))
			break;
		/* Counters of another pool made at this address would tear the line. */
		if (!kmp_poolrec_same(a->l, addr, a->buf, a->again, err) ||
		    !kmp_poolrec_counters(a->l, a->again, p, err))
			return false;
	}
	if (kmp_poolrec_counters_ok(p))
		return true;
	if (a->mem->live && !kmp_pw_still_listed(a, addr, err))
		return false;
	kmp_pw_note(a, "mempool at 0x%" PRIx64 " left out as corrupt: its counters break 0 <= "
	     "curr_nr, low_nr <= %s (min_nr %" PRId64 ", curr_nr %" PRId64 ", low_nr %" PRId64
	     "; name %.64s)", addr, p->min_nr ? "min_nr" : kmp_pool_capacity(0, p->elements) ?
	     "1, a zero-minimum pool's one slot" : "0, a zero-minimum pool without slots",
	     p->min_nr, p->curr_nr, p->low_nr, p->name);
	a->st->skipped++;
	*bad = true;
	return true;
}

/* A pool that breaks a rule, left out with one note; on live memory, if it is still there. */
bool kmp_pw_left_out(struct kmp_pw *a, uint64_t addr, const char *why, struct kmp_err *err)
{
	if (a->mem->live && !kmp_pw_still_listed(a, addr, err))
		return false;
	kmp_pw_note(a, "mempool at 0x%" PRIx64 " left out as corrupt: %s", addr, why);
	a->st->skipped++;
	return true;
}

/*
 * Series v6: type and element size from the alloc function, as
 * mempool_type() derives them: 1, 0 (left out, noted) or -1 (@err).
 */
static int v6_type(struct kmp_pw *a, uint64_t addr, const struct kmp_poolrec *r,
		   struct kmp_pool *p, struct kmp_err *err)
{
	const struct kmp_v6fns *f = &a->st->clock.v6;
	const struct kmp_field *os = &a->l->kc_object_size;
	struct kmp_err why;
	char msg[128];

	p->type = "private";
	p->elem_size = 0;
	if (r->alloc && r->alloc == f->alloc_slab) {
		p->type = "slab";
		if (!os->ok) {
			kmp_seterr(err, KMP_ERR_FORMAT, "the debug info lacks kmem_cache.object_size: "
				   "the element size of a slab pool cannot be told");
			return -1;
		}
		if (!kmp_read_uint(a->mem, r->pool_data + os->off, os->size, &p->elem_size, &why)) {
			kmp_wraperr(err, &why, "kmem_cache at 0x%" PRIx64 " of mempool at 0x%" PRIx64
				    ": %s", r->pool_data, addr, why.msg);
			return -1;
		}
	} else if (r->alloc && r->alloc == f->kmalloc) {
		p->type = "kmalloc";
		p->elem_size = r->pool_data;
	} else if (r->alloc && r->alloc == f->alloc_pages) {
		p->type = "page";
		/* PAGE_SIZE << order: an order no shift can take is not a kernel's. */
		if (r->pool_data > 63) {
			snprintf(msg, sizeof(msg), "its page order %" PRId64 " is out of range",
				 (int64_t)r->pool_data);
			return kmp_pw_left_out(a, addr, msg, err) ? 0 : -1;
		}
		p->elem_size = (f->page_size ? f->page_size : 4096) << r->pool_data;
	}
	return 1;
}

/*
 * What is left of the pool at @addr (record @r, read into a->buf) once it
 * is known to be listed: its type, counters and queue, then the sink.
 * Frees @p's strings.
 */
bool kmp_pw_finish(struct kmp_pw *a, uint64_t addr, const struct kmp_poolrec *rec,
		   struct kmp_pool *pp, struct kmp_err *err)
{
	const struct kmp_layout *l = a->l;
	struct kmp_pool p = *pp;
	const struct kmp_poolrec r = *rec;
	struct kmp_queue_arg q = { 0 };
	struct kmp_err rerr;
	bool sent, bad = false;
	int ok;

	if (l->v6) {
		ok = v6_type(a, addr, &r, &p, err);
		if (ok <= 0) {
			kmp_pool_free_strings(&p);
			return ok == 0;
		}
	} else {
		p.type = kmp_type_name(l, r.type);
		p.elem_size = r.elem_size;
	}
	if (!kmp_poolrec_counters(l, a->buf, &p, err) || !check_counters(a, addr, &p, &bad, err) ||
	    bad) {
		kmp_pool_free_strings(&p);
		return bad;
	}
	p.nr_reserve = r.nr_reserve;
	p.nr_wait = r.nr_wait;
	p.v11 = l->nr_fail.ok && l->nr_empty.ok;
	p.nr_fail = r.nr_fail;
	p.nr_empty = r.nr_empty;
	p.v7 = l->v7;
	p.id = r.id;
	/* Format 1.2: the waiters' start times, if this walk knows the time and HZ. */
	q.ages = p.v12 && a->have_now && a->st->clock.hz;
	q.now = a->now;
	q.hz = a->st->clock.hz;
	q.only_wake = l->v6;
	q.wake = a->st->clock.v6.wake;
	/* A live queue changes as tasks come and go: count it again before giving up. */
	for (int i = a->mem->live ? 3 : 1; i > 0; i--) {
		/* An empty queue (its head points at itself, in the bytes just read) needs no walk. */
		if (i == (a->mem->live ? 3 : 1) &&
		    kmp_poolrec_queue_empty(l, a->mem->live ? a->again : a->buf, addr)) {
			q.n = q.oldest = 0;
			p.waiting_unknown = false;
			break;
		}
		p.waiting_unknown = !kmp_wait_queue_scan(a->fresh, l, addr, a->lim->max_waiters, &q,
						     &rerr);
		p.waiting = q.n;
		p.oldest_wait = q.oldest;
		if (!p.waiting_unknown)
			break;
	}
	/* Live: a queue that cannot be walked may be a pool that was just moved or freed. */
	if (p.waiting_unknown && a->mem->live && !kmp_pw_still_listed(a, addr, err)) {
		kmp_pool_free_strings(&p);
		return false;
	}
	if (p.waiting_unknown) {
		kmp_pw_note(a, "waiting count of mempool %s at 0x%" PRIx64 " is unknown (printed as "
		     "?): wait queue: %s", p.name, addr, rerr.msg);
		a->st->uncounted++;
		p.waiting = 0;
		p.oldest_unknown = p.v12;
		p.oldest_wait = 0;
	} else if (p.v12 && p.waiting && !q.ages) {
		kmp_pw_note(a, "how long the tasks on mempool %s at 0x%" PRIx64 " have waited is unknown "
		     "(printed as ?): %s", p.name, addr,
		     a->have_now ? "HZ unknown (the kernel has no tick_nsec, its jiffies clocksource "
		     "does not read as one, and jiffies_64's initial value is read from the vmlinux "
		     "file: give -s VMLINUX)" : "jiffies unreadable");
		a->st->uncounted++;
		p.oldest_unknown = true;
	}
	sent = a->sink->pool(&p, a->sink->arg, err);
	kmp_pool_free_strings(&p);
	return sent;
}

static bool pool_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	struct kmp_pw *a = arg;
	const struct kmp_layout *l = a->l;
	uint64_t addr = node - l->list.off;
	struct kmp_pool p = { .addr = addr };
	struct kmp_err rerr;
	struct kmp_pw_pending *pd;
	struct kmp_poolrec r;
	int ok;

	kmp_pw_free_strs(a->cur, &a->ncur);
	if (!kmp_read(a->mem, addr, a->buf, l->pool_size, &rerr)) {
		kmp_wraperr(err, &rerr, "unreadable mempool at 0x%" PRIx64 ": %s", addr, rerr.msg);
		return false;
	}
	if (!kmp_poolrec_read(l, a->buf, &r, err))
		return false;
	ok = l->v6 ? kmp_pw_v6_strings(a, addr, &r, &p, err) : kmp_pw_v5_strings(a, addr, &r, &p, err);
	if (ok <= 0) {
		kmp_pool_free_strings(&p);
		kmp_pw_free_strs(a->cur, &a->ncur);
		return ok == 0;
	}
	p.v12 = l->v12;
	if (!a->mem->live)
		return kmp_pw_finish(a, addr, &r, &p, err);
	/*
	 * Live: its strings are read; it is checked again with the pools read
	 * before it once there are KMP_PW_PENDING_MAX of them (one read a page).
	 */
	if (a->npend == KMP_PW_PENDING_MAX && !kmp_pw_flush_pending(a, err)) {
		kmp_pool_free_strings(&p);
		kmp_pw_free_strs(a->cur, &a->ncur);
		return false;
	}
	pd = &a->pend[a->npend++];
	pd->addr = addr;
	pd->r = r;
	pd->p = p;
	memcpy(pd->str, a->cur, sizeof(a->cur));
	pd->nstr = a->ncur;
	a->ncur = 0;
	memcpy(pd->buf, a->buf, l->pool_size);
	return true;
}

static bool retry_worth(const struct kmp_err *err)
{
	return err->kind != KMP_ERR_NOMEM && err->kind != KMP_ERR_OUTPUT &&
	       err->kind != KMP_ERR_FORMAT;
}

/*
 * Walk from the head until a walk ends well, or (live memory) up to
 * KMP_LIVE_ATTEMPTS times; the last walk's status, with @why and @last.
 * *@same: every failed walk failed the same way at the same place.
 * False with @err when a restart of the sink failed.
 */
static bool walk_attempts(struct kmp_pw *a, uint64_t head, enum kmp_walk_status *ws,
			  struct kmp_err *why, uint64_t *last, bool *same, struct kmp_err *err)
{
	const struct kmp_pool_sink *sink = a->sink;
	struct kmp_pools *st = a->st;
	struct kmp_err first = { 0 };

	st->attempts = 0;
	*same = true;
	while (st->attempts < (a->mem->live ? KMP_LIVE_ATTEMPTS : 1)) {
		if (st->attempts++) {
			struct timespec pause = { 0, kmp_live_pause_ns * st->attempts };

			if (pause.tv_nsec)
				nanosleep(&pause, NULL);
			if (sink->restart && !sink->restart(sink->arg, err))
				return false;
		}
		st->skipped = st->uncounted = 0;
		a->nkept = a->dropped = 0;
		if (a->rc)
			kmp_readcache_reset(a->rc);
		/* Nothing read for a pool outlives a walk that found the list changed. */
		if (st->attempts > 1)
			kmp_tagcache_reset(a->tags);
		/* Format 1.2: "now" for the waits, read again for each live walk. */
		a->have_now = a->l->v12 && st->clock.jiffies_addr &&
			      kmp_read_uint(a->fresh, st->clock.jiffies_addr, st->clock.jiffies_size,
					    &a->now, why);
		*ws = kmp_list_walk(a->mem, a->l, head, a->lim->max_pools, pool_visit, a, last,
				    why);
		/*
		 * Live: the pools read before the walk ended (or broke) are
		 * checked again and finished, as each would have been at once.
		 */
		if (a->npend) {
			struct kmp_err ferr = { 0 };

			if (!kmp_pw_flush_pending(a, &ferr)) {
				*ws = KMP_WALK_STOPPED;
				*why = ferr;
			}
		}
		kmp_pw_drop_pending(a);
		if (*ws == KMP_WALK_DONE || !a->mem->live || !retry_worth(why))
			break;
		/* The same failure at the same place every time is not a change. */
		if (st->attempts == 1)
			first = *why;
		else if (why->kind != first.kind || why->addr != first.addr ||
			 strcmp(why->msg, first.msg))
			*same = false;
	}
	return true;
}

/* The walk stopped at @last (@ws, @why): @err says where and why. */
static void walk_broken(const struct kmp_pw *a, enum kmp_walk_status ws,
			const struct kmp_err *why, uint64_t last, bool same, struct kmp_err *err)
{
	char what[KMP_ERRLEN + 64];
	bool live = a->mem->live && retry_worth(why);

	if (ws == KMP_WALK_STOPPED)
		snprintf(what, sizeof(what), "mempool_list entry after 0x%" PRIx64 ": %s", last,
			 why->msg);
	else
		snprintf(what, sizeof(what), "mempool_list: %s", why->msg);
	if (why->kind == KMP_ERR_OUTPUT || why->kind == KMP_ERR_NOMEM)
		*err = *why;	/* the caller's trouble, not the list's */
	else if (live && !same)
		kmp_fault(err, KMP_ERR_CHANGED, why->has_addr ? why->addr : last,
			  "changed while it was read (%u walks from the head); the last walk: %s",
			  a->st->attempts, what);
	else if (live)
		kmp_wraperr(err, why, "%s (the same in %u walks from the head)", what,
			    a->st->attempts);
	else
		kmp_wraperr(err, why, "%s", what);
}

/* A walk that reached the head again: complete, or pools left out or uncounted. */
static bool walk_done(const struct kmp_pw *a, struct kmp_err *err)
{
	const struct kmp_pools *st = a->st;

	if (a->mem->live && !st->skipped && st->uncounted) {
		kmp_seterr(err, KMP_ERR_CHANGED, "%zu wait queue(s) changed while read and could "
			   "not be counted (each named above, printed as ?); the rest of the report "
			   "is complete", st->uncounted);
		return false;
	}
	if (st->skipped || st->uncounted) {
		kmp_seterr(err, KMP_ERR_CORRUPT,
			   "%zu mempool(s) left out as corrupt, %zu wait queue(s) not counted "
			   "(each named above); the rest of the report is complete",
			   st->skipped, st->uncounted);
		return false;
	}
	return true;
}

bool kmp_walk_pools(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t head,
		    const struct kmp_limits *lim, const struct kmp_pool_sink *sink,
		    struct kmp_pools *st, struct kmp_err *err)
{
	struct kmp_pw a = { .mem = mem, .fresh = mem, .l = l, .lim = lim, .sink = sink,
			       .st = st };
	enum kmp_walk_status ws = KMP_WALK_BROKEN;
	size_t size = l->pool_size ? l->pool_size : 1;
	struct kmp_err why = { 0 };
	uint64_t last = head;
	bool same, ok = false;

	if (!kmp_poolrec_fits(l, err))
		return false;
	a.buf = malloc(size);
	a.again = malloc(size);
	if (l->v6)
		a.tags = calloc(1, sizeof(*a.tags));
	if (mem->live) {
		a.kept = calloc(KMP_PW_NOTES_KEPT, sizeof(*a.kept));
		a.rc = kmp_readcache_new(mem);
		if (a.rc)
			a.mem = &a.rc->mem;
		a.pend = calloc(KMP_PW_PENDING_MAX, sizeof(*a.pend));
		a.pend_bytes = malloc(KMP_PW_PENDING_MAX * 2 * size);
		a.spans = calloc(1, sizeof(*a.spans));
		for (size_t i = 0; a.pend && a.pend_bytes && i < KMP_PW_PENDING_MAX; i++)
			a.pend[i].buf = a.pend_bytes + i * 2 * size;
	}
	if (!a.buf || !a.again || (l->v6 && !a.tags) ||
	    (mem->live && (!a.kept || !a.rc || !a.pend || !a.pend_bytes || !a.spans)))
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
	else if (walk_attempts(&a, head, &ws, &why, &last, &same, err)) {
		flush_notes(&a);
		if (ws != KMP_WALK_DONE)
			walk_broken(&a, ws, &why, last, same, err);
		else
			ok = walk_done(&a, err);
	}
	free(a.buf);
	free(a.again);
	free(a.kept);
	free(a.pend);
	free(a.pend_bytes);
	kmp_spans_free(a.spans);
	kmp_readcache_free(a.rc);
	kmp_tagcache_free(a.tags);
	return ok;
}

static bool collect(const struct kmp_pool *p, void *arg, struct kmp_err *err)
{
	struct kmp_pools *out = arg;
	struct kmp_pool *q;

	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 64;
		struct kmp_pool *v = realloc(out->v, cap * sizeof(*v));

		if (!v) {
			kmp_seterr(err, KMP_ERR_NOMEM, "out of memory after %zu pools", out->n);
			return false;
		}
		out->v = v;
		out->cap = cap;
	}
	q = &out->v[out->n];
	*q = *p;
	if (!kmp_pool_dup_strings(q, p)) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory after %zu pools", out->n);
		return false;
	}
	out->n++;
	return true;
}

static bool collect_restart(void *arg, struct kmp_err *err)
{
	struct kmp_pools *out = arg;

	(void)err;
	for (size_t i = 0; i < out->n; i++)
		kmp_pool_free_strings(&out->v[i]);
	out->n = 0;
	return true;
}

bool kmp_read_pools(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t head,
		    const struct kmp_limits *lim, struct kmp_pools *out,
		    struct kmp_err *err)
{
	struct kmp_pool_sink sink = { collect, collect_restart, out };

	return kmp_walk_pools(mem, l, head, lim, &sink, out, err);
}

void kmp_pools_free(struct kmp_pools *p)
{
	for (size_t i = 0; i < p->n; i++)
		kmp_pool_free_strings(&p->v[i]);
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}
