// SPDX-License-Identifier: GPL-2.0
/* kmempool: find tasks waiting in mempool_alloc() from their stacks. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "field.h"
#include "stackwait.h"
#include "walk.h"

#define TASK_UNINTERRUPTIBLE_ 0x0002
#define TASK_NOLOAD_ 0x0400
/* A wait_queue_entry's bound when the layout has no size for it (set by hand). */
#define KMP_ENTRY_MAX 256

/* Pools found so far: validated once, shared by their waiters. */
struct kmp_stackwait_ctx {
	struct kmp_poolinfo **pools;	/* each allocated once: callers keep pointers */
	size_t n, cap;
	uint64_t *bad;			/* heads that did not validate */
	size_t nbad, capbad;
};

static const struct kmp_poolinfo *known_pool(struct kmp_stackwait_ctx *c, uint64_t addr)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->pools[i]->addr == addr)
			return c->pools[i];
	return NULL;
}

static bool known_bad(struct kmp_stackwait_ctx *c, uint64_t addr)
{
	for (size_t i = 0; i < c->nbad; i++)
		if (c->bad[i] == addr)
			return true;
	return false;
}

static bool grow(void **v, size_t *cap, size_t n, size_t elem)
{
	void *p;

	if (n < *cap)
		return true;
	p = realloc(*v, (*cap ? *cap * 2 : 16) * elem);
	if (!p)
		return false;
	*v = p;
	*cap = *cap ? *cap * 2 : 16;
	return true;
}

struct search {
	const struct kmp_kernel *k;
	const struct kmp_slablayout *sl;
	struct kmp_stackwait_ctx *c;
	uint64_t max_waiters;
	kmp_stackwait_fn fn;
	void *arg;
	struct kmp_stackwait_stats *st;
	unsigned char *stack;
	bool partial;
	struct kmp_err first;		/* first stack problem */
	/* the head search of one entry */
	const struct kmp_poolinfo *found;
	char lastwhy[200];
};

/* The wait-queue node @node: the head of a validated pool? */
static bool head_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	struct search *s = arg;
	const struct kmp_layout *l = s->k->l;
	uint64_t pool = node - l->wait_head.off;
	const struct kmp_poolinfo *known = known_pool(s->c, pool);
	struct kmp_poolinfo *pi;
	struct kmp_err why;

	(void)err;
	if (known) {
		s->found = known;
		return false;
	}
	if (known_bad(s->c, pool))
		return true;
	pi = malloc(sizeof(*pi));
	if (!pi || !grow((void **)&s->c->pools, &s->c->cap, s->c->n, sizeof(*s->c->pools))) {
		free(pi);
		return true;
	}
	if (kmp_pool_check(s->k, s->sl, pool, pi, &why)) {
		s->c->pools[s->c->n++] = pi;
		s->found = pi;
		return false;
	}
	free(pi);
	/* Most nodes are other waiters' entries: remember what failed, once. */
	if (grow((void **)&s->c->bad, &s->c->capbad, s->c->nbad, sizeof(*s->c->bad)))
		s->c->bad[s->c->nbad++] = pool;
	snprintf(s->lastwhy, sizeof(s->lastwhy), "0x%" PRIx64 ": %.150s", pool, why.msg);
	return true;
}

/* Is there a return address into mempool_alloc() (or its heirs) in stack words [from, to)? */
static bool ret_into_alloc(const struct search *s, const uint64_t *w, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (kmp_kernel_in_waitfn(s->k, w[i]))
			return true;
	return false;
}

/*
 * The bytes of a wait_queue_entry the search reads on a stack: from its
 * start to the end of the last member it takes (entry_fits() bounds them;
 * entry.prev ends the struct on every kernel).
 */
static uint64_t entry_span(const struct kmp_layout *l)
{
	const struct kmp_field *const fs[] = { &l->wqe_private, &l->wqe_func, &l->wqe_next,
					       &l->wqe_prev };
	uint64_t span = 0;

	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if (fs[i]->off + fs[i]->size > span)
			span = fs[i]->off + fs[i]->size;
	return span;
}

/* The members of a wait_queue_entry the search reads, in the entry and a stack's bytes. */
static bool entry_fits(const struct kmp_kernel *k, struct kmp_err *err)
{
	const struct kmp_layout *l = k->l;
	const struct kmp_field *const fs[] = { &l->wqe_private, &l->wqe_func, &l->wqe_next,
					       &l->wqe_prev };
	size_t n = sizeof(fs) / sizeof(fs[0]);

	if (!kmp_fields_fit(fs, n, l->wqe_size ? l->wqe_size : KMP_ENTRY_MAX, err))
		return false;
	if (entry_span(l) > k->thread_size) {
		kmp_seterr(err, KMP_ERR_FORMAT, "a wait_queue_entry of %" PRIu64 " bytes does not fit "
			   "a stack of %" PRIu64, entry_span(l), k->thread_size);
		return false;
	}
	return true;
}

static void scan_stack(struct search *s, const struct kmp_task *t)
{
	const struct kmp_kernel *k = s->k;
	const struct kmp_layout *l = k->l;
	uint64_t stack, sp, lo, len, wqe_span;
	struct kmp_err why;
	const uint64_t *w;

	if (!kmp_read_uint(k->mem, t->addr + l->task_stack.off, 8, &stack, &why) ||
	    !kmp_read_uint(k->mem, t->addr + l->task_thread_sp.off, 8, &sp, &why)) {
		goto unreadable;
	}
	if (!stack || (stack & 7) || sp < stack || sp - stack >= k->thread_size) {
		kmp_seterr(&why, KMP_ERR_CORRUPT, "saved stack pointer 0x%" PRIx64 " is not in its stack 0x%"
			   PRIx64, sp, stack);
		goto unreadable;
	}
	lo = sp & ~7ULL;
	len = stack + k->thread_size - lo;
	if (!kmp_read(k->mem, lo, s->stack, len, &why))
		goto unreadable;
	w = (const uint64_t *)s->stack;
	wqe_span = entry_span(l);
	for (uint64_t off = 0; off + wqe_span <= len; off += 8) {
		const unsigned char *e = s->stack + off;
		uint64_t priv, func, next, prev, wqe = lo + off, last;
		struct kmp_stackwait sw;
		struct kmp_err werr;

		/* entry_fits() vouched for these: the entry's span lies in the stack read. */
		if (!kmp_field_get(e, wqe_span, &l->wqe_private, &priv, &why) ||
		    !kmp_field_get(e, wqe_span, &l->wqe_func, &func, &why))
			goto unreadable;
		/* DEFINE_WAIT()'s wake function, or series v6's mempool_waiter's */
		if (priv != t->addr || (func != k->autoremove_wake_function &&
					(!k->mempool_wake_function || func != k->mempool_wake_function)))
			continue;
		if (!kmp_field_get(e, wqe_span, &l->wqe_next, &next, &why) ||
		    !kmp_field_get(e, wqe_span, &l->wqe_prev, &prev, &why))
			goto unreadable;
		memset(&sw, 0, sizeof(sw));
		sw.task = *t;
		sw.wqe = wqe;
		if (!ret_into_alloc(s, w, 0, off / 8))
			continue;	/* a wait elsewhere (prepare_to_wait users abound) */
		if (next == wqe + l->wqe_entry.off && prev == next) {
			sw.kind = KMP_SW_UNQUEUED;
			s->fn(&sw, s->arg);
			continue;
		}
		s->found = NULL;
		s->lastwhy[0] = '\0';
		kmp_list_walk(k->mem, l, wqe + l->wqe_entry.off, s->max_waiters + 1, head_visit,
			      s, &last, &werr);
		if (s->found) {
			sw.kind = KMP_SW_WAITING;
			sw.pool = s->found;
		} else {
			sw.kind = KMP_SW_BADHEAD;
			snprintf(sw.why, sizeof(sw.why), "no queue head validates as a mempool%s%s",
				 s->lastwhy[0] ? "; last tried " : "", s->lastwhy);
		}
		s->fn(&sw, s->arg);
	}
	return;
unreadable:
	s->st->stacks_unreadable++;
	if (!s->partial)
		kmp_wraperr(&s->first, &why, "stack of task %" PRId64 " (%s) at 0x%" PRIx64 ": %s",
			   t->pid, t->comm, t->addr, why.msg);
	s->partial = true;
}

static bool task_visit(const struct kmp_task *t, void *arg, struct kmp_err *err)
{
	struct search *s = arg;

	(void)err;
	s->st->tasks++;
	if (!(t->state & TASK_UNINTERRUPTIBLE_) || (t->state & TASK_NOLOAD_))
		return true;
	s->st->dstate++;
	scan_stack(s, t);
	return true;
}

bool kmp_stackwait_search(const struct kmp_kernel *k, const struct kmp_slablayout *sl,
			  uint64_t max_tasks, uint64_t max_waiters, kmp_stackwait_fn fn,
			  void *arg, struct kmp_stackwait_stats *st,
			  struct kmp_stackwait_ctx **ctx, struct kmp_err *err)
{
	struct search s = { .k = k, .sl = sl, .max_waiters = max_waiters, .fn = fn,
			    .arg = arg, .st = st };
	bool ok;

	memset(st, 0, sizeof(*st));
	*ctx = NULL;
	if (!k->l->have_stacks || !k->l->wqe_func.ok) {
		kmp_seterr(err, KMP_ERR_FORMAT, "the debug info lacks %s, which the stack search needs",
			   k->l->stacks_missing ? k->l->stacks_missing :
			   "task_struct or wait_queue_entry members");
		return false;
	}
	if (!entry_fits(k, err))
		return false;
	s.c = calloc(1, sizeof(*s.c));
	s.stack = malloc(k->thread_size);
	if (!s.c || !s.stack) {
		free(s.c);
		free(s.stack);
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	ok = kmp_tasks_each(k, max_tasks, task_visit, &s, err);
	free(s.stack);
	*ctx = s.c;
	if (ok && s.partial) {
		*err = s.first;
		ok = false;
	}
	return ok;
}

void kmp_stackwait_collect(const struct kmp_stackwait *w, void *arg)
{
	struct kmp_stackwait_list *f = arg;

	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 32;
		struct kmp_stackwait *v = realloc(f->v, cap * sizeof(*v));

		if (!v) {
			f->oom = true;
			return;
		}
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n++] = *w;
}

bool kmp_stackwait_find(const struct kmp_kernel *k, const struct kmp_slablayout *sl,
			uint64_t max_tasks, uint64_t max_waiters, struct kmp_stackwait_list *out,
			struct kmp_stackwait_stats *st, struct kmp_stackwait_ctx **ctx,
			struct kmp_err *err)
{
	bool live = k->mem->live, ok;

	for (int attempt = 0;; attempt++) {
		ok = kmp_stackwait_search(k, sl, max_tasks, max_waiters, kmp_stackwait_collect,
					  out, st, ctx, err);
		if (ok || err->kind == KMP_ERR_FORMAT || err->kind == KMP_ERR_NOMEM || !live ||
		    attempt == KMP_LIVE_RETRIES)
			break;
		kmp_stackwait_done(*ctx);
		*ctx = NULL;
		out->n = 0;
		out->oom = false;
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}
	if (!ok && err->kind != KMP_ERR_FORMAT && err->kind != KMP_ERR_NOMEM && live)
		snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
			 " (the kernel kept changing: %d attempts)", KMP_LIVE_RETRIES + 1);
	if (out->oom && ok) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory while collecting waiters");
		ok = false;
	}
	return ok;
}

void kmp_stackwait_done(struct kmp_stackwait_ctx *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->pools[i]);
	free(c->pools);
	free(c->bad);
	free(c);
}
