// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the /proc/kcore reader (ELF checks in kcore mode, the
 * program headers and the VMCOREINFO note through libelf) on a memfd, then
 * reads at the start of each region the crafted cores use.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "elfcheck.h"
#include "fuzz_common.h"
#include "vmcoreinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t addrs[] = {
		0xffffffff80002000ULL, 0xffffffff80004000ULL, 0xffffffff80400000ULL, 0,
	};
	struct kmp_elfcheck ec;
	struct kmp_core core;
	struct kmp_err err;
	int fd = fuzz_memfd(data, size);

	if (fd < 0)
		return 0;
	if (!kmp_elf_check(fd, "fuzz", true, &ec, &err)) {
		close(fd);
		return 0;
	}
	memset(&core, 0, sizeof(core));
	snprintf(core.path, sizeof(core.path), "fuzz");
	if (kmp_kcore_open(&core, fd, &err)) {	/* takes the fd */
		struct kmp_vmcoreinfo vi;
		unsigned char buf[128];

		kmp_vmcoreinfo_parse(core.vmcoreinfo, &vi);
		for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++)
			(void)kmp_read(&core.mem, addrs[i], buf, sizeof(buf), &err);
		kmp_core_close(&core);
	}
	return 0;
}
