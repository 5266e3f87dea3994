// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: the BTF look-ups' answers kept across runs (btfmemo.h).
 *
 * An image: "KMPBMEMO", u32 version, u32 number of records, then each
 * record: u32 key, u32 op, u32 question length, u32 answer length, the
 * question's bytes, the answer's, zeros to a multiple of 4.  A module's
 * blob is a record of its own (op BLOB, key 0, the blob as question, its
 * key as answer).
 */
#include <stdlib.h>
#include <string.h>

#include "btfmemo.h"
#include "kmp.h"

#define OP_BLOB 0xffffffffu
#define MAX_RECS (1u << 20)
/*
 * Slots a look-up probes, at most: a table at most half full of seeded
 * hashes needs a handful; a memo built to collide (its records' hashes
 * cannot be chosen without the seed, but a bound costs nothing) is refused,
 * not probed for hours.
 */
#define MAX_PROBE 64
#define NOSLOT ((size_t)-1)

static const char MAGIC[8] = { 'K', 'M', 'P', 'B', 'M', 'E', 'M', 'O' };
#define VERSION 1

struct rec {
	uint32_t key, op, qlen, alen;
	const unsigned char *q, *a;
};

/* A record's bytes in an image: its 16-byte head, question and answer, padded to 4. */
static size_t rec_size(size_t qlen, size_t alen)
{
	return 16 + (qlen + alen + 3) / 4 * 4;
}

struct kmp_btf_memo {
	struct rec *r;
	size_t n, cap;
	uint32_t *slot;		/* record index + 1 by hash, open addressing; 0: free */
	size_t nslot;		/* a power of two, at least twice n */
	void *img;		/* the adopted image the first records point into */
	void **own;		/* the blocks of records put since */
	size_t nown;
	uint32_t blobs;		/* the highest blob key given */
	uint64_t seed;		/* the hash's, random for each memo */
	size_t bytes;		/* the image's size so far (kept under KMP_BTF_MEMO_MAX) */
	bool dirty;
};

/* A question's hash: FNV-1a, 64 bits, from the memo's random seed. */
static uint64_t hash(uint64_t seed, uint32_t key, uint32_t op, const void *q, size_t qlen)
{
	const unsigned char *p = q;
	uint64_t h = 14695981039346656037ULL ^ seed;

	h = (h ^ key) * 1099511628211ULL;
	h = (h ^ op) * 1099511628211ULL;
	for (size_t i = 0; i < qlen; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h ^ h >> 29;
}

/*
 * The slot of (@key, @op, @q): the record's, or the free one it would take;
 * NOSLOT when neither is within MAX_PROBE slots.
 */
static size_t find(const struct kmp_btf_memo *m, uint32_t key, uint32_t op, const void *q,
		   size_t qlen)
{
	size_t h = hash(m->seed, key, op, q, qlen) & (m->nslot - 1);

	for (int i = 0; i < MAX_PROBE; i++, h = (h + 1) & (m->nslot - 1)) {
		const struct rec *r;

		if (!m->slot[h])
			return h;
		r = &m->r[m->slot[h] - 1];
		if (r->key == key && r->op == op && r->qlen == qlen && !memcmp(r->q, q, qlen))
			return h;
	}
	return NOSLOT;
}

/* Room for one more record and its slot; false without memory. */
static bool grow(struct kmp_btf_memo *m)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct rec *r = realloc(m->r, cap * sizeof(*r));

		if (!r)
			return false;
		m->r = r;
		m->cap = cap;
	}
	if (2 * (m->n + 1) > m->nslot) {
		size_t ns = m->nslot ? 2 * m->nslot : 128;
		uint32_t *old = m->slot;
		size_t on = m->nslot;

		if (!(m->slot = calloc(ns, sizeof(*m->slot)))) {
			m->slot = old;
			return false;
		}
		m->nslot = ns;
		for (size_t i = 0; i < on; i++)
			if (old[i]) {
				const struct rec *r = &m->r[old[i] - 1];
				size_t at = find(m, r->key, r->op, r->q, r->qlen);

				if (at == NOSLOT) {	/* (a chain too long even so: as before) */
					free(m->slot);
					m->slot = old;
					m->nslot = on;
					return false;
				}
				m->slot[at] = old[i];
			}
		free(old);
	}
	return true;
}

/* Add a record whose bytes stay where they are; false if asked already or no memory. */
static bool add(struct kmp_btf_memo *m, const struct rec *r)
{
	size_t s;

	if (m->n >= MAX_RECS || !grow(m))
		return false;
	s = find(m, r->key, r->op, r->q, r->qlen);
	if (s == NOSLOT || m->slot[s])
		return false;
	m->r[m->n++] = *r;
	m->slot[s] = (uint32_t)m->n;
	m->bytes += rec_size(r->qlen, r->alen);
	if (r->op == OP_BLOB && r->alen == 4) {
		uint32_t k;

		memcpy(&k, r->a, 4);
		if (k > m->blobs)
			m->blobs = k;
	}
	return true;
}

struct kmp_btf_memo *kmp_btf_memo_new(void)
{
	struct kmp_btf_memo *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->seed = kmp_random64();
	m->bytes = 16;
	return m;
}

void kmp_btf_memo_free(struct kmp_btf_memo *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nown; i++)
		free(m->own[i]);
	free(m->own);
	free(m->r);
	free(m->slot);
	free(m->img);
	free(m);
}

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

struct kmp_btf_memo *kmp_btf_memo_adopt(void *img, size_t len, const char **why)
{
	struct kmp_btf_memo *m;
	const unsigned char *b = img;
	size_t at = 16;
	uint32_t n;

	*why = "not a memo (header)";
	if (len < 16 || len > KMP_BTF_MEMO_MAX || memcmp(b, MAGIC, 8) || u32_at(b + 8) != VERSION ||
	    (n = u32_at(b + 12)) > MAX_RECS)
		return NULL;
	if (!(m = kmp_btf_memo_new())) {
		*why = "out of memory";
		return NULL;
	}
	*why = "a record out of bounds, asked twice, or a blob key out of order";
	for (uint32_t i = 0; i < n; i++) {
		struct rec r;

		if (len - at < 16)
			goto bad;
		r.key = u32_at(b + at);
		r.op = u32_at(b + at + 4);
		r.qlen = u32_at(b + at + 8);
		r.alen = u32_at(b + at + 12);
		at += 16;
		if (r.qlen > len - at || r.alen > len - at - r.qlen ||
		    rec_size(r.qlen, r.alen) - 16 > len - at)
			goto bad;
		r.q = b + at;
		r.a = b + at + r.qlen;
		at += rec_size(r.qlen, r.alen) - 16;
		/* a blob's key is 1 more than the last one's; other keys name a blob before */
		if ((r.op == OP_BLOB && (r.key || r.alen != 4 || u32_at(r.a) != m->blobs + 1)) ||
		    (r.op != OP_BLOB && r.key > m->blobs) || !add(m, &r))
			goto bad;
	}
	if (at != len)
		goto bad;
	m->img = img;
	*why = NULL;
	return m;
bad:
	kmp_btf_memo_free(m);
	return NULL;
}

bool kmp_btf_memo_get(const struct kmp_btf_memo *m, uint32_t key, uint32_t op, const void *q,
		      size_t qlen, const unsigned char **a, size_t *alen)
{
	size_t s;

	if (!m || !m->nslot || qlen > UINT32_MAX)
		return false;
	s = find(m, key, op, q, qlen);
	if (s == NOSLOT || !m->slot[s])
		return false;
	*a = m->r[m->slot[s] - 1].a;
	*alen = m->r[m->slot[s] - 1].alen;
	return true;
}

/* A block of @len bytes the memo owns from now on (freed with it); NULL without memory. */
static unsigned char *own_block(struct kmp_btf_memo *m, size_t len)
{
	void **own = realloc(m->own, (m->nown + 1) * sizeof(*own));
	unsigned char *blk;

	if (!own)
		return NULL;
	m->own = own;
	if ((blk = malloc(len)))
		m->own[m->nown++] = blk;
	return blk;
}

void kmp_btf_memo_put(struct kmp_btf_memo *m, uint32_t key, uint32_t op, const void *q,
		      size_t qlen, const void *a, size_t alen)
{
	struct rec r = { .key = key, .op = op, .qlen = (uint32_t)qlen, .alen = (uint32_t)alen };
	struct rec *old = NULL;
	unsigned char *blk;
	size_t s;

	if (!m || qlen > KMP_BTF_MEMO_MAX || alen > KMP_BTF_MEMO_MAX)
		return;
	if (m->nslot && (s = find(m, key, op, q, qlen)) != NOSLOT && m->slot[s]) {
		old = &m->r[m->slot[s] - 1];
		if (old->alen == alen && !memcmp(old->a, a, alen))
			return;
	}
	/* (the image stays under its bound: a memo that would not be written keeps no more) */
	if (m->bytes - (old ? rec_size(qlen, old->alen) : 0) + rec_size(qlen, alen) >
	    KMP_BTF_MEMO_MAX || !(blk = own_block(m, qlen + alen + 1)))
		return;
	memcpy(blk, q, qlen);
	if (alen)
		memcpy(blk + qlen, a, alen);
	if (old) {
		/*
		 * Asked before, answered otherwise now (the answer kept did not
		 * check out): the new answer replaces it.  The old bytes stay
		 * (an answer handed out may still be in use).
		 */
		m->bytes = m->bytes - rec_size(qlen, old->alen) + rec_size(qlen, alen);
		old->a = blk + qlen;
		old->alen = (uint32_t)alen;
	} else {
		r.q = blk;
		r.a = blk + qlen;
		if (!add(m, &r))
			return;	/* (the block is the memo's: freed with it) */
	}
	m->dirty = true;
}

uint32_t kmp_btf_memo_blob(struct kmp_btf_memo *m, const void *blob, size_t len, bool add)
{
	const unsigned char *a;
	size_t alen;
	uint32_t k;

	if (!m)
		return 0;
	if (kmp_btf_memo_get(m, 0, OP_BLOB, blob, len, &a, &alen))
		return alen == 4 ? u32_at(a) : 0;
	if (!add || m->blobs == UINT32_MAX)
		return 0;
	k = m->blobs + 1;
	kmp_btf_memo_put(m, 0, OP_BLOB, blob, len, &k, 4);
	return m->blobs == k ? k : 0;
}

bool kmp_btf_memo_dirty(const struct kmp_btf_memo *m)
{
	return m && m->dirty;
}

void *kmp_btf_memo_image(const struct kmp_btf_memo *m, size_t *len)
{
	size_t total = 16, at = 16;
	unsigned char *b;
	uint32_t n = (uint32_t)m->n, v = VERSION;

	for (size_t i = 0; i < m->n; i++)
		total += rec_size(m->r[i].qlen, m->r[i].alen);
	if (total > KMP_BTF_MEMO_MAX || !(b = calloc(1, total)))
		return NULL;
	memcpy(b, MAGIC, 8);
	memcpy(b + 8, &v, 4);
	memcpy(b + 12, &n, 4);
	for (size_t i = 0; i < m->n; i++) {	/* in the order put: a blob before its answers */
		const struct rec *r = &m->r[i];

		memcpy(b + at, &r->key, 4);
		memcpy(b + at + 4, &r->op, 4);
		memcpy(b + at + 8, &r->qlen, 4);
		memcpy(b + at + 12, &r->alen, 4);
		at += 16;
		memcpy(b + at, r->q, r->qlen);
		if (r->alen)
			memcpy(b + at + r->qlen, r->a, r->alen);
		at += rec_size(r->qlen, r->alen) - 16;
	}
	*len = total;
	return b;
}
