/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types with the kernel's names, for the unit tests.  The members of
 * struct mempool_s and task_struct are deliberately in another order and
 * padded differently than in the kernel: the analyzer must take every
 * offset from DWARF, and the tests check it against offsetof().
 */
#ifndef FAKE_KERNEL_H
#define FAKE_KERNEL_H

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

struct wait_queue_entry {
	unsigned int flags;
	void *private;
	void *func;
	struct list_head entry;
};

struct thread_struct {
	unsigned long es;
	unsigned long sp;
};

struct task_struct {
	long pad0[3];
	unsigned int __state;
	void *stack;
	char pad1[100];
	struct {
		int pid;	/* inside an anonymous struct on purpose */
		int tgid;
	};
	struct list_head thread_group;
	char pad2[37];
	char comm[16];
	struct list_head tasks;
	struct thread_struct thread;
};

/* An unsigned enum whose values need 8 bits (6.12's enum pagetype). */
enum pagetype {
	PGTY_buddy = 0xf0,
	PGTY_slab = 0xf5,
};

enum mempool_type {
	MEMPOOL_SLAB,
	MEMPOOL_KMALLOC,
	MEMPOOL_PAGE,
	MEMPOOL_PRIVATE,
};

typedef struct mempool_s {
	unsigned long nr_wait;
	const char *owner;
	spinlock_t lock;
	int min_nr;
	struct list_head list;
	int curr_nr;
	void **elements;
	void *(*alloc)(unsigned int gfp, void *pool_data);
	wait_queue_head_t wait;
	void *pool_data;
	void (*free)(void *element, void *pool_data);
	char pad[13];
	const char *name;
	enum mempool_type type;
	size_t elem_size;
	int low_nr;
	unsigned long nr_reserve;
} mempool_t;

#endif
