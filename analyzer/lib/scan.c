// SPDX-License-Identifier: GPL-2.0
/* kmempool: the scan of kernel memory for mempools. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "scan.h"
#include "walk.h"

#define CHUNK (64 * 1024)
#define PAGES_PER_READ 512
#define CACHES_MAX 4096		/* distinct kmem_caches remembered */
/*
 * max_pfn comes from memory: if that many struct pages in a row are not
 * there (64 GiB of RAM without a struct page), it is not believed.
 */
#define MISSING_RUN_MAX (1ULL << 24)

struct cacheinfo {
	uint64_t addr, size, object_size, pad;
	bool ok;
};

struct scanner {
	const struct kmp_kernel *k;
	const struct kmp_slablayout *sl;
	kmp_scan_fn fn;
	void *arg;
	struct kmp_scan_stats *st;
	unsigned char *buf;
	struct cacheinfo *caches;
	size_t ncaches;
	uint64_t gave_up;		/* pfn where the struct page walk stopped, 0 if not */
};

/*
 * The cheap test on the bytes at @p (a pool's size of them): both function
 * pointers in text, counts sane.  kmp_scan() checked the fields fit
 * (kmp_pool_fields_fit()), so the accessor refuses nothing here.
 */
static bool shape(const struct scanner *s, const unsigned char *p)
{
	const struct kmp_layout *l = s->k->l;
	size_t len = l->pool_size;
	uint64_t alloc, free;
	int64_t min, curr;
	struct kmp_err e;

	if (!kmp_field_get(p, len, &l->alloc, &alloc, &e) ||
	    !kmp_field_get(p, len, &l->free, &free, &e) ||
	    !kmp_kernel_is_text(s->k, alloc) || !kmp_kernel_is_text(s->k, free))
		return false;
	if (!kmp_field_sget(p, len, &l->min_nr, &min, &e) ||
	    !kmp_field_sget(p, len, &l->curr_nr, &curr, &e))
		return false;
	return min >= 0 && min <= KMP_MIN_NR_MAX && curr >= 0 && curr <= min;
}

static void candidate(struct scanner *s, uint64_t addr, enum kmp_where where, uint64_t obj,
		      uint64_t cache)
{
	struct kmp_found f;
	struct kmp_err why;

	s->st->candidates++;
	memset(&f, 0, sizeof(f));
	if (!kmp_pool_check_strict(s->k, s->sl, addr, &f.pi, &why)) {
		if (!s->st->rejected++)
			snprintf(s->st->first_rejection, sizeof(s->st->first_rejection),
				 "0x%" PRIx64 ": %.160s", addr, why.msg);
		return;
	}
	f.where = where;
	f.obj = obj;
	f.cache = cache;
	s->st->pools++;
	s->fn(&f, s->arg);
}

/* Scan [lo, hi) of global data, in chunks that overlap by a pool's size. */
static void scan_range_obj(struct scanner *s, uint64_t lo, uint64_t hi, enum kmp_where where,
			   uint64_t obj);

static void scan_range(struct scanner *s, uint64_t lo, uint64_t hi, enum kmp_where where)
{
	scan_range_obj(s, lo, hi, where, 0);
}

static void scan_range_obj(struct scanner *s, uint64_t lo, uint64_t hi, enum kmp_where where,
			   uint64_t obj)
{
	uint64_t psize = s->k->l->pool_size, ps = s->k->page_size;

	lo = (lo + 7) & ~7ULL;
	for (uint64_t a = lo; a + psize <= hi;) {
		uint64_t len = hi - a < CHUNK ? hi - a : CHUNK;
		struct kmp_err e;

		if (!kmp_read(s->k->mem, a, s->buf, len, &e)) {
			/* Page by page: a dump leaves out zero pages of bss. */
			uint64_t next = (a | (ps - 1)) + 1;

			if (kmp_read(s->k->mem, a, s->buf, (next < hi ? next : hi) - a, &e) &&
			    next - a >= psize) {
				len = next - a;
			} else {
				s->st->unreadable[where]++;
				a = next;
				continue;
			}
		}
		s->st->bytes += len;
		for (uint64_t o = 0; o + psize <= len; o += 8)
			if (shape(s, s->buf + o))
				candidate(s, a + o, where, obj, 0);
		/* The next chunk starts where a pool could still begin. */
		a += len > psize ? len - psize + 8 : len;
	}
}

static const struct cacheinfo *cache_info(struct scanner *s, uint64_t cache)
{
	const struct kmp_slablayout *sl = s->sl;
	struct cacheinfo *c;
	struct kmp_err e;

	for (size_t i = 0; i < s->ncaches; i++)
		if (s->caches[i].addr == cache)
			return &s->caches[i];
	if (s->ncaches == CACHES_MAX)
		return NULL;
	c = &s->caches[s->ncaches++];
	memset(c, 0, sizeof(*c));
	c->addr = cache;
	c->ok = kmp_read_uint(s->k->mem, cache + sl->size.off, sl->size.size, &c->size, &e) &&
		kmp_read_uint(s->k->mem, cache + sl->object_size.off, sl->object_size.size,
			      &c->object_size, &e) &&
		(!sl->red_left_pad.ok ||
		 kmp_read_uint(s->k->mem, cache + sl->red_left_pad.off, sl->red_left_pad.size,
			       &c->pad, &e)) &&
		c->size && c->size <= (1ULL << 22) && c->object_size <= c->size &&
		c->pad < c->size;
	return c;
}

static void scan_slab(struct scanner *s, uint64_t pfn, uint64_t cache, unsigned int order)
{
	const struct kmp_slablayout *sl = s->sl;
	uint64_t psize = s->k->l->pool_size, base, len;
	const struct cacheinfo *c = cache_info(s, cache);
	unsigned char *mem;
	struct kmp_err e;
	unsigned int shift = 0;

	if (!c || !c->ok || c->object_size < psize || order > 10)
		return;
	while ((1ULL << shift) < sl->page_size)
		shift++;
	base = sl->page_offset_base + (pfn << shift);
	len = sl->page_size << order;
	mem = len <= CHUNK ? s->buf : malloc(len);
	if (!mem)
		return;
	if (!kmp_read(s->k->mem, base, mem, len, &e)) {
		s->st->unreadable[KMP_IN_SLAB]++;
		goto out;
	}
	s->st->slabs++;
	s->st->slab_pages += 1ULL << order;
	s->st->bytes += len;
	for (uint64_t obj = base + c->pad; obj + c->object_size <= base + len; obj += c->size)
		for (uint64_t o = 0; o + psize <= c->object_size; o += 8)
			if (shape(s, mem + (obj - base) + o))
				candidate(s, obj + o, KMP_IN_SLAB, obj, cache);
out:
	if (mem != s->buf)
		free(mem);
}

/* Every slab, from the struct pages of vmemmap. */
static void scan_slabs(struct scanner *s, uint64_t max_pfn)
{
	const struct kmp_slablayout *sl = s->sl;
	uint64_t ps = sl->page_struct_size;
	unsigned char *pages = malloc(PAGES_PER_READ * ps + ps);

	uint64_t missing_run = 0;

	if (!pages)
		return;
	for (uint64_t pfn = 0; pfn < max_pfn && !s->gave_up; pfn += PAGES_PER_READ) {
		uint64_t n = max_pfn - pfn < PAGES_PER_READ ? max_pfn - pfn : PAGES_PER_READ;
		struct kmp_err e;

		bool have_next = true, whole = true;

		/* One struct page more: a head's order is in the next one. */
		if (!kmp_read(s->k->mem, sl->vmemmap_base + pfn * ps, pages, (n + 1) * ps, &e)) {
			have_next = false;
			if (!kmp_read(s->k->mem, sl->vmemmap_base + pfn * ps, pages, n * ps, &e))
				whole = false;
		}
		for (uint64_t i = 0; i < n; i++) {
			const unsigned char *p = pages + i * ps;
			uint64_t order = 0, flags, cache;

			/*
			 * Holes in physical memory leave holes in vmemmap (and
			 * /proc/kcore maps only what backs RAM): then one struct
			 * page at a time, so a hole costs only itself.
			 */
			if (!whole && !kmp_read(s->k->mem, sl->vmemmap_base + (pfn + i) * ps,
						(unsigned char *)p, ps, &e)) {
				s->st->vmemmap_holes++;
				/* A vmemmap page that is not there holds no struct page at all. */
				if (!((sl->vmemmap_base + (pfn + i) * ps) & (s->k->page_size - 1))) {
					uint64_t skip = s->k->page_size / ps;

					if (skip > n - i)
						skip = n - i;
					s->st->vmemmap_holes += skip - 1;
					i += skip - 1;
				}
				if (++missing_run > MISSING_RUN_MAX / 64 && !s->gave_up) {
					s->gave_up = pfn + i;
					break;
				}
				continue;
			}
			missing_run = 0;
			if (!kmp_slab_page(sl, p) || !kmp_field_get(p, ps, &sl->flags, &flags, &e) ||
			    !kmp_field_get(p, ps, &sl->slab_cache, &cache, &e))
				continue;
			if (flags & (1ULL << sl->pg_head)) {
				unsigned char t[256];
				const unsigned char *tp = NULL;

				if (whole && (i + 1 < n || have_next))
					tp = p + ps;
				else if (ps <= sizeof(t) &&
					 kmp_read(s->k->mem, sl->vmemmap_base + (pfn + i + 1) * ps, t,
						  ps, &e))
					tp = t;
				if (!tp)
					continue;
				order = kmp_slab_order(sl, tp);
			}
			scan_slab(s, pfn + i, cache, (unsigned int)order);
		}
	}
	free(pages);
}

struct vmalloc_walk {
	struct scanner *s;
	uint64_t bytes;			/* bound on what vmalloc areas add */
};

static bool in_module(const struct kmp_kernel *k, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < k->mods.n; i++)
		for (size_t j = 0; j < k->mods.v[i].nreg; j++)
			if (lo < k->mods.v[i].reg[j].start + k->mods.v[i].reg[j].size &&
			    k->mods.v[i].reg[j].start < hi)
				return true;
	return false;
}

static bool vmalloc_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	struct vmalloc_walk *w = arg;
	struct scanner *s = w->s;
	const struct kmp_vmlayout *vl = &s->k->vmlayout;
	uint64_t va = node - vl->list.off, vm, addr, size, pages, nr;
	struct kmp_err e;
	bool ok = true;

	(void)err;
	ok = kmp_read_uint(s->k->mem, va + vl->vm.off, 8, &vm, &e) && vm &&
	     kmp_read_uint(s->k->mem, vm + vl->vm_addr.off, 8, &addr, &e) &&
	     kmp_read_uint(s->k->mem, vm + vl->vm_size.off, 8, &size, &e) &&
	     kmp_read_uint(s->k->mem, vm + vl->vm_pages.off, 8, &pages, &e) &&
	     kmp_read_uint(s->k->mem, vm + vl->vm_nr_pages.off, vl->vm_nr_pages.size, &nr, &e);
	/* Only memory with pages of its own: vmalloc, not ioremap (device memory). */
	if (!ok || !pages || !nr || nr > (1ULL << 22) || nr * s->k->page_size > size ||
	    addr + nr * s->k->page_size < addr || in_module(s->k, addr, addr + size))
		return true;
	if (w->bytes + nr * s->k->page_size > (1ULL << 32))
		return true;	/* the bound: 4 GiB of vmalloc areas */
	w->bytes += nr * s->k->page_size;
	s->st->vmalloc_areas++;
	scan_range_obj(s, addr, addr + nr * s->k->page_size, KMP_IN_VMALLOC, addr);
	return true;
}

/* The busy vmalloc areas of 6.9 on: one list per node, vmap_nodes[nr_vmap_nodes]. */
#define VMAP_NODES_MAX 4096

static bool vmalloc_lists(struct vmalloc_walk *w, uint64_t *heads, size_t *n, struct kmp_err *err)
{
	const struct kmp_kernel *k = w->s->k;
	const struct kmp_vmlayout *vl = &k->vmlayout;
	uint64_t nodes, nr;
	struct kmp_err why;

	*n = 0;
	if (k->vmap_area_list) {
		heads[(*n)++] = k->vmap_area_list;
		return true;
	}
	if (!k->vmap_nodes_sym || !k->nr_vmap_nodes_sym || !vl->nodes_ok) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "vmalloc areas were not searched: the kernel has neither "
			   "vmap_area_list nor vmap_nodes with a struct vmap_node in the debug info");
		return false;
	}
	if (!kmp_read_uint(k->mem, k->vmap_nodes_sym, 8, &nodes, &why) ||
	    !kmp_read_uint(k->mem, k->nr_vmap_nodes_sym,
			   k->nr_vmap_nodes_size == 8 ? 8 : 4, &nr, &why)) {
		kmp_wraperr(err, &why, "vmalloc areas were not searched: %s", why.msg);
		return false;
	}
	if (!nodes || !nr || nr > VMAP_NODES_MAX || nodes + nr * vl->node_size < nodes) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "vmalloc areas were not searched: implausible vmap_nodes "
			   "0x%" PRIx64 " or nr_vmap_nodes %" PRIu64, nodes, nr);
		return false;
	}
	for (uint64_t i = 0; i < nr; i++)
		heads[(*n)++] = nodes + i * vl->node_size + vl->node_busy_head.off;
	return true;
}

/* Every vmalloc area with pages: false with @err if they could not all be read. */
static bool scan_vmalloc(struct scanner *s, struct kmp_err *err)
{
	struct vmalloc_walk w = { s, 0 };
	uint64_t *heads, last;
	struct kmp_err why;
	size_t n;
	bool ok = true;

	if (!s->k->vmlayout.ok) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "vmalloc areas were not searched: the debug info lacks "
			   "struct vmap_area or vm_struct members");
		return false;
	}
	heads = malloc(VMAP_NODES_MAX * sizeof(*heads));
	if (!heads) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	ok = vmalloc_lists(&w, heads, &n, err);
	for (size_t i = 0; ok && i < n; i++) {
		if (kmp_list_walk(s->k->mem, s->k->l, heads[i], 1u << 22, vmalloc_visit, &w,
				  &last, &why) != KMP_WALK_DONE) {
			kmp_wraperr(err, &why, "the vmalloc area list could not be read to its end: %s",
				    why.msg);
			ok = false;
		}
	}
	free(heads);
	return ok;
}

bool kmp_scan(const struct kmp_kernel *k, const struct kmp_slablayout *sl, uint64_t max_pfn_cap,
	      kmp_scan_fn fn, void *arg, struct kmp_scan_stats *st, struct kmp_err *err)
{
	struct scanner s = { .k = k, .sl = sl, .fn = fn, .arg = arg, .st = st };
	struct kmp_err verr;
	bool ok = true;

	memset(st, 0, sizeof(*st));
	if (!kmp_pool_fields_fit(k->l, err))
		return false;
	if (k->l->pool_size > CHUNK) {
		kmp_seterr(err, KMP_ERR_FORMAT, "struct mempool_s of %" PRIu64 " bytes: too big to "
			   "scan for", k->l->pool_size);
		return false;
	}
	s.buf = malloc(CHUNK);
	s.caches = calloc(CACHES_MAX, sizeof(*s.caches));
	if (!s.buf || !s.caches) {
		free(s.buf);
		free(s.caches);
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	if (k->ro_after_init && k->ro_after_init_end > k->ro_after_init)
		scan_range(&s, k->ro_after_init, k->ro_after_init_end, KMP_IN_KERNEL);
	if (k->sdata && k->edata > k->sdata)
		scan_range(&s, k->sdata, k->edata, KMP_IN_KERNEL);
	if (k->sbss && k->ebss > k->sbss)
		scan_range(&s, k->sbss, k->ebss, KMP_IN_KERNEL);
	for (size_t i = 0; i < k->mods.n; i++)
		scan_range(&s, k->mods.v[i].data.start,
			   k->mods.v[i].data.start + k->mods.v[i].data.size, KMP_IN_MODULE);
	if (!k->mods.complete) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "the module list could not be read (%s): pools in modules "
			   "may be missing", k->mods.why);
		ok = false;
	}
	if (!scan_vmalloc(&s, &verr) && ok) {
		*err = verr;
		ok = false;
	}
	if (sl->objects_ok && !kmp_slab_fields_fit(sl, &verr)) {
		if (ok)
			kmp_wraperr(err, &verr, "slab memory was not searched: %s", verr.msg);
		ok = false;
	} else if (sl->objects_ok && sl->max_pfn && sl->max_pfn <= max_pfn_cap) {
		scan_slabs(&s, sl->max_pfn);
	} else {
		kmp_seterr(err, KMP_ERR_CORRUPT, "slab memory was not searched: %s", !sl->objects_ok ?
			   "the debug info lacks struct page/slab/kmem_cache members, or "
			   "page_offset_base/vmemmap_base are unknown" :
			   "max_pfn is unknown or beyond the bound");
		ok = false;
	}
	if (ok && s.gave_up) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "no struct pages for 64 GiB of memory before pfn 0x%" PRIx64
			   " (max_pfn 0x%" PRIx64 " looks wrong): slabs beyond were not searched",
			   s.gave_up, sl->max_pfn);
		ok = false;
	}
	if (ok && st->unreadable[KMP_IN_SLAB]) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "%" PRIu64 " slabs could not be read: pools in them are missing",
			   st->unreadable[KMP_IN_SLAB]);
		ok = false;
	}
	free(s.buf);
	free(s.caches);
	return ok;
}
