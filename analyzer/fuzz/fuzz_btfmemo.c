// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the BTF look-ups' kept answers (btfmemo.c) as a
 * damaged or planted memo file would hold them.  The input is a memo's
 * image; when kmp_btf_memo_adopt() takes it, a kernel BTF deferred on it
 * (whose parse always fails: every answer must come from the image) is
 * asked what a run asks: structs and enums by name, sizes, members,
 * member types, enumerators, bit fields, names, the pool of a global, a
 * module's blob; then the image is made again and must be taken again.
 * The seed is the memo unit-btf writes.
 */
#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "btfmemo.h"
#include "dwarfutil.h"

static bool no_parse(struct kmp_btf *b, void *arg)
{
	(void)b;
	(void)arg;
	return false;
}

static void count(void *arg, const char *name, int64_t value)
{
	*(size_t *)arg += strlen(name) + (value & 1);
}

static void ask(struct kmp_btf *b)
{
	struct kmp_wanted w[3] = { { .name = "mempool_s", .tag = DW_TAG_structure_type },
				   { .name = "mempool_q", .tag = DW_TAG_structure_type },
				   { .name = "pageflags", .tag = DW_TAG_enumeration_type } };
	static const char *const members[] = { "min_nr", "curr_nr", "elements", "wait", "" };
	Dwarf_Die all, t, mt;
	struct kmp_field f;
	uint64_t v, bo, bits;
	size_t n = 0;
	char path[256];

	kmp_btf_handle(b, 0, &all);
	kmp_btf_scan(&all, w, 3);
	for (uint32_t id = 0; id < 12; id++) {
		kmp_btf_handle(b, id, &t);
		kmp_btf_size(&t, &v);
		kmp_btf_peel(&t, &mt);
		n += strlen(kmp_btf_name(&t));
		kmp_btf_enumerators(&t, count, &n);
		for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
			kmp_btf_member(&t, members[i], &f);
			if (kmp_btf_member_type(&t, members[i], &mt))
				kmp_btf_size(&mt, &v);
			kmp_btf_bitfield(&t, members[i], &bo, &bits);
		}
	}
	for (uint64_t size = 64; size <= 512; size *= 2)
		n += kmp_btf_pool_member(b, size, 8, "mempool_s", size & 128, path, sizeof(path));
	(void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmp_btf_memo *m;
	struct kmp_btf b;
	const char *why;
	void *img = malloc(size ? size : 1), *again;
	size_t len;

	if (!img)
		return 0;
	memcpy(img, data, size);
	if (!(m = kmp_btf_memo_adopt(img, size, &why))) {
		free(img);
		return 0;
	}
	if (kmp_btf_defer(&b, m, no_parse, NULL)) {
		ask(&b);
		kmp_btf_free(&b);
	}
	kmp_btf_memo_blob(m, data, size < 64 ? size : 64, true);
	if ((again = kmp_btf_memo_image(m, &len))) {
		struct kmp_btf_memo *m2 = kmp_btf_memo_adopt(again, len, &why);

		if (!m2)
			abort();	/* an image the memo made must be taken */
		kmp_btf_memo_free(m2);
	}
	kmp_btf_memo_free(m);
	return 0;
}
