// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: which struct holds a pool, from BTF (btf.h): the member path
 * of a pool inside a global BTF gives no type for (kmp_btf_pool_member()),
 * inside a heap object (kmp_btf_heap_pool()), and the members that point
 * at a pool (kmp_btf_pool_pointers()).  Each walk is bounded by a budget
 * of types and a depth: a hostile BTF (a struct of itself, arrays of
 * arrays) makes the answer unknown, never a guess and never a long search.
 */
#include <bpf/btf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "btf_int.h"

/*
 * Types pool_path() may visit for one question: a real struct needs a few
 * dozen (one member covers an offset, a union several); a hostile BTF can
 * make each level try every member again (struct S { S; S; ... } at
 * offset 0), which without a bound is exponential in the depth.
 */
#define POOL_PATH_BUDGET 512

/*
 * The path to a struct named @pool at @off inside type @id ("bio_pool",
 * "a.b", "c[2]"; "" when @id is that struct and @off 0).  A union's
 * members are tried in order; a member must lie inside its struct (so a
 * pool found at @off ends inside @id: what kmp_btf_pool_member()'s window
 * of sizes assumes).  False if no such member lies exactly there, or when
 * *@budget ran out (then 0: the answer is unknown, not "none").  @out is
 * written only on the way back from a find: a miss costs no formatting.
 */
static bool pool_path(const struct kmp_btf *b, uint32_t id, uint64_t off, const char *pool,
		      char *out, size_t len, int depth, unsigned int *budget)
{
	const struct btf_type *t;
	const char *n;
	int r;

	if (!*budget)
		return false;
	--*budget;
	if (depth > 8 || !len || !id || id >= b->ntypes || (r = btf__resolve_type(b->btf, id)) <= 0 ||
	    (uint32_t)r >= b->ntypes || !(t = btf__type_by_id(b->btf, (uint32_t)r)))
		return false;
	if (btf_is_struct(t) && !off && (n = btf__name_by_offset(b->btf, t->name_off)) &&
	    !strcmp(n, pool)) {
		out[0] = '\0';
		return true;
	}
	if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		char idx[24];
		uint64_t es;
		int w;

		if (!kmp_btf_size_of(b, a->type, &es) || !es || off / es >= a->nelems)
			return false;
		w = snprintf(idx, sizeof(idx), "[%" PRIu64 "]", off / es);
		if (w <= 0 || (size_t)w >= len ||
		    !pool_path(b, a->type, off % es, pool, out + w, len - (size_t)w, depth + 1, budget))
			return false;
		memcpy(out, idx, (size_t)w);
		return true;
	}
	if (!btf_is_composite(t))
		return false;
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		const struct btf_member *m = btf_members(t) + i;
		uint32_t bits = btf_member_bit_offset(t, i);
		uint64_t ms, mo = bits / 8;
		const char *mn = m->name_off ? btf__name_by_offset(b->btf, m->name_off) : "";
		size_t w;

		if (!mn || bits % 8 || btf_member_bitfield_size(t, i) || off < mo ||
		    !kmp_btf_size_of(b, m->type, &ms) || off - mo >= ms || mo > t->size || ms > t->size - mo)
			continue;
		w = *mn ? 1 + strlen(mn) : 0;	/* ".name", or nothing for an anonymous member */
		if (w >= len)
			continue;
		if (pool_path(b, m->type, off - mo, pool, out + w, len - w, depth + 1, budget)) {
			if (w) {
				out[0] = '.';
				memcpy(out + 1, mn, w - 1);
			}
			return true;
		}
	}
	return false;
}

/*
 * The smallest struct called @pool in @b (a struct that holds one at @off
 * is at least @off + that); 1 if there is none (no window then).
 */
static uint64_t pool_min_size(const struct kmp_btf *b, const char *pool)
{
	const struct kmp_btf *idx = b->byname ? b : b->base && b->base->byname ? b->base : NULL;
	uint64_t min = 0;
	uint32_t from = 1;
	const char *n;

	/* Each struct of the name: on its probe chain of the index, then a pass over the rest. */
	if (idx) {
		for (size_t k = 0, h = kmp_btf_hash(pool) & (idx->nbyname - 1); k < idx->nbyname &&
		     idx->byname[h]; k++, h = (h + 1) & (idx->nbyname - 1)) {
			const struct btf_type *t = btf__type_by_id(b->btf, idx->byname[h]);

			if (t && btf_is_struct(t) && t->name_off && t->size &&
			    (n = btf__name_by_offset(b->btf, t->name_off)) && !strcmp(n, pool) &&
			    (!min || t->size < min))
				min = t->size;
		}
		from = idx->ntypes;
	}
	for (uint32_t id = from; id < b->ntypes; id++) {	/* a module's own types */
		const struct btf_type *t = btf__type_by_id(b->btf, id);

		if (t && btf_is_struct(t) && t->name_off && t->size && (!min || t->size < min) &&
		    (n = btf__name_by_offset(b->btf, t->name_off)) && !strcmp(n, pool))
			min = t->size;
	}
	return min ? min : 1;
}

/*
 * @b's named structs by size (struct kmp_btf's @bysize), built once; NULL
 * without memory.  Sorted by size, then id: a stable radix sort (a byte of
 * the size a pass) of entries taken in id order; O(n), where qsort()
 * was a third of a run's instructions.
 */
static const struct kmp_btf_sized *sized(const struct kmp_btf *b)
{
	struct kmp_btf_sized *bs = b->bysize;
	struct kmp_btf_sized_ent *tmp;
	size_t n = 0;

	if (!bs)	/* (no memory for it when parsed) */
		return NULL;
	if (bs->built)
		return bs->e ? bs : NULL;
	bs->built = true;
	for (uint32_t id = 1; id < b->ntypes; id++) {	/* one pass, the array grown by half */
		const struct btf_type *t = btf__type_by_id(b->btf, id);

		if (!t || !btf_is_struct(t) || !t->name_off || !t->size)
			continue;
		if (n == bs->n) {
			struct kmp_btf_sized_ent *e;

			n = n ? n + n / 2 : 4096;
			if (!(e = realloc(bs->e, n * sizeof(*e)))) {
				free(bs->e);
				bs->e = NULL;
				return NULL;
			}
			bs->e = e;
		}
		bs->e[bs->n++] = (struct kmp_btf_sized_ent){ t->size, id };
	}
	if (!bs->e || !(tmp = malloc(bs->n * sizeof(*tmp)))) {
		free(bs->e);
		bs->e = NULL;
		return NULL;
	}
	for (unsigned int shift = 0; shift < 32; shift += 8) {
		size_t count[257] = { 0 };
		bool moves = false;

		for (size_t i = 0; i < bs->n; i++) {
			unsigned int d = (bs->e[i].size >> shift) & 0xff;

			count[d + 1]++;
			moves |= d != 0;
		}
		if (!moves)
			continue;	/* every size has 0 here: already in order */
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < bs->n; i++)
			tmp[count[(bs->e[i].size >> shift) & 0xff]++] = bs->e[i];
		memcpy(bs->e, tmp, bs->n * sizeof(*tmp));
	}
	free(tmp);
	return bs;
}

/* The first entry of @bs of at least @size bytes (bs->n if none). */
static size_t first_sized(const struct kmp_btf_sized *bs, uint64_t size)
{
	size_t lo = 0, hi = bs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bs->e[mid].size < size)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* kmp_btf_pool_member()'s question and what it found so far. */
struct member_q {
	const struct kmp_btf *b;
	uint64_t size, off, ps;
	const char *pool;
	bool exact;
	unsigned int n;
	bool unknown;		/* a walk ran out of budget, or two answers: no answer */
	char first[256];
};

/* Struct @id (@ts bytes) of @q->b as the global's type: one more answer, or none. */
static void member_try(struct member_q *q, uint32_t id, uint64_t ts)
{
	const struct btf_type *t;
	uint64_t elems = 1, in = q->off;
	unsigned int budget = POOL_PATH_BUDGET;
	const char *name;
	char cand[256];
	int w = 0;

	if (q->exact) {	/* the struct, or an array of it */
		if (q->size % ts || q->off % ts + q->ps > ts)
			return;
		elems = q->size / ts;
		in = q->off % ts;
	}
	if (!(t = btf__type_by_id(q->b->btf, id)) || !btf_is_struct(t) || t->size != ts ||
	    !t->name_off || !(name = btf__name_by_offset(q->b->btf, t->name_off)) ||
	    !strcmp(name, q->pool))
		return;
	if (elems > 1)
		w = snprintf(cand, sizeof(cand), "[%" PRIu64 "]", q->off / ts);
	if (w < 0 || (size_t)w >= sizeof(cand))
		return;
	if (!pool_path(q->b, id, in, q->pool, cand + w, sizeof(cand) - (size_t)w, 0, &budget)) {
		q->unknown |= !budget;	/* unknown whether it holds one: no guess */
		return;
	}
	if (cand[w] != '.')
		return;
	if (q->n && strcmp(cand, q->first))
		q->unknown = true;	/* two structs, two answers: no guess */
	if (!q->n++)
		snprintf(q->first, sizeof(q->first), "%s", cand);
}

/* kmp_btf_pool_member() on the parsed BTF. */
static bool pool_member(const struct kmp_btf *b, uint64_t size, uint64_t off, const char *pool,
			bool exact, char *path, size_t len)
{
	struct member_q q = { .b = b, .size = size, .off = off, .pool = pool, .exact = exact };
	const struct kmp_btf *ib = b && b->base ? b->base : b;	/* whose index: the kernel's */
	const struct kmp_btf_sized *bs;
	uint64_t lo;

	if (!b || !size || off >= size || !(bs = sized(ib)))
		return false;
	/*
	 * The structs that could hold a pool there: at least a pool's size
	 * (past @off, where not an array), at most @size, less than 64 bytes
	 * below it (kallsyms) or dividing it (an array of them).  The
	 * kernel's by its index; a module's own types (split BTF) in a pass.
	 */
	q.ps = pool_min_size(b, pool);
	lo = exact ? q.ps : q.ps + off;
	if (!exact && size > 63 && size - 63 > lo)
		lo = size - 63;
	for (size_t k = first_sized(bs, lo); k < bs->n && bs->e[k].size <= size && !q.unknown; k++)
		member_try(&q, bs->e[k].id, bs->e[k].size);
	for (uint32_t id = ib->ntypes; ib != b && id < b->ntypes && !q.unknown; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);

		if (t && btf_is_struct(t) && t->name_off && t->size >= lo && t->size <= size)
			member_try(&q, id, t->size);
	}
	if (q.unknown || !q.n)
		return false;
	snprintf(path, len, "%s", q.first);
	return true;
}

bool kmp_btf_pool_member(const struct kmp_btf *b, uint64_t size, uint64_t off, const char *pool,
			 bool exact, char *path, size_t len)
{
	unsigned char q[17 + 128], ans[1 + 256];
	size_t pl = strlen(pool), alen;
	const unsigned char *a;
	const char *kept;
	bool ok;

	if (!b || pl > 128)
		return false;
	memcpy(q, &size, 8);
	memcpy(q + 8, &off, 8);
	q[16] = exact;
	memcpy(q + 17, pool, pl);
	if (kmp_btf_asked(b, KMP_BTF_OP_POOL_MEMBER, q, 17 + pl, &a, &alen) && alen >= 2 &&
	    a[0] <= 1 && (kept = kmp_btf_answer_string(a, alen, 1))) {
		if (a[0])
			snprintf(path, len, "%s", kept);
		return a[0];
	}
	if (!kmp_btf_ready(b))
		return false;
	ans[1] = '\0';
	ok = pool_member(b, size, off, pool, exact, (char *)ans + 1, sizeof(ans) - 1);
	ans[0] = ok;
	kmp_btf_answer(b, KMP_BTF_OP_POOL_MEMBER, q, 17 + pl, ans,
		       ok ? 2 + strlen((char *)ans + 1) : 2);
	if (ok)
		snprintf(path, len, "%s", (char *)ans + 1);
	return ok;
}

/* A char array member of @t called "name" or "..._name" (the first one): offset and length. */
static void name_member(const struct kmp_btf *b, const struct btf_type *t, uint64_t *off,
			uint64_t *len)
{
	*off = *len = 0;
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		const struct btf_member *m = btf_members(t) + i;
		uint32_t bits = btf_member_bit_offset(t, i);
		const char *mn = m->name_off ? btf__name_by_offset(b->btf, m->name_off) : NULL;
		const struct btf_type *at, *et;
		size_t l;
		int r;

		if (!mn || bits % 8 || (l = strlen(mn)) < 4 ||
		    (strcmp(mn, "name") && (l < 5 || strcmp(mn + l - 5, "_name"))))
			continue;
		if ((r = btf__resolve_type(b->btf, m->type)) <= 0 || (uint32_t)r >= b->ntypes ||
		    !(at = btf__type_by_id(b->btf, (uint32_t)r)) || !btf_is_array(at) ||
		    (r = btf__resolve_type(b->btf, btf_array(at)->type)) <= 0 ||
		    (uint32_t)r >= b->ntypes || !(et = btf__type_by_id(b->btf, (uint32_t)r)) ||
		    !btf_is_int(et) || et->size != 1 || btf_array(at)->nelems < 2 ||
		    btf_array(at)->nelems > 256 || bits / 8 + btf_array(at)->nelems > t->size)
			continue;	/* (a hostile BTF may put a member past its struct) */
		*off = bits / 8;
		*len = btf_array(at)->nelems;
		return;
	}
}

void kmp_btf_heap_pool(const struct kmp_btf *b, uint32_t first, uint64_t osize, uint64_t off,
		       const char *pool, struct kmp_btf_hit *hit)
{
	char path[256];
	uint64_t ps;

	if (!b || !kmp_btf_ready(b) || off >= osize)
		return;
	if (!off) {	/* the object may be the pool itself: mempool_create() kmallocs it bare */
		hit->n = 2;
		return;
	}
	/* (a struct that holds a pool at @off is at least @off and a pool's size) */
	ps = pool_min_size(b, pool);
	for (uint32_t id = first ? first : 1; id < b->ntypes && hit->n < 2; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);
		unsigned int budget = POOL_PATH_BUDGET;
		const char *name;

		if (!t || !btf_is_struct(t) || !t->name_off || !t->size || t->size > osize ||
		    t->size < off + ps || !(name = btf__name_by_offset(b->btf, t->name_off)) ||
		    !strcmp(name, pool))
			continue;
		if (!pool_path(b, id, off, pool, path, sizeof(path), 0, &budget)) {
			if (!budget)
				hit->n = 2;	/* unknown whether it holds one: no guess */
			continue;
		}
		if (path[0] != '.')
			continue;
		if (hit->n && !strcmp(hit->type, name) && !strcmp(hit->path, path))
			continue;	/* the same struct (a module's copy of a kernel type) */
		if (hit->n++)
			return;
		hit->btf = b;
		hit->id = id;
		snprintf(hit->type, sizeof(hit->type), "%s", name);
		snprintf(hit->path, sizeof(hit->path), "%s", path);
		name_member(b, t, &hit->name_off, &hit->name_len);
	}
}

/*
 * Types kmp_btf_pool_pointers() may visit in one struct: a real one needs
 * a few hundred (its embedded locks and lists, each a few levels deep);
 * a hostile BTF (a struct of itself, arrays of arrays) stops there.
 */
#define POOL_PTR_BUDGET 8192
#define POOL_PTR_DEPTH 16

struct ptr_walk {
	const struct kmp_btf *b;
	const char *pool;
	uint64_t size;		/* the struct's: a pointer lies inside it */
	unsigned int budget, found, max;
	void (*fn)(void *arg, uint64_t off, const char *path);
	void *arg;
};

/* Type @id resolved through typedefs and qualifiers, NULL if none or out of range. */
static const struct btf_type *resolved(const struct kmp_btf *b, uint32_t id)
{
	int r = btf__resolve_type(b->btf, id);

	return r > 0 && (uint32_t)r < b->ntypes ? btf__type_by_id(b->btf, (uint32_t)r) : NULL;
}

/* Is @t a pointer to a struct @pool (typedefs and qualifiers on the way: mempool_t)? */
static bool is_pool_pointer(const struct kmp_btf *b, const struct btf_type *t, const char *pool)
{
	uint32_t id;
	const char *n;

	if (!t || !btf_is_ptr(t))
		return false;
	/* The pointee, by hand: libbpf's resolver refuses a declaration. */
	id = t->type;
	for (int i = 0; i < 32; i++) {
		if (!id || id >= b->ntypes || !(t = btf__type_by_id(b->btf, id)))
			return false;
		if (!btf_is_mod(t) && !btf_is_typedef(t))
			break;
		id = t->type;
	}
	/* (a module's BTF may know the struct only by a declaration) */
	return (btf_is_struct(t) || (btf_is_fwd(t) && !btf_kflag(t))) && t->name_off &&
	       (n = btf__name_by_offset(b->btf, t->name_off)) && !strcmp(n, pool);
}

/* Could a member of type @t hold such a pointer: a pointer, a struct, union or array. */
static bool may_hold(const struct btf_type *t)
{
	return t && (btf_is_ptr(t) || btf_is_composite(t) || btf_is_array(t));
}

/*
 * The pointers to @w->pool inside type @id at @off, its path so far in
 * @path (@used bytes of @len).  False when the walk stopped short.
 */
static bool ptr_walk(struct ptr_walk *w, uint32_t id, uint64_t off, char *path, size_t used,
		     size_t len, int depth)
{
	const struct kmp_btf *b = w->b;
	const struct btf_type *t;

	if (!w->budget || depth > POOL_PTR_DEPTH)
		return false;
	w->budget--;
	if (!(t = resolved(b, id)))
		return false;	/* (a loop of typedefs: unknown, not empty) */
	if (!may_hold(t))
		return true;	/* an int: nothing in it */
	if (is_pool_pointer(b, t, w->pool)) {
		if (++w->found > w->max || off > w->size || w->size - off < 8)
			return false;	/* (a hostile BTF's member past its struct) */
		w->fn(w->arg, off, path);
		return true;
	}
	if (btf_is_ptr(t))
		return true;	/* a pointer to something else: not followed */
	if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		const struct btf_type *et = resolved(b, a->type);
		unsigned int before = w->found;
		uint64_t es;

		if (!et)
			return false;
		if (!may_hold(et) || !a->nelems)
			return true;	/* char name[32]: nothing to look at */
		if (!kmp_btf_size_of(b, a->type, &es) || !es || es > w->size || a->nelems > w->size / es)
			return false;	/* (a hostile BTF's array larger than its struct) */
		for (uint32_t i = 0; i < a->nelems; i++) {
			int n = snprintf(path + used, len - used, "[%" PRIu32 "]", i);

			if (n < 0 || (size_t)n >= len - used ||
			    !ptr_walk(w, a->type, off + i * es, path, used + (size_t)n, len,
				      depth + 1))
				return false;
			if (w->found == before)
				break;	/* the first element holds none: no element does */
		}
		path[used] = '\0';
		return true;
	}
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		const struct btf_member *m = btf_members(t) + i;
		uint32_t bits = btf_member_bit_offset(t, i);
		const char *mn = m->name_off ? btf__name_by_offset(b->btf, m->name_off) : "";
		const struct btf_type *mt;
		int n;

		if (!mn || bits % 8 || btf_member_bitfield_size(t, i))
			continue;	/* (bit fields hold no pointer) */
		if (!*mn && (!(mt = resolved(b, m->type)) || !btf_is_composite(mt)))
			return false;	/* only a struct or union goes unnamed in C */
		n = *mn ? snprintf(path + used, len - used, ".%s", mn) : 0;
		if (n < 0 || (size_t)n >= len - used ||
		    !ptr_walk(w, m->type, off + bits / 8, path, used + (size_t)n, len, depth + 1))
			return false;
		path[used] = '\0';
	}
	return true;
}

bool kmp_btf_pool_pointers(const struct kmp_btf *b, uint32_t id, const char *pool,
			   unsigned int max, void (*fn)(void *arg, uint64_t off, const char *path),
			   void *arg)
{
	struct ptr_walk w = { .b = b, .pool = pool, .budget = POOL_PTR_BUDGET, .max = max,
			      .fn = fn, .arg = arg };
	const struct btf_type *t;
	char path[256] = "";

	if (!b || !kmp_btf_ready(b) || !id || id >= b->ntypes || !(t = btf__type_by_id(b->btf, id)) ||
	    !btf_is_struct(t))
		return false;
	w.size = t->size;
	return ptr_walk(&w, id, 0, path, 0, sizeof(path), 0);
}

