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
};

/*
 * Read the name and object size of the struct kmem_cache at @cache.  The
 * name must be a printable word; false with @err otherwise.
 */
bool kmp_cache_read(struct kmp_mem *mem, const struct kmp_slablayout *sl, uint64_t cache,
		    char *name, size_t len, uint64_t *object_size, struct kmp_err *err);

#endif
