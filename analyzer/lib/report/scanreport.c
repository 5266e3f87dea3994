// SPDX-License-Identifier: GPL-2.0
/* kmempool: print the pools a scan of memory found, sorted by address. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "namerule.h"
#include "pools.h"
#include "report.h"
#include "scanreport.h"
#include "tagname.h"

struct found_all {
	struct kmp_found *v;
	size_t n, cap;
	bool oom;
};

static void collect(const struct kmp_found *f, void *arg)
{
	struct found_all *a = arg;

	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		struct kmp_found *v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			a->oom = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = *f;
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct kmp_found *)a)->pi.addr, y = ((const struct kmp_found *)b)->pi.addr;

	return x < y ? -1 : x > y;
}

static uint64_t rd(const struct kmp_kernel *k, uint64_t addr, const struct kmp_field *f,
		   bool *ok)
{
	uint64_t v = 0;
	struct kmp_err e;

	if (*ok && !kmp_read_uint(k->mem, addr + f->off, f->size, &v, &e))
		*ok = false;
	return v;
}

static void add_why(struct kmp_series_vals *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Another reason why a value is not shown, after those before it. */
static void add_why(struct kmp_series_vals *sv, const char *fmt, ...)
{
	size_t n = strlen(sv->why);
	va_list ap;

	if (n)
		n += (size_t)snprintf(sv->why + n, sizeof(sv->why) - n, "; ");
	if (n >= sizeof(sv->why))
		return;
	va_start(ap, fmt);
	vsnprintf(sv->why + n, sizeof(sv->why) - n, fmt, ap);
	va_end(ap);
}

/* The series' counters of the pool @pi, if they are what the kernel keeps. */
static void series_counters(const struct kmp_kernel *k, const struct kmp_poolinfo *pi,
			    struct kmp_series_vals *sv)
{
	const struct kmp_layout *l = k->l;
	struct kmp_err e;
	bool ok;

	ok = kmp_read_int(k->mem, pi->addr + l->low_nr.off, l->low_nr.size, &sv->low_nr, &e);
	sv->nr_reserve = rd(k, pi->addr, &l->nr_reserve, &ok);
	sv->nr_wait = rd(k, pi->addr, &l->nr_wait, &ok);
	if (!ok)
		add_why(sv, "its counters cannot be read");
	else if (sv->low_nr < 0 || sv->low_nr > (pi->min_nr > 1 ? pi->min_nr : 1))
		/* (above curr_nr is the kernel's while mempool_resize() shrinks: poolrec.c) */
		add_why(sv, "its counters break 0 <= low_nr <= min_nr (min_nr %" PRId64
			", low_nr %" PRId64 ")", pi->min_nr, sv->low_nr);
	else
		sv->counters_ok = true;
}

/* Series v6: the name the table prints, from the pool's tag (tagname.c). */
static void series_name_v6(const struct kmp_kernel *k, const struct kmp_poolinfo *pi,
			   struct kmp_series_vals *sv)
{
	char why[256] = "cannot be read";
	struct kmp_tagnames t;
	struct kmp_err e;
	bool ok = true;
	uint64_t tag = rd(k, pi->addr, &k->l->tag, &ok);

	if (ok && tag && kmp_tag_read(k->mem, k->l, tag, &t, why, sizeof(why), &e) == 1) {
		snprintf(sv->name, sizeof(sv->name), "%s", t.name);
		kmp_tagnames_free(&t);
		sv->name_ok = true;
		return;
	}
	add_why(sv, "its tag %s", !tag && ok ? "is a NULL pointer" : why);
	snprintf(sv->name, sizeof(sv->name), "?");
}

/* The pool's name on mempool_list, if it reads and keeps the kernel's rule. */
static void series_name(const struct kmp_kernel *k, const struct kmp_poolinfo *pi,
			struct kmp_series_vals *sv)
{
	char why[128] = "cannot be read";
	struct kmp_err e;
	bool ok = true;
	uint64_t name;

	if (k->l->v6) {
		series_name_v6(k, pi, sv);
		return;
	}
	name = rd(k, pi->addr, &k->l->name, &ok);

	if (ok && name && kmp_read_string(k->mem, name, sv->name, sizeof(sv->name), &e) &&
	    kmp_name_ok(sv->name, strlen(sv->name), why, sizeof(why))) {
		sv->name_ok = true;
		return;
	}
	add_why(sv, "its name on mempool_list %s", why);
	snprintf(sv->name, sizeof(sv->name), "?");
}

void kmp_scan_series_read(const struct kmp_kernel *k, const struct kmp_poolinfo *pi,
			  struct kmp_series_vals *sv)
{
	sv->have = k->l->series;
	sv->counters_ok = sv->name_ok = false;
	sv->low_nr = 0;
	sv->nr_reserve = sv->nr_wait = 0;
	sv->why[0] = '\0';
	sv->name[0] = '\0';
	if (!sv->have)
		return;
	series_counters(k, pi, sv);
	series_name(k, pi, sv);
}

static const char *where_name(enum kmp_where w)
{
	return w == KMP_IN_KERNEL ? "kernel" : w == KMP_IN_MODULE ? "module" :
	       w == KMP_IN_SLAB ? "slab" : "vmalloc";
}

/* "-" without the series, "?" for a value the kernel's rules reject. */
static void series_col(char *buf, size_t len, const struct kmp_series_vals *sv, bool sign,
		       uint64_t v)
{
	if (!sv->have)
		snprintf(buf, len, "-");
	else if (!sv->counters_ok)
		snprintf(buf, len, "?");
	else if (sign)
		snprintf(buf, len, "%" PRId64, (int64_t)v);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

static void print_text(FILE *f, const struct kmp_found *x, const char *name, uint64_t waiting,
		       bool wk, const struct kmp_series_vals *sv)
{
	const struct kmp_poolinfo *p = &x->pi;
	char es[24], wt[24], lo[24], fr[24], wa[24];

	snprintf(es, sizeof(es), p->have_elem_size ? "%" PRIu64 : "-", p->elem_size);
	snprintf(wt, sizeof(wt), wk ? "%" PRIu64 : "?", waiting);
	series_col(lo, sizeof(lo), sv, true, (uint64_t)sv->low_nr);
	series_col(fr, sizeof(fr), sv, false, sv->nr_reserve);
	series_col(wa, sizeof(wa), sv, false, sv->nr_wait);
	fprintf(f, "0x%016" PRIx64 " %-7s %9s %6" PRId64 " %7" PRId64 " %6s %12s %8s %7s %-16s %s",
		p->addr, p->type, es, p->min_nr, p->curr_nr, lo, fr, wa, wt,
		p->owner[0] ? p->owner : "-", name);
	if (sv->have)
		fprintf(f, "  (list: %s)", sv->name);
	fputc('\n', f);
}

static void print_json(FILE *f, const struct kmp_found *x, const char *name, uint64_t waiting,
		       bool wk, const struct kmp_series_vals *sv, bool first)
{
	const struct kmp_poolinfo *p = &x->pi;
	const struct kmp_json_poolhead h = {
		.addr = p->addr, .name = name, .type = p->type,
		.have_elem_size = p->have_elem_size, .elem_size = p->elem_size,
		.min_nr = p->min_nr, .curr_nr = p->curr_nr,
		.have_counters = sv->have && sv->counters_ok, .low_nr = sv->low_nr,
		.nr_reserve = sv->nr_reserve, .nr_wait = sv->nr_wait,
		.have_waiting = wk, .waiting = waiting,
	};

	fprintf(f, "%s\n  ", first ? "" : ",");
	kmp_json_pool_head(f, &h);
	fputs(", \"owner\": ", f);
	if (p->owner[0])
		kmp_json_string(f, p->owner);
	else
		fputs("null", f);
	fputs(", \"alloc\": ", f);
	kmp_json_string(f, p->alloc_name);
	fprintf(f, ", \"found_in\": \"%s\"", where_name(x->where));
	if (sv->have && sv->name_ok) {
		fputs(", \"list_name\": ", f);
		kmp_json_string(f, sv->name);
	}
	fputc('}', f);
}

static void print_head(FILE *f, const struct kmp_kernel *k, const struct kmp_scanreport_opts *o)
{
	if (o->json) {
		fputc('{', f);
		o->json_kernel(f, o->json_kernel_arg);
		fputs(", \"source\": \"scan\", \"pools\": [", f);
		return;
	}
	fprintf(f, "# kmempool scan - every mempool found in kernel memory by its shape, not the "
		"kernel's /proc/mempool%s%s\n", k->vml->btf ? "; types: " : "",
		k->vml->btf ? kmp_vmlinux_types(k->vml) : "");
	if (!k->l->series)
		fputs("# this kernel has no mempool_list: a pool is named after where it "
		      "lives; statistics it does not keep are -\n", f);
	fprintf(f, "# %-16s %-7s %9s %6s %7s %6s %12s %8s %7s %-16s %s\n", "address", "type",
		"elem_size", "min_nr", "curr_nr", "low_nr", "from_reserve", "waits",
		"waiting", "owner", "name");
}

static void print_tail(FILE *f, const struct kmp_scanreport_opts *o, size_t n,
		       const struct kmp_scan_stats *st, bool ok, const struct kmp_err *err)
{
	if (o->json) {
		fprintf(f, "\n], \"scanned_bytes\": %" PRIu64 ", \"slabs\": %" PRIu64
			", \"candidates\": %" PRIu64 ", \"rejected\": %" PRIu64 ", \"complete\": %s",
			st->bytes, st->slabs, st->candidates, st->rejected, ok ? "true" : "false");
		if (!ok) {
			fputs(", \"reason\": ", f);
			kmp_json_string(f, err->msg);
		}
		fputs("}\n", f);
	} else {
		fprintf(f, "# %zu pools; %" PRIu64 " MiB scanned in kernel data, module data, "
			"%" PRIu64 " vmalloc areas and %" PRIu64 " slabs\n", n, st->bytes >> 20,
			st->vmalloc_areas, st->slabs);
	}
}

static void print_stats(const struct kmp_scanreport_opts *o, const struct kmp_scan_stats *st)
{
	if (o->verbose) {
		kmp_note(&o->notes, "scan: %" PRIu64 " bytes, %" PRIu64 " slabs (%" PRIu64
			 " pages), %" PRIu64 " shapes matched, %" PRIu64 " rejected by the full "
			 "check%s%s", st->bytes, st->slabs, st->slab_pages, st->candidates,
			 st->rejected, st->rejected ? ", the first: " : "", st->first_rejection);
		kmp_note(&o->notes, "scan: unreadable chunks: %" PRIu64 " kernel, %" PRIu64
			 " module, %" PRIu64 " slab (left out of the dump, or unmapped); %" PRIu64
			 " struct pages with no RAM behind them",
			 st->unreadable[KMP_IN_KERNEL], st->unreadable[KMP_IN_MODULE],
			 st->unreadable[KMP_IN_SLAB], st->vmemmap_holes);
	}
	/* Kernel and module data a dump leaves out are zero pages: no pool can be there. */
	if (!o->verbose && st->unreadable[KMP_IN_SLAB]) {
		kmp_note(&o->notes, "scan: warning: %" PRIu64 " slabs could not be read "
			 "(left out of the dump?); pools in them are missing from the list",
			 st->unreadable[KMP_IN_SLAB]);
	}
}

/* The globals that point at the pools (or at the vmalloc areas around them), in one pass. */
static void prepare_names(struct kmp_naming *nm, const struct kmp_found *v, size_t n)
{
	uint64_t *addrs = calloc(n ? 2 * n : 1, sizeof(*addrs));	/* calloc: gcc 14 warns on malloc here */
	size_t m = 0;

	if (!addrs)
		return;
	for (size_t i = 0; i < n; i++) {
		addrs[m++] = v[i].pi.addr;
		if (v[i].where == KMP_IN_VMALLOC && v[i].obj != v[i].pi.addr)
			addrs[m++] = v[i].obj;
	}
	kmp_naming_prepare(nm, addrs, m);
	free(addrs);
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * Every pool's name, or NULL (no memory: then each is named as it is
 * printed, without the referrer rule).  The rule needs the objects named
 * by type first: a pool kmalloc'ed on its own is named by the one such
 * object that points at it, whatever the order of their addresses.
 */
static char **name_all(struct kmp_naming *nm, const struct kmp_found *v, size_t n)
{
	char **names = calloc(n ? n : 1, sizeof(*names));
	bool *last = calloc(n ? n : 1, sizeof(*last));
	char name[512], *better;
	size_t i;

	for (i = 0; names && last && i < n; i++) {
		last[i] = kmp_naming_pool_in(nm, v[i].pi.addr,
					     v[i].where == KMP_IN_VMALLOC ? v[i].obj : 0,
					     name, sizeof(name));
		if (!(names[i] = strdup(name)))
			break;
	}
	if (!names || !last || i < n) {
		free_names(names, n);
		free(last);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (last[i] && kmp_naming_referrer(nm, v[i].pi.addr, name, sizeof(name)) &&
		    (better = strdup(name))) {
			free(names[i]);
			names[i] = better;
		}
	}
	free(last);
	return names;
}

#define NOTES_SHOWN 16

/* A pool whose series values are not shown: one note each (the first few). */
static void note_bad(const struct kmp_scanreport_opts *o, const struct kmp_found *x,
		     const struct kmp_series_vals *sv, size_t nbad)
{
	if (nbad <= NOTES_SHOWN)
		kmp_note(&o->notes, "scan: mempool at 0x%" PRIx64 ": %s (printed as ?)", x->pi.addr,
			 sv->why);
	else if (nbad == NOTES_SHOWN + 1)
		kmp_note(&o->notes, "scan: more mempools like these are not named here");
}

bool kmp_scanreport_print(FILE *f, const struct kmp_kernel *k, struct kmp_naming *nm,
			  const struct kmp_scanreport_opts *o, const struct kmp_found *v, size_t n,
			  const struct kmp_scan_stats *st, bool ok, struct kmp_err *err)
{
	struct kmp_series_vals *sv = malloc(sizeof(*sv));
	char **names;
	size_t nbad = 0;

	if (!sv) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	prepare_names(nm, v, n);
	names = name_all(nm, v, n);
	print_head(f, k, o);
	for (size_t i = 0; i < n; i++) {
		char name[512];
		uint64_t waiting = 0;
		bool wk;

		if (names)
			snprintf(name, sizeof(name), "%s", names[i]);
		else
			(void)kmp_naming_pool_in(nm, v[i].pi.addr,
						 v[i].where == KMP_IN_VMALLOC ? v[i].obj : 0, name,
						 sizeof(name));
		wk = kmp_wait_queue_length(k->mem, k->l, v[i].pi.addr, kmp_kernel_wake(k), o->max_waiters, &waiting);
		kmp_scan_series_read(k, &v[i].pi, sv);
		if (sv->have && (!sv->counters_ok || !sv->name_ok))
			note_bad(o, &v[i], sv, ++nbad);
		if (o->json)
			print_json(f, &v[i], name, waiting, wk, sv, i == 0);
		else
			print_text(f, &v[i], name, waiting, wk, sv);
	}
	free(sv);
	free_names(names, n);
	if (nbad && ok) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "%zu mempool(s) whose counters or name on mempool_list "
			   "break the kernel's rules (printed as ?, named above)", nbad);
		ok = false;
	}
	print_tail(f, o, n, st, ok, err);
	print_stats(o, st);
	return ok;
}

bool kmp_scanreport(FILE *f, const struct kmp_kernel *k, const struct kmp_slablayout *sl,
		    struct kmp_naming *nm, const struct kmp_scanreport_opts *o,
		    struct kmp_err *err)
{
	struct found_all all = { 0 };
	struct kmp_scan_stats st;
	bool ok;

	ok = kmp_scan(k, sl, o->max_pfn, o->threads, collect, &all, &st, err);
	if (all.oom && ok) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory while collecting pools");
		ok = false;
	}
	if (all.n > 1)	/* qsort()'s base may not be NULL, even for 0 elements */
		qsort(all.v, all.n, sizeof(*all.v), by_addr);
	ok = kmp_scanreport_print(f, k, nm, o, all.v, all.n, &st, ok, err);
	free(all.v);
	return ok;
}
