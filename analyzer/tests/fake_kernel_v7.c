// SPDX-License-Identifier: GPL-2.0
/*
 * Built with -g into a small shared object whose DWARF and symbols stand in
 * for a series v7 vmlinux (Linux 7.2) in the unit tests (never loaded or
 * run): the layout, the format strings (1.1, with the id column) and the
 * functions that tell a pool's type and a mempool_alloc() waiter.
 */
#include "fake_kernel_v7.h"

struct list_head mempool_list = { &mempool_list, &mempool_list };
static const char mempool_format_version[] __attribute__((used)) = "1.1";
static const char mempool_format_columns[] __attribute__((used)) = {
	"# name                         type    elem_size min_nr curr_nr low_nr from_reserve    waits waiting   failed  emptied oldest_wait owner instance site id"
};
const char linux_banner[] = "Linux version 7.2.13-fake (unit test) #1 SMP\n";
/* 7.2 has no tick_nsec: HZ (250 here) comes from INITIAL_JIFFIES, -300 * HZ. */
unsigned long long jiffies_64 = (unsigned long)(unsigned int)(-300 * 250);
struct task_struct fake_task;
struct mempool_waiter fake_waiter;
struct kmem_cache fake_cache;
static const struct mempool_tag fake_tag __attribute__((used)) = {
	.ct = { .function = "mempool_exit", .filename = "mm/mempool.c", .lineno = 1 },
};

void *mempool_alloc_slab(unsigned int gfp_mask, void *pool_data)
{
	(void)gfp_mask;
	return pool_data;
}

void *mempool_kmalloc(unsigned int gfp_mask, void *pool_data)
{
	(void)gfp_mask;
	return pool_data;
}

void *mempool_alloc_pages(unsigned int gfp_mask, void *pool_data)
{
	(void)gfp_mask;
	return pool_data;
}

static int mempool_wake_function(struct wait_queue_entry *entry, unsigned int mode,
				 int flags, void *key)
{
	(void)mode;
	(void)flags;
	(void)key;
	return entry->flags;
}

int autoremove_wake_function(struct wait_queue_entry *entry, unsigned int mode, int flags,
			     void *key)
{
	(void)mode;
	(void)flags;
	(void)key;
	return (int)entry->flags;
}

void mempool_exit(mempool_t *pool)
{
	pool->curr_nr = 0;
	pool->tag = &fake_tag;
	fake_waiter.entry.func = mempool_wake_function;
	fake_cache.object_size = 0;
}
