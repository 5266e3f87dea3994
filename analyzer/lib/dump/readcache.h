/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: a few pages of a live reader kept for one walk of the list.
 *
 * On /proc/kcore every read is a system call; a walk of 100,000 pools made
 * eight of them a pool.  The pools and their strings lie side by side in
 * slab pages, and slab pages allocated one after another mostly lie side
 * by side too: the walk reads a line of KMP_RC_LINE_PAGES aligned pages at
 * once (the page alone when the line cannot be read whole) and takes the
 * rest from it.  What comes from the cache is as old as the walk attempt
 * (it is emptied at each start); the checks that a pool is still there,
 * and every read again after a doubt, go to the reader underneath.
 */
#ifndef KMP_READCACHE_H
#define KMP_READCACHE_H

#include "mem.h"

#define KMP_RC_SLOTS 16
#define KMP_RC_PAGE 4096ULL
#define KMP_RC_LINE_PAGES 8
#define KMP_RC_LINE (KMP_RC_PAGE * KMP_RC_LINE_PAGES)
#define KMP_RC_HINTS 4

struct kmp_readcache {
	struct kmp_mem mem;		/* reads through the cache: pass &rc->mem */
	struct kmp_mem *under;		/* the reader it keeps pages of */
	uint64_t line[KMP_RC_SLOTS];	/* the line's address */
	uint8_t have[KMP_RC_SLOTS];	/* which of its pages were read (bit 0: the first) */
	unsigned int next;		/* the slot to fill next (round robin) */
	/*
	 * The pages found last (a walk goes back and forth between a pool's
	 * page, its tag's and its strings'): looked at before the slots.
	 * Emptied whenever a slot is filled anew.
	 */
	uint64_t hint_page[KMP_RC_HINTS];
	const unsigned char *hint[KMP_RC_HINTS];
	unsigned int next_hint;
	unsigned char data[KMP_RC_SLOTS][KMP_RC_LINE];
};

/*
 * Several places read at once: a walk's check again of the pools it has
 * read (their records, the links before them, their strings).  Places in
 * one page are read together; places at most KMP_SPANS_GAP bytes apart
 * (a page between them, or less) with one read of up to KMP_SPANS_RUN
 * bytes, each alone when that read fails.  Reset, add the places, read, then get each.
 */
#define KMP_SPANS_GAP (2 * KMP_RC_PAGE)
#define KMP_SPANS_RUN (16 * KMP_RC_PAGE)
#define KMP_SPANS_MAX 192

struct kmp_span {
	uint64_t page, lo, hi;		/* [lo, hi) inside the page at @page */
	size_t off;			/* its bytes in data */
	bool ok;			/* read */
};

struct kmp_spans {
	struct kmp_span v[KMP_SPANS_MAX];
	size_t n;
	uint16_t by_addr[KMP_SPANS_MAX];	/* kmp_spans_read()'s order */
	unsigned char *data;
	size_t cap;
};

void kmp_spans_reset(struct kmp_spans *s);
/* False when [@addr, @addr + @len) crosses a page or there is no room: read it alone. */
bool kmp_spans_add(struct kmp_spans *s, uint64_t addr, uint64_t len);
/* Read every span from @mem (a span that cannot be read is left out); false when out of memory. */
bool kmp_spans_read(struct kmp_spans *s, struct kmp_mem *mem);
/* The bytes at [@addr, @addr + @len) as read, or NULL. */
const unsigned char *kmp_spans_get(const struct kmp_spans *s, uint64_t addr, uint64_t len);
void kmp_spans_free(struct kmp_spans *s);

/* A cache (malloc'ed) in front of @under, which it does not own; NULL when out of memory. */
struct kmp_readcache *kmp_readcache_new(struct kmp_mem *under);
/* Forget every page: the next reads go to the reader underneath. */
void kmp_readcache_reset(struct kmp_readcache *rc);
void kmp_readcache_free(struct kmp_readcache *rc);

#endif
