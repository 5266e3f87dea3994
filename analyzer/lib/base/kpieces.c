// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: the one table of what kernels differ in (kpieces.h).  A name
 * is spelled here and nowhere else; a kernel that renames a piece again
 * gets a row here, and the code, the errors, layout_probe and the README
 * follow.
 */
#include <string.h>

#include "kpieces.h"

const char kn_mempool_alloc[] = "mempool_alloc";
const char kn_mempool_alloc_noprof[] = "mempool_alloc_noprof";
const char kn_mempool_alloc_from_pool[] = "mempool_alloc_from_pool";
const char kn_mempool_alloc_bulk_noprof[] = "mempool_alloc_bulk_noprof";
const char kn_mempool_s[] = "mempool_s";
const char kn_mempool[] = "mempool";
const char kn_task_state_new[] = "__state";
const char kn_task_state_old[] = "state";
const char kn_thread_group[] = "thread_group";
const char kn_thread_head[] = "thread_head";
const char kn_thread_node[] = "thread_node";
const char kn_end_init_task[] = "__end_init_task";
const char kn_end_init_stack[] = "__end_init_stack";
const char kn_core_layout[] = "core_layout";
const char kn_mod_mem[] = "mem";
const char kn_mod_mem_type[] = "mod_mem_type";
const char kn_vmap_area_list[] = "vmap_area_list";
const char kn_vmap_nodes[] = "vmap_nodes";
const char kn_nr_vmap_nodes[] = "nr_vmap_nodes";
const char kn_busy_head[] = "busy.head";
const char kn_pg_slab[] = "PG_slab";
const char kn_page_type[] = "page_type";
const char kn_page_type_base[] = "PAGE_TYPE_BASE";
const char kn_pgty_slab[] = "PGTY_slab";
const char kn_slab_cache[] = "slab_cache";
const char kn_compound_order[] = "compound_order";
const char kn_flags_1[] = "_flags_1";
const char kn_compound_head[] = "compound_head";
const char kn_compound_info[] = "compound_info";

static const char *const titles[KP_N] = {
	[KP_WAITFN] = "where a waiter sleeps",
	[KP_POOL] = "the pool struct",
	[KP_TASK_STATE] = "a task's state",
	[KP_THREADS] = "a process's threads",
	[KP_STACK_END] = "a task stack's size",
	[KP_MODMEM] = "a module's memory",
	[KP_VMAP] = "vmalloc areas",
	[KP_SLAB_TEST] = "slab pages",
	[KP_SLAB_CACHE] = "a slab's cache",
	[KP_ORDER] = "a compound page's order",
	[KP_HEAD] = "a tail page's head",
};

const struct kmp_kalt kmp_kalts[] = {
	{ KP_WAITFN, 0, kn_mempool_alloc, "`mempool_alloc()`", "to 6.9" },
	{ KP_WAITFN, 1, kn_mempool_alloc_noprof, "`mempool_alloc_noprof()`",
	  "6.10 on, behind `alloc_hooks()`" },
	{ KP_WAITFN, 2, kn_mempool_alloc_from_pool, "`mempool_alloc_from_pool()`",
	  "7.x: the wait moved into this helper" },
	{ KP_WAITFN, 3, kn_mempool_alloc_bulk_noprof, "`mempool_alloc_bulk_noprof()`",
	  "7.x: the bulk path, which may inline that helper" },
	{ KP_POOL, 0, kn_mempool_s, "`struct mempool_s`", "to 6.x" },
	{ KP_POOL, 1, kn_mempool, "`struct mempool`", "7.x" },
	{ KP_TASK_STATE, 0, kn_task_state_new, "`task_struct.__state`", "5.14 on" },
	{ KP_TASK_STATE, 1, kn_task_state_old, "`task_struct.state`", "to 5.13" },
	{ KP_THREADS, 0, kn_thread_group, "`task_struct.thread_group`", "to 6.6" },
	{ KP_THREADS, 1, kn_thread_head, "`signal->thread_head`", "6.7 on" },
	{ KP_THREADS, 1, kn_thread_node, "`task_struct.thread_node`", NULL },
	{ KP_STACK_END, 0, kn_end_init_task, "`init_stack`..`__end_init_task`", "to 6.1" },
	{ KP_STACK_END, 1, kn_end_init_stack, "`init_stack`..`__end_init_stack`", "6.2 on" },
	{ KP_MODMEM, 0, kn_core_layout, "`module.core_layout`", "to 6.3" },
	{ KP_MODMEM, 1, kn_mod_mem, "`module.mem[]`", "6.4 on" },
	{ KP_MODMEM, 1, kn_mod_mem_type, "`enum mod_mem_type`", NULL },
	{ KP_VMAP, 0, kn_vmap_area_list, "`vmap_area_list`", "to 6.8" },
	{ KP_VMAP, 1, kn_vmap_nodes, "`vmap_nodes[]`", "6.9 on" },
	{ KP_VMAP, 1, kn_nr_vmap_nodes, "`nr_vmap_nodes`", NULL },
	{ KP_VMAP, 1, kn_busy_head, "`vmap_node.busy.head`", NULL },
	{ KP_SLAB_TEST, 0, kn_pg_slab, "`PG_slab` in `page.flags`", "to 6.9" },
	{ KP_SLAB_TEST, 1, kn_page_type, "`page.page_type`", "6.10-6.11" },
	{ KP_SLAB_TEST, 1, kn_page_type_base, "the `PG_slab` bit under `PAGE_TYPE_BASE`", NULL },
	{ KP_SLAB_TEST, 2, kn_page_type, "`page.page_type`", "6.12 on" },
	{ KP_SLAB_TEST, 2, kn_pgty_slab, "its top byte `PGTY_slab`", NULL },
	{ KP_SLAB_CACHE, 0, kn_slab_cache, "`slab.slab_cache`", "5.17 on" },
	{ KP_SLAB_CACHE, 1, kn_slab_cache, "`page.slab_cache`", "to 5.16" },
	{ KP_ORDER, 0, kn_compound_order, "`page[1].compound_order`", "to 6.5" },
	{ KP_ORDER, 1, kn_flags_1, "`folio._flags_1`'s low byte", "6.6 on" },
	{ KP_HEAD, 0, kn_compound_head, "`page.compound_head`", NULL },
	{ KP_HEAD, 1, kn_compound_info, "`page.compound_info`", "7.x: a pointer, or a mask with HVO" },
};

const size_t kmp_nkalts = sizeof(kmp_kalts) / sizeof(kmp_kalts[0]);

const char *kmp_piece_title(enum kmp_piece p)
{
	return (unsigned int)p < KP_N ? titles[p] : "?";
}

unsigned int kmp_piece_nalts(enum kmp_piece p)
{
	unsigned int n = 0;

	for (size_t i = 0; i < kmp_nkalts; i++)
		if (kmp_kalts[i].piece == p && kmp_kalts[i].alt + 1 > n)
			n = kmp_kalts[i].alt + 1;
	return n;
}

/*
 * Appends @s to @buf (of @size, NUL-terminated), never past it; without
 * the README's back quotes unless @md.
 */
static void add(char *buf, size_t size, const char *s, bool md)
{
	size_t n = strlen(buf);

	for (; *s && n + 1 < size; s++)
		if (md || *s != '`')
			buf[n++] = *s;
	buf[n] = '\0';
}

const char *kmp_piece_alt(enum kmp_piece p, unsigned int a, bool md, char *buf, size_t size)
{
	const char *when = NULL;
	bool first = true;

	for (size_t i = 0; i < kmp_nkalts; i++) {
		if (kmp_kalts[i].piece != p || kmp_kalts[i].alt != a)
			continue;
		add(buf, size, first ? "" : " + ", md);
		add(buf, size, kmp_kalts[i].shown, md);
		when = when ? when : kmp_kalts[i].when;
		first = false;
	}
	return when;
}

char *kmp_piece_list(enum kmp_piece p, bool md, char *buf, size_t size)
{
	unsigned int n = kmp_piece_nalts(p);

	if (!size)
		return buf;
	buf[0] = '\0';
	for (unsigned int a = 0; a < n; a++) {
		const char *when;

		add(buf, size, a ? "; " : "", md);
		when = kmp_piece_alt(p, a, md, buf, size);
		if (when) {
			add(buf, size, " (", md);
			add(buf, size, when, md);
			add(buf, size, ")", md);
		}
	}
	return buf;
}
