/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: the panic message from the kernel log of a core. */
#ifndef KMP_PRINTK_H
#define KMP_PRINTK_H

#include "mem.h"
#include "vmlinux.h"

/*
 * Put the newest "Kernel panic - not syncing: ..." line of the kernel log
 * into @out.  @prb is the runtime address of the kernel's prb pointer (0:
 * no such symbol), @cu_addr the link-time address of code in
 * printk_ringbuffer.c (its compilation unit has the layouts).  Returns 1
 * if found, 0 if the log has none, -1 with @err set if the log cannot be
 * read.
 */
int kmp_find_panic(struct kmp_vmlinux *v, struct kmp_mem *mem, uint64_t prb,
		   uint64_t cu_addr, bool no_aranges, char *out, size_t len,
		   struct kmp_err *err);

#endif
