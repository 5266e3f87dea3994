// SPDX-License-Identifier: GPL-2.0
/* kmempool: slab cache names and sizes. */
#include <ctype.h>
#include <inttypes.h>

#include "slab.h"

bool kmp_cache_read(struct kmp_mem *mem, const struct kmp_slablayout *sl, uint64_t cache,
		    char *name, size_t len, uint64_t *object_size, struct kmp_err *err)
{
	uint64_t p;

	if (!sl->ok) {
		kmp_seterr(err, "no layout of struct kmem_cache in the debug info");
		return false;
	}
	if (!kmp_read_uint(mem, cache + sl->name.off, 8, &p, err) ||
	    !kmp_read_uint(mem, cache + sl->object_size.off, sl->object_size.size,
			   object_size, err) ||
	    !kmp_read_string(mem, p, name, len, err))
		return false;
	if (!*name) {
		kmp_seterr(err, "kmem_cache at 0x%" PRIx64 " has an empty name", cache);
		return false;
	}
	for (const char *c = name; *c; c++) {
		if (!isgraph((unsigned char)*c)) {
			kmp_seterr(err, "kmem_cache at 0x%" PRIx64 " has an unprintable name", cache);
			return false;
		}
	}
	return true;
}
