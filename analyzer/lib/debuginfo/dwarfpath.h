/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: C expressions for an offset into a typed object, from DWARF. */
#ifndef KMP_DWARFPATH_H
#define KMP_DWARFPATH_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Append to @out the member and index path that leads @off bytes into an
 * object of @type (".devs[1].pool"), descending structs, unions and
 * arrays, and stopping at a struct named @stop_at (e.g. "mempool_s") or a
 * pointer that starts exactly there.  A remainder that no member explains
 * is appended as "+0xN".  False if @type cannot be read.
 */
bool kmp_dwarf_path(Dwarf_Die *type, uint64_t off, const char *stop_at, char *out,
		    size_t len);
/* The same; @end gets the type where the path stopped (NULL: not wanted). */
bool kmp_dwarf_path_end(Dwarf_Die *type, uint64_t off, const char *stop_at, char *out,
			size_t len, Dwarf_Die *end);
/* The type a pointer type points to, typedefs peeled. */
bool kmp_dwarf_pointee(Dwarf_Die *ptr, Dwarf_Die *type);

/* The type of the global variable @name defined in @dw (a small DWARF: a module's). */
bool kmp_dwarf_variable_type(Dwarf *dw, const char *name, Dwarf_Die *type);

#endif
