// SPDX-License-Identifier: GPL-2.0
/* kmempool: memory mapped ahead of its first use; see prefault.h. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prefault.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void kmp_prefault(void *p, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)p, end;

	if (page <= 0 || !p || len < (size_t)page || __builtin_add_overflow(start, len, &end))
		return;
	start = (start + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	end &= ~((uintptr_t)page - 1);
	if (start < end)
		(void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

void kmp_prefault_read(const void *p, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)p, end;

	if (page <= 0 || !p || !len || __builtin_add_overflow(start, len, &end))
		return;
	start &= ~((uintptr_t)page - 1);
	(void)madvise((void *)start, end - start, MADV_POPULATE_READ);
}
