// SPDX-License-Identifier: GPL-2.0
/* kmempool: an index of vmlinux's symbols by name, bucketed by a prefix hash. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "symindex.h"

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define NONE 0xffffffffu
#define PREFETCH 16
/*
 * Look-ups are few (tens per run), building touches every symbol: small
 * buckets are not worth their memory.  16 symbols a bucket on average
 * keeps the starts (64 KiB at most) in the cache; each entry carries 16
 * more bits of its hash (a tag), so a look-up reads few of the names.
 */
#define SYMS_PER_BUCKET 16
#define BUCKETS_MAX 16384	/* bucket numbers below the tag's 16 bits */

const char *kmp_symtab_name(const struct kmp_symtab *t, const Elf64_Sym *s)
{
	return s->st_name < t->strsize ? t->str + s->st_name : "";
}

/* Keep the bytes of @w below its first NUL (@z: its zero-byte mask, not 0). */
static inline uint64_t below_nul(uint64_t w, uint64_t z)
{
	/* The lowest set bit of z is exactly the first NUL's top bit. */
	return w & (((z & -z) >> 7) - 1);
}

static inline uint64_t zero_bytes(uint64_t w)
{
	return (w - ONES) & ~w & HIGHS;
}

static inline uint32_t mix(uint64_t w0, uint64_t w1)
{
	uint64_t h = w0 * 0x9e3779b97f4a7c15ULL;

	h = (h ^ (h >> 29) ^ w1) * 0xbf58476d1ce4e5b9ULL;
	return (uint32_t)((h ^ (h >> 31)) >> 32);
}

/* The last few bytes of the table (or a short name), one at a time. */
static uint32_t prefix_hash_slow(const char *s, const char *end)
{
	uint64_t w[2] = { 0, 0 };

	for (unsigned int n = 0; n < 16 && s + n < end && s[n]; n++)
		w[n / 8] |= (uint64_t)(unsigned char)s[n] << (8 * (n % 8));
	return mix(w[0], w[1]);
}

/*
 * A hash of the first 16 bytes of the name at @s, up to its NUL (the
 * bytes from the NUL on count as zeros).  Never reads at or past @end.
 */
static inline uint32_t prefix_hash(const char *s, const char *end)
{
	uint64_t w[2], z;

	if (end - s < 16)
		return prefix_hash_slow(s, end);
	memcpy(w, s, 16);
	if ((z = zero_bytes(w[0])))
		return mix(below_nul(w[0], z), 0);
	if ((z = zero_bytes(w[1])))
		w[1] = below_nul(w[1], z);
	return mix(w[0], w[1]);
}

/*
 * The build's arrays are written in full at once: mapped with their pages
 * (MAP_POPULATE) rather than a page fault per page on first touch.
 */
static void *alloc_array(size_t n, size_t size)
{
	void *p;

	if (!n)
		n = 1;
	if (n > SIZE_MAX / size)
		return NULL;
	p = mmap(NULL, n * size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		 -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void free_array(void *p, size_t n, size_t size)
{
	if (p)
		munmap(p, (n ? n : 1) * size);
}

void kmp_symindex_free(struct kmp_symindex *ix)
{
	free_array(ix->start, ix->nstart, sizeof(*ix->start));
	free_array(ix->order, ix->norder, sizeof(*ix->order));
	free_array(ix->tag, ix->norder, sizeof(*ix->tag));
	memset(ix, 0, sizeof(*ix));
}

/*
 * A counting sort of the symbols by bucket: count, turn the counts into
 * starts, place each symbol (in symbol order, so the sort is stable).
 */
bool kmp_symindex_build(struct kmp_symindex *ix, const struct kmp_symtab *t)
{
	size_t n = t->n < NONE ? t->n : NONE - 1, nb = 256;
	uint32_t *key;	/* each symbol's tag << 16 | bucket, NONE if not indexed */
	uint32_t sum = 0;

	memset(ix, 0, sizeof(*ix));
	while (nb < n / SYMS_PER_BUCKET && nb < BUCKETS_MAX)
		nb <<= 1;
	ix->mask = (uint32_t)(nb - 1);
	ix->nstart = nb + 1;
	ix->norder = n;
	ix->start = alloc_array(ix->nstart, sizeof(*ix->start));	/* zeros */
	ix->order = alloc_array(ix->norder, sizeof(*ix->order));
	ix->tag = alloc_array(ix->norder, sizeof(*ix->tag));
	key = alloc_array(n, sizeof(*key));
	if (!ix->start || !ix->order || !ix->tag || !key) {
		free_array(key, n, sizeof(*key));
		kmp_symindex_free(ix);
		return false;
	}
	for (size_t k = 0; k < n; k++) {
		const Elf64_Sym *sym = &t->syms[k];
		uint32_t h;

		/*
		 * The linker orders .strtab by suffix, not by symbol: each name
		 * is a cache miss.  Asking for the name PREFETCH symbols ahead
		 * overlaps them.
		 */
		if (k + PREFETCH < n && sym[PREFETCH].st_name < t->strsize)
			__builtin_prefetch(t->str + sym[PREFETCH].st_name);
		/* Undefined, nameless, or named outside .strtab: nothing to find it by. */
		if (sym->st_shndx == SHN_UNDEF || !sym->st_name || sym->st_name >= t->strsize) {
			key[k] = NONE;
			continue;
		}
		h = prefix_hash(t->str + sym->st_name, t->str + t->strsize);
		key[k] = (h & 0xffff0000u) | (h & ix->mask);
		ix->start[h & ix->mask]++;
	}
	for (size_t b = 0; b < nb; b++) {
		uint32_t c = ix->start[b];

		ix->start[b] = sum;
		sum += c;
	}
	ix->start[nb] = sum;
	for (size_t k = 0; k < n; k++) {
		uint32_t pos;

		if (key[k] == NONE)
			continue;
		pos = ix->start[key[k] & 0xffff]++;
		ix->order[pos] = (uint32_t)k;
		ix->tag[pos] = (uint16_t)(key[k] >> 16);
	}
	/* Each start has moved to its bucket's end, the next one's start. */
	memmove(ix->start + 1, ix->start, nb * sizeof(*ix->start));
	ix->start[0] = 0;
	free_array(key, n, sizeof(*key));
	return true;
}

/*
 * Only names with the same tag are compared: a look-up after the vmlinux's
 * pages were given back maps again (with their neighbours) only the pages
 * of names that probably match.
 */
const Elf64_Sym *kmp_symindex_find(const struct kmp_symindex *ix, const struct kmp_symtab *t,
				   const char *name)
{
	uint32_t b, h;

	if (!ix->start)
		return NULL;
	h = prefix_hash(name, name + strlen(name) + 1);
	b = h & ix->mask;
	for (uint32_t i = ix->start[b]; i < ix->start[b + 1]; i++) {
		const Elf64_Sym *sym;

		if (ix->tag[i] != (uint16_t)(h >> 16))
			continue;
		sym = &t->syms[ix->order[i]];
		if (!strcmp(kmp_symtab_name(t, sym), name))
			return sym;
	}
	return NULL;
}
