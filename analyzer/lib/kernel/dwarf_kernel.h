/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: layouts beyond mempool_t, each from the one compilation unit
 * that holds a given function (struct module from kernel/module/main.c,
 * struct kmem_cache from mm/mempool.c).
 */
#ifndef KMP_DWARF_KERNEL_H
#define KMP_DWARF_KERNEL_H

#include "modules.h"
#include "slab.h"
#include "vmlinux.h"

/* @cu_addr: link-time address of code in the unit that defines the types. */
bool kmp_modlayout_load(struct kmp_vmlinux *v, uint64_t cu_addr, bool no_aranges,
			struct kmp_modlayout *ml);
/* @slab_cu_addr: code in the slab allocator's unit, for struct page and struct slab. */
bool kmp_slablayout_load(struct kmp_vmlinux *v, uint64_t cu_addr, uint64_t slab_cu_addr,
			 bool no_aranges, struct kmp_slablayout *sl);

/* struct vmap_area and struct vm_struct (vmalloc areas), from mm/vmalloc.c's unit. */
struct kmp_vmlayout {
	struct kmp_field va_start, va_end, list, vm;
	struct kmp_field vm_addr, vm_size, vm_pages, vm_nr_pages;
	uint64_t va_size;
	bool ok;
	/* 6.9 on: struct vmap_node, whose busy.head lists its vmap_areas */
	struct kmp_field node_busy_head;
	uint64_t node_size;
	bool nodes_ok;
};

bool kmp_vmlayout_load(struct kmp_vmlinux *v, uint64_t cu_addr, struct kmp_vmlayout *vl);

/*
 * struct clocksource's name, mult and shift, from kernel/time/jiffies.c's
 * unit (@cu_addr: jiffies_read()): the jiffies clocksource tells HZ on
 * kernels without tick_nsec.
 */
struct kmp_cslayout {
	struct kmp_field name, mult, shift;
	uint64_t size;
	bool ok;
};

bool kmp_cslayout_load(struct kmp_vmlinux *v, uint64_t cu_addr, struct kmp_cslayout *cl);

#endif
