// SPDX-License-Identifier: GPL-2.0
/* kmempool: sanity of a kdump-compressed header, before libkdumpfile. */
#include <inttypes.h>
#include <string.h>

#include "diskcheck.h"
#include "diskdump_fmt.h"

bool kmp_is_diskdump(const void *head, size_t len)
{
	return len >= 8 && (!memcmp(head, "KDUMP   ", 8) || !memcmp(head, "DISKDUMP", 8));
}

/* [off, off + len) inside a file of @size bytes, without overflow. */
static bool inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

bool kmp_diskdump_check(kmp_dump_read_fn rd, void *arg, uint64_t size, const char *path,
			struct kmp_err *err)
{
	unsigned char h[DD_H_SIZE], s[DD_S_SIZE];
	uint64_t version, bs, sub, bitmap, mapnr, cpus, bits;

	if (rd(arg, h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump header truncated (the file has %" PRIu64 " bytes)",
			   path, size);
		return false;
	}
	version = kmp_dd_le(h + DD_H_VERSION, 4);
	bs = kmp_dd_le(h + DD_H_BLOCK_SIZE, 4);
	sub = kmp_dd_le(h + DD_H_SUB_HDR_SIZE, 4);
	bitmap = kmp_dd_le(h + DD_H_BITMAP_BLOCKS, 4);
	mapnr = kmp_dd_le(h + DD_H_MAX_MAPNR, 4);
	cpus = kmp_dd_le(h + DD_H_NR_CPUS, 4);
	if (version == 0 || version > 64) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump header version %" PRIu64 " is unknown", path, version);
		return false;
	}
	if (bs < 512 || bs > (1u << 20) || (bs & (bs - 1))) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump block size %" PRIu64 " is no power of two between 512 "
			   "and 1 MiB", path, bs);
		return false;
	}
	if (sub > 1024 || bitmap == 0 || cpus > 65536 ||
	    !inside(bs, (sub + bitmap) * bs, size)) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump header does not fit the file (truncated, or a damaged "
			   "header): %" PRIu64 " sub-header and %"
			   PRIu64 " bitmap blocks of %" PRIu64 " bytes, %" PRIu64 " CPUs, file of %"
			   PRIu64 " bytes", path, sub, bitmap, bs, cpus, size);
		return false;
	}
	/* The bitmaps: two halves of bitmap_blocks, one bit per page each. */
	bits = bitmap * bs * 8 / 2;
	if (sub && version >= 6) {
		if (sub * bs < DD_S_SIZE || rd(arg, s, sizeof(s), bs) != (ssize_t)sizeof(s)) {
			kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump sub header truncated", path);
			return false;
		}
		mapnr = kmp_dd_le(s + DD_S_MAX_MAPNR_64, 8);
		if (!inside(kmp_dd_le(s + DD_S_OFF_VMCOREINFO, 8), kmp_dd_le(s + DD_S_OFF_VMCOREINFO + 8, 8), size) ||
		    kmp_dd_le(s + DD_S_OFF_VMCOREINFO + 8, 8) > (1u << 20) ||
		    !inside(kmp_dd_le(s + DD_S_OFF_NOTE, 8), kmp_dd_le(s + DD_S_OFF_NOTE + 8, 8), size)) {
			kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump sub header points past the end of the file "
				   "(VMCOREINFO or notes)", path);
			return false;
		}
	}
	if (mapnr > bits) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump header claims %" PRIu64 " pages, its bitmaps hold %"
			   PRIu64, path, mapnr, bits);
		return false;
	}
	return true;
}
