// SPDX-License-Identifier: GPL-2.0
/*
 * kmp_stock - memory pools held the ways real code holds them, on a
 * kernel without the kmempool series (Debian's own), using only the plain
 * 6.1 mempool API.  The stack-based `kmempool waiters` names pools after
 * the variables below, so their names are part of the test:
 *
 *   kmp_stock_slab        global pointer, mempool_create_slab_pool() on
 *                         the cache "kmp_stock_obj"
 *   kmp_stock_devs[i].pool  embedded in a global array of structs,
 *                         mempool_init() private pools (kmp_stock_alloc /
 *                         kmp_stock_free, element size as pool_data)
 *   kmp_stock_ctx->page_pool, kmp_stock_ctx->buf_pool
 *                         embedded in a kmalloc'd struct reached from a
 *                         global pointer: page pool and kmalloc pool
 *   kmp_stock_private     global pointer, mempool_create() private pool
 *   kmp_stock_big->pool   embedded in a vmalloc'd struct (past its first
 *                         pages) reached from a global pointer: a kmalloc
 *                         pool (big_min, buf_size)
 *
 * block_private=N / block_dev1=M: on load, make kmp_stock_alloc() fail,
 * empty that pool's reserve and start N (M) kernel threads "kmp_waiter"
 * that sleep in mempool_alloc(GFP_KERNEL) on *kmp_stock_private
 * (&kmp_stock_devs[1].pool).  On a stock kernel they wake every 5 s and
 * sleep again; the hung-task detector never reports them.
 *
 * Ground truth for the checkers goes to the kernel log:
 *   kmp_stock: pool VARIABLE at ADDRESS type TYPE min_nr N curr_nr N elem_size N
 * (curr_nr as the kernel filled the reserve: min_nr, and for dev0_min=0, a
 * zero-minimum pool, 0 up to Linux 6.16 and 1 from 6.17 on)
 *   kmp_stock: waiter pid PID on VARIABLE at ADDRESS
 *   kmp_stock: ready
 * (%px: this is a test module; the addresses are what it is checked on.)
 */
#include <linux/module.h>
#include <linux/mempool.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/err.h>

static int slab_min = 4, slab_size = 192;
static int dev0_min = 3, dev1_min = 6, dev_size = 112;
static int page_min = 2, page_order = 1;
static int buf_min = 5, buf_size = 300;
static int private_min = 8, private_size = 72;
static int block_private, block_dev1;
module_param(slab_min, int, 0444);
module_param(slab_size, int, 0444);
module_param(dev0_min, int, 0444);
module_param(dev1_min, int, 0444);
module_param(dev_size, int, 0444);
module_param(page_min, int, 0444);
module_param(page_order, int, 0444);
module_param(buf_min, int, 0444);
module_param(buf_size, int, 0444);
module_param(private_min, int, 0444);
module_param(private_size, int, 0444);
module_param(block_private, int, 0444);
MODULE_PARM_DESC(block_private, "tasks to block on *kmp_stock_private");
module_param(block_dev1, int, 0444);
MODULE_PARM_DESC(block_dev1, "tasks to block on kmp_stock_devs[1].pool");

#define KMP_STOCK_MAX_MIN	64
#define KMP_STOCK_MAX_WAITERS	16

struct kmp_stock_dev {
	char tag[16];
	int id;
	mempool_t pool;
};

struct kmp_stock_ctx {
	char tag[16];
	mempool_t page_pool;
	mempool_t buf_pool;
};

/* Big enough for vmalloc, with the pool beyond its first page. */
struct kmp_stock_big {
	char table[3 * 4096 + 40];
	mempool_t pool;
};

static struct kmem_cache *kmp_stock_cache;
static mempool_t *kmp_stock_slab;
static struct kmp_stock_dev kmp_stock_devs[2];
static struct kmp_stock_ctx *kmp_stock_ctx;
static mempool_t *kmp_stock_private;
static struct kmp_stock_big *kmp_stock_big;
static int big_min = 3;
module_param(big_min, int, 0444);

/*
 * What a blocked pool's test holds: the drained reserve and the waiters.
 * Not a pointer to the pool: then kmp_stock_private would be the only
 * global pointing at its pool, and its name would not be ambiguous.
 */
struct kmp_stock_block {
	const char *var;
	void *held[KMP_STOCK_MAX_MIN];
	int nr_held;
	struct task_struct *waiters[KMP_STOCK_MAX_WAITERS];
	int nr_waiters;
};

static struct kmp_stock_block kmp_stock_blocks[2];

static mempool_t *kmp_stock_blocked_pool(struct kmp_stock_block *b)
{
	return b == &kmp_stock_blocks[0] ? kmp_stock_private : &kmp_stock_devs[1].pool;
}

/* While set, kmp_stock_alloc() fails as an exhausted allocator would. */
static bool kmp_stock_failing;

static void *kmp_stock_alloc(gfp_t gfp, void *pool_data)
{
	if (READ_ONCE(kmp_stock_failing))
		return NULL;
	return kmalloc((size_t)pool_data, gfp);
}

static void kmp_stock_free(void *element, void *pool_data)
{
	kfree(element);
}

static void kmp_stock_report(const char *var, mempool_t *pool,
			     const char *type, int elem_size)
{
	pr_info("kmp_stock: pool %s at %px type %s min_nr %d curr_nr %d elem_size %d\n",
		var, pool, type, pool->min_nr, pool->curr_nr, elem_size);
}

static int kmp_stock_waiter_fn(void *data)
{
	struct kmp_stock_block *b = data;
	mempool_t *pool = kmp_stock_blocked_pool(b);
	void *e;

	pr_info("kmp_stock: waiter pid %d on %s at %px\n",
		task_pid_nr(current), b->var, pool);
	e = mempool_alloc(pool, GFP_KERNEL);
	mempool_free(e, pool);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/* Empty the pool's reserve and start n waiters on it. */
static void kmp_stock_block_pool(struct kmp_stock_block *b, const char *var, int n)
{
	mempool_t *pool = kmp_stock_blocked_pool(b);

	b->var = var;
	WRITE_ONCE(kmp_stock_failing, true);
	while (b->nr_held < KMP_STOCK_MAX_MIN) {
		void *e = mempool_alloc(pool, GFP_NOWAIT);

		if (!e)
			break;
		b->held[b->nr_held++] = e;
	}
	while (n-- > 0 && b->nr_waiters < KMP_STOCK_MAX_WAITERS) {
		struct task_struct *t;

		t = kthread_run(kmp_stock_waiter_fn, b, "kmp_waiter");
		if (IS_ERR(t))
			break;
		b->waiters[b->nr_waiters++] = t;
	}
}

/* Let the allocator work, give the reserve back (wakes the waiters), stop them. */
static void kmp_stock_unblock(void)
{
	struct kmp_stock_block *b;
	int i;

	WRITE_ONCE(kmp_stock_failing, false);
	for (i = 0; i < ARRAY_SIZE(kmp_stock_blocks); i++) {
		b = &kmp_stock_blocks[i];
		while (b->nr_held)
			mempool_free(b->held[--b->nr_held], kmp_stock_blocked_pool(b));
		while (b->nr_waiters)
			kthread_stop(b->waiters[--b->nr_waiters]);
	}
}

static void kmp_stock_destroy(void)
{
	int i;

	kmp_stock_unblock();
	mempool_destroy(kmp_stock_private);
	if (kmp_stock_big) {
		mempool_exit(&kmp_stock_big->pool);
		vfree(kmp_stock_big);
	}
	if (kmp_stock_ctx) {
		mempool_exit(&kmp_stock_ctx->buf_pool);
		mempool_exit(&kmp_stock_ctx->page_pool);
		kfree(kmp_stock_ctx);
	}
	for (i = 0; i < ARRAY_SIZE(kmp_stock_devs); i++)
		mempool_exit(&kmp_stock_devs[i].pool);
	mempool_destroy(kmp_stock_slab);
	kmem_cache_destroy(kmp_stock_cache);
}

static bool kmp_stock_params_ok(void)
{
	int mins[] = { slab_min, dev0_min, dev1_min, page_min, buf_min, private_min, big_min };
	int i;

	/* dev0_min may be 0: a zero-minimum pool (mins[1]). */
	for (i = 0; i < ARRAY_SIZE(mins); i++)
		if (mins[i] < (i == 1 ? 0 : 1) || mins[i] > KMP_STOCK_MAX_MIN)
			return false;
	return slab_size > 0 && dev_size > 0 && buf_size > 0 && private_size > 0 &&
	       page_order >= 0 && page_order <= 3 &&
	       block_private >= 0 && block_private <= KMP_STOCK_MAX_WAITERS &&
	       block_dev1 >= 0 && block_dev1 <= KMP_STOCK_MAX_WAITERS;
}

static int __init kmp_stock_init(void)
{
	int mins[] = { dev0_min, dev1_min };
	int i, err;

	if (!kmp_stock_params_ok())
		return -EINVAL;

	kmp_stock_cache = kmem_cache_create("kmp_stock_obj", slab_size, 0, 0, NULL);
	if (!kmp_stock_cache)
		return -ENOMEM;
	kmp_stock_slab = mempool_create_slab_pool(slab_min, kmp_stock_cache);
	if (!kmp_stock_slab)
		goto nomem;
	kmp_stock_report("kmp_stock_slab", kmp_stock_slab, "slab", slab_size);

	for (i = 0; i < ARRAY_SIZE(kmp_stock_devs); i++) {
		struct kmp_stock_dev *d = &kmp_stock_devs[i];

		snprintf(d->tag, sizeof(d->tag), "kmpdev%d", i);
		d->id = i;
		err = mempool_init(&d->pool, mins[i], kmp_stock_alloc,
				   kmp_stock_free, (void *)(long)dev_size);
		if (err)
			goto fail;
		pr_info("kmp_stock: pool kmp_stock_devs[%d].pool at %px type private min_nr %d curr_nr %d elem_size %d\n",
			i, &d->pool, d->pool.min_nr, d->pool.curr_nr, dev_size);
	}

	kmp_stock_ctx = kzalloc(sizeof(*kmp_stock_ctx), GFP_KERNEL);
	if (!kmp_stock_ctx)
		goto nomem;
	strscpy(kmp_stock_ctx->tag, "kmpctx", sizeof(kmp_stock_ctx->tag));
	err = mempool_init_page_pool(&kmp_stock_ctx->page_pool, page_min, page_order);
	if (err)
		goto fail;
	kmp_stock_report("kmp_stock_ctx->page_pool", &kmp_stock_ctx->page_pool, "page",
			 (int)(PAGE_SIZE << page_order));
	err = mempool_init_kmalloc_pool(&kmp_stock_ctx->buf_pool, buf_min, buf_size);
	if (err)
		goto fail;
	kmp_stock_report("kmp_stock_ctx->buf_pool", &kmp_stock_ctx->buf_pool, "kmalloc",
			 buf_size);

	kmp_stock_private = mempool_create(private_min, kmp_stock_alloc, kmp_stock_free,
					   (void *)(long)private_size);
	if (!kmp_stock_private)
		goto nomem;
	kmp_stock_report("kmp_stock_private", kmp_stock_private, "private", private_size);

	kmp_stock_big = vzalloc(sizeof(*kmp_stock_big));
	if (!kmp_stock_big)
		goto nomem;
	err = mempool_init_kmalloc_pool(&kmp_stock_big->pool, big_min, buf_size);
	if (err)
		goto fail;
	kmp_stock_report("kmp_stock_big->pool", &kmp_stock_big->pool, "kmalloc", buf_size);

	if (block_private)
		kmp_stock_block_pool(&kmp_stock_blocks[0], "kmp_stock_private",
				     block_private);
	if (block_dev1)
		kmp_stock_block_pool(&kmp_stock_blocks[1], "kmp_stock_devs[1].pool",
				     block_dev1);
	pr_info("kmp_stock: ready\n");
	return 0;

nomem:
	err = -ENOMEM;
fail:
	kmp_stock_destroy();
	return err;
}

static void __exit kmp_stock_exit(void)
{
	kmp_stock_destroy();
}

module_init(kmp_stock_init);
module_exit(kmp_stock_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmempool stock-kernel test: pools held like real code holds them, blocked on demand");
