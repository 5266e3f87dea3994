/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: a narrow pread() hook.  libkdumpfile reads its dump with
 * pread(); this file defines pread() in the executable so that reads of a
 * registered descriptor go to a callback (to check them for truncation,
 * or to serve a flattened dump's reassembled view).  Every other
 * descriptor reads through the system call, as before.
 *
 * A libkdumpfile that read another way (mmap(), preadv(), another
 * descriptor) would bypass the checks without a sign, so the hook counts
 * the reads it serves: kmp_kdump_open() refuses a dump whose opening it
 * saw none of.
 */
#ifndef KMP_FDHOOK_H
#define KMP_FDHOOK_H

#include <stdbool.h>
#include <sys/types.h>

/* Descriptors that can be hooked at the same time (one per open dump). */
#define KMP_FDHOOK_SLOTS 16

/*
 * Called for pread(@fd, @buf, @count, @offset) on a registered @fd;
 * returns what pread() returns (and sets errno on -1).
 */
typedef ssize_t (*kmp_fdhook_fn)(void *arg, int fd, void *buf, size_t count, off_t offset);

/*
 * Route reads of @fd to @fn, with a count of 0; false when all slots are
 * taken or @fd < 0.  The table is guarded by a lock; the callback runs
 * outside it, so it may read through pread() itself.
 */
bool kmp_fdhook_register(int fd, kmp_fdhook_fn fn, void *arg);
/*
 * Stop routing @fd (before it is closed: its number may be reused).  The
 * caller makes sure that no read of @fd is in flight (@arg may be freed).
 */
void kmp_fdhook_unregister(int fd);
/* The reads of @fd its callback served since it was registered; 0 if it is not. */
unsigned long kmp_fdhook_hits(int fd);
/* The system call itself, for the callbacks. */
ssize_t kmp_real_pread(int fd, void *buf, size_t count, off_t offset);

#endif
