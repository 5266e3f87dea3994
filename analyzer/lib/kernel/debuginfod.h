/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: debug files from debuginfod servers (issue 20), by build ID,
 * through elfutils' client library libdebuginfod.  The library is loaded
 * (dlopen) only when DEBUGINFOD_URLS names a server, as libdw does: a
 * machine without DEBUGINFOD_URLS runs exactly the code it ran before, and
 * one without libdebuginfod.so.1 still runs kmempool.  The client's cache
 * (DEBUGINFOD_CACHE_PATH, default ~/.cache/debuginfod_client) keeps what
 * was downloaded: a second look-up needs no server.
 */
#ifndef KMP_DEBUGINFOD_H
#define KMP_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"

/* DEBUGINFOD_URLS is set and not empty. */
bool kmp_debuginfod_enabled(void);

/*
 * The debug file (DWARF) of build ID @build_id (lower-case hex, 2 to 128
 * digits), from the cache or the servers: true with the cached file's path
 * in @out; false with one line in @why (not found, no server answered,
 * libdebuginfod cannot be loaded).  @what names the file in the progress
 * line ("vmlinux 6.1.0-27-amd64"), sent to @notes' progress when it shows
 * one, and the size and time of a download to its note.
 */
bool kmp_debuginfod_find(const char *build_id, const char *what, char *out, size_t len,
			 char *why, size_t whylen, const struct kmp_notes *notes);

/*
 * The debug file of loaded module @mod (its build ID read from memory,
 * modbuildid.h): true with its path in @out.  False when debuginfod is not
 * enabled, or after one note (k->notes) saying why nothing was found.
 */
bool kmp_debuginfod_module(const struct kmp_kernel *k, const char *mod, char *out, size_t len);

#endif
