// SPDX-License-Identifier: GPL-2.0
/* kmempool: named symbols found in one sequential read of .strtab and .symtab. */
#include <errno.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symscan.h"

#define CHUNK_DEFAULT 65536
#define HITS_MAX (1u << 20)	/* places a wanted name ends in .strtab */
#define NONE UINT32_MAX
#define CHAINS 64		/* wanted names by filter key, two lists of */

/* One distinct name looked for. */
struct want {
	const char *name;
	size_t len;
	uint8_t last;		/* its last byte */
	unsigned int key;	/* its filter key: key4() from 4 bytes on, else key2() */
	size_t next;		/* the next want of the same chain (CHAINS), or SIZE_MAX */
	bool found;
	uint64_t addr, size;
};

/* A wanted name's place: the string at .strtab offset @off is want @w. */
struct hit {
	uint32_t off, w;
};

struct scan {
	const struct kmp_symfile *f;
	size_t chunk;
	struct want *wants;
	size_t nwant, maxlen;
	/*
	 * Filters of the bytes before a NUL that may end a wanted name: a
	 * hash of the last four, for the names of four bytes or more; the
	 * last two, for shorter ones (if any).
	 */
	uint8_t filter4[65536 / 8], filter2[65536 / 8];
	bool shorts;
	size_t chain[2][CHAINS];	/* [long][key % CHAINS]: first want, or SIZE_MAX */
	size_t ones;			/* the one-byte names (any key2 may end them) */
	struct hit *hits;
	size_t nhits, caphits;
};

static bool read_all(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t r = pread(fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		off += (uint64_t)r;
		len -= (size_t)r;
	}
	return true;
}

/* The bytes of @w that are zero, each marked by its top bit (no false marks). */
static inline uint64_t nul_bytes(uint64_t w)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;

	return ~(((w & low7) + low7) | w | low7);
}

static inline void filter_set(uint8_t *filter, unsigned int key)
{
	filter[key >> 3] |= (uint8_t)(1u << (key & 7));
}

static bool add_hit(struct scan *s, uint64_t off, size_t w)
{
	if (s->nhits == s->caphits) {
		size_t cap = s->caphits ? 2 * s->caphits : 256;
		struct hit *h;

		if (cap > HITS_MAX)
			return false;
		h = realloc(s->hits, cap * sizeof(*h));
		if (!h)
			return false;
		s->hits = h;
		s->caphits = cap;
	}
	s->hits[s->nhits++] = (struct hit){ (uint32_t)off, (uint32_t)w };
	return true;
}

static inline bool filter_has(const uint8_t *filter, unsigned int key)
{
	return filter[key >> 3] & (1u << (key & 7));
}

static inline unsigned int key4(const unsigned char *end)
{
	uint32_t w;

	memcpy(&w, end - 4, 4);
	return (unsigned int)((w * 0x9e3779b1u) >> 16);
}

static inline unsigned int key2(const unsigned char *buf, size_t j)
{
	return buf[j - 1] | (j >= 2 ? (unsigned int)buf[j - 2] << 8 : 0);
}

/* A NUL at buf[j], .strtab offset base + j, that passed the filter: the wanted names that end there. */
static bool __attribute__((noinline)) names_at(struct scan *s, const unsigned char *buf, size_t j,
					       uint64_t base)
{
	unsigned int k[3] = { key2(buf, j), j >= 4 ? key4(buf + j) : UINT_MAX, 0 };
	size_t first[3] = { s->chain[0][k[0] % CHAINS], j >= 4 ? s->chain[1][k[1] % CHAINS] : SIZE_MAX,
			    s->ones };

	for (int lg = 0; lg < 3; lg++) {
		for (size_t w = first[lg]; w != SIZE_MAX; w = s->wants[w].next) {
			const struct want *n = &s->wants[w];

			if (n->len > j || buf[j - 1] != n->last || (n->len >= 2 && n->key != k[lg]) ||
			    memcmp(buf + j - n->len, n->name, n->len))
				continue;
			if (!add_hit(s, base + j - n->len, w))
				return false;
		}
	}
	return true;
}

/* A NUL at buf[j]: does a wanted name end there?  Most do not pass the filters. */
static inline bool at_nul(struct scan *s, const unsigned char *buf, size_t j, uint64_t base)
{
	if (__builtin_expect(j >= 4 && filter_has(s->filter4, key4(buf + j)), 0) ||
	    (s->shorts && j && filter_has(s->filter2, key2(buf, j))))
		return names_at(s, buf, j, base);
	return true;
}

/*
 * .strtab front to back, @chunk bytes at a time; the last maxlen bytes
 * of each read stay in front of the next, so a name across two reads is
 * seen whole.  Offsets past 4 GiB cannot be a symbol's st_name.
 */
static bool scan_strtab(struct scan *s)
{
	uint64_t limit = s->f->strsize < NONE ? s->f->strsize : NONE, pos = 0;
	size_t keep = 0;
	unsigned char *buf = malloc(s->maxlen + s->chunk);
	bool ok = true;

	if (!buf)
		return false;
	while (ok && pos < limit) {
		size_t r = limit - pos < s->chunk ? (size_t)(limit - pos) : s->chunk;
		size_t j = keep, end = keep + r, next;
		uint64_t base = pos - keep;	/* .strtab offset of buf[0] */

		if (!read_all(s->f->fd, buf + keep, r, s->f->stroff + pos)) {
			ok = false;
			break;
		}
		for (; ok && j + 8 <= end; j += 8) {
			uint64_t w, z;

			memcpy(&w, buf + j, 8);
			for (z = nul_bytes(w); ok && z; z &= z - 1)
				ok = at_nul(s, buf, j + ((size_t)__builtin_ctzll(z) >> 3), base);
		}
		for (; ok && j < end; j++)
			if (!buf[j])
				ok = at_nul(s, buf, j, base);
		pos += r;
		next = end < s->maxlen ? end : s->maxlen;
		memmove(buf, buf + end - next, next);
		keep = next;
	}
	free(buf);
	return ok;
}

/* The wanted names' offsets, open-addressed by offset. */
struct offtab {
	struct hit *slot;	/* w == NONE: empty */
	uint32_t mask;
	/*
	 * A bit for each 64-byte block of .strtab that holds one of the
	 * offsets (block numbers modulo its size): nearly every symbol is
	 * passed over on one test of a table that stays in the L1 cache,
	 * instead of a probe whose length the branch predictor cannot know.
	 */
	uint64_t block[1024];
};

#define BLOCK(off) (((off) >> 6) & (1024 * 64 - 1))

static inline uint32_t off_hash(uint32_t off, uint32_t mask)
{
	return (uint32_t)(((uint64_t)off * 0x9e3779b97f4a7c15ULL) >> 40) & mask;
}

static bool offtab_build(struct offtab *t, const struct hit *hits, size_t n)
{
	size_t size = 64;

	while (size < 2 * n)
		size <<= 1;
	t->slot = malloc(size * sizeof(*t->slot));
	if (!t->slot)
		return false;
	t->mask = (uint32_t)(size - 1);
	memset(t->block, 0, sizeof(t->block));
	for (size_t i = 0; i < size; i++)
		t->slot[i].w = NONE;
	for (size_t i = 0; i < n; i++) {
		uint32_t h = off_hash(hits[i].off, t->mask), b = BLOCK(hits[i].off);

		t->block[b / 64] |= 1ULL << (b % 64);

		while (t->slot[h].w != NONE)
			h = (h + 1) & t->mask;
		t->slot[h] = hits[i];
	}
	return true;
}

static inline uint32_t offtab_find(const struct offtab *t, uint32_t off)
{
	uint32_t b = BLOCK(off);

	if (__builtin_expect(!(t->block[b / 64] & (1ULL << (b % 64))), 1))
		return NONE;
	for (uint32_t h = off_hash(off, t->mask); t->slot[h].w != NONE; h = (h + 1) & t->mask)
		if (t->slot[h].off == off)
			return t->slot[h].w;
	return NONE;
}

/* .symtab front to back: the first defined symbol at each wanted offset. */
static bool scan_symtab(struct scan *s, size_t remaining)
{
	size_t per = s->chunk / sizeof(Elf64_Sym) ? s->chunk / sizeof(Elf64_Sym) : 1;
	Elf64_Sym *buf = malloc(per * sizeof(*buf));
	struct offtab *t = malloc(sizeof(*t));
	bool ok = true;

	if (!buf || !t || !offtab_build(t, s->hits, s->nhits)) {
		free(t);
		free(buf);
		return false;
	}
	for (uint64_t k = 0; ok && remaining && k < s->f->nsyms; k += per) {
		size_t m = s->f->nsyms - k < per ? (size_t)(s->f->nsyms - k) : per;

		if (!read_all(s->f->fd, buf, m * sizeof(*buf), s->f->symoff + k * sizeof(*buf))) {
			ok = false;
			break;
		}
		for (size_t i = 0; i < m && remaining; i++) {
			uint32_t w;

			if (buf[i].st_shndx == SHN_UNDEF || !buf[i].st_name ||
			    (w = offtab_find(t, buf[i].st_name)) == NONE || s->wants[w].found)
				continue;
			s->wants[w].found = true;
			s->wants[w].addr = buf[i].st_value;
			s->wants[w].size = buf[i].st_size;
			remaining--;
		}
	}
	free(t->slot);
	free(t);
	free(buf);
	return ok;
}

bool kmp_symscan(const struct kmp_symfile *f, struct kmp_sym *syms, size_t n, size_t chunk)
{
	struct scan *s = calloc(1, sizeof(*s));
	size_t *map = calloc(n ? n : 1, sizeof(*map));
	bool ok = s && map;

	for (size_t i = 0; i < n; i++)
		syms[i].found = false;
	if (!ok)
		goto out;
	s->f = f;
	s->chunk = chunk ? chunk : CHUNK_DEFAULT;
	memset(s->chain, 0xff, sizeof(s->chain));
	s->ones = SIZE_MAX;
	s->wants = calloc(n ? n : 1, sizeof(*s->wants));
	if (!(ok = s->wants != NULL))
		goto out;
	/* Each distinct name once; the empty and the overlong ones are not looked for. */
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(syms[i].name), w, *head;

		map[i] = SIZE_MAX;
		if (!len || len > KMP_SYMNAME_MAX)
			continue;
		for (w = 0; w < s->nwant && strcmp(s->wants[w].name, syms[i].name); w++)
			;
		map[i] = w;
		if (w < s->nwant)
			continue;
		s->wants[w] = (struct want){ .name = syms[i].name, .len = len,
					     .last = (uint8_t)syms[i].name[len - 1] };
		if (len >= 4) {
			s->wants[w].key = key4((const unsigned char *)syms[i].name + len);
			filter_set(s->filter4, s->wants[w].key);
		} else if (len >= 2) {
			s->wants[w].key = key2((const unsigned char *)syms[i].name, len);
			filter_set(s->filter2, s->wants[w].key);
			s->shorts = true;
		} else {
			/* Any byte may come before it, or none (a name at offset 0). */
			for (unsigned int b = 0; b < 256; b++)
				filter_set(s->filter2, s->wants[w].last | b << 8);
			s->shorts = true;
		}
		/* Appended: a chain keeps the order of the wants. */
		head = len == 1 ? &s->ones : &s->chain[len >= 4][s->wants[w].key % CHAINS];
		while (*head != SIZE_MAX)
			head = &s->wants[*head].next;
		*head = w;
		s->wants[w].next = SIZE_MAX;
		s->maxlen = len > s->maxlen ? len : s->maxlen;
		s->nwant++;
	}
	ok = !s->nwant || scan_strtab(s);
	if (ok && s->nhits) {
		bool *placed = calloc(s->nwant, sizeof(*placed));
		size_t remaining = 0;

		ok = placed != NULL;
		for (size_t i = 0; ok && i < s->nhits; i++)
			placed[s->hits[i].w] = true;
		for (size_t w = 0; ok && w < s->nwant; w++)
			remaining += placed[w];
		free(placed);
		ok = ok && scan_symtab(s, remaining);
	}
	for (size_t i = 0; ok && i < n; i++) {
		if (map[i] == SIZE_MAX || !s->wants[map[i]].found)
			continue;
		syms[i].found = true;
		syms[i].addr = s->wants[map[i]].addr;
		syms[i].size = s->wants[map[i]].size;
	}
out:
	if (s) {
		free(s->hits);
		free(s->wants);
	}
	free(s);
	free(map);
	return ok;
}
