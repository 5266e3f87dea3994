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
#include "btf_int.h"
#include "btfmemo.h"

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

uint32_t kmp_btf_hash(const char *s)
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
		for (h = kmp_btf_hash(name) & (cap - 1); b->byname[h]; h = (h + 1) & (cap - 1))
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

/* The number of types and size of a BTF as kept (key @key of @m): false if not there. */
static bool kept_size(const struct kmp_btf_memo *m, uint32_t key, uint32_t *ntypes,
		      uint64_t *size)
{
	const unsigned char *a;
	size_t alen;

	if (!kmp_btf_memo_get(m, key, KMP_BTF_OP_NTYPES, "", 0, &a, &alen) || alen != 12)
		return false;
	memcpy(ntypes, a, 4);
	memcpy(size, a + 4, 8);
	return *ntypes > 0;
}

static void keep_size(const struct kmp_btf *b)
{
	unsigned char a[12];

	memcpy(a, &b->ntypes, 4);
	memcpy(a + 4, &b->size, 8);
	kmp_btf_memo_put(b->memo, b->memo_key, KMP_BTF_OP_NTYPES, "", 0, a, sizeof(a));
}

void kmp_btf_keep(struct kmp_btf *b, struct kmp_btf_memo *memo)
{
	if (!b->btf || !memo)
		return;
	b->memo = memo;
	b->memo_key = 0;
	keep_size(b);
}

bool kmp_btf_defer(struct kmp_btf *b, struct kmp_btf_memo *memo,
		   bool (*load)(struct kmp_btf *b, void *arg), void *arg)
{
	uint32_t ntypes;
	uint64_t size;

	if (!memo || !kept_size(memo, 0, &ntypes, &size))
		return false;
	memset(b, 0, sizeof(*b));
	b->ntypes = ntypes;
	b->size = size;
	b->memo = memo;
	b->load = load;
	b->load_arg = arg;
	return true;
}

bool kmp_btf_ready(const struct kmp_btf *cb)
{
	struct kmp_btf *b = (struct kmp_btf *)cb;	/* (a kmp_btf is never const itself) */
	struct kmp_btf keep;

	if (b->btf)
		return true;
	if (!b->load || b->load_failed)
		return false;
	keep = *b;
	if (!b->load(b, keep.load_arg)) {
		b->blob = NULL;		/* (kept: keep's) */
		kmp_btf_free(b);	/* what the loader left */
		*b = keep;
		b->load_failed = true;
		return false;
	}
	/* what the parse does not know: its answers, its module blob */
	b->memo = keep.memo;
	b->memo_key = keep.memo_key;
	b->blob = keep.blob;
	b->blob_len = keep.blob_len;
	b->base = keep.base;
	if (b->ntypes != keep.ntypes)
		b->memo = NULL;	/* (not the BTF the answers were kept for: keep no more) */
	return true;
}

bool kmp_btf_asked(const struct kmp_btf *b, uint32_t op, const void *q, size_t qlen,
		   const unsigned char **a, size_t *alen)
{
	return b->memo && !b->btf && kmp_btf_memo_get(b->memo, b->memo_key, op, q, qlen, a, alen);
}

void kmp_btf_answer(const struct kmp_btf *cb, uint32_t op, const void *q, size_t qlen,
		    const void *a, size_t alen)
{
	struct kmp_btf *b = (struct kmp_btf *)cb;	/* (a kmp_btf is never const itself) */

	if (!b->memo || !b->btf)
		return;
	if (b->blob_pending) {	/* a module's first answer: its blob kept, by its key */
		b->blob_pending = false;
		if (!(b->memo_key = kmp_btf_memo_blob(b->memo, b->blob, b->blob_len, true))) {
			b->memo = NULL;	/* (no memory: none kept) */
			return;
		}
		keep_size(b);
	}
	kmp_btf_memo_put(b->memo, b->memo_key, op, q, qlen, a, alen);
}

/* A copy of a module's blob @data[@size] in @b (kept or deferred by it); false without memory. */
static bool copy_blob(struct kmp_btf *b, const void *data, uint64_t size)
{
	if (!(b->blob = malloc(size)))
		return false;
	memcpy(b->blob, data, size);
	b->blob_len = size;
	return true;
}

/* A module's BTF whose parse was deferred: the kernel's first, then its own copy of the blob. */
static bool split_load(struct kmp_btf *b, void *arg)
{
	const struct kmp_btf *base = arg;

	if (!kmp_btf_ready(base))
		return false;
	b->btf = split_from_memory(b->blob, b->blob_len, base->btf);
	if (!b->btf)
		return false;
	b->ntypes = btf__type_cnt(b->btf);
	b->bysize = calloc(1, sizeof(*b->bysize));
	return true;
}

bool kmp_btf_parse_split(struct kmp_btf *b, const void *data, uint64_t size,
			 const struct kmp_btf *base, struct kmp_err *err)
{
	struct kmp_btf_memo *memo = base->memo;
	uint32_t key, ntypes;
	uint64_t ksize;

	memset(b, 0, sizeof(*b));
	if (size < 24 || size > KMP_BTF_MAX || !header_ok(data, size)) {
		kmp_seterr(err, KMP_ERR_FORMAT, "a module's BTF (%" PRIu64 " bytes) has a bad header",
			   size);
		return false;
	}
	/* a blob whose answers are kept (it parsed when they were): parsed when needed */
	if (memo && !base->btf && (key = kmp_btf_memo_blob(memo, data, size, false)) &&
	    kept_size(memo, key, &ntypes, &ksize) && ksize == size && copy_blob(b, data, size)) {
		b->base = base;
		b->ntypes = ntypes;
		b->size = size;
		b->memo = memo;
		b->memo_key = key;
		b->load = split_load;
		b->load_arg = (void *)base;
		return true;
	}
	errno = 0;
	b->btf = kmp_btf_ready(base) ? split_from_memory(data, size, base->btf) : NULL;
	memo = base->memo;	/* (as the kernel's parse left it: dropped if it did not fit) */
	if (!b->btf) {
		int e = errno;

		kmp_seterr(err, KMP_ERR_FORMAT, "a module's BTF (%" PRIu64 " bytes) does not parse "
			   "(libbpf: %s)", size, strerror(e ? e : EINVAL));
		return false;
	}
	b->base = base;
	b->ntypes = btf__type_cnt(b->btf);
	b->size = size;
	b->bysize = calloc(1, sizeof(*b->bysize));	/* filled on first use */
	if (memo && copy_blob(b, data, size)) {
		/*
		 * Its answers kept by its blob, which the memo holds from its
		 * first answer on (a module only parsed, as a scan parses them
		 * all, costs the memo nothing).
		 */
		b->memo = memo;
		b->blob_pending = true;
	}
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
	const void *p = kmp_btf_ready(b) ? btf__raw_data(b->btf, &size) : NULL;

	*len = size;
	return p;
}

void kmp_btf_free(struct kmp_btf *b)
{
	free(b->byname);
	if (b->bysize)
		free(b->bysize->e);
	free(b->bysize);
	free(b->blob);
	if (b->btf)
		btf__free(b->btf);
	memset(b, 0, sizeof(*b));
}

bool kmp_btf_parsed(const struct kmp_btf *b)
{
	return b->btf != NULL;
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

	return b && id && id < b->ntypes && kmp_btf_ready(b) ? btf__type_by_id(b->btf, id) : NULL;
}

/*
 * A question's bytes: @id (u32) and @name (no NUL) into @q[@cap]; false
 * when it does not fit (then it is asked of the BTF, not kept).
 */
static bool question(unsigned char *q, size_t cap, uint32_t id, const char *name, size_t *len)
{
	size_t n = name ? strlen(name) : 0;

	if (n > cap - 4)
		return false;
	memcpy(q, &id, 4);
	if (n)
		memcpy(q + 4, name, n);
	*len = 4 + n;
	return true;
}

const char *kmp_btf_answer_string(const unsigned char *a, size_t alen, size_t at)
{
	return alen > at && !a[alen - 1] && !memchr(a + at, 0, alen - at - 1) ?
	       (const char *)a + at : NULL;
}

const char *kmp_btf_name(const Dwarf_Die *t)
{
	const struct kmp_btf *b = kmp_btf_of(t);
	const struct btf_type *bt;
	const unsigned char *a;
	unsigned char q[4];
	uint32_t id = id_of(t);
	const char *n;
	size_t alen;

	memcpy(q, &id, 4);
	if (b && kmp_btf_asked(b, KMP_BTF_OP_NAME, q, 4, &a, &alen) &&
	    (n = kmp_btf_answer_string(a, alen, 0)))
		return n;
	if (!b || !kmp_btf_ready(b))
		return "";
	bt = type_at(t, id);
	n = bt ? btf__name_by_offset(b->btf, bt->name_off) : NULL;
	kmp_btf_answer(b, KMP_BTF_OP_NAME, q, 4, n ? n : "", strlen(n ? n : "") + 1);
	return n ? n : "";
}

/* The first named struct or enum @name of kind @tag: by the index, else a pass over all types. */
static uint32_t by_name(const struct kmp_btf *b, const char *name, int tag)
{
	const char *n;

	if (b->byname) {
		for (size_t h = kmp_btf_hash(name) & (b->nbyname - 1); b->byname[h];
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
		const unsigned char *a;
		unsigned char q[260];
		uint32_t id = 0;
		size_t qlen = 0, alen = 0;
		bool keep;

		if (w[i].found)
			continue;
		keep = question(q, sizeof(q), (uint32_t)w[i].tag, w[i].name, &qlen);
		if (keep && kmp_btf_asked(b, KMP_BTF_OP_SCAN, q, qlen, &a, &alen) && alen == 4 &&
		    (memcpy(&id, a, 4), id < b->ntypes)) {
			/* (the kept id) */
		} else if (kmp_btf_ready(b)) {
			id = by_name(b, w[i].name, w[i].tag);
			if (keep)
				kmp_btf_answer(b, KMP_BTF_OP_SCAN, q, qlen, &id, 4);
		} else {
			id = 0;
		}
		if (!id)
			continue;
		kmp_btf_handle(b, id, &w[i].die);
		w[i].found = true;
	}
}

bool kmp_btf_size_of(const struct kmp_btf *b, uint32_t id, uint64_t *size)
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
	const unsigned char *a;
	unsigned char q[4], ans[9];
	uint32_t id = id_of(t);
	size_t alen;
	bool ok;

	if (!b)
		return false;
	memcpy(q, &id, 4);
	if (kmp_btf_asked(b, KMP_BTF_OP_SIZE, q, 4, &a, &alen) && alen == 9 && a[0] <= 1) {
		uint64_t kept;

		memcpy(&kept, a + 1, 8);
		if (kept <= UINT32_MAX) {	/* (kmp_btf_size_of()'s bound) */
			*size = kept;
			return a[0];
		}
	}
	if (!kmp_btf_ready(b))
		return false;
	ok = kmp_btf_size_of(b, id, size);
	ans[0] = ok;
	memcpy(ans + 1, ok ? size : &(uint64_t){ 0 }, 8);
	kmp_btf_answer(b, KMP_BTF_OP_SIZE, q, 4, ans, 9);
	return ok;
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
		if (!kmp_btf_size_of(b, m->type, &f->size))
			return false;
		f->off = off;
		f->ok = true;
		*mtype = m->type;
		return true;
	}
	return false;
}

/* Member @name of struct @st: its offset and size in @f, its type's id in *@mt (kept answers first). */
static bool member(const Dwarf_Die *st, const char *name, struct kmp_field *f, uint32_t *mt)
{
	const struct kmp_btf *b = kmp_btf_of(st);
	const unsigned char *a;
	unsigned char q[260], ans[21];
	size_t qlen = 0, alen = 0;
	bool keep, ok;

	memset(f, 0, sizeof(*f));
	*mt = 0;
	if (!b)
		return false;
	keep = question(q, sizeof(q), id_of(st), name, &qlen);
	if (keep && kmp_btf_asked(b, KMP_BTF_OP_MEMBER, q, qlen, &a, &alen) && alen == 21 &&
	    a[0] <= 1) {
		uint64_t off, size;

		memcpy(&off, a + 1, 8);
		memcpy(&size, a + 9, 8);
		if (off <= UINT32_MAX && size <= UINT32_MAX) {	/* (as the BTF bounds them) */
			if (a[0]) {
				f->off = off;
				f->size = size;
				f->ok = true;
				memcpy(mt, a + 17, 4);
			}
			return a[0];
		}
	}
	if (!kmp_btf_ready(b))
		return false;
	ok = find_member(b, id_of(st), name, 0, f, mt, 0);
	if (!ok) {
		memset(f, 0, sizeof(*f));
		*mt = 0;
	}
	if (keep) {
		ans[0] = ok;
		memcpy(ans + 1, &f->off, 8);
		memcpy(ans + 9, &f->size, 8);
		memcpy(ans + 17, mt, 4);
		kmp_btf_answer(b, KMP_BTF_OP_MEMBER, q, qlen, ans, sizeof(ans));
	}
	return ok;
}

bool kmp_btf_member(const Dwarf_Die *st, const char *name, struct kmp_field *f)
{
	uint32_t mt;

	return member(st, name, f, &mt);
}

bool kmp_btf_peel(const Dwarf_Die *t, Dwarf_Die *out)
{
	const struct kmp_btf *b = kmp_btf_of(t);
	const unsigned char *a;
	unsigned char q[4], ans[5] = { 0 };
	uint32_t id = id_of(t), r = 0;
	size_t alen;
	int rr;

	if (!b)
		return false;
	memcpy(q, &id, 4);
	if (kmp_btf_asked(b, KMP_BTF_OP_PEEL, q, 4, &a, &alen) && alen == 5 && a[0] <= 1) {
		memcpy(&r, a + 1, 4);
		if (!a[0] || !r || r >= b->ntypes)
			return false;
		kmp_btf_handle(b, r, out);
		return true;
	}
	if (!kmp_btf_ready(b))
		return false;
	if (id && id < b->ntypes && (rr = btf__resolve_type(b->btf, id)) > 0 &&
	    (uint32_t)rr < b->ntypes)
		r = (uint32_t)rr;
	ans[0] = r != 0;
	memcpy(ans + 1, &r, 4);
	kmp_btf_answer(b, KMP_BTF_OP_PEEL, q, 4, ans, 5);
	if (!r)
		return false;
	kmp_btf_handle(b, r, out);
	return true;
}

bool kmp_btf_member_type(const Dwarf_Die *st, const char *name, Dwarf_Die *type)
{
	const struct kmp_btf *b = kmp_btf_of(st);
	struct kmp_field f;
	Dwarf_Die m;
	uint32_t mt;

	if (!b || !member(st, name, &f, &mt))
		return false;
	kmp_btf_handle(b, mt, &m);
	return kmp_btf_peel(&m, type);
}

/* The enumerators of an enum type as a kept answer: u8 ok, then (i64 value, name NUL) each. */
struct enum_answer {
	unsigned char *buf;
	size_t len, cap;
	bool ok;
};

static void enum_keep(void *arg, const char *name, int64_t value)
{
	struct enum_answer *e = arg;
	size_t n = strlen(name) + 1;

	if (e->ok && e->len + 8 + n > e->cap) {
		size_t cap = 2 * (e->cap + 8 + n);
		unsigned char *nb = realloc(e->buf, cap);

		if (nb) {
			e->buf = nb;
			e->cap = cap;
		}
		e->ok = nb != NULL;
	}
	if (!e->ok)
		return;
	memcpy(e->buf + e->len, &value, 8);
	memcpy(e->buf + e->len + 8, name, n);
	e->len += 8 + n;
}

/* Replay a kept answer of enumerators: false (and no call) if it does not check out. */
static bool enum_replay(const unsigned char *a, size_t alen, void (*fn)(void *arg,
			const char *name, int64_t value), void *arg, bool *ok)
{
	size_t at = 1;

	if (!alen || a[0] > 1)
		return false;
	while (at < alen) {	/* every record whole, first */
		const unsigned char *nul;

		if (alen - at < 10 || !(nul = memchr(a + at + 8, 0, alen - at - 8)) ||
		    nul == a + at + 8)
			return false;
		at = (size_t)(nul - a) + 1;
	}
	for (at = 1; at < alen;) {
		int64_t v;
		const char *n = (const char *)a + at + 8;

		memcpy(&v, a + at, 8);
		fn(arg, n, v);
		at += 8 + strlen(n) + 1;
	}
	*ok = a[0];
	return true;
}

/* kmp_btf_enumerators() on the parsed BTF. */
static bool enums_of(const struct kmp_btf *b, const Dwarf_Die *e, void (*fn)(void *arg,
		     const char *name, int64_t value), void *arg)
{
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

bool kmp_btf_enumerators(const Dwarf_Die *e, void (*fn)(void *arg, const char *name,
							int64_t value), void *arg)
{
	const struct kmp_btf *b = kmp_btf_of(e);
	struct enum_answer ea = { .ok = true };
	const unsigned char *a;
	unsigned char q[4];
	uint32_t id = id_of(e);
	size_t alen;
	bool ok;

	if (!b)
		return false;
	memcpy(q, &id, 4);
	if (kmp_btf_asked(b, KMP_BTF_OP_ENUMS, q, 4, &a, &alen) &&
	    enum_replay(a, alen, fn, arg, &ok))
		return ok;
	if (!kmp_btf_ready(b))
		return false;
	ok = enums_of(b, e, fn, arg);
	if (b->memo && (ea.buf = malloc(ea.cap = 256))) {	/* kept: the same walk into a buffer */
		ea.buf[0] = ok;
		ea.len = 1;
		if (ok)
			enums_of(b, e, enum_keep, &ea);
		if (ea.ok)
			kmp_btf_answer(b, KMP_BTF_OP_ENUMS, q, 4, ea.buf, ea.len);
		free(ea.buf);
	}
	return ok;
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

/* kmp_btf_bitfield() on the parsed BTF. */
static bool bitfield_of(const struct kmp_btf *b, uint32_t id, const char *name, uint64_t *bit_off,
			uint64_t *bits)
{
	const struct btf_type *t;
	int r;

	if (!id || id >= b->ntypes || (r = btf__resolve_type(b->btf, id)) <= 0 ||
	    (uint32_t)r >= b->ntypes || !(t = btf__type_by_id(b->btf, (uint32_t)r)) ||
	    !btf_is_composite(t))
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

bool kmp_btf_bitfield(const Dwarf_Die *st, const char *name, uint64_t *bit_off, uint64_t *bits)
{
	const struct kmp_btf *b = kmp_btf_of(st);
	const unsigned char *a;
	unsigned char q[260], ans[17];
	uint64_t bo = 0, bn = 0;
	size_t qlen = 0, alen = 0;
	bool keep, ok;

	if (!b)
		return false;
	keep = question(q, sizeof(q), id_of(st), name, &qlen);
	if (keep && kmp_btf_asked(b, KMP_BTF_OP_BITFIELD, q, qlen, &a, &alen) && alen == 17 &&
	    a[0] <= 1) {
		memcpy(bit_off, a + 1, 8);
		memcpy(bits, a + 9, 8);
		return a[0];
	}
	if (!kmp_btf_ready(b))
		return false;
	ok = bitfield_of(b, id_of(st), name, &bo, &bn);
	*bit_off = bo;
	*bits = bn;
	if (keep) {
		ans[0] = ok;
		memcpy(ans + 1, &bo, 8);
		memcpy(ans + 9, &bn, 8);
		kmp_btf_answer(b, KMP_BTF_OP_BITFIELD, q, qlen, ans, sizeof(ans));
	}
	return ok;
}
