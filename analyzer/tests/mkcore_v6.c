// SPDX-License-Identifier: GPL-2.0
/*
 * mkcore_v6: write a crafted ELF vmcore for the series v6 test object
 * (fake_vmlinux_v6), so that the real kmempool binary runs end to end on
 * a v6-shaped kernel: four pools (a slab pool tagged by its function with
 * a kind, a named kmalloc pool of a module with an instance, a page pool
 * whose name and file hold a space, a backslash and a tab, a private pool
 * with a name longer than its column), laid out by the test object's DWARF;
 * on the page pool's wait queue a mempool_alloc() waiter (its task
 * "kmp_v6waiter", waiting 10 s at the HZ of jiffies_64's initial value)
 * and a foreign entry (another wake function), which must not count.
 * The expected report is written out in tests/crafted_v6.sh, not here.
 *
 *   mkcore_v6 FAKE_VMLINUX_V6 OUT [damage]
 *	tag-unmapped	pool 1's tag points to an unmapped address
 *	no-nul		pool 3's function has no NUL within 4096 bytes
 *	counters	pool 1's low_nr above its curr_nr
 *	columns		the image's column line differs (one byte)
 *	version		the image's format version is "1.1"
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "vmlinux.h"
#include "elfcore.h"

#define KASLR		0xffffffff80000000ULL
#define DATA_OFF	0x400000ULL	/* pools, tags, strings, the cache: offsets from KASLR */
#define DATA_SIZE	0x20000ULL
#define KTEXT_PHYS	0x1000000ULL
#define PAGE		4096ULL

static struct kmp_layout L;

static void die(const char *msg)
{
	fprintf(stderr, "mkcore_v6: %s\n", msg);
	exit(2);
}

static void put(unsigned char *base, const struct kmp_field *f, uint64_t v)
{
	for (uint64_t i = 0; i < f->size; i++)
		base[f->off + i] = (unsigned char)(v >> (8 * i));
}

static void put_at(unsigned char *base, uint64_t off, uint64_t v)
{
	const struct kmp_field f = { .off = off, .size = 8, .ok = true };

	put(base, &f, v);
}

enum { S_EXIT, S_LIST, S_BANNER, S_VERSION, S_COLUMNS, S_JIFFIES, S_SLAB, S_KMALLOC, S_PAGES,
       S_WAKE, S_N };
#define NOW 4295000000ULL	/* jiffies in the dump */
#define HZ 250

static unsigned char data[DATA_SIZE];
static size_t strused = 0x10000;	/* strings from here on */

static uint64_t str(const char *s)
{
	size_t n;

	if (!s)
		return 0;
	n = strlen(s) + 1;
	if (strused + n > DATA_SIZE)
		die("strings overflow");
	memcpy(data + strused, s, n);
	strused += (n + 7) & ~7UL;
	return KASLR + DATA_OFF + strused - ((n + 7) & ~7UL);
}

int main(int argc, char **argv)
{
	struct kmp_sym syms[S_N] = { { .name = "mempool_exit" }, { .name = "mempool_list" },
				     { .name = "linux_banner" },
				     { .name = "mempool_format_version" },
				     { .name = "mempool_format_columns" },
				     { .name = "jiffies_64" },
				     { .name = "mempool_alloc_slab" }, { .name = "mempool_kmalloc" },
				     { .name = "mempool_alloc_pages" },
				     { .name = "mempool_wake_function" } };
	const char *damage = argc > 3 ? argv[3] : "";
	struct {
		const char *name, *kind, *function, *modname, *file, *instance;
		uint64_t line, alloc, pool_data;
		int min_nr, curr_nr, low_nr;
		unsigned int nr_reserve, nr_wait, nr_fail, nr_empty;
	} p[4] = {
		{ NULL, "bio", "bioset_init", NULL, "block/bio.c", NULL, 1812, S_SLAB, 0, 2, 2, 2,
		  0, 0, 0, 0 },
		{ "dm-crypt_req", NULL, "crypt_ctr", "dm_crypt", "drivers/md/dm-crypt.c", "dm-0",
		  3349, S_KMALLOC, 592, 64, 64, 64, 5, 2, 1, 3 },
		{ "a b\\c\td", NULL, "kmp_v6_init", "kmp_v6", "x y.c", NULL, 7, S_PAGES, 2, 4, 0,
		  0, 9, 3, 0, 1 },
		{ NULL, "bvec", "a_very_long_pool_name_for_the_padding_check", NULL,
		  "lib/sg_pool.c", "md0", 4294967295u, 0, 77, 1, 1, 0, 4294967295u, 0, 0, 0 },
	};
	uint64_t base = KASLR + DATA_OFF, cache = base + 0xf000, lo, hi, head;
	const uint64_t stride = 0x400, tag0 = 0x8000;
	struct kmp_vmlinux v;
	struct kmp_err err;
	unsigned char *img;
	char vi[1024];
	int vilen;
	FILE *f;

	if (argc < 3)
		die("usage: mkcore_v6 FAKE_VMLINUX_V6 OUT [damage]");
	if (!kmp_vmlinux_open(&v, argv[1], &err))
		die(err.msg);
	kmp_vmlinux_symbols(&v, syms, S_N);
	for (int i = 0; i < S_N; i++)
		if (!syms[i].found)
			die("symbol missing in the test object");
	if (!kmp_layout_load(&v, syms[S_EXIT].addr, false, &L, &err) || !L.v6)
		die("not a series v6 test object");
	if (L.pool_size > stride || L.mtag_size > 0x100)
		die("structs too large");

	/* The kernel image: the symbols' bytes at their address plus KASLR. */
	lo = hi = syms[S_LIST].addr;
	for (int i = S_LIST; i <= S_JIFFIES; i++) {
		if (syms[i].addr < lo)
			lo = syms[i].addr;
		if (syms[i].addr + syms[i].size + 16 > hi)
			hi = syms[i].addr + syms[i].size + 16;
	}
	lo &= ~(PAGE - 1);
	hi = (hi + PAGE - 1) & ~(PAGE - 1);
	img = calloc(1, hi - lo);
	if (!img)
		die("out of memory");
	for (int i = S_BANNER; i <= S_COLUMNS; i++)
		if (!kmp_vmlinux_read(&v, syms[i].addr, img + (syms[i].addr - lo), syms[i].size))
			die("cannot read the test object's data");
	if (!strcmp(damage, "columns"))
		img[syms[S_COLUMNS].addr - lo + syms[S_COLUMNS].size - 2] = 'x';
	if (!strcmp(damage, "version"))
		img[syms[S_VERSION].addr - lo + 2] = '1';
	head = KASLR + syms[S_LIST].addr;
	put_at(img + (syms[S_JIFFIES].addr - lo), 0, NOW);

	put(data + 0xf000, &L.kc_object_size, 192);
	for (int i = 0; i < 4; i++) {
		unsigned char *pb = data + (uint64_t)i * stride, *tb = data + tag0 + (uint64_t)i * 0x100;
		uint64_t addr = base + (uint64_t)i * stride, node = addr + L.list.off;
		uint64_t wq = addr + L.wait_head.off;
		uint64_t prev = i ? node - stride : head, next = i < 3 ? node + stride : head;

		put(tb, &L.mtag_name, str(p[i].name));
		put(tb, &L.mtag_kind, str(p[i].kind));
		put(tb, &L.mtag_function, str(p[i].function));
		put(tb, &L.mtag_modname, str(p[i].modname));
		put(tb, &L.mtag_filename, str(p[i].file));
		put(tb, &L.mtag_lineno, p[i].line);
		put(pb, &L.tag, base + tag0 + (uint64_t)i * 0x100);
		put(pb, &L.instance, str(p[i].instance));
		put(pb, &L.alloc, p[i].alloc ? KASLR + syms[p[i].alloc].addr : KASLR + 0x1234560);
		put(pb, &L.pool_data, p[i].alloc == S_SLAB ? cache : p[i].pool_data);
		put(pb, &L.min_nr, (uint64_t)p[i].min_nr);
		put(pb, &L.curr_nr, (uint64_t)p[i].curr_nr);
		put(pb, &L.low_nr, (uint64_t)p[i].low_nr);
		put(pb, &L.nr_reserve, p[i].nr_reserve);
		put(pb, &L.nr_wait, p[i].nr_wait);
		put(pb, &L.nr_fail, p[i].nr_fail);
		put(pb, &L.nr_empty, p[i].nr_empty);
		put_at(pb, L.wait_head.off + L.lh_next.off, wq);
		put_at(pb, L.wait_head.off + L.lh_prev.off, wq);
		put_at(pb, L.list.off + L.lh_prev.off, prev);
		put_at(pb, L.list.off + L.lh_next.off, next);
	}
	/* Pool 2's wait queue: a mempool_waiter at 0xe000, then a foreign entry at 0xe200. */
	{
		uint64_t wq = base + 2 * stride + L.wait_head.off, prev = wq;
		unsigned char *task = data + 0xd000;

		put(task, &L.task_pid, 77);
		put(task, &L.task_state, 2);
		memcpy(task + L.task_comm.off, "kmp_v6waiter", 13);
		for (int w = 0; w < 2; w++) {
			uint64_t wa = base + 0xe000 + (uint64_t)w * 0x200;
			uint64_t e = wa + L.waiter_entry.off, node = e + L.wqe_entry.off;
			unsigned char *wb = data + 0xe000 + w * 0x200, *eb = wb + L.waiter_entry.off;

			put_at(eb, L.wqe_func.off, w ? KASLR + syms[S_EXIT].addr :
			       KASLR + syms[S_WAKE].addr);
			put_at(eb, L.wqe_private.off, base + 0xd000);
			put(wb, &L.waiter_since, NOW - 10 * HZ - 3);
			put_at(eb, L.wqe_entry.off + L.lh_prev.off, prev);
			put_at(eb, L.wqe_entry.off + L.lh_next.off, wq);
			put_at(prev == wq ? data + 2 * stride + L.wait_head.off :
			       data + (prev - base), L.lh_next.off, node);
			prev = node;
		}
		put_at(data + 2 * stride + L.wait_head.off, L.lh_prev.off, prev);
	}
	put_at(img + (syms[S_LIST].addr - lo), L.lh_next.off, base + L.list.off);
	put_at(img + (syms[S_LIST].addr - lo), L.lh_prev.off, base + 3 * stride + L.list.off);
	if (!strcmp(damage, "tag-unmapped"))
		put(data + stride, &L.tag, 0xffff8880dead0000ULL);
	if (!strcmp(damage, "counters"))
		put(data + stride, &L.low_nr, 65);
	if (!strcmp(damage, "no-nul")) {
		/* a function name running to the end of the region, no NUL */
		memset(data + 0x19000, 'x', DATA_SIZE - 0x19000);
		put(data + tag0 + 3 * 0x100, &L.mtag_function, base + 0x19000);
	}

	vilen = snprintf(vi, sizeof(vi), "OSRELEASE=7.2.13-fake\nBUILD-ID=%s\nPAGESIZE=4096\n"
			 "KERNELOFFSET=%" PRIx64 "\nCRASHTIME=1796277309\n", v.build_id,
			 (uint64_t)KASLR);

	/* ELF: header, a note, two PT_LOADs (the image's symbols, the data). */
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[3] = { 0 };
	Elf64_Nhdr nh = { 11, (Elf64_Word)vilen, 0 };
	size_t notesz = sizeof(nh) + 12 + (((size_t)vilen + 3) & ~3UL);
	size_t hdrsz = sizeof(eh) + 3 * sizeof(Elf64_Phdr);
	uint64_t off = (hdrsz + notesz + PAGE - 1) & ~(PAGE - 1);

	eh = elfcore_header(3);
	ph[0] = (Elf64_Phdr){ PT_NOTE, 0, hdrsz, 0, 0, notesz, notesz, 0 };
	ph[1] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_W | PF_X, off, KASLR + lo, KTEXT_PHYS + lo,
			      hi - lo, hi - lo, 0 };
	ph[2] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_W | PF_X, off + (hi - lo), base,
			      KTEXT_PHYS + DATA_OFF, DATA_SIZE, DATA_SIZE, 0 };
	f = fopen(argv[2], "wb");
	if (!f)
		die("cannot write the core");
	fwrite(&eh, sizeof(eh), 1, f);
	fwrite(ph, sizeof(ph[0]), 3, f);
	fwrite(&nh, sizeof(nh), 1, f);
	fwrite("VMCOREINFO\0\0", 12, 1, f);
	fwrite(vi, 1, (size_t)vilen, f);
	fwrite("\0\0\0", 1, (((size_t)vilen + 3) & ~3UL) - (size_t)vilen, f);
	fseek(f, (long)off, SEEK_SET);
	fwrite(img, 1, hi - lo, f);
	fwrite(data, 1, DATA_SIZE, f);
	if (fclose(f))
		die("cannot write the core");
	free(img);
	kmp_vmlinux_close(&v);
	return 0;
}
