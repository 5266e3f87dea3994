// SPDX-License-Identifier: GPL-2.0
/*
 * Test shim loaded as libkdumpfile (KMP_TEST_KDUMPFILE, test builds only):
 * the real library behind it, but addrxlat_ctx_new() found first is this
 * one, as when the libkdumpfile loaded was built on another libaddrxlat
 * than the one kmempool links.  kmempool must refuse to use it, naming both.
 */
#include <libkdumpfile/addrxlat.h>
#include <stddef.h>

addrxlat_ctx_t *addrxlat_ctx_new(void)
{
	return NULL;
}
