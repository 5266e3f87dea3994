// SPDX-License-Identifier: GPL-2.0
/*
 * Built with -g into a small shared object whose DWARF and symbols stand in
 * for a vmlinux in the unit tests (it is never loaded or run).
 */
#include "fake_kernel.h"

struct list_head mempool_list = { &mempool_list, &mempool_list };
const char mempool_format_version[] = "1.0";
const char linux_banner[] = "Linux version 6.1.0-fake (unit test) #1 SMP\n";
struct task_struct fake_task;
struct wait_queue_entry fake_wait_entry;
enum pagetype fake_page_type = PGTY_buddy;

void mempool_exit(mempool_t *pool)
{
	pool->curr_nr = 0;
	pool->type = MEMPOOL_SLAB;
}
