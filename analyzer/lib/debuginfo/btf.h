/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the kernel's BTF (CONFIG_DEBUG_INFO_BTF), read from memory
 * between __start_BTF and __stop_BTF and parsed with libbpf, as the second
 * back end of the type look-ups of dwarfutil.h.
 *
 * A BTF type travels through those look-ups as a type handle of the same C
 * type as a DWARF DIE (Dwarf_Die, a public struct of libdw): its cu is
 * NULL and its abbrev points at a tag of this file, addr at the struct
 * kmp_btf and padding__ holds the type id.  libdw never sees such a
 * handle: each kmp_dwarf_* look-up asks kmp_btf_of() first.  Id 0 stands
 * for the whole BTF, where kmp_dwarf_scan() finds types (the "unit").
 */
#ifndef KMP_BTF_H
#define KMP_BTF_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "dwarfutil.h"
#include "kmp.h"
#include "mem.h"

/* The most kmempool reads from a dump as BTF (6.12: 4.7 MiB, 7.2: ~6 MiB). */
#define KMP_BTF_MAX (64u << 20)

struct btf;
struct kmp_btf_memo;
struct kmp_btf {
	struct btf *btf;
	const struct kmp_btf *base;	/* a module's split BTF: the kernel's, else NULL */
	uint32_t ntypes;	/* btf__type_cnt(): ids 1 .. ntypes - 1 */
	uint64_t size;		/* bytes of BTF */
	/* named structs and enums by name hash, open addressing, 0: free (NULL: none) */
	uint32_t *byname;
	size_t nbyname;		/* a power of two */
	/*
	 * Named structs by size (then id), built on the first
	 * kmp_btf_pool_member(): a global's candidates are a window of
	 * sizes, not a pass over every type.  NULL until then.
	 */
	struct kmp_btf_sized {
		struct kmp_btf_sized_ent { uint32_t size, id; } *e;
		size_t n;
		bool built;
	} *bysize;
	/*
	 * Answers kept across runs (btfmemo.h, the dump cache's; NULL: none),
	 * this BTF's by @memo_key (0: the kernel's).  While @btf is NULL and
	 * @load set, the parse is deferred: the look-ups answer from @memo,
	 * and the first question it has no answer to parses the BTF
	 * (@load(@b, @load_arg); a module's from its copy in @blob).
	 */
	struct kmp_btf_memo *memo;
	uint32_t memo_key;
	bool (*load)(struct kmp_btf *b, void *arg);
	void *load_arg;
	bool load_failed;
	void *blob;
	size_t blob_len;
	bool blob_pending;	/* a module's blob not in @memo yet (kmp_btf_answer() adds it) */
};

/* Parse @size bytes at @data (copied by libbpf).  False with @err (kind format). */
bool kmp_btf_parse(struct kmp_btf *b, const void *data, uint64_t size, struct kmp_err *err);
/*
 * kmp_btf_parse() with the index by name given (@byname[@nbyname], as a
 * parse of the same bytes built it: the dump cache's), copied after a
 * check that every slot is a type of the BTF or free and some are free;
 * built anew when it is not.
 */
bool kmp_btf_parse_indexed(struct kmp_btf *b, const void *data, uint64_t size,
			   const uint32_t *byname, size_t nbyname, struct kmp_err *err);
/* The blob @b was parsed from (libbpf's copy), its length in *@len; NULL if none. */
const void *kmp_btf_raw(const struct kmp_btf *b, size_t *len);
/* Read [@start, @stop) (runtime addresses) from @mem and parse it. */
bool kmp_btf_load(struct kmp_btf *b, struct kmp_mem *mem, uint64_t start, uint64_t stop,
		  struct kmp_err *err);
void kmp_btf_free(struct kmp_btf *b);
/* Is @b parsed (not deferred: kmp_btf_defer())? */
bool kmp_btf_parsed(const struct kmp_btf *b);

/* The handle of type @id of @b (0: the whole BTF). */
void kmp_btf_handle(const struct kmp_btf *b, uint32_t id, Dwarf_Die *out);
/* The BTF of a handle, NULL for a DWARF DIE. */
const struct kmp_btf *kmp_btf_of(const Dwarf_Die *d);

/* The look-ups of dwarfutil.h on a BTF handle (same contracts). */
void kmp_btf_scan(const Dwarf_Die *all, struct kmp_wanted *w, size_t n);
bool kmp_btf_size(const Dwarf_Die *t, uint64_t *size);
bool kmp_btf_member(const Dwarf_Die *st, const char *name, struct kmp_field *f);
bool kmp_btf_member_type(const Dwarf_Die *st, const char *name, Dwarf_Die *type);
bool kmp_btf_peel(const Dwarf_Die *t, Dwarf_Die *out);
bool kmp_btf_enumerator(const Dwarf_Die *e, const char *name, int64_t *value);
bool kmp_btf_bitfield(const Dwarf_Die *st, const char *name, uint64_t *bit_off, uint64_t *bits);
/* Every enumerator of @e, in order: @fn(arg, name, value); false if @e is no enum. */
bool kmp_btf_enumerators(const Dwarf_Die *e, void (*fn)(void *arg, const char *name,
							int64_t value), void *arg);
/*
 * BTF types no global variables (but per-CPU ones): for a pool at @off in
 * a global of @size bytes, its member path after the global's name
 * (".bio_pool", "[1].pool") when every named struct that fits and holds a
 * struct @pool at exactly that offset gives the same path; false when
 * none does or two disagree (never a guess between two).  @exact: @size is
 * the global's own (a module's symbol table): the struct is that size, or
 * an array of it; else (kallsyms: up to the next symbol) the struct is at
 * most @size and less than 64 bytes below it.
 */
bool kmp_btf_pool_member(const struct kmp_btf *b, uint64_t size, uint64_t off, const char *pool,
			 bool exact, char *path, size_t len);
/*
 * A pool at @off inside a heap object of @osize bytes (its cache's
 * object size): the named structs of @b from id @first on (a module's
 * split BTF: its own types only) that fit the object (size at most
 * @osize, above @off) and hold a struct @pool at exactly @off.  Each such
 * struct is added to @hit unless it is the one already there (the same
 * name and path: md.h's structs are in the BTF of every md module);
 * @hit->n counts the different answers (a second makes it 2: never a
 * guess between two).  At offset 0 the object may be a pool of its own
 * (mempool_create() allocates one bare): that is an answer of its own, so
 * a pool at offset 0 is never named by a struct.  On the first answer,
 * @hit gets the struct's name, the member path (".a.b[2]")
 * and the offset and length of its name member (a char array called
 * "name" or "..._name" at its top level; len 0 if none).
 */
struct kmp_btf_hit {
	unsigned int n;
	const struct kmp_btf *btf;
	uint32_t id;
	char type[128];
	char path[256];
	uint64_t name_off, name_len;
};
void kmp_btf_heap_pool(const struct kmp_btf *b, uint32_t first, uint64_t osize, uint64_t off,
		       const char *pool, struct kmp_btf_hit *hit);
/*
 * The members of struct @id of @b that point at a struct @pool (through
 * typedefs and qualifiers: "mempool_t *r1bio_pool"), in its embedded
 * structs, unions and fixed arrays too: @fn(@arg, offset, path) for each,
 * the path as ".a.b[2]".  Pointers are not followed.  False when @id is no
 * struct or the walk stopped short (more than @max such members, nested too
 * deep, its budget of types spent, or a pointer not inside the struct: a
 * hostile BTF); then @fn saw only some of them.
 */
bool kmp_btf_pool_pointers(const struct kmp_btf *b, uint32_t id, const char *pool,
			   unsigned int max, void (*fn)(void *arg, uint64_t off, const char *path),
			   void *arg);
/*
 * Keep @b's answers in @memo from now on (it must outlive @b): @b is
 * the kernel's BTF, parsed.
 */
void kmp_btf_keep(struct kmp_btf *b, struct kmp_btf_memo *memo);
/*
 * Defer the parse of the kernel's BTF: its answers come from @memo until
 * one is not there, then @load(@b, @arg) parses it (as
 * kmp_btf_parse_indexed() would).  False (nothing done) when @memo holds
 * no kernel BTF's answers (kmp_btf_keep() puts its number of types).
 */
bool kmp_btf_defer(struct kmp_btf *b, struct kmp_btf_memo *memo,
		   bool (*load)(struct kmp_btf *b, void *arg), void *arg);
/*
 * A module's BTF over the kernel's (split BTF).  With the kernel's answers
 * kept (kmp_btf_keep(), kmp_btf_defer()), the module's are kept by its
 * blob; a blob the memo knows is not parsed until a question needs it.
 */
bool kmp_btf_parse_split(struct kmp_btf *b, const void *data, uint64_t size,
			 const struct kmp_btf *base, struct kmp_err *err);
/* The name of the struct, union or enum of a handle ("" if none). */
const char *kmp_btf_name(const Dwarf_Die *t);

#endif
