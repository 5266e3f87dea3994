// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the layout loaders of the kernel objects beyond
 * mempools (lib/kernel/dwarf_kernel.c: struct module, the slab allocator's
 * kmem_cache/page/slab/folio, vmalloc's vmap_area/vm_struct/vmap_node) on
 * mutated copies of tests/fake_kobjs (seed), opened as vmlinux from a
 * memfd.  A layout that loads is then used by its readers over a small
 * image - the module list (kmp_modules_read, with a kallsyms table and a
 * symbol look-up), the slab page tests and the cache reader - so that a
 * field or a size the loaders let through shows up as an out-of-bounds
 * read or a huge allocation (-rss_limit_mb, -malloc_limit_mb).
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "dwarf_kernel.h"
#include "field.h"
#include "fuzz_common.h"
#include "memimg.h"
#include "modules.h"
#include "slab.h"

#define HEAD 0xffffffff82000000ULL	/* `modules`, then a kmem_cache */
#define MOD 0xffffffffc0000000ULL	/* a struct module (64 KiB: the bound) */
#define KS 0xffffffffc0010000ULL	/* its mod_kallsyms, symtab, strtab */
#define MODSZ 0x10000
#define KSSZ 0x1000

static void put(unsigned char *m, uint64_t len, const struct kmp_field *f, uint64_t v)
{
	if (!kmp_field_fits(f, len))
		return;
	for (uint64_t i = 0; i < f->size; i++)
		m[f->off + i] = (unsigned char)(v >> (8 * i));
}

/* One module on the list at HEAD, laid out by @ml, with two symbols. */
static void modules(const struct kmp_modlayout *ml)
{
	const struct kmp_limits_mods lim = { 4, 64 };
	struct kmp_layout l = { 0 };
	struct kmp_modules mods;
	struct memimg img;
	struct kmp_mem mem;
	unsigned char *h, *m, *k;
	uint64_t start, size;
	char name[64];

	l.lh_next = (struct kmp_field){ 0, 8, true, "next" };
	l.lh_prev = (struct kmp_field){ 8, 8, true, "prev" };
	memimg_init(&img, &mem);
	h = memimg_add(&img, HEAD, 0x100);
	m = memimg_add(&img, MOD, MODSZ);
	k = memimg_add(&img, KS, KSSZ);
	if (ml->list.off < MODSZ - 16) {
		for (int i = 0; i < 8; i++) {
			h[i] = h[8 + i] = (unsigned char)((MOD + ml->list.off) >> (8 * i));
			m[ml->list.off + i] = m[ml->list.off + 8 + i] = (unsigned char)(HEAD >> (8 * i));
		}
	}
	if (ml->name.ok && ml->name.off < MODSZ - 8)
		memcpy(m + ml->name.off, "fz", 3);
	for (int i = 0; i < KMP_MOD_N; i++) {
		put(m, MODSZ, &ml->mem_base[i], MOD + 0x100000 * (uint64_t)(i + 1));
		put(m, MODSZ, &ml->mem_size[i], 0x1000);
	}
	put(m, MODSZ, &ml->base, MOD + 0x100000);
	put(m, MODSZ, &ml->size, 0x4000);
	put(m, MODSZ, &ml->text_size, 0x1000);
	put(m, MODSZ, &ml->kallsyms, KS);
	put(k, KSSZ, &ml->ks_symtab, KS + 0x100);
	put(k, KSSZ, &ml->ks_num, 2);
	put(k, KSSZ, &ml->ks_strtab, KS + 0x800);
	for (uint64_t i = 0; i < 2 && ml->sym_size <= 0x100; i++) {
		unsigned char *s = k + 0x100 + i * ml->sym_size;

		put(s, ml->sym_size, &ml->st_name, 1 + i);
		put(s, ml->sym_size, &ml->st_info, 0x12);
		put(s, ml->sym_size, &ml->st_value, MOD + 0x100000 + 0x10 * i);
		put(s, ml->sym_size, &ml->st_size, 0x10);
	}
	memcpy(k + 0x800, "\0ab\0", 4);
	kmp_modules_read(&mem, &l, ml, HEAD, &lim, &mods);
	if (mods.n)
		(void)kmp_module_symbol(&mem, ml, &mods.v[0], MOD + 0x100008, 64, name,
					sizeof(name), &start, &size);
	kmp_modules_free(&mods);
	memimg_free(&img);
}

/* The slab tests on struct pages of 0x55 bytes, and a kmem_cache at HEAD. */
static void slabs(const struct kmp_slablayout *sl)
{
	unsigned char page[512];
	struct memimg img;
	struct kmp_mem mem;
	struct kmp_err err;
	unsigned char *c;
	uint64_t osize;
	char name[64];

	memset(page, 0x55, sizeof(page));
	if (sl->objects_ok && sl->page_struct_size * 2 <= sizeof(page) &&
	    kmp_slab_fields_fit(sl, &err)) {
		(void)kmp_slab_page(sl, page);
		(void)kmp_slab_order(sl, page + sl->page_struct_size);
	}
	memimg_init(&img, &mem);
	c = memimg_add(&img, HEAD, 0x100);
	put(c, 0x100, &sl->name, HEAD + 0x80);
	put(c, 0x100, &sl->object_size, 64);
	memcpy(c + 0x80, "kmalloc-64", 11);
	(void)kmp_cache_read(&mem, sl, HEAD, name, sizeof(name), &osize, &err);
	memimg_free(&img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmp_sym sym = { .name = "kobj_fn" };
	struct kmp_modlayout ml;
	struct kmp_slablayout sl;
	struct kmp_vmlayout vl;
	struct kmp_vmlinux v;
	struct kmp_err err;
	char path[64];
	int fd = fuzz_memfd(data, size);

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!kmp_vmlinux_open(&v, path, &err)) {
		close(fd);
		return 0;
	}
	kmp_vmlinux_symbols(&v, &sym, 1);
	if (sym.found) {
		if (kmp_modlayout_load(&v, sym.addr, false, &ml))
			modules(&ml);
		if (kmp_slablayout_load(&v, sym.addr, sym.addr, false, &sl))
			slabs(&sl);
		(void)kmp_vmlayout_load(&v, sym.addr, &vl);
	}
	kmp_vmlinux_close(&v);
	close(fd);
	return 0;
}
