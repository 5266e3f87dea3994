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

#include "vmlinux.h"

/* Strip typedefs and qualifiers. */
static bool peel(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	*out = *die;
	for (int depth = 0; depth < 16; depth++) {
		int tag = dwarf_tag(out);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type)
			return true;
		if (!dwarf_attr_integrate(out, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, out))
			return false;
	}
	return false;
}

static bool member_location(Dwarf_Die *m, uint64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr(m, DW_AT_data_member_location, &a)) {
		*off = 0;	/* members of a union */
		return true;
	}
	if (dwarf_formudata(&a, &w) == 0) {
		*off = w;
		return true;
	}
	return false;
}

static bool member_size(Dwarf_Die *m, uint64_t *size)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	Dwarf_Word s;

	if (!dwarf_attr_integrate(m, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return false;
	if (dwarf_aggregate_size(&t, &s) != 0)
		return false;
	*size = s;
	return true;
}

/* Find member @name in @st, descending into anonymous structs and unions. */
static bool find_member(Dwarf_Die *st, const char *name, uint64_t base,
			struct kmp_field *f, int depth)
{
	Dwarf_Die m;

	if (depth > 8 || dwarf_child(st, &m) != 0)
		return false;
	do {
		const char *mn;
		uint64_t off;

		if (dwarf_tag(&m) != DW_TAG_member || !member_location(&m, &off))
			continue;
		mn = dwarf_diename(&m);
		if (mn && !strcmp(mn, name)) {
			if (!member_size(&m, &f->size))
				return false;
			f->off = base + off;
			f->ok = true;
			return true;
		}
		if (!mn) {
			Dwarf_Attribute a;
			Dwarf_Die t, inner;

			if (dwarf_attr_integrate(&m, DW_AT_type, &a) &&
			    dwarf_formref_die(&a, &t) && peel(&t, &inner) &&
			    find_member(&inner, name, base + off, f, depth + 1))
				return true;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

struct wanted {
	const char *name;
	int tag;
	Dwarf_Die die;
	bool found;
};

enum { W_POOL, W_LIST, W_WQH, W_WQE, W_TASK, W_ENUM, W_N };

static void scan_cu(Dwarf_Die *cu, struct wanted *w)
{
	Dwarf_Die d;

	if (dwarf_child(cu, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);
		const char *n;

		if (tag != DW_TAG_structure_type && tag != DW_TAG_enumeration_type)
			continue;
		if (dwarf_hasattr(&d, DW_AT_declaration))
			continue;
		n = dwarf_diename(&d);
		if (!n)
			continue;
		for (int i = 0; i < W_N; i++) {
			if (!w[i].found && w[i].tag == tag && !strcmp(n, w[i].name)) {
				w[i].die = d;
				w[i].found = true;
			}
		}
	} while (dwarf_siblingof(&d, &d) == 0);
}

static bool find_cu_by_name(Dwarf *dw, const char *suffix, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	size_t slen = strlen(suffix);

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		const char *n;

		if (dwarf_offdie(dw, off + hsize, &cu)) {
			n = dwarf_diename(&cu);
			if (n && strlen(n) >= slen && !strcmp(n + strlen(n) - slen, suffix)) {
				*out = cu;
				return true;
			}
		}
		off = next;
	}
	return false;
}

static void load_enum(Dwarf_Die *e, struct kmp_layout *l)
{
	Dwarf_Die c;

	l->ntypes = 0;
	if (dwarf_child(e, &c) != 0)
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword v;
		const char *n = dwarf_diename(&c);
		struct kmp_enumerator *t;

		if (dwarf_tag(&c) != DW_TAG_enumerator || !n || l->ntypes >= KMP_MAX_TYPES)
			continue;
		if (!dwarf_attr(&c, DW_AT_const_value, &a) || dwarf_formsdata(&a, &v))
			continue;
		t = &l->types[l->ntypes++];
		t->value = v;
		if (!strncmp(n, "MEMPOOL_", 8))
			n += 8;
		snprintf(t->name, sizeof(t->name), "%s", n);
		for (char *p = t->name; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	} while (dwarf_siblingof(&c, &c) == 0);
}

const char *kmp_type_name(const struct kmp_layout *l, int64_t value)
{
	for (unsigned int i = 0; i < l->ntypes; i++)
		if (l->types[i].value == value)
			return l->types[i].name;
	return "private";
}

#define NEED(st, field, member)						\
	do {								\
		if (!find_member(&(st), member, 0, &l->field, 0)) {	\
			kmp_seterr(err, "%s: struct %s has no member '%s' in DWARF; " \
				   "is this a kernel with the mempool_list patches?", \
				   v->path, dwarf_diename(&(st)), member); \
			return false;					\
		}							\
	} while (0)

bool kmp_layout_load(struct kmp_vmlinux *v, uint64_t cu_addr, bool no_aranges,
		     struct kmp_layout *l, struct kmp_err *err)
{
	struct wanted w[W_N] = {
		[W_POOL] = { "mempool_s", DW_TAG_structure_type },
		[W_LIST] = { "list_head", DW_TAG_structure_type },
		[W_WQH] = { "wait_queue_head", DW_TAG_structure_type },
		[W_WQE] = { "wait_queue_entry", DW_TAG_structure_type },
		[W_TASK] = { "task_struct", DW_TAG_structure_type },
		[W_ENUM] = { "mempool_type", DW_TAG_enumeration_type },
	};
	Dwarf_Die cu;
	Dwarf_Word sz;

	memset(l, 0, sizeof(*l));
	if (!no_aranges && cu_addr && dwarf_addrdie(v->dwarf, cu_addr, &cu)) {
		l->via_aranges = true;
	} else if (!find_cu_by_name(v->dwarf, "mm/mempool.c", &cu)) {
		kmp_seterr(err, "%s: no debug info for mm/mempool.c", v->path);
		return false;
	}
	l->cu_name = dwarf_diename(&cu);
	scan_cu(&cu, w);
	if (!w[W_POOL].found || !w[W_LIST].found || !w[W_WQH].found || !w[W_ENUM].found) {
		kmp_seterr(err, "%s: the debug info of %s lacks struct mempool_s, list_head, "
			   "wait_queue_head or enum mempool_type", v->path,
			   l->cu_name ? l->cu_name : "mm/mempool.c");
		return false;
	}
	if (dwarf_aggregate_size(&w[W_POOL].die, &sz) != 0) {
		kmp_seterr(err, "%s: struct mempool_s has no size in DWARF", v->path);
		return false;
	}
	l->pool_size = sz;
	NEED(w[W_POOL].die, list, "list");
	NEED(w[W_POOL].die, name, "name");
	NEED(w[W_POOL].die, owner, "owner");
	NEED(w[W_POOL].die, elem_size, "elem_size");
	NEED(w[W_POOL].die, type, "type");
	NEED(w[W_POOL].die, min_nr, "min_nr");
	NEED(w[W_POOL].die, curr_nr, "curr_nr");
	NEED(w[W_POOL].die, low_nr, "low_nr");
	NEED(w[W_POOL].die, nr_reserve, "nr_reserve");
	NEED(w[W_POOL].die, nr_wait, "nr_wait");
	NEED(w[W_POOL].die, wait, "wait");
	NEED(w[W_LIST].die, lh_next, "next");
	NEED(w[W_LIST].die, lh_prev, "prev");
	NEED(w[W_WQH].die, wqh_head, "head");
	load_enum(&w[W_ENUM].die, l);
	if (w[W_WQE].found && w[W_TASK].found &&
	    find_member(&w[W_WQE].die, "private", 0, &l->wqe_private, 0) &&
	    find_member(&w[W_WQE].die, "entry", 0, &l->wqe_entry, 0) &&
	    find_member(&w[W_TASK].die, "pid", 0, &l->task_pid, 0) &&
	    find_member(&w[W_TASK].die, "comm", 0, &l->task_comm, 0) &&
	    find_member(&w[W_TASK].die, "__state", 0, &l->task_state, 0))
		l->have_tasks = true;
	if (l->lh_next.size != 8 || l->lh_prev.size != 8) {
		kmp_seterr(err, "%s: struct list_head pointers are not 8 bytes", v->path);
		return false;
	}
	return true;
}
