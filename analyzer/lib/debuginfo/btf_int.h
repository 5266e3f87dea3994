/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: what btf.c shares with btfpool.c (not an interface of the
 * library): the BTF's helpers, and the deferred parse and kept answers
 * every look-up goes through (btf.h, btfmemo.h).
 */
#ifndef KMP_BTF_INT_H
#define KMP_BTF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "btf.h"

/* FNV-1a of a name (the index by name's hash). */
uint32_t kmp_btf_hash(const char *s);
/* The size of type @id, typedefs, modifiers and arrays resolved; false beyond 4 GiB. */
bool kmp_btf_size_of(const struct kmp_btf *b, uint32_t id, uint64_t *size);

/* The questions kept in a memo (btfmemo.h): what their bytes and answers are, btf.c's. */
enum kmp_btf_op {
	KMP_BTF_OP_SCAN = 1,	/* u32 tag, name: u32 id (0: none) */
	KMP_BTF_OP_SIZE,	/* u32 id: u8 ok, u64 size */
	KMP_BTF_OP_MEMBER,	/* u32 id, name: u8 ok, u64 offset, u64 size, u32 member type */
	KMP_BTF_OP_PEEL,	/* u32 id: u8 ok, u32 id */
	KMP_BTF_OP_ENUMS,	/* u32 id: u8 ok, then (i64 value, name NUL) each */
	KMP_BTF_OP_BITFIELD,	/* u32 id, name: u8 ok, u64 bit offset, u64 bits */
	KMP_BTF_OP_NAME,	/* u32 id: name NUL */
	KMP_BTF_OP_POOL_MEMBER,	/* u64 size, u64 offset, u8 exact, pool: u8 ok, path NUL */
	KMP_BTF_OP_NTYPES,	/* nothing: u32 number of types, u64 size (the BTF's own) */
};

/*
 * @b's kept answer to (@op, @q[@qlen]) while its BTF is not parsed: true
 * with the answer's bytes.  False when there is none to take (no memo,
 * the BTF parsed, not asked before): then the caller asks the BTF, after
 * kmp_btf_ready(), and keeps its answer with kmp_btf_answer().
 */
bool kmp_btf_asked(const struct kmp_btf *b, uint32_t op, const void *q, size_t qlen,
		   const unsigned char **a, size_t *alen);
void kmp_btf_answer(const struct kmp_btf *b, uint32_t op, const void *q, size_t qlen,
		    const void *a, size_t alen);
/* The string that ends a kept answer @a[@alen] from @at on: NULL unless its NUL is its last byte. */
const char *kmp_btf_answer_string(const unsigned char *a, size_t alen, size_t at);
/* @b's BTF parsed (now, if it was deferred); false if it cannot be. */
bool kmp_btf_ready(const struct kmp_btf *b);

#endif
