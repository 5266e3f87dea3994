// SPDX-License-Identifier: GPL-2.0
/* kmempool: vmlinux symbols by address, one pass over .symtab. */
#include <dwarf.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "bsearch.h"
#include "dwarfutil.h"
#include "kallsyms.h"
#include "vmsyms.h"

/* Is @a a better answer than @b for an address both start at or below? */
static bool better(const Elf64_Sym *a, const Elf64_Sym *b)
{
	return a->st_value > b->st_value ||
	       (a->st_value == b->st_value && a->st_size > b->st_size);
}

bool kmp_vmlinux_addrsym(struct kmp_vmlinux *v, uint64_t addr, char *name, size_t len,
			 uint64_t *start, uint64_t *size)
{
	/* Symbols with a size that covers @addr win over those without one. */
	const Elf64_Sym *sized = NULL, *unsized = NULL, *best;
	struct kmp_symtab t;

	if (v->ks)	/* kallsyms: in address order, a binary search */
		return kmp_kallsyms_addrsym(v->ks, addr, name, len, start, size);
	if (!kmp_vmlinux_symtab(v, &t))
		return false;
	for (size_t k = 0; k < t.n; k++) {
		const Elf64_Sym *sym = &t.syms[k];
		int type = ELF64_ST_TYPE(sym->st_info);

		if (sym->st_shndx == SHN_UNDEF || sym->st_value > addr || !sym->st_name)
			continue;
		if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE)
			continue;
		if (sym->st_size) {
			if (addr - sym->st_value < sym->st_size && (!sized || better(sym, sized)))
				sized = sym;
		} else if (!unsized || better(sym, unsized)) {
			unsized = sym;
		}
	}
	best = sized ? sized : unsized;
	if (!best)
		return false;
	snprintf(name, len, "%s", kmp_symtab_name(&t, best));
	*start = best->st_value;
	*size = best->st_size;
	return *name;
}

struct local_obj {
	uint64_t addr;
	uint32_t group;
};

struct kmp_varindex {
	struct local_obj *objs;
	size_t nobjs;
	uint64_t *group_func;		/* a local function of each file group, 0 if none */
	size_t ngroups;
};

static int cmp_obj(const void *a, const void *b)
{
	const struct local_obj *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static struct kmp_varindex *build_index(struct kmp_vmlinux *v)
{
	struct kmp_varindex *ix = calloc(1, sizeof(*ix));
	size_t capo = 0, capg = 0;
	struct kmp_symtab t;

	if (!ix)
		return NULL;
	if (!kmp_vmlinux_symtab(v, &t))
		goto fail;
	for (size_t k = 0; k < t.n; k++) {
		const Elf64_Sym *sym = &t.syms[k];
		int type = ELF64_ST_TYPE(sym->st_info);

		if (ELF64_ST_BIND(sym->st_info) != STB_LOCAL)
			continue;
		if (type == STT_FILE) {
			if (ix->ngroups == capg) {
				size_t c = capg ? capg * 2 : 1024;
				uint64_t *g = realloc(ix->group_func, c * sizeof(*g));

				if (!g)
					goto fail;
				ix->group_func = g;
				capg = c;
			}
			ix->group_func[ix->ngroups++] = 0;
		} else if (!ix->ngroups || sym->st_shndx == SHN_UNDEF) {
			continue;
		} else if (type == STT_FUNC && !ix->group_func[ix->ngroups - 1]) {
			ix->group_func[ix->ngroups - 1] = sym->st_value;
		} else if (type == STT_OBJECT) {
			if (ix->nobjs == capo) {
				size_t c = capo ? capo * 2 : 4096;
				struct local_obj *o = realloc(ix->objs, c * sizeof(*o));

				if (!o)
					goto fail;
				ix->objs = o;
				capo = c;
			}
			ix->objs[ix->nobjs++] = (struct local_obj){ sym->st_value,
								    (uint32_t)(ix->ngroups - 1) };
		}
	}
	if (ix->nobjs > 1)	/* qsort()'s base may not be NULL, even for 0 elements */
		qsort(ix->objs, ix->nobjs, sizeof(*ix->objs), cmp_obj);
	return ix;
fail:
	kmp_vmlinux_varindex_free(ix);
	return NULL;
}

void kmp_vmlinux_varindex_free(struct kmp_varindex *ix)
{
	if (!ix)
		return;
	free(ix->objs);
	free(ix->group_func);
	free(ix);
}

/* The variable @name among the top-level DIEs of @cu. */
static bool cu_variable(Dwarf_Die *cu, const char *name, Dwarf_Die *type)
{
	Dwarf_Die d;

	if (dwarf_child(cu, &d) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Die t;
		const char *n;

		if (dwarf_tag(&d) != DW_TAG_variable || dwarf_hasattr(&d, DW_AT_declaration))
			continue;
		n = dwarf_diename(&d);
		if (!n || strcmp(n, name))
			continue;
		if (dwarf_attr_integrate(&d, DW_AT_type, &a) && dwarf_formref_die(&a, &t)) {
			*type = t;
			return true;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return false;
}

#define NEIGHBOURS 4

bool kmp_vmlinux_variable_type(struct kmp_vmlinux *v, struct kmp_varindex **idx,
			       const char *sym, uint64_t addr, Dwarf_Die *type)
{
	struct kmp_varindex *ix = *idx;
	uint32_t tried[2 * NEIGHBOURS];
	size_t lo, ntried = 0;

	if (!v->dwarf)		/* BTF types no global variables (but per-CPU ones) */
		return false;
	if (!ix && !(ix = *idx = build_index(v)))
		return false;
	/* The first local object at or after @addr; its neighbours on both sides. */
	_Static_assert(offsetof(struct local_obj, addr) == 0, "the key leads");
	lo = kmp_first_key(ix->objs, sizeof(*ix->objs), 0, ix->nobjs, addr, false);
	for (size_t d = 0; d < 2 * NEIGHBOURS; d++) {
		/* lo, lo-1, lo+1, lo-2, ...: nearest first */
		size_t i = d % 2 ? lo - 1 - d / 2 : lo + d / 2;
		uint32_t g;
		bool seen = false;
		Dwarf_Die cu;

		if (i >= ix->nobjs)
			continue;
		g = ix->objs[i].group;
		for (size_t t = 0; t < ntried; t++)
			seen |= tried[t] == g;
		if (seen || !ix->group_func[g])
			continue;
		tried[ntried++] = g;
		if (kmp_dwarf_cu_at(v, ix->group_func[g], &cu) && cu_variable(&cu, sym, type))
			return true;
	}
	return false;
}

struct kmp_funcs {
	uint64_t *start;
	size_t n;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

bool kmp_vmlinux_is_func(struct kmp_vmlinux *v, struct kmp_funcs **idx, uint64_t addr)
{
	struct kmp_funcs *f = *idx;
	size_t lo;

	if (!f) {
		struct kmp_symtab t = { 0 };
		size_t n;

		if (v->ks)
			n = v->ks->n;
		else if (kmp_vmlinux_symtab(v, &t))
			n = t.n;
		else
			return false;
		if (!(f = calloc(1, sizeof(*f))))
			return false;
		f->start = malloc((n ? n : 1) * sizeof(*f->start));
		if (!f->start) {
			free(f);
			return false;
		}
		for (size_t k = 0; k < n; k++) {
			if (v->ks && ELF64_ST_TYPE(kmp_kallsyms_info(v->ks, k)) == STT_FUNC)
				f->start[f->n++] = kmp_kallsyms_addr(v->ks, k);
			else if (!v->ks && ELF64_ST_TYPE(t.syms[k].st_info) == STT_FUNC &&
				 t.syms[k].st_shndx != SHN_UNDEF)
				f->start[f->n++] = t.syms[k].st_value;
		}
		qsort(f->start, f->n, sizeof(*f->start), cmp_u64);
		*idx = f;
	}
	lo = kmp_first_key(f->start, sizeof(*f->start), 0, f->n, addr, false);
	return lo < f->n && f->start[lo] == addr;
}

void kmp_vmlinux_funcs_free(struct kmp_funcs *f)
{
	if (f)
		free(f->start);
	free(f);
}

/* The first of @n sorted answers whose address is at least @v. */
static size_t first_at(const struct kmp_addrsym *a, size_t n, uint64_t v)
{
	_Static_assert(offsetof(struct kmp_addrsym, addr) == 0, "the key leads");
	return kmp_first_key(a, sizeof(*a), 0, n, v, false);
}

struct best {
	Elf64_Sym sized, unsized;
	bool have_sized, have_unsized;
};

/* Symbol @sym as a candidate for every address it can answer (vmsyms' rule). */
static void consider(const Elf64_Sym *sym, const struct kmp_addrsym *a, size_t n, struct best *b)
{
	int type = ELF64_ST_TYPE(sym->st_info);
	size_t j = first_at(a, n, sym->st_value);

	if (sym->st_shndx == SHN_UNDEF || !sym->st_name ||
	    (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE))
		return;
	if (sym->st_size) {
		for (; j < n && a[j].addr - sym->st_value < sym->st_size; j++)
			if (!b[j].have_sized || better(sym, &b[j].sized)) {
				b[j].sized = *sym;
				b[j].have_sized = true;
			}
		return;
	}
	/*
	 * Unsized: the answer for an address is the highest one at or below
	 * it, so once an address has one at or above this symbol, every
	 * later address has too.
	 */
	for (; j < n; j++) {
		if (b[j].have_unsized && b[j].unsized.st_value >= sym->st_value)
			break;
		b[j].unsized = *sym;
		b[j].have_unsized = true;
	}
}

/* Name at @off of the file's string table into @out. */
static void name_at(const struct kmp_symfile *f, uint64_t off, char *out, size_t len)
{
	ssize_t r;

	out[0] = '\0';
	if (off >= f->strsize)
		return;
	r = pread(f->fd, out, len - 1, (off_t)(f->stroff + off));
	out[r > 0 ? (size_t)r : 0] = '\0';
}

void kmp_vmlinux_addrsyms(struct kmp_vmlinux *v, struct kmp_addrsym *a, size_t n)
{
	struct best *b = calloc(n ? n : 1, sizeof(*b));
	struct kmp_symfile f = { .fd = -1 };
	Elf64_Sym buf[2730];	/* 64 KiB */

	for (size_t i = 0; i < n; i++)
		a[i].found = false;
	if (!b || !n)
		goto out;
	if (v->ks) {	/* in address order: a binary search each */
		for (size_t i = 0; i < n; i++)
			a[i].found = kmp_kallsyms_addrsym(v->ks, a[i].addr, a[i].name,
							  sizeof(a[i].name), &a[i].start,
							  &a[i].size);
		goto out;
	} else if (kmp_vmlinux_symfile(v, &f)) {
		for (uint64_t k = 0; k < f.nsyms;) {
			uint64_t m = f.nsyms - k < 2730 ? f.nsyms - k : 2730;
			ssize_t r = pread(f.fd, buf, m * sizeof(*buf), (off_t)(f.symoff + k * sizeof(*buf)));

			if (r != (ssize_t)(m * sizeof(*buf)))
				break;
			for (uint64_t i = 0; i < m; i++)
				consider(&buf[i], a, n, b);
			k += m;
		}
	} else {
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const Elf64_Sym *s = b[i].have_sized ? &b[i].sized :
				     b[i].have_unsized ? &b[i].unsized : NULL;

		if (!s)
			continue;
		name_at(&f, s->st_name, a[i].name, sizeof(a[i].name));
		a[i].start = s->st_value;
		a[i].size = s->st_size;
		a[i].found = a[i].name[0] != '\0';
	}
out:
	free(b);
}
