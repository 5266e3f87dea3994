// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for the crafted-core tests: libkdumpfile opens the dump
 * through duplicates of kmempool's descriptors, as a libkdumpfile that
 * read the file another way than pread() on that descriptor would.
 * kmempool's read hook then sees none of its reads and must refuse the
 * dump, loudly.  (kdump_open_fd() is an inline wrapper of this function.)
 */
#include <dlfcn.h>
#include <libkdumpfile/kdumpfile.h>
#include <unistd.h>

kdump_status kdump_open_fdset(kdump_ctx_t *ctx, unsigned nfds, const int *fds)
{
	kdump_status (*real)(kdump_ctx_t *, unsigned, const int *);
	int dups[8];

	*(void **)&real = dlsym(RTLD_NEXT, "kdump_open_fdset");
	for (unsigned i = 0; i < nfds && i < 8; i++)
		dups[i] = dup(fds[i]);	/* left open: a test */
	return real(ctx, nfds < 8 ? nfds : 8, dups);
}
