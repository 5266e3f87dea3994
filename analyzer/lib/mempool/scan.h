/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: find every initialized mempool_t in kernel memory by its shape
 * (kernels without mempool_list have no other inventory).  Where it looks:
 * the kernel's data, read-only-after-init data and bss; each module's data;
 * and every slab whose cache's objects are big enough to hold a pool (from
 * the struct pages in vmemmap); and vmalloc areas backed by pages of their
 * own (vmalloc'd, not ioremapped).  Not the page cache or user memory.  Each candidate must pass
 * kmp_pool_check_strict().
 */
#ifndef KMP_SCAN_H
#define KMP_SCAN_H

#include "poolcheck.h"

enum kmp_where {
	KMP_IN_KERNEL,		/* vmlinux data or bss */
	KMP_IN_MODULE,		/* a module's data */
	KMP_IN_SLAB,		/* a slab object */
	KMP_IN_VMALLOC,		/* a vmalloc area (not a module's) */
};

struct kmp_found {
	struct kmp_poolinfo pi;
	enum kmp_where where;
	uint64_t obj, cache;	/* KMP_IN_SLAB: the object and its kmem_cache;
				 * KMP_IN_VMALLOC: obj is the area's start */
};

typedef void (*kmp_scan_fn)(const struct kmp_found *f, void *arg);

struct kmp_scan_stats {
	uint64_t bytes;			/* scanned */
	uint64_t candidates;		/* shape matched the cheap test */
	uint64_t rejected;		/* ... and failed the full check */
	uint64_t pools;
	uint64_t slabs, slab_pages;	/* slabs scanned, pages they cover */
	uint64_t unreadable[4];		/* unreadable chunks per enum kmp_where */
	uint64_t vmalloc_areas;		/* vmalloc areas searched */
	uint64_t vmemmap_holes;		/* struct pages not there: no RAM behind them */
	char first_rejection[200];	/* for --verbose */
};

/*
 * Scan; @fn is called for each pool, from the caller's thread.  Returns
 * true, or false with @err set when a whole region kind could not be
 * searched (no slab layout, say); chunks that a dump leaves out are
 * counted, not errors.  @max_pfn_cap bounds the struct page walk.  Slabs
 * are searched by up to @threads threads (0: one per CPU, at most 4)
 * when the memory reader can be cloned (kmp_mem_clone()); the result is
 * the same for any number.
 */
bool kmp_scan(const struct kmp_kernel *k, const struct kmp_slablayout *sl, uint64_t max_pfn_cap,
	      unsigned int threads, kmp_scan_fn fn, void *arg, struct kmp_scan_stats *st,
	      struct kmp_err *err);

#endif
