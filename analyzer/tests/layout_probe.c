// SPDX-License-Identifier: GPL-2.0
/*
 * layout_probe VMLINUX: which of its known alternatives each piece of the
 * kernel that kmempool relies on takes in this vmlinux (symbols and DWARF
 * only, no memory), one line each; exit 0 only if every piece was found.
 * The stock rigs run it on each Debian suite's vmlinux.
 */
#include <stdio.h>
#include <string.h>

#include "dwarf_kernel.h"
#include "layout.h"
#include "vmlinux.h"

static int missing;

static void piece(const char *what, const char *how)
{
	printf("%-16s %s\n", what, how ? how : "MISSING");
	missing += !how;
}

/* The names of the symbols found, "a, b", or NULL if none. */
static const char *found(const struct kmp_sym *s, size_t n)
{
	static char buf[200];

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (s[i].found)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
				 buf[0] ? ", " : "", s[i].name);
	return buf[0] ? buf : NULL;
}

int main(int argc, char **argv)
{
	struct kmp_sym wait[] = { { .name = "mempool_alloc" }, { .name = "mempool_alloc_noprof" },
				  { .name = "mempool_alloc_from_pool" } };
	struct kmp_sym stack_end[] = { { .name = "__end_init_task" }, { .name = "__end_init_stack" } };
	struct kmp_sym vmap[] = { { .name = "vmap_area_list" }, { .name = "vmap_nodes" } };
	struct kmp_sym cu[] = { { .name = "mempool_exit" }, { .name = "__module_address" }, { .name = "vfree" },
				{ .name = "kmem_cache_free" } };
	struct kmp_vmlinux v;
	struct kmp_layout l;
	struct kmp_modlayout ml;
	struct kmp_slablayout sl;
	struct kmp_vmlayout vl;
	struct kmp_err err;
	char buf[160];

	if (argc != 2) {
		fprintf(stderr, "usage: layout_probe VMLINUX\n");
		return 2;
	}
	memset(&v, 0, sizeof(v));
	if (!kmp_vmlinux_open(&v, argv[1], &err)) {
		fprintf(stderr, "layout_probe: %s\n", err.msg);
		return 2;
	}
	kmp_vmlinux_symbols(&v, wait, 3);
	kmp_vmlinux_symbols(&v, stack_end, 2);
	kmp_vmlinux_symbols(&v, vmap, 2);
	kmp_vmlinux_symbols(&v, cu, 4);
	if (!kmp_layout_load(&v, cu[0].found ? cu[0].addr : 0, false, &l, &err)) {
		piece("mempool", NULL);
		fprintf(stderr, "layout_probe: %s\n", err.msg);
	} else {
		snprintf(buf, sizeof(buf), "struct %s, %llu bytes%s", l.pool_struct,
			 (unsigned long long)l.pool_size, l.series ? ", with the series" : "");
		piece("mempool", buf);
		piece("tasks", l.have_tasks ? "pid, comm, __state or state" : NULL);
		piece("task stacks", !l.have_stacks ? NULL : l.threads_by_signal ?
		      "tasks, signal->thread_head, stack, thread.sp" :
		      "tasks, thread_group, stack, thread.sp");
	}
	piece("waiter sleeps in", found(wait, 3));
	piece("stack end", found(stack_end, 2));
	piece("vmalloc areas", found(vmap, 2));
	if (kmp_modlayout_load(&v, cu[0].addr, false, &ml) ||
	    kmp_modlayout_load(&v, cu[1].found ? cu[1].addr : 0, false, &ml))
		piece("modules", ml.per_kind ? "mem[] by enum mod_mem_type" : "core_layout");
	else
		piece("modules", NULL);
	kmp_vmlayout_load(&v, cu[2].found ? cu[2].addr : 0, &vl);
	piece("vmap_area", vl.ok ? "va_start, va_end, list, vm" : NULL);
	if (vmap[1].found && !vmap[0].found)
		piece("vmap_node", vl.nodes_ok ? "busy.head" : NULL);
	kmp_slablayout_load(&v, cu[0].addr, cu[3].found ? cu[3].addr : 0, false, &sl);
	piece("kmem_cache", sl.ok ? "name, object_size" : NULL);
	if (sl.objects_ok) {
		snprintf(buf, sizeof(buf), "%s %lld; order from %s; struct page %llu bytes",
			 sl.slab_by == KMP_SLAB_BY_FLAG ? "PG_slab flag bit" :
			 sl.slab_by == KMP_SLAB_BY_TYPE_BIT ? "page_type bit" :
			 "page_type top byte PGTY_slab", (long long)sl.pg_slab,
			 sl.order_mask == 0xff ? "folio _flags_1" : "compound_order",
			 (unsigned long long)sl.page_struct_size);
		piece("slab pages", buf);
	} else {
		piece("slab pages", NULL);
	}
	kmp_vmlinux_close(&v);
	return missing ? 1 : 0;
}
