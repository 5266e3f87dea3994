// SPDX-License-Identifier: GPL-2.0
/* kmempool: pread() for registered descriptors only; see fdhook.h. */
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fdhook.h"

#define KMP_FDHOOK_SLOTS 4

static struct {
	int fd;			/* the descriptor + 1; 0: a free slot */
	kmp_fdhook_fn fn;
	void *arg;
} hooks[KMP_FDHOOK_SLOTS];

ssize_t kmp_real_pread(int fd, void *buf, size_t count, off_t offset)
{
	return syscall(SYS_pread64, fd, buf, count, offset);
}

bool kmp_fdhook_register(int fd, kmp_fdhook_fn fn, void *arg)
{
	if (fd < 0 || !fn)
		return false;
	for (size_t i = 0; i < KMP_FDHOOK_SLOTS; i++) {
		if (hooks[i].fd == 0 || hooks[i].fd == fd + 1) {
			hooks[i].fd = fd + 1;
			hooks[i].fn = fn;
			hooks[i].arg = arg;
			return true;
		}
	}
	return false;
}

void kmp_fdhook_unregister(int fd)
{
	for (size_t i = 0; i < KMP_FDHOOK_SLOTS; i++) {
		if (hooks[i].fd == fd + 1) {
			hooks[i].fd = 0;
			hooks[i].fn = NULL;
			hooks[i].arg = NULL;
		}
	}
}

/*
 * Stands in for the C library's pread() (the executable's definition is
 * found first, also by libkdumpfile).
 */
ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	for (size_t i = 0; fd >= 0 && i < KMP_FDHOOK_SLOTS; i++) {
		if (hooks[i].fd == fd + 1)
			return hooks[i].fn(hooks[i].arg, fd, buf, count, offset);
	}
	return kmp_real_pread(fd, buf, count, offset);
}
