/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: open a core (/proc/kcore or a vmcore) as a memory reader. */
#ifndef KMP_CORE_H
#define KMP_CORE_H

#include "flat.h"
#include "mem.h"

struct kmp_core {
	struct kmp_mem mem;
	char format[64];	/* "kcore", "elf", "diskdump", "flattened diskdump", ... */
	char *vmcoreinfo;	/* raw VMCOREINFO text, malloc'ed, may be NULL */
	char path[4096];
};

/* False with @err set (its kind: the dump, no memory, ...) when it cannot be used. */
bool kmp_core_open(struct kmp_core *core, const char *path, struct kmp_err *err);
/*
 * The same for a descriptor opened by the caller (kmempool triage opens
 * each dump once, checks what it opened, and hands the descriptor to the
 * worker); @path names it in messages only.  The core owns @fd from here
 * on, also when it fails.
 */
bool kmp_core_open_fd(struct kmp_core *core, int fd, const char *path, struct kmp_err *err);
/* Is the open file @fd on procfs (/proc/kcore, /proc/vmcore)? */
bool kmp_core_is_procfs(int fd);
/* Any core, whoever opened it: its reader's close() (session.c, no file code). */
void kmp_core_close(struct kmp_core *core);

/* Backends, used by kmp_core_open(). */
bool kmp_kcore_open(struct kmp_core *core, int fd, struct kmp_err *err);
/* What kmp_core_open() learned about a dump before libkdumpfile reads it. */
struct kmp_dumpinfo {
	struct kmp_flat *flat;	/* a flattened dump's index (malloc'ed; the
				 * backend owns it), or NULL */
	bool cut_short;		/* its headers say data lies past the end of the
				 * file: every short read is an error */
};
bool kmp_kdump_open(struct kmp_core *core, int fd, const struct kmp_dumpinfo *info,
		    struct kmp_err *err);

#endif
