// SPDX-License-Identifier: GPL-2.0
/* kmempool: read pool records and wait queues from kernel memory. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "pools.h"
#include "walk.h"



struct count_arg {
	uint64_t n;
};

static bool count_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	(void)node;
	(void)err;
	((struct count_arg *)arg)->n++;
	return true;
}

bool kmp_wait_queue_length(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
			   uint64_t max, uint64_t *n)
{
	struct count_arg cnt = { 0 };
	struct kmp_err why;
	uint64_t last;
	bool ok = kmp_list_walk(mem, l, pool + l->wait.off + l->wqh_head.off, max, count_visit,
				&cnt, &last, &why) == KMP_WALK_DONE;

	*n = cnt.n;
	return ok;
}

struct pools_arg {
	struct kmp_mem *mem;
	const struct kmp_layout *l;
	const struct kmp_limits *lim;
	struct kmp_pools *out;
	unsigned char *buf;
};

static void note(struct kmp_pools *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct kmp_pools *out, const char *fmt, ...)
{
	char msg[KMP_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (out->note)
		out->note(msg, out->note_arg);
	else
		fprintf(stderr, "kmempool: %s\n", msg);
}

enum { STR_OK, STR_TOO_LONG, STR_FAULT, STR_NOMEM };

/*
 * Read the NUL-terminated string at @addr, of any length below @max, into
 * a malloc'ed buffer (*@out, with its length in *@len).  Reads in chunks
 * that end at 64-byte boundaries, so a short string just before an
 * unreadable page is read.  STR_FAULT: @err says which address failed.
 */
static int read_long_string(struct kmp_mem *mem, uint64_t addr, size_t max, char **out,
			    size_t *len, struct kmp_err *err)
{
	size_t done = 0, cap = 0;
	char *buf = NULL;

	*out = NULL;
	while (done < max) {
		size_t chunk = 64 - ((addr + done) & 63);
		char *nul;

		if (chunk > max - done)
			chunk = max - done;
		if (done + chunk > cap) {
			size_t ncap = cap ? cap * 2 : 128;
			char *nbuf;

			while (ncap < done + chunk)
				ncap *= 2;
			nbuf = realloc(buf, ncap);
			if (!nbuf) {
				free(buf);
				kmp_seterr(err, "out of memory reading a string of %zu bytes", done);
				return STR_NOMEM;
			}
			buf = nbuf;
			cap = ncap;
		}
		if (!kmp_read(mem, addr + done, buf + done, chunk, err)) {
			free(buf);
			return STR_FAULT;
		}
		nul = memchr(buf + done, '\0', chunk);
		if (nul) {
			*len = (size_t)(nul - buf);
			*out = buf;
			return STR_OK;
		}
		done += chunk;
	}
	free(buf);
	return STR_TOO_LONG;
}

/*
 * Read the string of @what ("name", "owner") of the pool at @addr into
 * *@s.  Returns 1 if it is a valid name, 0 if the pool is corrupt (noted,
 * counted as skipped), -1 if it cannot be read (@err set: the walk ends).
 */
static int pool_string(struct pools_arg *a, uint64_t addr, const char *what, uint64_t ptr,
		       size_t max, char **s, struct kmp_err *err)
{
	char why[128];
	struct kmp_err rerr;
	size_t len = 0;

	switch (read_long_string(a->mem, ptr, max, s, &len, &rerr)) {
	case STR_OK:
		break;
	case STR_TOO_LONG:
		note(a->out, "mempool at 0x%" PRIx64 " left out as corrupt: its %s at 0x%"
		     PRIx64 " has no NUL within %zu bytes", addr, what, ptr, max);
		a->out->skipped++;
		return 0;
	default:
		kmp_seterr(err, "%s of mempool at 0x%" PRIx64 ": %s", what, addr, rerr.msg);
		return -1;
	}
	if (!kmp_name_ok(*s, len, why, sizeof(why))) {
		note(a->out, "mempool at 0x%" PRIx64 " left out as corrupt: its %s at 0x%"
		     PRIx64 " %s", addr, what, ptr, why);
		free(*s);
		*s = NULL;
		a->out->skipped++;
		return 0;
	}
	return 1;
}

static bool pool_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	struct pools_arg *a = arg;
	const struct kmp_layout *l = a->l;
	uint64_t addr = node - l->list.off, name, owner;
	struct count_arg cnt = { 0 };
	char *owner_s = NULL;
	struct kmp_err why;
	struct kmp_pool *p;
	uint64_t last;
	int ok;

	if (a->out->n == a->out->cap) {
		size_t cap = a->out->cap ? a->out->cap * 2 : 64;
		struct kmp_pool *v = realloc(a->out->v, cap * sizeof(*v));

		if (!v) {
			kmp_seterr(err, "out of memory after %zu pools", a->out->n);
			return false;
		}
		a->out->v = v;
		a->out->cap = cap;
	}
	p = &a->out->v[a->out->n];
	memset(p, 0, sizeof(*p));
	p->addr = addr;
	if (!kmp_read(a->mem, addr, a->buf, l->pool_size, &why)) {
		kmp_seterr(err, "unreadable mempool at 0x%" PRIx64 ": %s", addr, why.msg);
		return false;
	}
	name = kmp_field_uint(a->buf, &l->name);
	owner = kmp_field_uint(a->buf, &l->owner);
	if (!name) {
		note(a->out, "mempool at 0x%" PRIx64 " left out as corrupt: it has no name "
		     "(NULL pointer)", addr);
		a->out->skipped++;
		return true;
	}
	ok = pool_string(a, addr, "name", name, KMP_NAME_MAX, &p->name, err);
	if (ok <= 0)
		return ok == 0;
	if (!owner) {
		snprintf(p->owner, sizeof(p->owner), "-");
	} else {
		ok = pool_string(a, addr, "owner", owner, KMP_OWNER_MAX, &owner_s, err);
		if (ok <= 0) {
			free(p->name);
			p->name = NULL;
			return ok == 0;
		}
		snprintf(p->owner, sizeof(p->owner), "%s", owner_s);
		free(owner_s);
	}
	p->type = kmp_type_name(l, kmp_field_int(a->buf, &l->type));
	p->elem_size = kmp_field_uint(a->buf, &l->elem_size);
	p->min_nr = kmp_field_int(a->buf, &l->min_nr);
	p->curr_nr = kmp_field_int(a->buf, &l->curr_nr);
	p->low_nr = kmp_field_int(a->buf, &l->low_nr);
	p->nr_reserve = kmp_field_uint(a->buf, &l->nr_reserve);
	p->nr_wait = kmp_field_uint(a->buf, &l->nr_wait);
	p->v11 = l->nr_fail.ok && l->nr_empty.ok;
	p->nr_fail = p->v11 ? kmp_field_uint(a->buf, &l->nr_fail) : 0;
	p->nr_empty = p->v11 ? kmp_field_uint(a->buf, &l->nr_empty) : 0;
	if (kmp_list_walk(a->mem, l, addr + l->wait.off + l->wqh_head.off,
			  a->lim->max_waiters, count_visit, &cnt, &last, &why) != KMP_WALK_DONE) {
		note(a->out, "waiting count of mempool %s at 0x%" PRIx64 " is incomplete "
		     "(printed as the %" PRIu64 " entries read): wait queue: %s", p->name,
		     addr, cnt.n, why.msg);
		a->out->uncounted++;
	}
	p->waiting = cnt.n;
	a->out->n++;
	return true;
}

int kmp_read_pools(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t head,
		   const struct kmp_limits *lim, struct kmp_pools *out,
		   struct kmp_err *err)
{
	struct pools_arg a = { mem, l, lim, out, malloc(l->pool_size ? l->pool_size : 1) };
	enum kmp_walk_status st;
	struct kmp_err why;
	uint64_t last;

	if (!a.buf) {
		kmp_seterr(err, "out of memory");
		return KMP_EPARTIAL;
	}
	out->skipped = out->uncounted = 0;
	st = kmp_list_walk(mem, l, head, lim->max_pools, pool_visit, &a, &last, &why);
	free(a.buf);
	if (st == KMP_WALK_DONE && !out->skipped && !out->uncounted)
		return KMP_OK;
	if (st == KMP_WALK_DONE)
		kmp_seterr(err, "%zu mempool(s) left out as corrupt, %zu wait queue(s) not "
			   "counted (each named above); the rest of the report is complete",
			   out->skipped, out->uncounted);
	else if (st == KMP_WALK_STOPPED)
		kmp_seterr(err, "mempool_list entry after 0x%" PRIx64 ": %s", last, why.msg);
	else
		kmp_seterr(err, "mempool_list: %s", why.msg);
	return KMP_EPARTIAL;
}

void kmp_pools_free(struct kmp_pools *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].name);
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}

struct waiters_arg {
	struct kmp_mem *mem;
	const struct kmp_layout *l;
	kmp_waiter_fn fn;
	void *arg;
};

static bool waiter_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	struct waiters_arg *a = arg;
	const struct kmp_layout *l = a->l;
	uint64_t wqe = node - l->wqe_entry.off;
	struct kmp_waiter w = { 0 };
	struct kmp_err why;

	if (!kmp_read_uint(a->mem, wqe + l->wqe_private.off, l->wqe_private.size,
			   &w.task, &why)) {
		kmp_seterr(err, "wait queue entry 0x%" PRIx64 ": %s", wqe, why.msg);
		return false;
	}
	if (!kmp_read_int(a->mem, w.task + l->task_pid.off, l->task_pid.size, &w.pid, &why) ||
	    !kmp_read_uint(a->mem, w.task + l->task_state.off, l->task_state.size,
			   &w.state, &why) ||
	    !kmp_read_string(a->mem, w.task + l->task_comm.off, w.comm,
			     l->task_comm.size < sizeof(w.comm) ? l->task_comm.size + 1 :
			     sizeof(w.comm), &why)) {
		kmp_seterr(err, "task 0x%" PRIx64 " waiting at 0x%" PRIx64 ": %s", w.task,
			   wqe, why.msg);
		return false;
	}
	kmp_comm_clean(w.comm);
	a->fn(&w, a->arg);
	return true;
}

int kmp_read_waiters(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
		     const struct kmp_limits *lim, kmp_waiter_fn fn, void *arg,
		     struct kmp_err *err)
{
	struct waiters_arg a = { mem, l, fn, arg };
	struct kmp_err why;
	uint64_t last;

	if (!l->have_tasks) {
		kmp_seterr(err, "the debug info lacks wait_queue_entry or task_struct members");
		return KMP_EFORMAT;
	}
	if (kmp_list_walk(mem, l, pool + l->wait.off + l->wqh_head.off, lim->max_waiters,
			  waiter_visit, &a, &last, &why) == KMP_WALK_DONE)
		return KMP_OK;
	kmp_seterr(err, "wait queue of mempool at 0x%" PRIx64 ": %s", pool, why.msg);
	return KMP_EPARTIAL;
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
