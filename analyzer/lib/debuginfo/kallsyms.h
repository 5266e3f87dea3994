/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the kernel's own symbol table (kallsyms), decoded from kernel
 * memory at the addresses VMCOREINFO gives since Linux 6.0
 * (SYMBOL(kallsyms_names), kallsyms_num_syms, kallsyms_token_table,
 * kallsyms_token_index, kallsyms_offsets and, to 6.x,
 * kallsyms_relative_base).  The table is kept as the kernel keeps it:
 * names compressed (a name is expanded when it is asked for, and hashed
 * and compared token by token), beside each symbol's link-time address,
 * in address order.  kallsyms has no sizes: a symbol's size is the
 * distance to the next higher address (as the kernel's own
 * kallsyms_lookup_size_offset() answers), its type the kernel's type
 * letter (t/T: a function), as an ELF type and binding.
 */
#ifndef KMP_KALLSYMS_H
#define KMP_KALLSYMS_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "kmp.h"
#include "mem.h"
#include "symscan.h"

/* Bounds on what the dump may claim. */
#define KMP_KALLSYMS_MAX_SYMS (1u << 21)		/* 2 Mi symbols (6.12: ~190 Ki) */
#define KMP_KALLSYMS_MAX_NAMES (64u << 20)		/* compressed names, bytes */
#define KMP_KALLSYMS_NAME_MAX 512			/* KSYM_NAME_LEN is 512 since 6.1 */

struct kmp_kallsyms_tokens;

struct kmp_kallsyms {
	size_t n;		/* symbols (per-CPU offsets left out) */
	/*
	 * Link-time addresses, ascending, as offsets from @base: a kernel's
	 * symbols lie within 4 GiB (kallsyms_offsets are 32 bits; x86-64's
	 * image is at most 1 GiB); a table whose do not is refused.
	 */
	uint32_t *off;
	uint64_t base;
	uint32_t *pos;		/* each one's entry in @names: its length, its tokens */
	uint32_t *hash;		/* each name's hash, until the index by name is built */
	uint8_t *names;		/* kallsyms_names as far as the entries go */
	size_t names_len;
	char *ttab;		/* kallsyms_token_table */
	size_t ttab_len;
	struct kmp_kallsyms_tokens *tok;	/* each token's place and length, checked */
	uint32_t *byname;	/* open-addressed index by name hash (kallsyms.c), 0: free */
	size_t nbyname;		/* a power of two, at least 4/3 of n */
	bool relative_base;	/* 6.x: offsets from kallsyms_relative_base */
	bool abs_percpu;	/* ... with per-CPU symbols as absolute values */
	uint16_t tidx[256];	/* kallsyms_token_index, as read */
	/* @off, @pos, @names, @ttab and @byname are a caller's (kmp_kallsyms_adopt()) */
	bool borrowed;
};

/*
 * The VMCOREINFO symbol @name (SYMBOL(@name)=hex) of @vmcoreinfo, a
 * runtime address.  False if the line is absent or not a whole hex number.
 */
bool kmp_vmcoreinfo_symbol(const char *vmcoreinfo, const char *name, uint64_t *addr);

/*
 * Decode the kernel's symbol table from @mem.  Addresses are made
 * link-time by subtracting @kaslr; symbols below @kaslr (per-CPU offsets)
 * are left out.  False with @err: KMP_ERR_VMLINUX when VMCOREINFO lacks
 * the tables (a kernel before 6.0), KMP_ERR_CORRUPT when what memory holds
 * cannot be a symbol table (a count, length or token out of bounds, a name
 * that is not printable), or a read's own error.
 */
bool kmp_kallsyms_load(struct kmp_kallsyms *ks, struct kmp_mem *mem, const char *vmcoreinfo,
		       uint64_t kaslr, struct kmp_err *err);
void kmp_kallsyms_free(struct kmp_kallsyms *ks);

/* Symbol @i's name, without its type letter, into @out (cut to @len - 1 characters). */
void kmp_kallsyms_name(const struct kmp_kallsyms *ks, size_t i, char *out, size_t len);
/* Symbol @i's link-time address. */
static inline uint64_t kmp_kallsyms_addr(const struct kmp_kallsyms *ks, size_t i)
{
	return ks->base + ks->off[i];
}
/* Symbol @i's ELF type and binding, from its type letter (t/T: a function). */
unsigned char kmp_kallsyms_info(const struct kmp_kallsyms *ks, size_t i);
/* Symbol @i's size: the distance to the next higher address, 0 for the last. */
uint64_t kmp_kallsyms_size(const struct kmp_kallsyms *ks, size_t i);
/*
 * The symbol at or below link-time @addr (the first in table order of
 * those at the highest such address): its name into @name, its start and
 * size.  False when none is.
 */
bool kmp_kallsyms_addrsym(const struct kmp_kallsyms *ks, uint64_t addr, char *name, size_t len,
			  uint64_t *start, uint64_t *size);

/*
 * Find each of @syms by name: a global symbol of that name, else the
 * lowest-addressed local one; sizes as above.  A pass over the table
 * unless kmp_kallsyms_index() built the index.
 */
void kmp_kallsyms_find(const struct kmp_kallsyms *ks, struct kmp_sym *syms, size_t n);
/*
 * The index by name (without memory for it, or when so many names are
 * alike that building it would take more than 32 probes a symbol, as
 * only a hostile table has, look-ups stay linear).  Built
 * after the BTF is parsed, so that its memory and the BTF's two copies
 * are not needed at the same moment (issue 33's peak RSS).
 */
void kmp_kallsyms_index(struct kmp_kallsyms *ks);

/*
 * A decoded and indexed table as flat arrays (debuginfo/dumpcache.c keeps
 * it in a file across runs), and back.
 */
struct kmp_kallsyms_image {
	uint64_t n, base, names_len, token_len, nbyname;
	bool relative_base, abs_percpu;
	const uint32_t *off, *pos, *byname;
	const uint8_t *names;
	const char *ttab;
	const uint16_t *tidx;	/* [256] */
};
/* @ks as an image (pointing into @ks); false when it has no index by name. */
bool kmp_kallsyms_export(const struct kmp_kallsyms *ks, struct kmp_kallsyms_image *img);
/*
 * @ks from @img, whose arrays it uses in place (they must outlive it;
 * kmp_kallsyms_free() leaves them), after checking all that the look-ups
 * rely on: counts and lengths within bounds, the addresses in order, every
 * entry inside the names and starting with a good token, every index slot
 * naming a symbol and at least a quarter of the slots free.  False with a static reason in *@why.
 */
bool kmp_kallsyms_adopt(struct kmp_kallsyms *ks, const struct kmp_kallsyms_image *img,
			const char **why);

/*
 * The same decoding from tables already in buffers (the fuzz harness and
 * unit tests): @names of @names_len bytes, @token_index[256], @token_table
 * of @token_len bytes, @offsets[@num] and the base (@have_base false: 7.x,
 * each offset relative to its own address, @offsets_addr + 4 * i).
 */
struct kmp_kallsyms_raw {
	const uint8_t *names;
	size_t names_len;
	const uint16_t *token_index;
	const char *token_table;
	size_t token_len;
	const int32_t *offsets;
	uint32_t num;
	uint64_t offsets_addr;
	uint64_t relative_base;
	bool have_base;
};
bool kmp_kallsyms_decode(struct kmp_kallsyms *ks, const struct kmp_kallsyms_raw *raw,
			 uint64_t kaslr, struct kmp_err *err);

/*
 * kmp_kallsyms_load() in steps, so that a caller can look a few names up
 * before the table is decoded (vmdump.c: the BTF's bounds, read while the
 * decoded table is not yet in memory): the tables as the kernel keeps
 * them, read from @mem (the same errors as kmp_kallsyms_load()), then
 * kmp_kallsyms_decode() of @t->raw, then kmp_kallsyms_tables_free().
 */
struct kmp_kallsyms_tables {
	struct kmp_kallsyms_raw raw;
	uint16_t tidx[256];
	char *ttab;
	int32_t *offs;
	uint8_t *names;
};
bool kmp_kallsyms_read(struct kmp_kallsyms_tables *t, struct kmp_mem *mem, const char *vmcoreinfo,
		       struct kmp_err *err);
void kmp_kallsyms_tables_free(struct kmp_kallsyms_tables *t);
/*
 * Each of @syms by name in the raw tables, by the rule of
 * kmp_kallsyms_find() (no sizes: 0), in one pass without decoding them;
 * the number found.  A damaged table is read up to its damage only (the
 * decoder then says what it is).
 */
size_t kmp_kallsyms_raw_find(const struct kmp_kallsyms_raw *r, uint64_t kaslr,
			     struct kmp_sym *syms, size_t n);

#endif
