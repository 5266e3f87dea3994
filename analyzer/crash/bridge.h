/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool crash extension: the boundary between crash's world (defs.h,
 * kmempool_crash.c) and kmempool's (libkmempool-core.a, bridge.c).  Only
 * plain C types cross it, so neither side includes the other's headers.
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
	FILE *out;		/* where the command prints: crash's fp */
};

/* kmp_crash_run()'s result when SIGINT came while the command ran. */
#define KMP_CRASH_INTERRUPTED (-1)

/*
 * Run kmempool's command line @argv (argv[0] is the program name; no -c,
 * -s, -h or -V) on @t, printing to t->out and errors to stderr.  Returns the
 * CLI's exit status, or KMP_CRASH_INTERRUPTED.
 *
 * Nothing it allocates survives it: while it runs, SIGINT (if a handler,
 * crash's restart(), is installed) only marks the command interrupted; every
 * read fails from then on, output is dropped, the command unwinds
 * through its own error paths, freeing everything, and crash's handler is
 * back in place before it returns.  The caller then delivers the interrupt
 * (raise(SIGINT)) at a point where nothing of kmempool's is open.  Should a
 * longjmp still leave it (an error(FATAL) of crash's under a read), the
 * session stays where kmp_crash_cleanup() finds it.  Not reentrant.
 */
int kmp_crash_run(const struct kmp_crash_target *t, int argc, char **argv);

/*
 * Close what a command left open when crash longjmped out of it (the
 * session: its file descriptor, mapping and DWARF), put crash's SIGINT
 * handler and getopt state back.  Idempotent; for crash's per-command
 * cleanup (pc->cmd_cleanup), the next command, and unloading.
 */
void kmp_crash_cleanup(void);

/* At unload: kmp_crash_cleanup(), and the bridge's state forgotten. */
void kmp_crash_unload(void);

#endif
