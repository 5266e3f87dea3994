// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: print the kernel's memory pools from kernel memory, live from
 * /proc/kcore or post mortem from a vmcore, in the format of /proc/mempool.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "dwarf_kernel.h"
#include "printk.h"
#include "report.h"
#include "session.h"
#include "scanreport.h"
#include "stackreport.h"
#include "top.h"
#include "cli.h"
#include "triage.h"

#define KMP_VERSION "1.0"

/*
 * Where this run prints: its report and its messages, given to
 * kmp_cli_run() - stdout and stderr for the program, the bridge's streams
 * to crash's output in the crash extension (crash/bridge.c).
 */
static FILE *out, *errs;
/* The JSON schema's version, the first key of every JSON output (kmempool(1), JSON). */
#define KMP_JSON_VERSION 1

static const char usage[] =
"Usage: kmempool [COMMAND] [OPTIONS]\n"
"Print the kernel's memory pools (mempool_list) from kernel memory.\n"
"\n"
"Commands:\n"
"  report      the /proc/mempool table, byte for byte (default)\n"
"  info        kernel release, build ID, KASLR offset, dump format, crash time\n"
"  scan        every mempool in kernel memory, found by its shape and named after\n"
"              where it lives (any kernel; the report of a kernel without the\n"
"              series)\n"
"  waiters     pools with tasks waiting on them, and those tasks; on a kernel\n"
"              without the series, found on the tasks' stacks (any kernel)\n"
"  top         the report again every -d seconds, sorted by pressure (waiting,\n"
"              then curr_nr/min_nr), with the statistics' change since the last\n"
"              refresh (kernels with the series; live on /proc/kcore)\n"
"  triage      many dumps (files, or directories searched for them), one JSON\n"
"              line each, -j N at a time: kmempool triage --help (comes first)\n"
"\n"
"Options:\n"
"  -c, --core PATH       /proc/kcore (default) or a vmcore: ELF, kdump-compressed\n"
"                        (zlib, lzo, snappy, zstd) or uncompressed kdump\n"
"  -s, --vmlinux PATH    vmlinux with DWARF; default: found from the core's\n"
"                        OSRELEASE and BUILD-ID like drgn does, then from\n"
"                        debuginfod by BUILD-ID (DEBUGINFOD_URLS set); with\n"
"                        none, the kernel's own BTF and kallsyms in the dump\n"
"      --types SRC       dwarf (a vmlinux, as above) or btf (the dump's BTF and\n"
"                        kallsyms: Linux 6.0 on, CONFIG_DEBUG_INFO_BTF)\n"
"  -f, --format FMT      text (default) or json\n"
"      --force           use a vmlinux that does not match the core\n"
"      --source SRC      waiters: list (mempool_list, default with the series)\n"
"                        or stacks (task stacks, the only source without it)\n"
"  -M, --module-debug P  a module with DWARF (NAME.ko) or a directory to search\n"
"                        for them, to name pools in modules by member (repeatable;\n"
"                        /usr/lib/debug/lib/modules/REL and /lib/modules/REL are\n"
"                        searched too)\n"
"      --max-entries N   bound on list entries walked (default 1000000)\n"
"  -v, --verbose         scan: what was searched and what was rejected\n"
"  -d, --delay SECONDS   top: time between refreshes (default 2)\n"
"  -n, --count N         top: refresh N times, then exit (default: until killed)\n"
"  -j, --threads N       scan: threads searching slabs (default: one per CPU, at\n"
"                        most 4; one on an ELF vmcore, which libkdumpfile reads\n"
"                        for one thread at a time); the same result for any\n"
"                        number\n"
"  -h, --help            this text\n"
"  -V, --version         kmempool's version\n"
"\n"
"Exit status:\n"
"  0  complete report\n"
"  1  bad command line\n"
"  2  core missing, unreadable, a directory, not a kernel dump, a flattened\n"
"     dump with bad records, truncated before its kernel data, or without\n"
"     VMCOREINFO (flattened dumps, makedumpfile -F, are read in place); or\n"
"     libkdumpfile read it past kmempool's pread(), so its reads went unchecked,\n"
"     or it needs libkdumpfile (ELF, LZO/snappy/zstd pages), which cannot be loaded\n"
"  3  vmlinux missing, unreadable, not found, not ELF or without debug info,\n"
"     and the kernel in the dump has no BTF or no kallsyms in VMCOREINFO\n"
"  4  vmlinux does not belong to the core (build ID, release or linux_banner)\n"
"  5  partial report: a list entry was unreadable or corrupt; the pools read\n"
"     before it were printed, stderr names the entry and the last good node;\n"
"     or a pool was left out as corrupt (a name or counters that break the\n"
"     kernel's rules: 0 <= low_nr <= curr_nr <= min_nr, or <= 1 for a\n"
"     zero-minimum pool since Linux 6.17), named on stderr;\n"
"     for the searches of memory (waiters from stacks, scan): a task list,\n"
"     stack or kind of memory that could not be read, or a task in\n"
"     mempool_alloc() whose pool could not be determined\n"
"  6  unknown /proc/mempool format version, or debug info lacking a needed\n"
"     type or member; or the dump's BTF or kallsyms tables damaged\n"
"  7  live memory (/proc/kcore) kept changing: the list was walked again from\n"
"     its head 8 times and never read consistently (the lines printed are\n"
"     those of the last walk); or a live wait queue could not be counted (?)\n"
"  8  the report could not be written (disk full, closed pipe)\n"
"  9  out of memory\n";

struct cli {
	const char *command;
	bool json, verbose;
	double delay;		/* top */
	uint64_t count;		/* top, 0: forever */
	unsigned int threads;	/* scan's slab search, 0: one per CPU */
	struct kmp_options o;
};

static bool parse(int argc, char **argv, struct cli *c, struct kmp_err *err)
{
	static const struct option longopts[] = {
		{ "core", required_argument, NULL, 'c' },
		{ "vmlinux", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "force", no_argument, NULL, 'F' },
		{ "max-entries", required_argument, NULL, 'm' },
		{ "no-aranges", no_argument, NULL, 'A' },
		{ "source", required_argument, NULL, 'S' },
		{ "types", required_argument, NULL, 'T' },
		{ "module-debug", required_argument, NULL, 'M' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "delay", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(c, 0, sizeof(*c));
	opterr = 0;
	c->command = "report";
	c->o.lim.max_pools = 1000000;
	c->o.lim.max_waiters = 1000000;
	c->delay = 2;
	while ((ch = getopt_long(argc, argv, "c:s:f:M:d:n:j:vhV", longopts, NULL)) != -1) {
		char *end;

		switch (ch) {
		case 'c': c->o.core = optarg; break;
		case 's': c->o.vmlinux = optarg; break;
		case 'F': c->o.force = true; break;
		case 'A': c->o.no_aranges = true; break;
		case 'v': c->verbose = true; break;
		case 'S':
			if (!strcmp(optarg, "stacks"))
				c->o.from_stacks = true;
			else if (strcmp(optarg, "list")) {
				kmp_seterr(err, KMP_ERR_USAGE, "unknown source '%s' (list or stacks)",
					   optarg);
				return false;
			}
			break;
		case 'T':
			if (!strcmp(optarg, "dwarf"))
				c->o.types = KMP_TYPES_DWARF;
			else if (!strcmp(optarg, "btf"))
				c->o.types = KMP_TYPES_BTF;
			else {
				kmp_seterr(err, KMP_ERR_USAGE, "unknown type source '%s' (dwarf or btf)",
					   optarg);
				return false;
			}
			break;
		case 'M':
			if (c->o.nmoddebug == sizeof(c->o.moddebug) / sizeof(c->o.moddebug[0])) {
				kmp_seterr(err, KMP_ERR_USAGE, "too many --module-debug paths");
				return false;
			}
			c->o.moddebug[c->o.nmoddebug++] = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "json"))
				c->json = true;
			else if (strcmp(optarg, "text")) {
				kmp_seterr(err, KMP_ERR_USAGE, "unknown format '%s' (text or json)", optarg);
				return false;
			}
			break;
		case 'm':
			c->o.lim.max_pools = strtoull(optarg, &end, 10);
			if (*end || !c->o.lim.max_pools) {
				kmp_seterr(err, KMP_ERR_USAGE, "--max-entries needs a positive number");
				return false;
			}
			c->o.lim.max_waiters = c->o.lim.max_pools;
			break;
		case 'd':
			c->delay = strtod(optarg, &end);
			if (*end || end == optarg || !(c->delay >= 0 && c->delay <= 86400)) {
				kmp_seterr(err, KMP_ERR_USAGE, "--delay needs seconds from 0 to 86400");
				return false;
			}
			break;
		case 'n':
			c->count = strtoull(optarg, &end, 10);
			if (*end || !c->count || optarg[0] == '-') {
				kmp_seterr(err, KMP_ERR_USAGE, "--count needs a positive number");
				return false;
			}
			break;
		case 'j':
			c->threads = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || optarg[0] < '1' || optarg[0] > '9' || end - optarg > 2) {
				kmp_seterr(err, KMP_ERR_USAGE, "--threads needs a number from 1 to 99");
				return false;
			}
			break;
		case 'h': fputs(usage, out); exit(KMP_OK);
		case 'V': fprintf(out, "kmempool %s\n", KMP_VERSION); exit(KMP_OK);
		default:
			kmp_seterr(err, KMP_ERR_USAGE, "bad option '%s' (unknown, or lacking its "
				   "argument); see kmempool --help", argv[optind - 1]);
			return false;
		}
	}
	if (optind < argc)
		c->command = argv[optind++];
	if (optind < argc) {
		kmp_seterr(err, KMP_ERR_USAGE, "unexpected argument '%s'", argv[optind]);
		return false;
	}
	if (strcmp(c->command, "report") && strcmp(c->command, "info") &&
	    strcmp(c->command, "waiters") && strcmp(c->command, "scan") &&
	    strcmp(c->command, "top")) {
		kmp_seterr(err, KMP_ERR_USAGE, "unknown command '%s' (report, info, waiters, scan, "
			   "top)", c->command);
		return false;
	}
	return true;
}

static void json_kernel(FILE *f, const struct kmp_session *s)
{
	fprintf(f, "\"kmempool_json\": %d, ", KMP_JSON_VERSION);
	fputs("\"kernel\": {\"release\": ", f);
	kmp_json_string(f, s->release);
	fputs(", \"source\": ", f);
	kmp_json_string(f, s->core.path);
	fputs(", \"format\": ", f);
	kmp_json_string(f, s->core.format);
	fputs(", \"mempool_format\": ", f);
	if (s->series)
		kmp_json_string(f, s->version);
	else
		fputs("null", f);
	fputs(", \"types\": ", f);
	kmp_json_string(f, kmp_vmlinux_types(&s->vml));
	fputc('}', f);
}

static void json_kernel_cb(FILE *f, const void *arg)
{
	json_kernel(f, arg);
}

/* The searches of memory: waiters from task stacks, or the scan. */
static bool cmd_memory(struct kmp_session *s, const struct cli *c, bool scan,
		       struct kmp_err *err)
{
	struct kmp_scanreport_opts sco = {
		.json = c->json, .verbose = c->verbose, .max_waiters = c->o.lim.max_waiters,
		.max_pfn = 1ULL << 36, .threads = c->threads, .json_kernel = json_kernel_cb, .json_kernel_arg = s,
		.notes = c->o.notes,
	};
	struct kmp_limits_mods ml = { 100000, 1u << 22 };
	struct kmp_stackreport_opts so = {
		.json = c->json, .series = s->series, .verbose = c->verbose,
		.max_tasks = c->o.lim.max_pools, .max_waiters = c->o.lim.max_waiters,
		.json_kernel = json_kernel_cb, .json_kernel_arg = s,
	};
	struct kmp_sym slab_cu = { 0 };
	struct kmp_slablayout sl;
	struct kmp_naming *nm;
	struct kmp_kernel k;
	bool ok;

	if (!kmp_kernel_init(&k, &s->core.mem, &s->layout, &s->vml, s->kaslr, s->page_size,
			     &ml, err))
		return false;
	k.notes = &c->o.notes;
	slab_cu.name = "kmem_cache_free";
	kmp_vmlinux_symbols(&s->vml, &slab_cu, 1);
	kmp_slablayout_load(&s->vml, s->layout_cu_addr, slab_cu.found ? slab_cu.addr : 0,
			    c->o.no_aranges, &sl);
	kmp_kernel_slab_init(&k, &sl);
	nm = kmp_naming_new(&k, &sl, c->o.moddebug, c->o.nmoddebug, s->release);
	if (!nm) {
		kmp_kernel_free(&k);
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	if (!k.mods.complete)
		fprintf(errs, "kmempool: warning: modules unknown, module code and data "
			"are not named: %s\n", k.mods.why);
	ok = scan ? kmp_scanreport(out, &k, &sl, nm, &sco, err) :
		    kmp_stackreport(out, &k, &sl, nm, &so, err);
	kmp_naming_free(nm);
	kmp_kernel_free(&k);
	return ok;
}

/* "complete": true, or false with the reason, its kind and its address. */
static void json_status(FILE *f, bool ok, const struct kmp_err *err)
{
	fprintf(f, "\"complete\": %s", ok ? "true" : "false");
	if (ok)
		return;
	fputs(", \"reason\": ", f);
	kmp_json_string(f, err->msg);
	fprintf(f, ", \"reason_kind\": \"%s\", \"reason_address\": ",
		kmp_errkind_name(err->kind));
	if (err->has_addr)
		fprintf(f, "\"0x%" PRIx64 "\"", err->addr);
	else
		fputs("null", f);
}

/*
 * The report, printed as the pools come (memory does not grow with the
 * list).  On live memory a walk may start again, so the lines go to a
 * temporary file first and reach stdout once the walk is over.
 */
struct report_out {
	FILE *f;
	bool json, tmp;
	const char *version;
	size_t n;
	const char *columns;	/* series v6: the kernel's column line; NULL: series 5 */
};

static bool report_begin(struct report_out *o)
{
	if (o->json)
		fputs("\"pools\": [", o->f);
	else if (o->columns)
		kmp_report_header_v6(o->f, o->version, o->columns);
	else
		kmp_report_header(o->f, o->version);
	return !ferror(o->f);
}

static bool report_pool(const struct kmp_pool *p, void *arg, struct kmp_err *err)
{
	struct report_out *o = arg;

	if (o->json) {
		fputs(o->n ? ",\n  " : "\n  ", o->f);
		kmp_json_pool(o->f, p);
	} else {
		kmp_report_pool(o->f, p);
	}
	o->n++;
	if (ferror(o->f)) {
		kmp_seterr(err, KMP_ERR_OUTPUT, "cannot write the report: %s", strerror(errno));
		return false;
	}
	return true;
}

static bool report_restart(void *arg, struct kmp_err *err)
{
	struct report_out *o = arg;

	o->n = 0;
	if (!o->tmp || fflush(o->f) || ftruncate(fileno(o->f), 0) || fseek(o->f, 0, SEEK_SET) ||
	    !report_begin(o)) {
		kmp_seterr(err, KMP_ERR_OUTPUT, "cannot start the report again: %s",
			   strerror(errno));
		return false;
	}
	return true;
}

static bool copy_out(FILE *from, FILE *to)
{
	char buf[65536];
	size_t n;

	if (fflush(from) || fseek(from, 0, SEEK_SET))
		return false;
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		if (fwrite(buf, 1, n, to) != n)
			return false;
	return !ferror(from);
}

/*
 * The frame the report and waiters share: JSON's opening keys, the header,
 * the walk into @sink (whose arg begins with @o), the temporary file of a
 * live walk copied out.  Returns the walk's result (an error of kind
 * output: nothing more should be written).
 */
static bool stream_list(struct kmp_session *s, const struct cli *c, struct report_out *o,
			const struct kmp_pool_sink *sink, struct kmp_err *err)
{
	struct kmp_pools st = { .clock = s->clock, .notes = c->o.notes };
	bool ok = false;

	if (o->tmp && !(o->f = tmpfile())) {
		kmp_seterr(err, KMP_ERR_OUTPUT, "cannot make a temporary file: %s",
			   strerror(errno));
		return false;
	}
	if (c->json) {
		fprintf(out, "{");
		json_kernel(out, s);
		fprintf(out, ", \"source\": \"list\", ");
	}
	if (!report_begin(o)) {
		kmp_seterr(err, KMP_ERR_OUTPUT, "cannot write the report: %s", strerror(errno));
		goto out;
	}
	ok = kmp_walk_pools(&s->core.mem, &s->layout, s->mempool_list, &c->o.lim, sink, &st,
			    err);
	if (c->verbose && st.attempts > 1)
		fprintf(errs, "kmempool: note: mempool_list changed while it was read; walked "
			"%u times from the head\n", st.attempts);
	if (o->tmp && !copy_out(o->f, out) && err->kind != KMP_ERR_OUTPUT) {
		kmp_seterr(err, KMP_ERR_OUTPUT, "cannot write the report: %s", strerror(errno));
		ok = false;
	}
out:
	if (o->tmp)
		fclose(o->f);
	o->f = out;
	return ok;
}

/* The output itself failed: nothing more is written. */
static bool output_failed(bool ok, const struct kmp_err *err)
{
	return !ok && err->kind == KMP_ERR_OUTPUT;
}

static void json_end(bool ok, const struct kmp_err *err)
{
	fprintf(out, "\n], ");
	json_status(out, ok, err);
	fprintf(out, "}\n");
}

static bool cmd_report(struct kmp_session *s, const struct cli *c, struct kmp_err *err)
{
	struct report_out o = { out, c->json, s->core.mem.live, s->version, 0,
				s->layout.v6 ? s->columns : NULL };
	struct kmp_pool_sink sink = { report_pool, report_restart, &o };
	bool ok = stream_list(s, c, &o, &sink, err);

	if (c->json && !output_failed(ok, err))
		json_end(ok, err);
	return ok;
}

struct waiters_out {
	FILE *f;
	bool json;
	size_t n;
};

static void print_waiter(const struct kmp_waiter *w, void *arg)
{
	struct waiters_out *o = arg;

	if (o->json) {
		fprintf(o->f, "%s{\"pid\": %" PRId64 ", \"comm\": ", o->n ? ", " : "", w->pid);
		kmp_json_string(o->f, w->comm);
		fprintf(o->f, ", \"state\": \"%.1s\", \"task\": \"0x%" PRIx64 "\"",
			kmp_task_state(w->state), w->task);
		if (w->have_waited)
			fprintf(o->f, ", \"waited\": %" PRIu64, w->waited);
		fputc('}', o->f);
	} else if (w->have_waited) {
		fprintf(o->f, "    pid %-7" PRId64 " %-16s %s, waiting for %" PRIu64 " s\n",
			w->pid, w->comm, kmp_task_state(w->state), w->waited);
	} else {
		fprintf(o->f, "    pid %-7" PRId64 " %-16s %s\n", w->pid, w->comm,
			kmp_task_state(w->state));
	}
	o->n++;
}

/* waiters from the list, streamed like the report: each waiting pool as it comes. */
struct waiting_out {
	struct report_out r;	/* r.n: pools shown */
	struct kmp_session *s;
	const struct kmp_limits *lim;
	bool wok;		/* false: a wait queue could not be read, */
	struct kmp_err werr;	/* the first such */
};

static bool waiting_pool(const struct kmp_pool *p, void *arg, struct kmp_err *err)
{
	struct waiting_out *o = arg;
	struct waiters_out wo = { o->r.f, o->r.json, 0 };
	struct kmp_err werr;
	bool wok;

	if (!p->waiting && !p->waiting_unknown)
		return true;
	if (o->r.json) {
		fprintf(o->r.f, "%s\n  ", o->r.n ? "," : "");
		kmp_json_pool_open(o->r.f, p);
		fputs(", \"waiters\": [", o->r.f);
	} else {
		kmp_report_pool(o->r.f, p);
	}
	o->r.n++;
	wok = kmp_read_waiters(&o->s->core.mem, &o->s->layout, p->addr, o->lim, &o->s->clock,
			       print_waiter, &wo, &werr);
	if (o->r.json)
		fputs("]}", o->r.f);
	if (!wok && o->wok) {
		o->wok = false;
		o->werr = werr;
	}
	if (ferror(o->r.f)) {
		kmp_seterr(err, KMP_ERR_OUTPUT, "cannot write the report: %s", strerror(errno));
		return false;
	}
	return true;
}

static bool waiting_restart(void *arg, struct kmp_err *err)
{
	struct waiting_out *o = arg;

	o->wok = true;
	return report_restart(&o->r, err);
}

static bool cmd_waiters(struct kmp_session *s, const struct cli *c, struct kmp_err *err)
{
	struct waiting_out o = { { out, c->json, s->core.mem.live, s->version, 0,
				   s->layout.v6 ? s->columns : NULL }, s,
				 &c->o.lim, true, { 0 } };
	struct kmp_pool_sink sink = { waiting_pool, waiting_restart, &o };
	bool ok = stream_list(s, c, &o.r, &sink, err);

	if (ok && !o.wok) {
		*err = o.werr;
		ok = false;
	}
	if (output_failed(ok, err))
		return false;
	if (c->json)
		json_end(ok, err);
	else if (!o.r.n && ok)
		fprintf(out, "# no task is waiting on any mempool\n");
	else if (!o.r.n)
		fprintf(out, "# no task found waiting on the pools read; the list was not read "
		       "to its end (see stderr)\n");
	return ok;
}

/* top: the layout is loaded once (the session); each refresh reads the list again. */
static bool cmd_top(struct kmp_session *s, const struct cli *c, struct kmp_err *err)
{
	struct kmp_top_opts to = { .delay = c->delay, .count = c->count, .lim = c->o.lim,
				   .clock = s->clock, .notes = c->o.notes };
	struct winsize ws;

	if (!s->series) {
		kmp_seterr(err, KMP_ERR_FORMAT, "top needs mempool_list, a kernel with the series; this one has "
			   "none (kmempool waiters and kmempool scan work on any kernel)");
		return false;
	}
	if (c->json) {
		kmp_seterr(err, KMP_ERR_USAGE, "top prints text only");
		return false;
	}
	to.tty = isatty(STDOUT_FILENO);
	if (to.tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws))
		to.rows = ws.ws_row;
	return kmp_top_run(out, &s->core.mem, &s->layout, s->mempool_list, s->version, &to,
			   err);
}

static bool cmd_info(struct kmp_session *s, const struct cli *c)
{
	char when[64] = "", panic[1024];
	struct kmp_err perr = { 0 };
	int found = kmp_find_panic(&s->vml, &s->core.mem, s->prb, s->prb_cu, c->o.no_aranges,
				   panic, sizeof(panic), &perr);

	if (s->vi.have_crashtime) {
		time_t t = (time_t)s->vi.crashtime;
		struct tm tm;

		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	}
	if (c->json) {
		/* The kernel object every command has, then the details of info's own. */
		fprintf(out, "{");
		json_kernel(out, s);
		fprintf(out, ", \"complete\": true, \"release\": ");
		kmp_json_string(out, s->release);
		fprintf(out, ", \"build_id\": ");
		kmp_json_string(out, s->vi.build_id);
		fprintf(out, ", \"kaslr_offset\": \"0x%" PRIx64 "\", \"format\": ", s->kaslr);
		kmp_json_string(out, s->core.format);
		fprintf(out, ", \"source\": ");
		kmp_json_string(out, s->core.path);
		fprintf(out, ", \"vmlinux\": ");
		if (s->vml.btf)
			fprintf(out, "null");
		else
			kmp_json_string(out, s->vml.path);
		fprintf(out, ", \"mempool_format\": ");
		if (s->series)
			kmp_json_string(out, s->version);
		else
			fprintf(out, "null");
		if (s->vi.have_crashtime)
			fprintf(out, ", \"crash_time\": %" PRId64, s->vi.crashtime);
		else
			fprintf(out, ", \"crash_time\": null");
		fprintf(out, ", \"panic\": ");
		if (found == 1)
			kmp_json_string(out, panic);
		else
			fprintf(out, "null");
		fprintf(out, "}\n");
		return true;
	}
	fprintf(out, "release:        %s\n", s->release);
	fprintf(out, "banner:         %s\n", s->banner);
	fprintf(out, "build id:       %s\n", s->vi.build_id[0] ? s->vi.build_id : "(not in VMCOREINFO)");
	fprintf(out, "kaslr offset:   0x%" PRIx64 "\n", s->kaslr);
	fprintf(out, "source:         %s\n", s->core.path);
	fprintf(out, "dump format:    %s\n", s->core.format);
	fprintf(out, "vmlinux:        %s\n", s->vml.btf ? "none" : s->vml.path);
	fprintf(out, "types:          %s\n", kmp_vmlinux_types(&s->vml));
	if (s->vml.btf && s->vml.cache_state)
		fprintf(out, "dump cache:     %s%s%s%s%s\n", s->vml.cache_state,
			s->vml.cache_path[0] ? " (" : "", s->vml.cache_path,
			s->vml.cache_path[0] ? ")" : "", kmp_vmlinux_btf_state(&s->vml));
	if (s->vml.symsrc)
		fprintf(out, "symbols:        %lu from %s, %lu at another address than the "
		       "vmlinux's\n", s->vml.from_source, s->vml.symsrc->what, s->vml.disagree);
	if (s->series)
		fprintf(out, "mempool format: %s\n", s->version);
	else
		fprintf(out, "mempool format: none (no mempool_list: a kernel without the series)\n");
	if (s->vi.have_crashtime)
		fprintf(out, "crash time:     %s (%" PRId64 ")\n", when, s->vi.crashtime);
	else
		fprintf(out, "crash time:     none (a live kernel, or no CRASHTIME in VMCOREINFO)\n");
	if (found == 1)
		fprintf(out, "panic:          %s\n", panic);
	else if (found == 0)
		fprintf(out, "panic:          none in the kernel log\n");
	else
		fprintf(out, "panic:          unknown (%s)\n", perr.msg);
	return true;
}

/* A kernel with the series: is its format one this kmempool prints, as its DWARF has it? */
static bool format_ok(const struct kmp_session *s, const struct cli *c, struct kmp_err *err)
{
	if (!s->series || !strcmp(c->command, "info") || !strcmp(c->command, "scan"))
		return true;
	if (s->layout.v6)
		return kmp_format_check_v6(s->version, s->columns, err);
	if (!kmp_format_known(s->version)) {
		kmp_seterr(err, KMP_ERR_FORMAT, "this kernel's /proc/mempool format is version '%s'; "
			   "kmempool %s knows %s", s->version, KMP_VERSION, kmp_formats_known());
		return false;
	}
	if (strcmp(s->version, kmp_format_of_layout(&s->layout))) {
		/* Each version appended columns whose data the DWARF must have. */
		kmp_seterr(err, KMP_ERR_FORMAT, "this kernel says /proc/mempool format %s, but the "
			   "DWARF of struct mempool_s has the fields of format %s: a vmlinux of "
			   "another build?", s->version, kmp_format_of_layout(&s->layout));
		return false;
	}
	return true;
}

static bool run(struct kmp_session *s, struct cli *c, struct kmp_err *err)
{
	if (!s->series && !strcmp(c->command, "report")) {
		fprintf(errs, "kmempool: this kernel has no mempool_list (no series): "
			"printing what a scan of its memory finds (kmempool scan)\n");
		c->command = "scan";
	}
	if (!format_ok(s, c, err))
		return false;
	if (!strcmp(c->command, "info"))
		return cmd_info(s, c);
	if (!strcmp(c->command, "scan"))
		return cmd_memory(s, c, true, err);
	if (!strcmp(c->command, "top"))
		return cmd_top(s, c, err);
	if (!strcmp(c->command, "waiters") && (!s->series || c->o.from_stacks))
		return cmd_memory(s, c, false, err);
	if (!strcmp(c->command, "waiters"))
		return cmd_waiters(s, c, err);
	return cmd_report(s, c, err);
}

/*
 * The crash extension builds this file with KMP_SESSION_STORAGE static: the
 * session outlives a longjmp out of the command, for its cleanup to close.
 */
#ifndef KMP_SESSION_STORAGE
#define KMP_SESSION_STORAGE
#endif

#ifndef KMP_NO_TRIAGE
/*
 * Freed memory stays with the process for the next allocation (issue 23).
 * The dump reader renews libkdumpfile's context, and with it a 2 MiB page
 * cache and its file buffers, every few hundred pages it decompresses
 * (kdump.c): glibc's default maps such blocks anew each time and unmaps
 * them on free, so every page of each new cache was a page fault again
 * (a trap to the hypervisor in a VM): 9,700 faults and a quarter of
 * `kmempool scan`'s time on the trixie dump, 5,500 with this, and no more
 * peak memory (the cache is as big each time).  The program only: the
 * crash extension's copy of this file (KMP_NO_TRIAGE) leaves crash's
 * allocator alone.
 */
static void keep_freed_memory(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
}
#endif

/*
 * The library's notes and progress lines (kmp.h), on the run's error
 * stream: stderr, or in the crash extension the bridge's stream to crash.
 */
static void note_to(const char *msg, void *arg)
{
	fprintf(arg, "kmempool: %s\n", msg);
}

static void progress_to(const char *msg, void *arg)
{
	if (*msg)
		fprintf(arg, "\rkmempool: %s\033[K", msg);
	else
		fputs("\r\033[K", arg);
	fflush(arg);
}

/* Progress only when standard error is a terminal. */
struct kmp_notes kmp_cli_notes(FILE *to)
{
	return (struct kmp_notes){ note_to, isatty(STDERR_FILENO) ? progress_to : NULL, to };
}

int kmp_cli_run(int argc, char **argv, FILE *to, FILE *msgs)
{
	KMP_SESSION_STORAGE struct kmp_session s;
	struct kmp_err err = { 0 };
	bool parsed, opened = false, ok;
	struct cli c;

	out = to;
	errs = msgs;
	ok = parsed = parse(argc, argv, &c, &err);
	c.o.notes = kmp_cli_notes(errs);
	if (ok)
		ok = opened = kmp_session_open(&s, &c.o, &err);
	if (ok)
		ok = run(&s, &c, &err);
	/* Output that could not be written fails the run, whatever came before. */
	if ((fflush(out) || ferror(out)) && err.kind != KMP_ERR_OUTPUT) {
		kmp_seterr(&err, KMP_ERR_OUTPUT, "cannot write the report: %s",
			   errno ? strerror(errno) : "write error");
		ok = false;
	}
	if (parsed)	/* what a failed opening opened, too */
		kmp_session_close(&s);
	if (ok)
		return KMP_OK;
	/* The one place a failure becomes an exit status: from its kind. */
	fprintf(errs, "kmempool: %s\n", err.msg);
	return kmp_exit_status(&err, opened);
}

#ifndef KMP_NO_TRIAGE
int main(int argc, char **argv)
{
	keep_freed_memory();
	/*
	 * A closed pipe (kmempool ... | head -1) is a write error like a full
	 * disk: exit 8, with its line on stderr (kmp.h), not death by SIGPIPE.
	 */
	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && !strcmp(argv[1], "triage"))
		return kmp_triage_main(argc - 1, argv + 1);
	return kmp_cli_run(argc, argv, stdout, stderr);
}
#endif
