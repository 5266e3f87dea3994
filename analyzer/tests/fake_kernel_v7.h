/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types with the names of series v7 (Linux 7.2), for the unit tests of its
 * path (unit_v7.c): series v6's (fake_kernel_v6.h) with unsigned long
 * counters, a 64-bit id per pool and v7's struct mempool_waiter.  As in fake_kernel.h, the members are in another order
 * and padded otherwise than in the kernel: every offset must come from
 * DWARF.  No enum mempool_type, no name, owner, type or elem_size in the
 * pool: v6 derives type and size from alloc.
 */
#ifndef FAKE_KERNEL_V7_H
#define FAKE_KERNEL_V7_H

#include <stddef.h>

struct list_head {
	struct list_head *next, *prev;
};

typedef struct {
	int raw;
} spinlock_t;

struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
};
typedef struct wait_queue_head wait_queue_head_t;

struct wait_queue_entry;
typedef int (*wait_queue_func_t)(struct wait_queue_entry *wq_entry, unsigned int mode,
				 int flags, void *key);

struct wait_queue_entry {
	unsigned int flags;
	void *private;
	wait_queue_func_t func;
	struct list_head entry;
};

struct task_struct {
	long pad0[2];
	unsigned int __state;
	void *stack;
	char pad1[40];
	int pid;
	char comm[16];
	struct list_head tasks;
	struct list_head thread_group;
};

struct codetag {
	unsigned int flags;
	unsigned int lineno;
	const char *modname;
	const char *function;
	const char *filename;
} __attribute__((aligned(8)));

struct mempool_tag {
	const char *kind;	/* not in the kernel's order */
	struct codetag ct;
	const char *name;
};

struct kmem_cache {
	unsigned long flags;
	unsigned int size;
	unsigned int object_size;
	const char *name;
};

typedef void *(mempool_alloc_t)(unsigned int gfp_mask, void *pool_data);
typedef void (mempool_free_t)(void *element, void *pool_data);

typedef struct mempool {
	unsigned long nr_wait;
	const struct mempool_tag *tag;
	spinlock_t lock;
	int min_nr;
	struct list_head list;
	int curr_nr;
	void **elements;
	unsigned long nr_fail;
	mempool_alloc_t *alloc;
	wait_queue_head_t wait;
	void *pool_data;
	unsigned long long id;	/* not in the kernel's place */
	mempool_free_t *free;
	char pad[5];
	const char *instance;
	unsigned long nr_empty;
	int low_nr;
	unsigned long nr_reserve;
} mempool_t;

struct mempool_waiter {
	unsigned long pad;	/* not in the kernel's place: entry comes first there */
	struct wait_queue_entry entry;
	struct mempool *pool;
	unsigned long since;
	_Bool slept;
	_Bool bulk;
};

#endif
