// SPDX-License-Identifier: GPL-2.0
/* kmempool: kernel symbols, text ranges and modules for the memory searches. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsearch.h"
#include "dwarf_kernel.h"
#include "kernel.h"
#include "kpieces.h"
#include "vmsyms.h"

enum {
	K_STEXT, K_ETEXT, K_SDATA, K_EDATA, K_SBSS, K_EBSS, K_INIT_TASK, K_MEMPOOL_FREE,
	K_AUTOREMOVE, K_INIT_STACK, K_END_INIT_TASK, K_END_INIT_STACK, K_ALLOC_SLAB, K_FREE_SLAB, K_KMALLOC,
	K_KFREE, K_ALLOC_PAGES, K_FREE_PAGES, K_MODULES, K_MODULE_CU, K_PAGE_OFFSET_BASE,
	K_VMEMMAP_BASE, K_RO_AFTER_INIT, K_RO_AFTER_INIT_END, K_MAX_PFN, K_VMAP_AREA_LIST, K_VFREE,
	K_VMAP_NODES, K_NR_VMAP_NODES, K_MEMPOOL_WAKE, K_BSS_FREED, K_BSS_FREED_END,
	/* the functions a waiter sleeps in, any of them (KMP_WAITFN_MAX) */
	K_WAIT0, K_WAIT1, K_WAIT2, K_WAIT3, K_N
};

/* The names kmp_kernel_init() looks up, by K_ index. */
static const char *const knames[K_N] = {
	[K_STEXT] = "_stext", [K_ETEXT] = "_etext", [K_SDATA] = "_sdata", [K_EDATA] = "_edata",
	[K_SBSS] = "__bss_start", [K_EBSS] = "__bss_stop", [K_INIT_TASK] = "init_task",
	[K_MEMPOOL_FREE] = "mempool_free", [K_AUTOREMOVE] = "autoremove_wake_function",
	[K_MEMPOOL_WAKE] = "mempool_wake_function", [K_INIT_STACK] = "init_stack",
	[K_END_INIT_TASK] = kn_end_init_task, [K_END_INIT_STACK] = kn_end_init_stack,
	[K_ALLOC_SLAB] = "mempool_alloc_slab", [K_FREE_SLAB] = "mempool_free_slab",
	[K_KMALLOC] = "mempool_kmalloc", [K_KFREE] = "mempool_kfree",
	[K_ALLOC_PAGES] = "mempool_alloc_pages", [K_FREE_PAGES] = "mempool_free_pages",
	[K_MODULES] = "modules", [K_MODULE_CU] = "__module_address",
	[K_PAGE_OFFSET_BASE] = "page_offset_base", [K_VMEMMAP_BASE] = "vmemmap_base",
	[K_RO_AFTER_INIT] = "__start_ro_after_init",
	[K_RO_AFTER_INIT_END] = "__end_ro_after_init", [K_MAX_PFN] = "max_pfn",
	[K_VMAP_AREA_LIST] = kn_vmap_area_list, [K_VFREE] = "vfree", [K_VMAP_NODES] = kn_vmap_nodes,
	[K_NR_VMAP_NODES] = kn_nr_vmap_nodes,
	/* AMD_MEM_ENCRYPT: bss padding the kernel frees at boot (mem_encrypt_free_decrypted_mem()) */
	[K_BSS_FREED] = "__start_bss_decrypted_unused", [K_BSS_FREED_END] = "__end_bss_decrypted",
	/* the functions a waiter sleeps in, any of them (kpieces.c: KP_WAITFN) */
	[K_WAIT0] = kn_mempool_alloc, [K_WAIT1] = kn_mempool_alloc_noprof,
	[K_WAIT2] = kn_mempool_alloc_from_pool, [K_WAIT3] = kn_mempool_alloc_bulk_noprof,
};
_Static_assert(K_N - K_WAIT0 == KMP_WAITFN_MAX, "a K_WAIT slot for each function of KP_WAITFN");

void kmp_kernel_expect(struct kmp_vmlinux *vml)
{
	kmp_vmlinux_expect(vml, knames, K_N);
}

bool kmp_kernel_init(struct kmp_kernel *k, struct kmp_mem *mem, const struct kmp_layout *l,
		     struct kmp_vmlinux *vml, uint64_t kaslr, uint64_t page_size,
		     const struct kmp_limits_mods *lim, struct kmp_err *err)
{
	struct kmp_sym s[K_N];
	static const int needed[] = { K_STEXT, K_ETEXT, K_INIT_TASK, K_MEMPOOL_FREE,
				      K_AUTOREMOVE, K_INIT_STACK };
	struct kmp_modlayout ml;
	const struct kmp_sym *end_stack;
	char buf[400];

	memset(k, 0, sizeof(*k));
	k->mem = mem;
	k->l = l;
	k->vml = vml;
	k->kaslr = kaslr;
	k->page_size = page_size;
	for (size_t i = 0; i < K_N; i++)
		s[i] = (struct kmp_sym){ .name = knames[i] };
	kmp_vmlinux_symbols(vml, s, K_N);
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (!s[needed[i]].found) {
			kmp_seterr(err, KMP_ERR_FORMAT, "%s has no symbol %s", vml->path, s[needed[i]].name);
			return false;
		}
	}
#define RT(i) (s[i].found ? s[i].addr + kaslr : 0)
	k->stext = RT(K_STEXT);
	k->etext = RT(K_ETEXT);
	k->sdata = RT(K_SDATA);
	k->edata = RT(K_EDATA);
	k->sbss = RT(K_SBSS);
	k->ebss = RT(K_EBSS);
	if (RT(K_BSS_FREED) && RT(K_BSS_FREED_END) > RT(K_BSS_FREED)) {
		k->bss_freed = RT(K_BSS_FREED);
		k->bss_freed_end = RT(K_BSS_FREED_END);
	}
	k->init_task = RT(K_INIT_TASK);
	k->autoremove_wake_function = RT(K_AUTOREMOVE);
	k->mempool_wake_function = RT(K_MEMPOOL_WAKE);
	k->fns.alloc_slab = RT(K_ALLOC_SLAB);
	k->fns.free_slab = RT(K_FREE_SLAB);
	k->fns.kmalloc = RT(K_KMALLOC);
	k->fns.kfree = RT(K_KFREE);
	k->fns.alloc_pages = RT(K_ALLOC_PAGES);
	k->fns.free_pages = RT(K_FREE_PAGES);
	k->page_offset_base_sym = RT(K_PAGE_OFFSET_BASE);
	k->vmemmap_base_sym = RT(K_VMEMMAP_BASE);
	k->ro_after_init = RT(K_RO_AFTER_INIT);
	k->ro_after_init_end = RT(K_RO_AFTER_INIT_END);
	k->max_pfn_sym = RT(K_MAX_PFN);
	k->vmap_area_list = RT(K_VMAP_AREA_LIST);
	k->vmap_nodes_sym = RT(K_VMAP_NODES);
	k->nr_vmap_nodes_sym = RT(K_NR_VMAP_NODES);
	k->nr_vmap_nodes_size = s[K_NR_VMAP_NODES].size;
	for (size_t i = 0; i < KMP_WAITFN_MAX; i++) {
		const struct kmp_sym *w = &s[K_WAIT0 + i];

		if (!w->found || !w->size || w->addr + kaslr < k->stext ||
		    w->addr + kaslr + w->size > k->etext)
			continue;
		k->waitfn[k->nwaitfn].start = w->addr + kaslr;
		k->waitfn[k->nwaitfn++].end = w->addr + kaslr + w->size;
	}
#undef RT
	/* The end of the initial stack: __end_init_task to 6.1, __end_init_stack since. */
	end_stack = s[K_END_INIT_TASK].found ? &s[K_END_INIT_TASK] : &s[K_END_INIT_STACK];
	if (!end_stack->found) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s has none of %s: the size of a task's stack is "
			   "unknown", vml->path, kmp_piece_list(KP_STACK_END, false, buf, sizeof(buf)));
		return false;
	}
	k->thread_size = end_stack->addr - s[K_INIT_STACK].addr;
	if (end_stack->addr <= s[K_INIT_STACK].addr || k->thread_size > (1u << 20) ||
	    (k->thread_size & (k->thread_size - 1))) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: init_stack..%s does not give a stack size",
			   vml->path, end_stack->name);
		return false;
	}
	if (k->stext >= k->etext) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: no kernel text (_stext.._etext)", vml->path);
		return false;
	}
	if (!k->nwaitfn) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s has none of the functions a mempool waiter sleeps in "
			   "with a size in kernel text: %s", vml->path,
			   kmp_piece_list(KP_WAITFN, false, buf, sizeof(buf)));
		return false;
	}
	/* struct module: from mm/mempool.c's unit if it has it (read anyway), else its own. */
	if ((kmp_modlayout_load(vml, s[K_MEMPOOL_FREE].addr, false, &ml) ||
	     kmp_modlayout_load(vml, s[K_MODULE_CU].found ? s[K_MODULE_CU].addr : 0, false,
				&ml)) && s[K_MODULES].found) {
		k->have_modules = true;
		k->modlayout = ml;
		kmp_modules_read(mem, l, &ml, s[K_MODULES].addr + kaslr, lim, &k->mods);
	} else {
		snprintf(k->mods.why, sizeof(k->mods.why),
			 "the debug info has no usable struct module, or no `modules` list");
	}
	k->lim = *lim;
	if (s[K_VFREE].found)
		kmp_vmlayout_load(vml, s[K_VFREE].addr, &k->vmlayout);
	return true;
}

void kmp_kernel_free(struct kmp_kernel *k)
{
	kmp_modules_free(&k->mods);
	kmp_vmlinux_funcs_free(k->funcs);
	k->funcs = NULL;
	free(k->symcache);
	k->symcache = NULL;
	k->nsymcache = 0;
}

bool kmp_kernel_is_func(const struct kmp_kernel *k, uint64_t addr)
{
	/* The table is a cache: filling it leaves the kernel's description as it was. */
	struct kmp_funcs **funcs = (struct kmp_funcs **)&k->funcs;
	const struct kmp_module *m;
	uint64_t start, size;
	char name[128];

	if (addr >= k->stext && addr < k->etext)
		return kmp_vmlinux_is_func(k->vml, funcs, addr - k->kaslr);
	m = kmp_module_at(&k->mods, addr);
	return m && kmp_modregion_has(&m->text, addr) &&
	       kmp_module_symbol(k->mem, &k->modlayout, m, addr, k->lim.max_module_syms, name,
				 sizeof(name), &start, &size) && start == addr;
}

void kmp_kernel_slab_init(const struct kmp_kernel *k, struct kmp_slablayout *sl)
{
	struct kmp_err e;

	sl->page_size = k->page_size;
	if (!sl->objects_ok || !k->page_offset_base_sym || !k->vmemmap_base_sym ||
	    !kmp_read_uint(k->mem, k->page_offset_base_sym, 8, &sl->page_offset_base, &e) ||
	    !kmp_read_uint(k->mem, k->vmemmap_base_sym, 8, &sl->vmemmap_base, &e))
		sl->objects_ok = false;
	if (!k->max_pfn_sym || !kmp_read_uint(k->mem, k->max_pfn_sym, 8, &sl->max_pfn, &e))
		sl->max_pfn = 0;
}

bool kmp_kernel_in_waitfn(const struct kmp_kernel *k, uint64_t addr)
{
	for (size_t i = 0; i < k->nwaitfn; i++)
		if (addr > k->waitfn[i].start && addr < k->waitfn[i].end)
			return true;
	return false;
}

bool kmp_kernel_is_text(const struct kmp_kernel *k, uint64_t addr)
{
	const struct kmp_module *m;

	if (addr >= k->stext && addr < k->etext)
		return true;
	m = kmp_module_at(&k->mods, addr);
	return m && kmp_modregion_has(&m->text, addr);
}

bool kmp_kernel_in_image(const struct kmp_kernel *k, uint64_t addr)
{
	uint64_t end = k->ebss ? k->ebss : k->edata ? k->edata : k->etext;

	return addr >= k->stext && addr < end;
}

static int cmp_addrsym(const void *x, const void *y)
{
	const struct kmp_addrsym *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

void kmp_kernel_symbolize_prepare(const struct kmp_kernel *k, const uint64_t *addrs, size_t n)
{
	/* The cache is not part of the kernel's description: filling it changes nothing else. */
	struct kmp_kernel *kk = (struct kmp_kernel *)k;
	struct kmp_addrsym *c = calloc(n ? n : 1, sizeof(*c));
	size_t m = 0;

	free(kk->symcache);
	kk->symcache = NULL;
	kk->nsymcache = 0;
	if (!c)
		return;
	for (size_t i = 0; i < n; i++)
		if (kmp_kernel_in_image(k, addrs[i]))
			c[m++].addr = addrs[i] - k->kaslr;
	qsort(c, m, sizeof(*c), cmp_addrsym);
	{
		size_t j = 0;

		for (size_t i = 0; i < m; i++)	/* each address once */
			if (!j || c[i].addr != c[j - 1].addr)
				c[j++] = c[i];
		m = j;
	}
	kmp_vmlinux_addrsyms(k->vml, c, m);
	kk->symcache = c;
	kk->nsymcache = m;
}

/* The cached answer for link-time @addr, NULL if it was not asked for. */
static const struct kmp_addrsym *cached(const struct kmp_kernel *k, uint64_t addr)
{
	size_t lo = kmp_first_key(k->symcache, sizeof(*k->symcache), 0, k->nsymcache, addr, false);

	_Static_assert(offsetof(struct kmp_addrsym, addr) == 0, "the key leads");
	return lo < k->nsymcache && k->symcache[lo].addr == addr ? &k->symcache[lo] : NULL;
}

bool kmp_kernel_symbolize(const struct kmp_kernel *k, uint64_t addr, char *out, size_t len)
{
	const struct kmp_module *m;
	const struct kmp_addrsym *c;
	char name[KMP_SYMNAME_MAX];
	uint64_t start, size;
	char mname[128];

	if (kmp_kernel_in_image(k, addr)) {
		if ((c = cached(k, addr - k->kaslr))) {
			if (!c->found)
				return false;
			snprintf(name, sizeof(name), "%s", c->name);
			start = c->start;
		} else if (!kmp_vmlinux_addrsym(k->vml, addr - k->kaslr, name, sizeof(name), &start,
						&size)) {
			return false;
		}
		if (addr - k->kaslr == start)
			snprintf(out, len, "%s", name);
		else
			snprintf(out, len, "%s+0x%" PRIx64, name, addr - k->kaslr - start);
		return true;
	}
	m = kmp_module_at(&k->mods, addr);
	if (!m)
		return false;
	if (!kmp_module_symbol(k->mem, &k->modlayout, m, addr, k->lim.max_module_syms, mname,
			       sizeof(mname), &start, &size)) {
		snprintf(out, len, "0x%" PRIx64 " [%s]", addr, m->name);
		return true;
	}
	if (addr == start)
		snprintf(out, len, "%s [%s]", mname, m->name);
	else
		snprintf(out, len, "%s+0x%" PRIx64 " [%s]", mname, addr - start, m->name);
	return true;
}

uint64_t kmp_kernel_wake(const struct kmp_kernel *k)
{
	return k->l->v6 ? k->mempool_wake_function : 0;
}

size_t kmp_kernel_data_ranges(const struct kmp_kernel *k, struct kmp_range *r)
{
	size_t n = 0;

	if (k->ro_after_init && k->ro_after_init_end > k->ro_after_init)
		r[n++] = (struct kmp_range){ k->ro_after_init, k->ro_after_init_end };
	if (k->sdata && k->edata > k->sdata)
		r[n++] = (struct kmp_range){ k->sdata, k->edata };
	if (!k->sbss || k->ebss <= k->sbss)
		return n;
	if (!k->bss_freed || k->bss_freed_end <= k->sbss || k->bss_freed >= k->ebss) {
		r[n++] = (struct kmp_range){ k->sbss, k->ebss };
		return n;
	}
	/* The bss around what the kernel gave back to the page allocator. */
	if (k->bss_freed > k->sbss)
		r[n++] = (struct kmp_range){ k->sbss, k->bss_freed };
	if (k->bss_freed_end < k->ebss)
		r[n++] = (struct kmp_range){ k->bss_freed_end, k->ebss };
	return n;
}
