/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the layout table - every member of every kernel struct the
 * analyzer uses, the size the code expects of it, and the struct it must
 * lie in.  dwarf_layout.c loads the members by this table, and
 * kmp_layout_check() bounds each by it, so what is checked is what is used.
 */
#ifndef KMP_LAYOUT_CHECK_H
#define KMP_LAYOUT_CHECK_H

#include <stddef.h>

#include "kmp.h"
#include "layout.h"

/* Bound for the size of every struct in the table, and so for any offset (64 KiB). */
#define KMP_MAX_STRUCT 65536

enum kmp_struct_id {
	KMP_ST_POOL,		/* struct mempool_s (struct mempool from 7.x on) */
	KMP_ST_LIST_HEAD,
	KMP_ST_WQ_HEAD,		/* struct wait_queue_head */
	KMP_ST_WQ_ENTRY,	/* struct wait_queue_entry */
	KMP_ST_TASK,		/* struct task_struct */
	KMP_ST_SIGNAL,		/* struct signal_struct */
	KMP_ST_WAITER,		/* struct mempool_waiter (the series, format 1.2 and v6) */
	KMP_ST_MTAG,		/* struct mempool_tag (series v6) */
	KMP_ST_CODETAG,		/* struct codetag (series v6) */
	KMP_ST_KMEM_CACHE,	/* struct kmem_cache (series v6: object_size) */
	KMP_ST_N
};

/* The size the code expects of a member. */
enum kmp_want {
	KMP_WANT_ANY,		/* any size above 0 (a struct member, an array) */
	KMP_WANT_INT,		/* an integer: 1, 2, 4 or 8 bytes */
	KMP_WANT_PTR,		/* a pointer: 8 bytes */
	KMP_WANT_LIST,		/* a struct list_head: 16 bytes */
};

struct kmp_member_spec {
	const char *path;	/* the member in DWARF ("thread.sp"); NULL: composed */
	const char *alt;	/* another name for it (older kernels), or NULL */
	size_t at;		/* offsetof(struct kmp_layout, the field) */
	enum kmp_want want;
	const char *name;	/* "mempool_s.elements": the field's name in errors */
};

struct kmp_struct_spec {
	const char *name;	/* "task_struct" */
	size_t size_at;		/* offsetof(struct kmp_layout, its size) */
	const struct kmp_member_spec *m;
	size_t n;
};

/* The table: one entry per struct, indexed by enum kmp_struct_id. */
extern const struct kmp_struct_spec kmp_layout_table[KMP_ST_N];

/* The field of @l that member spec @m describes. */
static inline struct kmp_field *kmp_layout_field(struct kmp_layout *l,
						 const struct kmp_member_spec *m)
{
	return (struct kmp_field *)(void *)((char *)l + m->at);
}

/* The size of struct @s in @l (0: not in the debug info). */
static inline uint64_t *kmp_layout_struct_size(struct kmp_layout *l,
					       const struct kmp_struct_spec *s)
{
	return (uint64_t *)(void *)((char *)l + s->size_at);
}

/*
 * Fill the members of members (layout.h: list_next, lock_byte, wqe_next,
 * ...) from their parts; call again after changing a part.
 */
void kmp_layout_compose(struct kmp_layout *l);

/*
 * Every field of the table that @l has inside its struct (offset plus
 * size at most the struct's DWARF size), of the size the code expects,
 * and every struct's size above 0 and at most KMP_MAX_STRUCT.  False with
 * @err (kind format, naming @path and the field) otherwise.
 */
bool kmp_layout_check(const struct kmp_layout *l, const char *path, struct kmp_err *err);

#endif
