/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the kdump-compressed file format (makedumpfile's
 * diskdump_mod.h, 64-bit), shared by the header check (diskcheck.c) and
 * the page reader (diskdump.c).  The header (struct disk_dump_header)
 * fills block 0: the signature, header_version, the utsname (6 x 65
 * bytes), a timeval, then status, block_size, sub_hdr_size, bitmap_blocks,
 * max_mapnr, ..., nr_cpus.  The sub header (struct kdump_sub_header)
 * starts at block 1: phys_base, dump_level, split, ..., the offsets and
 * sizes of VMCOREINFO and the notes, and from version 6 max_mapnr_64.
 * Little-endian, as every dump of an x86_64 kernel is.
 */
#ifndef KMP_DISKDUMP_FMT_H
#define KMP_DISKDUMP_FMT_H

#include <stddef.h>
#include <stdint.h>

#define DD_H_VERSION		8
#define DD_H_MACHINE		272	/* utsname.machine, 65 bytes */
#define DD_UTS_LEN		65
#define DD_H_STATUS		424
#define DD_H_BLOCK_SIZE		428
#define DD_H_SUB_HDR_SIZE	432
#define DD_H_BITMAP_BLOCKS	436
#define DD_H_MAX_MAPNR		440
#define DD_H_NR_CPUS		460
#define DD_H_SIZE		464
#define DD_S_PHYS_BASE		0
#define DD_S_DUMP_LEVEL		8
#define DD_S_SPLIT		12
#define DD_S_OFF_VMCOREINFO	32	/* offset and size, 8 bytes each */
#define DD_S_OFF_NOTE		48
#define DD_S_MAX_MAPNR_64	96	/* header_version >= 6 */
#define DD_S_SIZE		104

/* The @n-byte little-endian number at @p. */
static inline uint64_t kmp_dd_le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i > 0; i--)
		v = (v << 8) | p[i - 1];
	return v;
}

#endif
