// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: the kernel's kallsyms tables decoded from memory (see kallsyms.h).
 *
 * The layout, as kernel/kallsyms.c and scripts/kallsyms.c of 6.1 to 7.2
 * write and read it: kallsyms_names is one entry per symbol, a length (one
 * byte; with the top bit set, two: the low 7 bits then the next byte's 8)
 * followed by that many token numbers; token n expands to the NUL-ended
 * string at kallsyms_token_table + kallsyms_token_index[n]; the first
 * character of the expansion is the symbol's type letter.  The address of
 * symbol i comes from the s32 kallsyms_offsets[i]: up to 6.x with
 * kallsyms_relative_base, base + (u32)offset, or, with absolute per-CPU
 * symbols (x86-64 SMP up to 6.14), the offset itself when it is not
 * negative and base - 1 - offset when it is; in 7.x the offset is relative
 * to its own slot, &kallsyms_offsets[i] + offset.  Nothing in memory is
 * trusted: every count and length is bounded, every token index and token
 * checked, every name must be printable.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bsearch.h"
#include "kallsyms.h"

bool kmp_vmcoreinfo_symbol(const char *vmcoreinfo, const char *name, uint64_t *addr)
{
	size_t n = strlen(name);
	const char *p = vmcoreinfo;

	while (p && *p) {
		if (!strncmp(p, "SYMBOL(", 7) && !strncmp(p + 7, name, n) && !strncmp(p + 7 + n, ")=", 2)) {
			const char *h = p + 9 + n;
			uint64_t v = 0;
			int digits = 0;

			for (; *h && *h != '\n'; h++, digits++) {
				int d = *h >= '0' && *h <= '9' ? *h - '0' :
					*h >= 'a' && *h <= 'f' ? *h - 'a' + 10 :
					*h >= 'A' && *h <= 'F' ? *h - 'A' + 10 : -1;

				if (d < 0 || digits >= 16)
					return false;
				v = v << 4 | (uint64_t)d;
			}
			if (!digits)
				return false;
			*addr = v;
			return true;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return false;
}

void kmp_kallsyms_free(struct kmp_kallsyms *ks)
{
	if (!ks->borrowed) {
		free(ks->byname);
		free(ks->off);
		free(ks->pos);
		free(ks->names);
		free(ks->ttab);
	}
	free(ks->hash);
	free(ks->tok);
	memset(ks, 0, sizeof(*ks));
}

/* The kernel's type letter as an ELF type and binding. */
static unsigned char sym_info(char type)
{
	unsigned char bind = type >= 'A' && type <= 'Z' ? STB_GLOBAL : STB_LOCAL;
	char t = (char)(type | 0x20);

	if (t == 't' || t == 'w')
		return ELF64_ST_INFO(bind, STT_FUNC);
	if (t == 'd' || t == 'b' || t == 'r' || t == 'v' || t == 'g' || t == 's')
		return ELF64_ST_INFO(bind, STT_OBJECT);
	return ELF64_ST_INFO(bind, STT_NOTYPE);
}

/*
 * A name's hash is polynomial, h = h * B + c for each character c, so a
 * token's part can be taken whole: h * B^len(token) + hash(token).  Each
 * token's hash and B^len are computed once, with and without its first
 * character (the type letter, which is not part of the name); a name is
 * then hashed a token at a time, a query one character at a time, alike.
 */
#define HASH_B 0x100000001b3ull

/*
 * The 256 tokens, each checked once: a NUL within the table, printable
 * characters only; len[c] is 0 for a token that is not.
 */
struct kmp_kallsyms_tokens {
	uint16_t len[256];
	uint32_t at[256];	/* in the kept token table */
	uint64_t hv[256], pw[256];	/* the token's hash and B^len */
	uint64_t hv1[256], pw1[256];	/* ... without its first character */
};

static void check_tokens(const char *table, size_t tlen, const uint16_t *index,
			 struct kmp_kallsyms_tokens *t)
{
	memset(t, 0, sizeof(*t));
	for (int c = 0; c < 256; c++) {
		size_t at = index[c], n = 0;

		if (at >= tlen)
			continue;
		while (at + n < tlen && table[at + n] >= 0x21 && table[at + n] <= 0x7e &&
		       n < KMP_KALLSYMS_NAME_MAX)
			n++;
		if (at + n >= tlen || table[at + n])
			continue;
		t->len[c] = (uint16_t)n;
		t->at[c] = (uint32_t)at;
		t->pw[c] = t->pw1[c] = 1;
		for (size_t k = 0; k < n; k++) {
			unsigned char ch = (unsigned char)table[at + k];

			t->hv[c] = t->hv[c] * HASH_B + ch;
			t->pw[c] *= HASH_B;
			if (k) {
				t->hv1[c] = t->hv1[c] * HASH_B + ch;
				t->pw1[c] *= HASH_B;
			}
		}
	}
}

/* The table's 32 bits of a polynomial hash. */
static uint32_t hash_mix(uint64_t h)
{
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (uint32_t)h;
}

/* The hash of a name asked for. */
static uint32_t query_hash(const char *q)
{
	uint64_t h = 0;

	while (*q)
		h = h * HASH_B + (unsigned char)*q++;
	return hash_mix(h);
}

/*
 * The length of the entry at *@pos of @names (@len bytes): one byte, or
 * two with the top bit of the first set; *@pos moved past it.  False when
 * the length runs past @len, is 0, or its tokens would.
 */
static bool entry_len(const uint8_t *names, size_t len, size_t *pos, size_t *n)
{
	size_t p = *pos;

	if (p >= len)
		return false;
	*n = names[p++];
	if (*n & 0x80) {
		if (p >= len)
			return false;
		*n = (*n & 0x7f) | (size_t)names[p++] << 7;
	}
	*pos = p;
	return *n && *n <= len - p;
}

/*
 * Symbol @i's tokens and their number: @pos is at its length (one byte,
 * or two with the top bit of the first set), checked when decoded.
 */
static const uint8_t *tokens(const struct kmp_kallsyms *ks, size_t i, size_t *n)
{
	const uint8_t *p = ks->names + ks->pos[i];

	*n = p[0] & 0x80 ? (size_t)(p[0] & 0x7f) | (size_t)p[1] << 7 : p[0];
	return p + 1 + (p[0] >> 7);
}

unsigned char kmp_kallsyms_info(const struct kmp_kallsyms *ks, size_t i)
{
	size_t n;
	const uint8_t *p = tokens(ks, i, &n);

	return sym_info(ks->ttab[ks->tok->at[p[0]]]);
}

/*
 * Symbol @i's name (without its type letter) into @out of @len bytes,
 * cut short if it does not fit.  The tokens were checked when the table
 * was decoded.
 */
void kmp_kallsyms_name(const struct kmp_kallsyms *ks, size_t i, char *out, size_t len)
{
	size_t o = 0, nt;
	const uint8_t *p = tokens(ks, i, &nt);
	bool first = true;

	if (!len)
		return;
	for (size_t k = 0; k < nt; k++) {
		const char *tk = ks->ttab + ks->tok->at[p[k]];
		size_t n = ks->tok->len[p[k]];

		if (first) {	/* the type letter */
			tk++;
			n--;
			first = false;
		}
		if (n > len - 1 - o)
			n = len - 1 - o;
		memcpy(out + o, tk, n);
		o += n;
	}
	out[o] = '\0';
}

/*
 * Do the @nt tokens @p of token table @ttab spell @q (after the type
 * letter)?  A token that is not good (tok->len 0) spells nothing.  (Most
 * names differ in their first characters.)
 */
static bool tokens_spell(const char *ttab, const struct kmp_kallsyms_tokens *tok,
			 const uint8_t *p, size_t nt, const char *q)
{
	for (size_t k = 0; k < nt; k++) {
		const char *tk = ttab + tok->at[p[k]];
		size_t n = tok->len[p[k]];

		if (!n)
			return false;
		for (size_t c = !k; c < n; c++)	/* (the first token's first: the type letter) */
			if (*q++ != tk[c])
				return false;
	}
	return !*q;
}

/* Is symbol @i's name @q? */
static bool name_is(const struct kmp_kallsyms *ks, size_t i, const char *q)
{
	size_t nt;
	const uint8_t *p = tokens(ks, i, &nt);

	return tokens_spell(ks->ttab, ks->tok, p, nt, q);
}

/* The first symbol in [lo, hi) whose address is above @a, or at least @a (hi if none). */
static size_t first_key(const struct kmp_kallsyms *ks, size_t lo, size_t hi, uint64_t a, bool above)
{
	if (a < ks->base)
		return lo;
	if (a - ks->base > UINT32_MAX)
		return hi;
	return kmp_first_key32(ks->off, lo, hi, (uint32_t)(a - ks->base), above);
}

static size_t first_above(const struct kmp_kallsyms *ks, size_t lo, size_t hi, uint64_t a)
{
	return first_key(ks, lo, hi, a, true);
}

static size_t first_at(const struct kmp_kallsyms *ks, size_t lo, size_t hi, uint64_t a)
{
	return first_key(ks, lo, hi, a, false);
}

uint64_t kmp_kallsyms_size(const struct kmp_kallsyms *ks, size_t i)
{
	size_t next = first_above(ks, i + 1, ks->n, kmp_kallsyms_addr(ks, i));

	return next < ks->n ? (uint64_t)ks->off[next] - ks->off[i] : 0;	/* the last: no size */
}

static uint64_t sym_address(const struct kmp_kallsyms_raw *r, uint32_t i, bool abs_percpu)
{
	int32_t off = r->offsets[i];

	if (!r->have_base)	/* 7.x: relative to its own slot */
		return r->offsets_addr + 4 * (uint64_t)i + (uint64_t)(int64_t)off;
	if (!abs_percpu)
		return r->relative_base + (uint32_t)off;
	return off >= 0 ? (uint64_t)off : r->relative_base - 1 - (uint64_t)(int64_t)off;
}

/* Is symbol @i, at @addr, kept: an address, not a per-CPU offset? */
static bool kept(const struct kmp_kallsyms_raw *r, uint32_t i, uint64_t addr, uint64_t kaslr,
		 bool abs_percpu)
{
	return addr >= kaslr && !(abs_percpu && r->offsets[i] >= 0);
}

/*
 * An index slot: 0 free, else the symbol's number + 1 in the low 22 bits
 * (KMP_KALLSYMS_MAX_SYMS is 2^21) and the top 10 bits of its hash above,
 * which turn away most other names without looking at them.
 */
#define SLOT_IDX_BITS 22
_Static_assert(KMP_KALLSYMS_MAX_SYMS < (1u << SLOT_IDX_BITS), "a symbol's number + 1 fits a slot");
static uint32_t slot_tag(uint32_t h)
{
	return h >> SLOT_IDX_BITS;
}

/* Probes an index may take to build, per symbol on average (linear probing). */
#define INDEX_PROBES 32

void kmp_kallsyms_index(struct kmp_kallsyms *ks)
{
	size_t cap = 16, probes = 0;

	if (ks->byname)
		return;
	while (3 * cap < 4 * ks->n)	/* at most three quarters full */
		cap *= 2;
	if (!(ks->byname = calloc(cap, sizeof(*ks->byname))))
		return;
	ks->nbyname = cap;
	for (size_t i = 0; i < ks->n; i++) {
		uint32_t hv = ks->hash[i];
		size_t h = hv & (cap - 1);

		while (ks->byname[h]) {
			h = (h + 1) & (cap - 1);
			if (++probes > INDEX_PROBES * ks->n) {
				/*
				 * Many names alike (a real table has a few dozen of a
				 * name at most): no index, the look-ups stay linear,
				 * which answer the same.
				 */
				free(ks->byname);
				ks->byname = NULL;
				ks->nbyname = 0;
				return;
			}
		}
		ks->byname[h] = slot_tag(hv) << SLOT_IDX_BITS | (uint32_t)(i + 1);
	}
	free(ks->hash);		/* the index has what the look-ups need of them */
	ks->hash = NULL;
}

/*
 * The rule for a name several symbols have: is one of type @info at
 * @addr a better answer than one of @binfo at @baddr?  Global over local,
 * then the lower address.
 */
static bool better_sym(unsigned char info, uint64_t addr, unsigned char binfo, uint64_t baddr)
{
	bool g = ELF64_ST_BIND(info) == STB_GLOBAL, bg = ELF64_ST_BIND(binfo) == STB_GLOBAL;

	return g != bg ? g : addr < baddr;
}

static bool better(const struct kmp_kallsyms *ks, size_t i, size_t best)
{
	return better_sym(kmp_kallsyms_info(ks, i), ks->off[i], kmp_kallsyms_info(ks, best),
			  ks->off[best]);
}

void kmp_kallsyms_find(const struct kmp_kallsyms *ks, struct kmp_sym *syms, size_t n)
{
	for (size_t q = 0; q < n; q++) {
		size_t best = SIZE_MAX;

		if (ks->byname) {
			uint32_t hv = query_hash(syms[q].name);

			for (size_t h = hv & (ks->nbyname - 1); ks->byname[h];
			     h = (h + 1) & (ks->nbyname - 1)) {
				uint32_t e = ks->byname[h];
				size_t i = (e & ((1u << SLOT_IDX_BITS) - 1)) - 1;

				if (e >> SLOT_IDX_BITS == slot_tag(hv) && name_is(ks, i, syms[q].name) &&
				    (best == SIZE_MAX || better(ks, i, best)))
					best = i;
			}
		} else {
			uint32_t hv = query_hash(syms[q].name);

			for (size_t i = 0; i < ks->n; i++)
				if (ks->hash[i] == hv &&
				    name_is(ks, i, syms[q].name) && (best == SIZE_MAX || better(ks, i, best)))
					best = i;
		}
		syms[q].found = best != SIZE_MAX;
		if (syms[q].found) {
			syms[q].addr = kmp_kallsyms_addr(ks, best);
			syms[q].size = kmp_kallsyms_size(ks, best);
		}
	}
}

bool kmp_kallsyms_addrsym(const struct kmp_kallsyms *ks, uint64_t addr, char *name, size_t len,
			  uint64_t *start, uint64_t *size)
{
	size_t above = first_above(ks, 0, ks->n, addr), i;

	if (!above)
		return false;
	/* the first of those at that address, as a pass in table order finds */
	i = first_at(ks, 0, above, kmp_kallsyms_addr(ks, above - 1));
	kmp_kallsyms_name(ks, i, name, len);
	*start = kmp_kallsyms_addr(ks, i);
	*size = above < ks->n ? (uint64_t)ks->off[above] - ks->off[i] : 0;
	return name[0] != '\0';
}

struct ent {
	uint32_t off;
	uint32_t pos, seq;	/* seq: its place in the table, the order among equals */
	uint32_t hash;
};

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort the table by address (the kernel writes it so; a damaged one may not be). */
static bool sort_by_address(struct kmp_kallsyms *ks)
{
	struct ent *e;
	bool sorted = true;

	for (size_t i = 1; i < ks->n && sorted; i++)
		sorted = ks->off[i - 1] <= ks->off[i];
	if (sorted)
		return true;
	if (!(e = malloc(ks->n * sizeof(*e))))
		return false;
	for (size_t i = 0; i < ks->n; i++)
		e[i] = (struct ent){ .off = ks->off[i], .pos = ks->pos[i], .seq = (uint32_t)i,
				     .hash = ks->hash[i] };
	qsort(e, ks->n, sizeof(*e), cmp_ent);
	for (size_t i = 0; i < ks->n; i++) {
		ks->off[i] = e[i].off;
		ks->pos[i] = e[i].pos;
		ks->hash[i] = e[i].hash;
	}
	free(e);
	return true;
}

bool kmp_kallsyms_decode(struct kmp_kallsyms *ks, const struct kmp_kallsyms_raw *r,
			 uint64_t kaslr, struct kmp_err *err)
{
	size_t pos = 0;
	bool abs_percpu = false;

	memset(ks, 0, sizeof(*ks));
	if (!r->num || r->num > KMP_KALLSYMS_MAX_SYMS) {
		kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's symbol table (kallsyms) claims %" PRIu32
			   " symbols (damaged?)", r->num);
		return false;
	}
	for (uint32_t i = 0; r->have_base && i < r->num; i++)
		abs_percpu |= r->offsets[i] < 0;
	ks->relative_base = r->have_base;
	ks->abs_percpu = abs_percpu;
	/* The lowest address kept, and all of them within 4 GiB of it (kallsyms.h). */
	{
		uint64_t lo = UINT64_MAX, hi = 0;

		for (uint32_t i = 0; i < r->num; i++) {
			uint64_t addr = sym_address(r, i, abs_percpu);

			if (!kept(r, i, addr, kaslr, abs_percpu))
				continue;
			lo = addr - kaslr < lo ? addr - kaslr : lo;
			hi = addr - kaslr > hi ? addr - kaslr : hi;
		}
		if (lo != UINT64_MAX && hi - lo > UINT32_MAX) {
			kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's symbol table (kallsyms) spans "
				   "0x%" PRIx64 "-0x%" PRIx64 ", more than 4 GiB: not a kernel's "
				   "(damaged?)", lo, hi);
			return false;
		}
		ks->base = lo == UINT64_MAX ? 0 : lo;
	}
	if (!(ks->off = malloc(r->num * sizeof(*ks->off))) ||
	    !(ks->pos = malloc(r->num * sizeof(*ks->pos))) ||
	    !(ks->hash = malloc(r->num * sizeof(*ks->hash))) ||
	    !(ks->tok = malloc(sizeof(*ks->tok))) ||
	    !(ks->ttab = malloc(r->token_len ? r->token_len : 1))) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for the kernel's symbol table");
		goto fail;
	}
	memcpy(ks->ttab, r->token_table, r->token_len);
	ks->ttab_len = r->token_len;
	memcpy(ks->tidx, r->token_index, sizeof(ks->tidx));
	check_tokens(ks->ttab, r->token_len, r->token_index, ks->tok);
	for (uint32_t i = 0; i < r->num; i++) {
		size_t len, nlen = 0, at = pos;
		uint64_t addr, hv;

		if (!entry_len(r->names, r->names_len, &pos, &len) || pos > UINT32_MAX)
			goto bad;
		/* Every token good, the whole not too long: a printable name. */
		hv = ks->tok->hv1[r->names[pos]];
		for (size_t k = 0; k < len; k++) {
			uint8_t c = r->names[pos + k];
			size_t n = ks->tok->len[c];

			if (!n || (nlen += n) >= KMP_KALLSYMS_NAME_MAX)
				goto bad;
			if (k)
				hv = hv * ks->tok->pw[c] + ks->tok->hv[c];
		}
		if (nlen < 2)	/* a type letter and at least one character of name */
			goto bad;
		addr = sym_address(r, i, abs_percpu);
		if (kept(r, i, addr, kaslr, abs_percpu)) {
			ks->off[ks->n] = (uint32_t)(addr - kaslr - ks->base);
			ks->pos[ks->n] = (uint32_t)at;
			ks->hash[ks->n] = hash_mix(hv);
			ks->n++;
		}
		pos += len;
	}
	/* The names, kept compressed: what the entries use, not the rest of the chunk read. */
	if (!(ks->names = malloc(pos))) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for the kernel's symbol names");
		goto fail;
	}
	memcpy(ks->names, r->names, pos);
	ks->names_len = pos;
	if (!sort_by_address(ks)) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for the kernel's symbol table");
		goto fail;
	}
	return true;
bad:
	kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's symbol table (kallsyms) is damaged: entry %zu "
		   "of kallsyms_names (byte %zu) is out of bounds or not a name", (size_t)ks->n, pos);
fail:
	kmp_kallsyms_free(ks);
	return false;
}

bool kmp_kallsyms_export(const struct kmp_kallsyms *ks, struct kmp_kallsyms_image *img)
{
	if (!ks->byname || !ks->n)
		return false;
	*img = (struct kmp_kallsyms_image){
		.n = ks->n, .base = ks->base, .names_len = ks->names_len,
		.token_len = ks->ttab_len, .nbyname = ks->nbyname,
		.relative_base = ks->relative_base, .abs_percpu = ks->abs_percpu,
		.off = ks->off, .pos = ks->pos, .byname = ks->byname, .names = ks->names,
		.ttab = ks->ttab, .tidx = ks->tidx,
	};
	return true;
}

/*
 * Entry @pos of @names (@len bytes) as the look-ups read it: its length
 * and its tokens inside the names, the first (whose type letter a name
 * drops) a good token.  (That every token is good and the name of a good
 * length, the decoder checked before the table was kept; the look-ups
 * read a bad token as an empty one and cut a long name, in bounds.)
 */
static bool entry_ok(const uint8_t *names, size_t len, size_t pos,
		     const struct kmp_kallsyms_tokens *tok)
{
	size_t n;

	return entry_len(names, len, &pos, &n) && tok->len[names[pos]];
}

bool kmp_kallsyms_adopt(struct kmp_kallsyms *ks, const struct kmp_kallsyms_image *img,
			const char **why)
{
	size_t used = 0;
	const uint32_t mask = (1u << SLOT_IDX_BITS) - 1;

	memset(ks, 0, sizeof(*ks));
	*why = "counts out of bounds";
	if (!img->n || img->n > KMP_KALLSYMS_MAX_SYMS || img->names_len > KMP_KALLSYMS_MAX_NAMES ||
	    !img->token_len || img->token_len > 65536 + 256 || img->nbyname < 16 ||
	    img->nbyname & (img->nbyname - 1) || img->nbyname > 4 * (uint64_t)KMP_KALLSYMS_MAX_SYMS ||
	    3 * img->nbyname < 4 * img->n)
		return false;
	if (!(ks->tok = malloc(sizeof(*ks->tok)))) {
		*why = "out of memory";
		return false;
	}
	check_tokens(img->ttab, img->token_len, img->tidx, ks->tok);
	*why = "a symbol out of order, or an entry out of bounds or not a name";
	for (size_t i = 0; i < img->n; i++)
		if ((i && img->off[i - 1] > img->off[i]) ||
		    !entry_ok(img->names, img->names_len, img->pos[i], ks->tok))
			goto bad;
	*why = "an index slot naming no symbol, or too few free";
	for (size_t h = 0; h < img->nbyname; h++) {
		uint32_t e = img->byname[h];

		/* (a slot's symbol number is 1 to n: 0 - 1 wraps above n) */
		if (e && ((e & mask) - 1u >= img->n || ++used > img->n))
			goto bad;
	}
	ks->n = img->n;
	ks->base = img->base;
	ks->names_len = img->names_len;
	ks->ttab_len = img->token_len;
	ks->nbyname = img->nbyname;
	ks->relative_base = img->relative_base;
	ks->abs_percpu = img->abs_percpu;
	ks->off = (uint32_t *)img->off;
	ks->pos = (uint32_t *)img->pos;
	ks->byname = (uint32_t *)img->byname;
	ks->names = (uint8_t *)img->names;
	ks->ttab = (char *)img->ttab;
	memcpy(ks->tidx, img->tidx, sizeof(ks->tidx));
	ks->borrowed = true;
	*why = NULL;
	return true;
bad:
	free(ks->tok);
	memset(ks, 0, sizeof(*ks));
	return false;
}

/*
 * 64 KiB of kallsyms_names at @addr.  The table's end is not known before
 * it is decoded, so a step may run past it into memory the dump left out:
 * then the step is read a page at a time and what cannot be read is left
 * zero (a length of 0, which the decoder refuses if it gets there).
 */
static bool read_chunk(struct kmp_mem *mem, uint64_t addr, uint8_t *buf, struct kmp_err *err)
{
	uint64_t off = 0;
	struct kmp_err e;

	if (kmp_read(mem, addr, buf, 65536, &e))
		return true;
	memset(buf, 0, 65536);
	while (off < 65536) {
		uint64_t n = 4096 - ((addr + off) & 4095);

		if (n > 65536 - off)
			n = 65536 - off;
		if (!kmp_read(mem, addr + off, buf + off, n, &e))
			break;
		off += n;
	}
	if (!off)
		*err = e;
	return off > 0;
}

/* kallsyms_names, read in 64 KiB steps until @num entries are in (bounded). */
static uint8_t *read_names(struct kmp_mem *mem, uint64_t addr, uint32_t num, size_t *len,
			   struct kmp_err *err)
{
	size_t have = 0, pos = 0;
	uint8_t *buf = NULL;

	for (uint32_t i = 0; i < num;) {
		size_t need = pos + 2;

		if (need > have) {		/* the length byte(s): read more */

			if (have >= KMP_KALLSYMS_MAX_NAMES) {
				kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's kallsyms_names is longer "
					   "than %u MiB (damaged?)", KMP_KALLSYMS_MAX_NAMES >> 20);
				goto fail;
			}
			/* the bound's room, mapped once: only what is read is in memory */
			if (!buf && !(buf = kmp_map_alloc(KMP_KALLSYMS_MAX_NAMES + 65536))) {
				kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for kallsyms_names");
				goto fail;
			}
			if (!read_chunk(mem, addr + have, buf + have, err))
				goto fail;
			have += 65536;
			continue;
		}
		{
			size_t l = buf[pos];

			if (l & 0x80)
				l = (l & 0x7f) | (size_t)buf[pos + 1] << 7, pos++;
			pos += 1 + l;
			i++;
		}
	}
	*len = have;
	return buf;
fail:
	kmp_map_free(buf, KMP_KALLSYMS_MAX_NAMES + 65536);
	return NULL;
}

void kmp_kallsyms_tables_free(struct kmp_kallsyms_tables *t)
{
	kmp_map_free(t->names, KMP_KALLSYMS_MAX_NAMES + 65536);
	kmp_map_free(t->offs, t->raw.num * sizeof(*t->offs));
	free(t->ttab);
	memset(t, 0, sizeof(*t));
}

bool kmp_kallsyms_read(struct kmp_kallsyms_tables *t, struct kmp_mem *mem, const char *vmcoreinfo,
		       struct kmp_err *err)
{
	uint64_t a_names, a_num, a_ttab, a_tidx, a_off, a_base = 0;
	struct kmp_kallsyms_raw *r = &t->raw;
	uint64_t num, base;
	size_t tlen = 0;

	memset(t, 0, sizeof(*t));
	if (!kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_names", &a_names) ||
	    !kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_num_syms", &a_num) ||
	    !kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_token_table", &a_ttab) ||
	    !kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_token_index", &a_tidx) ||
	    !kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_offsets", &a_off)) {
		kmp_seterr(err, KMP_ERR_VMLINUX, "the dump's VMCOREINFO has no kallsyms tables "
			   "(SYMBOL(kallsyms_names) etc., Linux 6.0 on)");
		return false;
	}
	r->have_base = kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_relative_base", &a_base);
	if (!kmp_read_uint(mem, a_num, 4, &num, err) ||
	    !kmp_read(mem, a_tidx, t->tidx, sizeof(t->tidx), err) ||
	    (r->have_base && !kmp_read_uint(mem, a_base, 8, &base, err)))
		return false;
	if (!num || num > KMP_KALLSYMS_MAX_SYMS) {
		kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's kallsyms_num_syms is %" PRIu64
			   " (damaged?)", num);
		return false;
	}
	for (int i = 0; i < 256; i++)
		tlen = t->tidx[i] + (size_t)1 > tlen ? t->tidx[i] + (size_t)1 : tlen;
	tlen += 256;	/* the last token: at most this long */
	r->num = (uint32_t)num;
	if (!(t->ttab = malloc(tlen)) || !(t->offs = kmp_map_alloc(num * sizeof(*t->offs)))) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for the kernel's symbol table");
		goto fail;
	}
	if (!kmp_read(mem, a_ttab, t->ttab, tlen, err) ||
	    !kmp_read_bulk(mem, a_off, t->offs, num * sizeof(*t->offs), err) ||
	    !(t->names = read_names(mem, a_names, (uint32_t)num, &r->names_len, err)))
		goto fail;
	r->names = t->names;
	r->token_index = t->tidx;
	r->token_table = t->ttab;
	r->token_len = tlen;
	r->offsets = t->offs;
	r->offsets_addr = a_off;
	r->relative_base = r->have_base ? base : 0;
	return true;
fail:
	kmp_kallsyms_tables_free(t);
	return false;
}

size_t kmp_kallsyms_raw_find(const struct kmp_kallsyms_raw *r, uint64_t kaslr,
			     struct kmp_sym *syms, size_t n)
{
	struct kmp_kallsyms_tokens *tok = malloc(sizeof(*tok));
	unsigned char *binfo = calloc(n ? n : 1, 1);
	bool abs_percpu = false;
	size_t pos = 0, found = 0;

	for (size_t q = 0; q < n; q++)
		syms[q].found = false, syms[q].size = 0;
	if (!tok || !binfo || !r->num || r->num > KMP_KALLSYMS_MAX_SYMS)
		goto out;
	check_tokens(r->token_table, r->token_len, r->token_index, tok);
	for (uint32_t i = 0; r->have_base && i < r->num; i++)
		abs_percpu |= r->offsets[i] < 0;
	for (uint32_t i = 0; i < r->num && pos < r->names_len; i++) {
		size_t len;
		const uint8_t *p;

		if (!entry_len(r->names, r->names_len, &pos, &len))
			break;		/* damaged: the decoder says where */
		p = r->names + pos;
		pos += len;
		for (size_t q = 0; q < n; q++) {
			uint64_t addr;
			unsigned char info;

			if (!tokens_spell(r->token_table, tok, p, len, syms[q].name))
				continue;
			addr = sym_address(r, i, abs_percpu);
			if (!kept(r, i, addr, kaslr, abs_percpu))
				continue;
			info = sym_info(r->token_table[tok->at[p[0]]]);
			if (syms[q].found && !better_sym(info, addr - kaslr, binfo[q], syms[q].addr))
				continue;
			found += !syms[q].found;
			syms[q].found = true;
			syms[q].addr = addr - kaslr;
			binfo[q] = info;
		}
	}
out:
	free(tok);
	free(binfo);
	return found;
}

bool kmp_kallsyms_load(struct kmp_kallsyms *ks, struct kmp_mem *mem, const char *vmcoreinfo,
		       uint64_t kaslr, struct kmp_err *err)
{
	struct kmp_kallsyms_tables t;
	bool ok;

	memset(ks, 0, sizeof(*ks));
	if (!kmp_kallsyms_read(&t, mem, vmcoreinfo, err))
		return false;
	ok = kmp_kallsyms_decode(ks, &t.raw, kaslr, err);
	kmp_kallsyms_tables_free(&t);
	return ok;
}
