/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: a Dwarf handle over one unit of a vmlinux (see dwarfunit.c).
 */
#ifndef KMP_DWARFUNIT_H
#define KMP_DWARFUNIT_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The @n-byte little-endian number at @p (raw DWARF sections). */
static inline uint64_t kmp_get_le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i > 0; i--)
		v = (v << 8) | p[i - 1];
	return v;
}

/*
 * A DWARF unit's initial length at @p, @avail bytes there: the length in
 * *@len (at most @avail - *@lsize), the size of the length field in *@lsize
 * (4 or 12) and of section offsets in *@osize (4 or 8).  False when cut
 * off, reserved (0xfffffff0-0xfffffffe) or longer than what is there.
 */
bool kmp_dwarf_initial_length(const unsigned char *p, size_t avail, uint64_t *len,
			      size_t *lsize, size_t *osize);

/*
 * The unit handles of one file: @dw reads it, @fd is its descriptor (both
 * kept by the caller until kmp_dwarf_units_free()).  Owned by that file's
 * struct kmp_vmlinux, not by the process: files open at once do not share
 * them.  NULL when out of memory (no unit is then taken alone).
 */
struct kmp_dwarf_units;
struct kmp_dwarf_units *kmp_dwarf_units_new(Dwarf *dw, int fd);
/*
 * The DIE of the unit at @cu_off of @us's file, in a handle over that unit
 * alone (made once, kept until kmp_dwarf_units_free()); false when @us is
 * NULL, the unit may refer to another one, or anything else stands in the
 * way: use the whole file's handle.
 */
bool kmp_dwarf_unit(struct kmp_dwarf_units *us, Dwarf_Off cu_off, Dwarf_Die *cu);
/* Every unit handle of @us is freed, and @us (may be NULL). */
void kmp_dwarf_units_free(struct kmp_dwarf_units *us);

#endif
