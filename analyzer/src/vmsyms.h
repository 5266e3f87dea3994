/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: vmlinux symbols by address. */
#ifndef KMP_VMSYMS_H
#define KMP_VMSYMS_H

#include "vmlinux.h"

/*
 * The function or object symbol of vmlinux that covers link-time address
 * @addr (the nearest one at or below it, within its size when it has
 * one).  @name points into the ELF string table (valid while @v is open).
 */
bool kmp_vmlinux_addrsym(struct kmp_vmlinux *v, uint64_t addr, const char **name,
			 uint64_t *start, uint64_t *size);

#endif
