// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: the layout table and its check.  The DWARF of a damaged or
 * hostile vmlinux can claim any offset and size; the readers copy a struct
 * into a buffer of its size and take fields out of it (through field.h),
 * so every field must lie inside its struct and have the size the code
 * reads.  Each entry below is a member the code uses; there is no other
 * list of them.
 */
#include <inttypes.h>

#include "layout_check.h"
#include "kpieces.h"

#define F(member) offsetof(struct kmp_layout, member)
#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct kmp_member_spec pool[] = {
	/* what every kernel's mempool_t has */
	{ "lock", NULL, F(lock), KMP_WANT_ANY, "mempool_s.lock" },
	{ "min_nr", NULL, F(min_nr), KMP_WANT_INT, "mempool_s.min_nr" },
	{ "curr_nr", NULL, F(curr_nr), KMP_WANT_INT, "mempool_s.curr_nr" },
	{ "elements", NULL, F(elements), KMP_WANT_PTR, "mempool_s.elements" },
	{ "pool_data", NULL, F(pool_data), KMP_WANT_PTR, "mempool_s.pool_data" },
	{ "alloc", NULL, F(alloc), KMP_WANT_PTR, "mempool_s.alloc" },
	{ "free", NULL, F(free), KMP_WANT_PTR, "mempool_s.free" },
	{ "wait", NULL, F(wait), KMP_WANT_ANY, "mempool_s.wait" },
	/* what the series adds */
	{ "list", NULL, F(list), KMP_WANT_LIST, "mempool_s.list" },
	{ "name", NULL, F(name), KMP_WANT_PTR, "mempool_s.name" },
	{ "owner", NULL, F(owner), KMP_WANT_PTR, "mempool_s.owner" },
	{ "elem_size", NULL, F(elem_size), KMP_WANT_INT, "mempool_s.elem_size" },
	{ "type", NULL, F(type), KMP_WANT_INT, "mempool_s.type" },
	{ "low_nr", NULL, F(low_nr), KMP_WANT_INT, "mempool_s.low_nr" },
	{ "nr_reserve", NULL, F(nr_reserve), KMP_WANT_INT, "mempool_s.nr_reserve" },
	{ "nr_wait", NULL, F(nr_wait), KMP_WANT_INT, "mempool_s.nr_wait" },
	{ "nr_fail", NULL, F(nr_fail), KMP_WANT_INT, "mempool_s.nr_fail" },
	{ "nr_empty", NULL, F(nr_empty), KMP_WANT_INT, "mempool_s.nr_empty" },
	{ "instance", NULL, F(instance), KMP_WANT_PTR, "mempool_s.instance" },
	/* series v6: the tag of the code that set the pool up */
	{ "tag", NULL, F(tag), KMP_WANT_PTR, "mempool.tag" },
	/* series v7: the pool's id */
	{ "id", NULL, F(id), KMP_WANT_INT, "mempool.id" },
	/* members of members (kmp_layout_compose()) */
	{ NULL, NULL, F(list_next), KMP_WANT_PTR, "mempool_s.list.next" },
	{ NULL, NULL, F(list_prev), KMP_WANT_PTR, "mempool_s.list.prev" },
	{ NULL, NULL, F(lock_byte), KMP_WANT_INT, "mempool_s.lock's locked byte" },
	{ NULL, NULL, F(wait_head), KMP_WANT_LIST, "mempool_s.wait.head" },
};

static const struct kmp_member_spec list_head[] = {
	{ "next", NULL, F(lh_next), KMP_WANT_PTR, "list_head.next" },
	{ "prev", NULL, F(lh_prev), KMP_WANT_PTR, "list_head.prev" },
};

static const struct kmp_member_spec wq_head[] = {
	{ "head", NULL, F(wqh_head), KMP_WANT_LIST, "wait_queue_head.head" },
};

static const struct kmp_member_spec wq_entry[] = {
	{ "private", NULL, F(wqe_private), KMP_WANT_PTR, "wait_queue_entry.private" },
	{ "entry", NULL, F(wqe_entry), KMP_WANT_LIST, "wait_queue_entry.entry" },
	{ "func", NULL, F(wqe_func), KMP_WANT_PTR, "wait_queue_entry.func" },
	{ NULL, NULL, F(wqe_next), KMP_WANT_PTR, "wait_queue_entry.entry.next" },
	{ NULL, NULL, F(wqe_prev), KMP_WANT_PTR, "wait_queue_entry.entry.prev" },
};

static const struct kmp_member_spec task[] = {
	{ "pid", NULL, F(task_pid), KMP_WANT_INT, "task_struct.pid" },
	{ "comm", NULL, F(task_comm), KMP_WANT_ANY, "task_struct.comm" },
	/* __state; state to 5.13 */
	{ kn_task_state_new, kn_task_state_old, F(task_state), KMP_WANT_INT, "task_struct.__state" },
	{ "tasks", NULL, F(task_tasks), KMP_WANT_LIST, "task_struct.tasks" },
	{ kn_thread_group, NULL, F(task_thread_group), KMP_WANT_LIST, "task_struct.thread_group" },
	{ "stack", NULL, F(task_stack), KMP_WANT_PTR, "task_struct.stack" },
	{ "thread.sp", NULL, F(task_thread_sp), KMP_WANT_PTR, "task_struct.thread.sp" },
	{ "signal", NULL, F(task_signal), KMP_WANT_PTR, "task_struct.signal" },
	{ kn_thread_node, NULL, F(task_thread_node), KMP_WANT_LIST, "task_struct.thread_node" },
};

static const struct kmp_member_spec signal[] = {
	{ kn_thread_head, NULL, F(signal_thread_head), KMP_WANT_LIST, "signal_struct.thread_head" },
};

static const struct kmp_member_spec waiter[] = {
	{ "entry", NULL, F(waiter_entry), KMP_WANT_ANY, "mempool_waiter.entry" },
	{ "since", NULL, F(waiter_since), KMP_WANT_INT, "mempool_waiter.since" },
};

/* Series v6: struct mempool_tag and the struct codetag in it. */
static const struct kmp_member_spec mtag[] = {
	{ "ct", NULL, F(mtag_ct), KMP_WANT_ANY, "mempool_tag.ct" },
	{ "name", NULL, F(mtag_name), KMP_WANT_PTR, "mempool_tag.name" },
	{ "kind", NULL, F(mtag_kind), KMP_WANT_PTR, "mempool_tag.kind" },
	{ NULL, NULL, F(mtag_modname), KMP_WANT_PTR, "mempool_tag.ct.modname" },
	{ NULL, NULL, F(mtag_function), KMP_WANT_PTR, "mempool_tag.ct.function" },
	{ NULL, NULL, F(mtag_filename), KMP_WANT_PTR, "mempool_tag.ct.filename" },
	{ NULL, NULL, F(mtag_lineno), KMP_WANT_INT, "mempool_tag.ct.lineno" },
};

static const struct kmp_member_spec codetag[] = {
	{ "modname", NULL, F(ct_modname), KMP_WANT_PTR, "codetag.modname" },
	{ "function", NULL, F(ct_function), KMP_WANT_PTR, "codetag.function" },
	{ "filename", NULL, F(ct_filename), KMP_WANT_PTR, "codetag.filename" },
	{ "lineno", NULL, F(ct_lineno), KMP_WANT_INT, "codetag.lineno" },
};

/* Series v6: a slab pool's element size is its cache's object_size. */
static const struct kmp_member_spec kmem_cache[] = {
	{ "object_size", NULL, F(kc_object_size), KMP_WANT_INT, "kmem_cache.object_size" },
};

const struct kmp_struct_spec kmp_layout_table[KMP_ST_N] = {
	[KMP_ST_POOL] = { kn_mempool_s, F(pool_size), pool, N(pool) },
	[KMP_ST_LIST_HEAD] = { "list_head", F(lh_size), list_head, N(list_head) },
	[KMP_ST_WQ_HEAD] = { "wait_queue_head", F(wqh_size), wq_head, N(wq_head) },
	[KMP_ST_WQ_ENTRY] = { "wait_queue_entry", F(wqe_size), wq_entry, N(wq_entry) },
	[KMP_ST_TASK] = { "task_struct", F(task_size), task, N(task) },
	[KMP_ST_SIGNAL] = { "signal_struct", F(signal_size), signal, N(signal) },
	[KMP_ST_WAITER] = { "mempool_waiter", F(waiter_size), waiter, N(waiter) },
	[KMP_ST_MTAG] = { "mempool_tag", F(mtag_size), mtag, N(mtag) },
	[KMP_ST_CODETAG] = { "codetag", F(ct_size), codetag, N(codetag) },
	[KMP_ST_KMEM_CACHE] = { "kmem_cache", F(kc_size), kmem_cache, N(kmem_cache) },
};

/* @outer's member @inner, in @outer's struct; an offset that would wrap stays unusable. */
static void compose(struct kmp_field *out, const struct kmp_field *outer,
		    const struct kmp_field *inner)
{
	const char *name = out->name;

	out->ok = outer->ok && inner->ok;
	out->off = outer->off + inner->off < outer->off ? UINT64_MAX : outer->off + inner->off;
	out->size = inner->size;
	out->name = name;
}

static void name_fields(struct kmp_layout *l)
{
	for (size_t s = 0; s < KMP_ST_N; s++)
		for (size_t i = 0; i < kmp_layout_table[s].n; i++)
			kmp_layout_field(l, &kmp_layout_table[s].m[i])->name =
				kmp_layout_table[s].m[i].name;
}

void kmp_layout_compose(struct kmp_layout *l)
{
	name_fields(l);
	compose(&l->list_next, &l->list, &l->lh_next);
	compose(&l->list_prev, &l->list, &l->lh_prev);
	compose(&l->wait_head, &l->wait, &l->wqh_head);
	compose(&l->wqe_next, &l->wqe_entry, &l->lh_next);
	compose(&l->wqe_prev, &l->wqe_entry, &l->lh_prev);
	compose(&l->mtag_modname, &l->mtag_ct, &l->ct_modname);
	compose(&l->mtag_function, &l->mtag_ct, &l->ct_function);
	compose(&l->mtag_filename, &l->mtag_ct, &l->ct_filename);
	compose(&l->mtag_lineno, &l->mtag_ct, &l->ct_lineno);
	l->lock_byte.ok = l->lock.ok;
	l->lock_byte.off = l->lock.off;
	l->lock_byte.size = 1;
}

static bool size_ok(enum kmp_want want, uint64_t size)
{
	switch (want) {
	case KMP_WANT_ANY:
		return size > 0;
	case KMP_WANT_INT:
		return size == 1 || size == 2 || size == 4 || size == 8;
	case KMP_WANT_PTR:
		return size == 8;
	case KMP_WANT_LIST:
		return size == 16;
	}
	return false;
}

static const char *const want_name[] = {
	[KMP_WANT_ANY] = "more than 0", [KMP_WANT_INT] = "an integer's (1, 2, 4 or 8)",
	[KMP_WANT_PTR] = "a pointer's (8)", [KMP_WANT_LIST] = "a list_head's (16)",
};

static bool struct_check(const struct kmp_layout *l, const struct kmp_struct_spec *s,
			 const char *path, struct kmp_err *err)
{
	uint64_t size = *kmp_layout_struct_size((struct kmp_layout *)l, s);
	bool any = false;

	for (size_t i = 0; i < s->n; i++)
		any |= kmp_layout_field((struct kmp_layout *)l, &s->m[i])->ok;
	if (!any && s != &kmp_layout_table[KMP_ST_POOL])
		return true;	/* a struct the code will not use */
	if (size == 0 || size > KMP_MAX_STRUCT) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: implausible size of struct %s in DWARF: %" PRIu64
			   " bytes (damaged debug info?)", path, s->name, size);
		return false;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct kmp_member_spec *m = &s->m[i];
		const struct kmp_field *f = kmp_layout_field((struct kmp_layout *)l, m);

		if (!f->ok)
			continue;
		if (f->size == 0 || f->off > size || f->size > size - f->off) {
			kmp_seterr(err, KMP_ERR_FORMAT, "%s: DWARF puts %s (offset %" PRIu64 ", size %"
				   PRIu64 ") outside the struct's %" PRIu64 " bytes (damaged "
				   "debug info?)", path, m->name, f->off, f->size, size);
			return false;
		}
		if (!size_ok(m->want, f->size)) {
			kmp_seterr(err, KMP_ERR_FORMAT, "%s: DWARF gives %s a size of %" PRIu64
				   " bytes, not %s (damaged debug info?)", path, m->name, f->size,
				   want_name[m->want]);
			return false;
		}
	}
	return true;
}

bool kmp_layout_check(const struct kmp_layout *l, const char *path, struct kmp_err *err)
{
	for (size_t s = 0; s < KMP_ST_N; s++)
		if (!struct_check(l, &kmp_layout_table[s], path, err))
			return false;
	return true;
}
