// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for the stall report (series 5-6/11): a pool whose allocator always
 * fails once initialized, emptied, and a kthread that blocks in
 * mempool_alloc() on it, so that the hung task detector must report the
 * stall naming the pool.  Unloading it (after "release") leaves a second
 * pool not exited, which the series must unlink with one warning.
 */
#include <linux/module.h>
#include <linux/mempool.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/delay.h>

static bool kmp_fail;
static mempool_t *kmp_pool;
static mempool_t kmp_leak;		/* never exited: unlinked at unload */
static void *kmp_taken;
static struct task_struct *kmp_thread;
static void *kmp_got;

static void *kmp_alloc(gfp_t gfp, void *data)
{
	return READ_ONCE(kmp_fail) ? NULL : kmalloc(64, gfp);
}

static void kmp_free(void *element, void *data)
{
	kfree(element);
}

static int kmp_waiter(void *unused)
{
	kmp_got = mempool_alloc(kmp_pool, GFP_KERNEL);
	while (!kthread_should_stop())
		msleep(100);
	return 0;
}

static int __init kmp_init(void)
{
	kmp_pool = mempool_create_named("kmp_stall", 1, kmp_alloc, kmp_free, NULL);
	if (!kmp_pool)
		return -ENOMEM;
	mempool_set_instance(kmp_pool, "test0");
	if (mempool_init_kmalloc_pool(&kmp_leak, 1, 32)) {
		mempool_destroy(kmp_pool);
		return -ENOMEM;
	}
	WRITE_ONCE(kmp_fail, true);
	kmp_taken = mempool_alloc(kmp_pool, GFP_KERNEL);	/* the reserve's only element */
	kmp_thread = kthread_run(kmp_waiter, NULL, "kmp_stalled");
	return 0;
}

static void __exit kmp_exit(void)
{
	mempool_free(kmp_taken, kmp_pool);	/* wakes the waiter */
	kthread_stop(kmp_thread);
	mempool_free(kmp_got, kmp_pool);
	mempool_destroy(kmp_pool);
	/* kmp_leak is left on purpose */
}

module_init(kmp_init);
module_exit(kmp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmempool test: a stall the hung task detector reports");
