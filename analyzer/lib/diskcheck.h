/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: check a kdump-compressed file's header (makedumpfile's
 * disk_dump_header and kdump_sub_header, a file format) against the file's
 * size before libkdumpfile sees it.  libkdumpfile 0.5.1 sizes its
 * allocations from these fields: a damaged header made it ask for
 * exabytes (found by fuzzing).
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

/*
 * Check the header of a kdump-compressed file of @size bytes.  False
 * with @err naming the field that does not fit.
 */
bool kmp_diskdump_check(kmp_dump_read_fn rd, void *arg, uint64_t size, const char *path,
			struct kmp_err *err);

#endif
