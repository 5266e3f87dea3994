// SPDX-License-Identifier: GPL-2.0
/* kmempool: loaded modules and their symbols, from kernel memory. */
#include <ctype.h>
#include <inttypes.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsearch.h"
#include "field.h"
#include "layout_check.h"
#include "modules.h"
#include "walk.h"

#define STT_OBJECT_ 1
#define STT_FUNC_ 2


struct mods_arg {
	struct kmp_mem *mem;
	const struct kmp_modlayout *ml;
	struct kmp_modules *out;
	unsigned char *buf;
	uint64_t size;
	size_t cap;
};

static bool printable_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s))
			return false;
	return true;
}

/* A region of the address space: not empty, not wrapping. */
static bool region_ok(const struct kmp_modregion *r)
{
	return r->size && r->size <= (1ULL << 32) && r->start + r->size > r->start;
}

/* Field @f of the struct module in @buf (@len bytes); 0 if refused (kmp_modules_read() checked). */
struct kmp_modsym {
	uint64_t value, size, name;
	size_t order;			/* in the module's table */
};

struct kmp_modsyms {
	struct kmp_modsym *v;
	size_t n, cap;
	bool read, nomem;
};

static uint64_t mod_field(const unsigned char *buf, size_t len, const struct kmp_field *f)
{
	struct kmp_err e;
	uint64_t v;

	return kmp_field_get(buf, len, f, &v, &e) ? v : 0;
}

/* The module's text, data and every region, from struct module in @buf (@len bytes). */
static bool mod_regions(const unsigned char *buf, size_t len, const struct kmp_modlayout *ml,
			struct kmp_module *m)
{
	if (!ml->per_kind) {
		uint64_t base = mod_field(buf, len, &ml->base), size = mod_field(buf, len, &ml->size);
		uint64_t text = mod_field(buf, len, &ml->text_size);
		uint64_t rw = mod_field(buf, len, &ml->ro_after_init_size);

		m->reg[0] = (struct kmp_modregion){ base, size };
		m->nreg = 1;
		m->text = (struct kmp_modregion){ base, text };
		m->data = (struct kmp_modregion){ base + rw, size - rw };
		return region_ok(&m->reg[0]) && text <= size && rw <= size;
	}
	for (int i = 0; i < KMP_MOD_N; i++) {
		struct kmp_modregion r = { mod_field(buf, len, &ml->mem_base[i]),
					   mod_field(buf, len, &ml->mem_size[i]) };

		if (!r.start && !r.size)
			continue;	/* a kind the module has none of */
		if (!region_ok(&r))
			return false;
		for (size_t j = 0; j < m->nreg; j++)
			if (r.start < m->reg[j].start + m->reg[j].size &&
			    m->reg[j].start < r.start + r.size)
				return false;	/* regions overlap */
		if (i == KMP_MOD_TEXT)
			m->text = r;
		else if (i == KMP_MOD_DATA)
			m->data = r;
		m->reg[m->nreg++] = r;
	}
	return m->text.size > 0;
}

/* The symbol table of the module whose mod_kallsyms is at @ks (none if it does not read). */
static void mod_symtab(struct kmp_mem *mem, const struct kmp_modlayout *ml, uint64_t ks,
		       struct kmp_module *m)
{
	const struct kmp_field *const fs[] = { &ml->ks_symtab, &ml->ks_num, &ml->ks_strtab };
	unsigned char kb[64];
	uint64_t need = 0;
	struct kmp_err why;

	for (size_t i = 0; i < 3; i++)
		if (fs[i]->off <= sizeof(kb) && fs[i]->size <= sizeof(kb) - fs[i]->off &&
		    fs[i]->off + fs[i]->size > need)
			need = fs[i]->off + fs[i]->size;
	if (!kmp_fields_fit(fs, 3, need, &why) || !kmp_read(mem, ks, kb, need, &why))
		return;
	m->symtab = mod_field(kb, need, &ml->ks_symtab);
	m->num_symtab = mod_field(kb, need, &ml->ks_num);
	m->strtab = mod_field(kb, need, &ml->ks_strtab);
}

static bool mod_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	struct mods_arg *a = arg;
	const struct kmp_modlayout *ml = a->ml;
	uint64_t addr = node - ml->list.off, ks;
	const unsigned char *name;
	struct kmp_module *m;
	struct kmp_err why;
	size_t nlen;

	if (a->out->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;
		struct kmp_module *v = realloc(a->out->v, cap * sizeof(*v));

		if (!v) {
			kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
			return false;
		}
		a->out->v = v;
		a->cap = cap;
	}
	if (!kmp_read(a->mem, addr, a->buf, a->size, &why)) {
		kmp_wraperr(err, &why, "struct module at 0x%" PRIx64 ": %s", addr, why.msg);
		return false;
	}
	m = &a->out->v[a->out->n];
	memset(m, 0, sizeof(*m));
	m->addr = addr;
	name = kmp_field_bytes(a->buf, a->size, &ml->name, &why);
	if (!name) {
		kmp_wraperr(err, &why, "struct module at 0x%" PRIx64 ": %s", addr, why.msg);
		return false;
	}
	nlen = ml->name.size < sizeof(m->name) ? ml->name.size : sizeof(m->name) - 1;
	memcpy(m->name, name, nlen);
	m->name[nlen] = '\0';
	if (strnlen(m->name, nlen) == nlen || !printable_name(m->name)) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "struct module at 0x%" PRIx64 " has no valid name", addr);
		return false;
	}
	if (!mod_regions(a->buf, a->size, ml, m)) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "module %s at 0x%" PRIx64 ": inconsistent layout", m->name, addr);
		return false;
	}
	ks = mod_field(a->buf, a->size, &ml->kallsyms);
	if (ks)
		mod_symtab(a->mem, ml, ks, m);
	/* Last: a module refused above is not counted, and nothing of it must be left allocated. */
	if (!kmp_module_syms_init(m)) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	a->out->n++;
	return true;
}

void kmp_modules_read(struct kmp_mem *mem, const struct kmp_layout *l,
		      const struct kmp_modlayout *ml, uint64_t head,
		      const struct kmp_limits_mods *lim, struct kmp_modules *out)
{
	struct mods_arg a = { mem, ml, out, NULL, 0, 0 };
	struct kmp_err why = { 0 };
	uint64_t last;

	memset(out, 0, sizeof(*out));
	if (!ml->ok || !head) {
		snprintf(out->why, sizeof(out->why), "no module layout or module list in "
			 "the debug info");
		return;
	}
	/* Enough of struct module for every field used. */
	const struct kmp_field *fs[4 + 2 * KMP_MOD_N] = { &ml->list, &ml->name, &ml->kallsyms };
	size_t nfs = 3;

	if (ml->per_kind) {
		for (int i = 0; i < KMP_MOD_N; i++) {
			fs[nfs++] = &ml->mem_base[i];
			fs[nfs++] = &ml->mem_size[i];
		}
	} else {
		fs[nfs++] = &ml->base;
		fs[nfs++] = &ml->size;
		fs[nfs++] = &ml->text_size;
		fs[nfs++] = &ml->ro_after_init_size;
	}
	for (size_t i = 0; i < nfs; i++) {
		/* The bound of every struct read from a dump (layout_check.h). */
		if (fs[i]->off > KMP_MAX_STRUCT || fs[i]->size > KMP_MAX_STRUCT - fs[i]->off) {
			snprintf(out->why, sizeof(out->why), "struct module: a field past %d bytes "
				 "(64 KiB, the bound of every struct read): a damaged vmlinux?",
				 KMP_MAX_STRUCT);
			return;
		}
		if (fs[i]->off + fs[i]->size > a.size)
			a.size = fs[i]->off + fs[i]->size;
	}
	/* The integers (all but list and name) as the accessor reads them. */
	if (!kmp_fields_fit(fs + 2, nfs - 2, a.size, &why)) {
		snprintf(out->why, sizeof(out->why), "struct module: %.200s", why.msg);
		return;
	}
	a.buf = malloc(a.size);
	if (!a.buf) {
		snprintf(out->why, sizeof(out->why), "out of memory");
		return;
	}
	if (kmp_list_walk(mem, l, head, lim->max_modules, mod_visit, &a, &last, &why) ==
	    KMP_WALK_DONE)
		out->complete = true;
	else
		snprintf(out->why, sizeof(out->why), "module list: %.200s", why.msg);
	free(a.buf);
	kmp_modules_index(out);
}

void kmp_modules_free(struct kmp_modules *m)
{
	for (size_t i = 0; m->v && i < m->n; i++)
		kmp_module_syms_free(&m->v[i]);
	free(m->v);
	free(m->spans);
	memset(m, 0, sizeof(*m));
}

/* Call @fn for each function or object symbol of @mod; stop when it returns true. */
typedef bool (*sym_fn)(uint64_t value, uint64_t size, uint64_t name, void *arg);

static bool each_symbol(struct kmp_mem *mem, const struct kmp_modlayout *ml,
			const struct kmp_module *mod, uint64_t max_syms, sym_fn fn, void *arg)
{
	uint64_t n = mod->num_symtab, chunk = 256;
	unsigned char *buf;
	struct kmp_err why;

	if (!mod->symtab || !n || n > max_syms || ml->sym_size == 0 || ml->sym_size > 64)
		return false;
	buf = malloc(chunk * ml->sym_size);
	if (!buf)
		return false;
	for (uint64_t i = 0; i < n; i += chunk) {
		uint64_t k = n - i < chunk ? n - i : chunk;

		if (!kmp_read(mem, mod->symtab + i * ml->sym_size, buf, k * ml->sym_size, &why))
			break;
		for (uint64_t j = 0; j < k; j++) {
			const unsigned char *s = buf + j * ml->sym_size;
			size_t len = ml->sym_size;
			uint64_t type = mod_field(s, len, &ml->st_info) & 0xf;

			if (type != STT_FUNC_ && type != STT_OBJECT_)
				continue;
			if (fn(mod_field(s, len, &ml->st_value), mod_field(s, len, &ml->st_size),
			       mod_field(s, len, &ml->st_name), arg)) {
				free(buf);
				return true;
			}
		}
	}
	free(buf);
	return false;
}

bool kmp_module_syms_init(struct kmp_module *m)
{
	m->syms = calloc(1, sizeof(*m->syms));
	return m->syms;
}

void kmp_module_syms_free(struct kmp_module *m)
{
	if (m->syms)
		free(m->syms->v);
	free(m->syms);
	m->syms = NULL;
}

/* The index is made once, by whichever thread asks first. */
static pthread_mutex_t syms_lock = PTHREAD_MUTEX_INITIALIZER;

static bool add_sym(uint64_t value, uint64_t size, uint64_t name, void *arg)
{
	struct kmp_modsyms *s = arg;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct kmp_modsym *v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			s->nomem = true;
			return true;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n] = (struct kmp_modsym){ value, size, name, s->n };
	s->n++;
	return false;
}

/*
 * By address, then size; among symbols at the same address with the same
 * size, the one first in the table last: the last entry at or below an
 * address is the answer a pass over the table gives (the highest address,
 * then the largest size, then the first seen).
 */
static int cmp_sym(const void *a, const void *b)
{
	const struct kmp_modsym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->order > y->order ? -1 : x->order < y->order;
}

/* @mod's index, made now if it is not yet; NULL when out of memory. */
static const struct kmp_modsyms *mod_syms(struct kmp_mem *mem, const struct kmp_modlayout *ml,
					  const struct kmp_module *mod, uint64_t max_syms)
{
	struct kmp_modsyms *s = mod->syms;

	if (!s)
		return NULL;
	pthread_mutex_lock(&syms_lock);
	if (!s->read) {
		each_symbol(mem, ml, mod, max_syms, add_sym, s);
		if (s->n > 1)
			qsort(s->v, s->n, sizeof(*s->v), cmp_sym);
		s->read = true;
	}
	pthread_mutex_unlock(&syms_lock);
	return s->nomem ? NULL : s;
}

bool kmp_module_symbol(struct kmp_mem *mem, const struct kmp_modlayout *ml,
		       const struct kmp_module *mod, uint64_t addr, uint64_t max_syms,
		       char *name, size_t len, uint64_t *start, uint64_t *size)
{
	const struct kmp_modsyms *s = mod_syms(mem, ml, mod, max_syms);
	const struct kmp_modsym *best;
	size_t lo;
	struct kmp_err why;

	if (!s || !mod->strtab)
		return false;
	/* The last symbol at or below @addr. */
	_Static_assert(offsetof(struct kmp_modsym, value) == 0, "the key leads");
	lo = kmp_first_key(s->v, sizeof(*s->v), 0, s->n, addr, true);
	if (!lo)
		return false;
	best = &s->v[lo - 1];
	/* A symbol with a size must cover the address. */
	if (best->size && addr - best->value >= best->size)
		return false;
	if (!kmp_read_string(mem, mod->strtab + best->name, name, len, &why) ||
	    !printable_name(name))
		return false;
	*start = best->value;
	*size = best->size;
	return true;
}

struct lookup_arg {
	struct kmp_mem *mem;
	const struct kmp_module *mod;
	const char *want;
	uint64_t value;
};

static bool lookup_fn(uint64_t value, uint64_t size, uint64_t name, void *arg)
{
	struct lookup_arg *a = arg;
	char buf[KMP_MODNAME_MAX * 2];
	struct kmp_err why;

	(void)size;
	if (kmp_read_string(a->mem, a->mod->strtab + name, buf, sizeof(buf), &why) &&
	    !strcmp(buf, a->want)) {
		a->value = value;
		return true;
	}
	return false;
}

uint64_t kmp_module_lookup(struct kmp_mem *mem, const struct kmp_modlayout *ml,
			   const struct kmp_module *mod, const char *sym, uint64_t max_syms)
{
	struct lookup_arg a = { mem, mod, sym, 0 };

	if (!mod->strtab)
		return 0;
	each_symbol(mem, ml, mod, max_syms, lookup_fn, &a);
	return a.value;
}
