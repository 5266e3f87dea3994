// SPDX-License-Identifier: GPL-2.0
/*
 * kmp_test - memory pools of every type, for testing /proc/mempool and
 * the kmempool analyzer.
 *
 * On load it creates, with the sizes given as parameters:
 *   kmp_test_slab     slab pool, allocated (mempool_create_slab_pool_named)
 *   kmp_test_kmalloc  kmalloc pool, embedded (mempool_init_kmalloc_pool_named)
 *   kmp_test_page     page pool, allocated (mempool_create_page_pool_named)
 *   kmp_test_private  private pool, embedded (mempool_init_named; a
 *                     private pool's element size is not known: 0)
 *   and one unnamed kmalloc pool (mempool_create_kmalloc_pool), which the
 *   series names after the function that set it up, "kmp_test_init";
 *   with many=N, N more kmalloc pools named kmp_many (min_nr 1, 8 bytes),
 *   all from one call site, told apart by their instances many0 ...
 *   many<N-1>, for reading a long /proc/mempool.
 * Every pool's site (file:line) is where this file sets it up.
 *
 * Commands written to /proc/kmp_test, one per write:
 *   drain NAME N   take N elements out of the reserve (the underlying
 *                  allocator is made to fail meanwhile) and hold them
 *   refill NAME    give every held element back
 *   block NAME N   empty the reserve, keep the allocator failing and start
 *                  N kernel threads "kmp_waiter" that sleep in
 *                  mempool_alloc() on the pool
 *   release NAME   let the allocator work again and wake the waiters
 *   atomic NAME N  make the allocator fail and try N GFP_ATOMIC
 *                  allocations, holding what they get (refill returns it)
 *   instance NAME STR  mempool_set_instance() on the pool ("-": none)
 *   reinit NAME    mempool_exit() and initialize again an embedded pool
 *                  (kmp_test_kmalloc, kmp_test_private), same parameters
 *   init_listed NAME  initialize an embedded pool that is still
 *                  initialized: a CONFIG_DEBUG_VM kernel must warn and
 *                  refuse (-EBUSY); refused here (-EOPNOTSUPP) without it,
 *                  where the kernel does not search the list
 *   poke NAME N    on any pool of the system (the first of that name on
 *                  mempool_list, found through the list_addr and lock_addr
 *                  parameters, the addresses of mempool_list and
 *                  mempool_lock from /proc/kallsyms): take N elements from
 *                  its reserve with the allocator failing, give them back
 *
 * and, to test the analyzer on corrupt kernel memory:
 *   corrupt_prev NAME  make the pool's mempool_list prev link point
 *                      nowhere (readers of the list do not use it)
 *   repair NAME        put the prev link back
 *   lose_name NAME     point the pool's tag (its name, function and
 *                      site) into a block of pages that is freed at once,
 *                      so that a filtered dump excludes it; only before a
 *                      deliberate crash
 *
 * Making the allocator fail: kmp_test_private allocates through the
 * module's kmp_alloc(), which fails while the pool's fail flag is set.
 * With own_alloc=1 the slab, kmalloc and page pools do too (they are then
 * created with mempool_create_named()/mempool_init_named() and are of
 * type private, with the same names, element size 0); this is what a
 * kernel with KASAN or SLUB_DEBUG_ON needs, where mm/mempool.c decides by
 * pool->alloc and pool->free how to poison and check reserve elements.
 * Without own_alloc (the default, so that the series reports them as slab,
 * kmalloc and page pools) the only way to make their allocator fail is to
 * swap pool->alloc, which the module then does, only on kernels without
 * KASAN and SLUB_DEBUG_ON (elsewhere the commands fail with EOPNOTSUPP), as
 * does poke on other subsystems' pools.
 */
#include <linux/module.h>
#include <linux/mempool.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

static int slab_min = 4, slab_size = 192;
static int kmalloc_min = 3, kmalloc_size = 100;
static int page_min = 2, page_order = 1;
static int private_min = 5, private_size = 64;
static int unnamed_min = 1, unnamed_size = 24;
module_param(slab_min, int, 0444);
module_param(slab_size, int, 0444);
module_param(kmalloc_min, int, 0444);
module_param(kmalloc_size, int, 0444);
module_param(page_min, int, 0444);
module_param(page_order, int, 0444);
module_param(private_min, int, 0444);
module_param(private_size, int, 0444);
module_param(unnamed_min, int, 0444);
module_param(unnamed_size, int, 0444);
static int many;
module_param(many, int, 0444);
static unsigned long list_addr, lock_addr;
module_param(list_addr, ulong, 0444);
module_param(lock_addr, ulong, 0444);
static bool own_alloc;
module_param(own_alloc, bool, 0444);

/* mm/mempool.c poisons and checks reserve elements by pool->alloc/free */
#define KMP_SWAP_UNSAFE	(IS_ENABLED(CONFIG_KASAN) || \
			 IS_ENABLED(CONFIG_SLUB_DEBUG_ON))

#define KMP_MAX_HELD	256
#define KMP_MAX_WAITERS	16
#define KMP_MAX_POKE	16

enum kmp_kind { KMP_SLAB, KMP_KMALLOC, KMP_PAGE, KMP_PRIVATE };

struct kmp_pool {
	const char *name;
	enum kmp_kind kind;
	bool own;		/* allocates through kmp_alloc()/kmp_free() */
	bool fail;		/* kmp_alloc() fails while set */
	mempool_t *pool;
	mempool_alloc_t *real_alloc;	/* of a typed pool, for the swap */
	void *held[KMP_MAX_HELD];
	int nr_held;
	struct task_struct *waiters[KMP_MAX_WAITERS];
	int nr_waiters;
	struct list_head *saved_prev;
};

/* Freed blocks of this order go straight back to the buddy allocator. */
#define KMP_LOST_ORDER	4
#define KMP_BAD_PREV	((struct list_head *)0xdead000000000400UL)

static struct kmem_cache *kmp_cache;
static mempool_t *slab_pool, *page_pool, *unnamed_pool;
static mempool_t kmalloc_pool, private_pool;	/* embedded */
static mempool_t **many_pools;
static struct kmp_pool pools[4] = {
	{ .name = "kmp_test_slab", .kind = KMP_SLAB },
	{ .name = "kmp_test_kmalloc", .kind = KMP_KMALLOC },
	{ .name = "kmp_test_page", .kind = KMP_PAGE },
	{ .name = "kmp_test_private", .kind = KMP_PRIVATE, .own = true },
};
static DEFINE_MUTEX(kmp_mutex);

/* The module's allocator: pool_data is the struct kmp_pool. */
static void *kmp_alloc(gfp_t gfp, void *data)
{
	struct kmp_pool *p = data;

	if (READ_ONCE(p->fail))
		return NULL;
	switch (p->kind) {
	case KMP_SLAB:
		return kmem_cache_alloc(kmp_cache, gfp);
	case KMP_KMALLOC:
		return kmalloc(kmalloc_size, gfp);
	case KMP_PAGE:
		return alloc_pages(gfp, page_order);
	default:
		return kmalloc(private_size, gfp);
	}
}

static void kmp_free(void *element, void *data)
{
	struct kmp_pool *p = data;

	switch (p->kind) {
	case KMP_SLAB:
		kmem_cache_free(kmp_cache, element);
		break;
	case KMP_PAGE:
		__free_pages(element, page_order);
		break;
	default:
		kfree(element);
		break;
	}
}

static void *kmp_fail_alloc(gfp_t gfp, void *data)
{
	return NULL;
}

/* Whether the pool's allocator can be made to fail here. */
static bool kmp_can_fail(struct kmp_pool *p)
{
	return p->own || !KMP_SWAP_UNSAFE;
}

/* Make the pool's allocator fail, or work again. */
static void kmp_set_fail(struct kmp_pool *p, bool fail)
{
	if (p->own)
		WRITE_ONCE(p->fail, fail);
	else
		p->pool->alloc = fail ? kmp_fail_alloc : p->real_alloc;
}

static struct kmp_pool *kmp_find(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pools); i++)
		if (pools[i].pool && !strcmp(pools[i].name, name))
			return &pools[i];
	return NULL;
}

static void kmp_give_back(struct kmp_pool *p)
{
	while (p->nr_held)
		mempool_free(p->held[--p->nr_held], p->pool);
}

static void kmp_take(struct kmp_pool *p, int n)
{
	kmp_set_fail(p, true);
	while (n-- > 0 && p->nr_held < KMP_MAX_HELD) {
		void *e = mempool_alloc(p->pool, GFP_NOWAIT);

		if (!e)
			break;
		p->held[p->nr_held++] = e;
	}
}

static int kmp_waiter_fn(void *data)
{
	struct kmp_pool *p = data;
	void *e = mempool_alloc(p->pool, GFP_KERNEL);

	mempool_free(e, p->pool);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static void kmp_atomic(struct kmp_pool *p, int n)
{
	kmp_set_fail(p, true);
	while (n-- > 0) {
		void *e = mempool_alloc(p->pool, GFP_ATOMIC);

		if (e && p->nr_held < KMP_MAX_HELD)
			p->held[p->nr_held++] = e;
		else if (e)
			mempool_free(e, p->pool);
	}
	kmp_set_fail(p, false);
}

/* The parameters of the embedded pools, for reinit and init_listed. */
static int kmp_init_embedded(mempool_t *pool)
{
	if (pool == &kmalloc_pool && own_alloc)
		return mempool_init_named(pool, "kmp_test_kmalloc",
					  kmalloc_min, kmp_alloc,
					  kmp_free, &pools[1]);
	if (pool == &kmalloc_pool)
		return mempool_init_kmalloc_pool_named(pool, "kmp_test_kmalloc",
						       kmalloc_min,
						       kmalloc_size);
	return mempool_init_named(pool, "kmp_test_private",
				  private_min, kmp_alloc, kmp_free, &pools[3]);
}

static bool kmp_embedded(struct kmp_pool *p)
{
	return p->pool == &kmalloc_pool || p->pool == &private_pool;
}

/* Another subsystem's pool, through mempool_list; for tests only. */
/*
 * A lifetime bug on purpose, for the debug kernel's debugobjects
 * (CONFIG_DEBUG_OBJECTS_MEMPOOL): a pool embedded in a kmalloc'ed struct,
 * listed, and the struct freed without mempool_exit().  debugobjects must
 * report it ("free active ... object type: mempool") and take the pool off
 * the list before the memory is reused.  Its element is a static buffer
 * (a private pool: KASAN does not poison it) and its array is freed by
 * hand afterwards, so that kmemleak's check stays meaningful.
 */
struct kmp_victim {
	char pad[40];
	mempool_t pool;
};

static char kmp_victim_elem[32];

static void *kmp_victim_alloc(gfp_t gfp, void *data)
{
	return kmp_victim_elem;
}

static void kmp_victim_free(void *element, void *data)
{
}

static int kmp_free_listed(void)
{
	struct kmp_victim *v;
	void **elements;
	int err;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS_MEMPOOL))
		return -EOPNOTSUPP;
	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	err = mempool_init_named(&v->pool, "kmp_freed_listed", 1, kmp_victim_alloc,
				 kmp_victim_free, NULL);
	if (err) {
		kfree(v);
		return err;
	}
	elements = v->pool.elements;
	kfree(v);		/* the bug: no mempool_exit() */
	kfree(elements);
	return 0;
}

static int kmp_poke(const char *name, int n)
{
	struct list_head *head = (struct list_head *)list_addr;
	spinlock_t *lock = (spinlock_t *)lock_addr;
	mempool_t *pool = NULL, *q;
	mempool_alloc_t *real;
	void *held[KMP_MAX_POKE];
	int nr = 0;

	if (!head || !lock)
		return -ENOENT;
	spin_lock(lock);
	list_for_each_entry(q, head, list) {
		const struct mempool_tag *t = q->tag;
		const char *kind = t->kind;
		size_t len = strlen(t->name ?: t->ct.function);

		/* the name /proc/mempool prints: NAME or FUNCTION[:KIND] */
		if (!strncmp(t->name ?: t->ct.function, name, len) &&
		    (kind ? name[len] == ':' && !strcmp(name + len + 1, kind) :
		     !name[len])) {
			pool = q;
			break;
		}
	}
	spin_unlock(lock);
	if (!pool)
		return -ENOENT;
	if (KMP_SWAP_UNSAFE)
		return -EOPNOTSUPP;
	real = pool->alloc;
	pool->alloc = kmp_fail_alloc;
	while (n-- > 0 && nr < KMP_MAX_POKE) {
		void *e = mempool_alloc(pool, GFP_NOWAIT);

		if (!e)
			break;
		held[nr++] = e;
	}
	pool->alloc = real;
	while (nr)
		mempool_free(held[--nr], pool);
	return 0;
}

static void kmp_release(struct kmp_pool *p)
{
	kmp_set_fail(p, false);
	kmp_give_back(p);
	while (p->nr_waiters)
		kthread_stop(p->waiters[--p->nr_waiters]);
}

static ssize_t kmp_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[64], cmd[16], name[32];
	struct kmp_pool *p;
	int n = 0, args, err;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	args = sscanf(buf, "%15s %31s %d", cmd, name, &n);
	if (args < 2)
		return -EINVAL;

	mutex_lock(&kmp_mutex);
	p = kmp_find(name);
	if (!strcmp(cmd, "poke") && args == 3) {
		err = kmp_poke(name, n);
		if (err)
			count = err;
	} else if (!strcmp(cmd, "free_listed")) {
		err = kmp_free_listed();
		if (err)
			count = err;
	} else if (!p) {
		count = -ENOENT;
	} else if ((!strcmp(cmd, "drain") || !strcmp(cmd, "block") ||
		    !strcmp(cmd, "atomic")) && !kmp_can_fail(p)) {
		count = -EOPNOTSUPP;
	} else if (!strcmp(cmd, "drain") && args == 3) {
		kmp_take(p, n);
		kmp_set_fail(p, false);
	} else if (!strcmp(cmd, "refill")) {
		kmp_give_back(p);
	} else if (!strcmp(cmd, "block") && args == 3) {
		kmp_take(p, KMP_MAX_HELD);
		while (n-- > 0 && p->nr_waiters < KMP_MAX_WAITERS) {
			struct task_struct *t;

			t = kthread_run(kmp_waiter_fn, p, "kmp_waiter");
			if (IS_ERR(t))
				break;
			p->waiters[p->nr_waiters++] = t;
		}
	} else if (!strcmp(cmd, "release")) {
		kmp_release(p);
	} else if (!strcmp(cmd, "atomic") && args == 3) {
		kmp_atomic(p, n);
	} else if (!strcmp(cmd, "instance")) {
		char inst[32] = "-";

		if (sscanf(buf, "%*s %*s %31s", inst) != 1)
			count = -EINVAL;
		else
			mempool_set_instance(p->pool, strcmp(inst, "-") ? inst : NULL);
	} else if (!strcmp(cmd, "reinit") && kmp_embedded(p) &&
		   !p->nr_held && !p->nr_waiters) {
		mempool_exit(p->pool);
		err = kmp_init_embedded(p->pool);
		if (err) {
			p->pool = NULL;
			count = err;
		}
	} else if (!strcmp(cmd, "init_listed") && kmp_embedded(p)) {
		err = IS_ENABLED(CONFIG_DEBUG_OBJECTS_MEMPOOL) ?
			kmp_init_embedded(p->pool) : -EOPNOTSUPP;
		if (err)
			count = err;
	} else if (!strcmp(cmd, "corrupt_prev") && !p->saved_prev) {
		p->saved_prev = p->pool->list.prev;
		WRITE_ONCE(p->pool->list.prev, KMP_BAD_PREV);
	} else if (!strcmp(cmd, "repair") && p->saved_prev) {
		WRITE_ONCE(p->pool->list.prev, p->saved_prev);
		p->saved_prev = NULL;
	} else if (!strcmp(cmd, "lose_name")) {
		unsigned long block = __get_free_pages(GFP_KERNEL, KMP_LOST_ORDER);

		if (!block) {
			count = -ENOMEM;
		} else {
			free_pages(block, KMP_LOST_ORDER);
			WRITE_ONCE(p->pool->tag,
				   (const struct mempool_tag *)block);
		}
	} else {
		count = -EINVAL;
	}
	mutex_unlock(&kmp_mutex);
	return count;
}

static const struct proc_ops kmp_proc_ops = {
	.proc_write = kmp_write,
};

static void kmp_destroy(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pools); i++)
		if (pools[i].pool)
			kmp_release(&pools[i]);
	mempool_destroy(slab_pool);
	mempool_destroy(page_pool);
	mempool_destroy(unnamed_pool);
	mempool_exit(&kmalloc_pool);
	mempool_exit(&private_pool);
	for (i = 0; many_pools && i < many; i++)
		mempool_destroy(many_pools[i]);
	kvfree(many_pools);
	many_pools = NULL;
	kmem_cache_destroy(kmp_cache);
}

static int kmp_create_many(void)
{
	char inst[24];
	int i;

	many_pools = kvcalloc(many, sizeof(*many_pools), GFP_KERNEL);
	if (!many_pools)
		return -ENOMEM;
	for (i = 0; i < many; i++) {
		many_pools[i] = mempool_create_kmalloc_pool_named("kmp_many",
								  1, 8);
		if (!many_pools[i])
			return -ENOMEM;
		snprintf(inst, sizeof(inst), "many%d", i);
		mempool_set_instance(many_pools[i], inst);
		cond_resched();
	}
	return 0;
}

static void kmp_track(int i, mempool_t *pool)
{
	pools[i].pool = pool;
	pools[i].real_alloc = pool->alloc;
}

static int __init kmp_test_init(void)
{
	kmp_cache = kmem_cache_create("kmp_test_obj", slab_size, 0, 0, NULL);
	if (!kmp_cache)
		return -ENOMEM;
	pools[0].own = pools[1].own = pools[2].own = own_alloc;
	if (own_alloc)
		slab_pool = mempool_create_named("kmp_test_slab",
						 slab_min, kmp_alloc, kmp_free,
						 &pools[0]);
	else
		slab_pool = mempool_create_slab_pool_named("kmp_test_slab",
							   slab_min, kmp_cache);
	if (!slab_pool)
		goto fail;
	kmp_track(0, slab_pool);
	if (kmp_init_embedded(&kmalloc_pool))
		goto fail;
	kmp_track(1, &kmalloc_pool);
	if (own_alloc)
		page_pool = mempool_create_named("kmp_test_page",
						 page_min, kmp_alloc, kmp_free,
						 &pools[2]);
	else
		page_pool = mempool_create_page_pool_named("kmp_test_page",
							   page_min,
							   page_order);
	if (!page_pool)
		goto fail;
	kmp_track(2, page_pool);
	if (kmp_init_embedded(&private_pool))
		goto fail;
	kmp_track(3, &private_pool);
	unnamed_pool = mempool_create_kmalloc_pool(unnamed_min, unnamed_size);
	if (!unnamed_pool)
		goto fail;
	if (many > 0 && kmp_create_many())
		goto fail;
	if (!proc_create("kmp_test", 0200, NULL, &kmp_proc_ops))
		goto fail;
	return 0;
fail:
	kmp_destroy();
	return -ENOMEM;
}

static void __exit kmp_test_exit(void)
{
	remove_proc_entry("kmp_test", NULL);
	kmp_destroy();
}

module_init(kmp_test_init);
module_exit(kmp_test_exit);
MODULE_DESCRIPTION("Memory pools of every type for testing /proc/mempool");
MODULE_LICENSE("GPL");
