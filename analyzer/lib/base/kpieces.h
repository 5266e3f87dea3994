/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the one table of what kernels differ in (issue 33 item 1).
 * Each piece of the kernel the analyzer relies on that kernel versions
 * spell differently has its alternatives here, once: the name the code
 * looks up (a symbol, a struct, a member, an enumerator), how it is shown
 * and the kernels that have it.  The code that chooses between them takes
 * the names from here (the kn_* arrays below are the only spelling), the
 * errors that say none was found list them from here
 * (kmp_piece_list()), layout_probe prints the choice by them, and the
 * README's support table is generated from them (layout_probe --table,
 * compared by make check).
 */
#ifndef KMP_KPIECES_H
#define KMP_KPIECES_H

#include <stdbool.h>
#include <stddef.h>

enum kmp_piece {
	KP_WAITFN,	/* the function a mempool waiter sleeps in (any of them) */
	KP_POOL,	/* the pool's struct */
	KP_TASK_STATE,	/* a task's state */
	KP_THREADS,	/* a process's threads */
	KP_STACK_END,	/* the end of the initial stack: a task stack's size */
	KP_MODMEM,	/* a module's memory */
	KP_VMAP,	/* vmalloc areas */
	KP_SLAB_TEST,	/* how a slab page is told */
	KP_SLAB_CACHE,	/* where a slab's cache is */
	KP_ORDER,	/* a compound page's order */
	KP_HEAD,	/* a tail page's head */
	KP_N
};

/* An alternative: one or more rows of the table with the same piece and alt. */
struct kmp_kalt {
	enum kmp_piece piece;
	unsigned int alt;	/* its number within the piece, from 0 */
	const char *name;	/* what the code looks up: one of the kn_* */
	const char *shown;	/* how the README and the errors show it */
	const char *when;	/* the kernels that have it; NULL: not said */
};

extern const struct kmp_kalt kmp_kalts[];
extern const size_t kmp_nkalts;

/* The title of @p, "where a waiter sleeps". */
const char *kmp_piece_title(enum kmp_piece p);

/* The number of alternatives of @p. */
unsigned int kmp_piece_nalts(enum kmp_piece p);

/*
 * Alternative @a of @p as shown, its names joined by " + ", appended to
 * @buf (NUL-terminated, of @size: never past it), without the README's
 * back quotes unless @md; the kernels that have it, NULL if not said.
 */
const char *kmp_piece_alt(enum kmp_piece p, unsigned int a, bool md, char *buf, size_t size);

/*
 * @p's alternatives as one line, "a (to 6.9); b (6.10 on)", into @buf
 * (truncated to @size); @buf.  @md: with the README's back quotes.
 */
char *kmp_piece_list(enum kmp_piece p, bool md, char *buf, size_t size);

/* The names, spelled once (kpieces.c).  Symbols: */
extern const char kn_mempool_alloc[], kn_mempool_alloc_noprof[], kn_mempool_alloc_from_pool[],
	kn_mempool_alloc_bulk_noprof[], kn_end_init_task[], kn_end_init_stack[],
	kn_vmap_area_list[], kn_vmap_nodes[], kn_nr_vmap_nodes[];
/* Structs, members and enumerators: */
extern const char kn_mempool_s[], kn_mempool[], kn_task_state_new[], kn_task_state_old[],
	kn_thread_group[], kn_thread_head[], kn_thread_node[], kn_core_layout[], kn_mod_mem[],
	kn_mod_mem_type[], kn_busy_head[], kn_pg_slab[], kn_page_type[], kn_page_type_base[],
	kn_pgty_slab[], kn_slab_cache[], kn_compound_order[], kn_flags_1[], kn_compound_head[],
	kn_compound_info[];

#endif
