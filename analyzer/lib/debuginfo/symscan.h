/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: named symbols of a vmlinux, found by reading its .strtab and
 * .symtab once each, front to back, through a small buffer.
 *
 * .symtab has no hash section, and a kernel has ~200,000 symbols whose
 * names the linker stores in suffix order: indexing them all (a prefix
 * hash of every name) touched every page of both tables at random and
 * was a fifth of `kmempool waiters`.  A run asks for ~50 names.  So the
 * string table is searched for those names alone (where each ends, at
 * a NUL; a name may be the tail of a longer string), which gives their
 * offsets, and the symbol table for the first defined symbol whose name
 * is at one of them - the answer of a linear search, in 8 MiB of
 * sequential reads into a reused buffer and no mapping of either table.
 */
#ifndef KMP_SYMSCAN_H
#define KMP_SYMSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kmp_sym {
	const char *name;
	uint64_t addr;
	uint64_t size;
	bool found;
};

/* Where the tables are in the file (Elf64_Sym entries of the file's byte order = the host's). */
struct kmp_symfile {
	int fd;
	uint64_t symoff, nsyms;		/* .symtab */
	uint64_t stroff, strsize;	/* its string table */
};

/* Names longer than the kernel's KSYM_NAME_LEN are not looked for. */
#define KMP_SYMNAME_MAX 512

/*
 * Find each of @syms (by name) in @f: the first defined (st_shndx !=
 * SHN_UNDEF), named (st_name != 0) symbol called that, as a linear
 * search of .symtab finds it.  The empty name is never found.  @chunk:
 * the bytes read at a time (0: 64 KiB; tests pass small ones).  False,
 * with nothing found, when a read fails or memory runs out.
 */
bool kmp_symscan(const struct kmp_symfile *f, struct kmp_sym *syms, size_t n, size_t chunk);

#endif
