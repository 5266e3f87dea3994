// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: the dump alone in place of a vmlinux (issue 33): symbols from
 * the kernel's kallsyms and types from its BTF, both read from memory.
 * kmp_vmlinux's users see the same interface: names and addresses through
 * the symbol table kallsyms.c decodes, types through the BTF handles of
 * btf.h, contents through memory.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "dwarfutil.h"
#include "kallsyms.h"
#include "vmlinux.h"

/* A symbol of the decoded table by name: a global one first, else the lowest-addressed. */
static const Elf64_Sym *by_name(const struct kmp_kallsyms *ks, const char *name)
{
	const Elf64_Sym *local = NULL;

	for (size_t i = 0; i < ks->n; i++) {
		const Elf64_Sym *s = &ks->syms[i];

		if (s->st_name >= ks->strsize || strcmp(ks->str + s->st_name, name))
			continue;
		if (ELF64_ST_BIND(s->st_info) == STB_GLOBAL)
			return s;
		if (!local)
			local = s;
	}
	return local;
}

/* FNV-1a, for the table of wanted names. */
static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/*
 * One pass over the table: the wanted names go into an open-addressed
 * hash table, and each symbol's name is hashed once.
 */
void kmp_kallsyms_find(const struct kmp_kallsyms *ks, struct kmp_sym *syms, size_t n)
{
	size_t cap = 16, *slot;
	bool *global;

	while (cap < 2 * n)
		cap *= 2;
	slot = malloc(cap * sizeof(*slot));
	global = calloc(n ? n : 1, sizeof(*global));
	for (size_t i = 0; i < n; i++)
		syms[i].found = false;
	if (!slot || !global) {		/* no memory: one name at a time */
		for (size_t i = 0; i < n; i++) {
			const Elf64_Sym *s = by_name(ks, syms[i].name);

			if (s)
				syms[i] = (struct kmp_sym){ syms[i].name, s->st_value, s->st_size, true };
		}
		goto out;
	}
	for (size_t i = 0; i < cap; i++)
		slot[i] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		size_t h = hash(syms[i].name) & (cap - 1);

		while (slot[h] != SIZE_MAX)
			h = (h + 1) & (cap - 1);
		slot[h] = i;
	}
	for (size_t k = 0; k < ks->n; k++) {
		const Elf64_Sym *s = &ks->syms[k];
		const char *name = s->st_name < ks->strsize ? ks->str + s->st_name : "";
		bool g = ELF64_ST_BIND(s->st_info) == STB_GLOBAL;

		for (size_t h = hash(name) & (cap - 1); slot[h] != SIZE_MAX; h = (h + 1) & (cap - 1)) {
			struct kmp_sym *w = &syms[slot[h]];

			if (strcmp(w->name, name) || (w->found && (global[slot[h]] || !g)))
				continue;
			*w = (struct kmp_sym){ w->name, s->st_value, s->st_size, true };
			global[slot[h]] = g;
		}
	}
out:
	free(slot);
	free(global);
}

bool kmp_vmlinux_open_dump(struct kmp_vmlinux *v, struct kmp_mem *mem, const char *vmcoreinfo,
			   uint64_t kaslr, struct kmp_err *err)
{
	struct kmp_sym b[2] = { { .name = "__start_BTF" }, { .name = "__stop_BTF" } };

	memset(v, 0, sizeof(*v));
	v->fd = -1;
	v->mem = mem;
	v->kaslr = kaslr;
	snprintf(v->path, sizeof(v->path), "the dump's kallsyms and BTF");
	if (!(v->ks = calloc(1, sizeof(*v->ks))) || !(v->btf = calloc(1, sizeof(*v->btf)))) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (!kmp_kallsyms_load(v->ks, mem, vmcoreinfo, kaslr, err))
		goto fail;
	kmp_kallsyms_find(v->ks, b, 2);
	if (!b[0].found || !b[1].found) {
		kmp_seterr(err, KMP_ERR_VMLINUX, "the kernel has no BTF (no __start_BTF/__stop_BTF in "
			   "its kallsyms: built without CONFIG_DEBUG_INFO_BTF)");
		goto fail;
	}
	if (!kmp_btf_load(v->btf, mem, b[0].addr + kaslr, b[1].addr + kaslr, err))
		goto fail;
	return true;
fail:
	kmp_vmlinux_close(v);
	return false;
}

bool kmp_vmlinux_cu(struct kmp_vmlinux *v, uint64_t addr, const char *suffix, bool no_aranges,
		    Dwarf_Die *cu, bool *via_aranges)
{
	if (v->btf) {
		*via_aranges = false;
		kmp_btf_handle(v->btf, 0, cu);
		return true;
	}
	return v->dwarf && kmp_dwarf_cu(v->dwarf, addr, suffix, no_aranges, cu, via_aranges);
}

const char *kmp_vmlinux_types(const struct kmp_vmlinux *v)
{
	return v->btf ? "BTF from the dump" : "DWARF";
}
