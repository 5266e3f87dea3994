// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool crash extension, kmempool's side: the CLI's own main.c (built
 * for the extension with main renamed kmp_cli_main, its session opened by
 * kmp_crash_session_open() and closed by kmp_crash_session_close(), its
 * stdout and stderr the streams below; see analyzer/Makefile and
 * cli_out.h) runs on a session whose memory is crash's readmem() and whose
 * vmlinux is crash's.
 *
 * All the extension keeps lives in one object, `st`: the target of the
 * command running (copied, never a pointer into a caller's frame), the
 * session open (main.c's, static in the extension's build), crash's SIGINT
 * action while the bridge holds SIGINT, and the sink.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "bridge.h"
#include "session.h"

int kmp_cli_main(int argc, char **argv);
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
	FILE *own_sink;			/* /dev/null, when crash gave none */
} st;

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

FILE *kmp_crash_stdout(void)
{
	return interrupted && st.t.sink ? st.t.sink : st.t.out ? st.t.out : stdout;
}

FILE *kmp_crash_stderr(void)
{
	return interrupted && st.t.sink ? st.t.sink : stderr;
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
	struct kmp_mem mem = { &crash_mem_ops, NULL, false };
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
	if (st.own_sink)
		fclose(st.own_sink);
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

	kmp_crash_cleanup();	/* what a longjmp out of the last command left */
	st.t = *t;
	if (!st.t.sink) {
		if (!st.own_sink)
			st.own_sink = fopen("/dev/null", "w");
		st.t.sink = st.own_sink;
	}
	interrupted = 0;
	st.saved_optind = optind;
	st.saved_opterr = opterr;
	st.running = true;
	optind = 0;		/* glibc: start a fresh scan */
	if (st.t.out)
		fflush(st.t.out);
	hold_sigint();
	rc = kmp_cli_main(argc, argv);
	fflush(kmp_crash_stdout());
	kmp_crash_cleanup();
	return interrupted ? KMP_CRASH_INTERRUPTED : rc;
}
