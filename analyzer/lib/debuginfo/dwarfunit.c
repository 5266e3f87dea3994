// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: a Dwarf handle over one unit of a vmlinux.
 *
 * libdw finds the unit of a DIE offset only after it has learnt the header
 * of every unit before it: the first DIE of mm/mempool.c in a distribution
 * vmlinux costs the headers of thousands of units (a fifth of `kmempool
 * waiters` on Debian's 6.1).  A unit whose DIEs refer to no other unit
 * needs none of them.  This file gives libdw an ELF image in memory whose
 * .debug_info is that one unit and whose other debug sections are the
 * vmlinux's own: a page of headers in front of a second mapping of the
 * file, so that the sections' offsets point into it and nothing is
 * copied.  The units of one file share that mapping (each has its page of
 * headers in a row of UNITS_MAX pages before it, its image running from
 * there to the file's end), so a page of .debug_str one unit read is
 * there for the next; and .debug_str, where the names the lookups compare
 * lie scattered, is mapped in one call (prefault.h), not page by page.
 * All of it belongs to one struct kmp_dwarf_units, which its vmlinux owns
 * (vmlinux.c): two vmlinux files open in one process each have their own.
 *
 * A unit is refused (the caller then uses the whole file's handle) when
 * any abbreviation of its table has a form that reaches outside the unit
 * (DW_FORM_ref_addr, a type signature, a supplementary or alternate file)
 * or hides its form (DW_FORM_indirect): a DIE offset into the whole
 * .debug_info read against the one unit would name a wrong DIE.  Also
 * refused: compressed sections, and any header that does not fit its
 * section.
 */
#include <dwarf.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarfunit.h"
#include "prefault.h"

#define UNITS_MAX 16
#define HEAD 4096		/* the page of headers in front of the file */
#define ABBREVS_MAX 100000	/* a unit's abbreviations, at most */

/* The file mapped once, after UNITS_MAX pages for the units' headers. */
struct image {
	unsigned char *base;	/* the first page of headers */
	size_t len;		/* UNITS_MAX pages and the file */
	size_t heads;		/* pages of headers handed out */
	size_t users;		/* units that use it */
};

struct unit {
	Dwarf_Off off;
	Dwarf *dw;
	Elf *elf;
	struct image *img;
	Dwarf_Die cu;		/* the unit's DIE in @dw */
};

/* The unit handles made from one file (a vmlinux's, dwarfunit.h). */
struct kmp_dwarf_units {
	Dwarf *dw;		/* the whole file's handle */
	int fd;			/* the file */
	struct image *img;	/* fd's, once a unit needed it */
	struct unit v[UNITS_MAX];
	size_t n;
};

/* The debug sections the image carries besides the unit (absent ones are left out). */
static const char *const carried[] = {
	".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets", ".debug_addr",
	".debug_rnglists", ".debug_loclists", ".debug_line", ".debug_ranges", ".debug_loc",
};
#define NCARRIED (sizeof(carried) / sizeof(carried[0]))

static void image_put(struct kmp_dwarf_units *us, struct image *img)
{
	if (!img || --img->users)
		return;
	munmap(img->base, img->len);
	if (us->img == img)
		us->img = NULL;
	free(img);
}

struct kmp_dwarf_units *kmp_dwarf_units_new(Dwarf *dw, int fd)
{
	struct kmp_dwarf_units *us = calloc(1, sizeof(*us));

	if (us) {
		us->dw = dw;
		us->fd = fd;
	}
	return us;
}

bool kmp_dwarf_initial_length(const unsigned char *p, size_t avail, uint64_t *len,
			      size_t *lsize, size_t *osize)
{
	if (avail < 4)
		return false;
	*len = kmp_get_le(p, 4);
	*lsize = 4;
	*osize = 4;
	if (*len == 0xffffffffULL) {
		if (avail < 12)
			return false;
		*len = kmp_get_le(p + 4, 8);
		*lsize = 12;
		*osize = 8;
	} else if (*len >= 0xfffffff0ULL) {
		return false;
	}
	return *len <= avail - *lsize;
}

/* A ULEB128 at *@p below @end, moving *@p past it; false when cut off or too long. */
static bool uleb(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		unsigned char b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
		shift += 7;
	}
	return false;
}

static bool form_stays_inside(uint64_t form)
{
	switch (form) {
	case DW_FORM_ref_addr:
	case DW_FORM_indirect:
	case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup4:
	case DW_FORM_ref_sup8:
	case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt:
		return false;
	default:
		return true;
	}
}

/* True when every abbreviation of the table at @off of @abbrev keeps to its unit. */
static bool abbrevs_inside(const Elf_Data *abbrev, uint64_t off)
{
	const unsigned char *p, *end;

	if (!abbrev || off >= abbrev->d_size)
		return false;
	p = (const unsigned char *)abbrev->d_buf + off;
	end = (const unsigned char *)abbrev->d_buf + abbrev->d_size;
	for (unsigned int n = 0; n < ABBREVS_MAX; n++) {
		uint64_t code, tag, name, form, ic;

		if (!uleb(&p, end, &code))
			return false;
		if (!code)
			return true;	/* the table's end */
		if (!uleb(&p, end, &tag) || p >= end)
			return false;
		p++;	/* DW_CHILDREN_yes or _no */
		for (unsigned int a = 0;; a++) {
			if (a > 1000 || !uleb(&p, end, &name) || !uleb(&p, end, &form))
				return false;
			if (!name && !form)
				break;
			if (!form_stays_inside(form))
				return false;
			if (form == DW_FORM_implicit_const && !uleb(&p, end, &ic))
				return false;
		}
	}
	return false;
}

/*
 * The unit at @off of .debug_info (@info): its end in *@end, false unless
 * it is a compile unit (DWARF 2-5) whose abbreviations keep to it.
 */
static bool unit_ok(const Elf_Data *info, const Elf_Data *abbrev, uint64_t off, uint64_t *end)
{
	const unsigned char *p;
	uint64_t len, abbrev_off;
	size_t lsize, osize, at;
	unsigned int version;

	if (!info || off >= info->d_size)
		return false;
	p = (const unsigned char *)info->d_buf + off;
	/* The header's fields read below lie within the unit's length. */
	if (!kmp_dwarf_initial_length(p, info->d_size - off, &len, &lsize, &osize) ||
	    len < 2 + 1 + 1 + osize)
		return false;
	version = (unsigned int)kmp_get_le(p + lsize, 2);
	at = lsize + 2;
	if (version == 5) {
		if (p[at] != DW_UT_compile)
			return false;
		abbrev_off = kmp_get_le(p + at + 2, osize);
	} else if (version >= 2 && version <= 4) {
		abbrev_off = kmp_get_le(p + at, osize);
	} else {
		return false;
	}
	*end = off + lsize + len;
	return abbrevs_inside(abbrev, abbrev_off);
}

static Elf_Scn *section(Elf *elf, size_t shstrndx, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/*
 * The page of headers at @head: the vmlinux's ELF header with no program
 * headers and @n + 2 sections (none, those of @sh, named @names, and the
 * section names), each at @to_file + its file offset.  False if they do
 * not fit.
 */
static bool write_head(unsigned char *head, size_t to_file, const Elf64_Ehdr *eh,
		       const GElf_Shdr *sh, const char *const *names, size_t n)
{
	Elf64_Ehdr *e = (Elf64_Ehdr *)head;
	Elf64_Shdr *s = (Elf64_Shdr *)(head + sizeof(*e));
	size_t strs = sizeof(*e) + (n + 2) * sizeof(*s), used = 1;
	char *str = (char *)head + strs;

	if (strs + 1 > HEAD)
		return false;
	*e = *eh;
	e->e_phoff = 0;
	e->e_phnum = 0;
	e->e_shoff = sizeof(*e);
	e->e_shentsize = sizeof(*s);
	e->e_shnum = (Elf64_Half)(n + 2);
	e->e_shstrndx = (Elf64_Half)(n + 1);
	memset(s, 0, (n + 2) * sizeof(*s));
	str[0] = '\0';
	for (size_t i = 0; i <= n; i++) {
		const char *name = i < n ? names[i] : ".shstrtab";
		size_t len = strlen(name) + 1;

		if (strs + used + len > HEAD)
			return false;
		memcpy(str + used, name, len);
		s[i + 1].sh_name = (Elf64_Word)used;
		used += len;
		if (i < n) {
			s[i + 1].sh_type = sh[i].sh_type;
			s[i + 1].sh_offset = to_file + sh[i].sh_offset;
			s[i + 1].sh_size = sh[i].sh_size;
			s[i + 1].sh_addralign = 1;
		}
	}
	s[n + 1].sh_type = SHT_STRTAB;
	s[n + 1].sh_offset = strs;
	s[n + 1].sh_size = used;
	s[n + 1].sh_addralign = 1;
	return true;
}

/*
 * The image of @us's file, with a page of headers left for one more unit
 * (a reference taken); NULL if none can be made.  @sh and @names: the @n
 * sections a unit carries, the first its part of .debug_info.
 */
static struct image *image_get(struct kmp_dwarf_units *us, size_t size, const GElf_Shdr *sh,
			       const char *const *names, size_t n)
{
	struct image *img = us->img;

	if (img && img->heads < UNITS_MAX) {
		img->users++;
		return img;
	}
	if (img || !(img = calloc(1, sizeof(*img))))
		return NULL;
	img->len = UNITS_MAX * HEAD + size;
	img->base = mmap(NULL, img->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (img->base == MAP_FAILED ||
	    mmap(img->base + UNITS_MAX * HEAD, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, us->fd, 0) ==
	    MAP_FAILED) {
		if (img->base != MAP_FAILED)
			munmap(img->base, img->len);
		free(img);
		return NULL;
	}
	/* Read at scattered places, as the file's own mapping (vmlinux.c); the names at once. */
	madvise(img->base + UNITS_MAX * HEAD, size, MADV_RANDOM);
	for (size_t i = 1; i < n; i++) {
		if (!strcmp(names[i], ".debug_str"))
			kmp_prefault_read(img->base + UNITS_MAX * HEAD + sh[i].sh_offset,
					  sh[i].sh_size);
	}
	img->users = 1;
	us->img = img;
	return img;
}

/* The image for the unit [@off, @end) of .debug_info (header @info); false if anything fails. */
static bool make_unit(struct kmp_dwarf_units *us, Elf *elf, const GElf_Shdr *info,
		      uint64_t off, uint64_t end, struct unit *u)
{
	const char *names[NCARRIED + 1];
	GElf_Shdr sh[NCARRIED + 1];
	Elf64_Ehdr *eh = elf64_getehdr(elf);
	size_t shstrndx, n = 0, to_file;
	struct stat st;
	unsigned char *base;

	if (!eh || elf_getshdrstrndx(elf, &shstrndx) || fstat(us->fd, &st) || st.st_size <= 0)
		return false;
	names[n] = ".debug_info";
	sh[n] = *info;
	sh[n].sh_offset += off;
	sh[n++].sh_size = end - off;
	for (size_t i = 0; i < NCARRIED; i++) {
		if (!section(elf, shstrndx, carried[i], &sh[n]))
			continue;
		if (sh[n].sh_flags & SHF_COMPRESSED || sh[n].sh_type == SHT_NOBITS ||
		    sh[n].sh_offset > (uint64_t)st.st_size ||
		    sh[n].sh_size > (uint64_t)st.st_size - sh[n].sh_offset)
			return false;
		names[n++] = carried[i];
	}
	if (!(u->img = image_get(us, (size_t)st.st_size, sh, names, n)))
		return false;
	base = u->img->base + u->img->heads * HEAD;
	to_file = (UNITS_MAX - u->img->heads) * HEAD;
	if (mmap(base, HEAD, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
	    MAP_FAILED)
		return false;
	u->img->heads++;
	if (!write_head(base, to_file, eh, sh, names, n))
		return false;
	u->elf = elf_memory((char *)base, to_file + (size_t)st.st_size);
	if (!u->elf)
		return false;
	u->dw = dwarf_begin_elf(u->elf, DWARF_C_READ, NULL);
	return u->dw != NULL;
}

static void unit_free(struct kmp_dwarf_units *us, struct unit *u)
{
	if (u->dw)
		dwarf_end(u->dw);
	if (u->elf)
		elf_end(u->elf);
	image_put(us, u->img);
	memset(u, 0, sizeof(*u));
}

bool kmp_dwarf_unit(struct kmp_dwarf_units *us, Dwarf_Off cu_off, Dwarf_Die *cu)
{
	Elf *elf = us ? dwarf_getelf(us->dw) : NULL;
	GElf_Shdr info_sh, abbrev_sh;
	Elf_Scn *info_scn, *abbrev_scn;
	Dwarf_Off next;
	uint64_t end;
	size_t shstrndx, hsize;
	struct unit u = { .off = cu_off };

	for (size_t i = 0; us && i < us->n; i++) {
		if (us->v[i].off == cu_off) {
			*cu = us->v[i].cu;
			return true;
		}
	}
	if (!us || us->fd < 0 || us->n == UNITS_MAX || !elf ||
	    elf_getshdrstrndx(elf, &shstrndx) ||
	    !(info_scn = section(elf, shstrndx, ".debug_info", &info_sh)) ||
	    !(abbrev_scn = section(elf, shstrndx, ".debug_abbrev", &abbrev_sh)) ||
	    (info_sh.sh_flags & SHF_COMPRESSED) || (abbrev_sh.sh_flags & SHF_COMPRESSED) ||
	    !unit_ok(elf_rawdata(info_scn, NULL), elf_rawdata(abbrev_scn, NULL), cu_off, &end))
		return false;
	if (!make_unit(us, elf, &info_sh, cu_off, end, &u) ||
	    dwarf_nextcu(u.dw, 0, &next, &hsize, NULL, NULL, NULL) != 0 || next != end - cu_off ||
	    !dwarf_offdie(u.dw, hsize, &u.cu)) {
		unit_free(us, &u);
		return false;
	}
	*cu = u.cu;
	us->v[us->n++] = u;
	return true;
}

void kmp_dwarf_units_free(struct kmp_dwarf_units *us)
{
	if (!us)
		return;
	for (size_t i = 0; i < us->n; i++)
		unit_free(us, &us->v[i]);
	free(us);
}
