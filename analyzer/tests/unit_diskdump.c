// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool's own kdump-compressed reader (lib/dump/diskdump.c) on dumps this
 * test writes: a plain one it takes (a page read back, a page not dumped),
 * and one crafted case per refusal, each the plain dump with one thing
 * changed, refused with its reason (then every page is libkdumpfile's):
 * marked incomplete, vmemmap excluded, one part of a split dump, a Xen
 * dump (by its note), a bitmap too small for max_mapnr, header version 3
 * (VMCOREINFO in the sub-header) taken.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diskdump.h"
#include "diskdump_fmt.h"

#define PS 4096
#define NBLK 8		/* header, sub, bitmap x2, descriptors, page, notes, spare */
#define PFN 5		/* the one page dumped */

struct file {
	unsigned char b[NBLK * PS];
};

static ssize_t mem_pread(void *arg, int fd, void *buf, size_t count, off_t off)
{
	const struct file *f = arg;

	(void)fd;
	if (off < 0 || (size_t)off >= sizeof(f->b))
		return 0;
	if (count > sizeof(f->b) - (size_t)off)
		count = sizeof(f->b) - (size_t)off;
	memcpy(buf, f->b + off, count);
	return (ssize_t)count;
}

static void put(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A note @name with @desc at @p; its length. */
static size_t note(unsigned char *p, const char *name, const char *desc)
{
	size_t nl = strlen(name) + 1, dl = strlen(desc), at = 12;

	put(p, nl, 4);
	put(p + 4, dl, 4);
	put(p + 8, 0, 4);
	memcpy(p + at, name, nl);
	at += (nl + 3) & ~3u;
	memcpy(p + at, desc, dl);
	return at + ((dl + 3) & ~3u);
}

/*
 * The plain dump: version 6, 4 KiB blocks, a bitmap of 2 blocks (32,768
 * pfns), max_mapnr 32,768, pfn PFN dumped raw, a VMCOREINFO note.
 */
static void plain(struct file *f, const char *extra_note)
{
	unsigned char *h = f->b, *s = f->b + PS, *bm = f->b + 2 * PS, *desc = f->b + 4 * PS;
	size_t nl;

	memset(f, 0, sizeof(*f));
	memcpy(h, "KDUMP   ", 8);
	put(h + DD_H_VERSION, 6, 4);
	memcpy(h + DD_H_MACHINE, "x86_64", 6);
	put(h + DD_H_BLOCK_SIZE, PS, 4);
	put(h + DD_H_SUB_HDR_SIZE, 1, 4);
	put(h + DD_H_BITMAP_BLOCKS, 2, 4);
	put(h + DD_H_MAX_MAPNR, 32768, 4);
	put(s + DD_S_MAX_MAPNR_64, 32768, 8);
	bm[PFN / 8] |= 1 << (PFN % 8);			/* in memory */
	bm[PS + PFN / 8] |= 1 << (PFN % 8);		/* in the dump */
	put(desc, 5 * PS, 8);				/* offset */
	put(desc + 8, PS, 4);				/* size: raw */
	memset(f->b + 5 * PS, 0xab, PS);
	nl = note(f->b + 6 * PS, "VMCOREINFO", "OSRELEASE=6.1.0-test\nPAGESIZE=4096\n");
	if (extra_note)
		nl += note(f->b + 6 * PS + nl, extra_note, "x");
	put(s + DD_S_OFF_NOTE, 6 * PS, 8);
	put(s + DD_S_OFF_NOTE + 8, nl, 8);
}

static void test_plain(void)
{
	struct kmp_diskdump d;
	struct kmp_ddreader *r;
	const unsigned char *p;
	const char *why = "unset";
	uint64_t idx;
	struct file *f = malloc(sizeof(*f));

	begin("diskdump: the plain crafted dump is taken, its page read back");
	plain(f, NULL);
	CHECK(kmp_diskdump_open(&d, mem_pread, f, -1, &why) && !why, "refused: %s", why);
	if (d.bits) {
		CHECK(d.ndesc == 1 && kmp_diskdump_index(&d, PFN, &idx) && idx == 0 &&
		      !kmp_diskdump_index(&d, PFN + 1, &idx), "the bitmap (ndesc %llu)",
		      (unsigned long long)d.ndesc);
		CHECK(d.vmcoreinfo && strstr(d.vmcoreinfo, "OSRELEASE=6.1.0-test"), "VMCOREINFO");
		r = kmp_ddreader_new(&d);
		p = r ? kmp_ddreader_page(r, mem_pread, f, -1, PFN) : NULL;
		CHECK(p && p[0] == 0xab && p[PS - 1] == 0xab, "pfn %d's bytes", PFN);
		CHECK(r && !kmp_ddreader_page(r, mem_pread, f, -1, PFN + 1), "a page not dumped");
		kmp_ddreader_free(r);
		kmp_diskdump_free(&d);
	}
	end();
	free(f);
}

/* The plain dump changed by @damage: refused, *why matching @want. */
static void refused(const char *name, void (*damage)(struct file *), const char *xen,
		    const char *want)
{
	struct kmp_diskdump d;
	const char *why = NULL;
	struct file *f = malloc(sizeof(*f));

	begin(name);
	plain(f, xen);
	if (damage)
		damage(f);
	CHECK(!kmp_diskdump_open(&d, mem_pread, f, -1, &why), "taken");
	CHECK(why && strstr(why, want), "reason '%s', want '%s'", why ? why : "(none)", want);
	if (d.bits)
		kmp_diskdump_free(&d);
	end();
	free(f);
}

static void incomplete(struct file *f) { put(f->b + DD_H_STATUS, 0x8, 4); }
static void vmemmap(struct file *f) { put(f->b + DD_H_STATUS, 0x10, 4); }
static void split(struct file *f) { put(f->b + PS + DD_S_SPLIT, 1, 4); }
static void short_bitmap(struct file *f) { put(f->b + PS + DD_S_MAX_MAPNR_64, 32769, 8); }

/* Version 3: VMCOREINFO in the sub-header (offset, size), no notes read. */
static void test_v3(void)
{
	struct kmp_diskdump d;
	const char *why = "unset";
	struct file *f = malloc(sizeof(*f));
	static const char vi[] = "OSRELEASE=5.10.0-v3\n";

	begin("diskdump: a version 3 dump (VMCOREINFO in its sub-header) is taken");
	plain(f, "Xen");	/* a Xen note that version 3 does not read */
	put(f->b + DD_H_VERSION, 3, 4);
	memcpy(f->b + 7 * PS, vi, sizeof(vi) - 1);
	put(f->b + PS + DD_S_OFF_VMCOREINFO, 7 * PS, 8);
	put(f->b + PS + DD_S_OFF_VMCOREINFO + 8, sizeof(vi) - 1, 8);
	CHECK(kmp_diskdump_open(&d, mem_pread, f, -1, &why), "refused: %s", why);
	if (d.bits) {
		CHECK(d.vmcoreinfo && !strcmp(d.vmcoreinfo, vi), "VMCOREINFO '%s'",
		      d.vmcoreinfo ? d.vmcoreinfo : "(none)");
		kmp_diskdump_free(&d);
	}
	end();
	free(f);
}

int main(void)
{
	test_plain();
	refused("diskdump: marked incomplete: refused", incomplete, NULL, "incomplete");
	refused("diskdump: vmemmap excluded (makedumpfile -e): refused", vmemmap, NULL, "vmemmap");
	refused("diskdump: one part of a split dump: refused", split, NULL, "split");
	refused("diskdump: a Xen dump (note \"Xen\"): refused", NULL, "Xen", "Xen");
	refused("diskdump: a Xen dump (note \"VMCOREINFO_XEN\"): refused", NULL, "VMCOREINFO_XEN",
		"Xen");
	refused("diskdump: a bitmap too small for max_mapnr: refused", short_bitmap, NULL,
		"header out of bounds");
	test_v3();
	printf("unit-diskdump: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
