// SPDX-License-Identifier: GPL-2.0
/*
 * Test shim loaded as libkdumpfile (KMP_TEST_KDUMPFILE, test builds only):
 * the real library behind it, with its dumps opened and its kdump_read()
 * calls counted, written at exit to the file $KMP_TEST_KDUMP_COUNT as
 * "opens N reads N".  test-stock: a scan reads its pages itself and asks
 * libkdumpfile only to confirm its first few "not in the dump" answers.
 */
#include <dlfcn.h>
#include <libkdumpfile/kdumpfile.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_ulong opens, reads;

kdump_status kdump_open_fdset(kdump_ctx_t *ctx, unsigned nfds, const int *fds)
{
	kdump_status (*real)(kdump_ctx_t *, unsigned, const int *);

	*(void **)&real = dlsym(RTLD_NEXT, "kdump_open_fdset");
	atomic_fetch_add(&opens, 1);
	return real(ctx, nfds, fds);
}

kdump_status kdump_read(kdump_ctx_t *ctx, kdump_addrspace_t as, kdump_addr_t addr,
			void *buffer, size_t *plength)
{
	kdump_status (*real)(kdump_ctx_t *, kdump_addrspace_t, kdump_addr_t, void *, size_t *);

	*(void **)&real = dlsym(RTLD_NEXT, "kdump_read");
	atomic_fetch_add(&reads, 1);
	return real(ctx, as, addr, buffer, plength);
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("KMP_TEST_KDUMP_COUNT");
	FILE *f = path ? fopen(path, "w") : NULL;

	if (f) {
		fprintf(f, "opens %lu reads %lu\n", atomic_load(&opens), atomic_load(&reads));
		fclose(f);
	}
}
