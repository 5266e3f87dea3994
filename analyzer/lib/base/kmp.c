// SPDX-License-Identifier: GPL-2.0
/* kmempool: errors with a kind, and the one place exit statuses come from. */
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "kmp.h"

static void vset(struct kmp_err *err, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vset(struct kmp_err *err, const char *fmt, va_list ap)
{
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

void kmp_seterr(struct kmp_err *err, enum kmp_errkind kind, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->kind = kind;
	err->has_addr = false;
	err->addr = 0;
	va_start(ap, fmt);
	vset(err, fmt, ap);
	va_end(ap);
}

void kmp_fault(struct kmp_err *err, enum kmp_errkind kind, uint64_t addr,
	       const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->kind = kind;
	err->has_addr = true;
	err->addr = addr;
	va_start(ap, fmt);
	vset(err, fmt, ap);
	va_end(ap);
}

void kmp_wraperr(struct kmp_err *err, const struct kmp_err *cause, const char *fmt, ...)
{
	enum kmp_errkind kind = cause->kind;
	bool has_addr = cause->has_addr;
	uint64_t addr = cause->addr;
	char msg[KMP_ERRLEN];
	va_list ap;

	if (!err)
		return;
	/* @cause may be @err itself, or quoted by the format: format first. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err->kind = kind;
	err->has_addr = has_addr;
	err->addr = addr;
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
}

const char *kmp_errkind_name(enum kmp_errkind kind)
{
	static const char *const names[] = {
		[KMP_ERR_NONE] = "none",	 [KMP_ERR_USAGE] = "usage",
		[KMP_ERR_DUMP] = "dump",	 [KMP_ERR_VMLINUX] = "vmlinux",
		[KMP_ERR_MISMATCH] = "mismatch", [KMP_ERR_EXCLUDED] = "excluded",
		[KMP_ERR_PAST_EOF] = "past-eof", [KMP_ERR_UNMAPPED] = "unmapped",
		[KMP_ERR_CORRUPT] = "corrupt",	 [KMP_ERR_CHANGED] = "changed",
		[KMP_ERR_FORMAT] = "format",	 [KMP_ERR_IO] = "io",
		[KMP_ERR_OUTPUT] = "output",	 [KMP_ERR_NOMEM] = "no-memory",
	};

	if ((unsigned int)kind < sizeof(names) / sizeof(names[0]) && names[kind])
		return names[kind];
	return "unknown";
}

bool kmp_err_is_fault(enum kmp_errkind kind)
{
	return kind == KMP_ERR_EXCLUDED || kind == KMP_ERR_PAST_EOF ||
	       kind == KMP_ERR_UNMAPPED;
}

int kmp_exit_status(const struct kmp_err *err, bool opened)
{
	switch (err->kind) {
	case KMP_ERR_USAGE:
		return KMP_EUSAGE;
	case KMP_ERR_DUMP:
		return KMP_ECORE;
	case KMP_ERR_VMLINUX:
		return KMP_EVMLINUX;
	case KMP_ERR_MISMATCH:
		return KMP_EMISMATCH;
	case KMP_ERR_EXCLUDED:
	case KMP_ERR_PAST_EOF:
	case KMP_ERR_UNMAPPED:
	case KMP_ERR_CORRUPT:
	case KMP_ERR_IO:
		/* Before the report: the dump cannot be used at all. */
		return opened ? KMP_EPARTIAL : KMP_ECORE;
	case KMP_ERR_FORMAT:
		return KMP_EFORMAT;
	case KMP_ERR_CHANGED:
		return KMP_ECHANGED;
	case KMP_ERR_OUTPUT:
		return KMP_EOUTPUT;
	case KMP_ERR_NOMEM:
		return KMP_ENOMEM;
	case KMP_ERR_NONE:
		break;
	}
	/* A failure without a kind is a bug of kmempool: say it is not complete. */
	return KMP_EPARTIAL;
}

static void send(kmp_note_fn fn, void *arg, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void send(kmp_note_fn fn, void *arg, const char *fmt, va_list ap)
{
	char msg[2 * KMP_ERRLEN];	/* a note may quote an error message */

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fn(msg, arg);
}

void kmp_note(const struct kmp_notes *n, const char *fmt, ...)
{
	va_list ap;

	if (!n || !n->note)
		return;
	va_start(ap, fmt);
	send(n->note, n->arg, fmt, ap);
	va_end(ap);
}

void kmp_progress(const struct kmp_notes *n, const char *fmt, ...)
{
	va_list ap;

	if (!kmp_progress_shown(n))
		return;
	va_start(ap, fmt);
	send(n->progress, n->arg, fmt, ap);
	va_end(ap);
}

bool kmp_progress_shown(const struct kmp_notes *n)
{
	return n && n->progress;
}

uint64_t kmp_random64(void)
{
	uint64_t v;
	struct timespec ts;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t)sizeof(v))
		return v;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec << 32 ^ (uint64_t)ts.tv_nsec) * 0x9e3779b97f4a7c15ULL ^
	       (uint64_t)getpid();
}
