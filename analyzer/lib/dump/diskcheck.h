/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the one parse of a kdump-compressed file's header
 * (makedumpfile's disk_dump_header and kdump_sub_header, a file format),
 * with the one set of bounds every user of it relies on: the check before
 * libkdumpfile sees the file (libkdumpfile 0.5.1 sizes its allocations
 * from these fields: a damaged header made it ask for exabytes, found by
 * fuzzing) and kmempool's own page reader (diskdump.c), which then only
 * decides what it takes.
 */
#ifndef KMP_DISKCHECK_H
#define KMP_DISKCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kmp.h"

/* Read @len bytes at @off of the dump (plain or reassembled); bytes read, -1 on error. */
typedef ssize_t (*kmp_dump_read_fn)(void *arg, void *buf, size_t len, uint64_t off);

/* Is @head the start of a kdump-compressed file ("KDUMP   ")? */
bool kmp_is_diskdump(const void *head, size_t len);

/* The notes' and VMCOREINFO's bound (a CPU's note is 336 bytes, VMCOREINFO a few KiB). */
#define KMP_DD_NOTES_MAX (4ULL << 20)

/* A header as kmp_ddhdr_read() found it, every field within its bounds. */
struct kmp_ddhdr {
	uint32_t version;		/* 1..64 */
	uint32_t status;		/* DD_STATUS_* */
	uint32_t block_size;		/* a power of two, 512 B..1 MiB: the page size */
	uint32_t sub_blocks;		/* the sub header's blocks, 0..1024 */
	uint32_t bitmap_blocks;		/* >= 1; both halves inside the file */
	uint32_t nr_cpus;		/* <= 65536 */
	uint64_t max_mapnr;		/* pfns; the 64-bit field from version 6; <= a half's bits */
	char machine[66];		/* utsname.machine, NUL-terminated */
	/* The sub header (sub_blocks >= 1): */
	uint64_t phys_base;
	uint32_t dump_level;		/* makedumpfile -d */
	uint32_t split;			/* one part of a --split set */
	uint64_t vmcoreinfo_off, vmcoreinfo_len;	/* version 3 on; inside the file, <= KMP_DD_NOTES_MAX */
	uint64_t notes_off, notes_len;			/* version 4 on; the same bounds */
	uint64_t bitmap_off, bitmap_len;		/* (1 + sub_blocks) and bitmap_blocks blocks */
};
#define DD_STATUS_INCOMPLETE		0x8
#define DD_STATUS_EXCLUDED_VMEMMAP	0x10

/*
 * Read the header of a kdump-compressed file of @size bytes (UINT64_MAX
 * when not known: the checks against the file's end are then left out).
 * False with @err (kind dump) naming the field that does not fit.
 */
bool kmp_ddhdr_read(kmp_dump_read_fn rd, void *arg, uint64_t size, const char *path,
		    struct kmp_ddhdr *hdr, struct kmp_err *err);

/* kmp_ddhdr_read() for its verdict only (core.c, before libkdumpfile). */
bool kmp_diskdump_check(kmp_dump_read_fn rd, void *arg, uint64_t size, const char *path,
			struct kmp_err *err);

#endif
