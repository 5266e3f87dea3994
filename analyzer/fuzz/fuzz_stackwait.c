// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the search for mempool waiters on task stacks (the
 * task list, thread groups, stack scan, wait-queue links, pool check)
 * and the strict pool check of the scan, over a mutated memory image.
 * The input is one region of kernel memory at BASE: init_task at its
 * start, the stacks of all tasks in STACKS (THREAD_SIZE each); the
 * kernel's text, mempool_alloc() and autoremove_wake_function() are fixed
 * addresses.  Layouts come from the test object's DWARF.
 * KMP_FUZZ_WRITE_SEED=FILE writes a seed (two tasks, one waiting on a
 * pool, one a decoy) and exits.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "memimg.h"
#include "poolcheck.h"
#include "stackwait.h"

#define BASE		0xffff888000000000ULL
#define TEXT		0xffffffff81000000ULL
#define MEMPOOL_ALLOC	(TEXT + 0x1000)
#define AUTOREMOVE	(TEXT + 0x2000)
#define THREAD_SIZE	0x1000ULL
#define STACKS		0x2000ULL		/* offset of task i's stack: STACKS + i * THREAD_SIZE */
#define POOL		0x1000ULL
#define ELEMS		0x1400ULL
#define SEED_SIZE	0x5000

static struct kmp_vmlinux V;
static struct kmp_layout L;

static void put(unsigned char *b, uint64_t off, uint64_t size, uint64_t v)
{
	for (uint64_t i = 0; i < size; i++)
		b[off + i] = (unsigned char)(v >> (8 * i));
}

static void link2(unsigned char *m, uint64_t a, uint64_t b)
{
	/* a circular list of the two nodes a and b */
	put(m, a + L.lh_next.off, 8, BASE + b);
	put(m, a + L.lh_prev.off, 8, BASE + b);
	put(m, b + L.lh_next.off, 8, BASE + a);
	put(m, b + L.lh_prev.off, 8, BASE + a);
}

static void self(unsigned char *m, uint64_t a)
{
	put(m, a + L.lh_next.off, 8, BASE + a);
	put(m, a + L.lh_prev.off, 8, BASE + a);
}

static void write_seed(const char *path)
{
	static unsigned char m[SEED_SIZE];
	const uint64_t t0 = 0, t1 = 0x400, t2 = 0x800;
	uint64_t top1 = STACKS + 2 * THREAD_SIZE, wqe = top1 - 0x100;
	uint64_t head = POOL + L.wait.off + L.wqh_head.off;

	/* init_task -> task 1 -> task 2 -> init_task */
	put(m, t0 + L.task_tasks.off + L.lh_next.off, 8, BASE + t1 + L.task_tasks.off);
	put(m, t1 + L.task_tasks.off + L.lh_prev.off, 8, BASE + t0 + L.task_tasks.off);
	put(m, t1 + L.task_tasks.off + L.lh_next.off, 8, BASE + t2 + L.task_tasks.off);
	put(m, t2 + L.task_tasks.off + L.lh_prev.off, 8, BASE + t1 + L.task_tasks.off);
	put(m, t2 + L.task_tasks.off + L.lh_next.off, 8, BASE + t0 + L.task_tasks.off);
	put(m, t0 + L.task_tasks.off + L.lh_prev.off, 8, BASE + t2 + L.task_tasks.off);
	for (uint64_t i = 0; i < 3; i++) {
		uint64_t t = i * 0x400;

		self(m, t + L.task_thread_group.off);
		put(m, t + L.task_pid.off, L.task_pid.size, i ? 100 + i : 0);
		put(m, t + L.task_state.off, L.task_state.size, i ? 2 : 0);
		put(m, t + L.task_stack.off, 8, BASE + STACKS + i * THREAD_SIZE);
		put(m, t + L.task_thread_sp.off, 8, BASE + STACKS + (i + 1) * THREAD_SIZE - 0x400);
		memcpy(m + t + L.task_comm.off, "waiter", 7);
	}
	/* task 1 waits on the pool; task 2 has a decoy entry on no queue */
	put(m, wqe + L.wqe_private.off, 8, BASE + t1);
	put(m, wqe + L.wqe_func.off, 8, AUTOREMOVE);
	link2(m, head, wqe + L.wqe_entry.off);
	put(m, wqe - 0x40, 8, MEMPOOL_ALLOC + 0x80);
	wqe = STACKS + 3 * THREAD_SIZE - 0x100;
	put(m, wqe + L.wqe_private.off, 8, BASE + t2);
	put(m, wqe + L.wqe_func.off, 8, AUTOREMOVE);
	self(m, wqe + L.wqe_entry.off);
	put(m, wqe - 0x40, 8, MEMPOOL_ALLOC + 0x80);
	/* the pool: private, 2 of 4 elements */
	put(m, POOL + L.min_nr.off, L.min_nr.size, 4);
	put(m, POOL + L.curr_nr.off, L.curr_nr.size, 2);
	put(m, POOL + L.alloc.off, 8, TEXT + 0x3000);
	put(m, POOL + L.free.off, 8, TEXT + 0x3100);
	put(m, POOL + L.elements.off, 8, BASE + ELEMS);
	put(m, ELEMS, 8, BASE + 0x1800);
	put(m, ELEMS + 8, 8, BASE + 0x1840);
	fuzz_write_seed(path, m, sizeof(m));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_load_layout(&V, &L);
	if (!L.have_stacks) {
		fprintf(stderr, "fuzz: the test object lacks the stack search members\n");
		exit(1);
	}
	if (getenv("KMP_FUZZ_WRITE_SEED")) {
		write_seed(getenv("KMP_FUZZ_WRITE_SEED"));
		exit(0);
	}
	return 0;
}

struct seen {
	size_t n;
};

static void count(const struct kmp_stackwait *w, void *arg)
{
	/* A waiting task always comes with a validated pool inside the image. */
	if (w->kind == KMP_SW_WAITING && (!w->pool || w->pool->curr_nr < 0 ||
					  w->pool->curr_nr > w->pool->min_nr))
		abort();
	((struct seen *)arg)->n++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmp_stackwait_stats st;
	struct kmp_stackwait_ctx *ctx;
	struct kmp_slablayout sl;
	struct kmp_poolinfo pi;
	struct seen seen = { 0 };
	struct kmp_kernel k;
	struct kmp_err err;
	struct memimg img;
	struct kmp_mem mem;

	if (size < 64 || size > (1 << 20))
		return 0;
	memimg_init(&img, &mem);
	memcpy(memimg_add(&img, BASE, size), data, size);
	memset(&k, 0, sizeof(k));
	memset(&sl, 0, sizeof(sl));
	k.mem = &mem;
	k.l = &L;
	k.vml = &V;
	k.page_size = 4096;
	k.stext = TEXT;
	k.etext = TEXT + 0x100000;
	k.init_task = BASE;
	k.waitfn[0].start = MEMPOOL_ALLOC;
	k.waitfn[0].end = MEMPOOL_ALLOC + 0x400;
	k.nwaitfn = 1;
	k.autoremove_wake_function = AUTOREMOVE;
	k.thread_size = THREAD_SIZE;
	k.mods.complete = true;
	k.lim.max_modules = 16;
	k.lim.max_module_syms = 1024;
	(void)kmp_stackwait_search(&k, &sl, 256, 256, count, &seen, &st, &ctx, &err);
	kmp_stackwait_done(ctx);
	(void)kmp_pool_check_strict(&k, &sl, BASE + POOL, &pi, &err);
	kmp_kernel_free(&k);
	memimg_free(&img);
	return 0;
}
