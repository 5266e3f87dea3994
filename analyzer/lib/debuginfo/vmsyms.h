/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: vmlinux symbols by address. */
#ifndef KMP_VMSYMS_H
#define KMP_VMSYMS_H

#include "vmlinux.h"

/*
 * The function or object symbol of vmlinux that covers link-time address
 * @addr (the nearest one at or below it, within its size when it has
 * one), its name into @name of @len bytes.
 */
bool kmp_vmlinux_addrsym(struct kmp_vmlinux *v, uint64_t addr, char *name, size_t len,
			 uint64_t *start, uint64_t *size);

/* One answer of kmp_vmlinux_addrsyms(). */
struct kmp_addrsym {
	uint64_t addr;		/* asked: link-time */
	uint64_t start, size;
	char name[128];		/* cut at 127 characters */
	bool found;
};

/*
 * kmp_vmlinux_addrsym() for @n addresses at once, @a sorted by addr, in
 * one pass over the symbols: of a vmlinux, .symtab read through a buffer
 * (its pages are not mapped in, as a pass per address would); kallsyms,
 * in address order already, by a binary search each.  The same answers.
 */
void kmp_vmlinux_addrsyms(struct kmp_vmlinux *v, struct kmp_addrsym *a, size_t n);

#endif

/*
 * The DWARF type of vmlinux's global or static variable @sym at link-time
 * address @addr, without indexing all of .debug_info: the ELF symbol table
 * groups local symbols by source file (each group starts with an STT_FILE
 * symbol), so the static objects next to @addr name the files that
 * probably define it; a static function of such a file leads through
 * .debug_aranges to its compilation unit, whose top-level DIEs are
 * searched for @sym.  A few candidate units at most.  @idx caches the
 * index of local objects between calls (free with kmp_vmlinux_varindex_free).
 */
struct kmp_varindex;
bool kmp_vmlinux_variable_type(struct kmp_vmlinux *v, struct kmp_varindex **idx,
			       const char *sym, uint64_t addr, Dwarf_Die *type);
void kmp_vmlinux_varindex_free(struct kmp_varindex *idx);

/*
 * Is link-time @addr the first byte of a vmlinux function?  A sorted
 * table of function starts is built on the first call (@idx caches it;
 * free with kmp_vmlinux_funcs_free).
 */
struct kmp_funcs;
bool kmp_vmlinux_is_func(struct kmp_vmlinux *v, struct kmp_funcs **idx, uint64_t addr);
void kmp_vmlinux_funcs_free(struct kmp_funcs *f);
