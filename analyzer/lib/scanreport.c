// SPDX-License-Identifier: GPL-2.0
/* kmempool: print the pools a scan of memory found, sorted by address. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pools.h"
#include "report.h"
#include "scanreport.h"

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

/* What the series keeps in the pool, when the kernel has it. */
struct series_vals {
	bool have;
	int64_t low_nr;
	uint64_t nr_reserve, nr_wait;
	char name[KMP_NAME_MAX];
};

static uint64_t rd(const struct kmp_kernel *k, uint64_t addr, const struct kmp_field *f,
		   bool *ok)
{
	uint64_t v = 0;
	struct kmp_err e;

	if (!kmp_read_uint(k->mem, addr + f->off, f->size, &v, &e))
		*ok = false;
	return v;
}

static void series_read(const struct kmp_kernel *k, uint64_t pool, struct series_vals *sv)
{
	const struct kmp_layout *l = k->l;
	struct kmp_err e;
	uint64_t name;
	bool ok = true;

	memset(sv, 0, sizeof(*sv));
	if (!l->series)
		return;
	sv->low_nr = (int32_t)rd(k, pool, &l->low_nr, &ok);
	sv->nr_reserve = rd(k, pool, &l->nr_reserve, &ok);
	sv->nr_wait = rd(k, pool, &l->nr_wait, &ok);
	name = rd(k, pool, &l->name, &ok);
	if (!ok || !name || !kmp_read_string(k->mem, name, sv->name, sizeof(sv->name), &e))
		snprintf(sv->name, sizeof(sv->name), "?");
	sv->have = ok;
}

static const char *where_name(enum kmp_where w)
{
	return w == KMP_IN_KERNEL ? "kernel" : w == KMP_IN_MODULE ? "module" :
	       w == KMP_IN_SLAB ? "slab" : "vmalloc";
}

static void print_text(FILE *f, const struct kmp_found *x, const char *name, uint64_t waiting,
		       bool wk, const struct series_vals *sv)
{
	const struct kmp_poolinfo *p = &x->pi;
	char es[24], wt[24], lo[24], fr[24], wa[24];

	snprintf(es, sizeof(es), p->have_elem_size ? "%" PRIu64 : "-", p->elem_size);
	snprintf(wt, sizeof(wt), wk ? "%" PRIu64 : "?", waiting);
	snprintf(lo, sizeof(lo), sv->have ? "%" PRId64 : "-", sv->low_nr);
	snprintf(fr, sizeof(fr), sv->have ? "%" PRIu64 : "-", sv->nr_reserve);
	snprintf(wa, sizeof(wa), sv->have ? "%" PRIu64 : "-", sv->nr_wait);
	fprintf(f, "0x%016" PRIx64 " %-7s %9s %6" PRId64 " %7" PRId64 " %6s %12s %8s %7s %-16s %s",
		p->addr, p->type, es, p->min_nr, p->curr_nr, lo, fr, wa, wt,
		p->owner[0] ? p->owner : "-", name);
	if (sv->have)
		fprintf(f, "  (list: %s)", sv->name);
	fputc('\n', f);
}

static void print_json(FILE *f, const struct kmp_found *x, const char *name, uint64_t waiting,
		       bool wk, const struct series_vals *sv, bool first)
{
	const struct kmp_poolinfo *p = &x->pi;

	fprintf(f, "%s\n  {\"address\": \"0x%" PRIx64 "\", \"name\": ", first ? "" : ",", p->addr);
	kmp_json_string(f, name);
	fputs(", \"type\": ", f);
	kmp_json_string(f, p->type);
	if (p->have_elem_size)
		fprintf(f, ", \"elem_size\": %" PRIu64, p->elem_size);
	else
		fputs(", \"elem_size\": null", f);
	fprintf(f, ", \"min_nr\": %" PRId64 ", \"curr_nr\": %" PRId64, p->min_nr, p->curr_nr);
	if (sv->have)
		fprintf(f, ", \"low_nr\": %" PRId64 ", \"from_reserve\": %" PRIu64 ", \"waits\": %"
			PRIu64, sv->low_nr, sv->nr_reserve, sv->nr_wait);
	else
		fputs(", \"low_nr\": null, \"from_reserve\": null, \"waits\": null", f);
	if (wk)
		fprintf(f, ", \"waiting\": %" PRIu64, waiting);
	else
		fputs(", \"waiting\": null", f);
	fputs(", \"owner\": ", f);
	if (p->owner[0])
		kmp_json_string(f, p->owner);
	else
		fputs("null", f);
	fputs(", \"alloc\": ", f);
	kmp_json_string(f, p->alloc_name);
	fprintf(f, ", \"found_in\": \"%s\"", where_name(x->where));
	if (sv->have) {
		fputs(", \"list_name\": ", f);
		kmp_json_string(f, sv->name);
	}
	fputc('}', f);
}

int kmp_scanreport(FILE *f, const struct kmp_kernel *k, const struct kmp_slablayout *sl,
		   struct kmp_naming *nm, const struct kmp_scanreport_opts *o,
		   struct kmp_err *err)
{
	struct found_all all = { 0 };
	struct kmp_scan_stats st;
	uint64_t *addrs;
	int rc;

	rc = kmp_scan(k, sl, o->max_pfn, collect, &all, &st, err);
	if (all.oom && rc == KMP_OK) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory while collecting pools");
		rc = KMP_EPARTIAL;
	}
	qsort(all.v, all.n, sizeof(*all.v), by_addr);
	addrs = malloc((all.n ? 2 * all.n : 1) * sizeof(*addrs));
	if (addrs) {
		size_t n = 0;

		for (size_t i = 0; i < all.n; i++) {
			addrs[n++] = all.v[i].pi.addr;
			if (all.v[i].where == KMP_IN_VMALLOC && all.v[i].obj != all.v[i].pi.addr)
				addrs[n++] = all.v[i].obj;
		}
		kmp_naming_prepare(nm, addrs, n);
		free(addrs);
	}
	if (o->json) {
		fputc('{', f);
		o->json_kernel(f, o->json_kernel_arg);
		fputs(", \"source\": \"scan\", \"pools\": [", f);
	} else {
		fputs("# kmempool scan - every mempool found in kernel memory by its shape, not the "
		      "kernel's /proc/mempool\n", f);
		if (!k->l->series)
			fputs("# this kernel has no mempool_list: a pool is named after where it "
			      "lives; statistics it does not keep are -\n", f);
		fprintf(f, "# %-16s %-7s %9s %6s %7s %6s %12s %8s %7s %-16s %s\n", "address", "type",
			"elem_size", "min_nr", "curr_nr", "low_nr", "from_reserve", "waits",
			"waiting", "owner", "name");
	}
	for (size_t i = 0; i < all.n; i++) {
		char name[512];
		uint64_t waiting = 0;
		struct series_vals sv;
		bool wk;

		kmp_naming_pool_in(nm, all.v[i].pi.addr,
				   all.v[i].where == KMP_IN_VMALLOC ? all.v[i].obj : 0, name,
				   sizeof(name));
		wk = kmp_wait_queue_length(k->mem, k->l, all.v[i].pi.addr, o->max_waiters,
					   &waiting);
		series_read(k, all.v[i].pi.addr, &sv);
		if (o->json)
			print_json(f, &all.v[i], name, waiting, wk, &sv, i == 0);
		else
			print_text(f, &all.v[i], name, waiting, wk, &sv);
	}
	if (o->json) {
		fprintf(f, "\n], \"scanned_bytes\": %" PRIu64 ", \"slabs\": %" PRIu64
			", \"candidates\": %" PRIu64 ", \"rejected\": %" PRIu64 ", \"complete\": %s",
			st.bytes, st.slabs, st.candidates, st.rejected,
			rc == KMP_OK ? "true" : "false");
		if (rc != KMP_OK) {
			fputs(", \"reason\": ", f);
			kmp_json_string(f, err->msg);
		}
		fputs("}\n", f);
	} else {
		fprintf(f, "# %zu pools; %" PRIu64 " MiB scanned in kernel data, module data, "
			"%" PRIu64 " vmalloc areas and %" PRIu64 " slabs\n", all.n, st.bytes >> 20,
			st.vmalloc_areas, st.slabs);
	}
	if (o->verbose) {
		fprintf(stderr, "kmempool: scan: %" PRIu64 " bytes, %" PRIu64 " slabs (%" PRIu64
			" pages), %" PRIu64 " shapes matched, %" PRIu64 " rejected by the full "
			"check%s%s\n", st.bytes, st.slabs, st.slab_pages, st.candidates,
			st.rejected, st.rejected ? ", the first: " : "", st.first_rejection);
		fprintf(stderr, "kmempool: scan: unreadable chunks: %" PRIu64 " kernel, %" PRIu64
			" module, %" PRIu64 " slab (left out of the dump, or unmapped); %" PRIu64
			" struct pages with no RAM behind them\n",
			st.unreadable[KMP_IN_KERNEL], st.unreadable[KMP_IN_MODULE],
			st.unreadable[KMP_IN_SLAB], st.vmemmap_holes);
	}
	/* Kernel and module data a dump leaves out are zero pages: no pool can be there. */
	if (!o->verbose && st.unreadable[KMP_IN_SLAB]) {
		fprintf(stderr, "kmempool: scan: warning: %" PRIu64 " slabs could not be read "
			"(left out of the dump?); pools in them are missing from the list\n",
			st.unreadable[KMP_IN_SLAB]);
	}
	free(all.v);
	return rc;
}
