/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: every task of a kernel (processes and their threads), from init_task. */
#ifndef KMP_TASKS_H
#define KMP_TASKS_H

#include "kernel.h"

struct kmp_task {
	uint64_t addr;
	int64_t pid;
	uint64_t state;
	char comm[64];
};

/* Return false to stop (with @err set). */
typedef bool (*kmp_task_fn)(const struct kmp_task *t, void *arg, struct kmp_err *err);

/*
 * Call @fn for every task: the processes on init_task.tasks and, for each,
 * the other threads of its group.  At most @max tasks.  False with @err
 * naming where the walk broke (the tasks before it were visited), or (kind
 * format) that the debug info lacks the members.
 */
bool kmp_tasks_each(const struct kmp_kernel *k, uint64_t max, kmp_task_fn fn, void *arg,
		    struct kmp_err *err);

/* Read one task's pid, state and comm. */
bool kmp_task_read(const struct kmp_kernel *k, uint64_t task, struct kmp_task *t,
		   struct kmp_err *err);

#endif
