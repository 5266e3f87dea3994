/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: a blocked task's kernel stack unwound with the kernel's own ORC
 * tables (CONFIG_UNWINDER_ORC; issue 33 item 4), from memory: vmlinux's
 * between __start_orc_unwind_ip and __stop_orc_unwind_ip, each module's in
 * module.arch.  What varies across kernels is read, not assumed: the
 * layout of struct orc_entry and struct inactive_task_frame from the types
 * (DWARF or BTF), the bit fields with them; the type values from the
 * bit field the entry has (6.1's 'end': CALL 0, REGS 1, REGS_PARTIAL 2;
 * 'signal' from 6.4: END_OF_STACK 1, CALL 2, REGS 3, REGS_PARTIAL 4); and
 * the register numbers, which moved in 7.x (SP 5 to 3, PREV_SP 1 to 8)
 * and are in no type, from the data: the entry of a function's first
 * instruction says "CFA = SP + 8", whose register number is then SP's.
 */
#ifndef KMP_ORC_H
#define KMP_ORC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel.h"

#define KMP_ORC_MAX_FRAMES 48

struct kmp_orc;

/* Tell @vml the symbols kmp_orc_new() looks up (one read of the symbol tables a run). */
void kmp_orc_expect(struct kmp_vmlinux *vml);

/*
 * The unwinder of @k, or NULL with @why set when the kernel has no ORC
 * tables or their types (then no frames are printed).  Free with kmp_orc_free().
 */
struct kmp_orc *kmp_orc_new(const struct kmp_kernel *k, char *why, size_t len);
void kmp_orc_free(struct kmp_orc *o);

/*
 * The return addresses on the stack of the blocked task at @task,
 * innermost first (the first is where it was switched out), at most
 * @max; 0 when none could be unwound.  The walk stops at the end of the
 * stack, an entry frame (pt_regs), or anything it cannot follow.
 */
size_t kmp_orc_unwind(const struct kmp_orc *o, uint64_t task, uint64_t *pcs, size_t max);

/*
 * The frames above the mempool allocation the task waits in: the index in
 * @pcs of the first caller of the outermost mempool_alloc*() frame, or @n
 * when no frame lies in one.
 */
size_t kmp_orc_callers(const struct kmp_kernel *k, const uint64_t *pcs, size_t n);

#endif
