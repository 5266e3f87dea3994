// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the kdump-compressed page reader (lib/dump/diskdump.c).
 * The input is a dump file; one that does not start with the signature
 * gets a valid header and sub-header put before it (4 KiB pages, a bitmap
 * of two blocks, max_mapnr from the input's first bytes), so that small
 * inputs reach the bitmap, the descriptors and the pages.  Every page the
 * reader takes is checked against an independent reading of the same
 * file: its descriptor found by counting the bitmap's bits one by one,
 * its bytes stored raw or inflated by zlib.  A difference traps.  The
 * built header also says x86_64 and points its notes at the input, so
 * that the notes' walk and, with a VMCOREINFO note, the translation's
 * set-up (lib/dump/ddxlat.c: its answers from VMCOREINFO's lines, its page
 * table walks through the reader) run on what the fuzzer makes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ddxlat.h"
#include "diskdump.h"

#define PS 4096u

struct file {
	const uint8_t *b;
	size_t n;
};

static ssize_t mem_pread(void *arg, int fd, void *buf, size_t count, off_t off)
{
	const struct file *f = arg;

	(void)fd;
	if (off < 0 || (uint64_t)off >= f->n)
		return 0;
	if (count > f->n - (size_t)off)
		count = f->n - (size_t)off;
	memcpy(buf, f->b + off, count);
	return (ssize_t)count;
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The page at @pfn read the slow way: true with it in @out, false if it cannot be. */
static bool naive_page(const struct file *f, const struct kmp_diskdump *d, uint64_t pfn,
		       uint8_t *out)
{
	uint64_t idx = 0, doff, off;
	uint32_t size, flags;
	uLongf len = PS;

	for (uint64_t p = 0; p < pfn; p++)
		idx += d->bits[p / 64] >> (p % 64) & 1;
	doff = d->desc_off + idx * 24;
	if (doff > f->n || f->n - doff < 24)
		return false;
	off = rd64(f->b + doff);
	size = rd32(f->b + doff + 8);
	flags = rd32(f->b + doff + 12);
	if (off > f->n || size > f->n - off)
		return false;
	if (!flags)
		return size == PS && (memcpy(out, f->b + off, PS), true);
	return flags == 1 && uncompress(out, &len, f->b + off, size) == Z_OK && len == PS;
}

struct pages {
	struct kmp_ddreader *r;
	struct file *f;
};

static const unsigned char *page_of(void *arg, uint64_t pfn)
{
	struct pages *p = arg;

	return kmp_ddreader_page(p->r, mem_pread, p->f, -1, pfn);
}

/* The translation set up from what was read, and a few addresses through it. */
static void translate(const struct kmp_diskdump *d, struct file *f)
{
	struct pages p = { kmp_ddreader_new(d), f };
	struct kmp_ddxlat *x = p.r ? kmp_ddxlat_new(d, page_of, &p) : NULL;
	static const uint64_t va[] = { 0xffffffff81000000ULL, 0xffff888000001000ULL,
				       0xffffc90000000000ULL, 0xffffea0000000000ULL, 0x1000 };
	uint64_t pa;

	for (size_t i = 0; x && i < sizeof(va) / sizeof(va[0]); i++)
		(void)kmp_ddxlat_conv(x, va[i], &pa);
	kmp_ddxlat_free(x);
	kmp_ddreader_free(p.r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t want[PS];
	struct kmp_diskdump d;
	struct kmp_ddreader *r;
	struct file f = { data, size };
	uint8_t *built = NULL;

	if (size < 8 || memcmp(data, "KDUMP   ", 8)) {
		/* header, sub-header, then the input as bitmap, descriptors and data */
		built = calloc(1, 2 * PS + size);
		if (!built)
			return 0;
		memcpy(built, "KDUMP   ", 8);
		put32(built + 8, 6);			/* header_version */
		put32(built + 428, PS);			/* block_size */
		put32(built + 432, 1);			/* sub_hdr_size */
		put32(built + 436, 2);			/* bitmap_blocks */
		put32(built + PS + 96, size >= 2 ? (uint32_t)(data[0] | data[1] << 8) : 0);
		memcpy(built + 272, "x86_64", 6);	/* utsname.machine */
		put32(built + PS + 48, 2 * PS);		/* the notes: the input */
		put32(built + PS + 56, (uint32_t)size);
		memcpy(built + 2 * PS, data, size);
		f.b = built;
		f.n = 2 * PS + size;
	}
	if (kmp_diskdump_open(&d, mem_pread, &f, -1, NULL)) {
		if (d.page_size == PS && (r = kmp_ddreader_new(&d))) {
			/* every pfn of a small bitmap (the naive count is slow), each twice */
			uint64_t end = d.nbits < 65536 ? d.nbits + 2 : 65536;

			for (uint64_t pfn = 0; pfn < end; pfn++) {
				uint64_t idx;
				bool in = kmp_diskdump_index(&d, pfn, &idx);

				const unsigned char *got = kmp_ddreader_page(r, mem_pread, &f, -1, pfn);

				if (got && (!in || !naive_page(&f, &d, pfn, want) || memcmp(got, want, PS)))
					__builtin_trap();
				/* again: from the pages it keeps */
				got = in ? kmp_ddreader_page(r, mem_pread, &f, -1, pfn) : NULL;
				if (got && (!naive_page(&f, &d, pfn, want) || memcmp(got, want, PS)))
					__builtin_trap();
			}
			kmp_ddreader_free(r);
		}
		if (d.page_size == PS && d.vmcoreinfo)
			translate(&d, &f);
		kmp_diskdump_free(&d);
	}
	free(built);
	return 0;
}
