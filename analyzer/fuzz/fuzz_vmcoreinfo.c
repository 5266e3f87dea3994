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
