// SPDX-License-Identifier: GPL-2.0
/* kmempool: the tasks waiting on a pool, and their states. */
#include <inttypes.h>

#include "namerule.h"
#include "pools.h"
#include "waitq.h"
#include "walk.h"

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
		if (!kmp_waiter_seconds(a->mem, l, wqe, a->now, a->hz, &w.waited, err))
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
