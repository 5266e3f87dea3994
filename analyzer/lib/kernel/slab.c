// SPDX-License-Identifier: GPL-2.0
/* kmempool: slab cache names and sizes. */
#include <ctype.h>
#include <inttypes.h>

#include "field.h"
#include "slab.h"

bool kmp_cache_read(struct kmp_mem *mem, const struct kmp_slablayout *sl, uint64_t cache,
		    char *name, size_t len, uint64_t *object_size, struct kmp_err *err)
{
	uint64_t p;

	if (!sl->ok) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "no layout of struct kmem_cache in the debug info");
		return false;
	}
	if (!kmp_read_uint(mem, cache + sl->name.off, 8, &p, err) ||
	    !kmp_read_uint(mem, cache + sl->object_size.off, sl->object_size.size,
			   object_size, err) ||
	    !kmp_read_string(mem, p, name, len, err))
		return false;
	if (!*name) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "kmem_cache at 0x%" PRIx64 " has an empty name", cache);
		return false;
	}
	for (const char *c = name; *c; c++) {
		if (!isgraph((unsigned char)*c)) {
			kmp_seterr(err, KMP_ERR_CORRUPT, "kmem_cache at 0x%" PRIx64 " has an unprintable name", cache);
			return false;
		}
	}
	return true;
}

/*
 * Field @f of the struct page in @page (page_struct_size bytes), 0 if the
 * accessor refuses it (kmp_slab_fields_fit() says beforehand whether it would).
 */
static uint64_t field(const struct kmp_slablayout *sl, const unsigned char *page,
		      const struct kmp_field *f)
{
	struct kmp_err e;
	uint64_t v;

	return kmp_field_get(page, sl->page_struct_size, f, &v, &e) ? v : 0;
}

bool kmp_slab_fields_fit(const struct kmp_slablayout *sl, struct kmp_err *err)
{
	const struct kmp_field *const fs[] = { &sl->compound_head, &sl->flags, &sl->slab_cache,
					       &sl->order, &sl->page_type };
	size_t n = sl->slab_by == KMP_SLAB_BY_FLAG ? 4 : 5;

	return kmp_fields_fit(fs, n, sl->page_struct_size, err);
}

bool kmp_slab_page(const struct kmp_slablayout *sl, const unsigned char *page)
{
	uint64_t t;

	if (field(sl, page, &sl->compound_head) & 1)
		return false;		/* a tail page */
	switch (sl->slab_by) {
	case KMP_SLAB_BY_FLAG:
		return field(sl, page, &sl->flags) & (1ULL << sl->pg_slab);
	case KMP_SLAB_BY_TYPE_BIT:
		t = field(sl, page, &sl->page_type);
		return (t & (uint64_t)(sl->type_base | sl->pg_slab)) == (uint64_t)sl->type_base;
	case KMP_SLAB_BY_TYPE_BYTE:
		return (field(sl, page, &sl->page_type) >> 24) == (uint64_t)sl->pg_slab;
	}
	return false;
}

unsigned int kmp_slab_order(const struct kmp_slablayout *sl, const unsigned char *next)
{
	return (unsigned int)(field(sl, next, &sl->order) & sl->order_mask);
}

bool kmp_page_head(const struct kmp_slablayout *sl, uint64_t page, uint64_t info, uint64_t *head)
{
	uint64_t h = info - 1;

	/* A pointer to the head, or (7.x with HVO) a mask that gives it from the tail. */
	if (h >= page || h < sl->vmemmap_base)
		h = page & info;
	if (h >= page || h < sl->vmemmap_base || (h - sl->vmemmap_base) % sl->page_struct_size ||
	    (page - h) / sl->page_struct_size > (1u << 20))
		return false;
	*head = h;
	return true;
}

static bool page_of(struct kmp_mem *mem, const struct kmp_slablayout *sl, uint64_t pfn,
		    uint64_t *page, uint64_t *flags)
{
	struct kmp_err e;

	*page = sl->vmemmap_base + pfn * sl->page_struct_size;
	return kmp_read_uint(mem, *page + sl->flags.off, 8, flags, &e);
}

bool kmp_slab_object(struct kmp_mem *mem, const struct kmp_slablayout *sl, uint64_t addr,
		     uint64_t *obj, uint64_t *cache)
{
	uint64_t pfn, page, flags, head, size, pad = 0, base, idx, shift = 0;
	unsigned char pbuf[256];
	struct kmp_err e;

	if (!sl->ok || !sl->objects_ok || addr < sl->page_offset_base)
		return false;
	while ((1ULL << shift) < sl->page_size)
		shift++;
	pfn = (addr - sl->page_offset_base) >> shift;
	if (pfn > (1ULL << 40) || !page_of(mem, sl, pfn, &page, &flags))
		return false;
	/* A tail page leads to its head (bit 0 set). */
	if (!kmp_read_uint(mem, page + sl->compound_head.off, 8, &head, &e))
		return false;
	if (head & 1) {
		if (!kmp_page_head(sl, page, head, &page))
			return false;
		pfn = (page - sl->vmemmap_base) / sl->page_struct_size;
	}
	if (sl->page_struct_size > sizeof(pbuf) ||
	    !kmp_read(mem, page, pbuf, sl->page_struct_size, &e) || !kmp_slab_page(sl, pbuf))
		return false;
	if (!kmp_read_uint(mem, page + sl->slab_cache.off, 8, cache, &e) || !*cache ||
	    !kmp_read_uint(mem, *cache + sl->size.off, sl->size.size, &size, &e) ||
	    !size || size > (1ULL << 26))
		return false;
	if (sl->red_left_pad.ok &&
	    !kmp_read_uint(mem, *cache + sl->red_left_pad.off, sl->red_left_pad.size, &pad, &e))
		return false;
	base = sl->page_offset_base + (pfn << shift);
	idx = (addr - base) / size;
	*obj = base + idx * size + pad;
	return *obj <= addr;
}
