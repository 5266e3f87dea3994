// SPDX-License-Identifier: GPL-2.0
/* kmempool: the pages of a kdump-compressed dump; see diskdump.h. */
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>

#include "diskdump.h"
#include "diskdump_fmt.h"
#include "prefault.h"

/* status: stopped before it was whole; vmemmap pages left out and faked by readers */
#define DH_INCOMPLETE		0x8
#define DH_EXCLUDED_VMEMMAP	0x10
/* a page descriptor's flags: zlib (the only compression taken here) */
#define PD_ZLIB			0x1
#define DESC_SIZE		24	/* offset (s64), size (u32), flags (u32), page_flags (u64) */
#define DESC_BLOCK		170	/* descriptors read at once: 4080 bytes */
/*
 * Pages kept per reader, as libkdumpfile kept 512: the walks read a task's
 * or a pool's fields one by one and come back to its pages, the searches
 * read across the edges of their chunks; a page is inflated once for
 * them.  Four ways a set, the set by the pfn.
 */
#define WAYS			4
#define SETS			128
#define KEPT			(WAYS * SETS)
/*
 * The kept pages' memory is handed out in the order slots first fill, and
 * mapped this many pages ahead in one call (prefault.h): a run that reads
 * 50 pages maps 64, not 512, and faults on none of them.
 */
#define PREFAULT_PAGES		64

static bool read_all(kmp_pread_fn rd, void *arg, int fd, void *buf, size_t len, uint64_t off)
{
	return off <= INT64_MAX - len && rd(arg, fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* @a * @b in *@r, false on overflow. */
static bool mul(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_mul_overflow(a, b, r);
}

void kmp_diskdump_free(struct kmp_diskdump *d)
{
	free(d->bits);
	free(d->rank);
	free(d->vmcoreinfo);
	memset(d, 0, sizeof(*d));
}

/* Does the note name @name (@n bytes, maybe without its NUL) say @want?  As libkdumpfile. */
static bool note_is(const char *want, const unsigned char *name, uint64_t n)
{
	size_t len = strlen(want);

	return (n == len || n == len + 1) && !memcmp(name, want, n);
}

/* @n bytes at @p as a NUL-terminated copy in d->vmcoreinfo (the last one read wins). */
static void keep_vmcoreinfo(struct kmp_diskdump *d, const unsigned char *p, uint64_t n)
{
	char *v = malloc(n + 1);

	if (!v)
		return;
	memcpy(v, p, n);
	v[n] = '\0';
	free(d->vmcoreinfo);
	d->vmcoreinfo = v;
}

/*
 * The notes of @len bytes at @off: VMCOREINFO kept; true if any is Xen's.
 * Walked as libkdumpfile walks them: 4-byte aligned names and
 * descriptions, stopping at the first note that does not fit.
 */
static bool read_notes(struct kmp_diskdump *d, kmp_pread_fn rd, void *arg, int fd,
		       uint64_t off, uint64_t len)
{
	unsigned char *b;
	uint64_t at = 0;
	bool xen = false;

	if (!len || len > KMP_DISKDUMP_NOTES_MAX || !(b = malloc(len)))
		return false;
	if (!read_all(rd, arg, fd, b, len, off)) {
		free(b);
		return false;
	}
	while (len - at >= 12) {
		uint64_t namesz = kmp_dd_le(b + at, 4), descsz = kmp_dd_le(b + at + 4, 4);
		uint64_t descoff = 12 + ((namesz + 3) & ~3ULL), next;
		const unsigned char *name = b + at + 12;

		if (len - at < descoff || len - at - descoff < descsz)
			break;
		if (note_is("VMCOREINFO", name, namesz))
			keep_vmcoreinfo(d, b + at + descoff, descsz);
		else if (note_is("VMCOREINFO_XEN", name, namesz) || note_is("Xen", name, namesz) ||
			 note_is(".note.Xen", name, namesz))
			xen = true;
		next = descoff + ((descsz + 3) & ~3ULL);
		if (next > len - at)
			break;
		at += next;
	}
	free(b);
	return xen;
}

/*
 * The machine, phys_base and VMCOREINFO (struct kmp_diskdump); none of
 * them is required.  True if a note says the dump is of a Xen host or guest.
 */
static bool read_info(struct kmp_diskdump *d, kmp_pread_fn rd, void *arg, int fd,
		      const unsigned char *h, const unsigned char *s, uint32_t version)
{
	memcpy(d->machine, h + DD_H_MACHINE, DD_UTS_LEN);
	d->machine[DD_UTS_LEN] = '\0';
	d->phys_base = kmp_dd_le(s + DD_S_PHYS_BASE, 8);
	if (version >= 4) {
		return read_notes(d, rd, arg, fd, kmp_dd_le(s + DD_S_OFF_NOTE, 8),
				  kmp_dd_le(s + DD_S_OFF_NOTE + 8, 8));
	} else if (version == 3) {
		uint64_t off = kmp_dd_le(s + DD_S_OFF_VMCOREINFO, 8);
		uint64_t len = kmp_dd_le(s + DD_S_OFF_VMCOREINFO + 8, 8);
		unsigned char *b;

		if (!len || len > KMP_DISKDUMP_NOTES_MAX || !(b = malloc(len)))
			return false;
		if (read_all(rd, arg, fd, b, len, off))
			keep_vmcoreinfo(d, b, len);
		free(b);
	}
	return false;
}

bool kmp_diskdump_open(struct kmp_diskdump *d, kmp_pread_fn rd, void *arg, int fd,
		       const char **why)
{
	unsigned char h[DD_H_SIZE], s[DD_S_SIZE];
	uint64_t bs, sub, bmblocks, bmlen, half, nbits, maxmap, boff, words, total = 0;
	uint32_t version, status;
	const char *no = "a header, bitmap or note that cannot be read";

	memset(d, 0, sizeof(*d));
	if (!read_all(rd, arg, fd, h, sizeof(h), 0) || memcmp(h, "KDUMP   ", 8)) {
		no = "not a kdump-compressed file";
		goto no;
	}
	version = (uint32_t)kmp_dd_le(h + DD_H_VERSION, 4);
	status = (uint32_t)kmp_dd_le(h + DD_H_STATUS, 4);
	bs = (uint32_t)kmp_dd_le(h + DD_H_BLOCK_SIZE, 4);
	sub = (uint32_t)kmp_dd_le(h + DD_H_SUB_HDR_SIZE, 4);
	bmblocks = (uint32_t)kmp_dd_le(h + DD_H_BITMAP_BLOCKS, 4);
	/* 4 KiB to 64 KiB pages, a sub-header (it says whether the dump is split), a bitmap */
	if (!version || version > 64 || bs < 4096 || bs > 65536 || (bs & (bs - 1)) || !sub ||
	    sub > (1u << 20) || !bmblocks) {
		no = "header version, block size, sub-header or bitmap size out of bounds";
		goto no;
	}
	if (status & DH_INCOMPLETE) {
		no = "marked incomplete (makedumpfile did not finish writing it)";
		goto no;
	}
	if (status & DH_EXCLUDED_VMEMMAP) {
		no = "vmemmap pages excluded (makedumpfile -e)";
		goto no;
	}
	if (!read_all(rd, arg, fd, s, sizeof(s), bs))
		goto no;
	if ((uint32_t)kmp_dd_le(s + DD_S_SPLIT, 4)) {
		no = "one part of a split dump (makedumpfile --split)";
		goto no;
	}
	maxmap = version >= 6 ? kmp_dd_le(s + DD_S_MAX_MAPNR_64, 8) : kmp_dd_le(h + DD_H_MAX_MAPNR, 4);
	/* The bitmap: the pages in memory, then (its second half) the pages in the dump. */
	if (!mul(bmblocks, bs, &bmlen) || bmlen % 16) {
		no = "bitmap size overflows or is not two halves of 8-byte words";
		goto no;
	}
	half = bmlen / 2;
	if (half > KMP_DISKDUMP_BITMAP_MAX || !mul(1 + sub, bs, &boff) ||
	    __builtin_add_overflow(boff, bmlen, &d->desc_off)) {
		no = "bitmap over 32 MiB (over 1 TiB of 4 KiB pages)";
		goto no;
	}
	/*
	 * makedumpfile sizes each half for every pfn below max_mapnr; a
	 * shorter one is a damaged header (libkdumpfile: "Page bitmap too
	 * small"), not pages left out.
	 */
	if (half * 8 < maxmap) {
		no = "page bitmap too small for max_mapnr";
		goto no;
	}
	nbits = maxmap;
	words = (nbits + 63) / 64;
	d->bits = calloc(words ? words : 1, 8);
	d->rank = calloc(words / 8 + 1, sizeof(*d->rank));
	if (!d->bits || !d->rank || !read_all(rd, arg, fd, d->bits, (nbits + 7) / 8, boff + half))
		goto no;
	if (nbits % 64)		/* bits past nbits in the last word are not pfns */
		d->bits[words - 1] &= (1ULL << (nbits % 64)) - 1;
	for (uint64_t w = 0; w < words; w++) {
		if (!(w % 8)) {
			if (total > UINT32_MAX) {
				no = "over 2^32 pages dumped";
				goto no;
			}
			d->rank[w / 8] = (uint32_t)total;
		}
		/* The file's bytes are little-endian, as is this host. */
		total += (uint64_t)__builtin_popcountll(d->bits[w]);
	}
	d->page_size = (uint32_t)bs;
	d->nbits = nbits;
	d->ndesc = total;
	/*
	 * A Xen dump's bitmap counts machine frames, not the kernel-physical
	 * addresses the translation gives: not taken, all of it libkdumpfile's.
	 */
	if (read_info(d, rd, arg, fd, h, s, version)) {
		no = "a Xen dump (its bitmap counts machine frames)";
		goto no;
	}
	if (why)
		*why = NULL;
	return true;
no:
	if (why)
		*why = no;
	kmp_diskdump_free(d);
	return false;
}

bool kmp_diskdump_index(const struct kmp_diskdump *d, uint64_t pfn, uint64_t *idx)
{
	uint64_t w = pfn / 64, n;

	if (pfn >= d->nbits || !(d->bits[w] >> (pfn % 64) & 1))
		return false;
	n = d->rank[w / 8];
	for (uint64_t i = w & ~7ULL; i < w; i++)
		n += (uint64_t)__builtin_popcountll(d->bits[i]);
	*idx = n + (uint64_t)__builtin_popcountll(d->bits[w] & ((1ULL << (pfn % 64)) - 1));
	return true;
}

struct kmp_ddreader {
	const struct kmp_diskdump *d;
	struct libdeflate_decompressor *z;
	unsigned char *cbuf;		/* a page's stored bytes */
	unsigned char desc[DESC_BLOCK * DESC_SIZE];
	uint64_t desc_first;		/* index of desc[0] */
	size_t desc_n;			/* descriptors held, 0: none */
	uint64_t kept_pfn[KEPT];
	bool kept_ok[KEPT];
	uint16_t at[KEPT];		/* slot -> its page in @kept, once filled */
	bool has[KEPT];			/* slot has a page */
	size_t used;			/* pages of @kept handed out */
	uint8_t next[SETS];		/* each set's way to fill next */
	unsigned char *kept;		/* KEPT pages */
};

struct kmp_ddreader *kmp_ddreader_new(const struct kmp_diskdump *d)
{
	struct kmp_ddreader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->d = d;
	r->cbuf = malloc(d->page_size);
	/* page-aligned, for kmp_prefault() to map whole pages of it */
	if (posix_memalign((void **)&r->kept, 4096, (size_t)KEPT * d->page_size))
		r->kept = NULL;
	r->z = libdeflate_alloc_decompressor();
	if (!r->cbuf || !r->kept || !r->z) {
		kmp_ddreader_free(r);
		return NULL;
	}
	return r;
}

void kmp_ddreader_free(struct kmp_ddreader *r)
{
	if (!r)
		return;
	if (r->z)
		libdeflate_free_decompressor(r->z);
	free(r->cbuf);
	free(r->kept);
	free(r);
}

/* The descriptor of dumped page @idx: its 24 bytes, from the block read with it. */
static const unsigned char *descriptor(struct kmp_ddreader *r, kmp_pread_fn rd, void *arg, int fd,
				       uint64_t idx)
{
	const struct kmp_diskdump *d = r->d;
	uint64_t first = idx - idx % DESC_BLOCK, n = d->ndesc - first, off;
	ssize_t got;

	if (idx >= d->ndesc)
		return NULL;
	if (r->desc_n && idx >= r->desc_first && idx - r->desc_first < r->desc_n)
		return r->desc + (idx - r->desc_first) * DESC_SIZE;
	if (n > DESC_BLOCK)
		n = DESC_BLOCK;
	r->desc_n = 0;
	if (!mul(first, DESC_SIZE, &off) || __builtin_add_overflow(off, d->desc_off, &off) ||
	    off > INT64_MAX)
		return NULL;
	got = rd(arg, fd, r->desc, n * DESC_SIZE, (off_t)off);
	if (got < (ssize_t)((idx - first + 1) * DESC_SIZE))
		return NULL;
	r->desc_first = first;
	r->desc_n = (size_t)got / DESC_SIZE;
	return r->desc + (idx - first) * DESC_SIZE;
}

/* Page @pfn decoded into @out: as kmp_ddreader_page(). */
static bool decode(struct kmp_ddreader *r, kmp_pread_fn rd, void *arg, int fd, uint64_t pfn,
		   unsigned char *out)
{
	const struct kmp_diskdump *d = r->d;
	const unsigned char *desc;
	uint64_t idx, off, size, flags;

	if (!kmp_diskdump_index(d, pfn, &idx) || !(desc = descriptor(r, rd, arg, fd, idx)))
		return false;
	off = kmp_dd_le(desc, 8);
	size = (uint32_t)kmp_dd_le(desc + 8, 4);
	flags = (uint32_t)kmp_dd_le(desc + 12, 4);
	if (off > INT64_MAX || !size || size > d->page_size)
		return false;
	if (!flags)	/* stored as it is */
		return size == d->page_size && read_all(rd, arg, fd, out, size, off);
	/* The whole zlib stream, its checksum checked, and exactly a page out of it. */
	return flags == PD_ZLIB && read_all(rd, arg, fd, r->cbuf, size, off) &&
	       libdeflate_zlib_decompress(r->z, r->cbuf, size, out, d->page_size, NULL) ==
	       LIBDEFLATE_SUCCESS;
}

const unsigned char *kmp_ddreader_page(struct kmp_ddreader *r, kmp_pread_fn rd, void *arg, int fd,
				       uint64_t pfn)
{
	size_t ps = r->d->page_size;
	unsigned int set = (unsigned int)((pfn * 0x9e3779b97f4a7c15ULL) >> 57) % SETS, s, w;

	for (w = 0; w < WAYS; w++) {
		s = set * WAYS + w;
		if (r->kept_ok[s] && r->kept_pfn[s] == pfn)
			break;
	}
	if (w == WAYS) {
		s = set * WAYS + r->next[set];
		r->next[set] = (uint8_t)((r->next[set] + 1) % WAYS);
		if (!r->has[s]) {
			if (!(r->used % PREFAULT_PAGES))
				kmp_prefault(r->kept + r->used * ps, PREFAULT_PAGES * ps);
			r->at[s] = (uint16_t)r->used++;
			r->has[s] = true;
		}
		r->kept_pfn[s] = pfn;
		r->kept_ok[s] = decode(r, rd, arg, fd, pfn, r->kept + (size_t)r->at[s] * ps);
		if (!r->kept_ok[s])
			return NULL;
	}
	return r->kept + (size_t)r->at[s] * ps;
}
