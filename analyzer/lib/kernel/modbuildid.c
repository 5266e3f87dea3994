// SPDX-License-Identifier: GPL-2.0
/* kmempool: a loaded module's build ID, from struct module or its ELF notes in memory. */
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dwarfutil.h"
#include "modbuildid.h"

#define MAX_NOTE_SECTIONS 64	/* a module has a handful of note sections */
#define MAX_NOTES_SIZE 4096	/* bytes of one note section read */
#define NT_GNU_BUILD_ID_TYPE 3

static void to_hex(const unsigned char *b, size_t n, char *hex, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n && 2 * i + 2 < len; i++) {
		hex[2 * i] = digits[b[i] >> 4];
		hex[2 * i + 1] = digits[b[i] & 15];
	}
	hex[2 * i] = '\0';
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool kmp_notes_build_id(const unsigned char *buf, size_t n, char *hex, size_t len)
{
	size_t off = 0;

	if (len < 3)
		return false;
	while (n - off >= 12) {
		uint32_t namesz = le32(buf + off), descsz = le32(buf + off + 4);
		uint32_t type = le32(buf + off + 8);
		size_t name = off + 12, nalign = ((size_t)namesz + 3) & ~(size_t)3;
		size_t desc, dalign = ((size_t)descsz + 3) & ~(size_t)3;

		/* Sizes first: every part must lie inside the buffer. */
		if (nalign > n - name)
			return false;
		desc = name + nalign;
		if (dalign > n - desc)
			return false;
		if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 && !memcmp(buf + name, "GNU", 4) &&
		    descsz >= 1 && descsz <= KMP_BUILD_ID_MAX && 2 * (size_t)descsz < len) {
			to_hex(buf + desc, descsz, hex, len);
			return true;
		}
		off = desc + dalign;
	}
	return false;
}

/* The types of the sysfs notes, from the unit of module_notes_read() or mod_sysfs_setup(). */
struct notes_layout {
	struct kmp_field notes_attrs;		/* in struct module */
	struct kmp_field build_id;		/* in struct module (may be absent) */
	/*
	 * In struct module_notes_attrs: to 6.x the number of notes and the
	 * array attrs[]; from 7.x only grp, whose bin_attrs is a
	 * NULL-terminated array of pointers to the attributes.
	 */
	struct kmp_field count, attrs, bin_attrs;
	struct kmp_field name, size, private;	/* in struct bin_attribute */
	uint64_t attr_size;			/* sizeof(struct bin_attribute) */
	bool have_notes;
};

/* Code of the unit that defines module_notes_attrs: 6.10 on has no module_notes_read(). */
static const char *const notes_fns[3] = { "module_notes_read", "mod_sysfs_setup",
					  "mod_sysfs_teardown" };

void kmp_module_build_id_expect(struct kmp_vmlinux *vml)
{
	kmp_vmlinux_expect(vml, notes_fns, 3);
}

static bool notes_layout(const struct kmp_kernel *k, struct notes_layout *nl)
{
	struct kmp_wanted w[] = {
		{ .name = "module", .tag = DW_TAG_structure_type },
		{ .name = "module_notes_attrs", .tag = DW_TAG_structure_type },
		{ .name = "bin_attribute", .tag = DW_TAG_structure_type },
		{ .name = "attribute_group", .tag = DW_TAG_structure_type },
	};
	struct kmp_field grp = { 0 }, list = { 0 };
	bool counted, listed;
	struct kmp_sym fn[3];
	uint64_t addr = 0;
	Dwarf_Die cu;
	bool via;

	memset(nl, 0, sizeof(*nl));
	if (!k->vml || !k->vml->dwarf)
		return false;
	for (size_t i = 0; i < 3; i++)
		fn[i] = (struct kmp_sym){ .name = notes_fns[i] };
	kmp_vmlinux_symbols(k->vml, fn, 3);
	for (size_t i = 0; i < 3 && !addr; i++)
		addr = fn[i].found ? fn[i].addr : 0;
	if (!addr || !kmp_dwarf_cu(k->vml, addr, "kernel/module/sysfs.c", false, &cu, &via))
		return false;
	kmp_dwarf_scan(&cu, w, 4);
	if (!w[0].found)
		return false;
	kmp_dwarf_member(&w[0].die, "build_id", &nl->build_id);
	nl->build_id.ok = nl->build_id.ok && nl->build_id.size >= 1 &&
			  nl->build_id.size <= KMP_BUILD_ID_MAX;
	counted = w[1].found && kmp_dwarf_member(&w[1].die, "notes", &nl->count) &&
		  nl->count.size >= 1 && nl->count.size <= 8 &&
		  kmp_dwarf_member(&w[1].die, "attrs", &nl->attrs);
	if (!counted)
		memset(&nl->count, 0, sizeof(nl->count));
	listed = !counted && w[1].found && w[3].found &&
		 kmp_dwarf_member(&w[1].die, "grp", &grp) &&
		 kmp_dwarf_member(&w[3].die, "bin_attrs", &list) && list.size == 8;
	if (listed) {
		nl->bin_attrs = list;
		nl->bin_attrs.off += grp.off;
	}
	nl->have_notes = (counted || listed) && w[2].found &&
			 kmp_dwarf_member(&w[0].die, "notes_attrs", &nl->notes_attrs) &&
			 nl->notes_attrs.size == 8 &&
			 kmp_dwarf_member_path(&w[2].die, "attr.name", &nl->name) &&
			 nl->name.size == 8 &&
			 kmp_dwarf_member(&w[2].die, "size", &nl->size) &&
			 nl->size.size >= 1 && nl->size.size <= 8 &&
			 kmp_dwarf_member(&w[2].die, "private", &nl->private) &&
			 nl->private.size == 8 &&
			 kmp_dwarf_size(&w[2].die, &nl->attr_size) &&
			 nl->attr_size >= nl->private.off + 8 && nl->attr_size <= 4096;
	return nl->build_id.ok || nl->have_notes;
}

static bool from_notes(const struct kmp_kernel *k, const struct notes_layout *nl, uint64_t mod,
		       char *hex, size_t len, struct kmp_err *why)
{
	unsigned char buf[MAX_NOTES_SIZE];
	uint64_t na, count = MAX_NOTE_SECTIONS + 1, list = 0;

	if (!kmp_read_uint(k->mem, mod + nl->notes_attrs.off, 8, &na, why))
		return false;
	if (!na) {
		kmp_seterr(why, KMP_ERR_FORMAT, "the module has no notes in sysfs");
		return false;
	}
	if (nl->count.ok && !kmp_read_uint(k->mem, na + nl->count.off, nl->count.size, &count, why))
		return false;
	if (!nl->count.ok && !kmp_read_uint(k->mem, na + nl->bin_attrs.off, 8, &list, why))
		return false;
	if (nl->count.ok && count > MAX_NOTE_SECTIONS) {
		kmp_fault(why, KMP_ERR_CORRUPT, na, "%" PRIu64 " note sections (at most %d)", count,
			  MAX_NOTE_SECTIONS);
		return false;
	}
	for (uint64_t i = 0; i < count; i++) {
		uint64_t a, name, size, data;
		char sect[64];

		if (nl->count.ok) {
			a = na + nl->attrs.off + i * nl->attr_size;
		} else {
			/* grp.bin_attrs[i], up to its NULL */
			if (!kmp_read_uint(k->mem, list + i * 8, 8, &a, why))
				return false;
			if (!a)
				break;
			if (i == MAX_NOTE_SECTIONS) {
				kmp_fault(why, KMP_ERR_CORRUPT, list, "more than %d note sections",
					  MAX_NOTE_SECTIONS);
				return false;
			}
		}
		if (!kmp_read_uint(k->mem, a + nl->name.off, 8, &name, why) ||
		    !kmp_read_uint(k->mem, a + nl->size.off, nl->size.size, &size, why) ||
		    !kmp_read_uint(k->mem, a + nl->private.off, 8, &data, why))
			return false;
		/* The build ID's own section; a name that cannot be read is not it. */
		if (!kmp_read_string(k->mem, name, sect, sizeof(sect), why) ||
		    strcmp(sect, ".note.gnu.build-id"))
			continue;
		if (size < 12 || size > sizeof(buf)) {
			kmp_fault(why, KMP_ERR_CORRUPT, a, ".note.gnu.build-id of %" PRIu64 " bytes",
				  size);
			return false;
		}
		if (!kmp_read(k->mem, data, buf, size, why))
			return false;
		if (kmp_notes_build_id(buf, size, hex, len))
			return true;
		kmp_fault(why, KMP_ERR_CORRUPT, data, "no GNU build ID in .note.gnu.build-id");
		return false;
	}
	kmp_seterr(why, KMP_ERR_FORMAT, "the module has no .note.gnu.build-id");
	return false;
}

bool kmp_module_build_id(const struct kmp_kernel *k, uint64_t mod, char *hex, size_t len,
			 struct kmp_err *why)
{
	unsigned char id[KMP_BUILD_ID_MAX];
	struct notes_layout nl;
	bool zero = true;

	if (len < 2 * KMP_BUILD_ID_MAX + 1) {
		kmp_seterr(why, KMP_ERR_USAGE, "build ID buffer too small");
		return false;
	}
	if (!notes_layout(k, &nl)) {
		kmp_seterr(why, KMP_ERR_FORMAT, "the debug info has neither struct module's build_id "
			   "nor module_notes_attrs");
		return false;
	}
	if (nl.build_id.ok) {
		if (!kmp_read(k->mem, mod + nl.build_id.off, id, nl.build_id.size, why))
			return false;
		for (uint64_t i = 0; i < nl.build_id.size; i++)
			zero = zero && !id[i];
		/* All zero: the module had no note; its trailing zero bytes are padding. */
		if (!zero) {
			size_t n = nl.build_id.size;

			while (n > 1 && !id[n - 1])
				n--;
			to_hex(id, n, hex, len);
			/* A GNU build ID is 20 bytes: trust the note when it can be read. */
			if (n == 20 || !nl.have_notes)
				return true;
		}
	}
	if (nl.have_notes)
		return from_notes(k, &nl, mod, hex, len, why);
	kmp_seterr(why, KMP_ERR_FORMAT, "the module has no build ID in struct module");
	return false;
}
