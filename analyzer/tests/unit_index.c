// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the look-ups that replace linear searches (issue
 * 23): vmlinux symbols by name (symscan.c) and modules by address
 * (modindex.c), module symbols by address (modules.c), each against the
 * linear search it replaces, on crafted
 * tables: shared prefixes, duplicates, names at the end of the string
 * table, damaged entries, overlapping module regions.
 *
 *   unit-index
 */
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "mem.h"
#include "modules.h"
#include "symscan.h"

#include "check.h"

/* ------------------------------------------------------------------ */
/* Symbols by name */

#define NSYMS 6000
#define STRMAX (NSYMS * 48)

struct table {
	Elf64_Sym syms[NSYMS];
	char str[STRMAX];
	size_t n, strlen;
};

/* A symbol named @name (appended to the string table), defined unless @undef. */
static void add(struct table *t, const char *name, uint64_t value, bool undef)
{
	size_t len = strlen(name) + 1;
	Elf64_Sym *s = &t->syms[t->n++];

	memset(s, 0, sizeof(*s));
	s->st_name = (uint32_t)t->strlen;
	s->st_value = value;
	s->st_size = len;
	s->st_shndx = undef ? SHN_UNDEF : 1;
	memcpy(t->str + t->strlen, name, len);
	t->strlen += len;
}

/* What the scan replaces: the first defined symbol of that name in a linear search. */
static const Elf64_Sym *linear(const struct table *t, const char *name)
{
	for (size_t k = 0; k < t->n; k++) {
		const Elf64_Sym *s = &t->syms[k];

		if (s->st_shndx != SHN_UNDEF && s->st_name && s->st_name < t->strlen &&
		    !strcmp(t->str + s->st_name, name))
			return s;
	}
	return NULL;
}

/* @t as a file: the string table at 0, the symbols after it. */
static FILE *table_file(const struct table *t, struct kmp_symfile *f)
{
	FILE *fp = tmpfile();

	if (!fp)
		return NULL;
	fwrite(t->str, 1, t->strlen, fp);
	fwrite(t->syms, sizeof(t->syms[0]), t->n, fp);
	fflush(fp);
	*f = (struct kmp_symfile){ .fd = fileno(fp), .stroff = 0, .strsize = t->strlen,
				   .symoff = t->strlen, .nsyms = t->n };
	return fp;
}

/* Look all @n names up at once in @f, read @chunk bytes at a time; the mismatches with a linear search. */
static size_t compare(const struct table *t, const struct kmp_symfile *f, const char *const *names,
		      size_t n, size_t chunk)
{
	struct kmp_sym *q = calloc(n, sizeof(*q));
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		q[i].name = names[i];
	if (!kmp_symscan(f, q, n, chunk)) {
		free(q);
		return n;
	}
	for (size_t i = 0; i < n; i++) {
		const Elf64_Sym *l = *names[i] ? linear(t, names[i]) : NULL;

		if (q[i].found != !!l || (l && (q[i].addr != l->st_value || q[i].size != l->st_size))) {
			if (bad++ < 5)
				CHECK(0, "\"%s\" (chunk %zu): scan %s %#" PRIx64 ", linear %s %#" PRIx64,
				      names[i], chunk, q[i].found ? "found" : "not found", q[i].addr,
				      l ? "found" : "not found", l ? l->st_value : 0);
		}
	}
	free(q);
	return bad;
}

static void test_symscan(void)
{
	static struct table tb;
	static const char *const prefixes[] = {
		"__SCK__lsm_static_call_", "security_hook_active_", "__ksymtab_", "mempool_",
		"a", "ab", "abcdefg", "abcdefgh", "abcdefghijklmno", "abcdefghijklmnop",
		"abcdefghijklmnopq",
	};
	static const char *absent[] = { "", "zzz", "mempool_", "__SCK__lsm_static_call_9999x",
					"abcdefghijklmnopqr", "abcdefgh\x7f", "fix", "_vfree" };
	static const size_t chunks[] = { 1, 7, 24, 25, 48, 100, 4096, 0 };
	static const char *names[NSYMS + 16];
	char name[64], *merged;
	struct kmp_symfile f;
	struct kmp_sym one;
	size_t nn = 0, bad = 0;
	FILE *fp;

	begin("symbols by name: one read of the tables finds what a linear search finds");
	memset(&tb, 0, sizeof(tb));
	tb.strlen = 1;				/* offset 0: the empty name */
	add(&tb, "", 0, false);			/* nameless */
	add(&tb, "undefined_only", 1, true);	/* only an undefined one */
	for (size_t i = 0; tb.n < NSYMS - 40; i++) {
		const char *p = prefixes[i % (sizeof(prefixes) / sizeof(prefixes[0]))];

		snprintf(name, sizeof(name), "%s%zu", p, i / 7);
		add(&tb, name, 0x1000 + i, false);	/* i / 7: each name several times */
	}
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		add(&tb, prefixes[i], 0x100 + i, false);	/* the prefixes themselves */
	add(&tb, "undefined_then_defined", 2, true);
	add(&tb, "undefined_then_defined", 3, false);
	/* The linker's tail merging: "vfree" is the end of "__pfx_vfree". */
	add(&tb, "__pfx_vfree", 6, false);
	merged = tb.str + tb.syms[tb.n - 1].st_name;
	tb.syms[tb.n] = tb.syms[tb.n - 1];
	tb.syms[tb.n].st_value = 7;
	tb.syms[tb.n++].st_name += 6;
	/* Out of the string table: never found, even by a name that is there. */
	tb.syms[tb.n] = tb.syms[tb.n - 1];
	tb.syms[tb.n++].st_name = STRMAX + 5;
	/* Short names at the very end of the string table. */
	add(&tb, "end1", 4, false);
	add(&tb, "x", 5, false);
	CHECK(!strcmp(merged + 6, "vfree"), "a merged name");
	fp = table_file(&tb, &f);
	CHECK(fp != NULL, "table file");
	if (!fp) {
		end();
		return;
	}
	for (size_t k = 0; k < tb.n; k++)
		if (tb.syms[k].st_name < tb.strlen)
			names[nn++] = tb.str + tb.syms[k].st_name;
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		names[nn++] = absent[i];
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
		bad += compare(&tb, &f, names, nn, chunks[c]);
	CHECK(!bad, "%zu names differ from a linear search, all at once", bad);
	bad = 0;
	for (size_t i = 0; i < nn; i++)
		bad += compare(&tb, &f, &names[i], 1, 0);
	CHECK(!bad, "%zu names differ from a linear search, one at a time", bad);

	one = (struct kmp_sym){ .name = "vfree" };
	CHECK(kmp_symscan(&f, &one, 1, 3) && one.found && one.addr == 7,
	      "a name at the tail of a longer one");
	one = (struct kmp_sym){ .name = "undefined_then_defined" };
	CHECK(kmp_symscan(&f, &one, 1, 0) && one.found && one.addr == 3, "the defined one of a name");
	one = (struct kmp_sym){ .name = "mempool_3" };
	CHECK(kmp_symscan(&f, &one, 1, 0) && one.found && one.addr == 0x1000 + 25,
	      "the first of duplicates (i = 25: i mod 11 = 3, i / 7 = 3)");
	one = (struct kmp_sym){ .name = "x" };
	CHECK(kmp_symscan(&f, &one, 1, 5) && one.found && one.addr == 5, "the last name of the table");
	one = (struct kmp_sym){ .name = "undefined_only" };
	CHECK(kmp_symscan(&f, &one, 1, 0) && !one.found, "an undefined symbol is not found");
	one = (struct kmp_sym){ .name = "" };
	CHECK(kmp_symscan(&f, &one, 1, 0) && !one.found, "the empty name is never found");

	/* Empty tables; tables past the end of the file. */
	f.nsyms = 0;
	one = (struct kmp_sym){ .name = "x" };
	CHECK(kmp_symscan(&f, &one, 1, 0) && !one.found, "no symbols");
	f.nsyms = tb.n;
	f.strsize = 0;
	CHECK(kmp_symscan(&f, &one, 1, 0) && !one.found, "no strings");
	f.strsize = tb.strlen;
	f.nsyms = tb.n + 1000;
	one = (struct kmp_sym){ .name = "abcdefghijklmnopq" };
	CHECK(!kmp_symscan(&f, &one, 1, 0) && !one.found,
	      "a symbol table past the end of the file: the read fails, nothing is found");
	f.strsize = tb.strlen + 100000;
	CHECK(!kmp_symscan(&f, &one, 1, 0) && !one.found, "a string table past the end of the file");
	fclose(fp);
	end();
}

/* ------------------------------------------------------------------ */
/* Modules by address */

static const struct kmp_module *module_linear(const struct kmp_modules *m, uint64_t addr)
{
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->v[i].nreg; j++)
			if (kmp_modregion_has(&m->v[i].reg[j], addr))
				return &m->v[i];
	return NULL;
}

/* kmp_module_at() against the linear search at each region's edges and between. */
static size_t compare_modules(const struct kmp_modules *m)
{
	size_t bad = 0;

	for (size_t i = 0; i < m->n; i++) {
		for (size_t j = 0; j < m->v[i].nreg; j++) {
			const struct kmp_modregion *r = &m->v[i].reg[j];
			const uint64_t probes[] = { r->start - 1, r->start, r->start + 1,
						    r->start + r->size / 2, r->start + r->size - 1,
						    r->start + r->size, r->start + r->size + 1 };

			for (size_t p = 0; p < sizeof(probes) / sizeof(probes[0]); p++)
				bad += kmp_module_at(m, probes[p]) != module_linear(m, probes[p]);
		}
	}
	bad += kmp_module_at(m, 0) != module_linear(m, 0);
	bad += kmp_module_at(m, UINT64_MAX) != module_linear(m, UINT64_MAX);
	return bad;
}

static void test_modindex(void)
{
	struct kmp_module v[40];
	struct kmp_modules m;

	begin("modules by address: the index finds what a search in list order finds");
	memset(v, 0, sizeof(v));
	memset(&m, 0, sizeof(m));
	/* Modules placed out of address order, with gaps, empty regions and adjacent ones. */
	for (size_t i = 0; i < 40; i++) {
		uint64_t base = 0xffffffffc0000000ULL + ((i * 17) % 40) * 0x10000;

		v[i].nreg = 4;
		for (size_t j = 0; j < 4; j++)
			v[i].reg[j] = (struct kmp_modregion){ base + j * 0x3000,
							       j == 2 ? 0 : 0x3000 - (j == 3) * 0x100 };
	}
	m.v = v;
	m.n = 40;
	kmp_modules_index(&m);
	CHECK(m.spans && m.nspans == 40 * 3, "indexed (%zu regions)", m.nspans);
	CHECK(!compare_modules(&m), "disjoint regions: answers differ");
	CHECK(kmp_module_at(&m, 0xffffffffc0000000ULL) == &v[0], "the first module");
	CHECK(!kmp_module_at(&m, 0xffffffffc0002fffULL + 0x3000 * 3), "in no region");

	/* Overlapping regions (a damaged list): the first in list order, without an index. */
	v[7].reg[1] = v[3].reg[0];
	kmp_modules_index(&m);
	CHECK(!m.spans, "overlapping regions are not indexed");
	CHECK(!compare_modules(&m), "overlapping regions: answers differ");
	CHECK(kmp_module_at(&m, v[3].reg[0].start) == &v[3], "the first of two modules");

	/* A region that wraps past the top of the address space. */
	v[7].reg[1] = (struct kmp_modregion){ UINT64_MAX - 0x10, 0x100 };
	kmp_modules_index(&m);
	CHECK(!m.spans, "a wrapping region is not indexed");
	CHECK(!compare_modules(&m), "wrapping region: answers differ");
	free(m.spans);

	/* No modules. */
	memset(&m, 0, sizeof(m));
	kmp_modules_index(&m);
	CHECK(!kmp_module_at(&m, 0xffffffffc0000000ULL), "no modules");
	end();
}

/* ------------------------------------------------------------------ */
/* Module symbols by address */

#define MSYMS 3000
#define MSYMTAB 0xffffffffc1000000ULL
#define MSTRTAB 0xffffffffc2000000ULL

struct modimg {
	unsigned char tab[MSYMS * 24];
	char str[MSYMS * 16];
	unsigned long tab_reads;
};

static bool modimg_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
			struct kmp_err *err)
{
	struct modimg *img = mem->priv;

	if (addr >= MSYMTAB && addr - MSYMTAB <= sizeof(img->tab) &&
	    len <= sizeof(img->tab) - (addr - MSYMTAB)) {
		img->tab_reads++;
		memcpy(buf, img->tab + (addr - MSYMTAB), len);
		return true;
	}
	if (addr >= MSTRTAB && addr - MSTRTAB <= sizeof(img->str) &&
	    len <= sizeof(img->str) - (addr - MSTRTAB)) {
		memcpy(buf, img->str + (addr - MSTRTAB), len);
		return true;
	}
	kmp_seterr(err, KMP_ERR_UNMAPPED, "unmapped 0x%" PRIx64, addr);
	return false;
}

/* The pass over the table that kmp_module_symbol() made before its index: the name's offset. */
static bool modsym_linear(const struct modimg *img, uint64_t addr, uint64_t *name,
			  uint64_t *start, uint64_t *size)
{
	uint64_t best = 0, bsize = 0, bname = 0;
	bool found = false;

	for (size_t i = 0; i < MSYMS; i++) {
		const Elf64_Sym *s = (const Elf64_Sym *)(img->tab + i * 24);
		int type = ELF64_ST_TYPE(s->st_info);

		if (type != STT_FUNC && type != STT_OBJECT)
			continue;
		if (s->st_value <= addr && (!found || s->st_value > best ||
					    (s->st_value == best && s->st_size > bsize))) {
			best = s->st_value;
			bsize = s->st_size;
			bname = s->st_name;
			found = true;
		}
	}
	if (!found || (bsize && addr - best >= bsize))
		return false;
	*name = bname;
	*start = best;
	*size = bsize;
	return true;
}

static void test_modsyms(void)
{
	static const struct kmp_mem_ops ops = { .read = modimg_read };
	static struct modimg img;
	struct kmp_mem mem = { &ops, &img, false, false };
	struct kmp_modlayout ml;
	struct kmp_module mod;
	size_t strused = 1, bad = 0, asked = 0;
	uint64_t seed = 42;
	unsigned long first;

	begin("module symbols by address: the sorted index answers as the pass over the table "
	      "did, and reads the table once");
	memset(&ml, 0, sizeof(ml));
	ml.sym_size = 24;
	ml.st_name = (struct kmp_field){ .off = 0, .size = 4, .ok = true };
	ml.st_info = (struct kmp_field){ .off = 4, .size = 1, .ok = true };
	ml.st_value = (struct kmp_field){ .off = 8, .size = 8, .ok = true };
	ml.st_size = (struct kmp_field){ .off = 16, .size = 8, .ok = true };
	/* Values drawn from a small range: many symbols share an address, some a size too. */
	for (size_t i = 0; i < MSYMS; i++) {
		Elf64_Sym *s = (Elf64_Sym *)(img.tab + i * 24);
		int types[] = { STT_FUNC, STT_OBJECT, STT_NOTYPE, STT_SECTION };

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		s->st_value = 0xffffffffc0000000ULL + ((seed >> 33) % 4000) * 16;
		s->st_size = (seed >> 20) % 3 ? ((seed >> 24) % 4) * 16 : 0;
		s->st_info = (unsigned char)ELF64_ST_INFO(STB_GLOBAL, types[(seed >> 40) % 4]);
		s->st_name = (uint32_t)strused;
		strused += (size_t)snprintf(img.str + strused, 16, "sym%zu", i) + 1;
	}
	memset(&mod, 0, sizeof(mod));
	mod.symtab = MSYMTAB;
	mod.num_symtab = MSYMS;
	mod.strtab = MSTRTAB;
	CHECK(kmp_module_syms_init(&mod), "index room");
	for (uint64_t a = 0xffffffffc0000000ULL - 32; a < 0xffffffffc0000000ULL + 4001 * 16; a += 4) {
		uint64_t wname = 0, wstart = 0, wsize = 0, start = 0, size = 0;
		bool want = modsym_linear(&img, a, &wname, &wstart, &wsize);
		char name[64];
		bool got = kmp_module_symbol(&mem, &ml, &mod, a, MSYMS, name, sizeof(name), &start,
					     &size);

		asked++;
		if (got != want || (got && (strcmp(name, img.str + wname) || start != wstart ||
					    size != wsize))) {
			if (!bad++)
				printf("# at 0x%" PRIx64 ": got %d %s 0x%" PRIx64 "+%" PRIu64 ", want %d "
				       "%s 0x%" PRIx64 "+%" PRIu64 "\n", a, got, got ? name : "-",
				       start, size, want, want ? img.str + wname : "-", wstart, wsize);
		}
		if (asked == 1)
			first = img.tab_reads;
	}
	CHECK(!bad, "%zu of %zu addresses answered otherwise", bad, asked);
	CHECK(first > 0 && img.tab_reads == first, "the table read %lu times in all, %lu for "
	      "the first look-up", img.tab_reads, first);
	kmp_module_syms_free(&mod);
	end();
}

/* ------------------------------------------------------------------ */
/* Fields of every size read as the byte loop read them */

static void test_field_uint(void)
{
	unsigned char buf[24];

	begin("fields: little-endian, any size, sign-extended");
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(0x81 + 7 * i);
	for (uint64_t size = 1; size <= 8; size *= 2) {
		for (uint64_t off = 0; off + size <= sizeof(buf); off++) {
			struct kmp_field f = { .off = off, .size = size, .ok = true };
			struct kmp_err err = { 0 };
			uint64_t want = 0, got = 0;

			for (uint64_t i = size; i > 0; i--)
				want = (want << 8) | buf[off + i - 1];
			CHECK(kmp_field_get(buf, sizeof(buf), &f, &got, &err) && got == want,
			      "size %" PRIu64 " at %" PRIu64, size, off);
		}
	}
	{
		struct kmp_err err = { 0 };
		int64_t s = 0;

		CHECK(kmp_field_sget(buf, sizeof(buf),
				     &(struct kmp_field){ .off = 0, .size = 4, .ok = true }, &s, &err) &&
		      s == (int32_t)0x968f8881, "a negative int");
	}
	end();
}

int main(void)
{
	test_symscan();
	test_modindex();
	test_modsyms();
	test_field_uint();
	printf("unit-index: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
