// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the search for mempool waiters on task stacks (kernels
 * without mempool_list): a synthetic kernel with a task list, threads,
 * stacks holding wait entries, pools and decoys, laid out by the DWARF of
 * the test object.  Prints "ok"/"not ok" per test and a last line
 * "unit-stacks: N passed, N failed".
 *
 *   unit-stacks FAKE_VMLINUX
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "layout_check.h"
#include "memimg.h"
#include "poolcheck.h"
#include "scanreport.h"
#include "stackreport.h"
#include "stackwait.h"
#include "tasks.h"
#include "vmlinux.h"
#include "vmsyms.h"

#include "check.h"
#include "elfcore.h"

/* Addresses of the synthetic kernel. */
#define TEXT		0xffffffff81000000ULL
#define TEXT_END	0xffffffff82000000ULL
#define MEMPOOL_ALLOC	(TEXT + 0x1000)
#define MEMPOOL_ALLOC_END (TEXT + 0x1400)
/* A second function a waiter may sleep in (7.x: mempool_alloc_from_pool()). */
#define FROM_POOL	(TEXT + 0x2000)
#define FROM_POOL_END	(TEXT + 0x2200)
#define RA		(MEMPOOL_ALLOC + 0x123)	/* a return address into mempool_alloc() */
#define AUTOREMOVE	(TEXT + 0x2000)
#define OTHER_WAKE	(TEXT + 0x2100)
#define PRIV_ALLOC	(TEXT + 0x3000)
#define PRIV_FREE	(TEXT + 0x3100)
#define KMALLOC_FN	(TEXT + 0x4000)
#define KFREE_FN	(TEXT + 0x4100)
#define TASKS		0xffff888020000000ULL	/* task i at TASKS + i * TASK_STRIDE */
#define TASK_STRIDE	0x1000ULL
#define STACKS		0xffffc90000000000ULL	/* stack i at STACKS + i * THREAD_SIZE */
#define THREAD_SIZE	0x4000ULL
#define POOLS		0xffff888030000000ULL
#define POOL_STRIDE	0x200ULL
#define ELEMS		0xffff888031000000ULL
#define OTHERQ		0xffff888032000000ULL	/* a wait queue head of no pool */
#define NAMES		0xffff888033000000ULL	/* the series' names of pools */

#define NTASKS		10
/* Task i's signal_struct (threads_by_signal): in the unused half of its slot. */
#define SIGNAL_OF(i)	(task_addr(i) + 0x800)

static struct kmp_layout L;
static struct kmp_vmlinux V;	/* the test object: its symbols name nothing here */

struct world {
	struct memimg img;
	struct kmp_mem mem;
	unsigned char *tasks, *stacks, *pools, *elems, *otherq;
	struct kmp_kernel k;
	struct kmp_slablayout sl;
};

static void put(unsigned char *base, uint64_t off, uint64_t size, uint64_t v)
{
	for (uint64_t i = 0; i < size; i++)
		base[off + i] = (unsigned char)(v >> (8 * i));
}

static void putf(unsigned char *base, const struct kmp_field *f, uint64_t v)
{
	put(base, f->off, f->size, v);
}

static uint64_t task_addr(int i)
{
	return TASKS + (uint64_t)i * TASK_STRIDE;
}

static unsigned char *task_bytes(struct world *w, int i)
{
	return w->tasks + (uint64_t)i * TASK_STRIDE;
}

static uint64_t pool_addr(int i)
{
	return POOLS + (uint64_t)i * POOL_STRIDE;
}

static unsigned char *pool_bytes(struct world *w, int i)
{
	return w->pools + (uint64_t)i * POOL_STRIDE;
}

static unsigned char *at(struct world *w, uint64_t addr)
{
	if (addr >= TASKS && addr < TASKS + NTASKS * TASK_STRIDE)
		return w->tasks + (addr - TASKS);
	if (addr >= STACKS && addr < STACKS + NTASKS * THREAD_SIZE)
		return w->stacks + (addr - STACKS);
	if (addr >= POOLS && addr < POOLS + 8 * POOL_STRIDE)
		return w->pools + (addr - POOLS);
	if (addr >= OTHERQ && addr < OTHERQ + 0x100)
		return w->otherq + (addr - OTHERQ);
	abort();
}

static void link_after(struct world *w, uint64_t pos, uint64_t node)
{
	uint64_t next;

	memcpy(&next, at(w, pos) + L.lh_next.off, 8);
	putf(at(w, node), &L.lh_next, next);
	putf(at(w, node), &L.lh_prev, pos);
	putf(at(w, next), &L.lh_prev, node);
	putf(at(w, pos), &L.lh_next, node);
}

static void list_init(struct world *w, uint64_t node)
{
	putf(at(w, node), &L.lh_next, node);
	putf(at(w, node), &L.lh_prev, node);
}

/* A pool of @min elements, @curr of them in the reserve. */
static void make_pool(struct world *w, int i, int min, int curr, uint64_t alloc,
		      uint64_t free_fn, uint64_t data)
{
	unsigned char *p = pool_bytes(w, i);

	putf(p, &L.min_nr, (uint64_t)min);
	putf(p, &L.curr_nr, (uint64_t)curr);
	putf(p, &L.alloc, alloc);
	putf(p, &L.free, free_fn);
	putf(p, &L.pool_data, data);
	putf(p, &L.elements, ELEMS + (uint64_t)i * 0x100);
	for (int e = 0; e < curr; e++)
		put(w->elems, (uint64_t)i * 0x100 + e * 8, 8, 0xffff888040000000ULL + e * 64);
	list_init(w, pool_addr(i) + L.wait.off + L.wqh_head.off);
}

/* Task @i: pid, state, its stack, linked on init_task's list (or as a thread of @leader). */
static void make_task(struct world *w, int i, int pid, unsigned int state, int leader)
{
	unsigned char *t = task_bytes(w, i);
	uint64_t stack = STACKS + (uint64_t)i * THREAD_SIZE;

	putf(t, &L.task_pid, (uint64_t)pid);
	putf(t, &L.task_state, state);
	snprintf((char *)t + L.task_comm.off, L.task_comm.size, "task%d", i);
	putf(t, &L.task_stack, stack);
	putf(t, &L.task_thread_sp, stack + THREAD_SIZE - 0x800);
	list_init(w, task_addr(i) + L.task_thread_group.off);
	list_init(w, task_addr(i) + L.task_tasks.off);
	if (L.threads_by_signal) {	/* 6.7 on: every thread on signal->thread_head */
		int lead = leader < 0 ? i : leader;

		putf(t, &L.task_signal, SIGNAL_OF(lead));
		if (leader < 0)
			list_init(w, SIGNAL_OF(i) + L.signal_thread_head.off);
		link_after(w, SIGNAL_OF(lead) + L.signal_thread_head.off,
			   task_addr(i) + L.task_thread_node.off);
	}
	if (i == 0)
		return;
	if (leader < 0)
		link_after(w, task_addr(0) + L.task_tasks.off, task_addr(i) + L.task_tasks.off);
	else if (!L.threads_by_signal)
		link_after(w, task_addr(leader) + L.task_thread_group.off,
			   task_addr(i) + L.task_thread_group.off);
}

/*
 * On task @i's stack: a wait entry at @slot words below the top (func
 * @func), queued after @queue (0: not queued), and a return address into
 * @ret (into a function a waiter sleeps in, or 0 for none) below it.
 */
static uint64_t wait_on(struct world *w, int i, uint64_t slot, uint64_t func, uint64_t queue,
			uint64_t ret)
{
	uint64_t top = STACKS + (uint64_t)(i + 1) * THREAD_SIZE;
	uint64_t wqe = top - slot * 8;
	unsigned char *e = at(w, wqe);

	putf(e, &L.wqe_private, task_addr(i));
	putf(e, &L.wqe_func, func);
	if (queue)
		link_after(w, queue, wqe + L.wqe_entry.off);
	else
		list_init(w, wqe + L.wqe_entry.off);
	if (ret)	/* a return address just below the entry */
		put(at(w, wqe - 0x40), 0, 8, ret);
	return wqe;
}

static uint64_t head_of(int pool)
{
	return pool_addr(pool) + L.wait.off + L.wqh_head.off;
}

static void world_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	memimg_init(&w->img, &w->mem);
	w->tasks = memimg_add(&w->img, TASKS, NTASKS * TASK_STRIDE);
	w->stacks = memimg_add(&w->img, STACKS, NTASKS * THREAD_SIZE);
	w->pools = memimg_add(&w->img, POOLS, 8 * POOL_STRIDE);
	w->elems = memimg_add(&w->img, ELEMS, 8 * 0x100);
	w->otherq = memimg_add(&w->img, OTHERQ, 0x100);
	w->k.mem = &w->mem;
	w->k.l = &L;
	w->k.vml = &V;
	w->k.page_size = 4096;
	w->k.stext = TEXT;
	w->k.etext = TEXT_END;
	w->k.init_task = task_addr(0);
	w->k.waitfn[0].start = MEMPOOL_ALLOC;
	w->k.waitfn[0].end = MEMPOOL_ALLOC_END;
	w->k.waitfn[1].start = FROM_POOL;
	w->k.waitfn[1].end = FROM_POOL_END;
	w->k.nwaitfn = 2;
	w->k.autoremove_wake_function = AUTOREMOVE;
	w->k.thread_size = THREAD_SIZE;
	w->k.fns.kmalloc = KMALLOC_FN;
	w->k.fns.kfree = KFREE_FN;
	w->k.mods.complete = true;
	make_task(w, 0, 0, 0, -1);	/* init_task, the list head */
	/* pool 0: private, empty; pool 1: kmalloc of 100 bytes, full */
	make_pool(w, 0, 4, 0, PRIV_ALLOC, PRIV_FREE, 0);
	make_pool(w, 1, 3, 3, KMALLOC_FN, KFREE_FN, 100);
}

struct seen {
	struct kmp_stackwait v[16];
	int n;
};

static void record(const struct kmp_stackwait *sw, void *arg)
{
	struct seen *s = arg;

	if (s->n < 16)
		s->v[s->n++] = *sw;
}

static const struct kmp_stackwait *find_pid(const struct seen *s, int64_t pid)
{
	for (int i = 0; i < s->n; i++)
		if (s->v[i].task.pid == pid)
			return &s->v[i];
	return NULL;
}

static void test_search(const char *threads)
{
	struct world w;
	struct seen s = { .n = 0 };
	struct kmp_stackwait_stats st;
	struct kmp_stackwait_ctx *ctx;
	struct kmp_err err = { 0 };
	const struct kmp_stackwait *x;
	int rc;

	begin(threads);
	world_init(&w);
	make_task(&w, 1, 101, 0x2, -1);		/* D, waits on pool 0 */
	make_task(&w, 2, 102, 0x1, -1);		/* S: not searched */
	make_task(&w, 3, 103, 0x2, 1);		/* D thread of 101, waits on pool 0 */
	make_task(&w, 4, 104, 0x2, -1);		/* D, waits on another queue (decoy) */
	make_task(&w, 5, 105, 0x2, -1);		/* D, in mempool_alloc between sleeps */
	make_task(&w, 6, 106, 0x402, -1);	/* idle (D|NOLOAD): not searched */
	make_task(&w, 7, 107, 0x2, -1);		/* D, prepare_to_wait elsewhere, no ret */
	make_task(&w, 8, 108, 0x2, -1);		/* D, on a queue whose head is no pool */
	make_task(&w, 9, 109, 0x2, -1);		/* D, waits on pool 0 in the 7.x helper */
	list_init(&w, OTHERQ + 0x10);
	wait_on(&w, 1, 40, AUTOREMOVE, head_of(0), RA);
	wait_on(&w, 3, 64, AUTOREMOVE, head_of(0), RA);
	wait_on(&w, 4, 40, OTHER_WAKE, OTHERQ + 0x10, RA);
	wait_on(&w, 5, 40, AUTOREMOVE, 0, RA);
	wait_on(&w, 6, 40, AUTOREMOVE, head_of(1), RA);
	wait_on(&w, 7, 40, AUTOREMOVE, head_of(1), 0);
	wait_on(&w, 8, 40, AUTOREMOVE, OTHERQ + 0x10, RA);
	wait_on(&w, 9, 48, AUTOREMOVE, head_of(0), FROM_POOL + 0x40);
	/* A wait entry below the saved stack pointer is stale: never looked at. */
	wait_on(&w, 2, 0x700, AUTOREMOVE, 0, RA);

	rc = status(kmp_stackwait_search(&w.k, &w.sl, 100, 100, record, &s, &st, &ctx, &err), &err, true);
	CHECK(rc == KMP_OK, "rc %d: %s", rc, err.msg);
	CHECK(st.tasks == 9, "%" PRIu64 " tasks visited, want 9 (init_task heads the list)",
	      st.tasks);
	CHECK(st.dstate == 7, "%" PRIu64 " tasks in D state, want 7", st.dstate);
	CHECK(s.n == 5, "%d reports, want 5 (101, 103, 105, 108, 109)", s.n);
	x = find_pid(&s, 101);
	CHECK(x && x->kind == KMP_SW_WAITING && x->pool && x->pool->addr == pool_addr(0),
	      "pid 101 not on pool 0");
	CHECK(x && x->pool && !strcmp(x->pool->type, "private") && x->pool->min_nr == 4 &&
	      x->pool->curr_nr == 0 && !x->pool->have_elem_size, "pool 0's values");
	x = find_pid(&s, 103);
	CHECK(x && x->kind == KMP_SW_WAITING && x->pool && x->pool->addr == pool_addr(0),
	      "thread 103 not on pool 0");
	CHECK(find_pid(&s, 101) && x && find_pid(&s, 101)->pool == x->pool,
	      "one validated pool object shared by its waiters");
	CHECK(!find_pid(&s, 104), "the decoy on another queue was reported");
	CHECK(!find_pid(&s, 106), "the idle task was searched");
	CHECK(!find_pid(&s, 107), "a wait without a return address into mempool_alloc");
	CHECK(!find_pid(&s, 102), "a stale entry below the stack pointer was used");
	x = find_pid(&s, 109);
	CHECK(x && x->kind == KMP_SW_WAITING && x->pool && x->pool->addr == pool_addr(0),
	      "pid 109, asleep in the second wait function, not on pool 0");
	x = find_pid(&s, 105);
	CHECK(x && x->kind == KMP_SW_UNQUEUED, "pid 105 not reported as between sleeps");
	x = find_pid(&s, 108);
	CHECK(x && x->kind == KMP_SW_BADHEAD && strstr(x->why, "no queue head validates"),
	      "pid 108 not reported with a bad head: %s", x ? x->why : "(none)");
	kmp_stackwait_done(ctx);
	memimg_free(&w.img);
	end();
}

static void test_poolcheck(void)
{
	struct world w;
	struct kmp_poolinfo pi;
	struct kmp_err why;
	unsigned char *p;

	begin("pool check: each rule rejects, good pools pass with their type");
	world_init(&w);
	CHECK(kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why), "kmalloc pool: %s", why.msg);
	CHECK(!strcmp(pi.type, "kmalloc") && pi.have_elem_size && pi.elem_size == 100 &&
	      !strcmp(pi.alloc_name, "mempool_kmalloc(100)"), "kmalloc pool derived as %s %"
	      PRIu64 " %s", pi.type, pi.elem_size, pi.alloc_name);
	p = pool_bytes(&w, 1);
	putf(p, &L.curr_nr, 4);			/* curr_nr > min_nr */
	CHECK(!kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why), "curr_nr > min_nr accepted");
	putf(p, &L.curr_nr, 3);
	putf(p, &L.min_nr, (uint64_t)-1);	/* negative min_nr */
	CHECK(!kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why), "min_nr -1 accepted");
	putf(p, &L.min_nr, 3);
	putf(p, &L.alloc, 0xffff888000001000ULL);	/* alloc not in text */
	CHECK(!kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why), "alloc in data accepted");
	putf(p, &L.alloc, KMALLOC_FN);
	put(w.elems, 0x100 + 8, 8, 0);		/* a NULL element in the reserve */
	CHECK(!kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why) &&
	      strstr(why.msg, "NULL"), "NULL element accepted: %s", why.msg);
	put(w.elems, 0x100 + 8, 8, 0xffff888040000040ULL);
	put(p, L.lock.off, 1, 0x42);		/* a lock byte no spinlock has */
	CHECK(!kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why), "lock 0x42 accepted");
	put(p, L.lock.off, 1, 1);		/* held: fine */
	CHECK(kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why), "held lock: %s", why.msg);
	putf(p, &L.elements, 0);
	CHECK(!kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why), "NULL elements accepted");
	putf(p, &L.elements, ELEMS + 0x100);
	putf(at(&w, head_of(1)), &L.lh_next, OTHERQ + 0x10);	/* link not pointing back */
	list_init(&w, OTHERQ + 0x10);
	CHECK(!kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why), "broken wait head accepted");
	list_init(&w, head_of(1));
	/* The type by the kernel's rule (mempool_type()): the allocation function. */
	putf(p, &L.free, PRIV_FREE);		/* mm's kmalloc alloc, another free: kmalloc */
	CHECK(kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why) &&
	      !strcmp(pi.type, "kmalloc") && pi.elem_size == 100, "mixed pair: %s", pi.type);
	putf(p, &L.free, KFREE_FN);		/* a swapped allocator with mm's free: private */
	putf(p, &L.alloc, PRIV_ALLOC);
	CHECK(kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why) &&
	      !strcmp(pi.type, "private") && !pi.have_elem_size &&
	      strcmp(pi.alloc_name, "mempool_kmalloc(100)"),
	      "swapped alloc: %s %s", pi.type, pi.alloc_name);
	putf(p, &L.alloc, KMALLOC_FN);
	CHECK(!kmp_pool_check(&w.k, &w.sl, 0xffff888030000004ULL, &pi, &why),
	      "unaligned address accepted");
	CHECK(!kmp_pool_check(&w.k, &w.sl, 0xffff888050000000ULL, &pi, &why) &&
	      strstr(why.msg, "unreadable"), "unmapped address: %s", why.msg);
	memimg_free(&w.img);
	end();
}

/*
 * A pool of min_nr 0 by each kernel's rule (poolrule.h): up to Linux 6.16
 * its reserve array is ZERO_SIZE_PTR and holds nothing; since 6.17 it is
 * an array of one slot and the pool keeps 0 or 1 element.  The waiters'
 * check takes both; the scan's strict check refuses the same counters
 * (its function-entry rule needs symbols this world's vmlinux lacks, so
 * only its refusals are checked here; the VM tests scan real 7.2 pools).
 */
static void test_zero_minimum(void)
{
	struct world w;
	struct kmp_poolinfo pi;
	struct kmp_err why;
	unsigned char *p;

	begin("zero-minimum pools: curr_nr 0 with ZERO_SIZE_PTR (to 6.16), 0 or 1 with an "
	      "array of one slot (6.17 on); more is corrupt");
	world_init(&w);
	p = pool_bytes(&w, 1);
	putf(p, &L.min_nr, 0);
	/* 5.10 to 6.16: kmalloc_array(0) */
	putf(p, &L.elements, 16);
	putf(p, &L.curr_nr, 0);
	CHECK(kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why) && pi.min_nr == 0 &&
	      pi.curr_nr == 0, "ZERO_SIZE_PTR, curr_nr 0: %s", why.msg);
	putf(p, &L.curr_nr, 1);
	CHECK(!kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why) &&
	      strstr(why.msg, "at most 0"), "ZERO_SIZE_PTR, curr_nr 1 accepted (%s)", why.msg);
	CHECK(!kmp_pool_check_strict(&w.k, &w.sl, pool_addr(1), &pi, &why) &&
	      strstr(why.msg, "at most 0"), "strict: ZERO_SIZE_PTR, curr_nr 1 (%s)", why.msg);
	/* 6.17 on: kmalloc_array(max(1, 0)), filled with one element */
	putf(p, &L.elements, ELEMS + 0x100);
	CHECK(kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why) && pi.curr_nr == 1,
	      "one slot, curr_nr 1 (a healthy 7.x pool): %s", why.msg);
	putf(p, &L.curr_nr, 0);
	CHECK(kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why), "one slot, curr_nr 0: %s",
	      why.msg);
	putf(p, &L.curr_nr, 2);
	CHECK(!kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why) &&
	      strstr(why.msg, "at most 1"), "one slot, curr_nr 2 accepted (%s)", why.msg);
	CHECK(!kmp_pool_check_strict(&w.k, &w.sl, pool_addr(1), &pi, &why) &&
	      strstr(why.msg, "at most 1"), "strict: one slot, curr_nr 2 (%s)", why.msg);
	putf(p, &L.elements, 0);	/* exited: NULL array, nothing kept */
	putf(p, &L.curr_nr, 1);
	CHECK(!kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &why), "NULL array, curr_nr 1 accepted");
	kmp_vmlinux_funcs_free(w.k.funcs);
	memimg_free(&w.img);
	end();
}

static void test_loops(void)
{
	struct world w;
	struct seen s = { .n = 0 };
	struct kmp_stackwait_stats st;
	struct kmp_stackwait_ctx *ctx;
	struct kmp_err err = { 0 };
	int rc;

	begin("stack search: a task list cycle and a bad stack pointer end cleanly");
	world_init(&w);
	make_task(&w, 1, 101, 0x2, -1);
	make_task(&w, 2, 102, 0x2, -1);
	wait_on(&w, 1, 40, AUTOREMOVE, head_of(0), RA);
	/* task 2's saved stack pointer lies outside its stack */
	putf(task_bytes(&w, 2), &L.task_thread_sp, STACKS);
	rc = status(kmp_stackwait_search(&w.k, &w.sl, 100, 100, record, &s, &st, &ctx, &err), &err, true);
	CHECK(rc == KMP_EPARTIAL && strstr(err.msg, "stack of task 102"),
	      "bad stack pointer: rc %d, %s", rc, err.msg);
	CHECK(s.n == 1 && s.v[0].task.pid == 101, "the good waiter is still reported");
	kmp_stackwait_done(ctx);
	/* a cycle: the list runs init -> 2 -> 1; 1's next points back at 2 */
	putf(task_bytes(&w, 2), &L.task_thread_sp, STACKS + 3 * THREAD_SIZE - 0x800);
	putf(at(&w, task_addr(1) + L.task_tasks.off), &L.lh_next,
	     task_addr(2) + L.task_tasks.off);
	s.n = 0;
	rc = status(kmp_stackwait_search(&w.k, &w.sl, 100, 100, record, &s, &st, &ctx, &err), &err, true);
	CHECK(rc == KMP_EPARTIAL && strstr(err.msg, "task list"), "cycle: rc %d, %s", rc,
	      err.msg);
	kmp_stackwait_done(ctx);
	memimg_free(&w.img);
	end();
}

static void test_no_members(void)
{
	struct kmp_layout nl = L;
	struct world w;
	struct seen s = { .n = 0 };
	struct kmp_stackwait_stats st;
	struct kmp_stackwait_ctx *ctx;
	struct kmp_err err = { 0 };

	begin("stack search without the task_struct members: exit 6 (format), not 5");
	world_init(&w);
	nl.have_stacks = false;
	w.k.l = &nl;
	CHECK(status(kmp_stackwait_search(&w.k, &w.sl, 100, 100, record, &s, &st, &ctx, &err),
		     &err, true) == KMP_EFORMAT && strstr(err.msg, "lacks"), "%s", err.msg);
	kmp_stackwait_done(ctx);
	CHECK(status(kmp_tasks_each(&w.k, 100, NULL, NULL, &err), &err, true) == KMP_EFORMAT,
	      "the task list: %s", err.msg);
	memimg_free(&w.img);
	end();
}

static void count_found(const struct kmp_found *f, void *arg)
{
	(void)f;
	++*(int *)arg;
}

/*
 * A damaged vmlinux whose DWARF puts mempool_s.elements past the end of the
 * struct: the pool checks and the scan refuse the layout with one error
 * (kind format, naming the member) instead of reading past the buffer of
 * the struct's size (ASan's heap-buffer-overflow before issue 21).
 */
static void test_bad_layout(void)
{
	struct kmp_layout bl = L;
	struct kmp_scan_stats sst;
	struct kmp_stackwait_stats st;
	struct kmp_stackwait_ctx *ctx;
	struct kmp_poolinfo pi;
	struct kmp_err err = { 0 };
	struct seen s = { .n = 0 };
	struct world w;
	int found = 0;

	begin("a layout with mempool_s.elements past the struct is refused with one error, not read");
	world_init(&w);
	bl.elements.off = L.pool_size + 8;
	w.k.l = &bl;
	CHECK(!kmp_layout_check(&bl, "vmlinux", &err) && err.kind == KMP_ERR_FORMAT &&
	      strstr(err.msg, "mempool_s.elements") && strstr(err.msg, "outside the struct"),
	      "layout check: %s", err.msg);
	memset(&err, 0, sizeof(err));
	CHECK(!kmp_pool_check_strict(&w.k, &w.sl, pool_addr(1), &pi, &err) &&
	      err.kind == KMP_ERR_FORMAT && strstr(err.msg, "mempool_s.elements") &&
	      strstr(err.msg, "refused"), "strict check: kind %s: %s",
	      kmp_errkind_name(err.kind), err.msg);
	memset(&err, 0, sizeof(err));
	CHECK(!kmp_pool_check(&w.k, &w.sl, pool_addr(1), &pi, &err) &&
	      err.kind == KMP_ERR_FORMAT && strstr(err.msg, "mempool_s.elements"),
	      "check: kind %s: %s", kmp_errkind_name(err.kind), err.msg);
	memset(&err, 0, sizeof(err));
	CHECK(status(kmp_scan(&w.k, &w.sl, 1 << 20, 0, count_found, &found, &sst, &err), &err,
		     true) == KMP_EFORMAT && strstr(err.msg, "mempool_s.elements") &&
	      found == 0 && sst.candidates == 0, "scan: %d found, %" PRIu64 " candidates: %s",
	      found, sst.candidates, err.msg);
	/* The same for a member of a member: wait_queue_entry.entry.prev far out. */
	bl = L;
	bl.wqe_prev.off = 1u << 20;
	memset(&err, 0, sizeof(err));
	CHECK(status(kmp_stackwait_search(&w.k, &w.sl, 100, 100, record, &s, &st, &ctx, &err),
		     &err, true) == KMP_EFORMAT && strstr(err.msg, "wait_queue_entry.entry.prev") &&
	      s.n == 0, "stack search: %d found: %s", s.n, err.msg);
	kmp_stackwait_done(ctx);
	memimg_free(&w.img);
	end();
}

/* A memory reader that repairs the image after a number of reads: a kernel that changes. */
struct changing {
	struct kmp_mem inner;
	unsigned long reads, repair_after;
	unsigned char *at;
	uint64_t good;
	bool repaired;
};

static bool changing_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
			  struct kmp_err *err)
{
	struct changing *c = mem->priv;

	if (!c->repaired && ++c->reads > c->repair_after) {
		memcpy(c->at, &c->good, 8);
		c->repaired = true;
	}
	return kmp_read(&c->inner, addr, buf, len, err);
}

static void changing_close(struct kmp_mem *mem)
{
	(void)mem;
}

static void json_kernel_none(FILE *f, const void *arg)
{
	(void)arg;
	fputs("\"kernel\": null", f);
}

static void test_live_retry(void)
{
	static const struct kmp_mem_ops ops = { .read = changing_read, .close = changing_close };
	struct world w;
	struct changing c;
	struct kmp_mem mem = { &ops, &c, false, false };
	struct kmp_stackreport_opts o = { .json = true, .max_tasks = 100, .max_waiters = 100,
					  .json_kernel = json_kernel_none };
	struct kmp_naming *nm;
	struct kmp_err err = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	begin("stack search, live: a task list that changes under the walk is searched again");
	world_init(&w);
	make_task(&w, 1, 101, 0x2, -1);
	make_task(&w, 2, 102, 0x2, -1);
	wait_on(&w, 1, 40, AUTOREMOVE, head_of(0), RA);
	/* task 1's next points back at task 2 (a cycle) until the kernel "moves on" */
	memset(&c, 0, sizeof(c));
	c.inner = w.mem;
	c.at = at(&w, task_addr(1) + L.task_tasks.off) + L.lh_next.off;
	memcpy(&c.good, c.at, 8);
	putf(at(&w, task_addr(1) + L.task_tasks.off), &L.lh_next,
	     task_addr(2) + L.task_tasks.off);
	c.repair_after = 40;
	w.k.mem = &mem;
	nm = kmp_naming_new(&w.k, &w.sl, NULL, 0, NULL);
	mem.live = false;
	f = open_memstream(&text, &len);
	rc = status(kmp_stackreport(f, &w.k, &w.sl, nm, &o, &err), &err, true);
	fclose(f);
	CHECK(rc == KMP_EPARTIAL && strstr(text, "\"complete\": false"),
	      "a dump's broken list is partial: rc %d", rc);
	free(text);
	text = NULL;
	/* break it again; live, the second attempt sees the repaired list */
	putf(at(&w, task_addr(1) + L.task_tasks.off), &L.lh_next,
	     task_addr(2) + L.task_tasks.off);
	c.reads = 0;
	c.repaired = false;
	mem.live = true;
	f = open_memstream(&text, &len);
	rc = status(kmp_stackreport(f, &w.k, &w.sl, nm, &o, &err), &err, true);
	fclose(f);
	CHECK(rc == KMP_OK && strstr(text, "\"complete\": true") && strstr(text, "\"pid\": 101"),
	      "live: rc %d, %s: %s", rc, err.msg, text);
	free(text);
	text = NULL;
	/* a list that never settles: partial, and the message says so */
	putf(at(&w, task_addr(1) + L.task_tasks.off), &L.lh_next,
	     task_addr(2) + L.task_tasks.off);
	c.repair_after = ~0UL;
	c.reads = 0;
	c.repaired = false;
	f = open_memstream(&text, &len);
	rc = status(kmp_stackreport(f, &w.k, &w.sl, nm, &o, &err), &err, true);
	fclose(f);
	CHECK(rc == KMP_EPARTIAL && strstr(err.msg, "kept changing"), "never settles: rc %d, %s",
	      rc, err.msg);
	free(text);
	kmp_naming_free(nm);
	memimg_free(&w.img);
	end();
}

/* kmp_scanreport_print() of @n found pools into a string (free it); its status in *@rc. */
/* The scan's notes (kmp.h): the report's callback, never stderr. */
static char scan_notes[4096];

static void scan_note(const char *msg, void *arg)
{
	size_t len = strlen(scan_notes);

	(void)arg;
	snprintf(scan_notes + len, sizeof(scan_notes) - len, "%s\n", msg);
}

static char *scan_print(struct world *w, struct kmp_naming *nm, bool json,
			const struct kmp_found *v, size_t n, int *rc, struct kmp_err *err)
{
	struct kmp_scanreport_opts o = { .json = json, .max_waiters = 100,
					 .json_kernel = json_kernel_none,
					 .notes = { .note = scan_note } };
	struct kmp_scan_stats st = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	*rc = status(kmp_scanreport_print(f, &w->k, nm, &o, v, n, &st, true, err), err, true);
	fclose(f);
	return text;
}

static void test_scan_series(void)
{
	struct kmp_series_vals *sv = malloc(sizeof(*sv));
	struct kmp_found x = { .pi = { .addr = pool_addr(1), .type = "kmalloc", .min_nr = 3,
				       .curr_nr = 3, .alloc_name = "kmalloc" },
			       .where = KMP_IN_KERNEL };
	struct kmp_err err = { 0 };
	struct kmp_naming *nm;
	unsigned char *names, *p;
	struct world w;
	char *text;
	int rc;

	begin("scan with the series: low_nr and the list's name shown only when they keep the "
	      "kernel's rules");
	world_init(&w);
	p = pool_bytes(&w, 1);
	names = memimg_add(&w.img, NAMES, 0x100);
	strcpy((char *)names, "pool-one");
	strcpy((char *)names + 0x40, "bad\nname");
	strcpy((char *)names + 0x80, "caf\xc3\xa9");
	putf(p, &L.name, NAMES);
	putf(p, &L.low_nr, 2);
	putf(p, &L.nr_reserve, 7);
	putf(p, &L.nr_wait, 1);
	CHECK(L.series && sv, "the test object has no series fields");
	kmp_scan_series_read(&w.k, &x.pi, sv);
	CHECK(sv->have && sv->counters_ok && sv->name_ok && sv->low_nr == 2 &&
	      sv->nr_reserve == 7 && !strcmp(sv->name, "pool-one") && !sv->why[0],
	      "good pool: %s", sv->why);
	putf(p, &L.low_nr, (uint64_t)-16777215);
	kmp_scan_series_read(&w.k, &x.pi, sv);
	CHECK(!sv->counters_ok && sv->name_ok && sv->low_nr == -16777215 &&
	      strstr(sv->why, "low_nr -16777215"), "low_nr -16777215 (a 4-byte int): %" PRId64
	      ", %s", sv->low_nr, sv->why);
	/* above curr_nr: a pool mempool_resize() is shrinking (poolrec.c), shown */
	x.pi.curr_nr = 2;
	putf(p, &L.low_nr, 3);
	kmp_scan_series_read(&w.k, &x.pi, sv);
	CHECK(sv->counters_ok && !sv->why[0], "low_nr 3 above curr_nr 2, min_nr 3: %s", sv->why);
	x.pi.curr_nr = 3;
	putf(p, &L.low_nr, (uint64_t)x.pi.min_nr + 1);
	kmp_scan_series_read(&w.k, &x.pi, sv);
	CHECK(!sv->counters_ok && strstr(sv->why, "low_nr") && strstr(sv->why, "min_nr"),
	      "low_nr > min_nr: %s", sv->why);
	putf(p, &L.low_nr, 2);
	putf(p, &L.name, NAMES + 0x40);
	kmp_scan_series_read(&w.k, &x.pi, sv);
	CHECK(sv->counters_ok && !sv->name_ok && !strcmp(sv->name, "?") &&
	      strstr(sv->why, "name on mempool_list has byte 0x0a"), "name with \\n: %s", sv->why);
	putf(p, &L.name, 0);
	kmp_scan_series_read(&w.k, &x.pi, sv);
	CHECK(!sv->name_ok && strstr(sv->why, "cannot be read"), "NULL name: %s", sv->why);
	putf(p, &L.name, NAMES + 0x80);
	kmp_scan_series_read(&w.k, &x.pi, sv);
	CHECK(sv->name_ok && !strcmp(sv->name, "caf\xc3\xa9"), "UTF-8 name: %s", sv->why);

	/* Printed: "?" and null, never the value; the scan is partial. */
	putf(p, &L.name, NAMES);
	putf(p, &L.low_nr, (uint64_t)-16777215);
	nm = kmp_naming_new(&w.k, &w.sl, NULL, 0, NULL);
	scan_notes[0] = '\0';
	text = scan_print(&w, nm, false, &x, 1, &rc, &err);
	CHECK(rc == KMP_EPARTIAL && err.kind == KMP_ERR_CORRUPT, "text: rc %d, %s", rc, err.msg);
	CHECK(!strncmp(scan_notes, "scan: mempool at 0x", 19) && strstr(scan_notes, "(printed as ?)\n"),
	      "the pool's note, through the caller's callback: '%s'", scan_notes);
	CHECK(text && strstr(text, "      3      ?            ?        ?       0 ") &&
	      strstr(text, "(list: pool-one)") && !strstr(text, "16777215"), "text: %s", text);
	free(text);
	text = scan_print(&w, nm, true, &x, 1, &rc, &err);
	CHECK(rc == KMP_EPARTIAL && text &&
	      strstr(text, "\"low_nr\": null, \"from_reserve\": null, \"waits\": null") &&
	      strstr(text, "\"list_name\": \"pool-one\"") && strstr(text, "\"complete\": false"),
	      "json: %s", text);
	free(text);
	putf(p, &L.low_nr, 2);
	putf(p, &L.name, NAMES + 0x40);
	text = scan_print(&w, nm, true, &x, 1, &rc, &err);
	CHECK(rc == KMP_EPARTIAL && text && !strstr(text, "list_name") &&
	      strstr(text, "\"low_nr\": 2,"), "json, bad name: %s", text);
	free(text);
	putf(p, &L.name, NAMES);
	text = scan_print(&w, nm, false, &x, 1, &rc, &err);
	CHECK(rc == KMP_OK && text && strstr(text, "      3      2            7        1       0 "),
	      "good pool: rc %d, %s", rc, text);
	free(text);
	end();

	begin("scan of a kernel in which no pool is found: the report says 0 pools");
	{
		struct kmp_scanreport_opts o = { .max_waiters = 100, .max_pfn = 1 << 20,
						 .json_kernel = json_kernel_none, .verbose = true,
						 .notes = { .note = scan_note } };
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		scan_notes[0] = '\0';
		rc = status(kmp_scanreport(f, &w.k, &w.sl, nm, &o, &err), &err, true);
		fclose(f);
		CHECK(rc == KMP_EPARTIAL && strstr(text, "# 0 pools"), "rc %d: %s", rc, text);
		/* --verbose: the statistics, as notes to the caller. */
		CHECK(!strncmp(scan_notes, "scan: ", 6) && strstr(scan_notes, " bytes, ") &&
		      strstr(scan_notes, "\nscan: unreadable chunks: "), "notes: '%s'", scan_notes);
		free(text);
	}
	end();
	kmp_naming_free(nm);
	memimg_free(&w.img);
	free(sv);
}

/* A vmlinux whose symbol table has no local objects (the test object's two removed). */
static void test_no_local_objects(const char *vmlinux)
{
	char path[] = "/tmp/kmp-noloc.XXXXXX", cmd[4200];
	struct kmp_varindex *ix = NULL;
	struct kmp_vmlinux v;
	struct kmp_err err;
	Dwarf_Die type;
	int fd = mkstemp(path);

	begin("variable types: a vmlinux without local objects gives none (no qsort of NULL)");
	snprintf(cmd, sizeof(cmd), "objcopy -N fake_rb -N _DYNAMIC '%s' '%s'", vmlinux, path);
	CHECK(fd >= 0 && !system(cmd), "objcopy failed");
	if (fd >= 0 && kmp_vmlinux_open(&v, path, &err)) {
		CHECK(!kmp_vmlinux_variable_type(&v, &ix, "fake_rb", 0x4180, &type),
		      "a type without an index");
		kmp_vmlinux_varindex_free(ix);
		kmp_vmlinux_close(&v);
	} else {
		CHECK(0, "cannot open the copy: %s", err.msg);
	}
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	end();
}

/* Touch @dir/@name. */
static bool touch(const char *dir, const char *name)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	return f && !fclose(f);
}

static void test_module_search(void)
{
	char root[] = "/tmp/kmp-mods.XXXXXX", sub[4200], out[4200], cmd[4300];
	size_t budget;

	begin("module debug files: the directory search reads at most its budget of entries");
	CHECK(mkdtemp(root), "mkdtemp");
	for (int d = 0; d < 2; d++) {
		snprintf(sub, sizeof(sub), "%s/%c", root, 'a' + d);
		CHECK(!mkdir(sub, 0700), "mkdir %s", sub);
		for (int i = 0; i < 20; i++) {
			char name[32];

			snprintf(name, sizeof(name), "other%d.ko", i);
			CHECK(touch(sub, name), "file %s/%s", sub, name);
		}
	}
	CHECK(touch(sub, "dm-crypt.ko.debug"), "the module's file");
	budget = 1000;
	CHECK(kmp_find_module_file(root, "dm_crypt", out, sizeof(out), &budget) &&
	      strstr(out, "/b/dm-crypt.ko.debug") && budget < 1000, "found: %s", out);
	/* Used up inside a directory: the search above it stops too (no wrap to SIZE_MAX). */
	for (size_t b = 1; b < 40; b++) {
		budget = b;
		CHECK(!kmp_find_module_file(root, "no_such_mod", out, sizeof(out), &budget) &&
		      budget == 0, "budget %zu: %zu left after the search", b, budget);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(!system(cmd), "rm");
	end();
}

/* ------------------------------------------------------------------ */
/* The slab search in chunks and threads (kmp_scan(), issue 23). */

#define VMEMMAP		0xffffea0000000000ULL
#define DIRECT		0xffff888100000000ULL	/* page_offset_base */
#define CACHE		0xffff888034000000ULL	/* a struct kmem_cache */
#define PAGE_STRUCT	64ULL
#define OBJ_SIZE	256ULL

struct slabseen {
	uint64_t addr[64];
	int n;
};

static void record_found(const struct kmp_found *f, void *arg)
{
	struct slabseen *s = arg;

	if (s->n < 64)
		s->addr[s->n++] = f->pi.addr;
}

/* Struct pages of pfns [lo, hi) in vmemmap; zeroed (no slab). */
static unsigned char *pages_at(struct world *w, uint64_t lo, uint64_t hi)
{
	return memimg_add(&w->img, VMEMMAP + lo * PAGE_STRUCT, (hi - lo) * PAGE_STRUCT);
}

/*
 * A slab of order @order at @pfn (its struct pages in @pages, which start
 * at pfn @base), with a pool of cache KMALLOC in object 3.
 */
static unsigned char *slab_at(struct world *w, unsigned char *pages, uint64_t base, uint64_t pfn,
			      unsigned int order)
{
	unsigned char *pg = pages + (pfn - base) * PAGE_STRUCT;
	uint64_t len = 4096ULL << order, pool = DIRECT + pfn * 4096 + 3 * OBJ_SIZE;
	unsigned char *mem = memimg_add(&w->img, DIRECT + pfn * 4096, len);
	unsigned char *p = mem + 3 * OBJ_SIZE;

	putf(pg, &w->sl.flags, (1ULL << 9) | (order ? 1ULL << 16 : 0));
	putf(pg, &w->sl.slab_cache, CACHE);
	if (order)
		putf(pg + PAGE_STRUCT, &w->sl.order, order);
	putf(p, &L.min_nr, 3);
	putf(p, &L.curr_nr, 3);
	putf(p, &L.alloc, KMALLOC_FN);
	putf(p, &L.free, KFREE_FN);
	putf(p, &L.pool_data, 100);
	putf(p, &L.elements, ELEMS + 0x100);
	put(p, L.wait.off + L.wqh_head.off + L.lh_next.off, 8, pool + L.wait.off + L.wqh_head.off);
	put(p, L.wait.off + L.wqh_head.off + L.lh_prev.off, 8, pool + L.wait.off + L.wqh_head.off);
	return p;
}

static void slab_world(struct world *w, uint64_t max_pfn)
{
	unsigned char *cache;
	struct kmp_slablayout *sl = &w->sl;

	world_init(w);
	memset(sl, 0, sizeof(*sl));
	sl->page_struct_size = PAGE_STRUCT;
	sl->flags = (struct kmp_field){ .off = 0, .size = 8, .ok = true };
	sl->compound_head = (struct kmp_field){ .off = 8, .size = 8, .ok = true };
	sl->slab_cache = (struct kmp_field){ .off = 16, .size = 8, .ok = true };
	sl->order = (struct kmp_field){ .off = 40, .size = 1, .ok = true };
	sl->order_mask = 0xff;
	sl->size = (struct kmp_field){ .off = 8, .size = 4, .ok = true };
	sl->object_size = (struct kmp_field){ .off = 12, .size = 4, .ok = true };
	sl->slab_by = KMP_SLAB_BY_FLAG;
	sl->pg_slab = 9;
	sl->pg_head = 16;
	sl->page_offset_base = DIRECT;
	sl->vmemmap_base = VMEMMAP;
	sl->max_pfn = max_pfn;
	sl->page_size = 4096;
	sl->objects_ok = true;
	cache = memimg_add(&w->img, CACHE, 0x100);
	put(cache, 8, 4, OBJ_SIZE);
	put(cache, 12, 4, OBJ_SIZE);
	/* no vmalloc area: an empty vmap_area_list (after the cache) */
	w->k.vmlayout.ok = true;
	w->k.vmap_area_list = CACHE + 0x80;
	put(cache, 0x80 + L.lh_next.off, 8, CACHE + 0x80);
	put(cache, 0x80 + L.lh_prev.off, 8, CACHE + 0x80);
	/* pool 1's elements serve the pools in slabs (3 of them) */
	make_pool(w, 1, 3, 3, KMALLOC_FN, KFREE_FN, 100);
}

/* Scan @w with @threads threads; its result in @seen, @st; its exit status. */
static int scan_with(struct world *w, unsigned int threads, struct slabseen *seen,
		     struct kmp_scan_stats *st, struct kmp_err *err)
{
	memset(seen, 0, sizeof(*seen));
	memset(err, 0, sizeof(*err));
	return status(kmp_scan(&w->k, &w->sl, 1ULL << 36, threads, record_found, seen, st, err),
		      err, true);
}

static void test_slab_threads(void)
{
	struct kmp_scan_stats st1, st;
	struct slabseen one, many;	/* pools passing the strict check: none here */
	struct kmp_err err;
	unsigned char *pg;
	struct world w;
	int rc1, rc;

	begin("scan: slabs in three chunks with holes give the same pools, order and counts "
	      "with 1, 2, 3 and 4 threads");
	slab_world(&w, 70600);
	pg = pages_at(&w, 0, 1024);			/* chunk 0 */
	slab_at(&w, pg, 0, 5, 0);
	slab_at(&w, pg, 0, 10, 1);			/* order 1: pfns 10 and 11 */
	pg = pages_at(&w, 40000, 41024);		/* chunk 1 */
	slab_at(&w, pg, 40000, 40007, 0);
	pg = pages_at(&w, 70000, 70512);		/* chunk 2, to 70600 a hole */
	slab_at(&w, pg, 70000, 70100, 2);
	rc1 = scan_with(&w, 1, &one, &st1, &err);
	/*
	 * The pools pass the cheap test, not the strict one (their functions
	 * are no symbols of the test object): the candidates, and the first
	 * rejected (the first in pfn order), tell what was found and in
	 * which order.
	 */
	CHECK(rc1 == KMP_OK, "1 thread: rc %d: %s", rc1, err.msg);
	CHECK(st1.candidates == 4 && st1.rejected == 4 && st1.slabs == 4 &&
	      st1.slab_pages == 1 + 2 + 1 + 4 && st1.vmemmap_holes > 0,
	      "1 thread: %" PRIu64 " candidates, %" PRIu64 " slabs, %" PRIu64 " pages, %" PRIu64
	      " holes", st1.candidates, st1.slabs, st1.slab_pages, st1.vmemmap_holes);
	CHECK(!strncmp(st1.first_rejection, "0xffff888100005300:", 19), "first: %s",
	      st1.first_rejection);
	for (unsigned int t = 2; t <= 4; t++) {
		rc = scan_with(&w, t, &many, &st, &err);
		CHECK(rc == rc1 && many.n == one.n &&
		      !strcmp(st.first_rejection, st1.first_rejection),
		      "%u threads: rc %d, %d pools, first %s", t, rc, many.n, st.first_rejection);
		CHECK(st.slabs == st1.slabs && st.slab_pages == st1.slab_pages &&
		      st.bytes == st1.bytes && st.vmemmap_holes == st1.vmemmap_holes &&
		      st.candidates == st1.candidates && st.rejected == st1.rejected,
		      "%u threads: counts differ (holes %" PRIu64 " vs %" PRIu64 ")", t,
		      st.vmemmap_holes, st1.vmemmap_holes);
	}
	kmp_vmlinux_funcs_free(w.k.funcs);
	memimg_free(&w.img);
	end();

	begin("scan: a zero-minimum pool holding its one element (Linux 6.17 on) passes the cheap "
	      "test; two elements do not");
	slab_world(&w, 2048);
	pg = pages_at(&w, 0, 1024);
	{
		unsigned char *p = slab_at(&w, pg, 0, 5, 0);

		putf(p, &L.min_nr, 0);
		putf(p, &L.curr_nr, 1);
		rc = scan_with(&w, 1, &one, &st, &err);
		CHECK(rc == KMP_OK && st.candidates == 1, "curr_nr 1: rc %d, %" PRIu64 " candidates",
		      rc, st.candidates);
		putf(p, &L.curr_nr, 2);
		rc = scan_with(&w, 1, &one, &st, &err);
		CHECK(rc == KMP_OK && st.candidates == 0, "curr_nr 2: rc %d, %" PRIu64 " candidates",
		      rc, st.candidates);
	}
	kmp_vmlinux_funcs_free(w.k.funcs);
	memimg_free(&w.img);
	end();

	begin("scan: 64 GiB without struct pages ends the slab search there (exit 5), "
	      "with any number of threads; a shorter hole does not");
	slab_world(&w, 1ULL << 25);
	pg = pages_at(&w, 0, 1024);
	slab_at(&w, pg, 0, 5, 0);
	for (unsigned int t = 1; t <= 3; t += 2) {
		rc = scan_with(&w, t, &many, &st, &err);
		CHECK(rc == KMP_EPARTIAL && strstr(err.msg, "before pfn 0x1000400") &&
		      st.candidates == 1, "%u threads: rc %d, %" PRIu64 " candidates: %s", t, rc,
		      st.candidates, err.msg);
	}
	/* struct pages again 24 pfns short of 64 GiB after the last one: searched */
	pg = pages_at(&w, 1024 + (1ULL << 24) - 24, 1024 + (1ULL << 24) + 488);
	slab_at(&w, pg, 1024 + (1ULL << 24) - 24, 1024 + (1ULL << 24), 0);
	w.sl.max_pfn = 1024 + (1ULL << 24) + 488;
	for (unsigned int t = 1; t <= 3; t += 2) {
		rc = scan_with(&w, t, &many, &st, &err);
		CHECK(rc == KMP_OK && st.candidates == 2, "%u threads: rc %d, %" PRIu64
		      " candidates: %s", t, rc, st.candidates, err.msg);
	}
	kmp_vmlinux_funcs_free(w.k.funcs);
	memimg_free(&w.img);
	end();
}

/*
 * A clone of a /proc/kcore reader must open the file anew: the kernel
 * reads RAM through a bounce buffer of the open file, so threads sharing
 * one (a dup()) read each other's bytes (the live scan lost pools so).
 * File status flags belong to the open file: one set on the first
 * descriptor shows on a dup() and not on a new open().
 */
static void test_kcore_clone(void)
{
	char path[] = "/tmp/kmp-kcore.XXXXXX", link[4096], want[4096];
	unsigned char page[4096], got[64];
	struct kmp_core core = { 0 };
	struct kmp_mem *clone = NULL;
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph = { 0 };
	struct kmp_err err;
	int fd, shared = 0, others = 0;
	DIR *d;

	begin("kcore: a second reader opens /proc/kcore anew (its own open file), "
	      "and reads the same bytes");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	if (fd < 0) {
		end();
		return;
	}
	eh = elfcore_header(1);
	ph.p_type = PT_LOAD;
	ph.p_offset = 4096;
	ph.p_vaddr = 0xffff888000000000ULL;
	ph.p_filesz = ph.p_memsz = sizeof(page);
	for (size_t i = 0; i < sizeof(page); i++)
		page[i] = (unsigned char)(i * 7);
	CHECK(pwrite(fd, &eh, sizeof(eh), 0) == sizeof(eh) &&
	      pwrite(fd, &ph, sizeof(ph), sizeof(eh)) == sizeof(ph) &&
	      pwrite(fd, page, sizeof(page), 4096) == sizeof(page), "write %s", path);
	snprintf(core.path, sizeof(core.path), "%s", path);
	if (!kmp_kcore_open(&core, fd, &err)) {
		CHECK(0, "kmp_kcore_open: %s", err.msg);
		unlink(path);
		end();
		return;
	}
	clone = kmp_mem_clone(&core.mem);
	CHECK(clone, "no clone");
	CHECK(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0, "F_SETFL");
	snprintf(want, sizeof(want), "%s", path);
	d = opendir("/proc/self/fd");
	for (struct dirent *de; d && (de = readdir(d));) {
		char p[300];
		ssize_t n;
		int other = atoi(de->d_name);

		snprintf(p, sizeof(p), "/proc/self/fd/%s", de->d_name);
		n = readlink(p, link, sizeof(link) - 1);
		if (n < 0 || other == fd || other == dirfd(d))
			continue;
		link[n] = '\0';
		if (strcmp(link, want))
			continue;
		others++;
		if (fcntl(other, F_GETFL) & O_NONBLOCK)
			shared++;
	}
	if (d)
		closedir(d);
	CHECK(others == 1 && !shared, "%d other descriptors of the file, %d sharing its open file",
	      others, shared);
	CHECK(clone && kmp_read(clone, 0xffff888000000100ULL, got, sizeof(got), &err) &&
	      !memcmp(got, page + 0x100, sizeof(got)), "clone read: %s", err.msg);
	kmp_mem_free(clone);
	kmp_core_close(&core);
	free(core.vmcoreinfo);
	unlink(path);
	end();
}

/*
 * The kernel data a search reads: __ro_after_init, .data, .bss, without
 * the bss padding an AMD_MEM_ENCRYPT kernel gives back to the page
 * allocator at boot (its pages then hold any object: a pointer found there
 * named a slab object's pools "(*__start_bss_decrypted_unused+0x1a5000)+0x180"
 * on Debian's 6.1).
 */
static void test_data_ranges(void)
{
	struct kmp_kernel k = { .ro_after_init = 0x1000, .ro_after_init_end = 0x2000,
				.sdata = 0x10000, .edata = 0x20000, .sbss = 0x40000, .ebss = 0x80000 };
	struct kmp_range r[KMP_DATA_RANGES];
	size_t n;

	begin("kernel data: the bss without what the kernel freed (__start_bss_decrypted_unused)");
	n = kmp_kernel_data_ranges(&k, r);
	CHECK(n == 3 && r[2].lo == 0x40000 && r[2].hi == 0x80000, "no freed part: %zu ranges", n);
	k.bss_freed = 0x60000;
	k.bss_freed_end = 0x80000;	/* at the bss's end, as x86's linker script puts it */
	n = kmp_kernel_data_ranges(&k, r);
	CHECK(n == 3 && r[0].lo == 0x1000 && r[1].lo == 0x10000 && r[2].lo == 0x40000 &&
	      r[2].hi == 0x60000, "freed at the end: %zu ranges, bss to 0x%" PRIx64, n,
	      n == 3 ? r[2].hi : 0);
	k.bss_freed_end = 0x70000;	/* in the middle: two pieces */
	n = kmp_kernel_data_ranges(&k, r);
	CHECK(n == 4 && r[2].hi == 0x60000 && r[3].lo == 0x70000 && r[3].hi == 0x80000,
	      "freed in the middle: %zu ranges", n);
	k.bss_freed = 0x40000;
	k.bss_freed_end = 0x80000;	/* all of it */
	n = kmp_kernel_data_ranges(&k, r);
	CHECK(n == 2, "all freed: %zu ranges", n);
	k.bss_freed = 0x90000;
	k.bss_freed_end = 0xa0000;	/* outside the bss: ignored */
	n = kmp_kernel_data_ranges(&k, r);
	CHECK(n == 3 && r[2].lo == 0x40000 && r[2].hi == 0x80000, "outside: %zu ranges", n);
	end();
}

int main(int argc, char **argv)
{
	struct kmp_vmlinux *v = &V;
	struct kmp_err err;

	if (argc != 2) {
		fprintf(stderr, "usage: unit-stacks FAKE_VMLINUX\n");
		return 2;
	}
	struct kmp_sym sym = { .name = "mempool_exit" };

	if (!kmp_vmlinux_open(v, argv[1], &err)) {
		printf("not ok - open %s: %s\n", argv[1], err.msg);
		return 1;
	}
	kmp_vmlinux_symbols(v, &sym, 1);
	if (!sym.found || !kmp_layout_load(v, sym.addr, false, &L, &err)) {
		printf("not ok - layout from %s: %s\n", argv[1], sym.found ? err.msg : "no symbol");
		kmp_vmlinux_close(v);
		return 1;
	}
	begin("layout: the stack search members come from DWARF");
	CHECK(L.have_stacks && L.wqe_func.ok && L.alloc.ok && L.free.ok && L.pool_data.ok,
	      "have_stacks %d", L.have_stacks);
	end();
	test_data_ranges();
	test_search("stack search: waiters, threads (thread_group), decoys, unqueued and bad heads");
	/*
	 * 6.7 on: the same world with threads on signal->thread_head through
	 * thread_node (the fake's thread_group list_head stands in for it).
	 */
	L.threads_by_signal = true;
	L.task_thread_node = L.task_thread_group;
	L.task_signal = (struct kmp_field){ .off = L.task_thread_group.off + 16, .size = 8, .ok = true };
	L.signal_thread_head = (struct kmp_field){ .off = 0, .size = 16, .ok = true };
	memset(&L.task_thread_group, 0, sizeof(L.task_thread_group));
	test_search("stack search: the same with threads on signal->thread_head (6.7 on)");
	L.threads_by_signal = false;
	L.task_thread_group = L.task_thread_node;
	test_poolcheck();
	test_zero_minimum();
	test_loops();
	test_slab_threads();
	test_kcore_clone();
	test_live_retry();
	test_no_members();
	test_bad_layout();
	test_scan_series();
	test_no_local_objects(argv[1]);
	test_module_search();
	kmp_vmlinux_close(v);
	printf("unit-stacks: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
