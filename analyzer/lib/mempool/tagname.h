/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: series v6 (Linux 7.2) names a pool by the struct mempool_tag
 * its creation macro defined at the call site: the subsystem's name or the
 * function, a kind for one of several pools a helper set up, the module,
 * and file:line.  These strings come from code, not from a rule the kernel
 * enforces, so /proc/mempool prints each escaped (seq_escape() with
 * " \t\n\v\f\r\\": those bytes as a backslash and three octal digits,
 * every other byte as it is).  This file reads a tag from a dump (every
 * pointer and length checked) and escapes its strings the same way.
 */
#ifndef KMP_TAGNAME_H
#define KMP_TAGNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "mem.h"

/* Bound for each string of a tag (a function, file, name or kind); longer: corrupt. */
#define KMP_TAGSTR_MAX 4096
/* Bound for a module name (MODULE_NAME_LEN is 56 on 64-bit); longer: corrupt. */
#define KMP_MODNAME_READ_MAX 64

/* A tag's strings: escaped as /proc/mempool prints them, and raw (for JSON). */
struct kmp_tagnames {
	char *name;		/* escape(name ?: function) [":" escape(kind)]: the first column */
	char *owner;		/* escape(modname), "-" if built in */
	char *site;		/* escape(filename) ":" lineno */
	char *function, *file;	/* raw */
	char *kind;		/* raw, NULL if none */
	uint64_t line;
};

/*
 * Bytes @s escaped like seq_escape(m, s, " \t\n\v\f\r\\"): malloc'ed, NULL
 * when out of memory.
 */
char *kmp_escape_word(const char *s);
/* The same for a malloc'ed @s, which it takes: @s itself when nothing needs escaping. */
char *kmp_escape_word_take(char *s);

/*
 * Read the struct mempool_tag at @tag into @t.  Returns 1 on success; 0
 * if the tag breaks what the kernel guarantees (a NULL function or file,
 * a string without a NUL within its bound), with @why saying which; -1
 * if memory could not be read (@err: the fault) or out of memory.  @t
 * needs kmp_tagnames_free() only after 1.
 */
int kmp_tag_read(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t tag,
		 struct kmp_tagnames *t, char *why, size_t whylen, struct kmp_err *err);
void kmp_tagnames_free(struct kmp_tagnames *t);

/*
 * A tag's strings in one block that the pools of one call site share:
 * counted references, freed with the last.  Not for sharing between
 * threads (the count is a plain integer).
 */
struct kmp_tagstrs {
	size_t refs;
	struct kmp_tagnames t;	/* points into the block; kind NULL if none */
	char data[];
};

/* Another reference to @s; @s itself. */
struct kmp_tagstrs *kmp_tagstrs_get(struct kmp_tagstrs *s);
/* Drop a reference to @s (NULL: nothing); the last one frees it. */
void kmp_tagstrs_put(struct kmp_tagstrs *s);

/*
 * The tags one walk of the list has read, by address: a tag seen again is
 * read as one block of its bytes, and its strings (five reads more) only
 * when those bytes changed.  A walk of live memory reads a tag's bytes
 * afresh for every pool; the strings they point to live in the code that
 * set the pool up (read-only data).  calloc() one, kmp_tagcache_free() it.
 */
#define KMP_TAGCACHE_SLOTS 64
struct kmp_tagcache {
	struct kmp_tagcache_slot {
		uint64_t addr;
		unsigned char *raw;		/* the tag's bytes, NULL: empty */
		struct kmp_tagstrs *s;		/* the cache's reference */
	} slot[KMP_TAGCACHE_SLOTS];
	uint64_t hits;
};

/*
 * kmp_tag_read() through the cache @c (may be NULL: no cache), the strings
 * as a reference in *@out (kmp_tagstrs_put() it) after 1.
 */
int kmp_tag_read_cached(struct kmp_tagcache *c, struct kmp_mem *mem, const struct kmp_layout *l,
			uint64_t tag, struct kmp_tagstrs **out, char *why, size_t whylen,
			struct kmp_err *err);
void kmp_tagcache_free(struct kmp_tagcache *c);
/* Forget every tag @c holds (a walk that starts again from the head reads them anew). */
void kmp_tagcache_reset(struct kmp_tagcache *c);

/*
 * Read the NUL-terminated string at @addr, of any length below @max, into
 * a malloc'ed buffer (*@out, its length in *@len).  Returns KMP_STR_OK,
 * KMP_STR_TOO_LONG (no NUL within @max bytes), KMP_STR_FAULT (@err says
 * which address failed) or KMP_STR_NOMEM (@err set).
 */
enum { KMP_STR_OK, KMP_STR_TOO_LONG, KMP_STR_FAULT, KMP_STR_NOMEM };
int kmp_read_long_string(struct kmp_mem *mem, uint64_t addr, size_t max, char **out,
			 size_t *len, struct kmp_err *err);

#endif
