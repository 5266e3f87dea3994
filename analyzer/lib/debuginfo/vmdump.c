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

bool kmp_vmlinux_open_dump(struct kmp_vmlinux *v, struct kmp_mem *mem, const char *vmcoreinfo,
			   uint64_t kaslr, struct kmp_err *err)
{
	struct kmp_sym b[2] = { { .name = "__start_BTF" }, { .name = "__stop_BTF" } };
	struct kmp_kallsyms_tables t = { 0 };

	memset(v, 0, sizeof(*v));
	v->fd = -1;
	v->mem = mem;
	v->kaslr = kaslr;
	snprintf(v->path, sizeof(v->path), "the dump's kallsyms and BTF");
	if (!(v->ks = calloc(1, sizeof(*v->ks))) || !(v->btf = calloc(1, sizeof(*v->btf)))) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		goto fail;
	}
	/*
	 * The BTF's bounds from the tables as read, the BTF parsed, and only
	 * then the symbol table decoded: libbpf holds two copies of the BTF
	 * while it parses, the peak of the run, and the decoded table is not
	 * in memory beside them (issue 33's 15 MB).  When the raw tables do
	 * not give both bounds, the decoder's answer (the damage, or no BTF).
	 */
	if (!kmp_kallsyms_read(&t, mem, vmcoreinfo, err))
		goto fail;
	if (kmp_kallsyms_raw_find(&t.raw, kaslr, b, 2) == 2) {
		if (!kmp_btf_load(v->btf, mem, b[0].addr + kaslr, b[1].addr + kaslr, err)) {
			struct kmp_err why;

			/* bounds from a damaged table: say so, not what they pointed at */
			if (!kmp_kallsyms_decode(v->ks, &t.raw, kaslr, &why))
				*err = why;
			goto fail;
		}
		if (!kmp_kallsyms_decode(v->ks, &t.raw, kaslr, err))
			goto fail;
	} else {
		if (!kmp_kallsyms_decode(v->ks, &t.raw, kaslr, err))
			goto fail;
		kmp_kallsyms_find(v->ks, b, 2);
		if (!b[0].found || !b[1].found) {
			kmp_seterr(err, KMP_ERR_VMLINUX, "the kernel has no BTF (no __start_BTF/"
				   "__stop_BTF in its kallsyms: built without CONFIG_DEBUG_INFO_BTF)");
			goto fail;
		}
		if (!kmp_btf_load(v->btf, mem, b[0].addr + kaslr, b[1].addr + kaslr, err))
			goto fail;
	}
	kmp_kallsyms_tables_free(&t);
	kmp_kallsyms_index(v->ks);
	return true;
fail:
	kmp_kallsyms_tables_free(&t);
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
	return v->dwarf && kmp_dwarf_cu(v, addr, suffix, no_aranges, cu, via_aranges);
}

const char *kmp_vmlinux_types(const struct kmp_vmlinux *v)
{
	return v->btf ? "BTF from the dump" : "DWARF";
}
