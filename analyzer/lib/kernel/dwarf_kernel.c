// SPDX-License-Identifier: GPL-2.0
/* kmempool: struct module and struct kmem_cache layouts from DWARF. */
#include <dwarf.h>
#include <string.h>

#include "dwarf_kernel.h"
#include "dwarfutil.h"
#include "kpieces.h"
#include "layout_check.h"

/*
 * The one bound of every struct read from a dump (layout_check.h): a size
 * from DWARF above 0 and at most KMP_MAX_STRUCT (64 KiB), so that no
 * buffer, read or offset sum sized by a hostile vmlinux can grow past it.
 */
static bool struct_size(Dwarf_Die *st, uint64_t *size)
{
	return kmp_dwarf_size(st, size) && *size > 0 && *size <= KMP_MAX_STRUCT;
}

/*
 * A field must lie inside its struct (offset and size from DWARF: neither
 * may wrap), and so inside the bound: @st_size comes from struct_size().
 */
static bool member_in(Dwarf_Die *st, uint64_t st_size, const char *path, struct kmp_field *f)
{
	bool in = st_size <= KMP_MAX_STRUCT && kmp_dwarf_member_path(st, path, f) &&
		  f->off <= st_size && f->size <= st_size - f->off;

	f->name = path;		/* for the accessor's errors (field.h) */
	return in;
}

/* struct module_memory mem[] (6.4 on): each kind's base and size, by enum mod_mem_type. */
static bool modmem_load(Dwarf_Die *mod, uint64_t msize, Dwarf_Die *mm, Dwarf_Die *kinds,
			struct kmp_modlayout *ml)
{
	static const char *const kind[KMP_MOD_N] = { "MOD_TEXT", "MOD_DATA", "MOD_RODATA",
						     "MOD_RO_AFTER_INIT" };
	struct kmp_field mem, base, size;
	uint64_t esize;

	if (!member_in(mod, msize, kn_mod_mem, &mem) || !struct_size(mm, &esize) ||
	    !member_in(mm, esize, "base", &base) || !member_in(mm, esize, "size", &size) ||
	    base.size != 8 || size.size > 8)
		return false;
	for (int i = 0; i < KMP_MOD_N; i++) {
		int64_t idx;

		/* idx * esize + esize <= mem.size, without overflow at any idx */
		if (!kmp_dwarf_enumerator(kinds, kind[i], &idx) || idx < 0 ||
		    (uint64_t)idx >= mem.size / esize)
			return false;
		ml->mem_base[i] = base;
		ml->mem_base[i].off += mem.off + (uint64_t)idx * esize;
		ml->mem_size[i] = size;
		ml->mem_size[i].off += mem.off + (uint64_t)idx * esize;
	}
	ml->per_kind = true;
	return true;
}

bool kmp_modlayout_load(struct kmp_vmlinux *v, uint64_t cu_addr, bool no_aranges,
			struct kmp_modlayout *ml)
{
	struct kmp_wanted w[] = {
		{ .name = "module", .tag = DW_TAG_structure_type },
		{ .name = "mod_kallsyms", .tag = DW_TAG_structure_type },
		{ .name = "elf64_sym", .tag = DW_TAG_structure_type },
		{ .name = "module_memory", .tag = DW_TAG_structure_type },
		{ .name = kn_mod_mem_type, .tag = DW_TAG_enumeration_type },
	};
	uint64_t msize, ksize;
	bool via, regions;
	Dwarf_Die cu;

	memset(ml, 0, sizeof(*ml));
	if (!cu_addr || !kmp_vmlinux_cu(v, cu_addr, "kernel/module/main.c", no_aranges,
				      &cu, &via))
		return false;
	kmp_dwarf_scan(&cu, w, 5);
	if (!w[0].found || !w[1].found || !w[2].found ||
	    !struct_size(&w[0].die, &msize) || !struct_size(&w[1].die, &ksize) ||
	    !struct_size(&w[2].die, &ml->sym_size))
		return false;
	/* The core's regions: core_layout to 6.3, mem[] since. */
	regions = (member_in(&w[0].die, msize, kn_core_layout, &ml->base) &&
		   member_in(&w[0].die, msize, "core_layout.base", &ml->base) &&
		   member_in(&w[0].die, msize, "core_layout.size", &ml->size) &&
		   member_in(&w[0].die, msize, "core_layout.text_size", &ml->text_size) &&
		   member_in(&w[0].die, msize, "core_layout.ro_after_init_size",
			     &ml->ro_after_init_size) && ml->base.size == 8) ||
		  (w[3].found && w[4].found && modmem_load(&w[0].die, msize, &w[3].die, &w[4].die, ml));
	ml->ok = regions &&
		 member_in(&w[0].die, msize, "list", &ml->list) &&
		 member_in(&w[0].die, msize, "name", &ml->name) &&
		 member_in(&w[0].die, msize, "kallsyms", &ml->kallsyms) &&
		 member_in(&w[1].die, ksize, "symtab", &ml->ks_symtab) &&
		 member_in(&w[1].die, ksize, "num_symtab", &ml->ks_num) &&
		 member_in(&w[1].die, ksize, "strtab", &ml->ks_strtab) &&
		 member_in(&w[2].die, ml->sym_size, "st_name", &ml->st_name) &&
		 member_in(&w[2].die, ml->sym_size, "st_info", &ml->st_info) &&
		 member_in(&w[2].die, ml->sym_size, "st_value", &ml->st_value) &&
		 member_in(&w[2].die, ml->sym_size, "st_size", &ml->st_size) &&
		 ml->name.size > 0 && ml->ks_symtab.size == 8 &&
		 ml->ks_strtab.size == 8 && ml->st_value.size == 8 && ml->list.size == 16;
	return ml->ok;
}

/* How this kernel tells a slab page, and where the slab's cache is (see slab.h). */
static bool slab_test_load(struct kmp_wanted *w, struct kmp_slablayout *sl)
{
	Dwarf_Die *page = &w[1].die, *slab = &w[2].die, *flags = &w[3].die, *types = &w[4].die;
	uint64_t ssize;

	if (w[2].found) {	/* struct slab (5.17 on) overlays struct page */
		if (!struct_size(slab, &ssize) || ssize > sl->page_struct_size ||
		    !member_in(slab, ssize, kn_slab_cache, &sl->slab_cache))
			return false;
	} else if (!member_in(page, sl->page_struct_size, kn_slab_cache, &sl->slab_cache)) {
		return false;
	} else {
		sl->cache_in_page = true;
	}
	if (sl->slab_cache.size != 8 || !w[3].found ||
	    !kmp_dwarf_enumerator(flags, "PG_head", &sl->pg_head) || sl->pg_head < 0 ||
	    sl->pg_head >= 64)
		return false;
	if (kmp_dwarf_enumerator(flags, kn_pg_slab, &sl->pg_slab)) {
		sl->slab_by = KMP_SLAB_BY_FLAG;
		return sl->pg_slab >= 0 && sl->pg_slab < 64;
	}
	if (!w[4].found || !member_in(page, sl->page_struct_size, kn_page_type, &sl->page_type) ||
	    sl->page_type.size != 4)
		return false;
	if (kmp_dwarf_enumerator(types, kn_pgty_slab, &sl->pg_slab)) {
		sl->slab_by = KMP_SLAB_BY_TYPE_BYTE;
		return sl->pg_slab > 0 && sl->pg_slab < 256;
	}
	sl->slab_by = KMP_SLAB_BY_TYPE_BIT;
	return kmp_dwarf_enumerator(types, kn_pg_slab, &sl->pg_slab) &&
	       kmp_dwarf_enumerator(types, kn_page_type_base, &sl->type_base) &&
	       sl->pg_slab > 0 && sl->pg_slab <= 0xffffffffLL &&
	       sl->type_base > 0 && sl->type_base <= 0xffffffffLL;
}

/* A compound page's order: page[1].compound_order, or folio->_flags_1's low byte. */
static bool order_load(struct kmp_wanted *w, struct kmp_slablayout *sl)
{
	uint64_t fsize;

	if (member_in(&w[1].die, sl->page_struct_size, kn_compound_order, &sl->order)) {
		sl->order_mask = ~0ULL;
		return sl->order.size >= 1 && sl->order.size <= 4;
	}
	if (!w[5].found || !struct_size(&w[5].die, &fsize) ||
	    !member_in(&w[5].die, fsize, kn_flags_1, &sl->order) ||
	    sl->order.off < sl->page_struct_size ||
	    sl->order.off - sl->page_struct_size + sl->order.size > sl->page_struct_size ||
	    sl->order.size != 8)
		return false;
	sl->order.off -= sl->page_struct_size;
	sl->order_mask = 0xff;
	return true;
}

bool kmp_slablayout_load(struct kmp_vmlinux *v, uint64_t cu_addr, uint64_t slab_cu_addr,
			 bool no_aranges, struct kmp_slablayout *sl)
{
	struct kmp_wanted w[] = {
		{ .name = "kmem_cache", .tag = DW_TAG_structure_type },
		{ .name = "page", .tag = DW_TAG_structure_type },
		{ .name = "slab", .tag = DW_TAG_structure_type },
		{ .name = "pageflags", .tag = DW_TAG_enumeration_type },
		{ .name = "pagetype", .tag = DW_TAG_enumeration_type },
		{ .name = "folio", .tag = DW_TAG_structure_type },
	};
	const size_t nw = sizeof(w) / sizeof(w[0]);
	uint64_t size;
	bool via;
	Dwarf_Die cu;

	memset(sl, 0, sizeof(*sl));
	if (!cu_addr || !kmp_vmlinux_cu(v, cu_addr, "mm/mempool.c", no_aranges, &cu, &via))
		return false;
	kmp_dwarf_scan(&cu, w, nw);
	/* Types a unit does not use are not in its DWARF: the allocator's own unit has them. */
	if (slab_cu_addr && kmp_vmlinux_cu(v, slab_cu_addr, "mm/slub.c", no_aranges, &cu, &via)) {
		/* struct kmem_cache is private to mm/ (mm/slab.h) from 6.8 on. */
		for (size_t i = 1; i < nw; i++)
			w[i].found = false;
		kmp_dwarf_scan(&cu, w, nw);
	}
	sl->ok = w[0].found && struct_size(&w[0].die, &size) &&
		 member_in(&w[0].die, size, "name", &sl->name) &&
		 member_in(&w[0].die, size, "object_size", &sl->object_size) &&
		 sl->name.size == 8 && sl->object_size.size <= 8;
	if (!sl->ok)
		return false;
	/* What finding the object around an address needs; optional. */
	if (!kmp_dwarf_member(&w[0].die, "red_left_pad", &sl->red_left_pad))
		memset(&sl->red_left_pad, 0, sizeof(sl->red_left_pad));
	sl->objects_ok = w[1].found &&
		member_in(&w[0].die, size, "size", &sl->size) && sl->size.size <= 8 &&
		struct_size(&w[1].die, &sl->page_struct_size) &&
		sl->page_struct_size >= 32 && sl->page_struct_size <= 256 &&
		member_in(&w[1].die, sl->page_struct_size, "flags", &sl->flags) &&
		(member_in(&w[1].die, sl->page_struct_size, kn_compound_head, &sl->compound_head) ||
		 (sl->head_by_info = member_in(&w[1].die, sl->page_struct_size, kn_compound_info,
					       &sl->compound_head))) &&
		sl->flags.size == 8 && sl->compound_head.size == 8 &&
		order_load(w, sl) && slab_test_load(w, sl);
	return true;
}

bool kmp_vmlayout_load(struct kmp_vmlinux *v, uint64_t cu_addr, struct kmp_vmlayout *vl)
{
	struct kmp_wanted w[] = {
		{ .name = "vmap_area", .tag = DW_TAG_structure_type },
		{ .name = "vm_struct", .tag = DW_TAG_structure_type },
		{ .name = "vmap_node", .tag = DW_TAG_structure_type },
	};
	uint64_t vmsize;
	bool via;
	Dwarf_Die cu;

	memset(vl, 0, sizeof(*vl));
	if (!cu_addr || !kmp_vmlinux_cu(v, cu_addr, "mm/vmalloc.c", false, &cu, &via))
		return false;
	kmp_dwarf_scan(&cu, w, 3);
	vl->nodes_ok = w[2].found && struct_size(&w[2].die, &vl->node_size) &&
		       member_in(&w[2].die, vl->node_size, kn_busy_head, &vl->node_busy_head) &&
		       vl->node_busy_head.size == 16;
	vl->ok = w[0].found && w[1].found && struct_size(&w[0].die, &vl->va_size) &&
		 struct_size(&w[1].die, &vmsize) &&
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

bool kmp_cslayout_load(struct kmp_vmlinux *v, uint64_t cu_addr, struct kmp_cslayout *cl)
{
	struct kmp_wanted w[] = { { .name = "clocksource", .tag = DW_TAG_structure_type } };
	bool via;
	Dwarf_Die cu;

	memset(cl, 0, sizeof(*cl));
	if (!cu_addr || !kmp_vmlinux_cu(v, cu_addr, "kernel/time/jiffies.c", false, &cu, &via))
		return false;
	kmp_dwarf_scan(&cu, w, 1);
	cl->ok = w[0].found && struct_size(&w[0].die, &cl->size) &&
		 member_in(&w[0].die, cl->size, "name", &cl->name) &&
		 member_in(&w[0].die, cl->size, "mult", &cl->mult) &&
		 member_in(&w[0].die, cl->size, "shift", &cl->shift) &&
		 cl->name.size == 8 && cl->mult.size == 4 && cl->shift.size == 4;
	return cl->ok;
}
