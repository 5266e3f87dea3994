/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the loaded modules, read from kernel memory (the `modules`
 * list), with their symbols from their own kallsyms tables in memory, so
 * that no module file is needed to name module code and data.
 */
#ifndef KMP_MODULES_H
#define KMP_MODULES_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"
#include "mem.h"

#define KMP_MODNAME_MAX 64

/* The kinds of module memory kmempool reads (enum mod_mem_type's order). */
enum { KMP_MOD_TEXT, KMP_MOD_DATA, KMP_MOD_RODATA, KMP_MOD_RO_AFTER_INIT, KMP_MOD_N };

/* Offsets in struct module, struct mod_kallsyms and Elf64_Sym, from DWARF. */
struct kmp_modlayout {
	struct kmp_field list, name, kallsyms;
	/*
	 * To 6.3 a module's core is one allocation, struct module's
	 * core_layout: text, rodata, ro_after_init, then data.  From 6.4 each
	 * kind is an allocation of its own, mem[MOD_TEXT], mem[MOD_DATA]...:
	 * mem_base/mem_size are then the members of mem[] at the index
	 * enum mod_mem_type gives each kind.
	 */
	bool per_kind;
	struct kmp_field base, size, text_size, ro_after_init_size;
	struct kmp_field mem_base[KMP_MOD_N], mem_size[KMP_MOD_N];
	struct kmp_field ks_symtab, ks_num, ks_strtab;
	uint64_t sym_size;
	struct kmp_field st_name, st_info, st_value, st_size;
	bool ok;
};

struct kmp_modregion {
	uint64_t start, size;		/* runtime */
};

struct kmp_module {
	uint64_t addr;			/* struct module */
	char name[KMP_MODNAME_MAX];
	struct kmp_modregion text;	/* its code */
	struct kmp_modregion data;	/* writable data and bss: where a module keeps pools */
	struct kmp_modregion reg[KMP_MOD_N];	/* every core region (text .. data) */
	size_t nreg;
	uint64_t symtab, num_symtab, strtab;		/* kallsyms in memory */
	/*
	 * Its function and object symbols sorted by address, read the first
	 * time one is looked up by address (kmp_module_symbol()), which then
	 * costs a binary search instead of a pass over the whole table.
	 */
	struct kmp_modsyms *syms;
};

/* A core region of module v[mod]: [start, end). */
struct kmp_modspan {
	uint64_t start, end;
	size_t mod;
};

struct kmp_modules {
	struct kmp_module *v;
	size_t n;
	bool complete;
	char why[256];			/* when not complete */
	/*
	 * Every non-empty core region, sorted by address, for kmp_module_at()
	 * (the scan asks it for every word that might be a function pointer);
	 * NULL when the regions overlap or wrap (a damaged list: then v[] is
	 * searched in order, as before there was an index) or if not built.
	 */
	struct kmp_modspan *spans;
	size_t nspans;
};

struct kmp_limits_mods {
	uint64_t max_modules;
	uint64_t max_module_syms;
};

/* Read the module list at @head (runtime address of `modules`). */
void kmp_modules_read(struct kmp_mem *mem, const struct kmp_layout *l,
		      const struct kmp_modlayout *ml, uint64_t head,
		      const struct kmp_limits_mods *lim, struct kmp_modules *out);
void kmp_modules_free(struct kmp_modules *m);

/* Does @r hold @addr? */
static inline bool kmp_modregion_has(const struct kmp_modregion *r, uint64_t addr)
{
	return addr >= r->start && addr - r->start < r->size;
}

/*
 * The module one of whose core regions holds @addr, or NULL; the first
 * such in list order, as a search of v[] would find.
 */
const struct kmp_module *kmp_module_at(const struct kmp_modules *m, uint64_t addr);
/* Build m->spans from m->v (modindex.c); none when out of memory. */
void kmp_modules_index(struct kmp_modules *m);

/*
 * The module symbol (function or object) at or before @addr, from the
 * module's kallsyms in memory: its name into @name, its start into @start
 * and its size into @size.  False if none or unreadable.
 */
bool kmp_module_symbol(struct kmp_mem *mem, const struct kmp_modlayout *ml,
		       const struct kmp_module *mod, uint64_t addr, uint64_t max_syms,
		       char *name, size_t len, uint64_t *start, uint64_t *size);

/* Room for @m's index of symbols (before kmp_module_symbol()); false: out of memory. */
bool kmp_module_syms_init(struct kmp_module *m);
/* Free it (kmp_modules_free() does, for each module of a list). */
void kmp_module_syms_free(struct kmp_module *m);

/* The address of module symbol @sym in @mod, 0 if none. */
uint64_t kmp_module_lookup(struct kmp_mem *mem, const struct kmp_modlayout *ml,
			   const struct kmp_module *mod, const char *sym, uint64_t max_syms);

#endif
