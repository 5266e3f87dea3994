/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the address translation of a kdump-compressed dump of an
 * x86_64 Linux kernel, set up here as libkdumpfile sets it up (the same
 * libaddrxlat call, with the same options and the same answers to its
 * questions), so that such a dump is read without opening it in
 * libkdumpfile at all: no parsing of its headers into attributes, no page
 * cache, no zlib inflating of page tables.  The options: architecture
 * x86_64, OS linux, the version code of the release, the page shift, the
 * physical base (VMCOREINFO's NUMBER(phys_base) if it has one, the
 * sub-header's otherwise).  The answers: symbols, numbers, sizes and
 * offsets from VMCOREINFO's lines, parsed as libkdumpfile parses them; no
 * registers (a dump's CPU notes carry no control registers); pages of
 * machine-physical memory from the caller.  A dump of another
 * architecture or without VMCOREINFO is not taken (nor a Xen one, which
 * diskdump.c does not open), nor one whose
 * set-up needed a page the caller did not have.  Afterwards a page-table
 * page it does not have makes that address fail here (the caller then
 * asks libkdumpfile).
 * tests/ddcheck.c compares every method and map of the result with
 * libkdumpfile's on each dump the tests capture.
 */
#ifndef KMP_DDXLAT_H
#define KMP_DDXLAT_H

#include <stdbool.h>
#include <stdint.h>

#include <libkdumpfile/addrxlat.h>

#include "diskdump.h"

/* The page at @pfn, page_size bytes, valid until the next call; NULL: not there. */
typedef const unsigned char *(*kmp_ddxlat_page_fn)(void *arg, uint64_t pfn);

/* One reader's translation: a context of its own over a shared system. */
struct kmp_ddxlat;

/* The translation of @d (a dump kmp_diskdump_open() took); NULL if this file does not take it. */
struct kmp_ddxlat *kmp_ddxlat_new(const struct kmp_diskdump *d, kmp_ddxlat_page_fn page,
				  void *arg);
/* Another reader's, over the same system. */
struct kmp_ddxlat *kmp_ddxlat_clone(const struct kmp_ddxlat *x, kmp_ddxlat_page_fn page,
				    void *arg);
void kmp_ddxlat_free(struct kmp_ddxlat *x);

/*
 * The kernel-physical address of kernel virtual address @va in *@pa:
 * ADDRXLAT_OK, or libaddrxlat's status (ADDRXLAT_ERR_NOTPRESENT: the page
 * tables map nothing there) with its message in kmp_ddxlat_err().
 */
addrxlat_status kmp_ddxlat_conv(struct kmp_ddxlat *x, uint64_t va, uint64_t *pa);
const char *kmp_ddxlat_err(const struct kmp_ddxlat *x);

/* The system, for comparing it with libkdumpfile's (tests). */
const addrxlat_sys_t *kmp_ddxlat_sys(const struct kmp_ddxlat *x);

#endif
