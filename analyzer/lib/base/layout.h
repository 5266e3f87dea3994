/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: what the analyzer knows about the kernel's data structures.
 * Every offset and size here comes from DWARF (dwarf_layout.c loads them
 * by the table of layout_check.c, which also bounds each inside its
 * struct); none is written in the source.  A field is taken out of a
 * struct read into a buffer only through the accessor of field.h.
 */
#ifndef KMP_LAYOUT_H
#define KMP_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

struct kmp_field {
	uint64_t off;
	uint64_t size;
	bool ok;
	const char *name;	/* "mempool_s.elements", for errors; may be NULL */
};

#define KMP_MAX_TYPES 16

struct kmp_enumerator {
	int64_t value;
	char name[24];		/* lower case, "MEMPOOL_" stripped: "slab" */
};

struct kmp_layout {
	/* struct mempool_s (struct mempool from 7.x on): what every kernel has */
	const char *pool_struct;	/* "mempool_s" or "mempool" */
	uint64_t pool_size;
	struct kmp_field lock, min_nr, curr_nr, elements, pool_data, alloc, free, wait;
	/* what the series adds (mempool_list, names, statistics) */
	bool series;
	struct kmp_field list, name, owner, elem_size, type, low_nr, nr_reserve, nr_wait;
	/* optional: format 1.1 added them (failed, emptied); ok is false on 1.0 */
	struct kmp_field nr_fail, nr_empty;
	/*
	 * Format 1.2 (oldest_wait, instance): mempool_s.instance, and struct
	 * mempool_waiter around the wait queue entries of mm/mempool.c with
	 * the jiffies its allocation first slept.  v12: all of them.
	 */
	bool v12;
	struct kmp_field instance, waiter_entry, waiter_since;
	uint64_t waiter_size;
	/*
	 * Series v6 (Linux 7.2): the pool names no strings of its own but
	 * points to a struct mempool_tag (a struct codetag of the code that
	 * set it up, a name and a kind); type and element size are derived
	 * from alloc and pool_data, not stored.  Told by layout: the pool has
	 * tag and both structs are in the debug info.  v6 implies v12's
	 * members (instance, struct mempool_waiter) and the 1.1 counters.
	 */
	bool v6;
	struct kmp_field tag;
	/*
	 * Series v7: each pool has an id, format 1.1's last column, and ':'
	 * is escaped in names and kinds; a pool with a NULL tag is a
	 * /proc/mempool reader's cursor, not a pool.  v7 implies v6.
	 */
	bool v7;
	struct kmp_field id;
	uint64_t mtag_size, ct_size;
	struct kmp_field mtag_ct, mtag_name, mtag_kind;		/* struct mempool_tag */
	struct kmp_field ct_modname, ct_function, ct_filename, ct_lineno;	/* struct codetag */
	/* mempool_tag.ct.modname ... .lineno, in struct mempool_tag (kmp_layout_compose()) */
	struct kmp_field mtag_modname, mtag_function, mtag_filename, mtag_lineno;
	/* struct kmem_cache's object_size (v6: a slab pool's element size), 0 size: unknown */
	uint64_t kc_size;
	struct kmp_field kc_object_size;
	/*
	 * Members of members, in the outer struct (kmp_layout_compose()):
	 * mempool_s.list.next and .prev, the first byte of mempool_s.lock
	 * (qspinlock's locked byte), mempool_s.wait.head.
	 */
	struct kmp_field list_next, list_prev, lock_byte, wait_head;
	/* struct list_head */
	uint64_t lh_size;
	struct kmp_field lh_next, lh_prev;
	/* struct wait_queue_head, struct wait_queue_entry */
	uint64_t wqh_size, wqe_size;
	struct kmp_field wqh_head, wqe_private, wqe_entry, wqe_func;
	/* wait_queue_entry.entry.next and .prev, in the entry (kmp_layout_compose()) */
	struct kmp_field wqe_next, wqe_prev;
	/* struct task_struct (task_state: __state, or state before 5.14) */
	uint64_t task_size;
	bool task_state_old;		/* it is state (kpieces.c: KP_TASK_STATE) */
	struct kmp_field task_pid, task_comm, task_state;
	bool have_tasks;
	/* task_struct members for the search of task stacks */
	struct kmp_field task_tasks, task_thread_group, task_stack, task_thread_sp;
	/*
	 * A process's threads: task_struct.thread_group (a ring without a
	 * head) to 6.6; since, signal->thread_head lists them all through
	 * thread_node (threads_by_signal).
	 */
	uint64_t signal_size;
	struct kmp_field task_signal, task_thread_node, signal_thread_head;
	bool threads_by_signal;
	bool have_stacks;
	const char *stacks_missing;	/* what the stack search lacks, NULL if nothing */
	char missing_buf[200];		/* where a composed stacks_missing is kept */
	/* enum mempool_type */
	unsigned int ntypes;
	struct kmp_enumerator types[KMP_MAX_TYPES];
	/* where the layout came from, for --verbose and the benchmark */
	const char *cu_name;
	bool via_aranges;
};

/* Name of a pool type value, "private" for values DWARF does not list. */
const char *kmp_type_name(const struct kmp_layout *l, int64_t value);

#endif
