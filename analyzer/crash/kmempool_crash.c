// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool crash extension, crash's side: `extend kmempool.so` adds the
 * command `mempool`.  Memory is read with crash's readmem() (kernel virtual
 * addresses, errors returned quietly), the vmlinux is the one crash loaded,
 * VMCOREINFO comes from the dump through crash (or, where crash has none,
 * from what crash knows: release and KASLR offset).  crash's task list is
 * never used: kmempool finds tasks in memory itself.
 */
#include <crash/defs.h>

#include <limits.h>
#include <signal.h>
#include <stdint.h>

#include "bridge.h"

static void cmd_mempool(void);
static char *help_mempool[];

static struct command_table_entry command_table[] = {
	{ "mempool", cmd_mempool, help_mempool, 0 },
	{ NULL },
};

static void __attribute__((constructor)) kmp_crash_init(void)
{
	register_extension(command_table);
}

/*
 * crash's per-command cleanup, run by restore_sanity() when crash longjmps
 * to its prompt (Ctrl-C, error(FATAL)) and before the next command: closes
 * what a command cut short left open.  Clears itself, as crash's own do.
 */
static void mempool_cleanup(void *arg)
{
	(void)arg;
	pc->cmd_cleanup = NULL;
	pc->cmd_cleanup_arg = NULL;
	kmp_crash_cleanup();
}

/* `extend -u` (dlclose) or crash's exit: nothing of the extension's stays. */
static void __attribute__((destructor)) kmp_crash_fini(void)
{
	if (pc->cmd_cleanup == mempool_cleanup) {
		pc->cmd_cleanup = NULL;
		pc->cmd_cleanup_arg = NULL;
	}
	kmp_crash_unload();
}

static bool crash_read(uint64_t addr, void *buf, size_t len)
{
	if (len > LONG_MAX)
		return false;
	return readmem(addr, KVADDR, buf, (long)len, "kmempool", RETURN_ON_ERROR | QUIET) == TRUE;
}

/*
 * A symbol from crash's own table: symbol_value() is relocated (KASLR);
 * kmempool wants the link-time address, so crash's relocation is undone.
 */
static bool crash_symbol(const char *name, uint64_t *addr)
{
	if (!symbol_exists((char *)name))
		return false;
	*addr = (uint64_t)(symbol_value((char *)name) + kt->relocate);
	return true;
}

/* Append "KEY=value\n" from the dump's VMCOREINFO, or @fallback. */
static void vmcoreinfo_line(char *buf, size_t size, const char *key, const char *fallback)
{
	char *val = pc->read_vmcoreinfo ? pc->read_vmcoreinfo(key) : NULL;
	size_t used = strlen(buf);

	if (val || fallback)
		snprintf(buf + used, size - used, "%s=%s\n", key, val ? val : fallback);
	free(val);
}

static void cmd_mempool(void)
{
	static char vmcoreinfo[1024];
	char *argv[64], kaslr[32], pagesize[32];
	const char *command = "report";
	struct kmp_crash_target t;
	int c, rc, argc = 0, nmod = 0;
	char *mods[16];
	bool json = false, verbose = false, stacks = false, force = false;

	while ((c = getopt(argcnt, args, "wsijvtFM:")) != EOF) {
		switch (c) {
		case 'w': command = "waiters"; break;
		case 's': command = "scan"; break;
		case 'i': command = "info"; break;
		case 'j': json = true; break;
		case 'v': verbose = true; break;
		case 't': stacks = true; break;
		case 'F': force = true; break;
		case 'M':
			if (nmod == (int)(sizeof(mods) / sizeof(mods[0])))
				error(FATAL, "too many -M paths\n");
			mods[nmod++] = optarg;
			break;
		default:
			argerrs++;
			break;
		}
	}
	if (argerrs || args[optind])
		cmd_usage(pc->curcmd, SYNOPSIS);

	argv[argc++] = "kmempool";
	argv[argc++] = (char *)command;
	if (json) {
		argv[argc++] = "-f";
		argv[argc++] = "json";
	}
	if (verbose)
		argv[argc++] = "-v";
	if (stacks) {
		argv[argc++] = "--source";
		argv[argc++] = "stacks";
	}
	if (force)
		argv[argc++] = "--force";
	for (int i = 0; i < nmod; i++) {
		argv[argc++] = "-M";
		argv[argc++] = mods[i];
	}
	argv[argc] = NULL;

	/* crash keeps the KASLR offset as kt->relocate, negated. */
	snprintf(kaslr, sizeof(kaslr), "%lx", (ulong)-kt->relocate);
	snprintf(pagesize, sizeof(pagesize), "%d", (int)PAGESIZE());
	vmcoreinfo[0] = '\0';
	vmcoreinfo_line(vmcoreinfo, sizeof(vmcoreinfo), "OSRELEASE", kt->utsname.release);
	vmcoreinfo_line(vmcoreinfo, sizeof(vmcoreinfo), "BUILD-ID", NULL);
	vmcoreinfo_line(vmcoreinfo, sizeof(vmcoreinfo), "PAGESIZE", pagesize);
	vmcoreinfo_line(vmcoreinfo, sizeof(vmcoreinfo), "KERNELOFFSET",
			kt->relocate ? kaslr : NULL);
	vmcoreinfo_line(vmcoreinfo, sizeof(vmcoreinfo), "CRASHTIME", NULL);

	t.read = crash_read;
	t.symbol = crash_symbol;
	t.vmlinux = pc->namelist_debug ? pc->namelist_debug : pc->namelist;
	t.vmcoreinfo = vmcoreinfo;
	t.source = pc->dumpfile ? pc->dumpfile : "crash";
	t.out = fp;		/* crash's output: terminal, pager, pipe or file */

	pc->cmd_cleanup = mempool_cleanup;
	pc->cmd_cleanup_arg = NULL;
	rc = kmp_crash_run(&t, argc, argv);
	mempool_cleanup(NULL);
	/*
	 * Ctrl-C while it ran: everything is closed now, so crash gets the
	 * interrupt it deferred (its restart(): back to the prompt, the rest
	 * of an input file dropped), as for its own commands.
	 */
	if (rc == KMP_CRASH_INTERRUPTED)
		raise(SIGINT);
}

static char *help_mempool[] = {
	"mempool",
	"kernel memory pools: which ran dry, and who waits on them (kmempool)",
	"[-w | -s | -i] [-j] [-t] [-v] [-F] [-M module.ko|dir]...",
	"  Runs kmempool(1) on the memory crash reads, with the vmlinux crash loaded.",
	"  With no option: the /proc/mempool table on a kernel with the kmempool",
	"  series (from mempool_list), else every pool a scan of memory finds.",
	"    -w  pools with tasks waiting on them, and the tasks (kmempool waiters);",
	"        found on the tasks' stacks on a kernel without the series",
	"    -t  with -w: search the task stacks even on a kernel with the series",
	"    -s  every mempool in memory, found by its shape (kmempool scan)",
	"    -i  release, build ID, KASLR offset, crash time, panic (kmempool info)",
	"    -j  JSON instead of text",
	"    -v  with -s: what was searched and what was rejected",
	"    -F  use a vmlinux that does not match the dump (kmempool --force)",
	"    -M  a module with DWARF, or a directory of them, to name pools by member",
	"  The tasks are found by kmempool in memory; crash's own task list is not used.",
	"  Errors go to stderr, prefixed \"kmempool:\", as with the command line tool.",
	"  Ctrl-C stops it (at its next read of memory) and prints nothing more.",
	"\nEXAMPLE",
	"  crash> extend kmempool.so",
	"  crash> mempool -w",
	NULL
};
