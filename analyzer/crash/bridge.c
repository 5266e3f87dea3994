// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool crash extension, kmempool's side: the CLI's own main.c (built
 * for the extension with main renamed kmp_cli_main and its session opened
 * by kmp_crash_session_open(), see analyzer/Makefile) runs on a session
 * whose memory is crash's readmem() and whose vmlinux is crash's.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "bridge.h"
#include "session.h"

int kmp_cli_main(int argc, char **argv);
bool kmp_crash_session_open(struct kmp_session *s, const struct kmp_options *o,
			    struct kmp_err *err);

static const struct kmp_crash_target *target;

static bool crash_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		       struct kmp_err *err)
{
	(void)mem;
	if (target && target->read(addr, buf, len))
		return true;
	kmp_fault(err, KMP_ERR_UNMAPPED, addr, "cannot read %zu bytes at 0x%" PRIx64 " (crash's readmem() failed)",
		   len, addr);
	return false;
}

static const struct kmp_mem_ops crash_mem_ops = { .read = crash_read };

static bool crash_symbol(void *arg, const char *name, uint64_t *addr)
{
	(void)arg;
	return target && target->symbol && target->symbol(name, addr);
}

static const struct kmp_symbol_source crash_symbols = { crash_symbol, NULL, "crash" };

/* What main.c calls instead of kmp_session_open() in the extension. */
bool kmp_crash_session_open(struct kmp_session *s, const struct kmp_options *o,
			    struct kmp_err *err)
{
	struct kmp_mem mem = { &crash_mem_ops, NULL, false };
	struct kmp_options oo = *o;

	if (!oo.vmlinux)
		oo.vmlinux = target->vmlinux;
	if (target->symbol)
		oo.symsrc = &crash_symbols;
	return kmp_session_open_mem(s, &oo, &mem, target->vmcoreinfo, target->source, "crash",
				    err);
}

int kmp_crash_run(const struct kmp_crash_target *t, int argc, char **argv, FILE *out)
{
	FILE *saved = stdout;
	int saved_optind = optind, saved_opterr = opterr, rc;

	target = t;
	optind = 0;		/* glibc: start a fresh scan */
	fflush(out);
	stdout = out;
	rc = kmp_cli_main(argc, argv);
	fflush(stdout);
	stdout = saved;
	optind = saved_optind;
	opterr = saved_opterr;
	target = NULL;
	return rc;
}
