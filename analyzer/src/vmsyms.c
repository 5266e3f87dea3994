// SPDX-License-Identifier: GPL-2.0
/* kmempool: vmlinux symbols by address, one pass over .symtab. */
#include <gelf.h>

#include "vmsyms.h"

/* Is @a a better answer than @b for an address both start at or below? */
static bool better(const GElf_Sym *a, const GElf_Sym *b)
{
	return a->st_value > b->st_value ||
	       (a->st_value == b->st_value && a->st_size > b->st_size);
}

bool kmp_vmlinux_addrsym(struct kmp_vmlinux *v, uint64_t addr, const char **name,
			 uint64_t *start, uint64_t *size)
{
	/* Symbols with a size that covers @addr win over those without one. */
	GElf_Sym sized = { 0 }, unsized = { 0 }, *best;
	bool have_sized = false, have_unsized = false;
	Elf_Scn *scn = NULL;
	size_t link = 0;

	while ((scn = elf_nextscn(v->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		link = sh.sh_link;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym sym;
			int type;

			if (!gelf_getsym(data, (int)k, &sym) || sym.st_shndx == SHN_UNDEF ||
			    sym.st_value > addr || !sym.st_name)
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE)
				continue;
			if (sym.st_size) {
				if (addr - sym.st_value < sym.st_size &&
				    (!have_sized || better(&sym, &sized))) {
					sized = sym;
					have_sized = true;
				}
			} else if (!have_unsized || better(&sym, &unsized)) {
				unsized = sym;
				have_unsized = true;
			}
		}
		break;		/* one .symtab */
	}
	if (!have_sized && !have_unsized)
		return false;
	best = have_sized ? &sized : &unsized;
	*name = elf_strptr(v->elf, link, best->st_name);
	*start = best->st_value;
	*size = best->st_size;
	return *name && **name;
}
