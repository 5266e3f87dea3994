// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the DWARF layout loader on mutated copies of the test
 * object (seed: fake_vmlinux), opened as vmlinux from a memfd.  A layout
 * that loads is then used for a pool walk over a small image, so that a
 * field the checks let through would show up as an out-of-bounds read.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "memimg.h"
#include "pools.h"

#define BASE 0xffff888000000000ULL
#define SIZE 0x20000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmp_sym syms[] = { { .name = "mempool_exit" }, { .name = "linux_banner" } };
	const struct kmp_limits lim = { 8, 8 };
	struct kmp_pools pools = { 0 };
	struct kmp_vmlinux v;
	struct kmp_layout l;
	struct kmp_err err;
	struct memimg img;
	struct kmp_mem mem;
	char path[64], banner[64];
	int fd = fuzz_memfd(data, size);

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!kmp_vmlinux_open(&v, path, &err)) {
		close(fd);
		return 0;
	}
	kmp_vmlinux_symbols(&v, syms, 2);
	if (syms[1].found)
		(void)kmp_vmlinux_read(&v, syms[1].addr, banner, sizeof(banner));
	if (kmp_layout_load(&v, syms[0].found ? syms[0].addr : 0, false, &l, &err)) {
		unsigned char *m;

		memimg_init(&img, &mem);
		m = memimg_add(&img, BASE, SIZE);
		/* A list head whose next points at a node 0x100 further, and back. */
		memset(m + 0x100, 0x41, SIZE - 0x100);
		for (int i = 0; i < 8; i++)
			m[i] = (unsigned char)((BASE + 0x100) >> (8 * i));
		pools.note = NULL;
		(void)kmp_read_pools(&mem, &l, BASE, &lim, &pools, &err);
		kmp_pools_free(&pools);
		memimg_free(&img);
	}
	kmp_vmlinux_close(&v);
	close(fd);
	return 0;
}
