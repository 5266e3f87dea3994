/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: helpers on top of libdw, shared by the layout readers. */
#ifndef KMP_DWARFUTIL_H
#define KMP_DWARFUTIL_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>

#include "layout.h"

struct kmp_wanted {
	const char *name;	/* struct or enum name */
	int tag;		/* DW_TAG_structure_type or DW_TAG_enumeration_type */
	Dwarf_Die die;
	bool found;
};

/*
 * The compilation unit holding code address @addr, through .debug_aranges;
 * without them, or with @no_aranges, the first unit whose name ends in
 * @suffix (which reads every unit header).
 */
/*
 * The unit whose code covers link-time @addr: from the raw .debug_aranges
 * (which reads no unit header but the one found), else libdw's look-up.
 */
struct kmp_vmlinux;
bool kmp_dwarf_cu_at(struct kmp_vmlinux *v, uint64_t addr, Dwarf_Die *cu);
bool kmp_dwarf_cu(struct kmp_vmlinux *v, uint64_t addr, const char *suffix, bool no_aranges,
		  Dwarf_Die *cu, bool *via_aranges);
/* Find the complete definitions of the @n wanted types among @cu's children. */
void kmp_dwarf_scan(Dwarf_Die *cu, struct kmp_wanted *w, size_t n);
/* Offset and size of member @name of @st, searched in anonymous members too. */
bool kmp_dwarf_member(Dwarf_Die *st, const char *name, struct kmp_field *f);
/* Strip typedefs and qualifiers from type @die into @out. */
bool kmp_dwarf_peel(Dwarf_Die *die, Dwarf_Die *out);
/* The same for a path of named members: "thread.sp" (offset from @st). */
bool kmp_dwarf_member_path(Dwarf_Die *st, const char *path, struct kmp_field *f);
/* The type of member @name of @st, typedefs and qualifiers peeled. */
bool kmp_dwarf_member_type(Dwarf_Die *st, const char *name, Dwarf_Die *type);
bool kmp_dwarf_size(Dwarf_Die *type, uint64_t *size);
bool kmp_dwarf_enumerator(Dwarf_Die *e, const char *name, int64_t *value);
/* Bit field @name of @st (not in anonymous members): its offset and width in bits. */
bool kmp_dwarf_bitfield(Dwarf_Die *st, const char *name, uint64_t *bit_off, uint64_t *bits);

#endif
