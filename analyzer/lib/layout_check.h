/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: sanity of a layout read from DWARF. */
#ifndef KMP_LAYOUT_CHECK_H
#define KMP_LAYOUT_CHECK_H

#include "kmp.h"
#include "layout.h"

/* Bound for the size of struct mempool_s and any offset (64 KiB). */
#define KMP_MAX_STRUCT 65536

/*
 * Every field of struct mempool_s inside the struct, integers of 1, 2, 4
 * or 8 bytes, the pool size above 0 and at most KMP_MAX_STRUCT, other
 * offsets and sizes bounded.  False with @err (naming @path) otherwise.
 */
bool kmp_layout_check(const struct kmp_layout *l, const char *path, struct kmp_err *err);

#endif
