/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: memory mapped ahead of its first use.  A page first touched
 * costs a page fault, and a fault is dear where kmempool runs: about
 * 17 us in a VM whose page tables the hypervisor keeps (one trap each),
 * 1-2 us on bare metal, against well under 1 us a page for the kernel
 * mapping a range in one madvise(MADV_POPULATE_WRITE) call.  For buffers
 * about to be written through, page by page (a dump reader's pages, data
 * read from a file).  Linux 5.14 and later; on older kernels, or when the
 * call fails, the pages fault in as before.
 */
#ifndef KMP_PREFAULT_H
#define KMP_PREFAULT_H

#include <stddef.h>

/* Map the whole pages inside [@p, @p + @len) now, writable (contents unchanged). */
void kmp_prefault(void *p, size_t len);

/* Map the pages of [@p, @p + @len) of a read-only file mapping now (reading them in if need be). */
void kmp_prefault_read(const void *p, size_t len);

#endif
