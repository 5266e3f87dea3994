/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: read the pools on mempool_list and the tasks waiting on them. */
#ifndef KMP_POOLS_H
#define KMP_POOLS_H

#include "layout.h"
#include "mem.h"

#define KMP_NAME_MAX 65536	/* bound for a pool's name; longer: corrupt */
#define KMP_OWNER_MAX 64	/* MODULE_NAME_LEN is 56 on 64-bit */
#define KMP_COMM_MAX 64

struct kmp_tagstrs;

struct kmp_pool {
	uint64_t addr;
	char *name;		/* malloc'ed, any length up to KMP_NAME_MAX - 1 */
	const char *type;
	uint64_t elem_size;
	int64_t min_nr, curr_nr, low_nr;
	uint64_t elements;	/* the reserve array's address (poolrule.h) */
	uint64_t nr_reserve, nr_wait;
	uint64_t waiting;
	bool waiting_unknown;	/* the wait queue could not be counted: print "?" */
	char owner[KMP_OWNER_MAX * 4];	/* v6: escaped, a byte may take 4 */
	bool v11;		/* the kernel has format 1.1's counters: */
	uint64_t nr_fail, nr_empty;
	bool v12;		/* the kernel has format 1.2's columns: */
	uint64_t oldest_wait;	/* seconds the first waiter has waited, 0: none */
	bool oldest_unknown;	/* could not be told: print "?" */
	char *instance;		/* malloc'ed; "-" when the pool has none */
	/*
	 * Series v6 (v11 and v12 set too): name, owner and instance are
	 * escaped as /proc/mempool prints them; the row ends with the site.
	 */
	bool v6;
	bool v7;		/* series v7: the row ends with the pool's id */
	uint64_t id;
	char *site;		/* escaped "file:line" */
	char *function, *file;	/* raw (JSON) */
	char *kind;		/* raw; NULL if none */
	uint64_t line;
	/*
	 * v6: the tag's strings that name, site, function, file and kind
	 * point into (a reference, shared with the pools of its call site);
	 * NULL: those are malloc'ed one by one.
	 */
	struct kmp_tagstrs *tagstrs;
};

/* Copy @p's strings into @q (a copy of @p's other members); false: out of memory. */
bool kmp_pool_dup_strings(struct kmp_pool *q, const struct kmp_pool *p);
/* Free @p's malloc'ed strings. */
void kmp_pool_free_strings(struct kmp_pool *p);

/*
 * Series v6: the runtime addresses that tell a pool's type (its alloc
 * function) and a mempool_alloc() waiter on its queue (its wake function),
 * and the page size of a page pool's elements; zero: not known.
 */
struct kmp_v6fns {
	uint64_t alloc_slab, kmalloc, alloc_pages, wake;
	uint64_t page_size;
};

/*
 * The kernel's clock, for how long tasks have waited (format 1.2):
 * jiffies at @jiffies_addr (re-read for every walk of live memory) and
 * HZ (0: unknown, from tick_nsec).
 */
struct kmp_clock {
	uint64_t jiffies_addr, jiffies_size;
	uint64_t hz;
	struct kmp_v6fns v6;	/* series v6 (it rides with the clock to every reader) */
};

struct kmp_pools {
	struct kmp_pool *v;
	size_t n, cap;
	/*
	 * Set by the caller: a note for each problem that costs one pool or
	 * one count but not the walk (a name breaking the kernel's rule, a
	 * wait queue that cannot be counted); none when notes.note is NULL.
	 */
	struct kmp_notes notes;
	struct kmp_clock clock;	/* set by the caller; zero: no wait times */
	size_t skipped;		/* pools left out as corrupt */
	size_t uncounted;	/* pools printed whose wait queue could not be counted */
	unsigned int attempts;	/* walks from the head (more than 1: live memory changed) */
};

/*
 * Where kmp_walk_pools() sends the pools, one at a time, so that the
 * caller can print them as they come (memory does not grow with the
 * list).  On live memory a walk that meets an inconsistency starts again
 * from the head: restart() (may be NULL) is called before every attempt
 * but the first and must forget what pool() was given since.
 */
struct kmp_pool_sink {
	bool (*pool)(const struct kmp_pool *p, void *arg, struct kmp_err *err);
	bool (*restart)(void *arg, struct kmp_err *err);
	void *arg;
};

struct kmp_waiter {
	uint64_t task;
	int64_t pid;
	uint64_t state;
	char comm[KMP_COMM_MAX];
	bool have_waited;	/* format 1.2 kernel with a known clock: */
	uint64_t waited;	/* seconds this allocation has waited */
};

struct kmp_limits {
	uint64_t max_pools;	/* entries on mempool_list */
	uint64_t max_waiters;	/* entries on one wait queue */
};

/* Attempts of a walk of live memory before it is called changed. */
#define KMP_LIVE_ATTEMPTS 8
/* The pause before attempt N is N times this (2 ms; the fuzzers set 0). */
extern long kmp_live_pause_ns;

/*
 * Walk the pools on the list at @head and send each to @sink; @st gets
 * the counts (skipped, uncounted, attempts; its notes are the
 * caller's; its v, n are not used).  Returns true for a complete walk,
 * else false with @err (its kind says which: a fault or corrupt data ended
 * the walk, pools were left out, live memory kept changing, the sink
 * failed, no memory).
 *
 * A pool whose name, owner or instance breaks the kernel's rule, or
 * whose counters break 0 <= curr_nr, low_nr <= min_nr (which the kernel
 * keeps under the pool's lock; low_nr above curr_nr is a pool being
 * shrunk, poolrec.c), is left out (one note each) and a wait queue that cannot be counted makes that count
 * unknown (one note); the walk goes on.  On live memory each pool is
 * checked again after its strings are read (still linked, the same
 * name and owner pointers), so a pool freed while it was read is not
 * sent; a walk that meets an inconsistency is started again from the
 * head, at most KMP_LIVE_ATTEMPTS times, and then fails as "changed".
 */
bool kmp_walk_pools(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t head,
		    const struct kmp_limits *lim, const struct kmp_pool_sink *sink,
		    struct kmp_pools *st, struct kmp_err *err);

/*
 * The same, collecting every pool into @out (whose notes the
 * caller may set).  On failure @out holds the pools read before it.
 */
bool kmp_read_pools(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t head,
		    const struct kmp_limits *lim, struct kmp_pools *out,
		    struct kmp_err *err);
void kmp_pools_free(struct kmp_pools *p);

/*
 * Read the tasks waiting on the pool at @pool (its wait queue); @fn is
 * called for each.  @clock (may be NULL) gives their wait times on a
 * format 1.2 kernel.  False with @err when the queue could not be read to
 * its end (the tasks before were given to @fn), or (kind format) the
 * debug info lacks the members.
 */
typedef void (*kmp_waiter_fn)(const struct kmp_waiter *w, void *arg);
bool kmp_read_waiters(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
		      const struct kmp_limits *lim, const struct kmp_clock *clock,
		      kmp_waiter_fn fn, void *arg, struct kmp_err *err);

/*
 * Seconds from @since to @now (jiffies) at @hz; a @since after @now (a
 * task that began to wait after @now was read) counts as 0.
 */
uint64_t kmp_jiffies_seconds(uint64_t now, uint64_t since, uint64_t hz);

/*
 * The number of entries on the wait queue of the pool at @pool (at most
 * @max) whose wake function is @wake (series v6: mempool_alloc()'s
 * waiters; 0: every entry); false if the queue cannot be walked to its end.
 */
bool kmp_wait_queue_length(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
			   uint64_t wake, uint64_t max, uint64_t *n);
/* The same, with @why saying what ended the walk of the queue. */
bool kmp_wait_queue_length_why(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t pool,
			       uint64_t wake,
			       uint64_t max, uint64_t *n, struct kmp_err *why);

/* "D (uninterruptible)" and the like, for a task_struct.__state value. */
const char *kmp_task_state(uint64_t state);

#endif
