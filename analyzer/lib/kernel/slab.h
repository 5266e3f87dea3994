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
	/* struct page: flags; compound_head (compound_info from 7.x) */
	struct kmp_field flags, compound_head;
	/*
	 * A compound page's order, in the struct page after its head: the
	 * byte compound_order to 6.5, the low byte of folio->_flags_1 since
	 * (order.off is relative to that next struct page).
	 */
	struct kmp_field order;
	uint64_t order_mask;
	/* struct slab's slab_cache (5.17 on), or struct page's before */
	struct kmp_field slab_cache;
	bool cache_in_page;		/* struct page's (kpieces.c: KP_SLAB_CACHE) */
	bool head_by_info;		/* compound_info, 7.x (KP_HEAD) */
	uint64_t page_struct_size;
	/*
	 * How a slab page is told: PG_slab in the flags (to 6.9); from 6.10 a
	 * page type in page_type: 6.10-6.11 a cleared bit under
	 * PAGE_TYPE_BASE, 6.12 on the top byte equal to PGTY_slab.
	 */
	enum { KMP_SLAB_BY_FLAG, KMP_SLAB_BY_TYPE_BIT, KMP_SLAB_BY_TYPE_BYTE } slab_by;
	struct kmp_field page_type;
	int64_t pg_slab, pg_head;			/* the flag, type bit or type byte; PG_head */
	int64_t type_base;				/* PAGE_TYPE_BASE (6.10-6.11) */
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
 * Do the members of struct page (and struct slab, folio) that the slab
 * tests take from its bytes fit page_struct_size (field.h)?  False with
 * @err (kind format) naming the first that does not.
 */
bool kmp_slab_fields_fit(const struct kmp_slablayout *sl, struct kmp_err *err);

/* Is the struct page in @page (page_struct_size bytes) the head or only page of a slab? */
bool kmp_slab_page(const struct kmp_slablayout *sl, const unsigned char *page);

/* The order of the compound page whose head is followed by the struct page in @next. */
unsigned int kmp_slab_order(const struct kmp_slablayout *sl, const unsigned char *next);

/*
 * The head of the compound page that the tail at @page (runtime address,
 * compound_head word @info with bit 0 set) belongs to; false if that does
 * not give a struct page before it.
 */
bool kmp_page_head(const struct kmp_slablayout *sl, uint64_t page, uint64_t info, uint64_t *head);

/*
 * The slab object that holds @addr: its start and its cache.  False if the
 * address is not in the direct map, its page is not a slab page, or the
 * structures do not add up.
 */
bool kmp_slab_object(struct kmp_mem *mem, const struct kmp_slablayout *sl, uint64_t addr,
		     uint64_t *obj, uint64_t *cache);

#endif
