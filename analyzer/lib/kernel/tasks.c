// SPDX-License-Identifier: GPL-2.0
/* kmempool: walk the task list with the validated list walk. */
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "tasks.h"
#include "walk.h"

bool kmp_task_read(const struct kmp_kernel *k, uint64_t task, struct kmp_task *t,
		   struct kmp_err *err)
{
	const struct kmp_layout *l = k->l;
	size_t clen = l->task_comm.size < sizeof(t->comm) ? l->task_comm.size : sizeof(t->comm) - 1;
	struct kmp_err why;

	memset(t, 0, sizeof(*t));
	t->addr = task;
	if (!kmp_read_int(k->mem, task + l->task_pid.off, l->task_pid.size, &t->pid, &why) ||
	    !kmp_read_uint(k->mem, task + l->task_state.off, l->task_state.size, &t->state,
			   &why) ||
	    !kmp_read(k->mem, task + l->task_comm.off, t->comm, clen, &why)) {
		kmp_wraperr(err, &why, "task 0x%" PRIx64 ": %s", task, why.msg);
		return false;
	}
	t->comm[clen] = '\0';
	/* comm is NUL-padded text; anything else is shown escaped by the report. */
	return true;
}

struct walk_arg {
	const struct kmp_kernel *k;
	kmp_task_fn fn;
	void *arg;
	uint64_t max, n;
	bool threads;		/* walking a thread group: skip nothing */
	uint64_t leader;	/* the process whose signal->thread_head is walked */
};

static bool visit_task(const struct kmp_kernel *k, struct walk_arg *a, uint64_t task,
		       struct kmp_err *err)
{
	struct kmp_task t;

	if (++a->n > a->max) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "more than %" PRIu64 " tasks; task list corrupt? (raise the "
			   "bound with --max-entries)", a->max);
		return false;
	}
	if (!kmp_task_read(k, task, &t, err))
		return false;
	return a->fn(&t, a->arg, err);
}

static bool thread_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	struct walk_arg *a = arg;
	const struct kmp_layout *l = a->k->l;

	if (l->threads_by_signal) {
		if (node - l->task_thread_node.off == a->leader)
			return true;	/* visited as the process */
		return visit_task(a->k, a, node - l->task_thread_node.off, err);
	}
	return visit_task(a->k, a, node - l->task_thread_group.off, err);
}

static bool process_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	struct walk_arg *a = arg;
	const struct kmp_kernel *k = a->k;
	uint64_t task = node - k->l->task_tasks.off, last;
	struct kmp_err why;

	if (!visit_task(k, a, task, err))
		return false;
	if (k->l->threads_by_signal) {
		/* All its threads, itself too, on signal->thread_head (6.7 on). */
		uint64_t signal;

		if (!kmp_read_uint(k->mem, task + k->l->task_signal.off, 8, &signal, &why)) {
			kmp_wraperr(err, &why, "signal of task 0x%" PRIx64 ": %s", task, why.msg);
			return false;
		}
		a->leader = task;
		if (signal && kmp_list_walk(k->mem, k->l, signal + k->l->signal_thread_head.off,
					    a->max, thread_visit, a, &last, &why) != KMP_WALK_DONE) {
			kmp_wraperr(err, &why, "threads of task 0x%" PRIx64 ": %s", task, why.msg);
			return false;
		}
		return true;
	}
	/* The rest of its thread group: a list without a separate head. */
	if (kmp_list_walk(k->mem, k->l, task + k->l->task_thread_group.off, a->max,
			  thread_visit, a, &last, &why) != KMP_WALK_DONE) {
		kmp_wraperr(err, &why, "threads of task 0x%" PRIx64 ": %s", task, why.msg);
		return false;
	}
	return true;
}

bool kmp_tasks_each(const struct kmp_kernel *k, uint64_t max, kmp_task_fn fn, void *arg,
		    struct kmp_err *err)
{
	struct walk_arg a = { k, fn, arg, max, 0, false, 0 };
	struct kmp_err why;
	uint64_t last;

	if (!k->l->have_stacks) {
		kmp_seterr(err, KMP_ERR_FORMAT, "the debug info lacks %s, which the task list needs",
			   k->l->stacks_missing ? k->l->stacks_missing : "task_struct members");
		return false;
	}
	/* init_task (the idle task of CPU 0) heads the list and is no process of it. */
	if (kmp_list_walk(k->mem, k->l, k->init_task + k->l->task_tasks.off, max,
			  process_visit, &a, &last, &why) == KMP_WALK_DONE)
		return true;
	kmp_wraperr(err, &why, "task list: %s", why.msg);
	return false;
}
