// SPDX-License-Identifier: GPL-2.0
/* kmempool: struct module and struct kmem_cache layouts from DWARF. */
#include <dwarf.h>
#include <string.h>

#include "dwarf_kernel.h"
#include "dwarfutil.h"

/* A field must lie inside its struct. */
static bool member_in(Dwarf_Die *st, uint64_t st_size, const char *path, struct kmp_field *f)
{
	return kmp_dwarf_member_path(st, path, f) && f->off + f->size <= st_size;
}

bool kmp_modlayout_load(struct kmp_vmlinux *v, uint64_t cu_addr, bool no_aranges,
			struct kmp_modlayout *ml)
{
	struct kmp_wanted w[] = {
		{ .name = "module", .tag = DW_TAG_structure_type },
		{ .name = "mod_kallsyms", .tag = DW_TAG_structure_type },
		{ .name = "elf64_sym", .tag = DW_TAG_structure_type },
	};
	uint64_t msize, ksize;
	bool via;
	Dwarf_Die cu;

	memset(ml, 0, sizeof(*ml));
	if (!cu_addr || !kmp_dwarf_cu(v->dwarf, cu_addr, "kernel/module/main.c", no_aranges,
				      &cu, &via))
		return false;
	kmp_dwarf_scan(&cu, w, 3);
	if (!w[0].found || !w[1].found || !w[2].found ||
	    !kmp_dwarf_size(&w[0].die, &msize) || !kmp_dwarf_size(&w[1].die, &ksize) ||
	    !kmp_dwarf_size(&w[2].die, &ml->sym_size))
		return false;
	ml->ok = member_in(&w[0].die, msize, "list", &ml->list) &&
		 member_in(&w[0].die, msize, "name", &ml->name) &&
		 member_in(&w[0].die, msize, "core_layout.base", &ml->base) &&
		 member_in(&w[0].die, msize, "core_layout.size", &ml->size) &&
		 member_in(&w[0].die, msize, "core_layout.text_size", &ml->text_size) &&
		 member_in(&w[0].die, msize, "core_layout.ro_after_init_size",
			   &ml->ro_after_init_size) &&
		 member_in(&w[0].die, msize, "kallsyms", &ml->kallsyms) &&
		 member_in(&w[1].die, ksize, "symtab", &ml->ks_symtab) &&
		 member_in(&w[1].die, ksize, "num_symtab", &ml->ks_num) &&
		 member_in(&w[1].die, ksize, "strtab", &ml->ks_strtab) &&
		 member_in(&w[2].die, ml->sym_size, "st_name", &ml->st_name) &&
		 member_in(&w[2].die, ml->sym_size, "st_info", &ml->st_info) &&
		 member_in(&w[2].die, ml->sym_size, "st_value", &ml->st_value) &&
		 member_in(&w[2].die, ml->sym_size, "st_size", &ml->st_size) &&
		 ml->name.size > 0 && ml->base.size == 8 && ml->ks_symtab.size == 8 &&
		 ml->ks_strtab.size == 8 && ml->st_value.size == 8 && ml->list.size == 16;
	return ml->ok;
}

bool kmp_slablayout_load(struct kmp_vmlinux *v, uint64_t cu_addr, uint64_t slab_cu_addr,
			 bool no_aranges, struct kmp_slablayout *sl)
{
	struct kmp_wanted w[] = {
		{ .name = "kmem_cache", .tag = DW_TAG_structure_type },
		{ .name = "page", .tag = DW_TAG_structure_type },
		{ .name = "slab", .tag = DW_TAG_structure_type },
		{ .name = "pageflags", .tag = DW_TAG_enumeration_type },
	};
	uint64_t size, ssize;
	bool via;
	Dwarf_Die cu;

	memset(sl, 0, sizeof(*sl));
	if (!cu_addr || !kmp_dwarf_cu(v->dwarf, cu_addr, "mm/mempool.c", no_aranges, &cu, &via))
		return false;
	kmp_dwarf_scan(&cu, w, 4);
	/* Types a unit does not use are not in its DWARF: the allocator's own unit has them. */
	if ((!w[1].found || !w[2].found || !w[3].found) && slab_cu_addr &&
	    kmp_dwarf_cu(v->dwarf, slab_cu_addr, "mm/slub.c", no_aranges, &cu, &via)) {
		for (size_t i = 0; i < 4; i++)
			w[i].found = false;
		kmp_dwarf_scan(&cu, w, 4);
	}
	sl->ok = w[0].found && kmp_dwarf_size(&w[0].die, &size) &&
		 member_in(&w[0].die, size, "name", &sl->name) &&
		 member_in(&w[0].die, size, "object_size", &sl->object_size) &&
		 sl->name.size == 8 && sl->object_size.size <= 8;
	if (!sl->ok)
		return false;
	/* What finding the object around an address needs; optional. */
	if (!kmp_dwarf_member(&w[0].die, "red_left_pad", &sl->red_left_pad))
		memset(&sl->red_left_pad, 0, sizeof(sl->red_left_pad));
	sl->objects_ok = w[1].found && w[2].found && w[3].found &&
		member_in(&w[0].die, size, "size", &sl->size) && sl->size.size <= 8 &&
		kmp_dwarf_size(&w[1].die, &sl->page_struct_size) &&
		member_in(&w[1].die, sl->page_struct_size, "flags", &sl->flags) &&
		member_in(&w[1].die, sl->page_struct_size, "compound_head", &sl->compound_head) &&
		member_in(&w[1].die, sl->page_struct_size, "compound_order", &sl->compound_order) &&
		sl->compound_order.size >= 1 && sl->compound_order.size <= 4 &&
		kmp_dwarf_size(&w[2].die, &ssize) && ssize <= sl->page_struct_size &&
		member_in(&w[2].die, ssize, "slab_cache", &sl->slab_cache) &&
		sl->flags.size == 8 && sl->compound_head.size == 8 && sl->slab_cache.size == 8 &&
		kmp_dwarf_enumerator(&w[3].die, "PG_slab", &sl->pg_slab) &&
		kmp_dwarf_enumerator(&w[3].die, "PG_head", &sl->pg_head) &&
		sl->pg_slab >= 0 && sl->pg_slab < 64 && sl->pg_head >= 0 && sl->pg_head < 64;
	return true;
}

bool kmp_vmlayout_load(struct kmp_vmlinux *v, uint64_t cu_addr, struct kmp_vmlayout *vl)
{
	struct kmp_wanted w[] = {
		{ .name = "vmap_area", .tag = DW_TAG_structure_type },
		{ .name = "vm_struct", .tag = DW_TAG_structure_type },
	};
	uint64_t vmsize;
	bool via;
	Dwarf_Die cu;

	memset(vl, 0, sizeof(*vl));
	if (!cu_addr || !kmp_dwarf_cu(v->dwarf, cu_addr, "mm/vmalloc.c", false, &cu, &via))
		return false;
	kmp_dwarf_scan(&cu, w, 2);
	vl->ok = w[0].found && w[1].found && kmp_dwarf_size(&w[0].die, &vl->va_size) &&
		 kmp_dwarf_size(&w[1].die, &vmsize) &&
		 member_in(&w[0].die, vl->va_size, "va_start", &vl->va_start) &&
		 member_in(&w[0].die, vl->va_size, "va_end", &vl->va_end) &&
		 member_in(&w[0].die, vl->va_size, "list", &vl->list) &&
		 member_in(&w[0].die, vl->va_size, "vm", &vl->vm) &&
		 member_in(&w[1].die, vmsize, "addr", &vl->vm_addr) &&
		 member_in(&w[1].die, vmsize, "size", &vl->vm_size) &&
		 member_in(&w[1].die, vmsize, "pages", &vl->vm_pages) &&
		 member_in(&w[1].die, vmsize, "nr_pages", &vl->vm_nr_pages) &&
		 vl->va_start.size == 8 && vl->vm.size == 8 && vl->vm_addr.size == 8 &&
		 vl->vm_size.size == 8 && vl->vm_pages.size == 8 && vl->vm_nr_pages.size <= 8 &&
		 vl->va_size <= 256;
	return vl->ok;
}
