// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the ORC unwinder (orc.c) on tables and a stack taken
 * from the input, as a damaged or hostile dump would hold them, on the
 * synthetic kernel of tests/fake_orc.h.  Input: 2 bytes of thread.sp's
 * offset in the 16 KiB stack, FO_NORC 6-byte ORC entries, then the stack.
 * Every frame must be kernel text, at most KMP_ORC_MAX_FRAMES of them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fake_orc.h"
#include "orc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t pcs[KMP_ORC_MAX_FRAMES];
	struct fake_orc f;
	struct kmp_orc *o;
	char why[256];
	size_t n;

	if (size < 2 + 6 * FO_NORC)
		return 0;
	if (!fo_init(&f, FO_STACK + (data[0] | data[1] << 8) % 16384)) {
		fo_free(&f);
		return 0;
	}
	memcpy(f.orcs, data + 2, 6 * FO_NORC);
	data += 2 + 6 * FO_NORC;
	size -= 2 + 6 * FO_NORC;
	memcpy(f.stack, data, size < 16384 ? size : 16384);
	o = kmp_orc_new(&f.k, why, sizeof(why));
	if (o) {
		n = kmp_orc_unwind(o, FO_TASK, pcs, KMP_ORC_MAX_FRAMES);
		if (n > KMP_ORC_MAX_FRAMES)
			abort();
		for (size_t i = 0; i < n; i++)
			if (pcs[i] < FO_TEXT || pcs[i] >= FO_TEXT + 0x10000)
				abort();
		kmp_orc_free(o);
	} else if (!why[0] || memchr(why, '\n', strlen(why))) {
		abort();	/* a reason, one line */
	}
	fo_free(&f);
	return 0;
}
