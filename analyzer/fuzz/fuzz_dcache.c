// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: a dump cache entry (dumpcache.c) as a damaged or
 * planted file would hold it.  The input is the entry's bytes; when the
 * entry parses, its symbol table goes through kmp_kallsyms_adopt() and,
 * when that takes it, every look-up kmempool makes of a table (by name,
 * by address, each symbol's name and size), and its BTF and index through
 * kmp_btf_parse_indexed() and a look-up by name.  The seed is the entry
 * unit-btf writes.  (The CRC-32s stop most mutations at the parse: the
 * harness also tries the input with both made right, so that the checks
 * after them are reached.)
 */
#include <libdeflate.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "btf.h"
#include "dwarfutil.h"
#include "dumpcache.h"
#include "kallsyms.h"


static void use(const struct kmp_dcache_view *v)
{
	struct kmp_sym q[3] = { { .name = "mempool_alloc" }, { .name = "_text" }, { .name = "x" } };
	struct kmp_kallsyms ks;
	struct kmp_btf b;
	struct kmp_err err;
	const char *why;
	char name[KMP_KALLSYMS_NAME_MAX];

	if (kmp_kallsyms_adopt(&ks, &v->t.ks, &why)) {
		kmp_kallsyms_find(&ks, q, 3);
		for (size_t i = 0; i < ks.n && i < 256; i++) {
			uint64_t start, size;

			kmp_kallsyms_name(&ks, i, name, sizeof(name));
			kmp_kallsyms_info(&ks, i);
			kmp_kallsyms_size(&ks, i);
			kmp_kallsyms_addrsym(&ks, kmp_kallsyms_addr(&ks, i) + 1, name, sizeof(name),
					     &start, &size);
		}
		kmp_kallsyms_free(&ks);
	}
	if (kmp_btf_parse_indexed(&b, v->t.btf, v->t.btf_len, v->t.btf_byname, v->t.btf_nbyname,
				  &err)) {
		struct kmp_wanted w[2] = { { .name = "mempool_s", .tag = DW_TAG_structure_type },
					   { .name = "pageflags", .tag = DW_TAG_enumeration_type } };
		Dwarf_Die all;

		kmp_btf_handle(&b, 0, &all);
		kmp_btf_scan(&all, w, 2);
		kmp_btf_free(&b);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* 8-byte aligned, as a mapping is */
	uint64_t *buf = malloc(size ? (size + 7) & ~(size_t)7 : 8);
	struct kmp_dcache_view v;
	const char *why;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (kmp_dcache_parse(buf, size, &v, &why))
		use(&v);
	else if (size >= KMP_DCACHE_HEADER) {
		/*
		 * The two CRC-32s made right, as the header places them: at
		 * byte 12 of the bytes up to the BTF (the 10th section, its
		 * offset and length at 24 + 9 * 16), at byte 228 of the BTF.
		 */
		uint64_t off, len;
		uint32_t crc;

		memcpy(&off, (const char *)buf + 24 + 9 * 16, 8);
		memcpy(&len, (const char *)buf + 24 + 9 * 16 + 8, 8);
		if (off < KMP_DCACHE_HEADER || off > size || len > size - off) {
			free(buf);
			return 0;
		}
		crc = libdeflate_crc32(0, (const char *)buf + KMP_DCACHE_HEADER, off - KMP_DCACHE_HEADER);
		memcpy((char *)buf + 12, &crc, 4);
		crc = libdeflate_crc32(0, (const char *)buf + off, len);
		memcpy((char *)buf + 228, &crc, 4);
		if (kmp_dcache_parse(buf, size, &v, &why))
			use(&v);
	}
	free(buf);
	return 0;
}
