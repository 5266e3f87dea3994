// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the look-up indexes that replace linear searches (issue
 * 23): vmlinux symbols by name (symindex.c) and modules by address
 * (modindex.c), each against the linear search it replaces, on crafted
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
#include "symindex.h"

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

/* What the index replaces: the first defined symbol of that name in a linear search. */
static const Elf64_Sym *linear(const struct kmp_symtab *t, const char *name)
{
	for (size_t k = 0; k < t->n; k++) {
		const Elf64_Sym *s = &t->syms[k];

		if (s->st_shndx != SHN_UNDEF && s->st_name && s->st_name < t->strsize &&
		    !strcmp(t->str + s->st_name, name))
			return s;
	}
	return NULL;
}

static void test_symindex(void)
{
	static struct table tb;
	static const char *const prefixes[] = {
		"__SCK__lsm_static_call_", "security_hook_active_", "__ksymtab_", "mempool_",
		"a", "ab", "abcdefg", "abcdefgh", "abcdefghijklmno", "abcdefghijklmnop",
		"abcdefghijklmnopq",
	};
	const char *const absent[] = { "", "zzz", "mempool_", "__SCK__lsm_static_call_9999x",
				       "abcdefghijklmnopqr", "abcdefgh\x7f" };
	struct kmp_symindex ix;
	struct kmp_symtab t;
	char name[64];
	size_t mismatches = 0;

	begin("symbols by name: the index finds what a linear search finds");
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
	/* Out of the string table: never found, even by a name that is there. */
	tb.syms[tb.n] = tb.syms[tb.n - 1];
	tb.syms[tb.n++].st_name = STRMAX + 5;
	/* Short names at the very end of the string table (read byte by byte). */
	add(&tb, "end1", 4, false);
	add(&tb, "x", 5, false);
	t = (struct kmp_symtab){ tb.syms, tb.n, tb.str, tb.strlen };
	CHECK(t.str[t.strsize - 1] == '\0', "table ends in a NUL");

	CHECK(kmp_symindex_build(&ix, &t), "build");
	for (size_t k = 0; k < t.n; k++) {
		const char *n = kmp_symtab_name(&t, &t.syms[k]);

		if (kmp_symindex_find(&ix, &t, n) != linear(&t, n) && mismatches++ < 5)
			CHECK(0, "\"%s\": index and linear search differ", n);
	}
	CHECK(!mismatches, "%zu names differ", mismatches);
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		CHECK(kmp_symindex_find(&ix, &t, absent[i]) == linear(&t, absent[i]),
		      "absent \"%s\"", absent[i]);
	CHECK(!kmp_symindex_find(&ix, &t, "undefined_only"), "an undefined symbol is not found");
	CHECK(kmp_symindex_find(&ix, &t, "undefined_then_defined") &&
	      kmp_symindex_find(&ix, &t, "undefined_then_defined")->st_value == 3,
	      "the defined one of a name");
	CHECK(kmp_symindex_find(&ix, &t, "mempool_3") &&
	      kmp_symindex_find(&ix, &t, "mempool_3")->st_value == 0x1000 + 25,
	      "the first of duplicates (i = 25: i mod 11 = 3, i / 7 = 3)");
	CHECK(kmp_symindex_find(&ix, &t, "x") && kmp_symindex_find(&ix, &t, "x")->st_value == 5,
	      "the last name of the table");
	kmp_symindex_free(&ix);

	/* Empty table; a table of only undefined symbols. */
	t.n = 0;
	CHECK(kmp_symindex_build(&ix, &t) && !kmp_symindex_find(&ix, &t, "x"), "empty table");
	kmp_symindex_free(&ix);
	t.syms = &tb.syms[2];
	t.n = 1;
	CHECK(kmp_symindex_build(&ix, &t) && !kmp_symindex_find(&ix, &t, "undefined_only"),
	      "only undefined");
	kmp_symindex_free(&ix);
	CHECK(!kmp_symindex_find(&ix, &t, "x"), "after free");
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
	test_symindex();
	test_modindex();
	test_field_uint();
	printf("unit-index: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
