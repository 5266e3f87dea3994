/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: the vmlinux file: symbols, build ID, file contents, DWARF. */
#ifndef KMP_VMLINUX_H
#define KMP_VMLINUX_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include <libelf.h>

#include "kmp.h"
#include "layout.h"
#include "symindex.h"

/*
 * Where symbols come from besides the file: the crash extension asks
 * crash (issue 11).  lookup() gives a symbol's link-time address.
 */
struct kmp_symbol_source {
	bool (*lookup)(void *arg, const char *name, uint64_t *addr);
	void *arg;
	const char *what;	/* "crash" */
};

struct kmp_vmlinux {
	const struct kmp_symbol_source *symsrc;	/* NULL: the file's .symtab only */
	unsigned long from_source;	/* symbols the source gave */
	unsigned long disagree;		/* ... at another address than the file's */
	int fd;
	Elf *elf;
	Dwarf *dwarf;
	char path[4096];
	char build_id[129];	/* hex, "" if none */
	struct kmp_symindex symidx;	/* symbols by name, built on first use */
};

struct kmp_sym {
	const char *name;
	uint64_t addr;
	uint64_t size;
	bool found;
};

/* The raw .symtab and its string table (struct kmp_symtab: symindex.h). */
bool kmp_vmlinux_symtab(struct kmp_vmlinux *v, struct kmp_symtab *t);

/*
 * Give back the pages of the mapped vmlinux that reading has made
 * resident (they are read again from the page cache when touched): the
 * peak memory of a run is then that of its largest step, not their sum.
 */
void kmp_vmlinux_release(struct kmp_vmlinux *v);
void kmp_elf_release(Elf *elf);

bool kmp_vmlinux_open(struct kmp_vmlinux *v, const char *path,
		      struct kmp_err *err);
void kmp_vmlinux_close(struct kmp_vmlinux *v);
/* Look up all @n symbols in one pass over .symtab. */
void kmp_vmlinux_symbols(struct kmp_vmlinux *v, struct kmp_sym *syms,
			 size_t n);
/* Read bytes at link-time address @addr from the file's sections. */
bool kmp_vmlinux_read(struct kmp_vmlinux *v, uint64_t addr, void *buf,
		      size_t len);
/*
 * Load the layout from the compilation unit that holds the code at
 * @cu_addr (found through .debug_aranges; without them, or with
 * @no_aranges, by scanning the unit headers for mm/mempool.c).
 */
bool kmp_layout_load(struct kmp_vmlinux *v, uint64_t cu_addr, bool no_aranges,
		     struct kmp_layout *l, struct kmp_err *err);

#endif
