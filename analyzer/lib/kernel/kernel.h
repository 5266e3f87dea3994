/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: what the searches of kernel memory need to know about the
 * running kernel, from vmlinux symbols (KASLR applied), DWARF and memory:
 * where kernel text is, the functions a mempool is made of, the task list,
 * the size of a task's stack, and the loaded modules.
 */
#ifndef KMP_KERNEL_H
#define KMP_KERNEL_H

#include "layout.h"
#include "mem.h"
#include "dwarf_kernel.h"
#include "modules.h"
#include "slab.h"
#include "vmlinux.h"
#include "vmsyms.h"

#define KMP_WAITFN_MAX 4

/* The functions of the standard pool types, runtime addresses (0: none). */
struct kmp_poolfns {
	uint64_t alloc_slab, free_slab, kmalloc, kfree, alloc_pages, free_pages;
};

struct kmp_kernel {
	struct kmp_mem *mem;
	const struct kmp_notes *notes;	/* the caller's, set after kmp_kernel_init(); may be NULL */
	const struct kmp_layout *l;
	struct kmp_vmlinux *vml;
	uint64_t kaslr;
	uint64_t page_size;
	uint64_t stext, etext;			/* kernel text, runtime */
	uint64_t sdata, edata;			/* _sdata.._edata, runtime */
	uint64_t sbss, ebss;			/* __bss_start..__bss_stop */
	/*
	 * [__start_bss_decrypted_unused, __end_bss_decrypted) (CONFIG_AMD_MEM_ENCRYPT):
	 * the end of the bss that the kernel frees at boot; its pages are then the
	 * page allocator's, any object's.  0: none.
	 */
	uint64_t bss_freed, bss_freed_end;
	uint64_t ro_after_init, ro_after_init_end;
	uint64_t page_offset_base_sym, vmemmap_base_sym, max_pfn_sym;	/* the variables */
	uint64_t init_task;
	/*
	 * The functions a mempool waiter sleeps in, runtime [start, end):
	 * mempool_alloc() before 6.10, mempool_alloc_noprof() since, and the
	 * helper that holds the wait from 7.x on - each kernel has some.
	 */
	struct kmp_textrange { uint64_t start, end; } waitfn[KMP_WAITFN_MAX];
	size_t nwaitfn;
	uint64_t autoremove_wake_function;
	/* series v6: mempool_alloc()'s waiters wake through this one (0: none) */
	uint64_t mempool_wake_function;
	uint64_t thread_size;			/* __end_init_task - init_stack */
	struct kmp_poolfns fns;
	struct kmp_modules mods;		/* may be incomplete: mods.why */
	struct kmp_modlayout modlayout;
	bool have_modules;
	struct kmp_limits_mods lim;
	struct kmp_funcs *funcs;	/* function starts: a cache, built on first use */
	/* names of vmlinux addresses asked for together (kmp_kernel_symbolize_prepare()) */
	struct kmp_addrsym *symcache;
	size_t nsymcache;
	struct kmp_vmlayout vmlayout;	/* vmalloc areas; vmlayout.ok false if unknown */
	uint64_t vmap_area_list;	/* runtime address of the list head, 0 if none */
	/* 6.9 on: the busy areas are per node, vmap_nodes[nr_vmap_nodes] */
	uint64_t vmap_nodes_sym, nr_vmap_nodes_sym, nr_vmap_nodes_size;
};

/*
 * Fill @k for the kernel in @mem.  Returns false with @err set when a
 * symbol that every search needs is missing; a module list that cannot be
 * read is not an error (k->mods.why says why).
 */
/* Tell @vml the symbols kmp_kernel_init() will look up (kmp_vmlinux_expect()). */
void kmp_kernel_expect(struct kmp_vmlinux *vml);
bool kmp_kernel_init(struct kmp_kernel *k, struct kmp_mem *mem, const struct kmp_layout *l,
		     struct kmp_vmlinux *vml, uint64_t kaslr, uint64_t page_size,
		     const struct kmp_limits_mods *lim, struct kmp_err *err);
void kmp_kernel_free(struct kmp_kernel *k);

/* Read the direct map and vmemmap bases into @sl (objects_ok false if unknown). */
void kmp_kernel_slab_init(const struct kmp_kernel *k, struct kmp_slablayout *sl);

/* Is @addr inside one of the functions a mempool waiter sleeps in? */
bool kmp_kernel_in_waitfn(const struct kmp_kernel *k, uint64_t addr);

/* Is @addr in kernel text or in the text of a loaded module? */
bool kmp_kernel_is_text(const struct kmp_kernel *k, uint64_t addr);

/*
 * Is @addr the entry of a function of vmlinux or of a loaded module (from
 * the module's symbols in memory)?
 */
bool kmp_kernel_is_func(const struct kmp_kernel *k, uint64_t addr);

/* Is @addr within the kernel image (text, data or bss)? */
bool kmp_kernel_in_image(const struct kmp_kernel *k, uint64_t addr);

/*
 * Name the code or data at runtime address @addr: "sym", "sym+0x10", or
 * "sym+0x10 [module]" for a module.  False if no symbol covers it.
 */
bool kmp_kernel_symbolize(const struct kmp_kernel *k, uint64_t addr, char *out, size_t len);

/*
 * Look up the vmlinux symbols of the @n runtime addresses @addrs in one
 * pass (kmp_vmlinux_addrsyms()) for the kmp_kernel_symbolize() calls that
 * follow; a cache, replaced by the next call.
 */
void kmp_kernel_symbolize_prepare(const struct kmp_kernel *k, const uint64_t *addrs, size_t n);

/*
 * The wake function that tells mempool_alloc()'s waiters from other wait
 * queue entries (series v6), or 0: every entry on a pool's queue waits.
 */
uint64_t kmp_kernel_wake(const struct kmp_kernel *k);

/* A range of kernel memory [lo, hi). */
struct kmp_range {
	uint64_t lo, hi;
};

/*
 * The kernel's own data, as it keeps it after boot, into @r (room for
 * KMP_DATA_RANGES): __ro_after_init, .data, and .bss without what the
 * kernel freed (bss_freed above).  Returns how many.
 */
#define KMP_DATA_RANGES 4
size_t kmp_kernel_data_ranges(const struct kmp_kernel *k, struct kmp_range *r);

#endif
