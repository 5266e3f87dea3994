// SPDX-License-Identifier: GPL-2.0
/*
 * Built with -g into a small shared object whose DWARF stands in for a
 * vmlinux's struct module, kmem_cache, page and vmalloc types in the unit
 * test and fuzz harness of their loaders (never loaded or run).  One unit
 * holds them all; kobj_fn is the code whose address finds it.
 */
#include "fake_kobjs.h"

struct list_head modules = { &modules, &modules };
struct module kobj_module;
struct mod_kallsyms kobj_kallsyms;
struct kmem_cache kobj_cache;
struct slab kobj_slab;
struct folio kobj_folio;
struct vmap_area kobj_va;
struct vmap_node kobj_node;
enum pageflags kobj_pageflag = PG_slab;
enum mod_mem_type kobj_memtype = MOD_DATA;

unsigned long kobj_fn(struct module *m)
{
	return m->mem[MOD_TEXT].size + kobj_va.va_start + kobj_folio._flags_1 +
	       (unsigned long)kobj_slab.slab_cache;
}
