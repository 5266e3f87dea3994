// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the DWARF layout loader on mutated copies of the test
 * object (seed: fake_vmlinux), opened as vmlinux from a memfd.  A layout
 * that loads is then used by every reader of a struct's bytes over a small
 * image - the pool walk of mempool_list, both pool checks (the strict one
 * of the scan) on a pool laid out by that layout, and the scan of the
 * image - so that a field the checks let through would show up as an
 * out-of-bounds read.  A series v6 layout (seed: fake_vmlinux_v6) also gets
 * its pool on the list, with a tag, its strings and a kmem_cache, so the
 * v6 reader (tags, type from alloc, wake functions) runs on it.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "field.h"
#include "fuzz_common.h"
#include "memimg.h"
#include "pools.h"
#include "scan.h"

#define BASE 0xffff888000000000ULL
#define SIZE 0x20000
#define POOL 0x1000		/* a pool laid out by the loaded layout */
#define ELEMS 0x9000		/* its reserve */
#define TAG 0xa000		/* series v6: the pool's tag */
#define STRS 0xb000		/* and its strings */
#define CACHE 0xc000		/* and a kmem_cache */

/* Store @v in field @f of the pool at @m, if the field fits the pool's bytes. */
static void put(unsigned char *m, const struct kmp_layout *l, const struct kmp_field *f,
		uint64_t v)
{
	if (!kmp_field_fits(f, l->pool_size))
		return;
	for (uint64_t i = 0; i < f->size; i++)
		m[f->off + i] = (unsigned char)(v >> (8 * i));
}

/*
 * A mempool_t at POOL by layout @l (its members that fit), with the fake's
 * function @fn as alloc and free, a reserve of two, and an empty wait queue.
 */
static void lay_pool(unsigned char *img, const struct kmp_layout *l, uint64_t fn)
{
	unsigned char *p = img + POOL;
	const struct kmp_field next = { .off = l->wait_head.off + l->lh_next.off, .size = 8,
					.ok = true };
	const struct kmp_field prev = { .off = l->wait_head.off + l->lh_prev.off, .size = 8,
					.ok = true };

	if (l->pool_size > ELEMS - POOL)
		return;
	memset(p, 0, l->pool_size);
	put(p, l, &l->min_nr, 2);
	put(p, l, &l->curr_nr, 2);
	put(p, l, &l->alloc, fn);
	put(p, l, &l->free, fn);
	put(p, l, &l->pool_data, 64);
	put(p, l, &l->elements, BASE + ELEMS);
	if (l->wait_head.ok && next.off >= l->wait_head.off && prev.off >= l->wait_head.off) {
		put(p, l, &next, BASE + POOL + l->wait_head.off);
		put(p, l, &prev, BASE + POOL + l->wait_head.off);
	}
	memset(img + ELEMS, 0x55, 16);
}

/* Store @v in field @f of a struct of @len bytes at @m, if the field fits them. */
static void put_in(unsigned char *m, uint64_t len, const struct kmp_field *f, uint64_t v)
{
	if (!kmp_field_fits(f, len))
		return;
	for (uint64_t i = 0; i < f->size; i++)
		m[f->off + i] = (unsigned char)(v >> (8 * i));
}

/*
 * Series v6: the pool at POOL alone on the list at BASE, with a tag at
 * TAG (a name with a space, a kind, a module), a kmem_cache at CACHE and
 * @slab as its alloc function.
 */
static void lay_v6(unsigned char *img, const struct kmp_layout *l, uint64_t slab)
{
	unsigned char *p = img + POOL, *t = img + TAG;
	const char *strs[] = { "fn", "a b.c", "name\\x", "kind", "mod", "sda" };

	if (!l->v6 || l->pool_size > ELEMS - POOL || l->mtag_size > STRS - TAG ||
	    !kmp_field_fits(&l->list_next, l->pool_size) ||
	    !kmp_field_fits(&l->list_prev, l->pool_size))
		return;
	for (int i = 0; i < 6; i++)
		snprintf((char *)img + STRS + i * 32, 32, "%s", strs[i]);
	memset(t, 0, l->mtag_size);
	put_in(t, l->mtag_size, &l->mtag_function, BASE + STRS);
	put_in(t, l->mtag_size, &l->mtag_filename, BASE + STRS + 32);
	put_in(t, l->mtag_size, &l->mtag_name, BASE + STRS + 64);
	put_in(t, l->mtag_size, &l->mtag_kind, BASE + STRS + 96);
	put_in(t, l->mtag_size, &l->mtag_modname, BASE + STRS + 128);
	put_in(t, l->mtag_size, &l->mtag_lineno, 7);
	memset(img + CACHE, 0, 256);
	if (l->kc_object_size.ok && l->kc_object_size.off < 248)
		put_in(img + CACHE, 256, &l->kc_object_size, 64);
	put(p, l, &l->tag, BASE + TAG);
	put(p, l, &l->instance, BASE + STRS + 160);
	put(p, l, &l->alloc, slab);
	put(p, l, &l->pool_data, BASE + CACHE);
	put(p, l, &l->low_nr, 2);
	put(p, l, &l->list_next, BASE);
	put(p, l, &l->list_prev, BASE);
	for (int i = 0; i < 8; i++) {
		img[i] = (unsigned char)((BASE + POOL + l->list_next.off - l->lh_next.off) >> (8 * i));
		img[8 + i] = img[i];
	}
}

static void count(const struct kmp_found *f, void *arg)
{
	(void)f;
	++*(unsigned int *)arg;
}

/* The strict and the plain pool check on the pool at POOL, and the scan of the image. */
static void check_and_scan(struct kmp_vmlinux *v, struct kmp_layout *l, struct kmp_mem *mem,
			   uint64_t fn)
{
	struct kmp_kernel k = { .mem = mem, .l = l, .vml = v, .page_size = 4096 };
	struct kmp_slablayout sl = { 0 };
	struct kmp_scan_stats st;
	struct kmp_poolinfo pi;
	unsigned int found = 0;
	struct kmp_err err;

	k.stext = fn & ~0xfffULL;
	k.etext = k.stext + 0x100000;
	k.sdata = BASE;
	k.edata = BASE + SIZE;
	k.mods.complete = true;
	k.thread_size = 0x4000;
	(void)kmp_pool_check_strict(&k, &sl, BASE + POOL, &pi, &err);
	(void)kmp_pool_check(&k, &sl, BASE + POOL, &pi, &err);
	(void)kmp_scan(&k, &sl, 0, 1, count, &found, &st, &err);
	kmp_kernel_free(&k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmp_sym syms[] = { { .name = "mempool_exit" }, { .name = "linux_banner" },
				  { .name = "mempool_alloc_slab" }, { .name = "mempool_kmalloc" },
				  { .name = "mempool_alloc_pages" },
				  { .name = "mempool_wake_function" } };
	const struct kmp_limits lim = { 8, 8 };
	struct kmp_pools pools = { 0 };
	struct kmp_vmlinux v;
	struct kmp_layout l;
	struct kmp_err err;
	struct memimg img;
	struct kmp_mem mem;
	char path[64], banner[64];
	int fd = fuzz_memfd(data, size);

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!kmp_vmlinux_open(&v, path, &err)) {
		close(fd);
		return 0;
	}
	kmp_vmlinux_symbols(&v, syms, 6);
	if (syms[1].found)
		(void)kmp_vmlinux_read(&v, syms[1].addr, banner, sizeof(banner));
	if (kmp_layout_load(&v, syms[0].found ? syms[0].addr : 0, false, &l, &err)) {
		unsigned char *m;

		memimg_init(&img, &mem);
		m = memimg_add(&img, BASE, SIZE);
		/* A list head whose next points at a node 0x100 further, and back. */
		memset(m + 0x100, 0x41, SIZE - 0x100);
		for (int i = 0; i < 8; i++)
			m[i] = (unsigned char)((BASE + 0x100) >> (8 * i));
		lay_pool(m, &l, syms[0].found ? syms[0].addr : 0);
		lay_v6(m, &l, syms[2].addr);
		pools.notes.note = NULL;
		pools.clock = (struct kmp_clock){ BASE, 8, 250,
			{ syms[2].addr, syms[3].addr, syms[4].addr, syms[5].addr, 4096 } };
		(void)kmp_read_pools(&mem, &l, BASE, &lim, &pools, &err);
		kmp_pools_free(&pools);
		check_and_scan(&v, &l, &mem, syms[0].found ? syms[0].addr : 0);
		memimg_free(&img);
	}
	kmp_vmlinux_close(&v);
	close(fd);
	return 0;
}
