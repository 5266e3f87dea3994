/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: what the analyzer reads of slab caches (struct kmem_cache). */
#ifndef KMP_SLAB_H
#define KMP_SLAB_H

#include <stdbool.h>
#include <stddef.h>

#include "layout.h"
#include "mem.h"

#define KMP_CACHE_NAME_MAX 64

struct kmp_slablayout {
	struct kmp_field name, object_size;
	bool ok;
	/* for finding the object around an address (kmp_slab_object) */
	struct kmp_field size, red_left_pad;		/* struct kmem_cache */
	struct kmp_field flags, compound_head, compound_order;	/* struct page */
	struct kmp_field slab_cache;			/* struct slab */
	uint64_t page_struct_size;
	int64_t pg_slab, pg_head;			/* enum pageflags */
	uint64_t page_offset_base, vmemmap_base;	/* runtime, from memory */
	uint64_t max_pfn;				/* runtime, 0 if unknown */
	uint64_t page_size;
	bool objects_ok;
};

/*
 * Read the name and object size of the struct kmem_cache at @cache.  The
 * name must be a printable word; false with @err otherwise.
 */
bool kmp_cache_read(struct kmp_mem *mem, const struct kmp_slablayout *sl, uint64_t cache,
		    char *name, size_t len, uint64_t *object_size, struct kmp_err *err);

/*
 * The slab object that holds @addr: its start and its cache.  False if the
 * address is not in the direct map, its page is not a slab page, or the
 * structures do not add up.
 */
bool kmp_slab_object(struct kmp_mem *mem, const struct kmp_slablayout *sl, uint64_t addr,
		     uint64_t *obj, uint64_t *cache);

#endif
