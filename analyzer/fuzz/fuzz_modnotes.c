// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: a module's note section as kmempool reads it from
 * kernel memory to ask debuginfod for the module's debug file (issue 20,
 * modbuildid.c): kmp_notes_build_id() on any bytes.  A build ID it returns
 * must be what debuginfod is asked for: 2 to 128 lower-case hex digits.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modbuildid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char hex[2 * KMP_BUILD_ID_MAX + 1];
	char small[9];
	size_t n;

	memset(hex, 'x', sizeof(hex));
	if (kmp_notes_build_id(data, size, hex, sizeof(hex))) {
		n = strlen(hex);
		if (n < 2 || n > 2 * KMP_BUILD_ID_MAX || n % 2 ||
		    strspn(hex, "0123456789abcdef") != n)
			abort();
	}
	/* A buffer too small for the build ID: refused, never overrun. */
	memset(small, 'x', sizeof(small));
	if (kmp_notes_build_id(data, size, small, sizeof(small)) && strlen(small) >= sizeof(small))
		abort();
	return 0;
}
