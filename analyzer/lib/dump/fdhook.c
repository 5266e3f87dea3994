// SPDX-License-Identifier: GPL-2.0
/* kmempool: pread() for registered descriptors only; see fdhook.h. */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fdhook.h"

struct slot {
	int fd;			/* the descriptor + 1; 0: a free slot */
	kmp_fdhook_fn fn;
	void *arg;
	unsigned long hits;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot hooks[KMP_FDHOOK_SLOTS];
/*
 * Slots in use: while none is, a pread() of the process (libelf's, a live
 * scan's /proc/kcore reads) goes to the system call without the lock.  A
 * descriptor is registered before it is handed to the library that reads
 * it, so a read of it never sees 0 here.
 */
static atomic_uint nhooked;

ssize_t kmp_real_pread(int fd, void *buf, size_t count, off_t offset)
{
	return syscall(SYS_pread64, fd, buf, count, offset);
}

/* The slot of @fd, or NULL; under the lock. */
static struct slot *find(int fd)
{
	for (size_t i = 0; fd >= 0 && i < KMP_FDHOOK_SLOTS; i++)
		if (hooks[i].fd == fd + 1)
			return &hooks[i];
	return NULL;
}

/* A slot for @fd: its own, else a free one, else NULL; under the lock. */
static struct slot *take(int fd)
{
	struct slot *s = find(fd);

	for (size_t i = 0; !s && i < KMP_FDHOOK_SLOTS; i++)
		if (!hooks[i].fd)
			s = &hooks[i];
	return s;
}

bool kmp_fdhook_register(int fd, kmp_fdhook_fn fn, void *arg)
{
	struct slot *s;

	if (fd < 0 || !fn)
		return false;
	pthread_mutex_lock(&lock);
	s = take(fd);
	if (s) {
		if (!s->fd)
			atomic_fetch_add(&nhooked, 1);
		*s = (struct slot){ fd + 1, fn, arg, 0 };
	}
	pthread_mutex_unlock(&lock);
	return s;
}

void kmp_fdhook_unregister(int fd)
{
	struct slot *s;

	pthread_mutex_lock(&lock);
	s = find(fd);
	if (s) {
		*s = (struct slot){ 0, NULL, NULL, 0 };
		atomic_fetch_sub(&nhooked, 1);
	}
	pthread_mutex_unlock(&lock);
}

unsigned long kmp_fdhook_hits(int fd)
{
	unsigned long hits;
	struct slot *s;

	pthread_mutex_lock(&lock);
	s = find(fd);
	hits = s ? s->hits : 0;
	pthread_mutex_unlock(&lock);
	return hits;
}

/*
 * Stands in for the C library's pread(): the executable's definition is
 * found first, also by libkdumpfile, which kmempool loads with dlopen()
 * (kdumpdl.c) - so the executable exports it on purpose, by name
 * (cli/kmempool.dynlist, analyzer/Makefile), not because some library it
 * links happens to call pread().
 */
ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	kmp_fdhook_fn fn = NULL;
	void *arg = NULL;
	struct slot *s;

	if (!atomic_load(&nhooked))
		return kmp_real_pread(fd, buf, count, offset);
	pthread_mutex_lock(&lock);
	s = find(fd);
	if (s) {
		s->hits++;
		fn = s->fn;
		arg = s->arg;
	}
	pthread_mutex_unlock(&lock);
	if (fn)
		return fn(arg, fd, buf, count, offset);
	return kmp_real_pread(fd, buf, count, offset);
}
