/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: vmlinux's symbols by name.  .symtab has no hash section, so a
 * name is found through an index of every defined symbol, built in one
 * pass: bucketed by a hash of the name's first 16 bytes only (a kernel
 * has ~200,000 names averaging 25 bytes; hashing them whole was a quarter
 * of `kmempool waiters`), in symbol order within a bucket, so the first
 * symbol of a name wins, as in a linear search.  Names that share their
 * first 16 bytes share a bucket (thousands for some prefixes, such as
 * "__SCK__lsm_stati"): a look-up compares whole names in its bucket.
 */
#ifndef KMP_SYMINDEX_H
#define KMP_SYMINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

/* The raw .symtab and its string table (valid while the vmlinux is open). */
struct kmp_symtab {
	const Elf64_Sym *syms;
	size_t n;
	const char *str;
	size_t strsize;		/* str[strsize - 1] is a NUL */
};

/* A symbol's name; "" if its offset is out of the string table. */
const char *kmp_symtab_name(const struct kmp_symtab *t, const Elf64_Sym *s);

struct kmp_symindex {
	uint32_t *start;	/* bucket b: order[start[b] .. start[b + 1]) */
	uint32_t *order;	/* symbol indices, by bucket */
	uint16_t *tag;		/* the top 16 bits of each one's prefix hash */
	uint32_t mask;		/* buckets - 1 */
	size_t nstart, norder;	/* lengths of start; of order and tag */
};

/* Index @t's defined, named symbols; false when out of memory. */
bool kmp_symindex_build(struct kmp_symindex *ix, const struct kmp_symtab *t);
/* The first symbol of @t named @name, or NULL. */
const Elf64_Sym *kmp_symindex_find(const struct kmp_symindex *ix, const struct kmp_symtab *t,
				   const char *name);
void kmp_symindex_free(struct kmp_symindex *ix);

#endif
