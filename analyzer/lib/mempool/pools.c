// SPDX-License-Identifier: GPL-2.0
/* kmempool: read pool records and wait queues from kernel memory. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "field.h"
#include "namerule.h"
#include "poolrule.h"
#include "pools.h"
#include "readcache.h"
#include "tagname.h"
#include "walk.h"

/* A pool's wait queue: how many wait, and (format 1.2, @ages) the longest wait. */
struct queue_arg {
	struct kmp_mem *mem;
	const struct kmp_layout *l;
	bool ages;
	uint64_t now, hz;
	uint64_t wake;		/* series v6: count only entries with this wake function */
	bool only_wake;
	uint64_t n, oldest;
};

static bool wait_queue_scan(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
			    uint64_t max, struct queue_arg *q, struct kmp_err *why);

bool kmp_wait_queue_length_why(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
			       uint64_t wake, uint64_t max, uint64_t *n, struct kmp_err *why)
{
	struct queue_arg q = { .ages = false, .wake = wake, .only_wake = wake != 0 };
	bool ok = wait_queue_scan(mem, l, pool, max, &q, why);

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
static bool waiter_seconds(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t wqe,
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
	struct queue_arg *q = arg;
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
	if (!waiter_seconds(q->mem, q->l, node - q->l->wqe_entry.off, q->now, q->hz, &s, err))
		return false;
	if (s > q->oldest)
		q->oldest = s;
	return true;
}

static bool wait_queue_scan(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
			    uint64_t max, struct queue_arg *q, struct kmp_err *why)
{
	uint64_t last;

	q->mem = mem;
	q->l = l;
	q->n = q->oldest = 0;
	return kmp_list_walk(mem, l, pool + l->wait_head.off, max, queue_visit, q,
			     &last, why) == KMP_WALK_DONE;
}

#define NOTES_KEPT 16
#define PENDING_MAX 64
#define STRS_MAX 3		/* strings a pool's line shows: name, owner, instance */

struct record;
struct pending;

/* Live: a string as the walk read it, to be read again once its pool is checked. */
struct seen_str {
	uint64_t ptr;
	size_t len;		/* without the NUL */
	char *bytes;		/* malloc'ed, NUL-terminated */
};

long kmp_live_pause_ns = 2000000L;

struct pools_arg {
	/*
	 * Live memory: @mem reads through @rc, the pages of this walk
	 * attempt; @fresh is the reader itself, for what must be read now
	 * (is the pool still there, its counters and queue).  Otherwise both
	 * are the caller's reader.
	 */
	struct kmp_mem *mem, *fresh;
	struct kmp_readcache *rc;
	const struct kmp_layout *l;
	const struct kmp_limits *lim;
	const struct kmp_pool_sink *sink;
	struct kmp_pools *st;
	unsigned char *buf, *again;
	struct kmp_tagcache *tags;	/* series v6: the tags read in this walk */
	/*
	 * Live: pools read whose strings are read, not yet checked again;
	 * all in one page, so that one read checks them (flush_pending()).
	 */
	struct pending *pend;
	size_t npend;
	struct seen_str cur[STRS_MAX];	/* the strings of the pool being read */
	size_t ncur;
	unsigned char *pend_bytes;	/* PENDING_MAX records */
	struct kmp_spans *spans;	/* flush_pending()'s reads */
	bool have_now;		/* format 1.2: jiffies of this walk */
	uint64_t now;
	/* Notes of a live attempt are kept until it is known to be the last. */
	char (*kept)[KMP_ERRLEN];
	size_t nkept, dropped;
};

static void note(struct pools_arg *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void emit_note(struct kmp_pools *st, const char *msg)
{
	if (st->note)
		st->note(msg, st->note_arg);
	else
		fprintf(stderr, "kmempool: %s\n", msg);
}

static void note(struct pools_arg *a, const char *fmt, ...)
{
	char msg[KMP_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!a->kept) {
		emit_note(a->st, msg);
	} else if (a->nkept < NOTES_KEPT) {
		memcpy(a->kept[a->nkept++], msg, sizeof(msg));
	} else {
		a->dropped++;
	}
}

static void flush_notes(struct pools_arg *a)
{
	char msg[KMP_ERRLEN];

	for (size_t i = 0; i < a->nkept; i++)
		emit_note(a->st, a->kept[i]);
	if (a->dropped) {
		snprintf(msg, sizeof(msg), "%zu more note(s) like these not shown", a->dropped);
		emit_note(a->st, msg);
	}
	a->nkept = a->dropped = 0;
}

static void free_strs(struct seen_str *v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free(v[i].bytes);
	*n = 0;
}

/*
 * kmp_read_long_string() through the walk's reader; on live memory the
 * bytes are kept in a->cur, to be compared with a read made after the
 * pool is checked again (a pool freed and made again at the same address,
 * with the same links, tag and string address, shows in its string).
 */
static int read_str(struct pools_arg *a, uint64_t ptr, size_t max, char **s, size_t *len,
		    struct kmp_err *err)
{
	int rc = kmp_read_long_string(a->mem, ptr, max, s, len, err);

	if (rc == KMP_STR_OK && a->mem->live && a->ncur < STRS_MAX) {
		struct seen_str *c = &a->cur[a->ncur];

		c->bytes = malloc(*len + 1);
		if (!c->bytes) {
			free(*s);
			*s = NULL;
			kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
			return KMP_STR_NOMEM;
		}
		memcpy(c->bytes, *s, *len + 1);
		c->ptr = ptr;
		c->len = *len;
		a->ncur++;
	}
	return rc;
}

/*
 * Read the string of @what ("name", "owner") of the pool at @addr into
 * *@s.  Returns 1 if it is a valid name, 0 if it breaks the kernel's rule
 * (@why says how), -1 if it cannot be read (@err set).
 */
static int pool_string(struct pools_arg *a, uint64_t addr, const char *what, uint64_t ptr,
		       size_t max, char **s, char *why, size_t whylen, struct kmp_err *err)
{
	struct kmp_err rerr;
	size_t len = 0;

	switch (read_str(a, ptr, max, s, &len, &rerr)) {
	case KMP_STR_OK:
		break;
	case KMP_STR_TOO_LONG:
		snprintf(why, whylen, "has no NUL within %zu bytes", max);
		return 0;
	default:
		kmp_wraperr(err, &rerr, "%s of mempool at 0x%" PRIx64 ": %s", what, addr, rerr.msg);
		return -1;
	}
	if (!kmp_name_ok(*s, len, why, whylen)) {
		free(*s);
		*s = NULL;
		return 0;
	}
	return 1;
}

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
static bool same_identity(const struct kmp_layout *l, uint64_t addr, const unsigned char *was,
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

/*
 * Live memory: is the pool at @addr, whose record was read into a->buf and
 * again just now into a->again, still the same pool on the list?  Every
 * member its line is made of (identity_fields()) must read as before, and
 * the node before it must still point to it: its next pointer is taken
 * from @sp (read with a->again) when it is there, else read now.
 */
static bool same_and_linked(struct pools_arg *a, uint64_t addr, const struct kmp_spans *sp,
			    struct kmp_err *err)
{
	const struct kmp_layout *l = a->l;
	size_t len = l->pool_size;
	uint64_t prev = 0, next = 0, prev_next = 0, at;
	struct kmp_err why;
	bool have = false;

	if (!same_identity(l, addr, a->buf, a->again, err))
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
static bool still_listed(struct pools_arg *a, uint64_t addr, struct kmp_err *err)
{
	struct kmp_err why;

	if (!kmp_read(a->fresh, addr, a->again, a->l->pool_size, &why)) {
		kmp_fault(err, KMP_ERR_CHANGED, addr, "mempool at 0x%" PRIx64 " changed while "
			  "it was read", addr);
		return false;
	}
	return same_and_linked(a, addr, NULL, err);
}

/* A string that breaks the rule: on live memory, first make sure the pool is still there. */
static bool bad_string(struct pools_arg *a, uint64_t addr, const char *what, uint64_t ptr,
		       const char *why, struct kmp_err *err)
{
	if (a->mem->live && !still_listed(a, addr, err))
		return false;
	if (!ptr)
		note(a, "mempool at 0x%" PRIx64 " left out as corrupt: it has no %s (NULL "
		     "pointer)", addr, what);
	else
		note(a, "mempool at 0x%" PRIx64 " left out as corrupt: its %s at 0x%" PRIx64
		     " %s", addr, what, ptr, why);
	a->st->skipped++;
	return true;
}

static bool read_counters(const struct kmp_layout *l, const unsigned char *buf,
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
 * Linux 6.17 (poolrule.h), and low_nr is the least it has held.
 */
static bool counters_ok(const struct kmp_pool *p)
{
	return p->low_nr >= 0 && p->low_nr <= p->curr_nr &&
	       kmp_pool_curr_ok(p->min_nr, p->curr_nr, p->elements);
}

/*
 * Are @p's counters what the kernel keeps?  Live memory is read without
 * the pool's lock: an allocation between the reads of curr_nr and low_nr
 * breaks the rule for a moment, so the record is read again (three times
 * at most) before the pool is called corrupt.  True: *@bad says whether
 * the pool is left out (one note); false: @err is set (live: the pool
 * left the list while it was read).
 */
static bool check_counters(struct pools_arg *a, uint64_t addr, struct kmp_pool *p,
			   bool *bad, struct kmp_err *err)
{
	struct kmp_err why;

	*bad = false;
	for (int i = 0; a->mem->live && !counters_ok(p) && i < 3; i++) {
		if (!kmp_read(a->fresh, addr, a->again, a->l->pool_size, &why))
			break;
		/* Counters of another pool made at this address would tear the line. */
		if (!same_identity(a->l, addr, a->buf, a->again, err) ||
		    !read_counters(a->l, a->again, p, err))
			return false;
	}
	if (counters_ok(p))
		return true;
	if (a->mem->live && !still_listed(a, addr, err))
		return false;
	note(a, "mempool at 0x%" PRIx64 " left out as corrupt: its counters break 0 <= low_nr "
	     "<= curr_nr <= %s (min_nr %" PRId64 ", curr_nr %" PRId64 ", low_nr %" PRId64
	     "; name %.64s)", addr, p->min_nr ? "min_nr" : kmp_pool_capacity(0, p->elements) ?
	     "1, a zero-minimum pool's one slot" : "0, a zero-minimum pool without slots",
	     p->min_nr, p->curr_nr, p->low_nr, p->name);
	a->st->skipped++;
	*bad = true;
	return true;
}

/* The members of a pool record that are not its counters, from its bytes (field.h). */
struct record {
	uint64_t name, owner, instance, elem_size, nr_reserve, nr_wait, nr_fail, nr_empty;
	int64_t type;
	uint64_t tag, alloc, pool_data;		/* series v6 */
	uint64_t id;				/* series v7 */
};

static bool pool_record(const struct kmp_layout *l, const unsigned char *buf, struct record *r,
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
static bool record_fits(const struct kmp_layout *l, struct kmp_err *err)
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

/* A pool that breaks a rule, left out with one note; on live memory, if it is still there. */
static bool left_out(struct pools_arg *a, uint64_t addr, const char *why, struct kmp_err *err)
{
	if (a->mem->live && !still_listed(a, addr, err))
		return false;
	note(a, "mempool at 0x%" PRIx64 " left out as corrupt: %s", addr, why);
	a->st->skipped++;
	return true;
}

/* Series 5's strings (name, owner, instance): 1, 0 (left out, noted) or -1 (@err). */
static int v5_strings(struct pools_arg *a, uint64_t addr, const struct record *r,
		      struct kmp_pool *p, struct kmp_err *err)
{
	char *owner_s = NULL, why[128];
	int ok;

	if (!r->name)
		return bad_string(a, addr, "name", r->name, "is a NULL pointer", err) ? 0 : -1;
	ok = pool_string(a, addr, "name", r->name, KMP_NAME_MAX, &p->name, why, sizeof(why), err);
	if (ok <= 0)
		return ok == 0 && bad_string(a, addr, "name", r->name, why, err) ? 0 : -1;
	if (!r->owner) {
		snprintf(p->owner, sizeof(p->owner), "-");
	} else {
		ok = pool_string(a, addr, "owner", r->owner, KMP_OWNER_MAX, &owner_s, why,
				 sizeof(why), err);
		if (ok <= 0)
			return ok == 0 && bad_string(a, addr, "owner", r->owner, why, err) ? 0 : -1;
		snprintf(p->owner, sizeof(p->owner), "%s", owner_s);
		free(owner_s);
	}
	if (r->instance) {
		ok = pool_string(a, addr, "instance", r->instance, KMP_NAME_MAX, &p->instance, why,
				 sizeof(why), err);
		if (ok <= 0)
			return ok == 0 && bad_string(a, addr, "instance", r->instance, why, err) ?
			       0 : -1;
	} else if (!(p->instance = strdup("-"))) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return -1;
	}
	return 1;
}

/*
 * Series v6's strings, from the pool's tag and its instance, escaped as
 * mempool_seq_show() prints them: 1, 0 (left out, noted) or -1 (@err).
 */
static int v6_strings(struct pools_arg *a, uint64_t addr, const struct record *r,
		      struct kmp_pool *p, struct kmp_err *err)
{
	struct kmp_tagstrs *ts;
	char why[256], *inst = NULL;
	struct kmp_err rerr;
	size_t len;
	int ok;

	if (!r->tag && a->l->v7)
		return 0;	/* series v7: a /proc/mempool reader's cursor */
	if (!r->tag)
		return left_out(a, addr, "it has no tag (NULL pointer)", err) ? 0 : -1;
	ok = kmp_tag_read_cached(a->tags, a->mem, a->l, r->tag, &ts, why, sizeof(why), err);
	if (ok <= 0)
		return ok == 0 && left_out(a, addr, why, err) ? 0 : -1;
	if (r->instance) {
		switch (read_str(a, r->instance, KMP_NAME_MAX, &inst, &len, &rerr)) {
		case KMP_STR_OK:
			break;
		case KMP_STR_TOO_LONG:
			kmp_tagstrs_put(ts);
			snprintf(why, sizeof(why), "its instance at 0x%" PRIx64 " has no NUL within %d "
				 "bytes", r->instance, KMP_NAME_MAX);
			return left_out(a, addr, why, err) ? 0 : -1;
		default:
			kmp_tagstrs_put(ts);
			kmp_wraperr(err, &rerr, "instance of mempool at 0x%" PRIx64 ": %s", addr,
				    rerr.msg);
			return -1;
		}
	}
	p->instance = inst ? kmp_escape_word_take(inst) : kmp_escape_word("-");
	/* snprintf("%s")'s copy, cut to the buffer, without printf's cost a pool. */
	len = strnlen(ts->t.owner, sizeof(p->owner) - 1);
	memcpy(p->owner, ts->t.owner, len);
	p->owner[len] = '\0';
	p->tagstrs = ts;
	p->name = ts->t.name;
	p->site = ts->t.site;
	p->function = ts->t.function;
	p->file = ts->t.file;
	p->kind = ts->t.kind;
	p->line = ts->t.line;
	p->v6 = true;
	if (!p->instance) {
		kmp_pool_free_strings(p);
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return -1;
	}
	return 1;
}

/*
 * Series v6: type and element size from the alloc function, as
 * mempool_type() derives them: 1, 0 (left out, noted) or -1 (@err).
 */
static int v6_type(struct pools_arg *a, uint64_t addr, const struct record *r,
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
			return left_out(a, addr, msg, err) ? 0 : -1;
		}
		p->elem_size = (f->page_size ? f->page_size : 4096) << r->pool_data;
	}
	return 1;
}

/*
 * Is the wait queue of the pool whose bytes are @buf (read from @addr)
 * empty?  Its head's next pointer points at the head itself.
 */
static bool queue_empty(const struct kmp_layout *l, const unsigned char *buf, uint64_t addr)
{
	struct kmp_field next = { .off = l->wait_head.off + l->lh_next.off,
				  .size = l->lh_next.size, .ok = l->wait_head.ok && l->lh_next.ok };
	struct kmp_err why;
	uint64_t v;

	return next.off >= l->wait_head.off &&
	       kmp_field_get(buf, l->pool_size, &next, &v, &why) && v == addr + l->wait_head.off;
}

/*
 * What is left of the pool at @addr (record @r, read into a->buf) once it
 * is known to be listed: its type, counters and queue, then the sink.
 * Frees @p's strings.
 */
static bool pool_finish(struct pools_arg *a, uint64_t addr, const struct record *rec,
			struct kmp_pool *pp, struct kmp_err *err)
{
	const struct kmp_layout *l = a->l;
	struct kmp_pool p = *pp;
	const struct record r = *rec;
	struct queue_arg q = { 0 };
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
	if (!read_counters(l, a->buf, &p, err) || !check_counters(a, addr, &p, &bad, err) ||
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
		    queue_empty(l, a->mem->live ? a->again : a->buf, addr)) {
			q.n = q.oldest = 0;
			p.waiting_unknown = false;
			break;
		}
		p.waiting_unknown = !wait_queue_scan(a->fresh, l, addr, a->lim->max_waiters, &q,
						     &rerr);
		p.waiting = q.n;
		p.oldest_wait = q.oldest;
		if (!p.waiting_unknown)
			break;
	}
	/* Live: a queue that cannot be walked may be a pool that was just moved or freed. */
	if (p.waiting_unknown && a->mem->live && !still_listed(a, addr, err)) {
		kmp_pool_free_strings(&p);
		return false;
	}
	if (p.waiting_unknown) {
		note(a, "waiting count of mempool %s at 0x%" PRIx64 " is unknown (printed as "
		     "?): wait queue: %s", p.name, addr, rerr.msg);
		a->st->uncounted++;
		p.waiting = 0;
		p.oldest_unknown = p.v12;
		p.oldest_wait = 0;
	} else if (p.v12 && p.waiting && !q.ages) {
		note(a, "how long the tasks on mempool %s at 0x%" PRIx64 " have waited is unknown "
		     "(printed as ?): %s", p.name, addr,
		     a->have_now ? "HZ unknown (the kernel has no tick_nsec, and jiffies_64's initial value is "
		     "read from the vmlinux file: give -s VMLINUX)" : "jiffies unreadable");
		a->st->uncounted++;
		p.oldest_unknown = true;
	}
	sent = a->sink->pool(&p, a->sink->arg, err);
	kmp_pool_free_strings(&p);
	return sent;
}

struct pending {
	uint64_t addr;
	struct record r;
	struct kmp_pool p;
	unsigned char *buf;		/* its record as read */
	struct seen_str str[STRS_MAX];	/* its strings as read */
	size_t nstr;
};

/*
 * The strings of the pending pools read again (one read when they share a
 * page): each must hold the bytes the walk read.  After the pools are
 * checked, so a string that was freed and reused under a pool made again
 * at the same address is not printed.
 */
static bool strings_same(struct pools_arg *a, struct kmp_err *err)
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
			const struct seen_str *c = &a->pend[i].str[j];
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
static bool flush_pending(struct pools_arg *a, struct kmp_err *err)
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
		struct pending *pd = &a->pend[i];
		const unsigned char *now = kmp_spans_get(sp, pd->addr, size);

		a->buf = pd->buf;
		if (now) {
			memcpy(a->again, now, size);
			ok = same_and_linked(a, pd->addr, sp, err);
		} else {
			ok = still_listed(a, pd->addr, err);
		}
		memcpy(pd->buf + size, a->again, size);	/* the record as read again */
	}
	ok = ok && strings_same(a, err);
	for (size_t i = 0; i < n; i++) {
		struct pending *pd = &a->pend[i];

		free_strs(pd->str, &pd->nstr);
		if (!ok) {
			kmp_pool_free_strings(&pd->p);
			continue;
		}
		a->buf = pd->buf;
		memcpy(a->again, pd->buf + size, size);
		ok = pool_finish(a, pd->addr, &pd->r, &pd->p, err);
	}
	a->npend = 0;
	a->buf = keep;
	return ok;
}

static void drop_pending(struct pools_arg *a)
{
	for (size_t i = 0; i < a->npend; i++) {
		kmp_pool_free_strings(&a->pend[i].p);
		free_strs(a->pend[i].str, &a->pend[i].nstr);
	}
	a->npend = 0;
	free_strs(a->cur, &a->ncur);
}

static bool pool_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	struct pools_arg *a = arg;
	const struct kmp_layout *l = a->l;
	uint64_t addr = node - l->list.off;
	struct kmp_pool p = { .addr = addr };
	struct kmp_err rerr;
	struct pending *pd;
	struct record r;
	int ok;

	free_strs(a->cur, &a->ncur);
	if (!kmp_read(a->mem, addr, a->buf, l->pool_size, &rerr)) {
		kmp_wraperr(err, &rerr, "unreadable mempool at 0x%" PRIx64 ": %s", addr, rerr.msg);
		return false;
	}
	if (!pool_record(l, a->buf, &r, err))
		return false;
	ok = l->v6 ? v6_strings(a, addr, &r, &p, err) : v5_strings(a, addr, &r, &p, err);
	if (ok <= 0) {
		kmp_pool_free_strings(&p);
		free_strs(a->cur, &a->ncur);
		return ok == 0;
	}
	p.v12 = l->v12;
	if (!a->mem->live)
		return pool_finish(a, addr, &r, &p, err);
	/*
	 * Live: its strings are read; it is checked again with the pools read
	 * before it once there are PENDING_MAX of them (one read a page).
	 */
	if (a->npend == PENDING_MAX && !flush_pending(a, err)) {
		kmp_pool_free_strings(&p);
		free_strs(a->cur, &a->ncur);
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
static bool walk_attempts(struct pools_arg *a, uint64_t head, enum kmp_walk_status *ws,
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

			if (!flush_pending(a, &ferr)) {
				*ws = KMP_WALK_STOPPED;
				*why = ferr;
			}
		}
		drop_pending(a);
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
static void walk_broken(const struct pools_arg *a, enum kmp_walk_status ws,
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
static bool walk_done(const struct pools_arg *a, struct kmp_err *err)
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
	struct pools_arg a = { .mem = mem, .fresh = mem, .l = l, .lim = lim, .sink = sink,
			       .st = st };
	enum kmp_walk_status ws = KMP_WALK_BROKEN;
	size_t size = l->pool_size ? l->pool_size : 1;
	struct kmp_err why = { 0 };
	uint64_t last = head;
	bool same, ok = false;

	if (!record_fits(l, err))
		return false;
	a.buf = malloc(size);
	a.again = malloc(size);
	if (l->v6)
		a.tags = calloc(1, sizeof(*a.tags));
	if (mem->live) {
		a.kept = calloc(NOTES_KEPT, sizeof(*a.kept));
		a.rc = kmp_readcache_new(mem);
		if (a.rc)
			a.mem = &a.rc->mem;
		a.pend = calloc(PENDING_MAX, sizeof(*a.pend));
		a.pend_bytes = malloc(PENDING_MAX * 2 * size);
		a.spans = calloc(1, sizeof(*a.spans));
		for (size_t i = 0; a.pend && a.pend_bytes && i < PENDING_MAX; i++)
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

void kmp_pool_free_strings(struct kmp_pool *p)
{
	free(p->instance);
	if (p->tagstrs) {
		kmp_tagstrs_put(p->tagstrs);
	} else {
		free(p->name);
		free(p->site);
		free(p->function);
		free(p->file);
		free(p->kind);
	}
	p->name = p->instance = p->site = p->function = p->file = p->kind = NULL;
	p->tagstrs = NULL;
}

/* A copy of @s, or NULL for NULL; false when out of memory. */
static bool dup_or_null(char **out, const char *s)
{
	*out = s ? strdup(s) : NULL;
	return !s || *out;
}

bool kmp_pool_dup_strings(struct kmp_pool *q, const struct kmp_pool *p)
{
	bool ok = dup_or_null(&q->instance, p->instance);

	if (p->tagstrs) {
		/* The tag's block is shared: another reference, the same pointers. */
		q->tagstrs = kmp_tagstrs_get(p->tagstrs);
	} else {
		q->tagstrs = NULL;
		ok = dup_or_null(&q->name, p->name) && ok;
		ok = dup_or_null(&q->site, p->site) && ok;
		ok = dup_or_null(&q->function, p->function) && ok;
		ok = dup_or_null(&q->file, p->file) && ok;
		ok = dup_or_null(&q->kind, p->kind) && ok;
	}
	if (!ok)
		kmp_pool_free_strings(q);
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

struct waiters_arg {
	struct kmp_mem *mem;
	const struct kmp_layout *l;
	kmp_waiter_fn fn;
	void *arg;
	bool ages;
	uint64_t now, hz;
	uint64_t wake;		/* series v6: only entries with this wake function */
};

static bool waiter_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	struct waiters_arg *a = arg;
	const struct kmp_layout *l = a->l;
	uint64_t wqe = node - l->wqe_entry.off;
	struct kmp_waiter w = { 0 };
	struct kmp_err why;
	uint64_t func;

	if (l->v6) {
		if (!kmp_read_uint(a->mem, wqe + l->wqe_func.off, l->wqe_func.size, &func, &why)) {
			kmp_wraperr(err, &why, "wait queue entry 0x%" PRIx64 ": %s", wqe, why.msg);
			return false;
		}
		if (func != a->wake)
			return true;	/* not a mempool_alloc() waiter */
	}
	if (!kmp_read_uint(a->mem, wqe + l->wqe_private.off, l->wqe_private.size,
			   &w.task, &why)) {
		kmp_wraperr(err, &why, "wait queue entry 0x%" PRIx64 ": %s", wqe, why.msg);
		return false;
	}
	if (!kmp_read_int(a->mem, w.task + l->task_pid.off, l->task_pid.size, &w.pid, &why) ||
	    !kmp_read_uint(a->mem, w.task + l->task_state.off, l->task_state.size,
			   &w.state, &why) ||
	    !kmp_read_string(a->mem, w.task + l->task_comm.off, w.comm,
			     l->task_comm.size < sizeof(w.comm) ? l->task_comm.size + 1 :
			     sizeof(w.comm), &why)) {
		kmp_wraperr(err, &why, "task 0x%" PRIx64 " waiting at 0x%" PRIx64 ": %s", w.task,
			   wqe, why.msg);
		return false;
	}
	kmp_comm_clean(w.comm);
	if (a->ages) {
		if (!waiter_seconds(a->mem, l, wqe, a->now, a->hz, &w.waited, err))
			return false;
		w.have_waited = true;
	}
	a->fn(&w, a->arg);
	return true;
}

bool kmp_read_waiters(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
		      const struct kmp_limits *lim, const struct kmp_clock *clock,
		      kmp_waiter_fn fn, void *arg, struct kmp_err *err)
{
	struct waiters_arg a = { mem, l, fn, arg, false, 0, 0, clock ? clock->v6.wake : 0 };
	struct kmp_err why;
	uint64_t last;

	if (l->v12 && clock && clock->hz && clock->jiffies_addr)
		a.ages = kmp_read_uint(mem, clock->jiffies_addr, clock->jiffies_size, &a.now, &why);
	a.hz = clock ? clock->hz : 0;

	if (!l->have_tasks) {
		kmp_seterr(err, KMP_ERR_FORMAT, "the debug info lacks wait_queue_entry or task_struct "
			   "members: the tasks waiting on a pool cannot be read");
		return false;
	}
	if (kmp_list_walk(mem, l, pool + l->wait_head.off, lim->max_waiters,
			  waiter_visit, &a, &last, &why) == KMP_WALK_DONE)
		return true;
	kmp_wraperr(err, &why, "wait queue of mempool at 0x%" PRIx64 ": %s", pool, why.msg);
	return false;
}

const char *kmp_task_state(uint64_t state)
{
	/* The TASK_* bits of include/linux/sched.h, as /proc/PID/stat shows them. */
	if ((state & 0x0002) && (state & 0x0400))
		return "I (idle)";
	if (state & 0x0002)
		return "D (uninterruptible)";
	if (state & 0x0001)
		return "S (sleeping)";
	if (state & 0x0004)
		return "T (stopped)";
	if (state & 0x0008)
		return "t (traced)";
	if (state & 0x0020)
		return "Z (zombie)";
	if (state & 0x0010)
		return "X (dead)";
	if (state == 0)
		return "R (running)";
	return "? (unknown)";
}
