// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: read the layout of struct mempool_s and friends from DWARF.
 *
 * Only one compilation unit is read: the one that holds mm/mempool.c,
 * found from a code address through .debug_aranges.  It defines every type
 * the analyzer needs (mempool_t, list_head, the wait queue types,
 * task_struct and enum mempool_type).
 */
#include <ctype.h>
#include <dwarf.h>
#include <stdio.h>
#include <string.h>

#include "btf.h"
#include "dwarfutil.h"
#include "kpieces.h"
#include "layout_check.h"
#include "vmlinux.h"

enum { W_POOL, W_POOL7, W_LIST, W_WQH, W_WQE, W_TASK, W_ENUM, W_WAITER, W_SIGNAL, W_MTAG,
       W_CODETAG, W_KMEM_CACHE, W_N };

/* One enumerator of enum mempool_type into @arg, a struct kmp_layout. */
static void add_type(void *arg, const char *n, int64_t value)
{
	struct kmp_layout *l = arg;
	struct kmp_enumerator *t;

	if (l->ntypes >= KMP_MAX_TYPES)
		return;
	t = &l->types[l->ntypes++];
	t->value = value;
	if (!strncmp(n, "MEMPOOL_", 8))
		n += 8;
	snprintf(t->name, sizeof(t->name), "%s", n);
	for (char *p = t->name; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

static void load_enum(Dwarf_Die *e, struct kmp_layout *l)
{
	Dwarf_Die c;

	l->ntypes = 0;
	if (kmp_btf_enumerators(e, add_type, l) || kmp_btf_of(e) || dwarf_child(e, &c) != 0)
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword v;
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) != DW_TAG_enumerator || !n)
			continue;
		if (!dwarf_attr(&c, DW_AT_const_value, &a) || dwarf_formsdata(&a, &v))
			continue;
		add_type(l, n, v);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The name of a struct of either back end, for messages. */
static const char *type_name(Dwarf_Die *t)
{
	const char *n = kmp_btf_of(t) ? kmp_btf_name(t) : dwarf_diename(t);

	return n ? n : "?";
}

const char *kmp_type_name(const struct kmp_layout *l, int64_t value)
{
	for (unsigned int i = 0; i < l->ntypes; i++)
		if (l->types[i].value == value)
			return l->types[i].name;
	return "private";
}

/* Every member of struct @id that the table lists, from @die; none if it has no size. */
static void load_struct(Dwarf_Die *die, bool found, enum kmp_struct_id id, struct kmp_layout *l)
{
	const struct kmp_struct_spec *s = &kmp_layout_table[id];
	uint64_t *size = kmp_layout_struct_size(l, s);

	if (!found || !kmp_dwarf_size(die, size)) {
		*size = 0;
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct kmp_member_spec *m = &s->m[i];
		struct kmp_field *f = kmp_layout_field(l, m);

		if (m->path && !kmp_dwarf_member_path(die, m->path, f) &&
		    !(m->alt && kmp_dwarf_member_path(die, m->alt, f)))
			memset(f, 0, sizeof(*f));
	}
}

/* Forget fields (ok false) that a kernel has only in part: @n of them. */
static void drop(struct kmp_field *const *fs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fs[i]->ok = false;
}

/* How a process's threads are listed (layout.h): thread_group, or signal->thread_head. */
static bool threads_layout(struct kmp_wanted *w, struct kmp_layout *l)
{
	if (l->task_thread_group.ok)
		return true;
	l->threads_by_signal = w[W_SIGNAL].found && l->task_signal.ok && l->task_thread_node.ok &&
			       l->signal_thread_head.ok && l->task_signal.size == 8;
	return l->threads_by_signal;
}

#define NEED(st, field, member)						\
	do {								\
		if (!l->field.ok) {					\
			kmp_seterr(err, KMP_ERR_FORMAT, "%s: struct %s has no member '%s' in %s; " \
				   "is this a kernel with the mempool_list patches?", \
				   v->path, type_name(&(st)), member, \
				   kmp_vmlinux_types(v)); \
			return false;					\
		}							\
	} while (0)

/*
 * Series v6 (Linux 7.2), told by layout: the pool points to a struct
 * mempool_tag, which holds a struct codetag.  Everything its
 * mempool_seq_show() prints must be there; type and element size are
 * derived from alloc (kmem_cache.object_size, when this unit has it, or
 * the session's slab layout).
 */
static bool v6_layout(struct kmp_vmlinux *v, struct kmp_wanted *w, struct kmp_layout *l,
		      struct kmp_err *err)
{
	if (!w[W_MTAG].found || !w[W_CODETAG].found || !l->mtag_size || !l->ct_size) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: struct %s has a member 'tag' but the debug info "
			   "lacks struct mempool_tag or struct codetag", v->path, l->pool_struct);
		return false;
	}
	NEED(w[W_POOL].die, list, "list");
	NEED(w[W_POOL].die, low_nr, "low_nr");
	NEED(w[W_POOL].die, nr_reserve, "nr_reserve");
	NEED(w[W_POOL].die, nr_wait, "nr_wait");
	NEED(w[W_POOL].die, nr_fail, "nr_fail");
	NEED(w[W_POOL].die, nr_empty, "nr_empty");
	NEED(w[W_POOL].die, instance, "instance");
	NEED(w[W_MTAG].die, mtag_ct, "ct");
	NEED(w[W_MTAG].die, mtag_name, "name");
	NEED(w[W_MTAG].die, mtag_kind, "kind");
	NEED(w[W_CODETAG].die, ct_modname, "modname");
	NEED(w[W_CODETAG].die, ct_function, "function");
	NEED(w[W_CODETAG].die, ct_filename, "filename");
	NEED(w[W_CODETAG].die, ct_lineno, "lineno");
	if (!w[W_WAITER].found || !l->waiter_size || !l->waiter_entry.ok || !l->waiter_since.ok) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: the debug info of series v6's mm/mempool.c "
			   "lacks struct mempool_waiter (entry, since)", v->path);
		return false;
	}
	if (!l->wqe_func.ok) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: the debug info lacks wait_queue_entry.func, "
			   "which tells series v6's waiters", v->path);
		return false;
	}
	/* v5's members that v6 derives: never read. */
	l->name.ok = l->owner.ok = l->elem_size.ok = l->type.ok = false;
	l->series = l->v6 = l->v12 = true;
	l->v7 = l->id.ok;	/* series v7: an id per pool */
	return true;
}

/* The series' members: all of them, or none (a stock kernel); formats 1.1 and 1.2 in whole. */
static bool series_layout(struct kmp_vmlinux *v, struct kmp_wanted *w, struct kmp_layout *l,
			  struct kmp_err *err)
{
	struct kmp_field *const series[] = { &l->list, &l->name, &l->owner, &l->elem_size,
					     &l->type, &l->low_nr, &l->nr_reserve, &l->nr_wait,
					     &l->nr_fail, &l->nr_empty, &l->instance,
					     &l->waiter_entry, &l->waiter_since };
	struct kmp_field *const v12[] = { &l->instance, &l->waiter_entry, &l->waiter_since };

	struct kmp_field *const v6only[] = { &l->tag, &l->mtag_ct, &l->mtag_name, &l->mtag_kind,
					     &l->ct_modname, &l->ct_function, &l->ct_filename,
					     &l->ct_lineno, &l->kc_object_size, &l->id };

	if (l->list.ok && l->tag.ok)
		return v6_layout(v, w, l, err);
	drop(v6only, sizeof(v6only) / sizeof(v6only[0]));
	l->series = l->list.ok;
	if (!l->series) {
		drop(series, sizeof(series) / sizeof(series[0]));
		return true;
	}
	NEED(w[W_POOL].die, name, "name");
	NEED(w[W_POOL].die, owner, "owner");
	NEED(w[W_POOL].die, elem_size, "elem_size");
	NEED(w[W_POOL].die, type, "type");
	NEED(w[W_POOL].die, low_nr, "low_nr");
	NEED(w[W_POOL].die, nr_reserve, "nr_reserve");
	NEED(w[W_POOL].die, nr_wait, "nr_wait");
	/* Format 1.1's columns failed and emptied; both or neither. */
	if (!l->nr_fail.ok || !l->nr_empty.ok)
		l->nr_fail.ok = l->nr_empty.ok = false;
	/* Format 1.2's oldest_wait and instance; all or nothing. */
	l->v12 = l->nr_fail.ok && l->instance.ok && l->waiter_size && l->waiter_entry.ok &&
		 l->waiter_since.ok;
	if (!l->v12)
		drop(v12, sizeof(v12) / sizeof(v12[0]));
	return true;
}

bool kmp_layout_load(struct kmp_vmlinux *v, uint64_t cu_addr, bool no_aranges,
		     struct kmp_layout *l, struct kmp_err *err)
{
	struct kmp_wanted w[W_N] = {
		[W_POOL] = { kn_mempool_s, DW_TAG_structure_type },
		[W_POOL7] = { kn_mempool, DW_TAG_structure_type },	/* kpieces.c: KP_POOL */
		[W_LIST] = { "list_head", DW_TAG_structure_type },
		[W_WQH] = { "wait_queue_head", DW_TAG_structure_type },
		[W_WQE] = { "wait_queue_entry", DW_TAG_structure_type },
		[W_TASK] = { "task_struct", DW_TAG_structure_type },
		[W_ENUM] = { "mempool_type", DW_TAG_enumeration_type },
		[W_WAITER] = { "mempool_waiter", DW_TAG_structure_type },
		[W_SIGNAL] = { "signal_struct", DW_TAG_structure_type },
		[W_MTAG] = { "mempool_tag", DW_TAG_structure_type },
		[W_CODETAG] = { "codetag", DW_TAG_structure_type },
		[W_KMEM_CACHE] = { "kmem_cache", DW_TAG_structure_type },
	};
	/* The table's structs, by where kmp_dwarf_scan() finds them. */
	static const int die_of[KMP_ST_N] = {
		[KMP_ST_POOL] = W_POOL, [KMP_ST_LIST_HEAD] = W_LIST, [KMP_ST_WQ_HEAD] = W_WQH,
		[KMP_ST_WQ_ENTRY] = W_WQE, [KMP_ST_TASK] = W_TASK, [KMP_ST_SIGNAL] = W_SIGNAL,
		[KMP_ST_WAITER] = W_WAITER, [KMP_ST_MTAG] = W_MTAG, [KMP_ST_CODETAG] = W_CODETAG,
		[KMP_ST_KMEM_CACHE] = W_KMEM_CACHE,
	};
	Dwarf_Die cu;
	char buf[200];

	memset(l, 0, sizeof(*l));
	if (!kmp_vmlinux_cu(v, cu_addr, "mm/mempool.c", no_aranges, &cu,
			  &l->via_aranges)) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: no debug info for mm/mempool.c", v->path);
		return false;
	}
	l->cu_name = kmp_btf_of(&cu) ? "the kernel's BTF" : dwarf_diename(&cu);
	kmp_dwarf_scan(&cu, w, W_N);
	l->pool_struct = kn_mempool_s;
	if (!w[W_POOL].found && w[W_POOL7].found) {
		w[W_POOL] = w[W_POOL7];
		l->pool_struct = kn_mempool;
	}
	if (!w[W_POOL].found || !w[W_LIST].found || !w[W_WQH].found) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: the debug info of %s lacks the pool struct (%s), "
			   "list_head or wait_queue_head", v->path,
			   l->cu_name ? l->cu_name : "mm/mempool.c",
			   kmp_piece_list(KP_POOL, false, buf, sizeof(buf)));
		return false;
	}
	if (!kmp_dwarf_size(&w[W_POOL].die, &l->pool_size)) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: struct %s has no size in %s", v->path,
			   l->pool_struct, kmp_vmlinux_types(v));
		return false;
	}
	/* Every member the table lists, of every struct found; then which of them count. */
	for (int s = 0; s < KMP_ST_N; s++)
		load_struct(&w[die_of[s]].die, w[die_of[s]].found, (enum kmp_struct_id)s, l);
	/* What every kernel's mempool_t has. */
	NEED(w[W_POOL].die, lock, "lock");
	NEED(w[W_POOL].die, min_nr, "min_nr");
	NEED(w[W_POOL].die, curr_nr, "curr_nr");
	NEED(w[W_POOL].die, elements, "elements");
	NEED(w[W_POOL].die, pool_data, "pool_data");
	NEED(w[W_POOL].die, alloc, "alloc");
	NEED(w[W_POOL].die, free, "free");
	NEED(w[W_POOL].die, wait, "wait");
	if (!series_layout(v, w, l, err))
		return false;
	NEED(w[W_LIST].die, lh_next, "next");
	NEED(w[W_LIST].die, lh_prev, "prev");
	NEED(w[W_WQH].die, wqh_head, "head");
	if (l->series && !l->v6 && !w[W_ENUM].found) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: the debug info of %s lacks enum mempool_type", v->path,
			   l->cu_name ? l->cu_name : "mm/mempool.c");
		return false;
	}
	if (w[W_ENUM].found)
		load_enum(&w[W_ENUM].die, l);
	if (w[W_TASK].found && l->task_state.ok) {
		struct kmp_field f;

		l->task_state_old = !kmp_dwarf_member(&w[W_TASK].die, kn_task_state_new, &f);
	}
	l->have_tasks = w[W_WQE].found && w[W_TASK].found && l->wqe_private.ok &&
			l->wqe_entry.ok && l->task_pid.ok && l->task_comm.ok && l->task_state.ok;
	/* For the search of waiters on task stacks (any kernel); else what is missing. */
	l->stacks_missing = !w[W_TASK].found ? "struct task_struct" :
		!w[W_WQE].found ? "struct wait_queue_entry" :
		!l->have_tasks ? "task_struct.pid, comm or __state/state" :
		!l->wqe_func.ok ? "wait_queue_entry.func" :
		!l->task_tasks.ok ? "task_struct.tasks" :
		!threads_layout(w, l) ? kmp_piece_list(KP_THREADS, false, l->missing_buf,
						       sizeof(l->missing_buf)) :
		!l->task_stack.ok ? "task_struct.stack" :
		!l->task_thread_sp.ok ? "task_struct.thread.sp" : NULL;
	l->have_stacks = !l->stacks_missing;
	if (l->lh_next.size != 8 || l->lh_prev.size != 8) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: struct list_head pointers are not 8 bytes", v->path);
		return false;
	}
	kmp_layout_compose(l);
	return kmp_layout_check(l, v->path, err);
}
