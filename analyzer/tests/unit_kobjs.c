// SPDX-License-Identifier: GPL-2.0
/*
 * The layout loaders of the kernel objects beyond mempools (struct module,
 * the slab allocator's, vmalloc's: lib/kernel/dwarf_kernel.c) and the module list
 * reader (lib/kernel/modules.c) on test objects (tests/fake_kobjs.c): offsets
 * against offsetof(), a module list read from a synthetic image, and the
 * hostile objects refused by the one bound every struct read from a dump
 * has (KMP_MAX_STRUCT, 64 KiB): a struct module of over 1 MiB, a struct
 * vmap_node of 512 KiB, an enum mod_mem_type at INT64_MAX.
 *
 *   unit-kobjs FAKE_KOBJS FAKE_KOBJS_HUGE FAKE_KOBJS_ENUM
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dwarf_kernel.h"
#include "fake_kobjs.h"
#include "layout_check.h"
#include "memimg.h"
#include "modules.h"

#define HEAD 0xffffffff82000000ULL	/* `modules` */
#define MOD 0xffffffffc0001000ULL	/* the one struct module */

struct obj {
	struct kmp_vmlinux v;
	uint64_t fn;
	bool open;
};

static bool obj_open(struct obj *o, const char *path)
{
	struct kmp_sym s = { .name = "kobj_fn" };
	struct kmp_err err;

	memset(o, 0, sizeof(*o));
	if (!kmp_vmlinux_open(&o->v, path, &err)) {
		printf("  %s: %s\n", path, err.msg);
		return false;
	}
	o->open = true;
	kmp_vmlinux_symbols(&o->v, &s, 1);
	o->fn = s.found ? s.addr : 0;
	return o->fn != 0;
}

static void obj_close(struct obj *o)
{
	if (o->open)
		kmp_vmlinux_close(&o->v);
}

static bool at(const struct kmp_field *f, size_t off, size_t size)
{
	return f->ok && f->off == off && f->size == size;
}

/* The list-head layout kmp_list_walk() needs (struct list_head: next, prev). */
static void list_layout(struct kmp_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->lh_next = (struct kmp_field){ 0, 8, true, "list_head.next" };
	l->lh_prev = (struct kmp_field){ 8, 8, true, "list_head.prev" };
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);	/* x86_64: little endian */
}

static void test_good(const char *path)
{
	struct kmp_modlayout ml;
	struct kmp_slablayout sl;
	struct kmp_vmlayout vl;
	struct kmp_layout l;
	struct kmp_modules mods;
	struct kmp_limits_mods lim = { 16, 1000 };
	struct memimg img;
	struct kmp_mem mem;
	unsigned char *h, *m;
	struct obj o;

	begin("kernel objects: struct module, slab and vmalloc layouts at offsetof()");
	CHECK(obj_open(&o, path), "open %s and find kobj_fn", path);
	CHECK(o.fn && kmp_modlayout_load(&o.v, o.fn, false, &ml), "struct module loads");
	CHECK(ml.per_kind && at(&ml.list, offsetof(struct module, list), 16) &&
	      at(&ml.name, offsetof(struct module, name), 56) &&
	      at(&ml.kallsyms, offsetof(struct module, kallsyms), 8) &&
	      at(&ml.mem_base[KMP_MOD_DATA], offsetof(struct module, mem[MOD_DATA].base), 8) &&
	      at(&ml.mem_size[KMP_MOD_RO_AFTER_INIT],
		 offsetof(struct module, mem[MOD_RO_AFTER_INIT].size), 4) &&
	      ml.sym_size == sizeof(struct elf64_sym) &&
	      at(&ml.st_value, offsetof(struct elf64_sym, st_value), 8),
	      "struct module fields at their offsets");
	CHECK(o.fn && kmp_slablayout_load(&o.v, o.fn, 0, false, &sl) && sl.objects_ok &&
	      at(&sl.object_size, offsetof(struct kmem_cache, object_size), 4) &&
	      sl.page_struct_size == sizeof(struct page) &&
	      at(&sl.slab_cache, offsetof(struct slab, slab_cache), 8) &&
	      sl.slab_by == KMP_SLAB_BY_FLAG && sl.pg_slab == PG_slab &&
	      at(&sl.order, offsetof(struct folio, _flags_1) - sizeof(struct page), 8),
	      "slab layout (ok %d, objects %d)", sl.ok, sl.objects_ok);
	CHECK(o.fn && kmp_vmlayout_load(&o.v, o.fn, &vl) && vl.nodes_ok &&
	      vl.va_size == sizeof(struct vmap_area) && vl.node_size == sizeof(struct vmap_node) &&
	      at(&vl.node_busy_head, offsetof(struct vmap_node, busy.head), 16),
	      "vmalloc layout (ok %d, nodes %d)", vl.ok, vl.nodes_ok);
	end();

	begin("kernel objects: the module list read by that layout from an image");
	list_layout(&l);
	memimg_init(&img, &mem);
	h = memimg_add(&img, HEAD, 16);
	m = memimg_add(&img, MOD, sizeof(struct module));
	put64(h, MOD + offsetof(struct module, list));
	put64(h + 8, MOD + offsetof(struct module, list));
	put64(m + offsetof(struct module, list), HEAD);
	put64(m + offsetof(struct module, list) + 8, HEAD);
	strcpy((char *)m + offsetof(struct module, name), "kmp_fake");
	put64(m + offsetof(struct module, mem[MOD_TEXT].base), 0xffffffffc0100000ULL);
	put64(m + offsetof(struct module, mem[MOD_TEXT].size), 0x2000);
	put64(m + offsetof(struct module, mem[MOD_DATA].base), 0xffffffffc0200000ULL);
	put64(m + offsetof(struct module, mem[MOD_DATA].size), 0x1000);
	kmp_modules_read(&mem, &l, &ml, HEAD, &lim, &mods);
	CHECK(mods.complete && mods.n == 1 && !strcmp(mods.v[0].name, "kmp_fake") &&
	      mods.v[0].data.start == 0xffffffffc0200000ULL && mods.v[0].data.size == 0x1000,
	      "one module kmp_fake, its data region (complete %d, n %zu, why '%s')",
	      mods.complete, mods.n, mods.why);
	kmp_modules_free(&mods);
	memimg_free(&img);
	end();
	obj_close(&o);
}

static void test_huge(const char *path)
{
	struct kmp_modlayout ml;
	struct kmp_vmlayout vl;
	struct kmp_layout l;
	struct kmp_modules mods;
	struct kmp_limits_mods lim = { 16, 1000 };
	struct memimg img;
	struct kmp_mem mem;
	unsigned char *h;
	struct obj o;
	bool loaded;

	begin("kernel objects: a struct module of over 1 MiB is refused (at most 64 KiB read)");
	CHECK(obj_open(&o, path), "open %s", path);
	loaded = o.fn && kmp_modlayout_load(&o.v, o.fn, false, &ml);
	CHECK(!loaded, "the layout of a struct module of over 1 MiB was taken");
	/* Were it taken, the list reader must still not size a buffer past the bound. */
	list_layout(&l);
	memimg_init(&img, &mem);
	h = memimg_add(&img, HEAD, 16);
	put64(h, MOD + offsetof(struct module, list));
	put64(h + 8, MOD + offsetof(struct module, list));
	memimg_add(&img, MOD, sizeof(struct module));
	if (loaded) {
		kmp_modules_read(&mem, &l, &ml, HEAD, &lim, &mods);
		CHECK(!mods.complete && strstr(mods.why, "64 KiB"),
		      "the module list was read with a struct module buffer of over 1 MiB "
		      "(complete %d, why '%s')", mods.complete, mods.why);
		kmp_modules_free(&mods);
	}
	memimg_free(&img);
	CHECK(o.fn && (!kmp_vmlayout_load(&o.v, o.fn, &vl) || !vl.nodes_ok),
	      "a 512 KiB struct vmap_node was taken (node_size %llu)",
	      (unsigned long long)vl.node_size);
	end();
	obj_close(&o);
}

static void test_enum(const char *path)
{
	struct kmp_modlayout ml;
	struct obj o;

	begin("kernel objects: enum mod_mem_type at INT64_MAX refused without overflow");
	CHECK(obj_open(&o, path), "open %s", path);
	CHECK(o.fn && !kmp_modlayout_load(&o.v, o.fn, false, &ml),
	      "a module layout with MOD_TEXT = INT64_MAX was taken");
	end();
	obj_close(&o);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: unit-kobjs FAKE_KOBJS FAKE_KOBJS_HUGE FAKE_KOBJS_ENUM\n");
		return 2;
	}
	test_good(argv[1]);
	test_huge(argv[2]);
	test_enum(argv[3]);
	printf("unit-kobjs: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
