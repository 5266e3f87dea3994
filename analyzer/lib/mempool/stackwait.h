/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: tasks sleeping in mempool_alloc(), found on their kernel stacks
 * without mempool_list.  mempool_alloc() puts a wait_queue_entry on its
 * stack (init_wait(): private = the task, func =
 * autoremove_wake_function) and queues it on pool->wait.  For every task
 * in D state the search looks for such an entry between the saved stack
 * pointer and the top of the stack, follows its links to the queue head,
 * and accepts the pool around that head only if it validates as a
 * mempool_t (poolcheck.h) and a return address into mempool_alloc() lies
 * below the entry on the same stack.
 */
#ifndef KMP_STACKWAIT_H
#define KMP_STACKWAIT_H

#include "poolcheck.h"
#include "tasks.h"

enum kmp_stackwait_kind {
	KMP_SW_WAITING,		/* queued on a validated pool, return address found */
	KMP_SW_UNQUEUED,	/* in mempool_alloc(), entry not queued (between sleeps) */
	KMP_SW_BADHEAD,		/* in mempool_alloc(), but no queue head validates */
};

struct kmp_stackwait {
	enum kmp_stackwait_kind kind;
	struct kmp_task task;
	uint64_t wqe;			/* the entry on the stack */
	const struct kmp_poolinfo *pool; /* for WAITING */
	char why[256];			/* for BADHEAD and stack read errors */
};

typedef void (*kmp_stackwait_fn)(const struct kmp_stackwait *w, void *arg);

struct kmp_stackwait_stats {
	uint64_t tasks, dstate, stacks_unreadable;
};

/*
 * Search every task.  Pools are validated once each; the struct
 * kmp_poolinfo passed with a waiter stays valid until
 * kmp_stackwait_done().  Returns true, or false with @err after reporting
 * what it found (task list broken or a stack unreadable; kind format: the
 * debug info lacks the members, nothing searched).
 */
struct kmp_stackwait_ctx;
bool kmp_stackwait_search(const struct kmp_kernel *k, const struct kmp_slablayout *sl,
			  uint64_t max_tasks, uint64_t max_waiters, kmp_stackwait_fn fn,
			  void *arg, struct kmp_stackwait_stats *st,
			  struct kmp_stackwait_ctx **ctx, struct kmp_err *err);
void kmp_stackwait_done(struct kmp_stackwait_ctx *ctx);

/* The waiters found, in a growing array: kmp_stackwait_collect() as the search's callback. */
struct kmp_stackwait_list {
	struct kmp_stackwait *v;
	size_t n, cap;
	bool oom;		/* a waiter was dropped: out of memory */
};
void kmp_stackwait_collect(const struct kmp_stackwait *w, void *arg);

/* Searches of a live kernel that met a changing task list are run again this often. */
#define KMP_LIVE_RETRIES 3

/*
 * The search into @out (kmp_stackwait_collect()), run to a result: on live
 * memory a search that failed (a task that exits between two reads breaks
 * the task list's links for a moment) is thrown away and run again, at
 * most KMP_LIVE_RETRIES times after a short pause, so that only what one
 * complete pass saw is kept; @err then says how many attempts it took.
 * The only retry of the stack search: presenters print what it returns.
 * Out of memory while collecting is an error (kind no-memory).
 */
bool kmp_stackwait_find(const struct kmp_kernel *k, const struct kmp_slablayout *sl,
			uint64_t max_tasks, uint64_t max_waiters, struct kmp_stackwait_list *out,
			struct kmp_stackwait_stats *st, struct kmp_stackwait_ctx **ctx,
			struct kmp_err *err);

#endif
