/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: libkdumpfile loaded with dlopen() when a dump first needs it.
 *
 * A kdump-compressed dump of an x86_64 kernel is read and translated by
 * kmempool itself (diskdump.c, ddxlat.c); libkdumpfile and what it brings
 * (libstdc++ through snappy, lzo, zstd: ~3 ms of every run's start) is
 * loaded only for the dumps and pages it reads.  Include this header, not
 * <libkdumpfile/kdumpfile.h>: the libkdumpfile functions kmempool calls,
 * the header's inline wrappers included, become kdumpdl.c's, which call
 * the library's once it is loaded.
 */
#ifndef KMP_KDUMPDL_H
#define KMP_KDUMPDL_H

#include <stdbool.h>
#include <stddef.h>

#define kdump_new kmp_kd_new
#define kdump_free kmp_kd_free
#define kdump_open_fdset kmp_kd_open_fdset
#define kdump_set_attr kmp_kd_set_attr
#define kdump_read kmp_kd_read
#define kdump_get_err kmp_kd_get_err
#define kdump_vmcoreinfo_raw kmp_kd_vmcoreinfo_raw
#define kdump_get_addrxlat kmp_kd_get_addrxlat
#include <libkdumpfile/kdumpfile.h>

/*
 * Load libkdumpfile (once; safe from any thread).  False if it cannot be
 * loaded or lacks a function, with why in @why (@len bytes).  kdump_new()
 * loads it too and returns NULL then.
 */
bool kmp_kd_load(char *why, size_t len);

/*
 * A number or string attribute of a loaded context: the header's
 * kdump_get_number_attr()/kdump_get_string_attr() change with the library
 * (0.5.5 gave kdump_get_typed_attr() the type as an argument and made them
 * functions), so kmempool asks through these, which kdumpdl.c builds for
 * the libkdumpfile it is compiled against (KDUMPFILE_VERSION).
 */
kdump_status kmp_kd_number_attr(kdump_ctx_t *ctx, const char *key, kdump_num_t *num);
kdump_status kmp_kd_string_attr(kdump_ctx_t *ctx, const char *key, const char **str);

#endif
