// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: small helpers on top of libdw: find one compilation unit,
 * the named types in it, members (also inside anonymous structs and
 * unions) and enumerator values.
 */
#include <dwarf.h>
#include <string.h>

#include "dwarfutil.h"

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

bool kmp_dwarf_size(Dwarf_Die *type, uint64_t *size)
{
	Dwarf_Word s;

	if (dwarf_aggregate_size(type, &s) != 0)
		return false;
	*size = s;
	return true;
}

static bool member_size(Dwarf_Die *m, uint64_t *size)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	return dwarf_attr_integrate(m, DW_AT_type, &a) && dwarf_formref_die(&a, &t) &&
	       kmp_dwarf_size(&t, size);
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
			/* A flexible array has no size: 0, only its offset counts. */
			if (!member_size(&m, &f->size))
				f->size = 0;
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

void kmp_dwarf_scan(Dwarf_Die *cu, struct kmp_wanted *w, size_t count)
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
		for (size_t i = 0; i < count; i++) {
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

bool kmp_dwarf_member(Dwarf_Die *st, const char *name, struct kmp_field *f)
{
	memset(f, 0, sizeof(*f));
	return find_member(st, name, 0, f, 0);
}

bool kmp_dwarf_enumerator(Dwarf_Die *e, const char *name, int64_t *value)
{
	Dwarf_Die c;

	if (dwarf_child(e, &c) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword v;
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) == DW_TAG_enumerator && n && !strcmp(n, name) &&
		    dwarf_attr(&c, DW_AT_const_value, &a) && !dwarf_formsdata(&a, &v)) {
			*value = v;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

bool kmp_dwarf_cu(Dwarf *dw, uint64_t addr, const char *suffix, bool no_aranges,
		  Dwarf_Die *cu, bool *via_aranges)
{
	*via_aranges = false;
	if (!no_aranges && addr && dwarf_addrdie(dw, addr, cu)) {
		*via_aranges = true;
		return true;
	}
	return find_cu_by_name(dw, suffix, cu);
}
