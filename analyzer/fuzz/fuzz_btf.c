// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: kernel BTF from a damaged or hostile dump (btf.c),
 * parsed with libbpf and read by the loaders every kernel type goes
 * through: the mempool layout table (kmp_layout_load()), struct module,
 * the slab and vmalloc layouts, as with the dump alone.  Input: the BTF
 * blob.  Whatever the BTF claims, the answer is a layout whose fields lie
 * inside their structs, or a refusal of kind format; never a crash; a
 * struct's pointers to a pool (kmp_btf_pool_pointers()) inside it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "dwarf_kernel.h"
#include "layout_check.h"
#include "vmlinux.h"

/* kmp_btf_pool_pointers()'s answers: a member path, a pointer inside its struct. */
static void pool_pointer(void *arg, uint64_t off, const char *path)
{
	const uint64_t *size = arg;

	if (path[0] != '.' || off > *size || *size - off < 8)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmp_err err = { 0 };
	struct kmp_modlayout ml;
	struct kmp_slablayout sl;
	struct kmp_vmlayout vl;
	struct kmp_cslayout cs;
	struct kmp_layout l;
	struct kmp_vmlinux v;

	memset(&v, 0, sizeof(v));
	v.fd = -1;
	if (!(v.btf = calloc(1, sizeof(*v.btf))))
		return 0;
	if (!kmp_btf_parse(v.btf, data, size, &err)) {
		if (err.kind != KMP_ERR_FORMAT)
			abort();
		kmp_vmlinux_close(&v);
		return 0;
	}
	if (kmp_layout_load(&v, 0x1000, false, &l, &err)) {
		if (!kmp_layout_check(&l, "fuzz", &err))
			abort();	/* the loader checked it already */
	} else if (err.kind != KMP_ERR_FORMAT) {
		abort();
	}
	if (kmp_modlayout_load(&v, 0x1000, false, &ml) &&
	    (ml.list.size != 16 || ml.ks_symtab.size != 8))
		abort();
	if (kmp_slablayout_load(&v, 0x1000, 0x2000, false, &sl) && sl.name.size != 8)
		abort();
	if (kmp_vmlayout_load(&v, 0x1000, &vl) && vl.va_size > 256)
		abort();
	if (kmp_cslayout_load(&v, 0x1000, &cs) &&
	    (cs.size > KMP_MAX_STRUCT || cs.mult.size != 4 || cs.shift.size != 4))
		abort();
	/* A heap object's pool by type: one answer has a path and a name member inside the object. */
	for (uint64_t off = 0; off < 256; off += 8) {
		struct kmp_btf_hit hit = { 0 };

		kmp_btf_heap_pool(v.btf, 0, 1024, off, "mempool_s", &hit);
		if (hit.n == 1 && (hit.path[0] != '.' || hit.name_len > 256 ||
				   hit.name_off + hit.name_len > 1024))
			abort();
	}
	/* The pointers to a pool in a struct (the referrer rule), the first structs' only. */
	for (uint32_t id = 1, n = 0; id < v.btf->ntypes && n < 64; id++) {
		Dwarf_Die t;
		uint64_t ssize;

		kmp_btf_handle(v.btf, id, &t);
		if (!kmp_btf_size(&t, &ssize) || !*kmp_btf_name(&t))
			continue;
		n++;
		(void)kmp_btf_pool_pointers(v.btf, id, "mempool_s", 64, pool_pointer, &ssize);
	}
	kmp_vmlinux_close(&v);
	return 0;
}
