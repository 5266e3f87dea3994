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
#include "symscan.h"

struct kmp_dwarf_units;	/* dwarfunit.h */

/*
 * Where symbols come from besides the file: the crash extension asks
 * crash (issue 11).  lookup() gives a symbol's link-time address.
 */
struct kmp_symbol_source {
	bool (*lookup)(void *arg, const char *name, uint64_t *addr);
	void *arg;
	const char *what;	/* "crash" */
};

/* The raw .symtab and its string table, mapped (valid while the vmlinux is open). */
struct kmp_symtab {
	const Elf64_Sym *syms;
	size_t n;
	const char *str;
	size_t strsize;		/* str[strsize - 1] is a NUL */
};

struct kmp_vmlinux {
	const struct kmp_symbol_source *symsrc;	/* NULL: the file's .symtab only */
	unsigned long from_source;	/* symbols the source gave */
	unsigned long disagree;		/* ... at another address than the file's */
	int fd;
	Elf *elf;
	Dwarf *dwarf;
	/*
	 * What is learnt of @dwarf, kept with it (not by the process: two
	 * vmlinux files open at once keep theirs apart): the handles over
	 * single units (dwarfunit.h), and how far libdw has been walked
	 * through the unit headers (dwarfutil.c).
	 */
	struct kmp_dwarf_units *units;
	Dwarf_Off interned_to;
	char path[4096];
	char build_id[129];	/* hex, "" if none */
	struct kmp_known {
		struct kmp_sym sym;	/* symscan.h */
		bool resolved;		/* looked for (sym.found says whether it is there) */
	} *known;			/* every name asked for or expected */
	size_t nknown, capknown;
	/*
	 * No vmlinux file (vmdump.c): the symbols are the kernel's kallsyms and
	 * the types its BTF, both read from @mem; "file contents" are memory
	 * at link-time address + @kaslr.  NULL with a vmlinux.
	 */
	struct kmp_kallsyms *ks;
	struct kmp_btf *btf;
	struct kmp_mem *mem;
	uint64_t kaslr;
	/*
	 * The dump cache (dumpcache.h): the entry in use (@ks's arrays are
	 * in its mapping), what became of it ("hit", "written", "off", why
	 * not) and its file.
	 */
	struct kmp_dcache *dcache;
	const char *cache_state;
	char cache_path[4096];
	/*
	 * The BTF look-ups' answers kept beside the entry (btfmemo.h): those
	 * read from its memo file, and any this run adds, written back at
	 * kmp_vmlinux_close() for the entry of @nonce.  @btf_start, @btf_stop:
	 * where the BTF lies in memory, should the entry's copy not check out
	 * when a question needs it parsed.
	 */
	struct kmp_btf_memo *memo;
	uint64_t nonce;
	uint64_t btf_start, btf_stop;
};

/*
 * The symbols and types of the kernel in @mem from its own kallsyms and
 * BTF (vmdump.c), in place of a vmlinux: @vmcoreinfo gives the tables'
 * addresses, @kaslr the offset.  False with @err (kind vmlinux when the
 * kernel lacks them: no kallsyms in VMCOREINFO, no BTF; format when they
 * are damaged).  The dump cache's entry for the dump is used if there is
 * one, and written when there is none and @store.  Closed with
 * kmp_vmlinux_close().
 */
bool kmp_vmlinux_open_dump(struct kmp_vmlinux *v, struct kmp_mem *mem, const char *vmcoreinfo,
			   uint64_t kaslr, bool store, struct kmp_err *err);
/*
 * The unit of type look-ups (dwarfutil.h) that holds the code at
 * link-time @addr: a DWARF unit (kmp_dwarf_cu()), or with BTF the whole
 * BTF.  @suffix, @no_aranges, @via_aranges as for kmp_dwarf_cu().
 */
bool kmp_vmlinux_cu(struct kmp_vmlinux *v, uint64_t addr, const char *suffix, bool no_aranges,
		    Dwarf_Die *cu, bool *via_aranges);
/* Where the types come from, for headers and `info`: "DWARF" or "BTF from the dump". */
const char *kmp_vmlinux_types(const struct kmp_vmlinux *v);

/*
 * The mapped tables, for the searches by address (vmsyms.h); a search by
 * name reads them instead (kmp_vmlinux_symbols()).
 */
bool kmp_vmlinux_symtab(struct kmp_vmlinux *v, struct kmp_symtab *t);
/* Where .symtab and its string table are in the file (false: none usable). */
bool kmp_vmlinux_symfile(struct kmp_vmlinux *v, struct kmp_symfile *f);
/* A symbol's name; "" if its offset is out of the string table. */
const char *kmp_symtab_name(const struct kmp_symtab *t, const Elf64_Sym *s);

/*
 * Give back the pages of the mapped file that reading has made resident
 * (they are read again from the page cache when touched): the peak
 * memory of a run is then that of its largest step, not their sum.
 */
void kmp_elf_release(Elf *elf);

bool kmp_vmlinux_open(struct kmp_vmlinux *v, const char *path,
		      struct kmp_err *err);
void kmp_vmlinux_close(struct kmp_vmlinux *v);
/*
 * Write the BTF look-ups' answers this run added beside the dump cache's
 * entry (kmp_vmlinux_close() does; nothing without new answers).
 */
void kmp_vmlinux_keep_answers(struct kmp_vmlinux *v);
/*
 * On a dump cache's hit, whether the BTF has been parsed so far (", BTF
 * parsed") or every question was answered from the kept answers (", BTF
 * not parsed: its answers kept"); "" otherwise.
 */
const char *kmp_vmlinux_btf_state(const struct kmp_vmlinux *v);
/*
 * Look up @n symbols by name.  Each name is looked for once a run: a
 * name not yet known is found in one read of .strtab and .symtab
 * (symscan.h), together with every other name not yet looked for,
 * expected ones included.
 */
void kmp_vmlinux_symbols(struct kmp_vmlinux *v, struct kmp_sym *syms,
			 size_t n);
/*
 * Names that later steps of the run will look up: the first look-up
 * finds them in the same read.  @names must outlive @v.
 */
void kmp_vmlinux_expect(struct kmp_vmlinux *v, const char *const *names, size_t n);
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
