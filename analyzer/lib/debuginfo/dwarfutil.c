// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: small helpers on top of libdw: find one compilation unit,
 * the named types in it, members (also inside anonymous structs and
 * unions) and enumerator values.
 */
#include <dwarf.h>
#include <gelf.h>
#include <string.h>

#include "dwarfunit.h"
#include "btf.h"
#include "dwarfutil.h"
#include "vmlinux.h"

bool kmp_dwarf_peel(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	if (kmp_btf_of(die))
		return kmp_btf_peel(die, out);
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
	if (kmp_btf_of(type))
		return kmp_btf_size(type, size);
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
			struct kmp_field *f, Dwarf_Die *die, int depth)
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
			if (die)
				*die = m;
			return true;
		}
		if (!mn) {
			Dwarf_Attribute a;
			Dwarf_Die t, inner;

			if (dwarf_attr_integrate(&m, DW_AT_type, &a) &&
			    dwarf_formref_die(&a, &t) && kmp_dwarf_peel(&t, &inner) &&
			    find_member(&inner, name, base + off, f, die, depth + 1))
				return true;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

void kmp_dwarf_scan(Dwarf_Die *cu, struct kmp_wanted *w, size_t count)
{
	if (kmp_btf_of(cu)) {
		kmp_btf_scan(cu, w, count);
		return;
	}
	size_t missing = 0;
	Dwarf_Die d;

	for (size_t i = 0; i < count; i++)
		missing += !w[i].found;

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
				missing--;
			}
		}
	} while (missing && dwarf_siblingof(&d, &d) == 0);	/* no further than needed */
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
	if (kmp_btf_of(st))
		return kmp_btf_member(st, name, f);
	memset(f, 0, sizeof(*f));
	return find_member(st, name, 0, f, NULL, 0);
}

bool kmp_dwarf_member_type(Dwarf_Die *st, const char *name, Dwarf_Die *type)
{
	if (kmp_btf_of(st))
		return kmp_btf_member_type(st, name, type);
	struct kmp_field f;
	Dwarf_Attribute a;
	Dwarf_Die m, t;

	return find_member(st, name, 0, &f, &m, 0) &&
	       dwarf_attr_integrate(&m, DW_AT_type, &a) && dwarf_formref_die(&a, &t) &&
	       kmp_dwarf_peel(&t, type);
}

bool kmp_dwarf_member_path(Dwarf_Die *st, const char *path, struct kmp_field *f)
{
	Dwarf_Die cur = *st;
	uint64_t base = 0;
	char part[64];

	memset(f, 0, sizeof(*f));
	for (int depth = 0; *path && depth < 8; depth++) {
		size_t n = strcspn(path, ".");
		struct kmp_field one;
		Dwarf_Die next;

		if (n == 0 || n >= sizeof(part))
			return false;
		memcpy(part, path, n);
		part[n] = '\0';
		path += n + (path[n] == '.');
		if (!kmp_dwarf_member(&cur, part, &one))
			return false;
		base += one.off;
		if (!*path) {
			*f = one;
			f->off = base;
			return true;
		}
		if (!kmp_dwarf_member_type(&cur, part, &next))
			return false;
		cur = next;
	}
	return false;
}

/*
 * An enumerator's value: fixed-size forms (data1..data8) carry no sign, and
 * libdw sign-extends them, so an unsigned enum's 0xf5 in a data1 would read
 * as -11 (enum pagetype's PGTY_slab): the enum's underlying type decides.
 */
static bool enumerator_value(Dwarf_Die *e, Dwarf_Attribute *a, int64_t *value)
{
	Dwarf_Attribute ta, enc;
	Dwarf_Die t, base;
	Dwarf_Word u, code;
	Dwarf_Sword v;
	bool is_unsigned = false;

	if (dwarf_attr_integrate(e, DW_AT_type, &ta) && dwarf_formref_die(&ta, &t) &&
	    kmp_dwarf_peel(&t, &base) && dwarf_attr(&base, DW_AT_encoding, &enc) &&
	    !dwarf_formudata(&enc, &code))
		is_unsigned = code == DW_ATE_unsigned || code == DW_ATE_unsigned_char ||
			      code == DW_ATE_boolean;
	switch (dwarf_whatform(a)) {
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
	case DW_FORM_udata:
		if (is_unsigned || dwarf_whatform(a) == DW_FORM_udata) {
			if (dwarf_formudata(a, &u) || u > INT64_MAX)
				return false;
			*value = (int64_t)u;
			return true;
		}
		break;
	default:
		break;
	}
	if (dwarf_formsdata(a, &v))
		return false;
	*value = v;
	return true;
}

bool kmp_dwarf_enumerator(Dwarf_Die *e, const char *name, int64_t *value)
{
	if (kmp_btf_of(e))
		return kmp_btf_enumerator(e, name, value);
	Dwarf_Die c;

	if (dwarf_child(e, &c) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) == DW_TAG_enumerator && n && !strcmp(n, name) &&
		    dwarf_attr(&c, DW_AT_const_value, &a))
			return enumerator_value(e, &a, value);
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/*
 * The offset of the unit whose .debug_aranges set covers @addr, read from
 * the raw section: libdw's dwarf_getaranges() also reads the header of
 * every unit in .debug_info, which in a distribution vmlinux faults in
 * pages all over its 170 MB.  Every length is checked against the section.
 */
static bool raw_aranges(Dwarf *dw, uint64_t addr, Dwarf_Off *cu_off)
{
	Elf *elf = dwarf_getelf(dw);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf_Data *d = NULL;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_flags & SHF_COMPRESSED))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".debug_aranges")) {
			d = elf_rawdata(scn, NULL);
			break;
		}
	}
	if (!d || !d->d_buf)
		return false;
	for (size_t off = 0; off + 4 <= d->d_size;) {
		const unsigned char *p = (const unsigned char *)d->d_buf + off;
		size_t hdr, tuple, end, osize, lsize;
		uint64_t len, info;
		unsigned int asize, ssize;

		if (!kmp_dwarf_initial_length(p, d->d_size - off, &len, &lsize, &osize))
			return false;
		end = lsize + (size_t)len;
		if (end < lsize + 2 + osize + 2)
			return false;
		info = kmp_get_le(p + lsize + 2, osize);
		asize = p[lsize + 2 + osize];
		ssize = p[lsize + 2 + osize + 1];
		if (asize != 8 || ssize != 0)
			return false;
		hdr = lsize + 2 + osize + 2;
		tuple = 2 * asize;
		hdr = (hdr + tuple - 1) / tuple * tuple;	/* tuples are aligned */
		for (size_t t = hdr; t + tuple <= end; t += tuple) {
			uint64_t start = kmp_get_le(p + t, 8), length = kmp_get_le(p + t + 8, 8);

			if (!start && !length)
				break;
			if (addr >= start && addr - start < length) {
				*cu_off = info;
				return true;
			}
		}
		off += end;
	}
	return false;
}

/*
 * libdw knows a unit only once it has read the header of every unit before
 * it: the first DIE of a unit deep in a distribution vmlinux's 200+ MB
 * .debug_info makes thousands of headers resident.  Walk them here in
 * steps instead, letting libdw learn each step's units (a DIE of the
 * step's last one) and giving the pages back after each step, so that
 * memory stays flat.  Remembered with the vmlinux (v->interned_to): done once.
 */
#define INTERN_STEP 128

static void intern_units(struct kmp_vmlinux *v, Dwarf_Off target)
{
	Dwarf *dw = v->dwarf;
	Dwarf_Off off = v->interned_to, next;
	size_t hsize, n = 0;
	Dwarf_Die die;

	if (off >= target)
		return;
	while (off < target && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (++n % INTERN_STEP == 0) {
			dwarf_offdie(dw, off + hsize, &die);
			kmp_elf_release(dwarf_getelf(dw));
		}
		off = next;
	}
	v->interned_to = off;
}

bool kmp_dwarf_cu_at(struct kmp_vmlinux *v, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf *dw = v->dwarf;
	Dwarf_Off cu_off, next;
	size_t hsize;

	if (addr && raw_aranges(dw, addr, &cu_off) &&
	    dwarf_nextcu(dw, cu_off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (kmp_dwarf_unit(v->units, cu_off, cu))
			return true;
		intern_units(v, cu_off);
		if (dwarf_offdie(dw, cu_off + hsize, cu))
			return true;
	}
	return addr && dwarf_addrdie(dw, addr, cu);
}

bool kmp_dwarf_cu(struct kmp_vmlinux *v, uint64_t addr, const char *suffix, bool no_aranges,
		  Dwarf_Die *cu, bool *via_aranges)
{
	Dwarf *dw = v->dwarf;
	Dwarf_Off cu_off, next;
	size_t hsize;

	*via_aranges = false;
	if (!no_aranges && addr && raw_aranges(dw, addr, &cu_off) &&
	    dwarf_nextcu(dw, cu_off, &next, &hsize, NULL, NULL, NULL) == 0) {
		/* The unit alone (dwarfunit.c), else libdw's handle after the units before it. */
		if (kmp_dwarf_unit(v->units, cu_off, cu)) {
			*via_aranges = true;
			return true;
		}
		intern_units(v, cu_off);
		if (dwarf_offdie(dw, cu_off + hsize, cu)) {
			*via_aranges = true;
			return true;
		}
	}
	if (!no_aranges && addr && dwarf_addrdie(dw, addr, cu)) {
		*via_aranges = true;
		return true;
	}
	return find_cu_by_name(dw, suffix, cu);
}

bool kmp_dwarf_bitfield(Dwarf_Die *st, const char *name, uint64_t *bit_off, uint64_t *bits)
{
	Dwarf_Die m;

	if (kmp_btf_of(st))
		return kmp_btf_bitfield(st, name, bit_off, bits);
	if (dwarf_child(st, &m) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		Dwarf_Word w, b;
		const char *mn = dwarf_diename(&m);

		if (dwarf_tag(&m) != DW_TAG_member || !mn || strcmp(mn, name))
			continue;
		if (!dwarf_attr(&m, DW_AT_bit_size, &a) || dwarf_formudata(&a, &b) || !b || b > 64)
			return false;
		if (dwarf_attr(&m, DW_AT_data_bit_offset, &a) && !dwarf_formudata(&a, &w)) {
			*bit_off = w;
		} else {
			/*
			 * DWARF 2/3 (gcc's DWARF 4): the storage unit at
			 * data_member_location, of byte_size, and DW_AT_bit_offset
			 * counted from its most significant bit: on a
			 * little-endian machine the low bit is then at
			 * 8 * byte_size - bit_offset - bit_size.
			 */
			Dwarf_Word bsize, boff;
			uint64_t loc;

			if (!member_location(&m, &loc) || !dwarf_attr(&m, DW_AT_byte_size, &a) ||
			    dwarf_formudata(&a, &bsize) || bsize > 8 ||
			    !dwarf_attr(&m, DW_AT_bit_offset, &a) || dwarf_formudata(&a, &boff) ||
			    boff + b > 8 * bsize)
				return false;
			*bit_off = 8 * loc + 8 * bsize - boff - b;
		}
		*bits = b;
		return true;
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}
