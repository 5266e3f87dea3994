// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: kernel BTF from memory, parsed with libbpf, looked up like
 * DWARF (see btf.h).  libbpf checks the header, the string and type
 * sections' bounds and each type record's length; the look-ups here check
 * the rest: every id through btf__type_by_id() (NULL past the last type),
 * chains of references through libbpf's bounded resolvers, member offsets
 * that are whole bytes, sizes below 4 GiB, and names that exist.
 */
#include <bpf/btf.h>
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf.h"

static const char btf_tag;	/* the abbrev of every BTF handle */

/*
 * The header every BTF has: the first 24 bytes of struct btf_header.
 * Newer uapi headers (libbpf 1.7, Debian sid) append a layout section to
 * the struct, and a blob may have either; the kernel and libbpf read the
 * fields its hdr_len covers.
 */
struct btf_header_v1 {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
};

/*
 * What libbpf 1.1 leaves unchecked and the kernel's own parser refuses:
 * sections that are not 4-byte aligned (the type records would be read
 * misaligned) or that lie past the blob.
 */
static bool header_ok(const void *data, uint64_t size)
{
	struct btf_header_v1 h;

	memcpy(&h, data, sizeof(h));
	return h.magic == BTF_MAGIC && h.version == BTF_VERSION && h.hdr_len >= sizeof(h) &&
	       h.hdr_len % 4 == 0 && h.hdr_len <= size && h.type_off % 4 == 0 &&
	       h.type_len % 4 == 0 && (uint64_t)h.type_off + h.type_len <= size - h.hdr_len &&
	       (uint64_t)h.str_off + h.str_len <= size - h.hdr_len;
}

/* FNV-1a of a name. */
static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The kind a look-up asks for (DW_TAG_*), of a type; 0 for others. */
static int tag_of(const struct btf_type *t)
{
	return btf_is_struct(t) ? DW_TAG_structure_type :
	       btf_is_any_enum(t) ? DW_TAG_enumeration_type : 0;
}

/* The index of named structs and enums (without memory: kmp_btf_scan() reads them all). */
static void index_names(struct kmp_btf *b)
{
	size_t cap = 16, n = 0;

	for (uint32_t id = 1; id < b->ntypes; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);

		n += t && t->name_off && tag_of(t);
	}
	while (cap < 2 * n)
		cap *= 2;
	if (!(b->byname = calloc(cap, sizeof(*b->byname))))
		return;
	b->nbyname = cap;
	for (uint32_t id = 1; id < b->ntypes; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);
		const char *name;
		size_t h;

		if (!t || !t->name_off || !tag_of(t) || !(name = btf__name_by_offset(b->btf, t->name_off)))
			continue;
		for (h = hash(name) & (cap - 1); b->byname[h]; h = (h + 1) & (cap - 1))
			;
		b->byname[h] = id;	/* ids in order: the first of a name is met first */
	}
}

/* The BTF of @data parsed by libbpf, no index yet. */
static bool parse(struct kmp_btf *b, const void *data, uint64_t size, struct kmp_err *err)
{
	memset(b, 0, sizeof(*b));
	if (size < 24 || size > KMP_BTF_MAX) {
		kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's BTF is %" PRIu64 " bytes: not a BTF "
			   "section (damaged?)", size);
		return false;
	}
	if (!header_ok(data, size)) {
		kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's BTF (%" PRIu64 " bytes) has a bad header "
			   "(magic, version, or sections unaligned or past its end)", size);
		return false;
	}
	errno = 0;
	b->btf = btf__new(data, (uint32_t)size);
	if (!b->btf) {	/* libbpf 1.x: NULL and errno */
		int e = errno;

		b->btf = NULL;
		kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's BTF (%" PRIu64 " bytes) does not parse "
			   "(libbpf: %s)", size, strerror(e ? e : EINVAL));
		return false;
	}
	b->ntypes = btf__type_cnt(b->btf);
	b->size = size;
	b->bysize = calloc(1, sizeof(*b->bysize));	/* filled on first use */
	return true;
}

bool kmp_btf_parse(struct kmp_btf *b, const void *data, uint64_t size, struct kmp_err *err)
{
	if (!parse(b, data, size, err))
		return false;
	index_names(b);
	return true;
}

bool kmp_btf_parse_indexed(struct kmp_btf *b, const void *data, uint64_t size,
			   const uint32_t *byname, size_t nbyname, struct kmp_err *err)
{
	size_t used = 0;

	if (!parse(b, data, size, err))
		return false;
	if (nbyname < 16 || nbyname & (nbyname - 1) || nbyname > 4 * (size_t)b->ntypes + 16)
		goto anew;
	for (size_t h = 0; h < nbyname; h++)
		if (byname[h] && (byname[h] >= b->ntypes || ++used == nbyname))
			goto anew;
	if (!(b->byname = malloc(nbyname * sizeof(*byname))))
		goto anew;
	memcpy(b->byname, byname, nbyname * sizeof(*byname));
	b->nbyname = nbyname;
	return true;
anew:
	index_names(b);
	return true;
}

/*
 * btf__new_split() is declared by libbpf 1.1's header (Debian 12) but not
 * exported by its library; btf__parse_raw_split() is, and reads a file:
 * the blob goes through an anonymous one (memfd), read back by libbpf.
 */
static struct btf *split_from_memory(const void *data, uint64_t size, struct btf *base)
{
	char path[64];
	struct btf *b = NULL;
	int fd = memfd_create("kmempool-btf", MFD_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		b = btf__parse_raw_split(path, base);
	}
	close(fd);
	return b;
}

bool kmp_btf_parse_split(struct kmp_btf *b, const void *data, uint64_t size,
			 const struct kmp_btf *base, struct kmp_err *err)
{
	memset(b, 0, sizeof(*b));
	if (size < 24 || size > KMP_BTF_MAX || !header_ok(data, size)) {
		kmp_seterr(err, KMP_ERR_FORMAT, "a module's BTF (%" PRIu64 " bytes) has a bad header",
			   size);
		return false;
	}
	errno = 0;
	b->btf = split_from_memory(data, size, base->btf);
	if (!b->btf) {
		int e = errno;

		kmp_seterr(err, KMP_ERR_FORMAT, "a module's BTF (%" PRIu64 " bytes) does not parse "
			   "(libbpf: %s)", size, strerror(e ? e : EINVAL));
		return false;
	}
	b->ntypes = btf__type_cnt(b->btf);
	b->size = size;
	b->bysize = calloc(1, sizeof(*b->bysize));	/* filled on first use */
	return true;	/* no index by name: looked up by kmp_btf_pool_member() only */
}

bool kmp_btf_load(struct kmp_btf *b, struct kmp_mem *mem, uint64_t start, uint64_t stop,
		  struct kmp_err *err)
{
	void *buf;
	bool ok;

	memset(b, 0, sizeof(*b));
	if (stop <= start || stop - start > KMP_BTF_MAX) {
		kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's BTF section (__start_BTF 0x%" PRIx64
			   ", __stop_BTF 0x%" PRIx64 ") is empty or larger than %u MiB", start, stop,
			   KMP_BTF_MAX >> 20);
		return false;
	}
	if (!(buf = kmp_map_alloc(stop - start))) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for the kernel's BTF");
		return false;
	}
	ok = kmp_read_bulk(mem, start, buf, stop - start, err) &&
	     kmp_btf_parse(b, buf, stop - start, err);
	kmp_map_free(buf, stop - start);
	return ok;
}

const void *kmp_btf_raw(const struct kmp_btf *b, size_t *len)
{
	uint32_t size = 0;
	const void *p = b->btf ? btf__raw_data(b->btf, &size) : NULL;

	*len = size;
	return p;
}

void kmp_btf_free(struct kmp_btf *b)
{
	free(b->byname);
	if (b->bysize)
		free(b->bysize->e);
	free(b->bysize);
	if (b->btf)
		btf__free(b->btf);
	memset(b, 0, sizeof(*b));
}

void kmp_btf_handle(const struct kmp_btf *b, uint32_t id, Dwarf_Die *out)
{
	memset(out, 0, sizeof(*out));
	out->addr = (void *)b;
	out->cu = NULL;
	out->abbrev = (Dwarf_Abbrev *)(void *)&btf_tag;
	out->padding__ = id;
}

const struct kmp_btf *kmp_btf_of(const Dwarf_Die *d)
{
	return d && !d->cu && d->abbrev == (const void *)&btf_tag ? d->addr : NULL;
}

static uint32_t id_of(const Dwarf_Die *d)
{
	return (uint32_t)d->padding__;
}

/* Type @id of @d's BTF, NULL if out of range. */
static const struct btf_type *type_at(const Dwarf_Die *d, uint32_t id)
{
	const struct kmp_btf *b = kmp_btf_of(d);

	return b && id && id < b->ntypes ? btf__type_by_id(b->btf, id) : NULL;
}

const char *kmp_btf_name(const Dwarf_Die *t)
{
	const struct btf_type *bt = type_at(t, id_of(t));
	const char *n = bt ? btf__name_by_offset(kmp_btf_of(t)->btf, bt->name_off) : NULL;

	return n ? n : "";
}

/* The first named struct or enum @name of kind @tag: by the index, else a pass over all types. */
static uint32_t by_name(const struct kmp_btf *b, const char *name, int tag)
{
	const char *n;

	if (b->byname) {
		for (size_t h = hash(name) & (b->nbyname - 1); b->byname[h];
		     h = (h + 1) & (b->nbyname - 1)) {
			const struct btf_type *t = btf__type_by_id(b->btf, b->byname[h]);

			if (t && tag_of(t) == tag && (n = btf__name_by_offset(b->btf, t->name_off)) &&
			    !strcmp(n, name))
				return b->byname[h];	/* probes meet a name's ids in order */
		}
		return 0;
	}
	for (uint32_t id = 1; id < b->ntypes; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);

		if (t && t->name_off && tag_of(t) == tag &&
		    (n = btf__name_by_offset(b->btf, t->name_off)) && !strcmp(n, name))
			return id;
	}
	return 0;
}

void kmp_btf_scan(const Dwarf_Die *all, struct kmp_wanted *w, size_t n)
{
	const struct kmp_btf *b = kmp_btf_of(all);

	for (size_t i = 0; b && i < n; i++) {
		uint32_t id;

		if (w[i].found || !(id = by_name(b, w[i].name, w[i].tag)))
			continue;
		kmp_btf_handle(b, id, &w[i].die);
		w[i].found = true;
	}
}

/* The size of type @id, typedefs, modifiers and arrays resolved; false beyond 4 GiB. */
static bool size_of(const struct kmp_btf *b, uint32_t id, uint64_t *size)
{
	int64_t s;

	if (!id || id >= b->ntypes)
		return false;
	s = btf__resolve_size(b->btf, id);
	if (s < 0 || s > UINT32_MAX)
		return false;
	*size = (uint64_t)s;
	return true;
}

bool kmp_btf_size(const Dwarf_Die *t, uint64_t *size)
{
	const struct kmp_btf *b = kmp_btf_of(t);

	return b && size_of(b, id_of(t), size);
}

/* Member @name of struct or union @id, in anonymous members too; its type id in @mtype. */
static bool find_member(const struct kmp_btf *b, uint32_t id, const char *name, uint64_t base,
			struct kmp_field *f, uint32_t *mtype, int depth)
{
	const struct btf_type *t;
	const struct btf_member *m;
	int r;

	if (depth > 8 || !id || id >= b->ntypes || (r = btf__resolve_type(b->btf, id)) <= 0 ||
	    (uint32_t)r >= b->ntypes || !(t = btf__type_by_id(b->btf, (uint32_t)r)) ||
	    !btf_is_composite(t))
		return false;
	m = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = m->name_off ? btf__name_by_offset(b->btf, m->name_off) : "";
		uint32_t bits = btf_member_bit_offset(t, i);
		uint64_t off = base + bits / 8;

		if (!mn || bits % 8 || btf_member_bitfield_size(t, i))
			continue;
		if (!*mn) {
			if (find_member(b, m->type, name, off, f, mtype, depth + 1))
				return true;
			continue;
		}
		if (strcmp(mn, name))
			continue;
		if (!size_of(b, m->type, &f->size))
			return false;
		f->off = off;
		f->ok = true;
		*mtype = m->type;
		return true;
	}
	return false;
}

bool kmp_btf_member(const Dwarf_Die *st, const char *name, struct kmp_field *f)
{
	const struct kmp_btf *b = kmp_btf_of(st);
	uint32_t mt;

	memset(f, 0, sizeof(*f));
	return b && find_member(b, id_of(st), name, 0, f, &mt, 0);
}

bool kmp_btf_peel(const Dwarf_Die *t, Dwarf_Die *out)
{
	const struct kmp_btf *b = kmp_btf_of(t);
	int r;

	if (!b || !id_of(t) || id_of(t) >= b->ntypes ||
	    (r = btf__resolve_type(b->btf, id_of(t))) <= 0 || (uint32_t)r >= b->ntypes)
		return false;
	kmp_btf_handle(b, (uint32_t)r, out);
	return true;
}

bool kmp_btf_member_type(const Dwarf_Die *st, const char *name, Dwarf_Die *type)
{
	const struct kmp_btf *b = kmp_btf_of(st);
	struct kmp_field f = { 0 };
	Dwarf_Die m;
	uint32_t mt;

	if (!b || !find_member(b, id_of(st), name, 0, &f, &mt, 0))
		return false;
	kmp_btf_handle(b, mt, &m);
	return kmp_btf_peel(&m, type);
}

bool kmp_btf_enumerators(const Dwarf_Die *e, void (*fn)(void *arg, const char *name,
							int64_t value), void *arg)
{
	const struct kmp_btf *b = kmp_btf_of(e);
	const struct btf_type *t = type_at(e, id_of(e));

	if (!t || !btf_is_any_enum(t))
		return false;
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		const char *n;
		int64_t v;

		if (btf_is_enum(t)) {
			const struct btf_enum *en = btf_enum(t) + i;

			n = btf__name_by_offset(b->btf, en->name_off);
			/* kind_flag: signed values */
			v = btf_kflag(t) ? (int64_t)en->val : (int64_t)(uint32_t)en->val;
		} else {
			const struct btf_enum64 *en = btf_enum64(t) + i;

			n = btf__name_by_offset(b->btf, en->name_off);
			v = (int64_t)btf_enum64_value(en);
		}
		if (n && *n)
			fn(arg, n, v);
	}
	return true;
}

struct enum_find {
	const char *name;
	int64_t value;
	bool found;
};

static void enum_find(void *arg, const char *name, int64_t value)
{
	struct enum_find *f = arg;

	if (!f->found && !strcmp(name, f->name)) {
		f->value = value;
		f->found = true;
	}
}

bool kmp_btf_enumerator(const Dwarf_Die *e, const char *name, int64_t *value)
{
	struct enum_find f = { .name = name };

	if (!kmp_btf_enumerators(e, enum_find, &f) || !f.found)
		return false;
	*value = f.value;
	return true;
}

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
 * members are tried in order.  False if no such member lies exactly there,
 * or when *@budget ran out (then 0: the answer is unknown, not "none").
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
	if (depth > 8 || !id || id >= b->ntypes || (r = btf__resolve_type(b->btf, id)) <= 0 ||
	    (uint32_t)r >= b->ntypes || !(t = btf__type_by_id(b->btf, (uint32_t)r)))
		return false;
	if (btf_is_struct(t) && !off && (n = btf__name_by_offset(b->btf, t->name_off)) &&
	    !strcmp(n, pool)) {
		out[0] = '\0';
		return true;
	}
	if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		uint64_t es;
		int w;

		if (!size_of(b, a->type, &es) || !es || off / es >= a->nelems)
			return false;
		w = snprintf(out, len, "[%" PRIu64 "]", off / es);
		return w > 0 && (size_t)w < len &&
		       pool_path(b, a->type, off % es, pool, out + w, len - (size_t)w, depth + 1,
				 budget);
	}
	if (!btf_is_composite(t))
		return false;
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		const struct btf_member *m = btf_members(t) + i;
		uint32_t bits = btf_member_bit_offset(t, i);
		uint64_t ms, mo = bits / 8;
		const char *mn = m->name_off ? btf__name_by_offset(b->btf, m->name_off) : "";
		int w;

		if (!mn || bits % 8 || btf_member_bitfield_size(t, i) || off < mo ||
		    !size_of(b, m->type, &ms) || off - mo >= ms)
			continue;
		w = *mn ? snprintf(out, len, ".%s", mn) : 0;
		if (w >= 0 && (size_t)w < len &&
		    pool_path(b, m->type, off - mo, pool, out + w, len - (size_t)w, depth + 1,
			      budget))
			return true;
	}
	return false;
}

static int cmp_sized(const void *a, const void *b)
{
	const struct kmp_btf_sized_ent *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* @b's named structs by size (struct kmp_btf's @bysize), built once; NULL without memory. */
static const struct kmp_btf_sized *sized(const struct kmp_btf *b)
{
	struct kmp_btf_sized *bs = b->bysize;
	size_t n = 0;

	if (!bs)	/* (no memory for it when parsed) */
		return NULL;
	if (bs->built)
		return bs->e ? bs : NULL;
	bs->built = true;
	for (uint32_t id = 1; id < b->ntypes; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);

		n += t && btf_is_struct(t) && t->name_off && t->size;
	}
	if (!(bs->e = malloc((n ? n : 1) * sizeof(*bs->e))))
		return NULL;
	for (uint32_t id = 1; id < b->ntypes && bs->n < n; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);

		if (t && btf_is_struct(t) && t->name_off && t->size)
			bs->e[bs->n++] = (struct kmp_btf_sized_ent){ t->size, id };
	}
	qsort(bs->e, bs->n, sizeof(*bs->e), cmp_sized);
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

bool kmp_btf_pool_member(const struct kmp_btf *b, uint64_t size, uint64_t off, const char *pool,
			 bool exact, char *path, size_t len)
{
	char cand[256], first[256] = "";
	unsigned int n = 0;
	const struct kmp_btf_sized *bs;
	size_t from = 0;

	if (!b || !size || off >= size || !(bs = sized(b)))
		return false;
	if (!exact)	/* at most @size, less than 64 bytes below it: from the first above both */
		from = first_sized(bs, size > 63 ? size - 63 : 1);
	for (size_t k = from; k < bs->n && bs->e[k].size <= size; k++) {
		uint32_t id = bs->e[k].id;
		const struct btf_type *t = btf__type_by_id(b->btf, id);
		uint64_t elems = 1, in = off;
		const char *name;
		int w = 0;

		if (!t || !btf_is_struct(t) || !t->name_off || !t->size ||
		    !(name = btf__name_by_offset(b->btf, t->name_off)) || !strcmp(name, pool))
			continue;
		if (exact) {	/* the struct, or an array of it */
			if (size % t->size)
				continue;
			elems = size / t->size;
			in = off % t->size;
		} else if (t->size > size || size - t->size >= 64 || t->size <= off) {
			continue;	/* at most @size, less than 64 bytes below it */
		}
		if (elems > 1)
			w = snprintf(cand, sizeof(cand), "[%" PRIu64 "]", off / t->size);
		unsigned int budget = POOL_PATH_BUDGET;

		if (w < 0 || (size_t)w >= sizeof(cand))
			continue;
		if (!pool_path(b, id, in, pool, cand + w, sizeof(cand) - (size_t)w, 0, &budget)) {
			if (!budget)
				return false;	/* unknown whether it holds one: no guess */
			continue;
		}
		if (cand[w] != '.')
			continue;
		if (n && strcmp(cand, first))
			return false;	/* two structs, two answers: no guess */
		if (!n++)
			snprintf(first, sizeof(first), "%s", cand);
	}
	if (n)
		snprintf(path, len, "%s", first);
	return n > 0;
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

	if (!b || !b->btf || off >= osize)
		return;
	if (!off) {	/* the object may be the pool itself: mempool_create() kmallocs it bare */
		hit->n = 2;
		return;
	}
	for (uint32_t id = first ? first : 1; id < b->ntypes && hit->n < 2; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);
		unsigned int budget = POOL_PATH_BUDGET;
		const char *name;

		if (!t || !btf_is_struct(t) || !t->name_off || !t->size || t->size > osize ||
		    t->size <= off || !(name = btf__name_by_offset(b->btf, t->name_off)) ||
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
		if (!size_of(b, a->type, &es) || !es || es > w->size || a->nelems > w->size / es)
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

	if (!b || !b->btf || !id || id >= b->ntypes || !(t = btf__type_by_id(b->btf, id)) ||
	    !btf_is_struct(t))
		return false;
	w.size = t->size;
	return ptr_walk(&w, id, 0, path, 0, sizeof(path), 0);
}

bool kmp_btf_bitfield(const Dwarf_Die *st, const char *name, uint64_t *bit_off, uint64_t *bits)
{
	const struct kmp_btf *b = kmp_btf_of(st);
	const struct btf_type *t;
	int r;

	if (!b || !id_of(st) || id_of(st) >= b->ntypes ||
	    (r = btf__resolve_type(b->btf, id_of(st))) <= 0 || (uint32_t)r >= b->ntypes ||
	    !(t = btf__type_by_id(b->btf, (uint32_t)r)) || !btf_is_composite(t))
		return false;
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		const struct btf_member *m = btf_members(t) + i;
		const char *mn = m->name_off ? btf__name_by_offset(b->btf, m->name_off) : NULL;

		if (!mn || strcmp(mn, name))
			continue;
		*bit_off = btf_member_bit_offset(t, i);
		*bits = btf_member_bitfield_size(t, i);
		return *bits > 0;
	}
	return false;
}
