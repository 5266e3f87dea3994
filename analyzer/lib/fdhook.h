/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: a narrow pread() hook.  libkdumpfile reads its dump with
 * pread(); this file defines pread() in the executable so that reads of a
 * registered descriptor go to a callback (to check them for truncation,
 * or to serve a flattened dump's reassembled view).  Every other
 * descriptor reads through the system call, as before.
 */
#ifndef KMP_FDHOOK_H
#define KMP_FDHOOK_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Called for pread(@fd, @buf, @count, @offset) on a registered @fd;
 * returns what pread() returns (and sets errno on -1).
 */
typedef ssize_t (*kmp_fdhook_fn)(void *arg, int fd, void *buf, size_t count, off_t offset);

/* Route reads of @fd to @fn; false when all slots are taken or @fd < 0. */
bool kmp_fdhook_register(int fd, kmp_fdhook_fn fn, void *arg);
/* Stop routing @fd (before it is closed: its number may be reused). */
void kmp_fdhook_unregister(int fd);
/* The system call itself, for the callbacks. */
ssize_t kmp_real_pread(int fd, void *buf, size_t count, off_t offset);

#endif
