// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for the stock-dump tests: opening a dump in libkdumpfile
 * ends the run, exit 97.  kmempool reads a kdump-compressed dump of an
 * x86_64 kernel without libkdumpfile (lib/dump/ddxlat.c) and opens it there only
 * for a page its own reader does not take; a `waiters` or `scan` run on
 * such a dump must finish under this shim with the same output.
 * (kdump_open_fd() is an inline wrapper of this function.)
 */
#include <libkdumpfile/kdumpfile.h>
#include <unistd.h>

kdump_status kdump_open_fdset(kdump_ctx_t *ctx, unsigned nfds, const int *fds)
{
	static const char msg[] = "kdump_forbid: libkdumpfile asked to open the dump\n";

	(void)ctx;
	(void)nfds;
	(void)fds;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(98);
	_exit(97);
}
