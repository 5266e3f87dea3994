// SPDX-License-Identifier: GPL-2.0
/*
 * kmp_bench - what the mempool series costs on the allocation paths
 * (issue 12 part 3).  Builds against the patched kernel and against the
 * same tree without the series: it uses only the mempool API both have
 * (mempool_create(), mempool_create_kmalloc_pool(), mempool_alloc(),
 * mempool_free(), mempool_destroy()).
 *
 * On load it measures, in TSC cycles (get_cycles()) per operation, the
 * median of @rounds rounds after one warm-up round:
 *   kmalloc_kfree   kmalloc() + kfree() of the same size, no pool: the
 *                   allocator's own cost, for reference
 *   success         mempool_alloc() + mempool_free() on a kmalloc pool whose
 *                   allocator succeeds (the fast path: the element comes
 *                   from kmalloc(), the reserve is full, so it goes back
 *                   with kfree())
 *   success_private the same on a pool created with this module's own
 *                   allocation functions (which call kmalloc()/kfree())
 *   reserve         mempool_alloc() + mempool_free() on that pool while its
 *                   allocation function returns NULL (kmp_bench_fail, a
 *                   flag this module owns; the pool is never changed after
 *                   creation): the element comes from the reserve and
 *                   mempool_free() puts it back
 *   create_destroy  mempool_create_kmalloc_pool(min_nr 4) + mempool_destroy()
 *                   (with the series the pool gets its default name,
 *                   "kmp_bench:kmp_loop_create", made by kasprintf())
 *   create_destroy_named  the same with the series' named variant,
 *                   mempool_create_kmalloc_pool_named() (a name that is
 *                   one word is copied as it is); without the series,
 *                   which has no names, the same as create_destroy
 * Each round of the alloc/free tests runs @iters pairs with interrupts off
 * (GFP_ATOMIC; the reserve is never empty, so mempool_alloc() takes the
 * same path it takes for GFP_KERNEL); create_destroy runs @cd_iters pairs
 * per round with interrupts on (GFP_KERNEL, it may sleep).
 *
 * The results are printed as single lines "kmp_bench: KEY=VALUE ..." to
 * the kernel log:
 *   kmp_bench: begin series=0|1 rounds=R iters=N cd_iters=M tsc_khz=K
 *   kmp_bench: size mempool_t=BYTES bio_set=BYTES
 *   kmp_bench: result test=NAME cycles=MEDIAN min=MIN max=MAX ns=MEDIAN_NS
 *   kmp_bench: end status=0
 * cycles, min, max and ns are per operation (one pair), with two decimals.
 * Under QEMU's -icount shift=0 the TSC counts guest instructions
 * (vmcore-tests/bench-fastpath.sh uses that).
 * The module stays loaded only to be removed; it holds nothing.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/mempool.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timex.h>
#include <linux/irqflags.h>
#include <linux/sched.h>
#include <linux/ktime.h>
#include <linux/bio.h>
#include <linux/blk_types.h>
#ifdef CONFIG_X86
#include <asm/tsc.h>
#endif

#define KMP_BENCH_MAX_ROUNDS	101
#define KMP_BENCH_ELEM		64	/* bytes per element */
#define KMP_BENCH_MIN_NR	4

static unsigned int rounds = 21;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "measured rounds per test (median printed), 3..101");
static unsigned int iters = 20000;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "alloc/free pairs per round");
static unsigned int cd_iters = 500;
module_param(cd_iters, uint, 0444);
MODULE_PARM_DESC(cd_iters, "create/destroy pairs per round");

/* Makes kmp_bench_alloc() fail; only this module sets it. */
static bool kmp_bench_fail;

static void *kmp_bench_alloc(gfp_t gfp, void *data)
{
	if (READ_ONCE(kmp_bench_fail))
		return NULL;
	return kmalloc((size_t)data, gfp);
}

static void kmp_bench_free(void *element, void *data)
{
	kfree(element);
}

/* per round: cycles and nanoseconds per operation, times 100 */
static u64 cyc[KMP_BENCH_MAX_ROUNDS], nsec[KMP_BENCH_MAX_ROUNDS];

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Built against the series or not; a named kmalloc pool where the series
 * has names, else an unnamed one.
 */
#ifdef mempool_create_kmalloc_pool_named
#define KMP_BENCH_SERIES	1
#define kmp_bench_create_named()					\
	mempool_create_kmalloc_pool_named("kmp_bench_pool",		\
					  KMP_BENCH_MIN_NR, KMP_BENCH_ELEM)
#else
#define KMP_BENCH_SERIES	0
#define kmp_bench_create_named()					\
	mempool_create_kmalloc_pool(KMP_BENCH_MIN_NR, KMP_BENCH_ELEM)
#endif

/*
 * The measured loops, each a function of its own that is never inlined:
 * what the compiler makes of the code around the calls into the kernel
 * then does not depend on the rest of the module, and is the same in the
 * build against either kernel.  Each returns how many allocations failed.
 */
typedef unsigned int (kmp_bench_loop_t)(mempool_t *pool, unsigned int n);

static noinline unsigned int kmp_loop_kmalloc(mempool_t *pool, unsigned int n)
{
	unsigned int i, failed = 0;

	for (i = 0; i < n; i++) {
		void *p = kmalloc(KMP_BENCH_ELEM, GFP_ATOMIC);

		OPTIMIZER_HIDE_VAR(p);
		failed += !p;
		kfree(p);
	}
	return failed;
}

static noinline unsigned int kmp_loop_mempool(mempool_t *pool, unsigned int n)
{
	unsigned int i, failed = 0;

	for (i = 0; i < n; i++) {
		void *p = mempool_alloc(pool, GFP_ATOMIC);

		OPTIMIZER_HIDE_VAR(p);
		failed += !p;
		mempool_free(p, pool);
	}
	return failed;
}

static noinline unsigned int kmp_loop_create(mempool_t *pool, unsigned int n)
{
	unsigned int i, failed = 0;

	for (i = 0; i < n; i++) {
		mempool_t *q = mempool_create_kmalloc_pool(KMP_BENCH_MIN_NR,
							   KMP_BENCH_ELEM);

		failed += !q;
		mempool_destroy(q);
	}
	return failed;
}

static noinline unsigned int kmp_loop_create_named(mempool_t *pool,
						   unsigned int n)
{
	unsigned int i, failed = 0;

	for (i = 0; i < n; i++) {
		mempool_t *q = kmp_bench_create_named();

		failed += !q;
		mempool_destroy(q);
	}
	return failed;
}

/*
 * One round of @n operations, with interrupts off if @atomic; returns
 * false if an allocation failed.
 */
static bool kmp_bench_round(kmp_bench_loop_t *loop, bool atomic,
			    mempool_t *pool, unsigned int n, u64 *cycles,
			    u64 *ns)
{
	unsigned long flags = 0;
	unsigned int failed;
	cycles_t c0, c1;
	u64 t0, t1;

	if (atomic)
		local_irq_save(flags);
	t0 = ktime_get_ns();
	c0 = get_cycles();
	failed = loop(pool, n);
	c1 = get_cycles();
	t1 = ktime_get_ns();
	if (atomic)
		local_irq_restore(flags);
	*cycles = div_u64((u64)(c1 - c0) * 100, n);
	*ns = div_u64((t1 - t0) * 100, n);
	return !failed;
}

static int kmp_bench_run(const char *name, kmp_bench_loop_t *loop,
			 bool atomic, mempool_t *pool, unsigned int n)
{
	u64 c, t;
	unsigned int r;

	/* warm-up: caches, slab partials, page faults of the first touch */
	if (!kmp_bench_round(loop, atomic, pool, n, &c, &t))
		goto failed;
	for (r = 0; r < rounds; r++) {
		cond_resched();
		if (!kmp_bench_round(loop, atomic, pool, n, &cyc[r], &nsec[r]))
			goto failed;
	}
	sort(nsec, rounds, sizeof(u64), cmp_u64, NULL);
	c = nsec[rounds / 2];
	sort(cyc, rounds, sizeof(u64), cmp_u64, NULL);
	pr_info("kmp_bench: result test=%s cycles=%llu.%02llu min=%llu.%02llu max=%llu.%02llu ns=%llu.%02llu\n",
		name, cyc[rounds / 2] / 100, cyc[rounds / 2] % 100,
		cyc[0] / 100, cyc[0] % 100,
		cyc[rounds - 1] / 100, cyc[rounds - 1] % 100, c / 100, c % 100);
	return 0;
failed:
	pr_err("kmp_bench: result test=%s failed: an allocation returned NULL\n",
	       name);
	return -ENOMEM;
}

static int __init kmp_bench_init(void)
{
	mempool_t *kpool, *ppool;
	unsigned int khz = 0;
	int err = 0;

	if (rounds < 3 || rounds > KMP_BENCH_MAX_ROUNDS || !iters || !cd_iters)
		return -EINVAL;
#ifdef CONFIG_X86
	khz = tsc_khz;
#endif
	pr_info("kmp_bench: begin series=%d rounds=%u iters=%u cd_iters=%u tsc_khz=%u\n",
		KMP_BENCH_SERIES, rounds, iters, cd_iters, khz);
	pr_info("kmp_bench: size mempool_t=%zu bio_set=%zu\n",
		sizeof(mempool_t), sizeof(struct bio_set));

	kpool = mempool_create_kmalloc_pool(KMP_BENCH_MIN_NR, KMP_BENCH_ELEM);
	ppool = mempool_create(KMP_BENCH_MIN_NR, kmp_bench_alloc,
			       kmp_bench_free, (void *)(size_t)KMP_BENCH_ELEM);
	if (!kpool || !ppool) {
		err = -ENOMEM;
		goto out;
	}
	err = err ?: kmp_bench_run("kmalloc_kfree", kmp_loop_kmalloc, true, NULL,
				   iters);
	err = err ?: kmp_bench_run("success", kmp_loop_mempool, true, kpool,
				   iters);
	err = err ?: kmp_bench_run("success_private", kmp_loop_mempool, true,
				   ppool, iters);
	WRITE_ONCE(kmp_bench_fail, true);
	err = err ?: kmp_bench_run("reserve", kmp_loop_mempool, true, ppool,
				   iters);
	WRITE_ONCE(kmp_bench_fail, false);
	err = err ?: kmp_bench_run("create_destroy", kmp_loop_create, false,
				   NULL, cd_iters);
	err = err ?: kmp_bench_run("create_destroy_named",
				   kmp_loop_create_named, false, NULL, cd_iters);
out:
	mempool_destroy(ppool);
	mempool_destroy(kpool);
	pr_info("kmp_bench: end status=%d\n", err);
	return err;
}

static void __exit kmp_bench_exit(void)
{
}

module_init(kmp_bench_init);
module_exit(kmp_bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Cycles per mempool operation, with and without the kmempool series");
