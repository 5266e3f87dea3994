// SPDX-License-Identifier: GPL-2.0
/* kmempool: the pages of a kdump-compressed dump; see diskdump.h. */
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>

#include "diskcheck.h"
#include "diskdump.h"
#include "diskdump_fmt.h"
#include "elfnote.h"
#include "prefault.h"

/* a page descriptor's flags: zlib (the only compression taken here) */
#define PD_ZLIB			0x1
#define DESC_SIZE		24	/* offset (s64), size (u32), flags (u32), page_flags (u64) */
#define DESC_BLOCK		170	/* descriptors read at once: 4080 bytes */
#define STORED_WINDOW		(64u << 10)	/* kmp_ddreader_stored()'s read-ahead */
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

	if (!len || len > KMP_DD_NOTES_MAX || !(b = malloc(len)))
		return false;
	if (!read_all(rd, arg, fd, b, len, off)) {
		free(b);
		return false;
	}
	for (;;) {
		struct kmp_note n;

		/* As libkdumpfile: stop at the first note that does not fit. */
		if (kmp_note_next(b, len, &at, &n) != KMP_NOTE_OK)
			break;
		if (kmp_note_is(&n, "VMCOREINFO"))
			keep_vmcoreinfo(d, n.desc, n.descsz);
		else if (kmp_note_is(&n, "VMCOREINFO_XEN") || kmp_note_is(&n, "Xen") ||
			 kmp_note_is(&n, ".note.Xen"))
			xen = true;
	}
	free(b);
	return xen;
}

/*
 * VMCOREINFO (struct kmp_diskdump), as libkdumpfile reads it: the last
 * VMCOREINFO note from version 4 on, the sub-header's own field in
 * version 3; not required.  True if a note says the dump is of a Xen host
 * or guest.
 */
static bool read_info(struct kmp_diskdump *d, kmp_pread_fn rd, void *arg, int fd,
		      const struct kmp_ddhdr *h)
{
	unsigned char *b;

	if (h->version >= 4)
		return read_notes(d, rd, arg, fd, h->notes_off, h->notes_len);
	if (h->version == 3 && h->vmcoreinfo_len && (b = malloc(h->vmcoreinfo_len))) {
		if (read_all(rd, arg, fd, b, h->vmcoreinfo_len, h->vmcoreinfo_off))
			keep_vmcoreinfo(d, b, h->vmcoreinfo_len);
		free(b);
	}
	return false;
}

/* The header parse's reads (diskcheck.h) through this reader's pread. */
struct hdr_src {
	kmp_pread_fn rd;
	void *arg;
	int fd;
};

static ssize_t hdr_read(void *arg, void *buf, size_t len, uint64_t off)
{
	const struct hdr_src *src = arg;

	return off > INT64_MAX ? -1 : src->rd(src->arg, src->fd, buf, len, (off_t)off);
}

bool kmp_diskdump_open(struct kmp_diskdump *d, kmp_pread_fn rd, void *arg, int fd,
		       const char **why)
{
	struct hdr_src src = { rd, arg, fd };
	unsigned char sig[8];
	uint64_t half, nbits, words, total = 0;
	struct kmp_ddhdr h;
	struct kmp_err err;
	const char *no = "a bitmap or note that cannot be read";

	memset(d, 0, sizeof(*d));
	/* The one header parse and its bounds (diskcheck.c), then what this reader takes. */
	if (!read_all(rd, arg, fd, sig, sizeof(sig), 0) || memcmp(sig, "KDUMP   ", 8)) {
		no = "not a kdump-compressed file";
		goto no;
	}
	if (!kmp_ddhdr_read(hdr_read, &src, UINT64_MAX, "dump", &h, &err)) {
		no = "a header out of bounds (see kmp_ddhdr_read)";
		goto no;
	}
	if (h.block_size < 4096 || h.block_size > 65536 || !h.sub_blocks) {
		no = "a page size other than 4 to 64 KiB, or no sub-header";
		goto no;
	}
	if (h.status & DD_STATUS_INCOMPLETE) {
		no = "marked incomplete (makedumpfile did not finish writing it)";
		goto no;
	}
	if (h.status & DD_STATUS_EXCLUDED_VMEMMAP) {
		no = "vmemmap pages excluded (makedumpfile -e)";
		goto no;
	}
	if (h.split) {
		no = "one part of a split dump (makedumpfile --split)";
		goto no;
	}
	/* The bitmap: the pages in memory, then (its second half) the pages in the dump. */
	half = h.bitmap_len / 2;
	if (h.bitmap_len % 16) {
		no = "a bitmap that is not two halves of 8-byte words";
		goto no;
	}
	if (half > KMP_DISKDUMP_BITMAP_MAX) {
		no = "bitmap over 32 MiB (over 1 TiB of 4 KiB pages)";
		goto no;
	}
	/*
	 * makedumpfile sizes each half for every pfn below max_mapnr; a
	 * shorter one is a damaged header (libkdumpfile: "Page bitmap too
	 * small"), not pages left out: the header parse refuses it.
	 */
	d->desc_off = h.bitmap_off + h.bitmap_len;
	nbits = h.max_mapnr;
	words = (nbits + 63) / 64;
	d->bits = calloc(words ? words : 1, 8);
	d->rank = calloc(words / 8 + 1, sizeof(*d->rank));
	if (!d->bits || !d->rank ||
	    !read_all(rd, arg, fd, d->bits, (nbits + 7) / 8, h.bitmap_off + half))
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
	d->page_size = h.block_size;
	d->nbits = nbits;
	d->ndesc = total;
	memcpy(d->machine, h.machine, sizeof(d->machine));
	d->phys_base = h.phys_base;
	d->dump_level = h.dump_level;
	/*
	 * A Xen dump's bitmap counts machine frames, not the kernel-physical
	 * addresses the translation gives: not taken, all of it libkdumpfile's.
	 */
	if (read_info(d, rd, arg, fd, &h)) {
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
	/*
	 * kmp_ddreader_stored()'s read-ahead: the file's bytes at @win_off,
	 * @win_len of them (pages stored one after another are read in one
	 * call); NULL until the first.
	 */
	unsigned char *win;
	uint64_t win_off;
	size_t win_len;
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
	free(r->win);
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

/*
 * The descriptor of page @pfn, if this reader takes the page: its offset,
 * stored size and flags, the page stored as it is (flags 0, a whole page)
 * or as one zlib stream of at most a page.
 */
static bool page_desc(struct kmp_ddreader *r, kmp_pread_fn rd, void *arg, int fd, uint64_t pfn,
		      uint64_t *off, uint64_t *size, uint64_t *flags)
{
	const struct kmp_diskdump *d = r->d;
	const unsigned char *desc;
	uint64_t idx;

	if (!kmp_diskdump_index(d, pfn, &idx) || !(desc = descriptor(r, rd, arg, fd, idx)))
		return false;
	*off = kmp_dd_le(desc, 8);
	*size = (uint32_t)kmp_dd_le(desc + 8, 4);
	*flags = (uint32_t)kmp_dd_le(desc + 12, 4);
	return *off <= INT64_MAX && *size && *size <= d->page_size &&
	       (*flags ? *flags == PD_ZLIB : *size == d->page_size);
}

/* Page @pfn decoded into @out: as kmp_ddreader_page(). */
static bool decode(struct kmp_ddreader *r, kmp_pread_fn rd, void *arg, int fd, uint64_t pfn,
		   unsigned char *out)
{
	uint64_t off, size, flags;

	if (!page_desc(r, rd, arg, fd, pfn, &off, &size, &flags))
		return false;
	if (!flags)	/* stored as it is */
		return read_all(rd, arg, fd, out, size, off);
	/* The whole zlib stream, its checksum checked, and exactly a page out of it. */
	return read_all(rd, arg, fd, r->cbuf, size, off) &&
	       libdeflate_zlib_decompress(r->z, r->cbuf, size, out, r->d->page_size, NULL) ==
	       LIBDEFLATE_SUCCESS;
}

bool kmp_ddreader_stored(struct kmp_ddreader *r, kmp_pread_fn rd, void *arg, int fd,
			 uint64_t pfn, unsigned char *out, size_t cap, size_t *len)
{
	uint64_t off, size, flags;
	uint32_t f;

	if (!page_desc(r, rd, arg, fd, pfn, &off, &size, &flags) || cap < 4 || size > cap - 4)
		return false;
	f = (uint32_t)flags;	/* as the file has it: little endian, as is this host */
	memcpy(out, &f, 4);
	*len = 4 + size;
	if (!r->win && !(r->win = malloc(STORED_WINDOW)))
		return read_all(rd, arg, fd, out + 4, size, off);
	if (off < r->win_off || off - r->win_off > r->win_len || size > r->win_len - (off - r->win_off)) {
		ssize_t got;

		r->win_len = 0;
		/* (a reader may give less than asked, a flattened dump's at a record's end) */
		if ((got = rd(arg, fd, r->win, STORED_WINDOW, (off_t)off)) < (ssize_t)size)
			return read_all(rd, arg, fd, out + 4, size, off);
		r->win_off = off;
		r->win_len = (size_t)got;
	}
	memcpy(out + 4, r->win + (off - r->win_off), size);
	return true;
}

/* The set of @pfn among the kept pages. */
static unsigned int set_of(uint64_t pfn)
{
	return (unsigned int)((pfn * 0x9e3779b97f4a7c15ULL) >> 57) % SETS;
}

/* The slot that holds @pfn, or SETS * WAYS. */
static unsigned int kept_slot(const struct kmp_ddreader *r, uint64_t pfn)
{
	unsigned int set = set_of(pfn);

	for (unsigned int w = 0; w < WAYS; w++) {
		unsigned int s = set * WAYS + w;

		if (r->kept_ok[s] && r->kept_pfn[s] == pfn)
			return s;
	}
	return SETS * WAYS;
}

bool kmp_ddreader_page_into(struct kmp_ddreader *r, kmp_pread_fn rd, void *arg, int fd,
			    uint64_t pfn, unsigned char *out)
{
	size_t ps = r->d->page_size;
	unsigned int s = kept_slot(r, pfn);

	if (s < SETS * WAYS) {
		memcpy(out, r->kept + (size_t)r->at[s] * ps, ps);
		return true;
	}
	return decode(r, rd, arg, fd, pfn, out);
}

const unsigned char *kmp_ddreader_page(struct kmp_ddreader *r, kmp_pread_fn rd, void *arg, int fd,
				       uint64_t pfn)
{
	size_t ps = r->d->page_size;
	unsigned int set = set_of(pfn), s = kept_slot(r, pfn);

	if (s == SETS * WAYS) {
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
