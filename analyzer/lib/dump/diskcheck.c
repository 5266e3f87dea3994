// SPDX-License-Identifier: GPL-2.0
/* kmempool: the one parse of a kdump-compressed header; see diskcheck.h. */
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

bool kmp_ddhdr_read(kmp_dump_read_fn rd, void *arg, uint64_t size, const char *path,
		    struct kmp_ddhdr *hdr, struct kmp_err *err)
{
	unsigned char h[DD_H_SIZE], s[DD_S_SIZE];
	uint64_t bs, sub, bitmap, cpus, bits;

	memset(hdr, 0, sizeof(*hdr));
	if (rd(arg, h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump header truncated (the file has %" PRIu64 " bytes)",
			   path, size);
		return false;
	}
	hdr->version = (uint32_t)kmp_dd_le(h + DD_H_VERSION, 4);
	hdr->status = (uint32_t)kmp_dd_le(h + DD_H_STATUS, 4);
	bs = kmp_dd_le(h + DD_H_BLOCK_SIZE, 4);
	sub = kmp_dd_le(h + DD_H_SUB_HDR_SIZE, 4);
	bitmap = kmp_dd_le(h + DD_H_BITMAP_BLOCKS, 4);
	hdr->max_mapnr = kmp_dd_le(h + DD_H_MAX_MAPNR, 4);
	cpus = kmp_dd_le(h + DD_H_NR_CPUS, 4);
	memcpy(hdr->machine, h + DD_H_MACHINE, DD_UTS_LEN);
	hdr->machine[DD_UTS_LEN] = '\0';
	if (hdr->version == 0 || hdr->version > 64) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump header version %" PRIu32 " is unknown", path,
			   hdr->version);
		return false;
	}
	if (bs < 512 || bs > (1u << 20) || (bs & (bs - 1))) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump block size %" PRIu64 " is no power of two between 512 "
			   "and 1 MiB", path, bs);
		return false;
	}
	/* sub + bitmap < 2^33 blocks of <= 2^20 bytes: no product below overflows */
	if (sub > 1024 || bitmap == 0 || cpus > 65536 ||
	    (size != UINT64_MAX && !inside(bs, (sub + bitmap) * bs, size))) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump header does not fit the file (truncated, or a damaged "
			   "header): %" PRIu64 " sub-header and %"
			   PRIu64 " bitmap blocks of %" PRIu64 " bytes, %" PRIu64 " CPUs, file of %"
			   PRIu64 " bytes", path, sub, bitmap, bs, cpus, size);
		return false;
	}
	hdr->block_size = (uint32_t)bs;
	hdr->sub_blocks = (uint32_t)sub;
	hdr->bitmap_blocks = (uint32_t)bitmap;
	hdr->nr_cpus = (uint32_t)cpus;
	hdr->bitmap_off = (1 + sub) * bs;
	hdr->bitmap_len = bitmap * bs;
	/* The bitmaps: two halves of bitmap_blocks, one bit per page each. */
	bits = bitmap * bs * 8 / 2;
	if (sub) {
		if (sub * bs < DD_S_SIZE || rd(arg, s, sizeof(s), bs) != (ssize_t)sizeof(s)) {
			kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump sub header truncated", path);
			return false;
		}
		hdr->phys_base = kmp_dd_le(s + DD_S_PHYS_BASE, 8);
		hdr->dump_level = (uint32_t)kmp_dd_le(s + DD_S_DUMP_LEVEL, 4);
		hdr->split = (uint32_t)kmp_dd_le(s + DD_S_SPLIT, 4);
		if (hdr->version >= 3) {
			hdr->vmcoreinfo_off = kmp_dd_le(s + DD_S_OFF_VMCOREINFO, 8);
			hdr->vmcoreinfo_len = kmp_dd_le(s + DD_S_OFF_VMCOREINFO + 8, 8);
		}
		if (hdr->version >= 4) {
			hdr->notes_off = kmp_dd_le(s + DD_S_OFF_NOTE, 8);
			hdr->notes_len = kmp_dd_le(s + DD_S_OFF_NOTE + 8, 8);
		}
		if (hdr->version >= 6)
			hdr->max_mapnr = kmp_dd_le(s + DD_S_MAX_MAPNR_64, 8);
		if (hdr->vmcoreinfo_len > KMP_DD_NOTES_MAX || hdr->notes_len > KMP_DD_NOTES_MAX ||
		    (size != UINT64_MAX &&
		     (!inside(hdr->vmcoreinfo_off, hdr->vmcoreinfo_len, size) ||
		      !inside(hdr->notes_off, hdr->notes_len, size)))) {
			kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump sub header points past the end of the file "
				   "(VMCOREINFO or notes)", path);
			return false;
		}
	}
	if (hdr->max_mapnr > bits) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: kdump header claims %" PRIu64 " pages, its bitmaps hold %"
			   PRIu64, path, hdr->max_mapnr, bits);
		return false;
	}
	return true;
}

bool kmp_diskdump_check(kmp_dump_read_fn rd, void *arg, uint64_t size, const char *path,
			struct kmp_err *err)
{
	struct kmp_ddhdr hdr;

	return kmp_ddhdr_read(rd, arg, size, path, &hdr, err);
}
