// SPDX-License-Identifier: GPL-2.0
/* kmempool: sanity of a kdump-compressed header, before libkdumpfile. */
#include <inttypes.h>
#include <string.h>

#include "diskcheck.h"

/*
 * Offsets in the file format (makedumpfile's diskdump_mod.h, 64-bit):
 * the header fills block 0, the sub header starts at block 1.
 */
#define H_VERSION	8
#define H_BLOCK_SIZE	428
#define H_SUB_HDR_SIZE	432
#define H_BITMAP_BLOCKS	436
#define H_MAX_MAPNR	440
#define H_NR_CPUS	460
#define H_SIZE		464
#define S_OFF_VMCOREINFO 32	/* in the sub header: offset and size, 8 bytes each */
#define S_OFF_NOTE	48
#define S_MAX_MAPNR_64	96	/* header_version >= 6 */
#define S_SIZE		104

static uint64_t le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i > 0; i--)
		v = (v << 8) | p[i - 1];
	return v;
}

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
	unsigned char h[H_SIZE], s[S_SIZE];
	uint64_t version, bs, sub, bitmap, mapnr, cpus, bits;

	if (rd(arg, h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump header truncated (the file has %" PRIu64 " bytes)",
			   path, size);
		return false;
	}
	version = le(h + H_VERSION, 4);
	bs = le(h + H_BLOCK_SIZE, 4);
	sub = le(h + H_SUB_HDR_SIZE, 4);
	bitmap = le(h + H_BITMAP_BLOCKS, 4);
	mapnr = le(h + H_MAX_MAPNR, 4);
	cpus = le(h + H_NR_CPUS, 4);
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
		if (sub * bs < S_SIZE || rd(arg, s, sizeof(s), bs) != (ssize_t)sizeof(s)) {
			kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump sub header truncated", path);
			return false;
		}
		mapnr = le(s + S_MAX_MAPNR_64, 8);
		if (!inside(le(s + S_OFF_VMCOREINFO, 8), le(s + S_OFF_VMCOREINFO + 8, 8), size) ||
		    le(s + S_OFF_VMCOREINFO + 8, 8) > (1u << 20) ||
		    !inside(le(s + S_OFF_NOTE, 8), le(s + S_OFF_NOTE + 8, 8), size)) {
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
