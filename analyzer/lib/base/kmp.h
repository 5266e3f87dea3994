/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: errors with a kind, and the exit statuses decided from them. */
#ifndef KMP_H
#define KMP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Exit statuses; documented in --help and kmempool(1).  Library functions
 * never return one: they return true, or false with one struct kmp_err
 * whose kind says what failed; which status a failure becomes is decided
 * once, by kmp_exit_status() from that kind (the front ends call it).
 */
enum kmp_exit {
	KMP_OK = 0,		/* complete report */
	KMP_EUSAGE = 1,		/* bad command line */
	KMP_ECORE = 2,		/* core missing, unreadable or not a kernel dump */
	KMP_EVMLINUX = 3,	/* vmlinux missing, unreadable or without debug info */
	KMP_EMISMATCH = 4,	/* vmlinux does not belong to the core */
	KMP_EPARTIAL = 5,	/* walk stopped at bad data: partial report */
	KMP_EFORMAT = 6,	/* kernel without mempool_list, or unknown format version */
	KMP_ECHANGED = 7,	/* live memory kept changing: no consistent snapshot */
	KMP_EOUTPUT = 8,	/* the report could not be written (disk full, closed pipe) */
	KMP_ENOMEM = 9,		/* out of memory */
};

/* What went wrong; see kmp_exit_status() for the status each becomes. */
enum kmp_errkind {
	KMP_ERR_NONE = 0,
	KMP_ERR_USAGE,		/* bad command line or arguments */
	KMP_ERR_DUMP,		/* the core is missing or not a usable kernel dump */
	KMP_ERR_VMLINUX,	/* the vmlinux is missing, unreadable, without debug info */
	KMP_ERR_MISMATCH,	/* the vmlinux does not belong to the core */
	KMP_ERR_EXCLUDED,	/* fault: the page was left out of the dump */
	KMP_ERR_PAST_EOF,	/* fault: the data would lie past the end of the file */
	KMP_ERR_UNMAPPED,	/* fault: no segment or translation holds the address */
	KMP_ERR_CORRUPT,	/* data that breaks the kernel's own rules */
	KMP_ERR_CHANGED,	/* live memory changed under every attempt to read it */
	KMP_ERR_FORMAT,		/* the kernel lacks what is needed (mempool_list, a type) */
	KMP_ERR_IO,		/* read(2) or a library failed on an input file */
	KMP_ERR_OUTPUT,		/* writing the report failed */
	KMP_ERR_NOMEM,		/* out of memory */
};

#define KMP_ERRLEN 512

/* One error, filled by the layer that saw the problem. */
struct kmp_err {
	enum kmp_errkind kind;
	bool has_addr;		/* faults and corrupt data: the kernel address */
	uint64_t addr;
	char msg[KMP_ERRLEN];
};

/* Set @err to @kind with a message; clears the address. */
void kmp_seterr(struct kmp_err *err, enum kmp_errkind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same for a problem at kernel address @addr. */
void kmp_fault(struct kmp_err *err, enum kmp_errkind kind, uint64_t addr,
	       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * A new message for an error caused by @cause (usually quoting
 * cause->msg): the kind and the address are those of @cause.
 */
void kmp_wraperr(struct kmp_err *err, const struct kmp_err *cause, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "excluded", "past-eof", ...: the kind's name, for JSON and tests. */
const char *kmp_errkind_name(enum kmp_errkind kind);
/* True for the kinds that are a read fault at an address. */
bool kmp_err_is_fault(enum kmp_errkind kind);

/*
 * The exit status of a run that failed with @err.  @opened: the session
 * (core, vmlinux, layout) was set up, so a fault or corrupt data is in
 * the middle of a report (partial), not in the dump's own headers.
 */
int kmp_exit_status(const struct kmp_err *err, bool opened);

/*
 * Notes and progress (issue 35): the library writes nothing to stdout or
 * stderr.  What it says beside its result (a pool left out, a wait queue
 * not counted, a download's progress) goes to the caller's callbacks:
 * cli/main.c's print on stderr, which in the crash extension is the
 * bridge's stream to crash's output.
 *   note      one line, without a "kmempool: " prefix or a newline
 *   progress  a line that the next one replaces ("" clears it); NULL:
 *             nothing shows progress (not a terminal), none is made
 * Either may be NULL: its messages are dropped.
 */
typedef void (*kmp_note_fn)(const char *msg, void *arg);

struct kmp_notes {
	kmp_note_fn note;
	kmp_note_fn progress;
	void *arg;
};

/* A note to @n (may be NULL), formatted. */
void kmp_note(const struct kmp_notes *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A progress line to @n; nothing if it shows none. */
void kmp_progress(const struct kmp_notes *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Does @n show progress lines? */
bool kmp_progress_shown(const struct kmp_notes *n);

/*
 * 64 random bits (getrandom()), else the clock's and the process's: a
 * value that tells one file or table of this machine from another, not a
 * secret.
 */
uint64_t kmp_random64(void);

/*
 * What the library keeps per process (issue 35), and why; everything else
 * belongs to an object its caller owns (a session, its vmlinux with the
 * DWARF unit handles, a walk, a reader):
 *   dump/fdhook.c   the pread() hook table and its lock: pread() is one
 *                   symbol per process, which the executable defines and
 *                   exports by name (cli/kmempool.dynlist) so that
 *                   libkdumpfile, loaded with dlopen(), reads through it;
 *                   a count of hooked descriptors lets every other read
 *                   skip the lock
 *   dump/kdump.c    ctx_lock: one libkdumpfile call at a time in the
 *                   process (0.5.1 is not safe on two threads, even on two
 *                   contexts)
 *   dump/kdumpdl.c  libkdumpfile's function table, loaded once
 *                   (pthread_once): a library is loaded per process
 *   kernel/debuginfod.c  libdebuginfod's function table, loaded once
 *                   (pthread_once), kept loaded for libcurl's global state
 *   kernel/modules.c  syms_lock: a module's symbol index is made once, by
 *                   whichever thread asks first
 *   mempool/pools.c kmp_live_pause_ns, the pause between walks of live
 *                   memory (a setting: the fuzzers make it 0)
 * The crash extension links no fdhook.c, kdump.c or kdumpdl.c
 * (libkmempool-core.a).  tests/quiet.sh checks that no object of lib/
 * writes to stdout or stderr.
 */

#endif
