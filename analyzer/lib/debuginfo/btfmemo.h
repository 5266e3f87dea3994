/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: answers of the BTF look-ups kept across runs (issue 33).
 *
 * A run from the dump alone asks the kernel's BTF a few hundred questions
 * (a struct by name, a member's offset, an enum's values, which global
 * holds a pool); parsing the 4-6 MiB blob to answer them costs more than
 * the rest of a `waiters`.  The dump cache (dumpcache.h) keeps, beside an
 * entry, what a run asked and was answered; a later run on the same dump
 * takes the answers from here and parses the BTF only when it asks
 * something new (btf.c: a deferred parse).
 *
 * A question is (key, op, its bytes): key 0 is the kernel's BTF, any other
 * a module's, by the bytes of its blob (kmp_btf_memo_blob(): compared
 * whole, so a module that changed gets no old answer).  What a question
 * and its answer mean is btf.c's; here they are bytes.  Nothing read from
 * an image is trusted: kmp_btf_memo_adopt() bounds every record, and the
 * reader of an answer checks its length and contents.
 */
#ifndef KMP_BTFMEMO_H
#define KMP_BTFMEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KMP_BTF_MEMO_MAX (16u << 20)	/* an image's size, at most */

struct kmp_btf_memo;

struct kmp_btf_memo *kmp_btf_memo_new(void);
/*
 * The memo of an image kmp_btf_memo_image() made (@len bytes at @img,
 * which the memo keeps and frees): NULL with a static reason in *@why
 * when it does not check out (bounds, a question asked twice).
 */
struct kmp_btf_memo *kmp_btf_memo_adopt(void *img, size_t len, const char **why);
void kmp_btf_memo_free(struct kmp_btf_memo *m);

/* The answer to (@key, @op, @q[@qlen]): true with *@a, *@alen (bytes the memo keeps). */
bool kmp_btf_memo_get(const struct kmp_btf_memo *m, uint32_t key, uint32_t op, const void *q,
		      size_t qlen, const unsigned char **a, size_t *alen);
/* Keep an answer (a question already answered keeps its first). */
void kmp_btf_memo_put(struct kmp_btf_memo *m, uint32_t key, uint32_t op, const void *q,
		      size_t qlen, const void *a, size_t alen);
/*
 * The key of a module's BTF blob (1, 2, ...), compared whole; 0 when the
 * memo has none for it (with @add: a new one is given, 0 only without
 * memory).
 */
uint32_t kmp_btf_memo_blob(struct kmp_btf_memo *m, const void *blob, size_t len, bool add);
/* Has a put added anything since the memo was made or adopted? */
bool kmp_btf_memo_dirty(const struct kmp_btf_memo *m);
/* The memo as an image for kmp_btf_memo_adopt() (malloc'd, @len bytes); NULL without memory. */
void *kmp_btf_memo_image(const struct kmp_btf_memo *m, size_t *len);

#endif
