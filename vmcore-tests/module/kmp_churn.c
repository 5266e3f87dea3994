// SPDX-License-Identifier: GPL-2.0
/*
 * kmp_churn - kernel threads that create and destroy memory pools of every
 * type, through every creation interface of the series, as fast as they
 * can, for stress runs of mempool_list and its readers.
 *
 * Parameters (at insmod):
 *   threads=N   kernel threads "kmp_churn/I" (default 4, 1..64)
 *   seconds=S   stop churning after S seconds (0, the default: until rmmod);
 *               the threads then idle until rmmod
 *   debug=1     log every pool's creation and destruction (also writable in
 *               /sys/module/kmp_churn/parameters/debug); quiet by default
 *
 * Each round of a thread, with a number R unique in the module:
 *   kmalloc  mempool_create_kmalloc_pool_named  "kmp_churn_kmalloc"
 *   slab     mempool_create_slab_pool_named on the module's cache
 *            "kmp_churn_slab"; every 16th such round also a slab pool on a
 *            cache created for it ("kmp_churn_cache"), then both destroyed
 *   page     mempool_create_page_pool (unnamed, order 0 or 1)
 *   private  mempool_create_named with the module's own allocation
 *            functions "kmp_churn_private": its allocator fails while the
 *            pool's fail flag is set, so allocations come from the reserve;
 *            the reserve emptied, a GFP_KERNEL allocation sleeps until a
 *            delayed work item frees an element (a waiter woken by a free);
 *            resized up and down
 *   custom   mempool_create with the module's functions (unnamed)
 *   embedded mempool_init_named / mempool_init_kmalloc_pool /
 *            mempool_init_slab_pool / mempool_init_page_pool in turn, on a
 *            pool inside a kmalloc'd object ("kmp_churn_embedded" when
 *            named), exited and initialized again in place, exited twice
 * Every pool gets allocations and frees, and a resize up and down.  The
 * kmalloc and private pools' instance is set to "a<R>" before their
 * allocations and replaced by "b<R>" before their resize (the old string is
 * freed: a reader of the list must not print it).  The instance also
 * carries what the line of that pool must show with it: a kmalloc pool's
 * "a<R>s<SIZE>m<MIN>", then "b<R>s<SIZE>"; a private pool's "a<R>m<MIN>",
 * then "b<R>" (a line that mixes two pools made at one address shows a size
 * or min_nr its instance does not carry).  Every fourth kmalloc pool has
 * min_nr 0: since Linux 6.17 such a pool keeps one element.
 *
 * Named pools are "kmp_churn_<kind>"; the series names unnamed ones after
 * the function that set them up (churn_page, churn_custom,
 * churn_init_embedded).  Every pool's owner is kmp_churn.
 *
 * Counters, read-only in /sys/module/kmp_churn/parameters/: rounds,
 * created, destroyed (pools: every create or init, every destroy or exit
 * of an initialized pool), allocs, from_reserve (allocations made while the
 * pool's allocator failed), waits (sleeping allocations woken by a free),
 * resized, errors (anything that failed that should not have; the
 * first ones are logged), running (threads still churning).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mempool.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/workqueue.h>
#include <linux/jiffies.h>
#include <linux/delay.h>
#include <linux/atomic.h>

#define CHURN_MAX_THREADS	64
#define CHURN_MAX_HELD		32
#define CHURN_NAME_LEN		48

static int threads = 4;
module_param(threads, int, 0444);
MODULE_PARM_DESC(threads, "kernel threads churning (1..64)");
static int seconds;
module_param(seconds, int, 0444);
MODULE_PARM_DESC(seconds, "churn for this long, 0: until rmmod");
static bool debug;
module_param(debug, bool, 0644);
MODULE_PARM_DESC(debug, "log each pool's creation and destruction");

/* Read-only counters, as module parameters. */
static int churn_get_counter(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops churn_counter_ops = {
	.get = churn_get_counter,
};

#define CHURN_COUNTER(name)						\
	static atomic_long_t name = ATOMIC_LONG_INIT(0);		\
	module_param_cb(name, &churn_counter_ops, &name, 0444)

CHURN_COUNTER(rounds);
CHURN_COUNTER(created);
CHURN_COUNTER(destroyed);
CHURN_COUNTER(allocs);
CHURN_COUNTER(from_reserve);
CHURN_COUNTER(waits);
CHURN_COUNTER(resized);
CHURN_COUNTER(errors);
CHURN_COUNTER(running);

static atomic_long_t churn_seq = ATOMIC_LONG_INIT(0);
static struct kmem_cache *churn_cache;
static struct task_struct *churn_tasks[CHURN_MAX_THREADS];
static unsigned long churn_deadline;

/* The pool_data of the pools with the module's own allocator. */
struct churn_ctx {
	size_t size;
	bool fail;		/* the allocator fails while set */
};

/* A pool embedded in a kmalloc'd object. */
struct churn_obj {
	unsigned long magic;
	mempool_t pool;
	struct churn_ctx ctx;
	unsigned long tail;
};

/* Per thread: its delayed free, for the waiter. */
struct churn_thread {
	int id;
	u32 rnd;
	mempool_t *wpool;
	void *welem;
	struct delayed_work wfree;
};

static void churn_error(const char *what, const char *name)
{
	if (atomic_long_inc_return(&errors) <= 20)
		pr_err("kmp_churn: %s failed (%s)\n", what, name);
}

static void *churn_alloc(gfp_t gfp, void *data)
{
	struct churn_ctx *ctx = data;

	if (READ_ONCE(ctx->fail))
		return NULL;
	return kmalloc(ctx->size, gfp);
}

static void churn_free(void *element, void *data)
{
	kfree(element);
}

static u32 churn_rand(struct churn_thread *t)
{
	/* xorshift32: enough to vary sizes and counts */
	t->rnd ^= t->rnd << 13;
	t->rnd ^= t->rnd >> 17;
	t->rnd ^= t->rnd << 5;
	return t->rnd;
}

/* The name /proc/mempool prints for the pool (without a kind). */
static const char *churn_pool_name(mempool_t *pool)
{
	return pool->tag->name ?: pool->tag->ct.function;
}

static void churn_created(mempool_t *pool)
{
	atomic_long_inc(&created);
	if (READ_ONCE(debug))
		pr_info("kmp_churn: created %s\n", churn_pool_name(pool));
}

/* Before mempool_destroy() or mempool_exit() of an initialized pool. */
static void churn_destroying(mempool_t *pool)
{
	atomic_long_inc(&destroyed);
	if (READ_ONCE(debug))
		pr_info("kmp_churn: destroying %s\n", churn_pool_name(pool));
}

static void churn_destroy(mempool_t *pool)
{
	churn_destroying(pool);
	mempool_destroy(pool);
}

static void churn_exit(mempool_t *pool)
{
	churn_destroying(pool);
	mempool_exit(pool);
}

/* Touch a whole element, so that KASAN sees a wrong size. */
static void churn_touch(mempool_t *pool, void *e, size_t size, bool page)
{
	if (page)
		memset(page_address(e), 0x5a, size);
	else
		memset(e, 0x5a, size);
}

/*
 * Take n elements and give them back; size is what an element holds
 * (PAGE_SIZE << order for a page pool).
 */
static void churn_use(mempool_t *pool, int n, size_t size, bool page)
{
	void *held[CHURN_MAX_HELD];
	int i, nr = 0;

	n = min(n, CHURN_MAX_HELD);
	for (i = 0; i < n; i++) {
		void *e = mempool_alloc(pool, GFP_KERNEL);

		if (!e) {	/* GFP_KERNEL never fails */
			churn_error("mempool_alloc(GFP_KERNEL)", churn_pool_name(pool));
			break;
		}
		churn_touch(pool, e, size, page);
		held[nr++] = e;
		atomic_long_inc(&allocs);
	}
	while (nr)
		mempool_free(held[--nr], pool);
}

/* Resize up, use, resize down, use. */
static void churn_resize(mempool_t *pool, int min_nr, size_t size, bool page)
{
	if (mempool_resize(pool, min_nr + 3))
		churn_error("mempool_resize up", churn_pool_name(pool));
	else
		atomic_long_inc(&resized);
	churn_use(pool, min_nr + 4, size, page);
	if (mempool_resize(pool, max(1, min_nr - 1)))
		churn_error("mempool_resize down", churn_pool_name(pool));
	else
		atomic_long_inc(&resized);
	churn_use(pool, 2, size, page);
}

static void churn_wfree_fn(struct work_struct *work)
{
	struct churn_thread *t = container_of(to_delayed_work(work),
					      struct churn_thread, wfree);

	mempool_free(t->welem, t->wpool);
}

/*
 * The private pool: its allocator fails, the reserve serves, then a
 * sleeping allocation is woken by a free from a work item.
 */
static void churn_reserve(struct churn_thread *t, mempool_t *pool,
			  struct churn_ctx *ctx, int min_nr)
{
	void *held[CHURN_MAX_HELD];
	int nr = 0;
	void *e;

	WRITE_ONCE(ctx->fail, true);
	while (nr < CHURN_MAX_HELD) {
		e = mempool_alloc(pool, GFP_NOWAIT);
		if (!e)
			break;
		churn_touch(pool, e, ctx->size, false);
		held[nr++] = e;
		atomic_long_inc(&from_reserve);
	}
	if (nr != min_nr)
		churn_error("draining the reserve", churn_pool_name(pool));
	if (nr > 0) {
		/* The reserve is empty: sleep until the work item frees one. */
		t->wpool = pool;
		t->welem = held[--nr];
		schedule_delayed_work(&t->wfree, 1 + churn_rand(t) % 3);
		e = mempool_alloc(pool, GFP_KERNEL);
		flush_delayed_work(&t->wfree);
		if (e) {
			churn_touch(pool, e, ctx->size, false);
			held[nr++] = e;
			atomic_long_inc(&waits);
		} else {
			churn_error("mempool_alloc woken by a free", churn_pool_name(pool));
		}
	}
	WRITE_ONCE(ctx->fail, false);
	while (nr)
		mempool_free(held[--nr], pool);
}

static void churn_kmalloc(struct churn_thread *t, long r)
{
	char name[CHURN_NAME_LEN];
	int min_nr = (r / 6) % 4 ? 1 + churn_rand(t) % 8 : 0;
	size_t size = 8 + churn_rand(t) % 2000;
	mempool_t *pool;

	pool = mempool_create_kmalloc_pool_named("kmp_churn_kmalloc", min_nr,
						 size);
	if (!pool) {
		churn_error("mempool_create_kmalloc_pool_named",
			    "kmp_churn_kmalloc");
		return;
	}
	churn_created(pool);
	snprintf(name, sizeof(name), "a%lds%zum%d", r, size, min_nr);
	mempool_set_instance(pool, name);
	churn_use(pool, max(2, min_nr * 2), size, false);
	/* A zero-minimum pool stays listed a while, for the readers to meet it. */
	if (!min_nr)
		msleep(10 + churn_rand(t) % 20);
	snprintf(name, sizeof(name), "b%lds%zu", r, size);
	mempool_set_instance(pool, name);
	churn_resize(pool, min_nr, size, false);
	churn_destroy(pool);
}

static void churn_slab(struct churn_thread *t, long r)
{
	char cname[CHURN_NAME_LEN];
	struct kmem_cache *cache = churn_cache;
	int min_nr = 1 + churn_rand(t) % 8;
	size_t size = kmem_cache_size(churn_cache);
	mempool_t *pool;

	pool = mempool_create_slab_pool_named("kmp_churn_slab", min_nr, cache);
	if (!pool) {
		churn_error("mempool_create_slab_pool_named", "kmp_churn_slab");
		return;
	}
	churn_created(pool);
	churn_use(pool, min_nr + 2, size, false);
	churn_resize(pool, min_nr, size, false);
	churn_destroy(pool);

	if ((r / 6) % 16)
		return;
	/* A cache of its own, gone with the pool. */
	snprintf(cname, sizeof(cname), "kmp_churn_%ld_cache", r);
	size = 16 + churn_rand(t) % 500;
	cache = kmem_cache_create(cname, size, 0, 0, NULL);
	if (!cache) {
		churn_error("kmem_cache_create", cname);
		return;
	}
	pool = mempool_create_slab_pool_named("kmp_churn_cache", 2, cache);
	if (pool) {
		churn_created(pool);
		churn_use(pool, 4, size, false);
		churn_destroy(pool);
	} else {
		churn_error("mempool_create_slab_pool_named", cname);
	}
	kmem_cache_destroy(cache);
}

static void churn_page(struct churn_thread *t, long r)
{
	int min_nr = 1 + churn_rand(t) % 4, order = churn_rand(t) % 2;
	mempool_t *pool;

	pool = mempool_create_page_pool(min_nr, order);	/* default name */
	if (!pool) {
		churn_error("mempool_create_page_pool", "churn_page");
		return;
	}
	churn_created(pool);
	churn_use(pool, min_nr + 1, PAGE_SIZE << order, true);
	churn_resize(pool, min_nr, PAGE_SIZE << order, true);
	churn_destroy(pool);
}

static void churn_private(struct churn_thread *t, long r)
{
	char name[CHURN_NAME_LEN];
	struct churn_ctx *ctx;
	int min_nr = 1 + churn_rand(t) % 8;
	mempool_t *pool;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx) {
		churn_error("kzalloc", "ctx");
		return;
	}
	ctx->size = 16 + churn_rand(t) % 1000;
	pool = mempool_create_named("kmp_churn_private", min_nr, churn_alloc,
				    churn_free, ctx);
	if (!pool) {
		churn_error("mempool_create_named", "kmp_churn_private");
		kfree(ctx);
		return;
	}
	churn_created(pool);
	snprintf(name, sizeof(name), "a%ldm%d", r, min_nr);
	mempool_set_instance(pool, name);
	churn_use(pool, min_nr + 2, ctx->size, false);
	churn_reserve(t, pool, ctx, min_nr);
	snprintf(name, sizeof(name), "b%ld", r);
	mempool_set_instance(pool, name);
	churn_resize(pool, min_nr, ctx->size, false);
	/* the reserve again at its new size */
	churn_reserve(t, pool, ctx, max(1, min_nr - 1));
	churn_destroy(pool);
	kfree(ctx);
}

static void churn_custom(struct churn_thread *t, long r)
{
	struct churn_ctx *ctx;
	int min_nr = 1 + churn_rand(t) % 4;
	mempool_t *pool;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx) {
		churn_error("kzalloc", "ctx");
		return;
	}
	ctx->size = 32 + churn_rand(t) % 300;
	pool = mempool_create(min_nr, churn_alloc, churn_free, ctx);
	if (!pool) {
		churn_error("mempool_create", "churn_custom");
		kfree(ctx);
		return;
	}
	churn_created(pool);
	churn_use(pool, min_nr + 1, ctx->size, false);
	churn_reserve(t, pool, ctx, min_nr);
	churn_destroy(pool);
	kfree(ctx);
}

/* Initialize obj->pool in one of four ways; returns 0 or an error. */
static int churn_init_embedded(struct churn_obj *obj, long r, int how,
			       int min_nr, size_t *size, bool *page)
{
	*page = false;
	switch (how) {
	case 0:
		*size = obj->ctx.size;
		return mempool_init_named(&obj->pool, "kmp_churn_embedded",
					  min_nr, churn_alloc, churn_free,
					  &obj->ctx);
	case 1:
		*size = obj->ctx.size;
		return mempool_init_kmalloc_pool(&obj->pool, min_nr,
						 obj->ctx.size);
	case 2:
		*size = kmem_cache_size(churn_cache);
		return mempool_init_slab_pool(&obj->pool, min_nr, churn_cache);
	default:
		*size = PAGE_SIZE;
		*page = true;
		return mempool_init_page_pool(&obj->pool, min_nr, 0);
	}
}

static void churn_embedded(struct churn_thread *t, long r)
{
	struct churn_obj *obj;
	int min_nr = 1 + churn_rand(t) % 6, how = (r / 6) % 4;
	size_t size;
	bool page;

	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj) {
		churn_error("kzalloc", "obj");
		goto out;
	}
	obj->magic = 0x6b6d70;
	obj->ctx.size = 24 + churn_rand(t) % 700;
	if (churn_init_embedded(obj, r, how, min_nr, &size, &page)) {
		churn_error("mempool_init", "embedded");
		goto out;
	}
	churn_created(&obj->pool);
	churn_use(&obj->pool, min_nr + 1, size, page);
	if (how == 0)
		churn_reserve(t, &obj->pool, &obj->ctx, min_nr);

	/* exited and initialized again in the same memory */
	churn_exit(&obj->pool);
	if (churn_init_embedded(obj, r, how, min_nr, &size, &page)) {
		churn_error("mempool_init again", "embedded");
		goto out;
	}
	churn_created(&obj->pool);
	churn_resize(&obj->pool, min_nr, size, page);
	if (how == 0)
		churn_reserve(t, &obj->pool, &obj->ctx, max(1, min_nr - 1));
	churn_exit(&obj->pool);
	mempool_exit(&obj->pool);	/* exiting twice is safe */
	if (mempool_initialized(&obj->pool))
		churn_error("mempool_exit left the pool initialized",
			    "embedded");
out:
	kfree(obj);
}

static bool churn_should_run(void)
{
	if (kthread_should_stop())
		return false;
	return !seconds || time_before(jiffies, churn_deadline);
}

static int churn_thread_fn(void *data)
{
	struct churn_thread *t;
	int id = (long)data;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		churn_error("kzalloc", "thread");
		goto idle;
	}
	t->id = id;
	t->rnd = 0x9e3779b9u * (id + 1);
	INIT_DELAYED_WORK(&t->wfree, churn_wfree_fn);
	atomic_long_inc(&running);
	while (churn_should_run()) {
		long r = atomic_long_inc_return(&churn_seq);

		switch (r % 6) {
		case 0:
			churn_kmalloc(t, r);
			break;
		case 1:
			churn_slab(t, r);
			break;
		case 2:
			churn_page(t, r);
			break;
		case 3:
			churn_private(t, r);
			break;
		case 4:
			churn_custom(t, r);
			break;
		default:
			churn_embedded(t, r);
			break;
		}
		atomic_long_inc(&rounds);
		cond_resched();
	}
	atomic_long_dec(&running);
	kfree(t);
idle:
	/* kthread_stop() needs the thread alive */
	while (!kthread_should_stop())
		msleep_interruptible(100);
	return 0;
}

static void churn_stop(void)
{
	int i;

	for (i = 0; i < CHURN_MAX_THREADS; i++) {
		if (churn_tasks[i])
			kthread_stop(churn_tasks[i]);
		churn_tasks[i] = NULL;
	}
	kmem_cache_destroy(churn_cache);
	churn_cache = NULL;
}

static int __init kmp_churn_init(void)
{
	int i;

	if (threads < 1 || threads > CHURN_MAX_THREADS || seconds < 0)
		return -EINVAL;
	churn_cache = kmem_cache_create("kmp_churn_obj", 136, 0, 0, NULL);
	if (!churn_cache)
		return -ENOMEM;
	churn_deadline = jiffies + (unsigned long)seconds * HZ;
	for (i = 0; i < threads; i++) {
		struct task_struct *task;

		task = kthread_run(churn_thread_fn, (void *)(long)i,
				   "kmp_churn/%d", i);
		if (IS_ERR(task)) {
			churn_stop();
			return PTR_ERR(task);
		}
		churn_tasks[i] = task;
	}
	pr_info("kmp_churn: %d threads, %d s (0: until rmmod)\n",
		threads, seconds);
	return 0;
}

static void __exit kmp_churn_exit(void)
{
	churn_stop();
	pr_info("kmp_churn: %ld rounds, %ld pools created, %ld destroyed, %ld errors\n",
		atomic_long_read(&rounds), atomic_long_read(&created),
		atomic_long_read(&destroyed), atomic_long_read(&errors));
}

module_init(kmp_churn_init);
module_exit(kmp_churn_exit);
MODULE_DESCRIPTION("Threads creating and destroying memory pools of every type");
MODULE_LICENSE("GPL");
