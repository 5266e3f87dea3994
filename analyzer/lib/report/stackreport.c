// SPDX-License-Identifier: GPL-2.0
/* kmempool: print the waiters found on task stacks, grouped by pool. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "orc.h"
#include "pools.h"
#include "report.h"
#include "stackreport.h"
#include "tagname.h"


static void json_opt_string(FILE *f, const char *s)
{
	if (s && *s)
		kmp_json_string(f, s);
	else
		fputs("null", f);
}

/*
 * The frames of a waiter's stack (ORC): above its mempool_alloc*() frames,
 * the caller first, or with @all the whole stack, innermost first.  Text:
 * "caller+0x2d [mod] <- its caller+0x1a0 <- ..."; JSON: an array of
 * {"pc", "function"} (the return address and that name).
 */
static void print_frames(FILE *f, bool json, const struct kmp_kernel *k, const struct kmp_orc *orc,
			 uint64_t task, bool all)
{
	uint64_t pcs[KMP_ORC_MAX_FRAMES] = { 0 };
	size_t n = orc ? kmp_orc_unwind(orc, task, pcs, KMP_ORC_MAX_FRAMES) : 0;
	size_t from = all ? 0 : kmp_orc_callers(k, pcs, n);

	/* (Their vmlinux names were looked up together: name_frames().) */

	if (!orc)
		return;
	fputs(json ? ", \"frames\": [" : "        ", f);
	for (size_t i = from; i < n; i++) {
		char name[256];

		if (!kmp_kernel_symbolize(k, pcs[i], name, sizeof(name)))
			snprintf(name, sizeof(name), "0x%" PRIx64, pcs[i]);
		if (json) {
			fprintf(f, "%s{\"pc\": \"0x%" PRIx64 "\", \"function\": ", i > from ? ", " : "",
				pcs[i]);
			kmp_json_string(f, name);
			fputc('}', f);
		} else {
			fprintf(f, "%s%s", i > from ? (all ? " -> " : " <- ") : "", name);
		}
	}
	if (!json && from >= n)
		fputs(n ? "(no frame above mempool_alloc)" : "(the stack could not be unwound)", f);
	fputs(json ? "]" : "\n", f);
}

/*
 * The vmlinux names of every waiter's frames in one pass over the symbols
 * (a pass per frame read the whole symbol table each time).
 */
static void name_frames(const struct kmp_kernel *k, const struct kmp_orc *orc,
			const struct kmp_stackwait_list *fd)
{
	uint64_t *all = orc ? malloc((fd->n ? fd->n : 1) * KMP_ORC_MAX_FRAMES * sizeof(*all)) : NULL;
	size_t n = 0;

	if (!all)
		return;
	for (size_t i = 0; i < fd->n; i++)
		if (fd->v[i].kind == KMP_SW_WAITING)
			n += kmp_orc_unwind(orc, fd->v[i].task.addr, all + n, KMP_ORC_MAX_FRAMES);
	kmp_kernel_symbolize_prepare(k, all, n);
	free(all);
}

static void print_task(FILE *f, bool json, const struct kmp_task *t, bool first,
		       const struct kmp_kernel *k, const struct kmp_orc *orc, bool all)
{
	if (json) {
		fprintf(f, "%s{\"pid\": %" PRId64 ", \"comm\": ", first ? "" : ", ", t->pid);
		kmp_json_string(f, t->comm);
		fprintf(f, ", \"state\": \"%.1s\", \"task\": \"0x%" PRIx64 "\"",
			kmp_task_state(t->state), t->addr);
		print_frames(f, true, k, orc, t->addr, all);
		fputc('}', f);
	} else {
		fprintf(f, "    pid %-7" PRId64 " %-16s %s\n", t->pid, t->comm,
			kmp_task_state(t->state));
		print_frames(f, false, k, orc, t->addr, all);
	}
}

static void print_pool(FILE *f, bool json, const struct kmp_poolinfo *p, const char *name,
		       uint64_t waiting, bool waiting_known, bool first)
{
	if (json) {
		const struct kmp_json_poolhead h = {
			.addr = p->addr, .name = name, .type = p->type,
			.have_elem_size = p->have_elem_size, .elem_size = p->elem_size,
			.min_nr = p->min_nr, .curr_nr = p->curr_nr,
			/* The list's counters, not read by the search: the same keys, unknown. */
			.have_counters = false,
			.have_waiting = waiting_known, .waiting = waiting,
		};

		fprintf(f, "%s\n  ", first ? "" : ",");
		kmp_json_pool_head(f, &h);
		fputs(", \"alloc\": ", f);
		kmp_json_string(f, p->alloc_name);
		fputs(", \"owner\": ", f);
		json_opt_string(f, p->owner);
		fputs(", \"waiters\": [", f);
		return;
	}
	fprintf(f, "pool 0x%" PRIx64 "  %s\n", p->addr, name);
	fprintf(f, "    type %s, elem_size ", p->type);
	if (p->have_elem_size)
		fprintf(f, "%" PRIu64, p->elem_size);
	else
		fputs("-", f);
	fprintf(f, ", min_nr %" PRId64 ", curr_nr %" PRId64 ", waiting ", p->min_nr, p->curr_nr);
	if (waiting_known)
		fprintf(f, "%" PRIu64, waiting);
	else
		fputs("?", f);
	fprintf(f, ", owner %s\n    alloc %s\n", p->owner[0] ? p->owner : "-", p->alloc_name);
}

static const char *unknown_reason(const struct kmp_stackwait *w)
{
	if (w->kind == KMP_SW_UNQUEUED)
		return "between two sleeps: its wait entry is on no queue";
	return w->why;
}

/*
 * A series v6 pool by the name its table prints (its code tag, escaped);
 * other pools, or a tag that does not read, by where the pool lives.
 */
static void pool_name(const struct kmp_kernel *k, struct kmp_naming *nm, uint64_t addr,
		      char *out, size_t len)
{
	struct kmp_tagnames t;
	struct kmp_err e;
	char why[128];
	uint64_t tag;

	if (k->l->v6 && kmp_read_uint(k->mem, addr + k->l->tag.off, k->l->tag.size, &tag, &e) &&
	    tag && kmp_tag_read(k->mem, k->l, tag, &t, why, sizeof(why), &e) == 1) {
		snprintf(out, len, "%s", t.name);
		kmp_tagnames_free(&t);
		return;
	}
	kmp_naming_pool(nm, addr, out, len);
}

bool kmp_stackreport(FILE *f, const struct kmp_kernel *k, const struct kmp_slablayout *sl,
		     struct kmp_naming *nm, const struct kmp_stackreport_opts *o,
		     struct kmp_err *err)
{
	struct kmp_stackwait_list fd = { 0 };
	struct kmp_stackwait_stats st;
	struct kmp_stackwait_ctx *ctx;
	size_t npools = 0, nunknown = 0;
	struct kmp_orc *orc;
	char why[256];
	bool *done, ok;

	ok = kmp_stackwait_find(k, sl, o->max_tasks, o->max_waiters, &fd, &st, &ctx, err);
	if (!ok && err->kind == KMP_ERR_FORMAT) {
		kmp_stackwait_done(ctx);
		free(fd.v);
		return false;
	}
	for (size_t i = 0; i < fd.n; i++)
		if (fd.v[i].kind != KMP_SW_WAITING)
			nunknown++;
	if (nunknown && ok) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "%zu task(s) in mempool_alloc() whose pool could not be "
			   "determined (listed in the output)", nunknown);
		ok = false;
	}
	done = calloc(fd.n ? fd.n : 1, sizeof(*done));
	/* Frames of each waiter: no unwinder (no ORC), no frames. */
	orc = kmp_orc_new(k, why, sizeof(why));
	name_frames(k, orc, &fd);
	if (o->json) {
		fputc('{', f);
		o->json_kernel(f, o->json_kernel_arg);
		fputs(", \"source\": \"stacks\", \"pools\": [", f);
	} else {
		fprintf(f, "# kmempool waiters - derived from kernel memory (task stacks and %s), "
			"not the kernel's /proc/mempool\n", kmp_vmlinux_types(k->vml));
		if (o->series)
			fputs("# --source stacks: the search a kernel without mempool_list gets\n", f);
		else
			fputs("# this kernel has no mempool_list: a pool is named after where it "
			      "lives; no statistics are kept\n", f);
		if (!orc && o->verbose)
			fprintf(f, "# no frames: %s\n", why);
	}
	for (size_t i = 0; done && i < fd.n; i++) {
		const struct kmp_poolinfo *p = fd.v[i].pool;
		char name[512];
		uint64_t waiting;
		bool wk, first = true;

		if (done[i] || fd.v[i].kind != KMP_SW_WAITING)
			continue;
		pool_name(k, nm, p->addr, name, sizeof(name));
		wk = kmp_wait_queue_length(k->mem, k->l, p->addr, kmp_kernel_wake(k), o->max_waiters, &waiting);
		print_pool(f, o->json, p, name, waiting, wk, npools == 0);
		npools++;
		for (size_t j = i; j < fd.n; j++) {
			if (done[j] || fd.v[j].kind != KMP_SW_WAITING || fd.v[j].pool != p)
				continue;
			done[j] = true;
			print_task(f, o->json, &fd.v[j].task, first, k, orc, o->verbose);
			first = false;
		}
		if (o->json)
			fputs("]}", f);
	}
	if (o->json) {
		fputs("\n], \"unknown\": [", f);
	} else if (!npools) {
		fprintf(f, "# no task is waiting on any mempool (%" PRIu64 " tasks, %" PRIu64
			" in D state%s)\n", st.tasks, st.dstate,
			ok ? "" : "; the search was incomplete, see stderr");
	}
	if (!o->json && nunknown)
		fputs("# tasks in mempool_alloc() whose pool could not be determined:\n", f);
	for (size_t i = 0, n = 0; i < fd.n; i++) {
		const struct kmp_stackwait *w = &fd.v[i];

		if (w->kind == KMP_SW_WAITING)
			continue;
		if (o->json) {
			fprintf(f, "%s\n  {\"pid\": %" PRId64 ", \"comm\": ", n++ ? "," : "",
				w->task.pid);
			kmp_json_string(f, w->task.comm);
			fprintf(f, ", \"state\": \"%.1s\", \"task\": \"0x%" PRIx64 "\", "
				"\"wait_entry\": \"0x%" PRIx64 "\", \"reason\": ",
				kmp_task_state(w->task.state), w->task.addr, w->wqe);
			kmp_json_string(f, unknown_reason(w));
			fputc('}', f);
		} else {
			fprintf(f, "    pid %-7" PRId64 " %-16s %s: %s\n", w->task.pid, w->task.comm,
				kmp_task_state(w->task.state), unknown_reason(w));
		}
	}
	if (o->json) {
		fprintf(f, "\n], \"tasks\": %" PRIu64 ", \"tasks_blocked\": %" PRIu64
			", \"complete\": %s", st.tasks, st.dstate, ok ? "true" : "false");
		if (!ok) {
			fputs(", \"reason\": ", f);
			kmp_json_string(f, err->msg);
		}
		fputs("}\n", f);
	}
	kmp_orc_free(orc);
	free(done);
	free(fd.v);
	kmp_stackwait_done(ctx);
	return ok;
}
