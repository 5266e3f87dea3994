// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: the VMCOREINFO parser and the broken-build-ID check. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmcoreinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmp_vmcoreinfo vi;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	kmp_vmcoreinfo_parse(text, &vi);
	/* The one line look-up: a value lies inside the text, on one line. */
	{
		static const char *const keys[] = { "OSRELEASE", "PAGESIZE", "SYMBOL(swapper_pg_dir)",
						    "OFFSET(list_head.next)", "" };
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			size_t n = 0;
			const char *v = kmp_vmcoreinfo_value(text, keys[i], &n);

			if (v && (v < text || v + n > text + size || memchr(v, '\n', n)))
				abort();
		}
	}
	/* What findvmlinux.c builds paths from must be clean when accepted. */
	if (!vi.bad[0]) {
		if (strchr(vi.osrelease, '/') || strstr(vi.osrelease, ".."))
			abort();
		if (strlen(vi.build_id) % 2 || strspn(vi.build_id, "0123456789abcdef") !=
		    strlen(vi.build_id))
			abort();
	}
	for (const char *p = vi.bad; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			abort();
	(void)kmp_build_id_known_broken(text);
	(void)kmp_build_id_known_broken_banner(text);
	free(text);
	return 0;
}
