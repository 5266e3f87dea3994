/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: `kmempool top`: the pool table of mempool_list, read again
 * every interval (the DWARF layout is loaded once, by the session), sorted
 * by pressure, with what the statistics did since the last refresh.
 */
#ifndef KMP_TOP_H
#define KMP_TOP_H

#include <stdio.h>

#include "pools.h"

struct kmp_top_opts {
	double delay;		/* seconds between refreshes */
	uint64_t count;		/* refreshes; 0: until interrupted */
	bool tty;		/* redraw in place, at most @rows lines */
	unsigned int rows;	/* terminal height (tty), 0: no limit */
	struct kmp_limits lim;
	struct kmp_clock clock;	/* format 1.2: for oldest_wait */
	struct kmp_notes notes;	/* the walk's notes (kmp.h) */
};

/* Counters of one pool at the last refresh, to print deltas. */
struct kmp_top_prev {
	uint64_t addr, nr_reserve, nr_wait, nr_fail, nr_empty;
};

struct kmp_top {
	struct kmp_top_prev *prev;	/* sorted by address */
	size_t nprev;
	uint64_t refreshes;
	double last_cpu_ms;		/* CPU time of the last refresh */
};

/*
 * One refresh: read the list at @head, print the table to @f (clearing
 * the screen first when @o->tty).  Returns true, or false with @err set
 * when the list was not read to its end (the pools read are printed);
 * @t keeps the counters for the next refresh's deltas.
 */
bool kmp_top_refresh(FILE *f, struct kmp_top *t, struct kmp_mem *mem, const struct kmp_layout *l,
		     uint64_t head, const char *version, const struct kmp_top_opts *o,
		     struct kmp_err *err);

/*
 * Refresh @o->count times (0: forever), @o->delay seconds apart; the last
 * refresh's result (running out of memory or output ends it early).
 */
bool kmp_top_run(FILE *f, struct kmp_mem *mem, const struct kmp_layout *l, uint64_t head,
		 const char *version, const struct kmp_top_opts *o, struct kmp_err *err);

void kmp_top_free(struct kmp_top *t);

/* Sort order of the table: waiting (more first), then curr_nr/min_nr (lower first). */
int kmp_top_cmp(const struct kmp_pool *a, const struct kmp_pool *b);

#endif
