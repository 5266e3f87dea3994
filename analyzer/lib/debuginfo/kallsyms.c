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
	free(ks->byname);
	free(ks->syms);
	free(ks->str);
	memset(ks, 0, sizeof(*ks));
}

static int cmp_addr(const void *a, const void *b)
{
	const Elf64_Sym *x = a, *y = b;

	if (x->st_value != y->st_value)
		return x->st_value < y->st_value ? -1 : 1;
	return x->st_name < y->st_name ? -1 : x->st_name > y->st_name;
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

/* Tokens up to this long are copied as one block of this size. */
#define TOKEN_SLOT 16

/*
 * The 256 tokens, each checked once: a NUL within the table, printable
 * characters only; len[c] is 0 for a token that is not.  Short tokens are
 * also kept in slot[c], padded to TOKEN_SLOT bytes.
 */
struct tokens {
	uint16_t len[256];
	char slot[256][TOKEN_SLOT];
};

static void check_tokens(const struct kmp_kallsyms_raw *r, struct tokens *t)
{
	memset(t, 0, sizeof(*t));
	for (int c = 0; c < 256; c++) {
		size_t at = r->token_index[c], n = 0;

		if (at >= r->token_len)
			continue;
		while (at + n < r->token_len && r->token_table[at + n] >= 0x21 &&
		       r->token_table[at + n] <= 0x7e && n < KMP_KALLSYMS_NAME_MAX)
			n++;
		if (at + n >= r->token_len || r->token_table[at + n])
			continue;
		t->len[c] = (uint16_t)n;
		memcpy(t->slot[c], r->token_table + at, n < TOKEN_SLOT ? n : TOKEN_SLOT);
	}
}

/*
 * Expand @len tokens at @p into @out, which has room for
 * KMP_KALLSYMS_NAME_MAX + TOKEN_SLOT bytes (the type letter first); false
 * if a token is bad or the name too long.
 */
static bool expand(const struct kmp_kallsyms_raw *r, const struct tokens *t, const uint8_t *p,
		   size_t len, char *out, size_t *outlen)
{
	size_t o = 0;

	for (size_t k = 0; k < len; k++) {
		size_t n = t->len[p[k]];

		if (!n || o + n >= KMP_KALLSYMS_NAME_MAX)
			return false;
		if (n <= TOKEN_SLOT)
			memcpy(out + o, t->slot[p[k]], TOKEN_SLOT);	/* one block store */
		else
			memcpy(out + o, r->token_table + r->token_index[p[k]], n);
		o += n;
	}
	out[o] = '\0';
	*outlen = o;
	return o >= 2;	/* a type letter and at least one character of name */
}

static uint64_t sym_address(const struct kmp_kallsyms_raw *r, uint32_t i, bool abs_percpu)
{
	int32_t off = r->offsets[i];

	if (!r->have_base)
		return r->offsets_addr + 4 * (uint64_t)i + (uint64_t)(int64_t)off;
	if (!abs_percpu)
		return r->relative_base + (uint32_t)off;
	return off >= 0 ? (uint64_t)off : r->relative_base - 1 - (uint64_t)(int64_t)off;
}

/* Room for @add more bytes of names; false when out of memory or past the bound. */
static bool str_room(struct kmp_kallsyms *ks, size_t *cap, size_t add)
{
	char *s;

	if (ks->strsize + add <= *cap)
		return true;
	if (*cap >= KMP_KALLSYMS_MAX_NAMES)
		return false;
	*cap = *cap ? 2 * *cap : 1 << 20;
	if (!(s = realloc(ks->str, *cap)))
		return false;
	ks->str = s;
	return true;
}

/* Sizes: the distance to the next higher address (the last symbol keeps none). */
static void set_sizes(struct kmp_kallsyms *ks)
{
	bool sorted = true;

	for (size_t i = 1; i < ks->n && sorted; i++)
		sorted = cmp_addr(&ks->syms[i - 1], &ks->syms[i]) <= 0;
	if (!sorted)	/* the kernel writes them in address order */
		qsort(ks->syms, ks->n, sizeof(*ks->syms), cmp_addr);
	for (size_t i = 0, j = 0; i < ks->n; i = j) {
		for (j = i + 1; j < ks->n && ks->syms[j].st_value == ks->syms[i].st_value; j++)
			;
		for (size_t k = i; k < j && j < ks->n; k++)
			ks->syms[k].st_size = ks->syms[j].st_value - ks->syms[i].st_value;
	}
}

/* FNV-1a of a name. */
static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

void kmp_kallsyms_index(struct kmp_kallsyms *ks)
{
	size_t cap = 16;

	if (ks->byname)
		return;
	while (cap < 2 * ks->n)
		cap *= 2;
	if (!(ks->byname = malloc(cap * sizeof(*ks->byname))))
		return;
	memset(ks->byname, 0xff, cap * sizeof(*ks->byname));
	ks->nbyname = cap;
	for (size_t i = 0; i < ks->n; i++) {
		size_t h = hash(ks->str + ks->syms[i].st_name) & (cap - 1);

		while (ks->byname[h] != UINT32_MAX)
			h = (h + 1) & (cap - 1);
		ks->byname[h] = (uint32_t)i;
	}
}

/* Is @s a better answer for a name than @best: global over local, then the lower address. */
static bool better(const Elf64_Sym *s, const Elf64_Sym *best)
{
	bool g = ELF64_ST_BIND(s->st_info) == STB_GLOBAL;
	bool bg = ELF64_ST_BIND(best->st_info) == STB_GLOBAL;

	return g != bg ? g : s->st_value < best->st_value;
}

void kmp_kallsyms_find(const struct kmp_kallsyms *ks, struct kmp_sym *syms, size_t n)
{
	for (size_t q = 0; q < n; q++) {
		const Elf64_Sym *best = NULL;

		if (ks->byname) {
			for (size_t h = hash(syms[q].name) & (ks->nbyname - 1);
			     ks->byname[h] != UINT32_MAX; h = (h + 1) & (ks->nbyname - 1)) {
				const Elf64_Sym *s = &ks->syms[ks->byname[h]];

				if (!strcmp(ks->str + s->st_name, syms[q].name) && (!best || better(s, best)))
					best = s;
			}
		} else {
			for (size_t i = 0; i < ks->n; i++) {
				const Elf64_Sym *s = &ks->syms[i];

				if (!strcmp(ks->str + s->st_name, syms[q].name) && (!best || better(s, best)))
					best = s;
			}
		}
		syms[q].found = best != NULL;
		if (best) {
			syms[q].addr = best->st_value;
			syms[q].size = best->st_size;
		}
	}
}

bool kmp_kallsyms_decode(struct kmp_kallsyms *ks, const struct kmp_kallsyms_raw *r,
			 uint64_t kaslr, struct kmp_err *err)
{
	size_t pos = 0, cap = 0;
	bool abs_percpu = false;
	struct tokens tok;

	memset(ks, 0, sizeof(*ks));
	if (!r->num || r->num > KMP_KALLSYMS_MAX_SYMS) {
		kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's symbol table (kallsyms) claims %" PRIu32
			   " symbols (damaged?)", r->num);
		return false;
	}
	for (uint32_t i = 0; r->have_base && i < r->num; i++)
		abs_percpu |= r->offsets[i] < 0;
	check_tokens(r, &tok);
	ks->relative_base = r->have_base;
	ks->abs_percpu = abs_percpu;
	if (!(ks->syms = calloc(r->num, sizeof(*ks->syms))) || !str_room(ks, &cap, 1)) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for the kernel's symbol table");
		goto fail;
	}
	ks->str[ks->strsize++] = '\0';
	for (uint32_t i = 0; i < r->num; i++) {
		size_t len, nlen;
		uint64_t addr;
		char *name;

		if (pos >= r->names_len)
			goto bad;
		len = r->names[pos++];
		if (len & 0x80) {
			if (pos >= r->names_len)
				goto bad;
			len = (len & 0x7f) | (size_t)r->names[pos++] << 7;
		}
		if (!str_room(ks, &cap, KMP_KALLSYMS_NAME_MAX + TOKEN_SLOT)) {
			kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for the kernel's symbol names");
			goto fail;
		}
		/* Expanded in place: the type letter, then the name and its NUL. */
		name = ks->str + ks->strsize - 1;
		if (!len || len > r->names_len - pos || !expand(r, &tok, r->names + pos, len, name, &nlen))
			goto bad;
		pos += len;
		addr = sym_address(r, i, abs_percpu);
		if (addr < kaslr || (abs_percpu && r->offsets[i] >= 0)) {
			name[0] = '\0';	/* a per-CPU offset, not an address */
			continue;
		}
		ks->syms[ks->n] = (Elf64_Sym){ .st_name = (Elf64_Word)ks->strsize,
					       .st_info = sym_info(name[0]), .st_shndx = 1,
					       .st_value = addr - kaslr };
		name[0] = '\0';	/* the previous name's NUL again */
		ks->strsize += nlen;	/* the name and its NUL (the letter's place was the NUL) */
		ks->n++;
	}
	set_sizes(ks);
	return true;
bad:
	kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's symbol table (kallsyms) is damaged: entry %zu "
		   "of kallsyms_names (byte %zu) is out of bounds or not a name", (size_t)ks->n, pos);
fail:
	kmp_kallsyms_free(ks);
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
	size_t have = 0, cap = 0, pos = 0;
	uint8_t *buf = NULL;

	for (uint32_t i = 0; i < num;) {
		size_t need = pos + 2;

		if (need > have) {		/* the length byte(s): read more */
			uint8_t *nb;

			if (have >= KMP_KALLSYMS_MAX_NAMES) {
				kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's kallsyms_names is longer "
					   "than %u MiB (damaged?)", KMP_KALLSYMS_MAX_NAMES >> 20);
				goto fail;
			}
			if (have + 65536 > cap) {
				cap = cap ? 2 * cap : 1 << 20;
				if (!(nb = realloc(buf, cap))) {
					kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for kallsyms_names");
					goto fail;
				}
				buf = nb;
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
	free(buf);
	return NULL;
}

bool kmp_kallsyms_load(struct kmp_kallsyms *ks, struct kmp_mem *mem, const char *vmcoreinfo,
		       uint64_t kaslr, struct kmp_err *err)
{
	uint64_t a_names, a_num, a_ttab, a_tidx, a_off, a_base = 0;
	struct kmp_kallsyms_raw r = { 0 };
	uint16_t tidx[256];
	uint64_t num, base;
	size_t tlen = 0;
	char *ttab = NULL;
	int32_t *offs = NULL;
	uint8_t *names = NULL;
	bool ok = false;

	memset(ks, 0, sizeof(*ks));
	if (!kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_names", &a_names) ||
	    !kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_num_syms", &a_num) ||
	    !kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_token_table", &a_ttab) ||
	    !kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_token_index", &a_tidx) ||
	    !kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_offsets", &a_off)) {
		kmp_seterr(err, KMP_ERR_VMLINUX, "the dump's VMCOREINFO has no kallsyms tables "
			   "(SYMBOL(kallsyms_names) etc., Linux 6.0 on)");
		return false;
	}
	r.have_base = kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_relative_base", &a_base);
	if (!kmp_read_uint(mem, a_num, 4, &num, err) ||
	    !kmp_read(mem, a_tidx, tidx, sizeof(tidx), err) ||
	    (r.have_base && !kmp_read_uint(mem, a_base, 8, &base, err)))
		return false;
	if (!num || num > KMP_KALLSYMS_MAX_SYMS) {
		kmp_seterr(err, KMP_ERR_FORMAT, "the kernel's kallsyms_num_syms is %" PRIu64
			   " (damaged?)", num);
		return false;
	}
	for (int i = 0; i < 256; i++)
		tlen = tidx[i] + (size_t)1 > tlen ? tidx[i] + (size_t)1 : tlen;
	tlen += 256;	/* the last token: at most this long */
	if (!(ttab = malloc(tlen)) || !(offs = malloc(num * sizeof(*offs)))) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for the kernel's symbol table");
		goto out;
	}
	if (!kmp_read(mem, a_ttab, ttab, tlen, err) ||
	    !kmp_read_bulk(mem, a_off, offs, num * sizeof(*offs), err) ||
	    !(names = read_names(mem, a_names, (uint32_t)num, &r.names_len, err)))
		goto out;
	r.names = names;
	r.token_index = tidx;
	r.token_table = ttab;
	r.token_len = tlen;
	r.offsets = offs;
	r.num = (uint32_t)num;
	r.offsets_addr = a_off;
	r.relative_base = r.have_base ? base : 0;
	ok = kmp_kallsyms_decode(ks, &r, kaslr, err);
out:
	free(names);
	free(offs);
	free(ttab);
	return ok;
}
