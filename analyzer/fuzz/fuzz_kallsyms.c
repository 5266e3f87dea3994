// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the kallsyms decoder (kallsyms.c) on tables taken
 * from the input, as a damaged or hostile dump would hold them.  Input:
 * one byte of flags (bit 0: 6.x's relative base, else 7.x's self-relative
 * offsets), a 2-byte symbol count, the 256 u16 token indexes, a 2-byte
 * token table length and the table, a 2-byte offsets count's worth of
 * s32 offsets, then the names.  Every symbol decoded must have a name
 * inside the string table, NUL-ended and printable; the look-up by name
 * must find what a linear search finds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"

static uint16_t u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmp_kallsyms_raw r = { 0 };
	struct kmp_err err = { 0 };
	struct kmp_kallsyms ks;
	uint16_t tidx[256];
	int32_t *offs;
	size_t tlen;
	uint64_t kaslr;

	if (size < 1 + 2 + 512 + 2)
		return 0;
	r.have_base = data[0] & 1;
	r.relative_base = 0xffffffff81000000ULL;
	r.offsets_addr = 0xffffffff82000000ULL;
	r.num = u16(data + 1);
	for (int i = 0; i < 256; i++)
		tidx[i] = u16(data + 3 + 2 * i);
	data += 515;
	size -= 515;
	tlen = u16(data);
	data += 2;
	size -= 2;
	if (tlen > size)
		tlen = size;
	r.token_index = tidx;
	r.token_table = (const char *)data;
	r.token_len = tlen;
	data += tlen;
	size -= tlen;
	if ((size_t)r.num * 4 > size)
		r.num = (uint32_t)(size / 4);
	offs = malloc(r.num ? r.num * 4 : 1);
	if (!offs)
		return 0;
	memcpy(offs, data, r.num * 4);
	r.offsets = offs;
	data += r.num * 4;
	size -= r.num * 4;
	r.names = data;
	r.names_len = size;
	kaslr = data[-1] & 1 ? 0x1000000 : 0;
	if (kmp_kallsyms_decode(&ks, &r, kaslr, &err)) {
		kmp_kallsyms_index(&ks);
		for (size_t i = 0; i < ks.n; i++) {
			char n[KMP_KALLSYMS_NAME_MAX + 1];
			struct kmp_sym q = { .name = n }, rq = { .name = n };
			size_t l;

			kmp_kallsyms_name(&ks, i, n, sizeof(n));
			for (l = 0; n[l]; l++)
				if (n[l] < 0x21 || n[l] > 0x7e)
					abort();
			if (!l)
				abort();
			kmp_kallsyms_find(&ks, &q, 1);
			if (!q.found)
				abort();
			/* the pass over the tables as read answers as the decoded table */
			if (i < 64 && (kmp_kallsyms_raw_find(&r, kaslr, &rq, 1) != 1 || rq.addr != q.addr))
				abort();
			if (i && kmp_kallsyms_addr(&ks, i) < kmp_kallsyms_addr(&ks, i - 1))
				abort();	/* by address */
		}
		if (ks.n) {	/* an address below the first has no symbol; the first's own has */
			char n[KMP_KALLSYMS_NAME_MAX + 1];
			uint64_t start, sz;

			if (kmp_kallsyms_addr(&ks, 0) && kmp_kallsyms_addrsym(&ks, kmp_kallsyms_addr(&ks, 0) - 1, n, sizeof(n), &start, &sz))
				abort();
			if (!kmp_kallsyms_addrsym(&ks, kmp_kallsyms_addr(&ks, 0), n, sizeof(n), &start, &sz) ||
			    start != kmp_kallsyms_addr(&ks, 0))
				abort();
		}
		kmp_kallsyms_free(&ks);
	} else if (err.kind != KMP_ERR_FORMAT && err.kind != KMP_ERR_NOMEM) {
		abort();
	} else {
		struct kmp_sym q[2] = { { .name = "a" }, { .name = "mempool_alloc" } };

		kmp_kallsyms_raw_find(&r, kaslr, q, 2);	/* bounded on a damaged table too */
	}
	free(offs);
	return 0;
}
