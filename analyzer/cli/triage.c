// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool triage DUMP|DIR... (issue 20): what a crash-dump store holds,
 * one JSON line per dump - kernel release, series or not, the exhausted
 * pools with their waiters and the longest wait where the kernel keeps it,
 * or the error with its kind and the exit status `kmempool waiters` would
 * have had.  Each dump is analysed in a child process of its own (fork),
 * -j N at a time: a dump whose analysis crashes, or runs past --timeout,
 * costs its own line only.  The lines come in the order of the dumps.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "diskcheck.h"
#include "dwarf_kernel.h"
#include "elfcheck.h"
#include "flat.h"
#include "placename.h"
#include "report.h"
#include "session.h"
#include "stackwait.h"
#include "triage.h"

#define TRIAGE_JSON_VERSION 1	/* kmempool_json, as every command's JSON */
#define MAX_DEPTH 8		/* directories searched below each one given */
#define MAX_ENTRIES 1000000	/* directory entries visited, in all */
#define MAX_JOBS 64
#define MAX_LISTED 100		/* waiters listed per pool ("waiting" counts all) */
#define MAX_NOTES 8		/* stderr lines of an analysis kept in its line */
#define MAX_NOTE_LEN 400
#define MAX_CANDS 4096

static const char usage[] =
"Usage: kmempool triage [OPTIONS] DUMP|DIR...\n"
"One JSON line per dump: kernel release, series or not, the exhausted pools\n"
"with their waiters and the longest wait, or the error with its kind and the\n"
"exit status kmempool waiters would have had.  A directory is searched (8\n"
"levels deep) for dumps: files named vmcore* or dump* with a kernel dump's\n"
"header (ELF, kdump-compressed, flattened).\n"
"\n"
"Options:\n"
"  -j, --jobs N          dumps analysed at a time, each in its own process\n"
"                        (default 1, at most 64)\n"
"  -s, --vmlinux PATH    a vmlinux, or a directory searched for vmlinux*\n"
"                        files; each dump uses the one whose build ID (or\n"
"                        release, without one) it has (repeatable); else the\n"
"                        usual search: local paths, then debuginfod\n"
"  -M, --module-debug P  as for the other commands (repeatable)\n"
"  -t, --timeout SECONDS an analysis running longer is stopped (default 600;\n"
"                        0: none)\n"
"  -h, --help            this text\n"
"\n"
"Exit status:\n"
"  0  every dump was analysed completely\n"
"  1  bad command line\n"
"  2  no dump found in the paths given\n"
"  5  some dump was not analysed completely: its line has \"complete\": false,\n"
"     the error and the status kmempool waiters would have exited with (null\n"
"     when the analysis crashed or timed out)\n"
"  8  the lines could not be written\n"
"  9  out of memory\n";

/* A vmlinux given with -s: its build ID and release, read once. */
struct cand {
	char *path;
	char build_id[129];
	char release[65];
};

enum job_state { JOB_PENDING, JOB_RUNNING, JOB_DONE };

struct job {
	char *path;
	bool walked;		/* found by the walk: the file it classified */
	dev_t dev;		/* (walked) that file, by device and inode */
	ino_t ino;
	int fd;			/* opened by the parent in start(), for the child */
	char openerr[256];	/* why it could not be opened or was refused */
	enum job_state state;
	pid_t pid;
	double start, seconds;
	FILE *res, *err;	/* the child's result and stderr (temporary files) */
	bool timed_out;
	bool complete;
	char *line;		/* when done: the JSON line, with its newline */
};

struct triage {
	unsigned int jobs;
	double timeout;
	const char *moddebug[16];
	size_t nmoddebug;
	struct cand *cands;
	size_t ncands;
	struct job *v;
	size_t n, cap;
	size_t entries;		/* directory entries visited */
	bool oom;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the analysis of one dump, in the child ---- */

struct result {
	FILE *pools;		/* the "exhausted" array's items (memstream) */
	char *buf;
	size_t len;
	size_t npools;
	uint64_t waiters, unknown;
	bool have_longest;
	uint64_t longest;
};

static bool result_open(struct result *r)
{
	free(r->buf);
	r->buf = NULL;
	r->len = 0;
	r->npools = 0;
	r->waiters = r->unknown = 0;
	r->have_longest = false;
	r->longest = 0;
	r->pools = open_memstream(&r->buf, &r->len);
	return r->pools != NULL;
}

static void json_opt(FILE *f, const char *s)
{
	if (s && *s && strcmp(s, "-"))
		kmp_json_string(f, s);
	else
		fputs("null", f);
}

static void json_u64_or_null(FILE *f, bool have, uint64_t v)
{
	if (have)
		fprintf(f, "%" PRIu64, v);
	else
		fputs("null", f);
}

static void longest(struct result *r, uint64_t *pool_longest, bool *pool_have, uint64_t w)
{
	if (!*pool_have || w > *pool_longest)
		*pool_longest = w;
	*pool_have = true;
	if (!r->have_longest || w > r->longest)
		r->longest = w;
	r->have_longest = true;
}

/* mempool_list: the pools whose reserve is empty or that have waiters, and their waiters. */
struct list_arg {
	struct result *r;
	struct kmp_session *s;
	const struct kmp_limits *lim;
	bool wok;		/* false: a wait queue could not be read, */
	struct kmp_err werr;	/* the first such */
	/* the pool being printed */
	FILE *w;		/* its waiters (memstream) */
	char *wbuf;
	size_t wlen, nlisted, nseen;
	uint64_t plongest;
	bool phave;
};

static void list_waiter(const struct kmp_waiter *w, void *arg)
{
	struct list_arg *a = arg;

	a->nseen++;
	a->r->waiters++;
	if (w->have_waited)
		longest(a->r, &a->plongest, &a->phave, w->waited);
	if (a->nlisted == MAX_LISTED)
		return;
	fprintf(a->w, "%s{\"pid\": %" PRId64 ", \"comm\": ", a->nlisted ? ", " : "", w->pid);
	kmp_json_string(a->w, w->comm);
	fprintf(a->w, ", \"state\": \"%.1s\", \"task\": \"0x%" PRIx64 "\", \"waited\": ",
		kmp_task_state(w->state), w->task);
	json_u64_or_null(a->w, w->have_waited, w->waited);
	fputc('}', a->w);
	a->nlisted++;
}

static bool list_pool(const struct kmp_pool *p, void *arg, struct kmp_err *err)
{
	struct list_arg *a = arg;
	struct result *r = a->r;
	struct kmp_err werr = { 0 };
	bool wok;

	if (!(p->min_nr > 0 && p->curr_nr <= 0) && !p->waiting && !p->waiting_unknown)
		return true;
	a->wbuf = NULL;
	a->wlen = a->nlisted = a->nseen = 0;
	a->phave = false;
	a->plongest = 0;
	a->w = open_memstream(&a->wbuf, &a->wlen);
	if (!a->w) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	wok = kmp_read_waiters(&a->s->core.mem, &a->s->layout, p->addr, a->lim, &a->s->clock,
			       list_waiter, a, &werr);
	if (!wok && a->wok) {
		a->wok = false;
		a->werr = werr;
	}
	fclose(a->w);
	if (p->v12 && !p->oldest_unknown && p->oldest_wait)
		longest(r, &a->plongest, &a->phave, p->oldest_wait);
	fprintf(r->pools, "%s{\"address\": \"0x%" PRIx64 "\", \"name\": ", r->npools ? ", " : "",
		p->addr);
	kmp_json_string(r->pools, p->name);
	fputs(", \"instance\": ", r->pools);
	json_opt(r->pools, p->instance);
	fputs(", \"owner\": ", r->pools);
	json_opt(r->pools, p->owner);
	fputs(", \"type\": ", r->pools);
	kmp_json_string(r->pools, p->type ? p->type : "?");
	fprintf(r->pools, ", \"min_nr\": %" PRId64 ", \"curr_nr\": %" PRId64 ", \"waiting\": ",
		p->min_nr, p->curr_nr);
	json_u64_or_null(r->pools, !p->waiting_unknown, p->waiting);
	fputs(", \"longest_wait\": ", r->pools);
	json_u64_or_null(r->pools, a->phave, a->plongest);
	fprintf(r->pools, ", \"waiters\": [%s]}", a->wbuf ? a->wbuf : "");
	free(a->wbuf);
	a->wbuf = NULL;
	r->npools++;
	return true;
}

static bool list_restart(void *arg, struct kmp_err *err)
{
	struct list_arg *a = arg;

	fclose(a->r->pools);
	a->wok = true;
	if (!result_open(a->r)) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	return true;
}

static bool from_list(struct kmp_session *s, const struct kmp_options *o, struct result *r,
		      struct kmp_err *err)
{
	struct list_arg a = { .r = r, .s = s, .lim = &o->lim, .wok = true };
	struct kmp_pool_sink sink = { list_pool, list_restart, &a };
	struct kmp_pools st = { .clock = s->clock, .notes = o->notes };
	bool ok = kmp_walk_pools(&s->core.mem, &s->layout, s->mempool_list, &o->lim, &sink, &st,
				 err);

	if (ok && !a.wok) {
		*err = a.werr;
		ok = false;
	}
	return ok;
}

/* Task stacks (no series): the waiters found (kmp_stackwait_find()). */

static bool from_stacks(struct kmp_session *s, const struct kmp_options *o, struct result *r,
			struct kmp_err *err)
{
	struct kmp_limits_mods ml = { 100000, 1u << 22 };
	struct kmp_sym slab_cu = { .name = "kmem_cache_free" };
	struct kmp_stackwait_ctx *ctx = NULL;
	struct kmp_stackwait_stats st;
	struct kmp_stackwait_list fd = { 0 };
	struct kmp_slablayout sl;
	struct kmp_naming *nm;
	struct kmp_kernel k;
	bool *done, ok;

	if (!kmp_kernel_init(&k, &s->core.mem, &s->layout, &s->vml, s->kaslr, s->page_size, &ml,
			     err))
		return false;
	k.notes = &o->notes;
	kmp_vmlinux_symbols(&s->vml, &slab_cu, 1);
	kmp_slablayout_load(&s->vml, s->layout_cu_addr, slab_cu.found ? slab_cu.addr : 0,
			    o->no_aranges, &sl);
	kmp_kernel_slab_init(&k, &sl);
	nm = kmp_naming_new(&k, &sl, o->moddebug, o->nmoddebug, s->release);
	if (!nm) {
		kmp_kernel_free(&k);
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	if (!k.mods.complete)
		fprintf(stderr, "kmempool: warning: modules unknown, module code and data are not "
			"named: %s\n", k.mods.why);
	ok = kmp_stackwait_find(&k, &sl, o->lim.max_pools, o->lim.max_waiters, &fd, &st, &ctx,
				err);
	if (!ok && err->kind == KMP_ERR_FORMAT)
		goto out;
	for (size_t i = 0; i < fd.n; i++)
		if (fd.v[i].kind != KMP_SW_WAITING)
			r->unknown++;
	/* As kmempool waiters: a waiter whose pool is unknown makes the answer partial. */
	if (r->unknown && ok) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "%" PRIu64 " task(s) in mempool_alloc() whose pool "
			   "could not be determined", r->unknown);
		ok = false;
	}
	done = calloc(fd.n ? fd.n : 1, sizeof(*done));
	if (!done) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		ok = false;
		goto out;
	}
	for (size_t i = 0; i < fd.n; i++) {
		const struct kmp_poolinfo *p = fd.v[i].pool;
		uint64_t waiting;
		size_t listed = 0;
		char name[512];
		bool wk;

		if (done[i] || fd.v[i].kind != KMP_SW_WAITING)
			continue;
		kmp_naming_pool(nm, p->addr, name, sizeof(name));
		wk = kmp_wait_queue_length(k.mem, k.l, p->addr, kmp_kernel_wake(&k), o->lim.max_waiters, &waiting);
		fprintf(r->pools, "%s{\"address\": \"0x%" PRIx64 "\", \"name\": ",
			r->npools ? ", " : "", p->addr);
		kmp_json_string(r->pools, name);
		fputs(", \"instance\": null, \"owner\": ", r->pools);
		json_opt(r->pools, p->owner);
		fputs(", \"type\": ", r->pools);
		kmp_json_string(r->pools, p->type);
		fprintf(r->pools, ", \"min_nr\": %" PRId64 ", \"curr_nr\": %" PRId64
			", \"waiting\": ", p->min_nr, p->curr_nr);
		json_u64_or_null(r->pools, wk, waiting);
		/* A kernel without the series keeps no time a waiter started. */
		fputs(", \"longest_wait\": null, \"waiters\": [", r->pools);
		for (size_t j = i; j < fd.n; j++) {
			const struct kmp_task *t = &fd.v[j].task;

			if (done[j] || fd.v[j].kind != KMP_SW_WAITING || fd.v[j].pool != p)
				continue;
			done[j] = true;
			r->waiters++;
			if (listed == MAX_LISTED)
				continue;
			fprintf(r->pools, "%s{\"pid\": %" PRId64 ", \"comm\": ", listed ? ", " : "",
				t->pid);
			kmp_json_string(r->pools, t->comm);
			fprintf(r->pools, ", \"state\": \"%.1s\", \"task\": \"0x%" PRIx64 "\", "
				"\"waited\": null}", kmp_task_state(t->state), t->addr);
			listed++;
		}
		fputs("]}", r->pools);
		r->npools++;
	}
	free(done);
out:
	free(fd.v);
	kmp_stackwait_done(ctx);
	kmp_naming_free(nm);
	kmp_kernel_free(&k);
	return ok;
}

/* The -s vmlinux for this dump: same build ID, or same release for a dump without one. */
static const char *match_vmlinux(const struct triage *t, const struct kmp_vmcoreinfo *vi)
{
	for (size_t i = 0; i < t->ncands; i++) {
		const struct cand *c = &t->cands[i];

		if (vi->build_id[0] ? !strcmp(vi->build_id, c->build_id) :
				      vi->osrelease[0] && !strcmp(vi->osrelease, c->release))
			return c->path;
	}
	return NULL;
}

/*
 * Analyse @path; write its JSON object, without the closing brace and
 * with a newline, to @f.  Returns the exit status kmempool waiters would
 * have had.
 */
static int triage_one(const struct triage *t, const struct job *j, FILE *f)
{
	struct kmp_options o = { .lim = { 1000000, 1000000 } };
	struct result r = { 0 };
	struct kmp_err err = { 0 };
	struct kmp_session s;
	const char *path = j->path;
	bool opened = false, ok = false;
	int status;

	memcpy(o.moddebug, t->moddebug, sizeof(o.moddebug));
	o.nmoddebug = t->nmoddebug;
	o.cache_no_store = true;	/* an entry if there is one, none written */
	o.notes = kmp_cli_notes(stderr);	/* the child's stderr: its line's notes */
	memset(&s, 0, sizeof(s));
	if (!result_open(&r)) {
		kmp_seterr(&err, KMP_ERR_NOMEM, "out of memory");
		goto print;
	}
	/* The descriptor the parent opened and checked: never the path again. */
	if (j->fd < 0)
		kmp_seterr(&err, KMP_ERR_DUMP, "%s", j->openerr);
	else
		ok = kmp_core_open_fd(&s.core, j->fd, path, &err);
	if (ok) {
		s.core_open = true;
		kmp_vmcoreinfo_parse(s.core.vmcoreinfo, &s.vi);
		o.vmlinux = match_vmlinux(t, &s.vi);
		ok = opened = kmp_session_attach(&s, &o, &err);
	}
	/* The checks kmempool waiters makes before it reads mempool_list. */
	if (ok && s.series && s.layout.v6) {
		ok = kmp_format_check_v6(s.version, s.columns, &err);
	} else if (ok && s.series && !kmp_format_known(s.version)) {
		kmp_seterr(&err, KMP_ERR_FORMAT, "this kernel's /proc/mempool format is version "
			   "'%s'; kmempool knows %s", s.version, kmp_formats_known());
		ok = false;
	} else if (ok && s.series && strcmp(s.version, kmp_format_of_layout(&s.layout))) {
		kmp_seterr(&err, KMP_ERR_FORMAT, "this kernel says /proc/mempool format %s, but the "
			   "DWARF of struct mempool_s has the fields of format %s", s.version,
			   kmp_format_of_layout(&s.layout));
		ok = false;
	}
	if (ok)
		ok = s.series ? from_list(&s, &o, &r, &err) : from_stacks(&s, &o, &r, &err);
	if (r.pools && fflush(r.pools)) {
		kmp_seterr(&err, KMP_ERR_NOMEM, "out of memory");
		ok = false;
	}
print:
	status = ok ? KMP_OK : kmp_exit_status(&err, opened);
	fprintf(f, "{\"kmempool_json\": %d, \"dump\": ", TRIAGE_JSON_VERSION);
	kmp_json_string(f, path);
	fputs(", \"kernel\": {\"release\": ", f);
	json_opt(f, s.vml_open && s.release[0] ? s.release : s.vi.osrelease);
	fputs(", \"build_id\": ", f);
	json_opt(f, s.vi.build_id);
	fputs(", \"format\": ", f);
	json_opt(f, s.core_open ? s.core.format : NULL);
	fputs(", \"vmlinux\": ", f);
	json_opt(f, s.vml_open && !s.vml.btf ? s.vml.path : NULL);	/* null: the dump's BTF */
	fputs(", \"series\": ", f);
	fputs(!opened ? "null" : s.series ? "true" : "false", f);
	fputs(", \"mempool_format\": ", f);
	json_opt(f, opened && s.series ? s.version : NULL);
	fputs("}, \"crash_time\": ", f);
	if (s.vi.have_crashtime)
		fprintf(f, "%" PRId64, s.vi.crashtime);
	else
		fputs("null", f);
	fprintf(f, ", \"source\": %s", !opened ? "null" : s.series ? "\"list\"" : "\"stacks\"");
	fprintf(f, ", \"exhausted\": [%s], \"waiters\": %" PRIu64 ", \"longest_wait\": ",
		r.buf && status != KMP_ENOMEM ? r.buf : "", r.waiters);
	json_u64_or_null(f, r.have_longest, r.longest);
	fprintf(f, ", \"unknown_waiters\": %" PRIu64 ", \"complete\": %s, \"status\": %d, "
		"\"error\": ", r.unknown, status == KMP_OK ? "true" : "false", status);
	if (status == KMP_OK) {
		fputs("null", f);
	} else {
		fprintf(f, "{\"kind\": \"%s\", \"message\": ", kmp_errkind_name(err.kind));
		kmp_json_string(f, err.msg);
		fputs(", \"address\": ", f);
		if (err.has_addr)
			fprintf(f, "\"0x%" PRIx64 "\"", err.addr);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputc('\n', f);
	if (r.pools)
		fclose(r.pools);
	free(r.buf);
	kmp_session_close(&s);
	return status;
}

/* ---- the parent: dumps, workers, lines in order ---- */

static bool add_job(struct triage *t, const char *path, const struct stat *st)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct job *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return false;
		t->v = v;
		t->cap = cap;
	}
	memset(&t->v[t->n], 0, sizeof(t->v[0]));
	t->v[t->n].path = strdup(path);
	if (!t->v[t->n].path)
		return false;
	t->v[t->n].fd = -1;
	if (st) {
		t->v[t->n].walked = true;
		t->v[t->n].dev = st->st_dev;
		t->v[t->n].ino = st->st_ino;
	}
	t->n++;
	return true;
}

/*
 * Open a dump the walk found, not following a symbolic link, not blocking
 * on a FIFO put in its place: a regular file off procfs, or -1 with @why.
 */
static int open_found(const char *path, struct stat *st, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		snprintf(why, len, "cannot open core %s: %s%s", path, strerror(errno),
			 errno == ELOOP ? " (a symbolic link: triage does not follow one in a "
			 "directory it searches)" : "");
		return -1;
	}
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || kmp_core_is_procfs(fd)) {
		snprintf(why, len, "core %s is not a regular dump file (replaced since the "
			 "directory was searched?)", path);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A kernel dump by its first bytes: an ELF core, kdump-compressed or
 * flattened.  @st: the file it read.
 */
static bool looks_like_dump(const char *path, struct stat *st)
{
	unsigned char head[20] = { 0 };
	char why[256];
	ssize_t got;
	int fd = open_found(path, st, why, sizeof(why));

	if (fd < 0)
		return false;
	got = pread(fd, head, sizeof(head), 0);
	close(fd);
	if (got < 8)
		return false;
	/* e_type ET_CORE (4, little endian): not an object file named vmcore*.o */
	if (kmp_is_elf(head, (size_t)got))
		return got >= 18 && head[16] == 4 && head[17] == 0;
	return kmp_is_diskdump(head, (size_t)got) || kmp_flat_detect(head, (size_t)got);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Call @fn for the regular files under @dir (not following symbolic links)
 * in name order, at most MAX_DEPTH levels down and MAX_ENTRIES entries in all.
 */
static void walk(struct triage *t, const char *dir, int depth,
		 void (*fn)(struct triage *t, const char *path, const char *name))
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	if (depth > MAX_DEPTH || !(d = opendir(dir)))
		return;
	while ((e = readdir(d)) && t->entries < MAX_ENTRIES) {
		t->entries++;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			size_t c = cap ? cap * 2 : 64;
			char **v = realloc(names, c * sizeof(*v));

			if (!v) {
				t->oom = true;
				break;
			}
			names = v;
			cap = c;
		}
		if (!(names[n] = strdup(e->d_name))) {
			t->oom = true;
			break;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]) < sizeof(path) &&
		    !lstat(path, &st)) {
			if (S_ISDIR(st.st_mode))
				walk(t, path, depth + 1, fn);
			else if (S_ISREG(st.st_mode))
				fn(t, path, names[i]);
		}
		free(names[i]);
	}
	free(names);
}

static void dump_found(struct triage *t, const char *path, const char *name)
{
	struct stat st;

	if ((!strncmp(name, "vmcore", 6) || !strncmp(name, "dump", 4)) &&
	    looks_like_dump(path, &st) && !add_job(t, path, &st))
		t->oom = true;
}

/*
 * Job @j's dump opened once, in the parent, for its child: a dump the walk
 * found must be the very file it classified (a file swapped since, or a
 * symbolic link put in its place, to /proc/kcore say, is refused); a path
 * given on the command line is opened as named.
 */
static void open_job(struct job *j)
{
	struct stat st;

	if (!j->walked) {
		j->fd = open(j->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (j->fd < 0)
			snprintf(j->openerr, sizeof(j->openerr), "cannot open core %s: %s",
				 j->path, strerror(errno));
		return;
	}
	j->fd = open_found(j->path, &st, j->openerr, sizeof(j->openerr));
	if (j->fd >= 0 && (st.st_dev != j->dev || st.st_ino != j->ino)) {
		snprintf(j->openerr, sizeof(j->openerr), "core %s was replaced by another file "
			 "since the directory was searched: not analysed", j->path);
		close(j->fd);
		j->fd = -1;
	}
	/* Reads from here on may block as on any file. */
	if (j->fd >= 0)
		fcntl(j->fd, F_SETFL, fcntl(j->fd, F_GETFL) & ~O_NONBLOCK);
}

static void add_cand(struct triage *t, const char *path)
{
	struct kmp_sym banner = { .name = "linux_banner" };
	struct kmp_vmlinux v;
	struct kmp_err err;
	char text[256] = "";
	struct cand *c;

	if (t->ncands == MAX_CANDS)
		return;
	if (!kmp_vmlinux_open(&v, path, &err)) {
		fprintf(stderr, "kmempool: warning: -s %s: %s\n", path, err.msg);
		return;
	}
	if (!t->ncands && !(t->cands = calloc(MAX_CANDS, sizeof(*t->cands)))) {
		t->oom = true;
		kmp_vmlinux_close(&v);
		return;
	}
	c = &t->cands[t->ncands];
	snprintf(c->build_id, sizeof(c->build_id), "%s", v.build_id);
	kmp_vmlinux_symbols(&v, &banner, 1);
	if (banner.found && kmp_vmlinux_read(&v, banner.addr, text, sizeof(text) - 1) &&
	    !strncmp(text, "Linux version ", 14))
		snprintf(c->release, sizeof(c->release), "%.*s", (int)strcspn(text + 14, " \n"),
			 text + 14);
	kmp_vmlinux_close(&v);
	if (!(c->path = strdup(path))) {
		t->oom = true;
		return;
	}
	t->ncands++;
}

static void cand_found(struct triage *t, const char *path, const char *name)
{
	if (!strncmp(name, "vmlinux", 7))
		add_cand(t, path);
}

/* Start job @j: a child that analyses it, its result and stderr in temporary files. */
static bool start(struct triage *t, struct job *j)
{
	int status, null;

	j->res = tmpfile();
	j->err = tmpfile();
	if (!j->res || !j->err)
		return false;
	open_job(j);
	fflush(stdout);
	fflush(stderr);
	j->start = now();
	j->pid = fork();
	if (j->pid > 0 && j->fd >= 0) {
		close(j->fd);	/* the child's now */
		j->fd = -1;
	}
	if (j->pid < 0)
		return false;
	if (j->pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		dup2(fileno(j->err), STDERR_FILENO);
		setvbuf(stderr, NULL, _IOLBF, 0);
#ifdef KMP_TESTING
		/*
		 * Test hooks, in test builds only (-DKMP_TESTING: kmempool-testing,
		 * kmempool-asan): the analysis of a dump whose path has this
		 * crashes, or hangs.
		 */
		if (getenv("KMP_TEST_TRIAGE_CRASH") && *getenv("KMP_TEST_TRIAGE_CRASH") &&
		    strstr(j->path, getenv("KMP_TEST_TRIAGE_CRASH")))
			abort();
		if (getenv("KMP_TEST_TRIAGE_HANG") && *getenv("KMP_TEST_TRIAGE_HANG") &&
		    strstr(j->path, getenv("KMP_TEST_TRIAGE_HANG")))
			for (;;)
				pause();
#endif
		status = triage_one(t, j, j->res);
		fflush(stderr);
		_exit(fflush(j->res) ? 99 : status);
	}
	j->state = JOB_RUNNING;
	return true;
}

/* The child's stderr: its first MAX_NOTES lines, as a JSON array. */
static void notes(FILE *out, FILE *err)
{
	char line[MAX_NOTE_LEN];
	size_t n = 0;
	bool cont = false;

	fputc('[', out);
	rewind(err);
	while (n < MAX_NOTES && fgets(line, sizeof(line), err)) {
		size_t len = strlen(line);
		bool whole = len && line[len - 1] == '\n';

		if (whole)
			line[--len] = '\0';
		if (!cont && len) {
			fputs(n++ ? ", " : "", out);
			kmp_json_string(out, line);
		}
		cont = !whole;	/* the rest of a long line is left out */
	}
	fputc(']', out);
}

/* Job @j's child is gone (@wstatus): its line. */
static void finish(struct job *j, int wstatus)
{
	char *line = NULL, *res = NULL;
	size_t llen = 0, rlen = 0;
	long size;
	FILE *f;

	j->state = JOB_DONE;
	j->seconds = now() - j->start;
	if (!fseek(j->res, 0, SEEK_END) && (size = ftell(j->res)) > 0 && size < (1L << 30) &&
	    !fseek(j->res, 0, SEEK_SET) && (res = malloc((size_t)size + 1))) {
		rlen = fread(res, 1, (size_t)size, j->res);
		res[rlen] = '\0';
	}
	f = open_memstream(&line, &llen);
	if (!f) {
		free(res);
		return;
	}
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) <= KMP_ENOMEM && res && rlen > 2 &&
	    res[0] == '{' && res[rlen - 1] == '\n' && !memchr(res, '\n', rlen - 1)) {
		res[rlen - 1] = '\0';
		fputs(res, f);
		j->complete = WEXITSTATUS(wstatus) == KMP_OK;
	} else {
		char msg[256];

		if (j->timed_out)
			snprintf(msg, sizeof(msg), "the analysis ran longer than the timeout and was "
				 "stopped after %.0f s", j->seconds);
		else if (WIFSIGNALED(wstatus))
			snprintf(msg, sizeof(msg), "the analysis crashed: killed by signal %d (%s)",
				 WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
		else
			snprintf(msg, sizeof(msg), "the analysis exited with status %d without a "
				 "result", WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
		fprintf(f, "{\"kmempool_json\": %d, \"dump\": ", TRIAGE_JSON_VERSION);
		kmp_json_string(f, j->path);
		fputs(", \"kernel\": {\"release\": null, \"build_id\": null, \"format\": null, "
		      "\"vmlinux\": null, \"series\": null, \"mempool_format\": null}, "
		      "\"crash_time\": null, \"source\": null, \"exhausted\": [], \"waiters\": 0, "
		      "\"longest_wait\": null, \"unknown_waiters\": 0, \"complete\": false, "
		      "\"status\": null, \"error\": {\"kind\": ", f);
		fputs(j->timed_out ? "\"timeout\"" : "\"crash\"", f);
		fputs(", \"message\": ", f);
		kmp_json_string(f, msg);
		fputs(", \"address\": null}", f);
		j->complete = false;
	}
	fputs(", \"notes\": ", f);
	notes(f, j->err);
	fprintf(f, ", \"seconds\": %.1f}\n", j->seconds);
	if (fclose(f)) {
		free(line);
		line = NULL;
	}
	free(res);
	fclose(j->res);
	fclose(j->err);
	j->res = j->err = NULL;
	j->line = line;
}

static void progress(const struct triage *t, size_t done, size_t running, size_t bad,
		     double t0)
{
	fprintf(stderr, "\rkmempool triage: %zu of %zu dumps done (%zu not complete), %zu "
		"running, %.0f s\033[K", done, t->n, bad, running, now() - t0);
	fflush(stderr);
}

static void stop_all(struct triage *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].state == JOB_RUNNING) {
			kill(t->v[i].pid, SIGKILL);
			waitpid(t->v[i].pid, NULL, 0);
			t->v[i].state = JOB_DONE;
		}
}

static int run(struct triage *t)
{
	size_t next = 0, printed = 0, running = 0, done = 0, bad = 0;
	bool tty = isatty(STDERR_FILENO);
	double t0 = now(), shown = 0;
	int rc = KMP_OK;

	while (printed < t->n) {
		int wstatus;
		pid_t pid;

		while (running < t->jobs && next < t->n) {
			if (!start(t, &t->v[next])) {
				fprintf(stderr, "kmempool: triage: cannot start an analysis: %s\n",
					strerror(errno));
				stop_all(t);
				return KMP_ENOMEM;
			}
			next++;
			running++;
		}
		pid = waitpid(-1, &wstatus, WNOHANG);
		if (pid > 0) {
			for (size_t i = 0; i < t->n; i++) {
				struct job *j = &t->v[i];

				if (j->state != JOB_RUNNING || j->pid != pid)
					continue;
				finish(j, wstatus);
				running--;
				done++;
				if (!j->complete)
					bad++;
				break;
			}
		} else {
			for (size_t i = 0; i < t->n; i++) {
				struct job *j = &t->v[i];

				if (j->state == JOB_RUNNING && t->timeout > 0 && !j->timed_out &&
				    now() - j->start > t->timeout) {
					j->timed_out = true;
					kill(j->pid, SIGKILL);
				}
			}
			nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
		}
		/* The lines in the order of the dumps. */
		while (printed < t->n && t->v[printed].state == JOB_DONE) {
			struct job *j = &t->v[printed];

			if (!j->line) {
				stop_all(t);
				fprintf(stderr, "\nkmempool: triage: out of memory\n");
				return KMP_ENOMEM;
			}
			if (tty)
				fputs("\r\033[K", stderr);
			if (fputs(j->line, stdout) == EOF || fflush(stdout)) {
				stop_all(t);
				fprintf(stderr, "kmempool: triage: cannot write the lines: %s\n",
					strerror(errno));
				return KMP_EOUTPUT;
			}
			free(j->line);
			j->line = NULL;
			printed++;
			shown = 0;
		}
		if (tty && now() - shown >= 0.5 && printed < t->n) {
			progress(t, done, running, bad, t0);
			shown = now();
		}
	}
	if (tty)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "kmempool triage: %zu dump%s in %.0f s: %zu complete, %zu not complete\n",
		t->n, t->n == 1 ? "" : "s", now() - t0, t->n - bad, bad);
	if (bad)
		rc = KMP_EPARTIAL;
	return rc;
}

int kmp_triage_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "vmlinux", required_argument, NULL, 's' },
		{ "module-debug", required_argument, NULL, 'M' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct triage t = { .jobs = 1, .timeout = 600 };
	const char *vml[64];
	size_t nvml = 0;
	int ch, rc;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "j:s:M:t:h", longopts, NULL)) != -1) {
		char *end;
		unsigned long n;

		switch (ch) {
		case 'j':
			n = strtoul(optarg, &end, 10);
			if (*end || optarg[0] == '-' || n < 1 || n > MAX_JOBS) {
				fprintf(stderr, "kmempool: --jobs needs a number from 1 to %d\n",
					MAX_JOBS);
				return KMP_EUSAGE;
			}
			t.jobs = (unsigned int)n;
			break;
		case 's':
			if (nvml == sizeof(vml) / sizeof(vml[0])) {
				fprintf(stderr, "kmempool: too many --vmlinux paths\n");
				return KMP_EUSAGE;
			}
			vml[nvml++] = optarg;
			break;
		case 'M':
			if (t.nmoddebug == sizeof(t.moddebug) / sizeof(t.moddebug[0])) {
				fprintf(stderr, "kmempool: too many --module-debug paths\n");
				return KMP_EUSAGE;
			}
			t.moddebug[t.nmoddebug++] = optarg;
			break;
		case 't':
			t.timeout = strtod(optarg, &end);
			if (*end || end == optarg || !(t.timeout >= 0 && t.timeout <= 86400 * 7)) {
				fprintf(stderr, "kmempool: --timeout needs seconds from 0 to 604800\n");
				return KMP_EUSAGE;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return KMP_OK;
		default:
			fprintf(stderr, "kmempool: triage: bad option '%s' (unknown, or lacking its "
				"argument); see kmempool triage --help\n", argv[optind - 1]);
			return KMP_EUSAGE;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "kmempool: triage needs dumps or directories; see kmempool triage "
			"--help\n");
		return KMP_EUSAGE;
	}
	for (size_t i = 0; i < nvml; i++) {
		struct stat st;

		if (!stat(vml[i], &st) && S_ISDIR(st.st_mode))
			walk(&t, vml[i], 0, cand_found);
		else
			add_cand(&t, vml[i]);
	}
	for (int i = optind; i < argc; i++) {
		struct stat st;

		/* A directory is searched; anything else is a dump, or its own error line. */
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode))
			walk(&t, argv[i], 0, dump_found);
		else if (!add_job(&t, argv[i], NULL))
			t.oom = true;
	}
	if (t.oom) {
		fprintf(stderr, "kmempool: triage: out of memory\n");
		rc = KMP_ENOMEM;
	} else if (!t.n) {
		fprintf(stderr, "kmempool: triage: no dump found (files named vmcore* or dump* "
			"with a kernel dump's header)\n");
		rc = KMP_ECORE;
	} else {
		signal(SIGPIPE, SIG_IGN);
#ifdef KMP_TESTING
		/*
		 * Test hook: stopped between the search and the analyses, so that a
		 * test can swap a dump found for another file or a symbolic link.
		 */
		if (getenv("KMP_TEST_TRIAGE_STOP"))
			raise(SIGSTOP);
#endif
		rc = run(&t);
	}
	for (size_t i = 0; i < t.n; i++) {
		free(t.v[i].path);
		free(t.v[i].line);
	}
	free(t.v);
	for (size_t i = 0; i < t.ncands; i++)
		free(t.cands[i].path);
	free(t.cands);
	return rc;
}
