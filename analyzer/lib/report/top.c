// SPDX-License-Identifier: GPL-2.0
/* kmempool: `kmempool top`, the pool table refreshed in place. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "top.h"

/* curr_nr / min_nr as a fraction; a pool without a reserve is never under pressure. */
static int cmp_fill(const struct kmp_pool *a, const struct kmp_pool *b)
{
	/* a.curr / a.min < b.curr / b.min, without division; both factors fit in 63 bits. */
	__int128 x, y;

	if (a->min_nr <= 0 || b->min_nr <= 0)
		return (a->min_nr <= 0) - (b->min_nr <= 0);
	x = (__int128)a->curr_nr * b->min_nr;
	y = (__int128)b->curr_nr * a->min_nr;
	return x < y ? -1 : x > y;
}

int kmp_top_cmp(const struct kmp_pool *a, const struct kmp_pool *b)
{
	int c;

	if (a->waiting != b->waiting)
		return a->waiting > b->waiting ? -1 : 1;
	c = cmp_fill(a, b);
	if (c)
		return c;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return 0;
}

static int cmp_pool(const void *a, const void *b)
{
	return kmp_top_cmp(a, b);
}

static int cmp_prev(const void *a, const void *b)
{
	const struct kmp_top_prev *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const struct kmp_top_prev *find_prev(const struct kmp_top *t, uint64_t addr)
{
	struct kmp_top_prev key = { .addr = addr };

	if (!t->nprev)
		return NULL;
	return bsearch(&key, t->prev, t->nprev, sizeof(*t->prev), cmp_prev);
}

/* "+N" since the last refresh, "-" on the first or for a pool that is new. */
static void delta(char *buf, size_t len, const struct kmp_top_prev *prev, uint64_t now,
		  uint64_t then)
{
	if (!prev)
		snprintf(buf, len, "-");
	else if (now >= then)
		snprintf(buf, len, "+%" PRIu64, now - then);
	else
		snprintf(buf, len, "reset");	/* a new pool at a freed one's address */
}

static double cpu_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void print_table(FILE *f, const struct kmp_top *t, const struct kmp_pools *pools,
			const char *version, const struct kmp_top_opts *o, bool ok,
			const struct kmp_err *err)
{
	bool v11 = pools->n && pools->v[0].v11, v12 = pools->n && pools->v[0].v12;
	size_t shown = pools->n, waiting = 0, empty = 0;
	char when[32] = "";
	time_t now = time(NULL);
	struct tm tm;

	for (size_t i = 0; i < pools->n; i++) {
		waiting += pools->v[i].waiting ? 1 : 0;
		empty += pools->v[i].min_nr > 0 && pools->v[i].curr_nr == 0;
	}
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%H:%M:%S UTC", &tm);
	if (o->tty)
		fputs("\033[H\033[J", f);
	fprintf(f, "# kmempool top - %s - refresh %" PRIu64 " - format %s - %zu pools, %zu empty, "
		"%zu with waiters%s\n", when, t->refreshes, version, pools->n, empty, waiting,
		ok ? "" : err->kind == KMP_ERR_CHANGED ?
		" - the list changed while read (partial)" : " - list not read to its end");
	fprintf(f, "# %-22s %-7s %9s %6s %7s %6s %12s %8s %8s %8s %7s %-*s", "name", "type",
		"elem_size", "min_nr", "curr_nr", "low_nr", "from_reserve", "+reserve", "waits",
		"+waits", "waiting", v11 ? 12 : 0, "owner");
	if (v11)
		fprintf(f, " %8s %8s %8s %8s", "failed", "+failed", "emptied", "+emptied");
	if (v12)
		fprintf(f, " %11s %s", "oldest_wait", "instance");
	fputc('\n', f);
	if (o->tty && o->rows > 3 && shown > o->rows - 3)
		shown = o->rows - 3;
	for (size_t i = 0; i < shown; i++) {
		const struct kmp_pool *p = &pools->v[i];
		const struct kmp_top_prev *q = t->refreshes > 1 ? find_prev(t, p->addr) : NULL;
		char dr[24], dw[24], df[24], de[24];

		delta(dr, sizeof(dr), q, p->nr_reserve, q ? q->nr_reserve : 0);
		delta(dw, sizeof(dw), q, p->nr_wait, q ? q->nr_wait : 0);
		char wt[24];

		if (p->waiting_unknown)
			snprintf(wt, sizeof(wt), "?");
		else
			snprintf(wt, sizeof(wt), "%" PRIu64, p->waiting);
		fprintf(f, "%-24s %-7s %9" PRIu64 " %6" PRId64 " %7" PRId64 " %6" PRId64 " %12" PRIu64
			" %8s %8" PRIu64 " %8s %7s %-*s", p->name, p->type, p->elem_size,
			p->min_nr, p->curr_nr, p->low_nr, p->nr_reserve, dr, p->nr_wait, dw,
			wt, v11 ? 12 : 0, p->owner);
		if (v11) {
			delta(df, sizeof(df), q, p->nr_fail, q ? q->nr_fail : 0);
			delta(de, sizeof(de), q, p->nr_empty, q ? q->nr_empty : 0);
			fprintf(f, " %8" PRIu64 " %8s %8" PRIu64 " %8s", p->nr_fail, df, p->nr_empty,
				de);
		}
		if (p->v12 && p->oldest_unknown)
			fprintf(f, " %11s %s", "?", p->instance);
		else if (p->v12)
			fprintf(f, " %11" PRIu64 " %s", p->oldest_wait, p->instance);
		fputc('\n', f);
	}
	if (shown < pools->n)
		fprintf(f, "# %zu more pools below (terminal too small)\n", pools->n - shown);
}

bool kmp_top_refresh(FILE *f, struct kmp_top *t, struct kmp_mem *mem, const struct kmp_layout *l,
		     uint64_t head, const char *version, const struct kmp_top_opts *o,
		     struct kmp_err *err)
{
	struct kmp_pools pools = { .clock = o->clock, .notes = o->notes };
	struct kmp_top_prev *prev;
	double t0 = cpu_ms();
	bool ok;

	ok = kmp_read_pools(mem, l, head, &o->lim, &pools, err);
	if (pools.n)
		qsort(pools.v, pools.n, sizeof(*pools.v), cmp_pool);
	t->refreshes++;
	print_table(f, t, &pools, version, o, ok, err);
	prev = malloc((pools.n ? pools.n : 1) * sizeof(*prev));
	if (!prev) {
		kmp_pools_free(&pools);
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	for (size_t i = 0; i < pools.n; i++)
		prev[i] = (struct kmp_top_prev){ pools.v[i].addr, pools.v[i].nr_reserve,
						 pools.v[i].nr_wait, pools.v[i].nr_fail,
						 pools.v[i].nr_empty };
	qsort(prev, pools.n, sizeof(*prev), cmp_prev);
	free(t->prev);
	t->prev = prev;
	t->nprev = pools.n;
	kmp_pools_free(&pools);
	/* Read, sort, print and the next refresh's state: what one refresh costs. */
	t->last_cpu_ms = cpu_ms() - t0;
	fprintf(f, "# refresh %" PRIu64 ": %.3f ms CPU\n", t->refreshes, t->last_cpu_ms);
	fflush(f);
	return ok;
}

bool kmp_top_run(FILE *f, struct kmp_mem *mem, const struct kmp_layout *l, uint64_t head,
		 const char *version, const struct kmp_top_opts *o, struct kmp_err *err)
{
	struct kmp_top t = { 0 };
	bool ok = true;

	for (uint64_t i = 0; !o->count || i < o->count; i++) {
		struct timespec ts;

		if (i) {
			ts.tv_sec = (time_t)o->delay;
			ts.tv_nsec = (long)((o->delay - (double)ts.tv_sec) * 1e9);
			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
		}
		ok = kmp_top_refresh(f, &t, mem, l, head, version, o, err);
		/* A partial refresh is shown and the next one tried; no memory or output ends it. */
		if (!ok && (err->kind == KMP_ERR_NOMEM || err->kind == KMP_ERR_OUTPUT))
			break;
	}
	kmp_top_free(&t);
	return ok;
}

void kmp_top_free(struct kmp_top *t)
{
	free(t->prev);
	t->prev = NULL;
	t->nprev = 0;
}
