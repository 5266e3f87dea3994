// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: vmcores (ELF, kdump-compressed, uncompressed kdump) through
 * libkdumpfile, which translates kernel virtual addresses.
 */
#include <libkdumpfile/kdumpfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

struct kdump {
	kdump_ctx_t *ctx;
	int fd;
};

static bool kdump_mem_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
			   struct kmp_err *err)
{
	struct kdump *k = mem->priv;
	size_t size = len;
	kdump_status st;

	st = kdump_read(k->ctx, KDUMP_KVADDR, addr, buf, &size);
	if (st == KDUMP_OK && size == len)
		return true;
	if (st == KDUMP_ERR_NODATA)
		kmp_seterr(err, "address 0x%llx is not in the dump (page excluded by "
			   "makedumpfile, or beyond a truncated file)",
			   (unsigned long long)(addr + size));
	else
		kmp_seterr(err, "cannot read 0x%llx from the dump: %s",
			   (unsigned long long)(addr + size),
			   st == KDUMP_OK ? "short read" : kdump_get_err(k->ctx));
	return false;
}

static void kdump_mem_close(struct kmp_mem *mem)
{
	struct kdump *k = mem->priv;

	kdump_free(k->ctx);
	close(k->fd);
	free(k);
}

static const struct kmp_mem_ops kdump_ops = {
	.read = kdump_mem_read,
	.close = kdump_mem_close,
};

int kmp_kdump_open(struct kmp_core *core, int fd, struct kmp_err *err)
{
	struct kdump *k = calloc(1, sizeof(*k));
	const char *fmt = NULL;
	kdump_status st;
	char *raw = NULL;

	if (!k || !(k->ctx = kdump_new())) {
		kmp_seterr(err, "out of memory");
		free(k);
		close(fd);
		return KMP_ECORE;
	}
	k->fd = fd;
	st = kdump_open_fd(k->ctx, fd);
	if (st != KDUMP_OK) {
		kmp_seterr(err, "%s is not a kernel dump libkdumpfile can read: %s",
			   core->path, kdump_get_err(k->ctx));
		goto fail;
	}
	st = kdump_set_string_attr(k->ctx, "addrxlat.ostype", "linux");
	if (st != KDUMP_OK) {
		kmp_seterr(err, "%s: cannot set up Linux address translation: %s",
			   core->path, kdump_get_err(k->ctx));
		goto fail;
	}
	if (kdump_vmcoreinfo_raw(k->ctx, &raw) == KDUMP_OK)
		core->vmcoreinfo = raw;
	if (kdump_get_string_attr(k->ctx, KDUMP_ATTR_FILE_FORMAT, &fmt) != KDUMP_OK)
		fmt = "unknown";
	snprintf(core->format, sizeof(core->format), "%s", fmt);
	core->mem.ops = &kdump_ops;
	core->mem.priv = k;
	return KMP_OK;
fail:
	kdump_free(k->ctx);
	free(k);
	close(fd);
	return KMP_ECORE;
}
