// SPDX-License-Identifier: GPL-2.0
/* kmempool: member paths from DWARF types. */
#include <dwarf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dwarfpath.h"
#include "dwarfutil.h"

static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, &t) &&
	       kmp_dwarf_peel(&t, type);
}

static void append(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void append(char *out, size_t len, const char *fmt, ...)
{
	size_t used = strlen(out);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(out + used, len - used, fmt, ap);
	va_end(ap);
}

/* The number of elements of array dimension @sub, or 0 if unknown. */
static uint64_t dim_count(Dwarf_Die *sub)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (dwarf_attr(sub, DW_AT_count, &a) && !dwarf_formudata(&a, &w))
		return w;
	if (dwarf_attr(sub, DW_AT_upper_bound, &a) && !dwarf_formudata(&a, &w))
		return w + 1;
	return 0;
}

bool kmp_dwarf_pointee(Dwarf_Die *ptr, Dwarf_Die *type)
{
	return dwarf_tag(ptr) == DW_TAG_pointer_type && type_of(ptr, type);
}

bool kmp_dwarf_path(Dwarf_Die *type, uint64_t off, const char *stop_at, char *out,
		    size_t len)
{
	return kmp_dwarf_path_end(type, off, stop_at, out, len, NULL);
}

bool kmp_dwarf_path_end(Dwarf_Die *type, uint64_t off, const char *stop_at, char *out,
			size_t len, Dwarf_Die *end)
{
	Dwarf_Die cur;

	if (!kmp_dwarf_peel(type, &cur))
		return false;
	if (end)
		*end = cur;
	for (int depth = 0; depth < 16; depth++) {
		int tag = dwarf_tag(&cur);
		const char *name = dwarf_diename(&cur);
		Dwarf_Die m, mt;
		bool stepped = false;

		if (end)
			*end = cur;
		if (off == 0 && tag == DW_TAG_pointer_type)
			return true;
		if (off == 0 && tag == DW_TAG_structure_type && name && !strcmp(name, stop_at))
			return true;
		if (tag == DW_TAG_array_type) {
			Dwarf_Die sub, et;
			uint64_t esize, count, idx;

			if (dwarf_child(&cur, &sub) != 0 || !type_of(&cur, &et) ||
			    !kmp_dwarf_size(&et, &esize) || !esize)
				break;
			/* Only one dimension is followed; C arrays of arrays nest. */
			count = dim_count(&sub);
			idx = off / esize;
			if (count && idx >= count)
				break;
			append(out, len, "[%" PRIu64 "]", idx);
			off -= idx * esize;
			cur = et;
			continue;
		}
		if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
			break;
		if (dwarf_child(&cur, &m) != 0)
			break;
		do {
			Dwarf_Attribute a;
			Dwarf_Word moff = 0;
			uint64_t msize;

			if (dwarf_tag(&m) != DW_TAG_member || !type_of(&m, &mt))
				continue;
			if (dwarf_attr(&m, DW_AT_data_member_location, &a) &&
			    dwarf_formudata(&a, &moff) != 0)
				continue;
			if (!kmp_dwarf_size(&mt, &msize) && dwarf_tag(&mt) != DW_TAG_pointer_type)
				continue;
			if (dwarf_tag(&mt) == DW_TAG_pointer_type)
				msize = 8;
			if (off < moff || off - moff >= msize)
				continue;
			if (dwarf_diename(&m))
				append(out, len, ".%s", dwarf_diename(&m));
			off -= moff;
			cur = mt;
			stepped = true;
			break;
		} while (dwarf_siblingof(&m, &m) == 0);
		if (!stepped)
			break;
	}
	if (off)
		append(out, len, "+0x%" PRIx64, off);
	return true;
}

bool kmp_dwarf_variable_type(Dwarf *dw, const char *name, Dwarf_Die *type)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, d;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &d) == 0) {
			do {
				const char *n;

				if (dwarf_tag(&d) != DW_TAG_variable ||
				    dwarf_hasattr(&d, DW_AT_declaration))
					continue;
				n = dwarf_diename(&d);
				if (n && !strcmp(n, name) && type_of(&d, type))
					return true;
			} while (dwarf_siblingof(&d, &d) == 0);
		}
		off = next;
	}
	return false;
}
