// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool crash extension, kmempool's side: the CLI's own main.c (built
 * for the extension without main(), its session opened by
 * kmp_crash_session_open() and closed by kmp_crash_session_close(); see
 * analyzer/Makefile), run by kmp_cli_run() with the streams below as its
 * output and messages, on a session whose memory is crash's readmem() and
 * whose vmlinux is crash's.
 *
 * All the extension keeps lives in one object, `st`: the target of the
 * command running (copied, never a pointer into a caller's frame), the
 * session open (main.c's, static in the extension's build), crash's SIGINT
 * action while the bridge holds SIGINT, and the command's output streams.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "bridge.h"
#include "cli.h"
#include "session.h"

bool kmp_crash_session_open(struct kmp_session *s, const struct kmp_options *o,
			    struct kmp_err *err);
void kmp_crash_session_close(struct kmp_session *s);

static struct {
	struct kmp_crash_target t;
	bool running;			/* between kmp_crash_run()'s start and end */
	struct kmp_session *session;	/* open, or NULL */
	bool took_sigint;		/* old_sigint is to be put back */
	struct sigaction old_sigint;
	int saved_optind, saved_opterr;
	/*
	 * main.c's output and messages while a command runs (given to
	 * kmp_cli_run()): streams whose writes go on to crash's fp and
	 * stderr, or nowhere once the command was interrupted (a FILE
	 * handed to the library before the interrupt is still this one) or
	 * is being discarded after a longjmp (crash has closed its
	 * redirection by then).
	 */
	FILE *out, *err;
	bool discard;
} st;

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static ssize_t forward(FILE *to, const char *buf, size_t len)
{
	if (interrupted || st.discard)
		return (ssize_t)len;
	errno = 0;
	if (fwrite(buf, 1, len, to) != len) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return (ssize_t)len;
}

static ssize_t out_write(void *cookie, const char *buf, size_t len)
{
	(void)cookie;
	return forward(st.t.out ? st.t.out : stdout, buf, len);
}

static ssize_t err_write(void *cookie, const char *buf, size_t len)
{
	(void)cookie;
	return forward(stderr, buf, len);
}

/* Close the command's streams; @keep: what is buffered goes on to crash. */
static void close_streams(bool keep)
{
	st.discard = !keep;
	if (st.out)
		fclose(st.out);
	if (st.err)
		fclose(st.err);
	st.out = st.err = NULL;
	st.discard = false;
	if (keep && st.t.out)
		fflush(st.t.out);
}

static bool crash_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		       struct kmp_err *err)
{
	(void)mem;
	if (interrupted) {
		kmp_seterr(err, KMP_ERR_IO, "interrupted");
		return false;
	}
	if (st.running && st.t.read(addr, buf, len))
		return true;
	kmp_fault(err, KMP_ERR_UNMAPPED, addr, "cannot read %zu bytes at 0x%" PRIx64 " (crash's readmem() failed)",
		   len, addr);
	return false;
}

static const struct kmp_mem_ops crash_mem_ops = { .read = crash_read };

static bool crash_symbol(void *arg, const char *name, uint64_t *addr)
{
	(void)arg;
	return st.running && st.t.symbol && st.t.symbol(name, addr);
}

static const struct kmp_symbol_source crash_symbols = { crash_symbol, NULL, "crash" };

/* What main.c calls instead of kmp_session_open() in the extension. */
bool kmp_crash_session_open(struct kmp_session *s, const struct kmp_options *o,
			    struct kmp_err *err)
{
	struct kmp_mem mem = { &crash_mem_ops, NULL, false, false };
	struct kmp_options oo = *o;

	if (!oo.vmlinux)
		oo.vmlinux = st.t.vmlinux;
	if (st.t.symbol)
		oo.symsrc = &crash_symbols;
	/* Known before it holds anything: a failed opening is closed too. */
	st.session = s;
	return kmp_session_open_mem(s, &oo, &mem, st.t.vmcoreinfo, st.t.source, "crash", err);
}

/* ... and instead of kmp_session_close(). */
void kmp_crash_session_close(struct kmp_session *s)
{
	kmp_session_close(s);
	if (st.session == s)
		st.session = NULL;
}

void kmp_crash_cleanup(void)
{
	close_streams(false);
	if (st.session) {
		kmp_session_close(st.session);
		st.session = NULL;
	}
	if (st.took_sigint) {
		sigaction(SIGINT, &st.old_sigint, NULL);
		st.took_sigint = false;
	}
	if (st.running) {
		optind = st.saved_optind;
		opterr = st.saved_opterr;
		st.running = false;
	}
}

void kmp_crash_unload(void)
{
	kmp_crash_cleanup();
	memset(&st, 0, sizeof(st));
}

/*
 * Hold SIGINT while the command runs, if crash handles it (its restart(),
 * which longjmps to the prompt; with stdin not a terminal crash installs
 * none and Ctrl-C ends crash as before).
 */
static void hold_sigint(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, NULL, &st.old_sigint))
		return;
	if (!(st.old_sigint.sa_flags & SA_SIGINFO) &&
	    (st.old_sigint.sa_handler == SIG_DFL || st.old_sigint.sa_handler == SIG_IGN))
		return;
	st.took_sigint = !sigaction(SIGINT, &sa, NULL);
}

int kmp_crash_run(const struct kmp_crash_target *t, int argc, char **argv)
{
	int rc;

	static const cookie_io_functions_t out_io = { .write = out_write };
	static const cookie_io_functions_t err_io = { .write = err_write };

	kmp_crash_cleanup();	/* what a longjmp out of the last command left */
	st.t = *t;
	interrupted = 0;
	if (st.t.out)
		fflush(st.t.out);
	st.out = fopencookie(NULL, "w", out_io);
	st.err = fopencookie(NULL, "w", err_io);
	if (!st.out || !st.err) {
		close_streams(false);
		fprintf(stderr, "kmempool: out of memory\n");
		return KMP_ENOMEM;
	}
	setvbuf(st.err, NULL, _IOLBF, 0);
	st.saved_optind = optind;
	st.saved_opterr = opterr;
	st.running = true;
	optind = 0;		/* glibc: start a fresh scan */
	hold_sigint();
	rc = kmp_cli_run(argc, argv, st.out, st.err);
	close_streams(true);
	kmp_crash_cleanup();
	return interrupted ? KMP_CRASH_INTERRUPTED : rc;
}
