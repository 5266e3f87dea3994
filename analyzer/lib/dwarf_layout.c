// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: read the layout of struct mempool_s and friends from DWARF.
 *
 * Only one compilation unit is read: the one that holds mm/mempool.c,
 * found from a code address through .debug_aranges.  It defines every type
 * the analyzer needs (mempool_t, list_head, the wait queue types,
 * task_struct and enum mempool_type).
 */
#include <ctype.h>
#include <dwarf.h>
#include <stdio.h>
#include <string.h>

#include "dwarfutil.h"
#include "layout_check.h"
#include "vmlinux.h"

enum { W_POOL, W_POOL7, W_LIST, W_WQH, W_WQE, W_TASK, W_ENUM, W_WAITER, W_SIGNAL, W_N };

static void load_enum(Dwarf_Die *e, struct kmp_layout *l)
{
	Dwarf_Die c;

	l->ntypes = 0;
	if (dwarf_child(e, &c) != 0)
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword v;
		const char *n = dwarf_diename(&c);
		struct kmp_enumerator *t;

		if (dwarf_tag(&c) != DW_TAG_enumerator || !n || l->ntypes >= KMP_MAX_TYPES)
			continue;
		if (!dwarf_attr(&c, DW_AT_const_value, &a) || dwarf_formsdata(&a, &v))
			continue;
		t = &l->types[l->ntypes++];
		t->value = v;
		if (!strncmp(n, "MEMPOOL_", 8))
			n += 8;
		snprintf(t->name, sizeof(t->name), "%s", n);
		for (char *p = t->name; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	} while (dwarf_siblingof(&c, &c) == 0);
}

const char *kmp_type_name(const struct kmp_layout *l, int64_t value)
{
	for (unsigned int i = 0; i < l->ntypes; i++)
		if (l->types[i].value == value)
			return l->types[i].name;
	return "private";
}

/* How a process's threads are listed (layout.h): thread_group, or signal->thread_head. */
static bool threads_layout(struct kmp_wanted *w, struct kmp_layout *l)
{
	if (kmp_dwarf_member(&w[W_TASK].die, "thread_group", &l->task_thread_group))
		return true;
	l->threads_by_signal = w[W_SIGNAL].found &&
		kmp_dwarf_member(&w[W_TASK].die, "signal", &l->task_signal) &&
		kmp_dwarf_member(&w[W_TASK].die, "thread_node", &l->task_thread_node) &&
		kmp_dwarf_member(&w[W_SIGNAL].die, "thread_head", &l->signal_thread_head) &&
		l->task_signal.size == 8;
	return l->threads_by_signal;
}

#define NEED(st, field, member)						\
	do {								\
		if (!kmp_dwarf_member(&(st), member, &l->field)) {	\
			kmp_seterr(err, KMP_ERR_FORMAT, "%s: struct %s has no member '%s' in DWARF; " \
				   "is this a kernel with the mempool_list patches?", \
				   v->path, dwarf_diename(&(st)), member); \
			return false;					\
		}							\
	} while (0)

bool kmp_layout_load(struct kmp_vmlinux *v, uint64_t cu_addr, bool no_aranges,
		     struct kmp_layout *l, struct kmp_err *err)
{
	struct kmp_wanted w[W_N] = {
		[W_POOL] = { "mempool_s", DW_TAG_structure_type },
		[W_POOL7] = { "mempool", DW_TAG_structure_type },	/* its name from 7.x on */
		[W_LIST] = { "list_head", DW_TAG_structure_type },
		[W_WQH] = { "wait_queue_head", DW_TAG_structure_type },
		[W_WQE] = { "wait_queue_entry", DW_TAG_structure_type },
		[W_TASK] = { "task_struct", DW_TAG_structure_type },
		[W_ENUM] = { "mempool_type", DW_TAG_enumeration_type },
		[W_WAITER] = { "mempool_waiter", DW_TAG_structure_type },
		[W_SIGNAL] = { "signal_struct", DW_TAG_structure_type },
	};
	Dwarf_Die cu;

	memset(l, 0, sizeof(*l));
	if (!kmp_dwarf_cu(v->dwarf, cu_addr, "mm/mempool.c", no_aranges, &cu,
			  &l->via_aranges)) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: no debug info for mm/mempool.c", v->path);
		return false;
	}
	l->cu_name = dwarf_diename(&cu);
	kmp_dwarf_scan(&cu, w, W_N);
	l->pool_struct = "mempool_s";
	if (!w[W_POOL].found && w[W_POOL7].found) {
		w[W_POOL] = w[W_POOL7];
		l->pool_struct = "mempool";
	}
	if (!w[W_POOL].found || !w[W_LIST].found || !w[W_WQH].found) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: the debug info of %s lacks struct mempool_s (or "
			   "mempool), list_head or wait_queue_head", v->path,
			   l->cu_name ? l->cu_name : "mm/mempool.c");
		return false;
	}
	if (!kmp_dwarf_size(&w[W_POOL].die, &l->pool_size)) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: struct mempool_s has no size in DWARF", v->path);
		return false;
	}
	/* What every kernel's mempool_t has. */
	NEED(w[W_POOL].die, lock, "lock");
	NEED(w[W_POOL].die, min_nr, "min_nr");
	NEED(w[W_POOL].die, curr_nr, "curr_nr");
	NEED(w[W_POOL].die, elements, "elements");
	NEED(w[W_POOL].die, pool_data, "pool_data");
	NEED(w[W_POOL].die, alloc, "alloc");
	NEED(w[W_POOL].die, free, "free");
	NEED(w[W_POOL].die, wait, "wait");
	/* What the series adds: all of it, or none (a stock kernel). */
	l->series = kmp_dwarf_member(&w[W_POOL].die, "list", &l->list);
	if (l->series) {
		NEED(w[W_POOL].die, name, "name");
		NEED(w[W_POOL].die, owner, "owner");
		NEED(w[W_POOL].die, elem_size, "elem_size");
		NEED(w[W_POOL].die, type, "type");
		NEED(w[W_POOL].die, low_nr, "low_nr");
		NEED(w[W_POOL].die, nr_reserve, "nr_reserve");
		NEED(w[W_POOL].die, nr_wait, "nr_wait");
		/* Format 1.1's columns failed and emptied; both or neither. */
		if (!kmp_dwarf_member(&w[W_POOL].die, "nr_fail", &l->nr_fail) ||
		    !kmp_dwarf_member(&w[W_POOL].die, "nr_empty", &l->nr_empty))
			l->nr_fail.ok = l->nr_empty.ok = false;
		/* Format 1.2's oldest_wait and instance; all or nothing. */
		l->v12 = l->nr_fail.ok &&
			 kmp_dwarf_member(&w[W_POOL].die, "instance", &l->instance) &&
			 w[W_WAITER].found &&
			 kmp_dwarf_size(&w[W_WAITER].die, &l->waiter_size) &&
			 kmp_dwarf_member(&w[W_WAITER].die, "entry", &l->waiter_entry) &&
			 kmp_dwarf_member(&w[W_WAITER].die, "since", &l->waiter_since);
		if (!l->v12)
			l->instance.ok = l->waiter_entry.ok = l->waiter_since.ok = false;
	}
	NEED(w[W_LIST].die, lh_next, "next");
	NEED(w[W_LIST].die, lh_prev, "prev");
	NEED(w[W_WQH].die, wqh_head, "head");
	if (l->series && !w[W_ENUM].found) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: the debug info of %s lacks enum mempool_type", v->path,
			   l->cu_name ? l->cu_name : "mm/mempool.c");
		return false;
	}
	if (w[W_ENUM].found)
		load_enum(&w[W_ENUM].die, l);
	if (w[W_WQE].found && w[W_TASK].found &&
	    kmp_dwarf_member(&w[W_WQE].die, "private", &l->wqe_private) &&
	    kmp_dwarf_member(&w[W_WQE].die, "entry", &l->wqe_entry) &&
	    kmp_dwarf_member(&w[W_TASK].die, "pid", &l->task_pid) &&
	    kmp_dwarf_member(&w[W_TASK].die, "comm", &l->task_comm) &&
	    (kmp_dwarf_member(&w[W_TASK].die, "__state", &l->task_state) ||
	     kmp_dwarf_member(&w[W_TASK].die, "state", &l->task_state)))	/* to 5.13 */
		l->have_tasks = true;
	/* For the search of waiters on task stacks (any kernel); else what is missing. */
	l->stacks_missing = !w[W_TASK].found ? "struct task_struct" :
		!w[W_WQE].found ? "struct wait_queue_entry" :
		!l->have_tasks ? "task_struct.pid, comm or __state/state" :
		!kmp_dwarf_member(&w[W_WQE].die, "func", &l->wqe_func) ? "wait_queue_entry.func" :
		!kmp_dwarf_member(&w[W_TASK].die, "tasks", &l->task_tasks) ? "task_struct.tasks" :
		!threads_layout(w, l) ? "task_struct.thread_group (or signal->thread_head and "
					"thread_node)" :
		!kmp_dwarf_member(&w[W_TASK].die, "stack", &l->task_stack) ? "task_struct.stack" :
		!kmp_dwarf_member_path(&w[W_TASK].die, "thread.sp", &l->task_thread_sp) ?
		"task_struct.thread.sp" : NULL;
	l->have_stacks = !l->stacks_missing;
	if (l->lh_next.size != 8 || l->lh_prev.size != 8) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: struct list_head pointers are not 8 bytes", v->path);
		return false;
	}
	if (!kmp_layout_check(l, v->path, err))
		return false;
	return true;
}
