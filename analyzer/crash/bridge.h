/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool crash extension: the boundary between crash's world (defs.h,
 * kmempool_crash.c) and kmempool's (libkmempool, bridge.c).  Only plain C
 * types cross it, so neither side includes the other's headers.
 */
#ifndef KMP_CRASH_BRIDGE_H
#define KMP_CRASH_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct kmp_crash_target {
	/* Read @len bytes at kernel virtual @addr; false if unreadable. */
	bool (*read)(uint64_t addr, void *buf, size_t len);
	const char *vmlinux;	/* the vmlinux with DWARF crash loaded */
	const char *vmcoreinfo;	/* VMCOREINFO as KEY=VALUE lines */
	const char *source;	/* the dump (for JSON and messages) */
	/* A symbol's link-time (unrelocated) address from crash; false if unknown. */
	bool (*symbol)(const char *name, uint64_t *addr);
};

/*
 * Run kmempool's command line @argv (argv[0] is the program name; no -c,
 * -s, -h or -V) on @t, printing to @out and errors to stderr.  Returns the
 * CLI's exit status.  Not reentrant.
 */
int kmp_crash_run(const struct kmp_crash_target *t, int argc, char **argv, FILE *out);

#endif
