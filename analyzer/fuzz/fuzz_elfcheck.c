// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: a core file as kmempool opens it (core detection, the
 * ELF checks, then libkdumpfile or the flattened-format reader) and the
 * VMCOREINFO parse, then, as session.c does only for a core with a clean
 * VMCOREINFO, a few reads at the addresses the crafted cores use.  The
 * input is written to a memfd and opened by path.
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "core.h"
#include "fuzz_common.h"
#include "vmcoreinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t addrs[] = {
		0xffffffff80002000ULL, 0xffffffff80004000ULL, 0xffffffff80400000ULL,
		0xffffffff80800000ULL, 0xffff888000000000ULL, 0x1000,
	};
	struct kmp_vmcoreinfo vi;
	struct kmp_core core;
	struct kmp_err err;
	char path[64];
	int fd = fuzz_memfd(data, size);

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (kmp_core_open(&core, path, &err)) {
		unsigned char buf[256];

		/* As session.c: no reads from a core without a clean VMCOREINFO. */
		kmp_vmcoreinfo_parse(core.vmcoreinfo, &vi);
		if (!core.vmcoreinfo || vi.bad[0]) {
			kmp_core_close(&core);
			close(fd);
			return 0;
		}
		for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++)
			(void)kmp_read(&core.mem, addrs[i], buf, sizeof(buf), &err);
		if (vi.have_kerneloffset)
			(void)kmp_read(&core.mem, vi.kerneloffset + 0x4000, buf, 16, &err);
		kmp_core_close(&core);
	}
	close(fd);
	return 0;
}
