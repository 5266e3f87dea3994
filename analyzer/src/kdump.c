// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: vmcores (ELF, kdump-compressed, uncompressed kdump) through
 * libkdumpfile, which translates kernel virtual addresses.
 */
#include <errno.h>
#include <libkdumpfile/kdumpfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core.h"

#define KMP_KDUMP_CACHE_PAGES 64

struct kdump {
	kdump_ctx_t *ctx;
	int fd;
};

/*
 * libkdumpfile 0.5.1 takes a read past the end of a truncated dump for a
 * page of zeros, so a cut-short dump would yield zeroed page tables and
 * list heads instead of an error.  This pread() stands in for the C
 * library's (libkdumpfile calls pread; the executable's definition comes
 * first): for the dump's descriptor, a short read, which for a regular
 * file means end of file, becomes an error, and the offset is kept for
 * the message.  Every other descriptor reads as before.
 */
static struct {
	int fd;
	off_t size;
	off_t offset;		/* of the first read past the end in the current
				 * step (opening, one kdump_read()), or -1 */
} watch = { -1, 0, -1 };

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	long ret = syscall(SYS_pread64, fd, buf, count, offset);

	if (fd == watch.fd && fd >= 0 && ret >= 0 && (size_t)ret < count) {
		if (watch.offset < 0)
			watch.offset = offset + ret;
		errno = EIO;
		return -1;
	}
	return ret;
}

static bool kdump_mem_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
			   struct kmp_err *err)
{
	struct kdump *k = mem->priv;
	size_t size = len;
	kdump_status st;

	watch.offset = -1;	/* did this read run past the end of the file? */
	st = kdump_read(k->ctx, KDUMP_KVADDR, addr, buf, &size);
	if (st == KDUMP_OK && size == len)
		return true;
	if (watch.offset >= 0)
		kmp_seterr(err, "address 0x%llx is not in the dump: its data would be at "
			   "offset %lld, past the end of the file (%lld bytes); the dump "
			   "is truncated", (unsigned long long)(addr + size),
			   (long long)watch.offset, (long long)watch.size);
	else if (st == KDUMP_ERR_NODATA)
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
	if (watch.fd == k->fd)
		watch.fd = -1;
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
	struct stat stbuf;
	kdump_status st;
	char *raw = NULL;

	if (!k || !(k->ctx = kdump_new())) {
		kmp_seterr(err, "out of memory");
		free(k);
		close(fd);
		return KMP_ECORE;
	}
	k->fd = fd;
	/*
	 * The walk reads a few hundred scattered pages once each: a small
	 * page cache is enough, and keeps memory use to a few MB (the
	 * default of 1024 pages costs 12 MB).  Best effort.
	 */
	kdump_set_number_attr(k->ctx, "cache.size", KMP_KDUMP_CACHE_PAGES);
	if (!fstat(fd, &stbuf)) {
		watch.fd = fd;
		watch.size = stbuf.st_size;
		watch.offset = -1;
	}
	st = kdump_open_fd(k->ctx, fd);
	if (st != KDUMP_OK && watch.offset >= 0) {
		kmp_seterr(err, "%s is not a kernel dump libkdumpfile can read: %s (reads "
			   "went past its end at %lld bytes: if it is a dump, it is truncated)",
			   core->path, kdump_get_err(k->ctx), (long long)watch.size);
		goto fail;
	}
	if (st != KDUMP_OK) {
		kmp_seterr(err, "%s is not a kernel dump libkdumpfile can read: %s",
			   core->path, kdump_get_err(k->ctx));
		goto fail;
	}
	watch.offset = -1;
	st = kdump_set_string_attr(k->ctx, "addrxlat.ostype", "linux");
	if (st != KDUMP_OK && watch.offset >= 0) {
		kmp_seterr(err, "%s is truncated: the data needed to translate kernel "
			   "addresses lies past the end of the file (%lld bytes)", core->path,
			   (long long)watch.size);
		goto fail;
	}
	if (st != KDUMP_OK) {
		kmp_seterr(err, "%s: cannot set up Linux address translation: %s",
			   core->path, kdump_get_err(k->ctx) ? kdump_get_err(k->ctx) :
			   "unknown error");
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
	watch.fd = -1;
	free(k);
	close(fd);
	return KMP_ECORE;
}
