// SPDX-License-Identifier: GPL-2.0
/* kmempool: the scan of kernel memory for mempools. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "field.h"
#include "poolrule.h"
#include "scan.h"
#include "walk.h"

#define CHUNK (64 * 1024)
#define PAGES_PER_READ 512
#define CACHES_MAX 4096		/* distinct kmem_caches remembered */
/*
 * max_pfn comes from memory: if that many pfns in a row have no struct
 * page (64 GiB of RAM), it is not believed and the search stops there.
 */
#define MISSING_PFNS_MAX (1ULL << 24)
#define CHUNK_PFNS (1ULL << 15)		/* the slab search's unit of work: 128 MiB */
#define SCAN_THREADS_MAX 4

struct cacheinfo {
	uint64_t addr, size, object_size, pad;
	bool ok;
};

struct chunk;

struct scanner {
	const struct kmp_kernel *k;
	const struct kmp_slablayout *sl;
	struct kmp_mem *mem;		/* this thread's reader */
	kmp_scan_fn fn;
	void *arg;
	struct kmp_scan_stats *st;
	unsigned char *buf;
	unsigned char *pages;		/* struct pages, in the slab search */
	struct cacheinfo *caches;
	size_t ncaches;
	struct chunk *out;		/* where the slab search puts candidates */
	uint64_t gave_up;		/* pfn where the struct page walk stopped, 0 if not */
	bool nomem;
	/*
	 * The span of addresses that can be text (the kernel's, the
	 * modules'): a word outside it is no function pointer, told by one
	 * subtraction before kmp_kernel_is_text() (nearly every word the
	 * scan looks at).  @text_span 0: not known, no shortcut.
	 */
	uint64_t text_lo, text_span;
};

static void found(struct scanner *s, uint64_t addr, uint64_t obj, uint64_t cache);

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
	    (s->text_span && alloc - s->text_lo >= s->text_span) ||
	    !kmp_field_get(p, len, &l->free, &free, &e) ||
	    !kmp_kernel_is_text(s->k, alloc) || !kmp_kernel_is_text(s->k, free))
		return false;
	if (!kmp_field_sget(p, len, &l->min_nr, &min, &e) ||
	    !kmp_field_sget(p, len, &l->curr_nr, &curr, &e))
		return false;
	/* At most max(1, min_nr): a zero-minimum pool keeps one element since 6.17 (poolrule.h). */
	return min >= 0 && min <= KMP_MIN_NR_MAX && curr >= 0 && curr <= kmp_pool_slots(min);
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

		if (!kmp_read(s->mem, a, s->buf, len, &e)) {
			/* Page by page: a dump leaves out zero pages of bss. */
			uint64_t next = (a | (ps - 1)) + 1;

			if (kmp_read(s->mem, a, s->buf, (next < hi ? next : hi) - a, &e) &&
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
	c->ok = kmp_read_uint(s->mem, cache + sl->size.off, sl->size.size, &c->size, &e) &&
		kmp_read_uint(s->mem, cache + sl->object_size.off, sl->object_size.size,
			      &c->object_size, &e) &&
		(!sl->red_left_pad.ok ||
		 kmp_read_uint(s->mem, cache + sl->red_left_pad.off, sl->red_left_pad.size,
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
	if (!kmp_read(s->mem, base, mem, len, &e)) {
		s->st->unreadable[KMP_IN_SLAB]++;
		goto out;
	}
	s->st->slabs++;
	s->st->slab_pages += 1ULL << order;
	s->st->bytes += len;
	for (uint64_t obj = base + c->pad; obj + c->object_size <= base + len; obj += c->size)
		for (uint64_t o = 0; o + psize <= c->object_size; o += 8)
			if (shape(s, mem + (obj - base) + o))
				found(s, obj + o, obj, cache);
out:
	if (mem != s->buf)
		free(mem);
}

/*
 * The slab search, in chunks of struct pages that threads take in turn,
 * each with a reader of its own (kmp_mem_clone()): what a chunk finds is
 * kept (candidates by the cheap test, counts, where struct pages were)
 * and used in chunk order by the caller's thread, which alone checks the
 * candidates and calls back, so that the result is the one a single
 * thread would get.
 */
struct cand {
	uint64_t addr, obj, cache;
};

struct chunk {
	struct cand *v;
	size_t n, cap;
	bool done;			/* its thread has finished it */
	bool present;			/* some struct page of it was read: */
	uint64_t first, last;		/* the pfns of the first and the last */
	struct kmp_scan_stats st;	/* slabs, slab_pages, bytes, unreadable, holes */
};

struct slabwork {
	const struct kmp_kernel *k;
	const struct kmp_slablayout *sl;
	uint64_t max_pfn, nchunks;
	pthread_mutex_t lock;		/* guards what follows */
	uint64_t next;			/* the next chunk to take */
	struct chunk *chunks;		/* [0, nalloc) */
	uint64_t nalloc;
	uint64_t merged;		/* chunks [0, merged) are done and used */
	uint64_t run;			/* pfns without a struct page before chunk merged */
	uint64_t gave_up;		/* see MISSING_PFNS_MAX; 0 if not */
	bool stop, nomem;
};

static void found(struct scanner *s, uint64_t addr, uint64_t obj, uint64_t cache)
{
	struct chunk *c = s->out;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct cand *v = realloc(c->v, cap * sizeof(*v));

		if (!v) {
			s->nomem = true;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = (struct cand){ addr, obj, cache };
}

static void note_present(struct chunk *c, uint64_t pfn)
{
	if (!c->present)
		c->first = pfn;
	c->present = true;
	c->last = pfn;
}

/* The slabs of pfns [lo, hi), from the struct pages of vmemmap, into s->out. */
static void scan_chunk(struct scanner *s, uint64_t lo, uint64_t hi)
{
	const struct kmp_slablayout *sl = s->sl;
	uint64_t ps = sl->page_struct_size;
	unsigned char *pages = s->pages;

	for (uint64_t pfn = lo; pfn < hi; pfn += PAGES_PER_READ) {
		uint64_t n = hi - pfn < PAGES_PER_READ ? hi - pfn : PAGES_PER_READ;
		bool have_next = true, whole = true;
		struct kmp_err e;

		/* One struct page more: a head's order is in the next one. */
		if (!kmp_read(s->mem, sl->vmemmap_base + pfn * ps, pages, (n + 1) * ps, &e)) {
			have_next = false;
			if (!kmp_read(s->mem, sl->vmemmap_base + pfn * ps, pages, n * ps, &e))
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
			if (!whole && !kmp_read(s->mem, sl->vmemmap_base + (pfn + i) * ps,
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
				continue;
			}
			note_present(s->out, pfn + i);
			if (!kmp_slab_page(sl, p) || !kmp_field_get(p, ps, &sl->flags, &flags, &e) ||
			    !kmp_field_get(p, ps, &sl->slab_cache, &cache, &e))
				continue;
			if (flags & (1ULL << sl->pg_head)) {
				unsigned char t[256];
				const unsigned char *tp = NULL;

				if (whole && (i + 1 < n || have_next))
					tp = p + ps;
				else if (ps <= sizeof(t) &&
					 kmp_read(s->mem, sl->vmemmap_base + (pfn + i + 1) * ps, t,
						  ps, &e))
					tp = t;
				if (!tp)
					continue;
				order = kmp_slab_order(sl, tp);
			}
			scan_slab(s, pfn + i, cache, (unsigned int)order);
		}
	}
}

/*
 * Under the lock: use the chunks done in a row from w->merged on.  A run
 * of MISSING_PFNS_MAX pfns without a struct page ends the search there.
 */
static void advance(struct slabwork *w)
{
	while (!w->stop && w->merged < w->nalloc && w->chunks[w->merged].done) {
		const struct chunk *c = &w->chunks[w->merged];
		uint64_t lo = w->merged * CHUNK_PFNS;
		uint64_t hi = w->max_pfn - lo < CHUNK_PFNS ? w->max_pfn : lo + CHUNK_PFNS;
		uint64_t lead = c->present ? c->first - lo : hi - lo;

		if (w->run + lead > MISSING_PFNS_MAX) {
			w->gave_up = lo + (MISSING_PFNS_MAX - w->run);
			w->stop = true;
			return;
		}
		w->run = c->present ? hi - 1 - c->last : w->run + lead;
		w->merged++;
	}
}

/* Keep chunk @i's result @c (under the lock); false when out of memory. */
static bool post(struct slabwork *w, uint64_t i, const struct chunk *c)
{
	if (i >= w->nalloc) {
		uint64_t n = w->nalloc ? 2 * w->nalloc : 64;
		struct chunk *v;

		while (n <= i)
			n *= 2;
		if (n > w->nchunks)
			n = w->nchunks;
		v = realloc(w->chunks, n * sizeof(*v));
		if (!v)
			return false;
		memset(v + w->nalloc, 0, (n - w->nalloc) * sizeof(*v));
		w->chunks = v;
		w->nalloc = n;
	}
	w->chunks[i] = *c;
	w->chunks[i].done = true;
	advance(w);
	return true;
}

struct worker {
	struct slabwork *w;
	struct scanner s;
	struct kmp_mem *clone;		/* NULL for the caller's thread */
	pthread_t thread;
	bool started;
};

static void *work(void *arg)
{
	struct worker *wk = arg;
	struct slabwork *w = wk->w;
	struct scanner *s = &wk->s;

	for (;;) {
		struct chunk c;
		uint64_t i, lo;
		bool kept;

		pthread_mutex_lock(&w->lock);
		i = w->next;
		if (w->stop || i >= w->nchunks) {
			pthread_mutex_unlock(&w->lock);
			break;
		}
		w->next++;
		pthread_mutex_unlock(&w->lock);
		memset(&c, 0, sizeof(c));
		s->out = &c;
		s->st = &c.st;
		lo = i * CHUNK_PFNS;
		scan_chunk(s, lo, w->max_pfn - lo < CHUNK_PFNS ? w->max_pfn : lo + CHUNK_PFNS);
		pthread_mutex_lock(&w->lock);
		kept = !s->nomem && post(w, i, &c);
		if (!kept) {
			w->nomem = w->stop = true;
			free(c.v);
		}
		pthread_mutex_unlock(&w->lock);
	}
	return NULL;
}

/*
 * How many threads search slabs: @want (0: one per CPU, at most
 * SCAN_THREADS_MAX; one when the reader's reads are serial anyway).
 */
static unsigned int slab_threads(unsigned int want, uint64_t nchunks, bool serial)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t n = want ? want : serial ? 1 : cpus > 0 ? (uint64_t)cpus : 1;

	if (n > SCAN_THREADS_MAX)
		n = SCAN_THREADS_MAX;
	return (unsigned int)(n < nchunks ? n : nchunks ? nchunks : 1);
}

static bool worker_init(struct worker *wk, struct slabwork *w, const struct scanner *s,
			struct kmp_mem *mem)
{
	memset(wk, 0, sizeof(*wk));
	wk->w = w;
	wk->s = (struct scanner){ .k = s->k, .sl = s->sl, .mem = mem, .text_lo = s->text_lo,
				  .text_span = s->text_span };
	wk->s.buf = malloc(CHUNK);
	wk->s.caches = calloc(CACHES_MAX, sizeof(*wk->s.caches));
	wk->s.pages = malloc((PAGES_PER_READ + 1) * s->sl->page_struct_size);
	return wk->s.buf && wk->s.caches && wk->s.pages;
}

static void worker_free(struct worker *wk)
{
	free(wk->s.buf);
	free(wk->s.caches);
	free(wk->s.pages);
	kmp_mem_free(wk->clone);
}

/* Every slab, from the struct pages of vmemmap, with up to @threads threads. */
static void scan_slabs(struct scanner *s, uint64_t max_pfn, unsigned int threads)
{
	struct slabwork w = { .k = s->k, .sl = s->sl, .max_pfn = max_pfn };
	struct worker wk[SCAN_THREADS_MAX];
	unsigned int n = 0;

	w.nchunks = (max_pfn + CHUNK_PFNS - 1) / CHUNK_PFNS;
	threads = slab_threads(threads, w.nchunks, s->mem->serial);
	pthread_mutex_init(&w.lock, NULL);
	for (unsigned int t = 0; t < threads; t++) {
		struct kmp_mem *mem = t ? kmp_mem_clone(s->mem) : s->mem;

		if (!mem)
			break;
		if (!worker_init(&wk[n], &w, s, mem)) {
			wk[n].clone = t ? mem : NULL;
			worker_free(&wk[n]);
			s->nomem = true;
			break;
		}
		wk[n].clone = t ? mem : NULL;
		n++;
	}
	for (unsigned int t = 1; t < n; t++)
		wk[t].started = !pthread_create(&wk[t].thread, NULL, work, &wk[t]);
	if (n)
		work(&wk[0]);
	for (unsigned int t = 1; t < n; t++)
		if (wk[t].started)
			pthread_join(wk[t].thread, NULL);
	if (w.nomem || (!w.stop && w.merged < w.nchunks))
		s->nomem = true;
	s->gave_up = w.gave_up;
	/* What a single thread would have found, in its order. */
	for (uint64_t i = 0; i < w.nalloc; i++) {
		struct chunk *c = &w.chunks[i];

		if (i < w.merged) {
			s->st->slabs += c->st.slabs;
			s->st->slab_pages += c->st.slab_pages;
			s->st->bytes += c->st.bytes;
			s->st->unreadable[KMP_IN_SLAB] += c->st.unreadable[KMP_IN_SLAB];
			s->st->vmemmap_holes += c->st.vmemmap_holes;
			for (size_t j = 0; j < c->n; j++)
				candidate(s, c->v[j].addr, KMP_IN_SLAB, c->v[j].obj, c->v[j].cache);
		}
		free(c->v);
	}
	free(w.chunks);
	for (unsigned int t = 0; t < n; t++)
		worker_free(&wk[t]);
	pthread_mutex_destroy(&w.lock);
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
	ok = kmp_read_uint(s->mem, va + vl->vm.off, 8, &vm, &e) && vm &&
	     kmp_read_uint(s->mem, vm + vl->vm_addr.off, 8, &addr, &e) &&
	     kmp_read_uint(s->mem, vm + vl->vm_size.off, 8, &size, &e) &&
	     kmp_read_uint(s->mem, vm + vl->vm_pages.off, 8, &pages, &e) &&
	     kmp_read_uint(s->mem, vm + vl->vm_nr_pages.off, vl->vm_nr_pages.size, &nr, &e);
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
		if (kmp_list_walk(s->mem, s->k->l, heads[i], 1u << 22, vmalloc_visit, &w,
				  &last, &why) != KMP_WALK_DONE) {
			kmp_wraperr(err, &why, "the vmalloc area list could not be read to its end: %s",
				    why.msg);
			ok = false;
		}
	}
	free(heads);
	return ok;
}

/*
 * From the kernel's text and the modules' regions (kmp_module_at()'s
 * index; without it, or without the kernel's text, no shortcut).
 */
static void text_bounds(struct scanner *s)
{
	const struct kmp_kernel *k = s->k;
	uint64_t lo = k->stext, hi = k->etext;

	if (!k->stext || k->etext <= k->stext || (k->mods.n && !k->mods.spans))
		return;
	if (k->mods.nspans) {
		if (k->mods.spans[0].start < lo)
			lo = k->mods.spans[0].start;
		if (k->mods.spans[k->mods.nspans - 1].end > hi)
			hi = k->mods.spans[k->mods.nspans - 1].end;
	}
	s->text_lo = lo;
	s->text_span = hi - lo;
}

bool kmp_scan(const struct kmp_kernel *k, const struct kmp_slablayout *sl, uint64_t max_pfn_cap,
	      unsigned int threads, kmp_scan_fn fn, void *arg, struct kmp_scan_stats *st,
	      struct kmp_err *err)
{
	struct scanner s = { .k = k, .sl = sl, .mem = k->mem, .fn = fn, .arg = arg, .st = st };
	struct kmp_range r[KMP_DATA_RANGES];
	size_t nr;
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
	text_bounds(&s);
	s.buf = malloc(CHUNK);
	s.caches = calloc(CACHES_MAX, sizeof(*s.caches));
	if (!s.buf || !s.caches) {
		free(s.buf);
		free(s.caches);
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	nr = kmp_kernel_data_ranges(k, r);
	for (size_t i = 0; i < nr; i++)
		scan_range(&s, r[i].lo, r[i].hi, KMP_IN_KERNEL);
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
		scan_slabs(&s, sl->max_pfn, threads);
	} else {
		kmp_seterr(err, KMP_ERR_CORRUPT, "slab memory was not searched: %s", !sl->objects_ok ?
			   "the debug info lacks struct page/slab/kmem_cache members, or "
			   "page_offset_base/vmemmap_base are unknown" :
			   "max_pfn is unknown or beyond the bound");
		ok = false;
	}
	if (ok && s.nomem) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory in the search of slabs");
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
