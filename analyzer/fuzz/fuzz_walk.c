// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the validated list walk, the pool reader and the
 * wait-queue walk over a mutated memory image.  The input is one region of
 * kernel memory at BASE; the list head is its first 16 bytes.  Layouts come
 * from the test object's DWARF.  KMP_FUZZ_WRITE_SEED=FILE writes a seed (a
 * head, three pools with names, an owner and two waiters) and exits.  The
 * last byte of an input picks the paths: bit 0 live memory (re-validation,
 * retries), bit 1 a format 1.2 layout (an instance string in the pool, a
 * start time next to each wait queue entry, a clock) made from the test
 * object's 1.0 layout by putting the new fields over existing ones; bit 2
 * series v6's layout (fake_vmlinux_v6: a tag per pool, its strings printed
 * escaped, type from alloc, waiters told by their wake function).
 * KMP_FUZZ_WRITE_SEED_V6=FILE writes a seed for it (bit 2 set) and exits.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "memimg.h"
#include "pools.h"
#include "report.h"

#define BASE 0xffff888000000000ULL

static struct kmp_vmlinux V, V6;
static struct kmp_layout L, L12, L6;
static struct kmp_v6fns FNS6;

/* Format 1.2's fields laid over the 1.0 layout: only the reader's safety counts. */
static void make_v12(void)
{
	L12 = L;
	L12.v12 = L12.nr_fail.ok = L12.nr_empty.ok = true;
	L12.nr_fail = L12.nr_empty = L.nr_reserve;
	L12.instance = L.owner;
	L12.instance.off = L.pool_size - 8;	/* over the last member */
	L12.instance.size = 8;
	L12.waiter_entry = (struct kmp_field){ .off = 0, .size = 16, .ok = true };
	L12.waiter_since = (struct kmp_field){ .off = L.wqe_entry.off + 16, .size = 8, .ok = true };
	L12.waiter_size = L12.waiter_since.off + 8;
}

static void put(unsigned char *b, uint64_t off, uint64_t size, uint64_t v)
{
	for (uint64_t i = 0; i < size; i++)
		b[off + i] = (unsigned char)(v >> (8 * i));
}

static void write_seed(const char *path)
{
	static unsigned char m[0x1000];
	const uint64_t pool0 = 0x100, stride = 0x200, str = 0xa00, task = 0xb00, wqe = 0xe00;
	uint64_t prev = 0;

	for (int i = 0; i < 3; i++) {
		uint64_t p = pool0 + (uint64_t)i * stride, node = p + L.list.off;
		uint64_t wq = p + L.wait.off + L.wqh_head.off;

		snprintf((char *)m + str + (uint64_t)i * 32, 32, "pool-%d", i);
		put(m, p + L.name.off, L.name.size, BASE + str + (uint64_t)i * 32);
		put(m, p + L.owner.off, L.owner.size, i == 1 ? BASE + str + 0x80 : 0);
		put(m, p + L.min_nr.off, L.min_nr.size, 4);
		put(m, p + L.elem_size.off, L.elem_size.size, 128);
		put(m, prev + L.lh_next.off, 8, BASE + node);
		put(m, node + L.lh_prev.off, 8, BASE + prev);
		prev = node;
		if (i != 2) {
			put(m, wq + L.lh_next.off, 8, BASE + wq);
			put(m, wq + L.lh_prev.off, 8, BASE + wq);
			continue;
		}
		/* Pool 2: two waiters. */
		for (int w = 0; w < 2; w++) {
			uint64_t e = wqe + (uint64_t)w * 0x80, en = e + L.wqe_entry.off;
			uint64_t t = task + (uint64_t)w * 0x100;
			uint64_t before = w ? wqe + L.wqe_entry.off : wq;

			put(m, e + L.wqe_private.off, 8, BASE + t);
			put(m, t + L.task_pid.off, L.task_pid.size, 100 + (uint64_t)w);
			put(m, t + L.task_state.off, L.task_state.size, 2);
			memcpy(m + t + L.task_comm.off, "waiter", 7);
			put(m, before + L.lh_next.off, 8, BASE + en);
			put(m, en + L.lh_prev.off, 8, BASE + before);
			put(m, en + L.lh_next.off, 8, BASE + wq);
			put(m, wq + L.lh_prev.off, 8, BASE + en);
		}
	}
	snprintf((char *)m + str + 0x80, 32, "dm_crypt");
	put(m, prev + L.lh_next.off, 8, BASE);
	put(m, L.lh_prev.off, 8, BASE + prev);
	fuzz_write_seed(path, m, sizeof(m));
}

/*
 * Series v6: a head and two pools, each with a tag (pool 1: a name with a
 * space and a kind, a module), a kmem_cache, and on pool 1 a
 * mempool_alloc() waiter and a foreign entry.
 */
static void write_seed_v6(const char *path)
{
	static unsigned char m[0x1000];
	const uint64_t pool0 = 0x100, stride = 0x200, tag0 = 0x600, str = 0x800, task = 0xb00;
	const uint64_t wq1 = pool0 + stride + L6.wait_head.off, w0 = 0xd00, cache = 0xf00;
	const char *strs[] = { "fn_a", "file_a.c", "my pool", "bvec", "mod", "f\\b.c", "md0" };
	uint64_t prev = 0, sa[7];

	for (int i = 0; i < 7; i++) {
		sa[i] = BASE + str + (uint64_t)i * 32;
		snprintf((char *)m + str + (uint64_t)i * 32, 32, "%s", strs[i]);
	}
	put(m, cache + L6.kc_object_size.off, L6.kc_object_size.size, 192);
	for (int i = 0; i < 2; i++) {
		uint64_t p = pool0 + (uint64_t)i * stride, node = p + L6.list.off;
		uint64_t t = tag0 + (uint64_t)i * 0x80, wq = p + L6.wait_head.off;

		put(m, t + L6.mtag_function.off, 8, sa[0]);
		put(m, t + L6.mtag_filename.off, 8, i ? sa[5] : sa[1]);
		put(m, t + L6.mtag_lineno.off, L6.mtag_lineno.size, 42);
		put(m, t + L6.mtag_name.off, 8, i ? sa[2] : 0);
		put(m, t + L6.mtag_kind.off, 8, i ? sa[3] : 0);
		put(m, t + L6.mtag_modname.off, 8, i ? sa[4] : 0);
		put(m, p + L6.tag.off, 8, BASE + t);
		put(m, p + L6.instance.off, 8, i ? sa[6] : 0);
		put(m, p + L6.alloc.off, 8, i ? FNS6.kmalloc : FNS6.alloc_slab);
		put(m, p + L6.pool_data.off, 8, i ? 96 : BASE + cache);
		put(m, p + L6.min_nr.off, L6.min_nr.size, 4);
		put(m, p + L6.curr_nr.off, L6.curr_nr.size, i ? 0 : 4);
		put(m, p + L6.low_nr.off, L6.low_nr.size, i ? 0 : 4);
		put(m, prev + L6.lh_next.off, 8, BASE + node);
		put(m, node + L6.lh_prev.off, 8, BASE + prev);
		prev = node;
		put(m, wq + L6.lh_next.off, 8, BASE + wq);
		put(m, wq + L6.lh_prev.off, 8, BASE + wq);
	}
	/* Pool 1: a mempool_waiter, then a foreign entry. */
	for (int w = 0; w < 2; w++) {
		uint64_t e = w0 + (uint64_t)w * 0x80 + L6.waiter_entry.off, en = e + L6.wqe_entry.off;
		uint64_t before = w ? w0 + L6.waiter_entry.off + L6.wqe_entry.off : wq1;

		put(m, e + L6.wqe_private.off, 8, BASE + task);
		put(m, e + L6.wqe_func.off, 8, w ? 0x1234 : FNS6.wake);
		put(m, w0 + (uint64_t)w * 0x80 + L6.waiter_since.off, 8, 1);
		put(m, before + L6.lh_next.off, 8, BASE + en);
		put(m, en + L6.lh_prev.off, 8, BASE + before);
		put(m, en + L6.lh_next.off, 8, BASE + wq1);
		put(m, wq1 + L6.lh_prev.off, 8, BASE + en);
	}
	put(m, task + L6.task_pid.off, L6.task_pid.size, 100);
	memcpy(m + task + L6.task_comm.off, "waiter", 7);
	put(m, prev + L6.lh_next.off, 8, BASE);
	put(m, L6.lh_prev.off, 8, BASE + prev);
	m[sizeof(m) - 1] = 4;
	fuzz_write_seed(path, m, sizeof(m));
}

/* The v6 test object's layout and the functions that tell a pool's type and a waiter. */
static void load_v6(void)
{
	struct kmp_sym sym[] = { { .name = "mempool_alloc_slab" }, { .name = "mempool_kmalloc" },
				 { .name = "mempool_alloc_pages" },
				 { .name = "mempool_wake_function" } };

	fuzz_load_layout_from(fuzz_fake_v6_path(), &V6, &L6);
	kmp_vmlinux_symbols(&V6, sym, 4);
	if (!L6.v6 || !sym[0].found || !sym[1].found || !sym[2].found || !sym[3].found) {
		fprintf(stderr, "fuzz: %s is not a series v6 test object\n", fuzz_fake_v6_path());
		exit(1);
	}
	FNS6 = (struct kmp_v6fns){ sym[0].addr, sym[1].addr, sym[2].addr, sym[3].addr, 4096 };
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_load_layout(&V, &L);
	make_v12();
	load_v6();
	if (getenv("KMP_FUZZ_WRITE_SEED_V6")) {
		write_seed_v6(getenv("KMP_FUZZ_WRITE_SEED_V6"));
		exit(0);
	}
	if (getenv("KMP_FUZZ_WRITE_SEED")) {
		write_seed(getenv("KMP_FUZZ_WRITE_SEED"));
		exit(0);
	}
	return 0;
}

static void count_waiter(const struct kmp_waiter *w, void *arg)
{
	/* kmp_comm_clean() ran: nothing a terminal would act on. */
	for (const char *p = w->comm; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			abort();
	(*(size_t *)arg)++;
}

static void quiet(const char *msg, void *arg)
{
	(void)msg;
	(void)arg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct kmp_limits lim = { 64, 64 };
	struct kmp_pools pools = { .notes.note = quiet, .clock = { BASE, 8, 250 } };
	const struct kmp_layout *l;
	struct kmp_err err;
	struct memimg img;
	struct kmp_mem mem;
	char *text = NULL;
	size_t len = 0, lines = 0;
	FILE *f;

	if (size < 16)
		return 0;
	memimg_init(&img, &mem);
	/* The live path too (re-validation, retries): an odd last byte. */
	mem.live = data[size - 1] & 1;
	l = data[size - 1] & 4 ? &L6 : data[size - 1] & 2 ? &L12 : &L;
	pools.clock.v6 = FNS6;
	kmp_live_pause_ns = 0;
	memcpy(memimg_add(&img, BASE, size), data, size);
	(void)kmp_read_pools(&mem, l, BASE, &lim, &pools, &err);
	for (size_t i = 0; i < pools.n; i++) {
		size_t n = 0;

		(void)kmp_read_waiters(&mem, l, pools.v[i].addr, &lim, &pools.clock, count_waiter,
				       &n, &err);
	}
	/* Every pool printed is one line: no name or instance can add lines or columns. */
	f = open_memstream(&text, &len);
	if (f) {
		if (l->v6) {
			kmp_report_header_v6(f, "1.0", "# columns");
			for (size_t i = 0; i < pools.n; i++)
				kmp_report_pool(f, &pools.v[i]);
		} else {
			kmp_report_text(f, l->v12 ? "1.2" : "1.0", &pools);
		}
		fclose(f);
		for (size_t i = 0; i < len; i++)
			lines += text[i] == '\n';
		if (lines != pools.n + 2)
			abort();
		free(text);
	}
	kmp_pools_free(&pools);
	memimg_free(&img);
	return 0;
}
