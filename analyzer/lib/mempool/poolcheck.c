// SPDX-License-Identifier: GPL-2.0
/* kmempool: recognise an initialized mempool_t by its shape. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "poolcheck.h"
#include "poolrule.h"

static bool ptr_ok(uint64_t p)
{
	return p && !(p & 7) && p >= 0xff00000000000000ULL;
}

/* The wait queue head: both links readable and pointing back. */
static bool wait_head_ok(const struct kmp_kernel *k, uint64_t head, struct kmp_err *why)
{
	const struct kmp_layout *l = k->l;
	uint64_t next, prev, back;
	struct kmp_err e;

	if (!kmp_read_uint(k->mem, head + l->lh_next.off, 8, &next, &e) ||
	    !kmp_read_uint(k->mem, head + l->lh_prev.off, 8, &prev, &e)) {
		kmp_wraperr(why, &e, "wait queue head unreadable: %s", e.msg);
		return false;
	}
	if (!ptr_ok(next) || !ptr_ok(prev)) {
		kmp_seterr(why, KMP_ERR_CORRUPT, "wait queue head links 0x%" PRIx64 "/0x%" PRIx64 " are not "
			   "kernel pointers", next, prev);
		return false;
	}
	if (next == head && prev == head)
		return true;
	if (!kmp_read_uint(k->mem, next + l->lh_prev.off, 8, &back, &e) || back != head ||
	    !kmp_read_uint(k->mem, prev + l->lh_next.off, 8, &back, &e) || back != head) {
		kmp_seterr(why, KMP_ERR_CORRUPT, "wait queue links do not point back at the head");
		return false;
	}
	return true;
}

/* Strict: every entry on the wait queue has a wake function (at most a bound checked). */
static bool waiters_ok(const struct kmp_kernel *k, uint64_t head, struct kmp_err *why)
{
	const struct kmp_layout *l = k->l;
	uint64_t node = head, func;
	struct kmp_err e;

	for (int i = 0; i < 64; i++) {
		if (!kmp_read_uint(k->mem, node + l->lh_next.off, 8, &node, &e) || !ptr_ok(node)) {
			kmp_seterr(why, KMP_ERR_CORRUPT, "wait queue unreadable");
			return false;
		}
		if (node == head)
			return true;
		if (!l->wqe_func.ok ||
		    !kmp_read_uint(k->mem, node - l->wqe_entry.off + l->wqe_func.off, 8, &func, &e) ||
		    !kmp_kernel_is_func(k, func)) {
			kmp_seterr(why, KMP_ERR_CORRUPT, "wait queue entry 0x%" PRIx64 " has no wake function", node);
			return false;
		}
	}
	return true;
}

static void name_alloc(const struct kmp_kernel *k, const struct kmp_slablayout *sl,
		       struct kmp_poolinfo *pi)
{
	const struct kmp_poolfns *f = &k->fns;
	char cache[KMP_CACHE_NAME_MAX];
	uint64_t osize;
	struct kmp_err e;
	bool cache_ok = !strcmp(pi->type, "slab") &&
		kmp_cache_read(k->mem, sl, pi->pool_data, cache, sizeof(cache), &osize, &e);

	if (cache_ok) {
		pi->elem_size = osize;
		pi->have_elem_size = true;
	}
	if (!strcmp(pi->type, "slab") && pi->alloc == f->alloc_slab) {
		snprintf(pi->alloc_name, sizeof(pi->alloc_name), "mempool_alloc_slab(%s)",
			 cache_ok ? cache : "?");
	} else if (!strcmp(pi->type, "kmalloc") && pi->alloc == f->kmalloc) {
		snprintf(pi->alloc_name, sizeof(pi->alloc_name), "mempool_kmalloc(%" PRIu64 ")",
			 pi->pool_data);
	} else if (!strcmp(pi->type, "page") && pi->alloc == f->alloc_pages) {
		snprintf(pi->alloc_name, sizeof(pi->alloc_name),
			 "mempool_alloc_pages(order %" PRIu64 ")", pi->pool_data);
	} else if (!kmp_kernel_symbolize(k, pi->alloc, pi->alloc_name, sizeof(pi->alloc_name))) {
		snprintf(pi->alloc_name, sizeof(pi->alloc_name), "0x%" PRIx64, pi->alloc);
	}
}

/* The members of mempool_t the checks take from its bytes (field.h). */
struct pool_fields {
	int64_t min_nr, curr_nr;
	uint64_t alloc, free, pool_data, elements, lock;
};

static bool pool_fields(const struct kmp_layout *l, const unsigned char *buf,
			struct pool_fields *pf, struct kmp_err *err)
{
	size_t len = l->pool_size;

	return kmp_field_sget(buf, len, &l->min_nr, &pf->min_nr, err) &&
	       kmp_field_sget(buf, len, &l->curr_nr, &pf->curr_nr, err) &&
	       kmp_field_get(buf, len, &l->alloc, &pf->alloc, err) &&
	       kmp_field_get(buf, len, &l->free, &pf->free, err) &&
	       kmp_field_get(buf, len, &l->pool_data, &pf->pool_data, err) &&
	       kmp_field_get(buf, len, &l->elements, &pf->elements, err) &&
	       kmp_field_get(buf, len, &l->lock_byte, &pf->lock, err);
}

bool kmp_pool_fields_fit(const struct kmp_layout *l, struct kmp_err *err)
{
	const struct kmp_field *const fs[] = { &l->min_nr, &l->curr_nr, &l->alloc, &l->free,
					       &l->pool_data, &l->elements, &l->lock_byte };

	return kmp_fields_fit(fs, sizeof(fs) / sizeof(fs[0]), l->pool_size, err);
}

static bool check(const struct kmp_kernel *k, const struct kmp_slablayout *sl, uint64_t addr,
		  struct kmp_poolinfo *pi, bool strict, struct kmp_err *why)
{
	const struct kmp_layout *l = k->l;
	const struct kmp_poolfns *f = &k->fns;
	const struct kmp_module *m;
	struct pool_fields pf;
	unsigned char *buf;
	struct kmp_err e;
	bool ok = false;

	memset(pi, 0, sizeof(*pi));
	pi->addr = addr;
	if (!kmp_pool_fields_fit(l, why))
		return false;
	if (!ptr_ok(addr)) {
		kmp_seterr(why, KMP_ERR_CORRUPT, "0x%" PRIx64 " is not an aligned kernel address", addr);
		return false;
	}
	buf = malloc(l->pool_size);
	if (!buf) {
		kmp_seterr(why, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	if (!kmp_read(k->mem, addr, buf, l->pool_size, &e)) {
		kmp_wraperr(why, &e, "unreadable: %s", e.msg);
		goto out;
	}
	if (!pool_fields(l, buf, &pf, why))
		goto out;
	pi->min_nr = pf.min_nr;
	pi->curr_nr = pf.curr_nr;
	pi->alloc = pf.alloc;
	pi->free = pf.free;
	pi->pool_data = pf.pool_data;
	if (pi->min_nr > KMP_MIN_NR_MAX || !kmp_pool_curr_ok(pi->min_nr, pi->curr_nr, pf.elements)) {
		kmp_seterr(why, KMP_ERR_CORRUPT, "min_nr %" PRId64 ", curr_nr %" PRId64 " out of range "
			   "(the reserve holds at most %" PRId64 ")", pi->min_nr, pi->curr_nr,
			   kmp_pool_capacity(pi->min_nr, pf.elements));
		goto out;
	}
	if (!kmp_kernel_is_text(k, pi->alloc) || !kmp_kernel_is_text(k, pi->free)) {
		kmp_seterr(why, KMP_ERR_CORRUPT, "alloc 0x%" PRIx64 " or free 0x%" PRIx64 " is not kernel text",
			   pi->alloc, pi->free);
		goto out;
	}
	if (strict && (!kmp_kernel_is_func(k, pi->alloc) || !kmp_kernel_is_func(k, pi->free))) {
		kmp_seterr(why, KMP_ERR_CORRUPT, "alloc 0x%" PRIx64 " or free 0x%" PRIx64 " is no function entry",
			   pi->alloc, pi->free);
		goto out;
	}
	/*
	 * The reserve array (poolrule.h): a zero-minimum pool's is ZERO_SIZE_PTR
	 * up to Linux 6.16 and one slot since; mempool_exit() leaves NULL.
	 */
	if (strict) {
		uint64_t elements = pf.elements;
		uint64_t obj, cache, osize;
		int64_t slots = kmp_pool_slots(pi->min_nr);

		if (pi->min_nr ? !ptr_ok(elements) :
		    elements != KMP_ZERO_SIZE_PTR && !ptr_ok(elements)) {
			kmp_seterr(why, KMP_ERR_CORRUPT, "no reserve array (0x%" PRIx64 "): not initialized, or "
				   "exited", elements);
			goto out;
		}
		/* A real array is kmalloc_array(max(1, min_nr), sizeof(void *)): a slab object of its own. */
		if (elements != KMP_ZERO_SIZE_PTR && sl && sl->objects_ok &&
		    (!kmp_slab_object(k->mem, sl, elements, &obj, &cache) || obj != elements ||
		     !kmp_read_uint(k->mem, cache + sl->object_size.off, sl->object_size.size,
				    &osize, &e) || osize < (uint64_t)slots * 8)) {
			kmp_seterr(why, KMP_ERR_CORRUPT, "reserve array 0x%" PRIx64 " is no slab object of %" PRId64
				   " pointers", elements, slots);
			goto out;
		}
	}
	/* The lock word: qspinlock's locked byte is 0, 1 or (paravirt) 3. */
	if (pf.lock != 0 && pf.lock != 1 && pf.lock != 3) {
		kmp_seterr(why, KMP_ERR_CORRUPT, "lock byte 0x%" PRIx64 " is not a spinlock's", pf.lock);
		goto out;
	}
	/* The reserve: curr_nr readable, non-NULL element pointers. */
	if (pi->curr_nr > 0) {
		uint64_t elements = pf.elements;
		uint64_t n = (uint64_t)pi->curr_nr, chunk[64];

		if (!ptr_ok(elements)) {
			kmp_seterr(why, KMP_ERR_CORRUPT, "elements pointer 0x%" PRIx64 " is bad", elements);
			goto out;
		}
		for (uint64_t i = 0; i < n; i += 64) {
			uint64_t c = n - i < 64 ? n - i : 64;

			if (!kmp_read(k->mem, elements + i * 8, chunk, c * 8, &e)) {
				kmp_wraperr(why, &e, "elements array unreadable: %s", e.msg);
				goto out;
			}
			for (uint64_t j = 0; j < c; j++) {
				if (!chunk[j]) {
					kmp_seterr(why, KMP_ERR_CORRUPT, "element %" PRIu64 " is NULL", i + j);
					goto out;
				}
			}
		}
	}
	if (!wait_head_ok(k, addr + l->wait_head.off, why))
		goto out;
	if (strict && !waiters_ok(k, addr + l->wait_head.off, why))
		goto out;
	/*
	 * The type, by the kernel's own rule (the series' mempool_type(), which
	 * /proc/mempool and the list walk use): the allocation function says
	 * what the elements are; a pool whose allocation function is not one of
	 * mm's is private, of unknown element size, whatever its free function.
	 */
	if (f->alloc_slab && pi->alloc == f->alloc_slab) {
		pi->type = "slab";
	} else if (f->kmalloc && pi->alloc == f->kmalloc) {
		pi->type = "kmalloc";
		pi->elem_size = pi->pool_data;
		pi->have_elem_size = true;
	} else if (f->alloc_pages && pi->alloc == f->alloc_pages) {
		if (pi->pool_data > 20) {
			kmp_seterr(why, KMP_ERR_CORRUPT, "page pool of order %" PRIu64, pi->pool_data);
			goto out;
		}
		pi->type = "page";
		pi->elem_size = k->page_size << pi->pool_data;
		pi->have_elem_size = true;
	} else {
		pi->type = "private";
	}
	name_alloc(k, sl, pi);
	if (strict && !strcmp(pi->type, "slab") && !pi->have_elem_size) {
		kmp_seterr(why, KMP_ERR_CORRUPT, "slab pool whose cache 0x%" PRIx64 " does not read", pi->pool_data);
		goto out;
	}
	if (strict && !strcmp(pi->type, "kmalloc") &&
	    (pi->pool_data == 0 || pi->pool_data > (1ULL << 26))) {
		kmp_seterr(why, KMP_ERR_CORRUPT, "kmalloc pool of %" PRIu64 " bytes", pi->pool_data);
		goto out;
	}
	m = kmp_module_at(&k->mods, addr);
	if (!m)
		m = kmp_module_at(&k->mods, pi->alloc);
	if (m)
		snprintf(pi->owner, sizeof(pi->owner), "%s", m->name);
	ok = true;
out:
	free(buf);
	return ok;
}

bool kmp_pool_check(const struct kmp_kernel *k, const struct kmp_slablayout *sl,
		    uint64_t addr, struct kmp_poolinfo *pi, struct kmp_err *why)
{
	return check(k, sl, addr, pi, false, why);
}

bool kmp_pool_check_strict(const struct kmp_kernel *k, const struct kmp_slablayout *sl,
			   uint64_t addr, struct kmp_poolinfo *pi, struct kmp_err *why)
{
	return check(k, sl, addr, pi, true, why);
}
