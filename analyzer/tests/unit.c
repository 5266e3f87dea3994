// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the analyzer, on the host, without a VM: the layout comes
 * from the DWARF of a small test object (fake_kernel.c), the kernel memory
 * from synthetic images (memimg.c).  Each test prints "ok"/"not ok"; the
 * last line is "unit: N passed, N failed".
 *
 *   unit FAKE_VMLINUX
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core.h"
#include "dwarfunit.h"
#include "dwarfutil.h"
#include "fake_kernel.h"
#include "kernel.h"
#include "kpieces.h"
#include "layout_check.h"
#include "namerule.h"
#include "vmcoreinfo.h"
#include "fake_printk.h"
#include "memimg.h"
#include "pools.h"
#include "readcache.h"
#include "printk.h"
#include "report.h"
#include "session.h"
#include "vmlinux.h"
#include "walk.h"

#include "check.h"

/* ------------------------------------------------------------------ */
/* A synthetic kernel: a list head, a block of pools, a block of strings. */

#define HEAD_ADDR	0xffffffff82a01000ULL
#define POOL_BASE	0xffff888004000000ULL
#define STR_BASE	0xffff888010000000ULL
#define TASK_BASE	0xffff888020000000ULL
#define WQE_BASE	0xffff888030000000ULL
#define POOL_STRIDE	0x200ULL
#define STR_STRIDE	0x40ULL

struct fake {
	struct memimg img;
	struct kmp_mem mem;
	unsigned char *head, *pools, *strs, *tasks, *wqes;
	size_t npools;
};

static struct kmp_layout L;

static void put(unsigned char *base, const struct kmp_field *f, uint64_t v)
{
	for (uint64_t i = 0; i < f->size; i++)
		base[f->off + i] = (unsigned char)(v >> (8 * i));
}

static void put_at(unsigned char *base, uint64_t off, uint64_t size, uint64_t v)
{
	struct kmp_field f = { .off = off, .size = size, .ok = true };

	put(base, &f, v);
}

static uint64_t pool_addr(size_t i)
{
	return POOL_BASE + i * POOL_STRIDE;
}

static uint64_t pool_node(size_t i)
{
	return pool_addr(i) + L.list.off;
}

static unsigned char *pool_bytes(struct fake *f, size_t i)
{
	return f->pools + i * POOL_STRIDE;
}

static unsigned char *node_bytes(struct fake *f, uint64_t node)
{
	if (node == HEAD_ADDR)
		return f->head;
	return f->pools + (node - POOL_BASE);
}

static void set_next(struct fake *f, uint64_t node, uint64_t next)
{
	put(node_bytes(f, node), &L.lh_next, next);
}

static void set_prev(struct fake *f, uint64_t node, uint64_t prev)
{
	put(node_bytes(f, node), &L.lh_prev, prev);
}

/* An image with @n pools, linked in order, each with an empty wait queue. */
static void fake_init(struct fake *f, size_t n)
{
	memset(f, 0, sizeof(*f));
	memimg_init(&f->img, &f->mem);
	f->npools = n;
	f->head = memimg_add(&f->img, HEAD_ADDR, 64);
	f->pools = memimg_add(&f->img, POOL_BASE, (n ? n : 1) * POOL_STRIDE);
	f->strs = memimg_add(&f->img, STR_BASE, (n ? n : 1) * STR_STRIDE);
	f->tasks = memimg_add(&f->img, TASK_BASE, 8 * 0x400);
	f->wqes = memimg_add(&f->img, WQE_BASE, 8 * 0x100);
	for (size_t i = 0; i < n; i++) {
		unsigned char *p = pool_bytes(f, i);
		uint64_t wq = pool_addr(i) + L.wait.off + L.wqh_head.off;

		snprintf((char *)f->strs + i * STR_STRIDE, STR_STRIDE, "pool-%zu", i);
		put(p, &L.name, STR_BASE + i * STR_STRIDE);
		put(p, &L.owner, 0);
		put(p, &L.type, i % 4);
		put(p, &L.elem_size, 64 + i);
		put(p, &L.min_nr, 4 + i % 7);
		put(p, &L.curr_nr, 4 + i % 7);
		put(p, &L.low_nr, 4 + i % 7);
		put(p, &L.nr_reserve, i * 3);
		put(p, &L.nr_wait, i);
		put_at(p, L.wait.off + L.wqh_head.off + L.lh_next.off, 8, wq);
		put_at(p, L.wait.off + L.wqh_head.off + L.lh_prev.off, 8, wq);
	}
	for (size_t i = 0; i <= n; i++) {
		uint64_t node = i ? pool_node(i - 1) : HEAD_ADDR;
		uint64_t next = i < n ? pool_node(i) : HEAD_ADDR;

		set_next(f, node, next);
		set_prev(f, next, node);
	}
}

static void fake_free(struct fake *f)
{
	memimg_free(&f->img);
}

static const struct kmp_limits LIM = { 1000000, 1000000 };

/* The notes (pool left out, count incomplete) of the last read_all(). */
static char notes[8192];
static int nnotes;

static void note_capture(const char *msg, void *arg)
{
	size_t len = strlen(notes);

	(void)arg;
	snprintf(notes + len, sizeof(notes) - len, "%s\n", msg);
	nnotes++;
}

static bool read_all(struct fake *f, struct kmp_pools *out, struct kmp_err *err,
		    const struct kmp_limits *lim)
{
	memset(out, 0, sizeof(*out));
	out->notes.note = note_capture;
	notes[0] = '\0';
	nnotes = 0;
	err->msg[0] = '\0';
	return kmp_read_pools(&f->mem, &L, HEAD_ADDR, lim ? lim : &LIM, out, err);
}

/* ------------------------------------------------------------------ */

static void test_layout(const char *vmlinux)
{
	struct kmp_sym sym[2] = { { .name = "mempool_exit" }, { .name = "mempool_list" } };
	struct kmp_vmlinux v;
	struct kmp_layout nl;
	struct kmp_err err;

	begin("layout from DWARF matches offsetof() (via .debug_aranges)");
	if (!kmp_vmlinux_open(&v, vmlinux, &err)) {
		CHECK(0, "cannot open %s: %s", vmlinux, err.msg);
		end();
		exit(1);
	}
	kmp_vmlinux_symbols(&v, sym, 2);
	CHECK(sym[0].found && sym[1].found, "symbols mempool_exit/mempool_list not found");
	CHECK(kmp_layout_load(&v, sym[0].addr, false, &L, &err), "layout: %s", err.msg);
	CHECK(L.via_aranges, "the unit was not found through .debug_aranges");
#define OFF(field, type, member) \
	CHECK(L.field.ok && L.field.off == offsetof(type, member) && \
	      L.field.size == sizeof(((type *)0)->member), \
	      #member ": DWARF says off %" PRIu64 " size %" PRIu64 ", C says %zu/%zu", \
	      L.field.off, L.field.size, offsetof(type, member), \
	      sizeof(((type *)0)->member))
	CHECK(L.pool_size == sizeof(mempool_t), "pool size %" PRIu64 " != %zu",
	      L.pool_size, sizeof(mempool_t));
	OFF(list, mempool_t, list);
	OFF(name, mempool_t, name);
	OFF(owner, mempool_t, owner);
	OFF(elem_size, mempool_t, elem_size);
	OFF(type, mempool_t, type);
	OFF(min_nr, mempool_t, min_nr);
	OFF(curr_nr, mempool_t, curr_nr);
	OFF(low_nr, mempool_t, low_nr);
	OFF(nr_reserve, mempool_t, nr_reserve);
	OFF(nr_wait, mempool_t, nr_wait);
	CHECK(!L.nr_fail.ok && !L.nr_empty.ok, "the fake kernel is format 1.0, yet nr_fail or "
	      "nr_empty was found");
	OFF(wait, mempool_t, wait);
	OFF(lh_next, struct list_head, next);
	OFF(lh_prev, struct list_head, prev);
	OFF(wqh_head, struct wait_queue_head, head);
	OFF(wqe_private, struct wait_queue_entry, private);
	OFF(wqe_entry, struct wait_queue_entry, entry);
	OFF(task_pid, struct task_struct, pid);
	OFF(task_comm, struct task_struct, comm);
	OFF(task_state, struct task_struct, __state);
	CHECK(L.have_tasks, "task_struct members not found");
	CHECK(L.ntypes == 4, "enum mempool_type: %u values", L.ntypes);
	CHECK(!strcmp(kmp_type_name(&L, MEMPOOL_SLAB), "slab") &&
	      !strcmp(kmp_type_name(&L, MEMPOOL_KMALLOC), "kmalloc") &&
	      !strcmp(kmp_type_name(&L, MEMPOOL_PAGE), "page") &&
	      !strcmp(kmp_type_name(&L, MEMPOOL_PRIVATE), "private"),
	      "enum names wrong");
	end();

	begin("an unsigned enum's 0xf5 (DW_FORM_data1) reads as 245, not -11");
	{
		struct kmp_wanted w = { .name = "pagetype", .tag = DW_TAG_enumeration_type };
		int64_t slab = 0;
		Dwarf_Die cu;
		bool via;

		CHECK(kmp_dwarf_cu(&v, sym[0].addr, "fake_kernel.c", false, &cu, &via),
		      "no unit for the fake kernel");
		kmp_dwarf_scan(&cu, &w, 1);
		CHECK(w.found && kmp_dwarf_enumerator(&w.die, "PGTY_slab", &slab) &&
		      slab == PGTY_slab, "PGTY_slab read as %" PRId64, slab);
	}
	end();

	begin("layout without .debug_aranges (scan for mm/mempool.c) fails cleanly");
	/* The test object is not mm/mempool.c: the fallback must say so. */
	CHECK(!kmp_layout_load(&v, sym[0].addr, true, &nl, &err), "no-aranges load succeeded");
	CHECK(strstr(err.msg, "mm/mempool.c"), "message: %s", err.msg);
	end();
	kmp_vmlinux_close(&v);
}

static void test_empty(void)
{
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	char *text = NULL;
	size_t len = 0;
	FILE *mf;

	begin("empty list: no pools, complete, header only");
	fake_init(&f, 0);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_OK, "rc: %s", err.msg);
	CHECK(p.n == 0, "%zu pools", p.n);
	mf = open_memstream(&text, &len);
	kmp_report_text(mf, "1.0", &p);
	fclose(mf);
	CHECK(!strcmp(text, "mempool - version: 1.0\n"
		      "# name                   type    elem_size min_nr curr_nr low_nr "
		      "from_reserve    waits waiting owner\n"),
	      "header: [%s]", text);
	free(text);
	mf = open_memstream(&text, &len);
	kmp_report_text(mf, "1.1", &p);
	fclose(mf);
	CHECK(!strcmp(text, "mempool - version: 1.1\n"
		      "# name                   type    elem_size min_nr curr_nr low_nr "
		      "from_reserve    waits waiting owner failed emptied\n"),
	      "1.1 header: [%s]", text);
	free(text);
	mf = open_memstream(&text, &len);
	kmp_report_text(mf, "1.2", &p);
	fclose(mf);
	CHECK(!strcmp(text, "mempool - version: 1.2\n"
		      "# name                   type    elem_size min_nr curr_nr low_nr "
		      "from_reserve    waits waiting owner failed emptied oldest_wait instance\n"),
	      "1.2 header: [%s]", text);
	free(text);
	kmp_pools_free(&p);
	fake_free(&f);
	end();
}

/* Format 1.2's columns as mempool_seq_show() prints them, text and JSON. */
static void test_format12(void)
{
	struct kmp_pool p = { .addr = 0x1000, .name = "dm-crypt_page", .type = "private",
			      .elem_size = 4096, .min_nr = 256, .curr_nr = 0, .low_nr = 0,
			      .nr_reserve = 256, .nr_wait = 1, .waiting = 1, .owner = "dm_crypt",
			      .v11 = true, .nr_fail = 0, .nr_empty = 1, .v12 = true,
			      .oldest_wait = 37, .instance = "dm-0" };
	struct kmp_layout l = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *mf;

	begin("format 1.2: oldest_wait and instance, '?' and null when unknown");
	mf = open_memstream(&text, &len);
	kmp_report_pool(mf, &p);
	fclose(mf);
	CHECK(!strcmp(text, "dm-crypt_page            private      4096    256       0      0"
		      "          256        1       1 dm_crypt 0 1 37 dm-0\n"), "line: [%s]", text);
	free(text);
	p.oldest_unknown = true;
	p.instance = "-";
	mf = open_memstream(&text, &len);
	kmp_json_pool(mf, &p);
	fclose(mf);
	CHECK(strstr(text, "\"emptied\": 1, \"oldest_wait\": null, \"instance\": null}"),
	      "json: [%s]", text);
	free(text);
	mf = open_memstream(&text, &len);
	kmp_report_pool(mf, &p);
	fclose(mf);
	CHECK(strstr(text, " 0 1 ? -\n"), "unknown wait: [%s]", text);
	free(text);
	/* A 1.1 kernel's pool prints no 1.2 columns. */
	p.v12 = false;
	mf = open_memstream(&text, &len);
	kmp_report_pool(mf, &p);
	fclose(mf);
	CHECK(strstr(text, " dm_crypt 0 1\n"), "1.1 line: [%s]", text);
	free(text);
	/* The DWARF decides the format the analyzer expects. */
	CHECK(!strcmp(kmp_format_of_layout(&l), "1.0"), "no counters: %s", kmp_format_of_layout(&l));
	l.nr_fail.ok = l.nr_empty.ok = true;
	CHECK(!strcmp(kmp_format_of_layout(&l), "1.1"), "counters: %s", kmp_format_of_layout(&l));
	l.v12 = true;
	CHECK(!strcmp(kmp_format_of_layout(&l), "1.2"), "waiters: %s", kmp_format_of_layout(&l));
	/* Seconds of jiffies: wrap-around, a start after "now", unknown HZ. */
	CHECK(kmp_jiffies_seconds(5000, 2500, 250) == 10, "10 s");
	CHECK(kmp_jiffies_seconds(100, UINT64_MAX - 149, 250) == 1, "across the wrap");
	CHECK(kmp_jiffies_seconds(100, 200, 250) == 0, "start after now");
	CHECK(kmp_jiffies_seconds(5000, 2500, 0) == 0, "HZ unknown");
	/* HZ of a tick's length, and of the jiffies clocksource (TICK_NSEC << JIFFIES_SHIFT). */
	CHECK(kmp_hz_of_tick(4000000) == 250 && kmp_hz_of_tick(3333333) == 300 &&
	      kmp_hz_of_tick(1000000) == 1000 && kmp_hz_of_tick(10000000) == 100, "tick_nsec");
	CHECK(kmp_hz_of_tick(4000012) == 250, "an NTP-adjusted tick_nsec");
	CHECK(!kmp_hz_of_tick(0) && !kmp_hz_of_tick(99999) && !kmp_hz_of_tick(100000001),
	      "a tick out of HZ 10..10000");
	CHECK(kmp_hz_of_jiffies_clocksource("jiffies", 4000000ULL << 8, 8) == 250, "HZ 250, shift 8");
	CHECK(kmp_hz_of_jiffies_clocksource("jiffies", 3333333ULL << 7, 7) == 300, "HZ 300, shift 7");
	CHECK(kmp_hz_of_jiffies_clocksource("jiffies", 1000000ULL << 6, 6) == 1000, "HZ 1000, shift 6");
	CHECK(!kmp_hz_of_jiffies_clocksource("refined-jiffies", 4000000ULL << 8, 8),
	      "another clocksource");
	CHECK(!kmp_hz_of_jiffies_clocksource("jiffies", (4000000ULL << 8) + 1, 8),
	      "a mult that is not a shifted tick");
	CHECK(!kmp_hz_of_jiffies_clocksource("jiffies", 4000000ULL << 8, 40), "a shift past 31");
	CHECK(!kmp_hz_of_jiffies_clocksource("jiffies", 0, 8), "mult 0");
	end();
}

static void test_one(void)
{
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	char *text = NULL;
	size_t len = 0;
	FILE *mf;

	begin("one pool: every field, text line and JSON");
	fake_init(&f, 1);
	strcpy((char *)f.strs, "dm-crypt_req");
	strcpy((char *)f.strs + 32, "dm_crypt");
	put(pool_bytes(&f, 0), &L.owner, STR_BASE + 32);
	put(pool_bytes(&f, 0), &L.type, MEMPOOL_KMALLOC);
	put(pool_bytes(&f, 0), &L.elem_size, 1096);
	put(pool_bytes(&f, 0), &L.min_nr, 1024);
	put(pool_bytes(&f, 0), &L.curr_nr, 1000);
	put(pool_bytes(&f, 0), &L.low_nr, 900);
	put(pool_bytes(&f, 0), &L.nr_reserve, 77);
	put(pool_bytes(&f, 0), &L.nr_wait, 5);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_OK, "rc: %s", err.msg);
	CHECK(p.n == 1, "%zu pools", p.n);
	if (p.n == 1) {
		const struct kmp_pool *q = &p.v[0];

		CHECK(q->addr == pool_addr(0), "addr");
		CHECK(!strcmp(q->name, "dm-crypt_req"), "name %s", q->name);
		CHECK(!strcmp(q->owner, "dm_crypt"), "owner %s", q->owner);
		CHECK(!strcmp(q->type, "kmalloc"), "type %s", q->type);
		CHECK(q->elem_size == 1096 && q->min_nr == 1024 && q->curr_nr == 1000,
		      "sizes");
		CHECK(q->low_nr == 900, "low_nr %" PRId64, q->low_nr);
		CHECK(q->nr_reserve == 77 && q->nr_wait == 5 && q->waiting == 0, "stats");
		CHECK(!q->v11, "a 1.0 kernel's pool read as 1.1");
		mf = open_memstream(&text, &len);
		kmp_report_pool(mf, q);
		fclose(mf);
		CHECK(!strcmp(text, "dm-crypt_req             kmalloc      1096   1024    1000"
			      "    900           77        5       0 dm_crypt\n"),
		      "line: [%s]", text);
		free(text);
		mf = open_memstream(&text, &len);
		kmp_json_pool(mf, q);
		fclose(mf);
		CHECK(!strcmp(text, "{\"address\": \"0xffff888004000000\", "
			      "\"name\": \"dm-crypt_req\", \"type\": \"kmalloc\", "
			      "\"elem_size\": 1096, \"min_nr\": 1024, \"curr_nr\": 1000, "
			      "\"low_nr\": 900, \"from_reserve\": 77, \"waits\": 5, "
			      "\"waiting\": 0, \"owner\": \"dm_crypt\"}"),
		      "json: [%s]", text);
		free(text);
	}
	kmp_pools_free(&p);
	end();

	begin("one pool of a 1.1 kernel (nr_fail, nr_empty): the 1.1 report, byte for byte");
	{
		/*
		 * The same pool seen through the layout of a 1.1 kernel: the
		 * two counters lie in the fake struct's padding, one as wide
		 * as the kernel's unsigned long, one narrower.
		 */
		struct kmp_layout l11 = L;
		uint64_t pad = offsetof(mempool_t, pad);

		l11.nr_fail = (struct kmp_field){ .off = pad, .size = 8, .ok = true };
		l11.nr_empty = (struct kmp_field){ .off = pad + 8, .size = 4, .ok = true };
		put(pool_bytes(&f, 0), &l11.nr_fail, 3);
		put(pool_bytes(&f, 0), &l11.nr_empty, 0xfffffffe);
		memset(&p, 0, sizeof(p));
		p.notes.note = note_capture;
		CHECK(status(kmp_read_pools(&f.mem, &l11, HEAD_ADDR, &LIM, &p, &err), &err, true) == KMP_OK,
		      "rc: %s", err.msg);
		CHECK(p.n == 1 && p.v[0].v11 && p.v[0].nr_fail == 3 &&
		      p.v[0].nr_empty == 0xfffffffe && p.v[0].nr_wait == 5, "1.1 read");
		mf = open_memstream(&text, &len);
		kmp_report_text(mf, "1.1", &p);
		fclose(mf);
		CHECK(!strcmp(text, "mempool - version: 1.1\n"
			      "# name                   type    elem_size min_nr curr_nr low_nr "
			      "from_reserve    waits waiting owner failed emptied\n"
			      "dm-crypt_req             kmalloc      1096   1024    1000"
			      "    900           77        5       0 dm_crypt 3 4294967294\n"),
		      "1.1 report: [%s]", text);
		free(text);
		mf = open_memstream(&text, &len);
		kmp_json_pool(mf, &p.v[0]);
		fclose(mf);
		CHECK(p.n == 1 && strstr(text, "\"owner\": \"dm_crypt\", \"failed\": 3, "
					 "\"emptied\": 4294967294}"), "1.1 json: [%s]", text);
		free(text);
		kmp_pools_free(&p);
	}
	fake_free(&f);
	end();
}

static void test_many(void)
{
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	int bad = 0;

	begin("10,000 pools, in list order");
	fake_init(&f, 10000);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_OK, "rc: %s", err.msg);
	CHECK(p.n == 10000, "%zu pools", p.n);
	for (size_t i = 0; i < p.n && !bad; i++) {
		char want[32];

		snprintf(want, sizeof(want), "pool-%zu", i);
		if (strcmp(p.v[i].name, want) || p.v[i].elem_size != 64 + i ||
		    p.v[i].nr_reserve != i * 3) {
			CHECK(0, "pool %zu: %s", i, p.v[i].name);
			bad = 1;
		}
	}
	kmp_pools_free(&p);

	/* The bound on entries holds. */
	{
		struct kmp_limits lim = { 9999, 10 };

		CHECK(status(read_all(&f, &p, &err, &lim), &err, true) == KMP_EPARTIAL, "bound not enforced");
		CHECK(p.n == 9999, "%zu pools before the bound", p.n);
		CHECK(strstr(err.msg, "more than 9999 entries"), "message: %s", err.msg);
		kmp_pools_free(&p);
	}
	fake_free(&f);
	end();
}

static void test_cycle(void)
{
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	char want[128];

	/*
	 * head -> 0 -> 1 -> 2 -> 3 -> 1: node 1's prev is 0, so coming back
	 * from 3 breaks its prev link; node 1 was entry 2, so it is a cycle.
	 */
	begin("cycle back into the list: partial, names node and last good node");
	fake_init(&f, 5);
	set_next(&f, pool_node(3), pool_node(1));
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL, "not partial");
	CHECK(p.n == 4, "%zu pools before the cycle", p.n);
	snprintf(want, sizeof(want), "cycle in list: node 0x%" PRIx64 " (entry 2) comes "
		 "again after entry 4 (last good node 0x%" PRIx64 ")",
		 pool_node(1), pool_node(3));
	CHECK(strstr(err.msg, want), "message: %s", err.msg);
	kmp_pools_free(&p);

	fake_free(&f);
	end();

	begin("self-cycle: a node whose next is itself");
	fake_init(&f, 3);
	set_next(&f, pool_node(1), pool_node(1));
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL, "not partial");
	CHECK(p.n == 2, "%zu pools", p.n);
	snprintf(want, sizeof(want), "cycle in list: node 0x%" PRIx64 " (entry 2) comes "
		 "again after entry 2", pool_node(1));
	CHECK(strstr(err.msg, want), "message: %s", err.msg);
	kmp_pools_free(&p);
	fake_free(&f);
	end();

	begin("head whose next is itself after a pool was removed: empty and complete");
	fake_init(&f, 2);
	set_next(&f, HEAD_ADDR, HEAD_ADDR);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_OK && p.n == 0, "rc %s n %zu", err.msg, p.n);
	kmp_pools_free(&p);
	fake_free(&f);
	end();
}

/*
 * A ring of list_heads that never returns to the head, read through a
 * reader whose prev links always agree with the walk (as memory changing
 * under a live walk might): only the cycle check can stop it.
 */
#define RING_BASE 0xffff888070000000ULL
#define RING_N 5
struct ring {
	uint64_t prev_of[RING_N + 1];	/* [RING_N] is the head */
	unsigned long reads;
};

static int ring_index(uint64_t addr, uint64_t *field)
{
	uint64_t rel = addr - RING_BASE;
	int idx = (int)(rel / 0x100);

	*field = rel % 0x100;
	return idx;
}

static uint64_t ring_addr(int i)
{
	return RING_BASE + (uint64_t)i * 0x100;
}

/* Each 8-byte word of the read in order: a next link (which sets its node's prev), or a prev. */
static bool ring_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		      struct kmp_err *err)
{
	struct ring *r = mem->priv;

	r->reads++;
	if (!len || len % 8) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "ring: bad read at 0x%" PRIx64, addr);
		return false;
	}
	for (size_t off = 0; off < len; off += 8) {
		uint64_t field, v;
		int i = ring_index(addr + off, &field);

		if (i < 0 || i > RING_N || (field != L.lh_next.off && field != L.lh_prev.off)) {
			kmp_seterr(err, KMP_ERR_CORRUPT, "ring: bad read at 0x%" PRIx64, addr + off);
			return false;
		}
		if (field == L.lh_next.off) {
			int next = i == RING_N ? 0 : (i + 1) % RING_N;

			v = ring_addr(next);
			r->prev_of[next] = ring_addr(i);
		} else {
			v = r->prev_of[i];
		}
		memcpy((unsigned char *)buf + off, &v, 8);
	}
	return true;
}

static void ring_close(struct kmp_mem *mem)
{
	(void)mem;
}

static bool ring_visit(uint64_t node, void *arg, struct kmp_err *err)
{
	(void)node;
	(void)err;
	(*(unsigned long *)arg)++;
	return true;
}

static void test_brent(void)
{
	static const struct kmp_mem_ops ops = { .read = ring_read, .close = ring_close };
	struct ring r = { { 0 }, 0 };
	struct kmp_mem mem = { &ops, &r, false, false };
	unsigned long visits = 0;
	uint64_t last;
	struct kmp_err err;

	begin("cycle with agreeing prev links: Brent's check stops the walk");
	CHECK(kmp_list_walk(&mem, &L, ring_addr(RING_N), 1000000, ring_visit, &visits,
			    &last, &err) == KMP_WALK_BROKEN, "walk did not stop as broken");
	CHECK(strstr(err.msg, "cycle in list"), "message: %s", err.msg);
	CHECK(visits >= RING_N && visits <= 4 * RING_N, "%lu visits", visits);
	end();
}

static void test_broken(void)
{
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	char want[160];

	begin("broken prev link");
	fake_init(&f, 4);
	set_prev(&f, pool_node(2), pool_node(0));
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL, "not partial");
	CHECK(p.n == 2, "%zu pools", p.n);
	snprintf(want, sizeof(want), "broken prev link: node 0x%" PRIx64 " points back to 0x%"
		 PRIx64 ", expected 0x%" PRIx64, pool_node(2), pool_node(0), pool_node(1));
	CHECK(strstr(err.msg, want), "message: %s", err.msg);
	kmp_pools_free(&p);
	fake_free(&f);
	end();

	begin("next pointer into unmapped memory");
	fake_init(&f, 4);
	set_next(&f, pool_node(1), 0xffffc90000abc000ULL);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL, "not partial");
	CHECK(p.n == 2, "%zu pools", p.n);
	snprintf(want, sizeof(want), "unreadable list node 0xffffc90000abc000 (last good "
		 "node 0x%" PRIx64 ")", pool_node(1));
	CHECK(strstr(err.msg, want), "message: %s", err.msg);
	CHECK(strstr(err.msg, "not mapped"), "reason missing: %s", err.msg);
	kmp_pools_free(&p);

	set_next(&f, pool_node(1), 0);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL, "NULL next not partial");
	CHECK(strstr(err.msg, "bad next pointer 0x0"), "message: %s", err.msg);
	kmp_pools_free(&p);
	set_next(&f, pool_node(1), pool_node(2) + 3);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL, "misaligned next not partial");
	CHECK(strstr(err.msg, "bad next pointer"), "message: %s", err.msg);
	kmp_pools_free(&p);
	fake_free(&f);
	end();

	begin("unreadable list head");
	fake_init(&f, 1);
	memset(&p, 0, sizeof(p));
	CHECK(status(kmp_read_pools(&f.mem, &L, 0xffffffff8ff00000ULL, &LIM, &p, &err), &err,
		     true) == KMP_EPARTIAL, "not partial");
	CHECK(strstr(err.msg, "cannot read list head at 0xffffffff8ff00000"),
	      "message: %s", err.msg);
	kmp_pools_free(&p);
	fake_free(&f);
	end();
}

static void test_names(void)
{
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	char want[160];

	begin("unreadable name pointer");
	fake_init(&f, 3);
	put(pool_bytes(&f, 1), &L.name, 0xdead000000000000ULL);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL, "not partial");
	CHECK(p.n == 1 && !strcmp(p.v[0].name, "pool-0"), "%zu pools", p.n);
	snprintf(want, sizeof(want), "name of mempool at 0x%" PRIx64, pool_addr(1));
	CHECK(strstr(err.msg, want) && strstr(err.msg, "0xdead000000000000"),
	      "message: %s", err.msg);
	snprintf(want, sizeof(want), "after 0x%" PRIx64, pool_node(0));
	CHECK(strstr(err.msg, want), "last good node missing: %s", err.msg);
	CHECK(err.kind == KMP_ERR_UNMAPPED && err.has_addr && err.addr == 0xdead000000000000ULL,
	      "kind %s, address 0x%" PRIx64, kmp_errkind_name(err.kind), err.addr);
	kmp_pools_free(&p);

	put(pool_bytes(&f, 1), &L.name, 0);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL, "NULL name not partial");
	CHECK(p.n == 2 && !strcmp(p.v[0].name, "pool-0") && !strcmp(p.v[1].name, "pool-2"),
	      "NULL name: %zu pools (want pool-0 and pool-2)", p.n);
	snprintf(want, sizeof(want), "mempool at 0x%" PRIx64 " left out as corrupt: it has no "
		 "name", pool_addr(1));
	CHECK(nnotes == 1 && strstr(notes, want), "notes: %s", notes);
	CHECK(strstr(err.msg, "1 mempool(s) left out as corrupt"), "message: %s", err.msg);
	kmp_pools_free(&p);
	fake_free(&f);
	end();

	begin("name without NUL within the bound: that pool left out, the walk goes on");
	fake_init(&f, 4);
	{
		/* A region of non-NUL bytes longer than the bound. */
		unsigned char *s = memimg_add(&f.img, 0xffff888040000000ULL, KMP_NAME_MAX + 4096);

		memset(s, 'x', KMP_NAME_MAX + 4096);
		put(pool_bytes(&f, 2), &L.name, 0xffff888040000000ULL);
	}
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL, "not partial");
	CHECK(p.n == 3 && !strcmp(p.v[2].name, "pool-3"), "%zu pools", p.n);
	CHECK(nnotes == 1 && strstr(notes, "has no NUL within 65536 bytes"), "notes: %s", notes);
	kmp_pools_free(&p);

	/* A name that runs into unmapped memory before its NUL. */
	{
		unsigned char *s = memimg_add(&f.img, 0xffff888050000000ULL, 10);

		memset(s, 'y', 10);
		put(pool_bytes(&f, 2), &L.name, 0xffff888050000000ULL);
	}
	/* Missing data is not corruption: the walk ends there (a prefix is printed). */
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL, "not partial");
	CHECK(p.n == 2, "%zu pools before the unreadable name", p.n);
	CHECK(strstr(err.msg, "not mapped") && strstr(err.msg, "0xffff88805000000"),
	      "message: %s", err.msg);
	kmp_pools_free(&p);
	fake_free(&f);
	end();

	begin("a 255-character name is read whole");
	fake_init(&f, 1);
	{
		unsigned char *s = memimg_add(&f.img, 0xffff888060000000ULL, 256);

		memset(s, 'n', 255);
		put(pool_bytes(&f, 0), &L.name, 0xffff888060000000ULL);
	}
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_OK, "rc: %s", err.msg);
	CHECK(p.n == 1 && strlen(p.v[0].name) == 255, "name length %zu",
	      p.n ? strlen(p.v[0].name) : 0);
	kmp_pools_free(&p);
	fake_free(&f);
	end();

	begin("names of 300 and 40000 characters are read and printed whole");
	fake_init(&f, 3);
	{
		unsigned char *s = memimg_add(&f.img, 0xffff888060000000ULL, 320);
		unsigned char *t = memimg_add(&f.img, 0xffff888070000000ULL, 40064);
		char *text = NULL;
		size_t len = 0;
		FILE *mf;

		memset(s, 'a', 300);
		memset(t, 'b', 40000);
		put(pool_bytes(&f, 0), &L.name, 0xffff888060000000ULL);
		put(pool_bytes(&f, 2), &L.name, 0xffff888070000000ULL);
		CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_OK, "rc: %s", err.msg);
		CHECK(p.n == 3 && strlen(p.v[0].name) == 300 && strlen(p.v[2].name) == 40000 &&
		      !strcmp(p.v[1].name, "pool-1"), "%zu pools", p.n);
		if (p.n == 3) {
			mf = open_memstream(&text, &len);
			kmp_report_pool(mf, &p.v[0]);
			fclose(mf);
			CHECK(len > 300 && strspn(text, "a") == 300 && text[300] == ' ',
			      "line: %.40s...", text);
			free(text);
		}
	}
	kmp_pools_free(&p);
	fake_free(&f);
	end();

	begin("names and owners that break the kernel's rule: each pool left out, the rest whole");
	{
		static const struct {
			const char *s;
			size_t len;
			const char *why;
		} bad[] = {
			{ "pool\nevil 1 2 3", 15, "byte 0x0a at offset 4" },
			{ "", 0, "is empty" },
			{ "two words", 9, "byte 0x20 at offset 3" },
			{ "tab\there", 8, "byte 0x09" },
			{ "nel\xc2\x85", 5, "byte 0x85 at offset 4" },
			{ "nb\xa0" "sp", 5, "byte 0xa0 at offset 2" },
			{ "del\x7f", 4, "byte 0x7f" },
		};

		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			for (int owner = 0; owner < 2; owner++) {
				fake_init(&f, 3);
				if (owner) {
					unsigned char *o = memimg_add(&f.img, 0xffff888080000000ULL,
								      64);

					memcpy(o, bad[k].s, bad[k].len + 1);
					put(pool_bytes(&f, 1), &L.owner, 0xffff888080000000ULL);
				} else {
					memcpy(f.strs + STR_STRIDE, bad[k].s, bad[k].len + 1);
				}
				CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL, "case %zu/%d: not "
				      "partial", k, owner);
				CHECK(p.n == 2 && !strcmp(p.v[0].name, "pool-0") &&
				      !strcmp(p.v[1].name, "pool-2"),
				      "case %zu/%d: %zu pools", k, owner, p.n);
				snprintf(want, sizeof(want), "mempool at 0x%" PRIx64 " left out as "
					 "corrupt: its %s", pool_addr(1), owner ? "owner" : "name");
				CHECK(nnotes == 1 && strstr(notes, want) && strstr(notes, bad[k].why) &&
				      !strchr(notes, '\t') && strchr(notes, '\n') == notes +
				      strlen(notes) - 1, "case %zu/%d: notes: %s", k, owner, notes);
				kmp_pools_free(&p);
				fake_free(&f);
			}
		}
	}
	end();

	begin("names and owners with bytes 0xa1..0xff (the kernel's isprint()) are kept as they are");
	fake_init(&f, 3);
	memcpy(f.strs + STR_STRIDE, "caf\xc3\xa9", 6);
	memcpy(f.strs + 2 * STR_STRIDE, "\xa1\xff", 3);
	{
		unsigned char *o = memimg_add(&f.img, 0xffff888080000000ULL, 64);

		memcpy(o, "m\xf6" "d", 4);
		put(pool_bytes(&f, 0), &L.owner, 0xffff888080000000ULL);
	}
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_OK, "rc: %s", err.msg);
	CHECK(p.n == 3 && !strcmp(p.v[1].name, "caf\xc3\xa9") && !strcmp(p.v[2].name, "\xa1\xff") &&
	      !strcmp(p.v[0].owner, "m\xf6" "d"), "%zu pools", p.n);
	CHECK(nnotes == 0, "notes: %s", notes);
	kmp_pools_free(&p);
	fake_free(&f);
	end();
}

/* Live memory in which pool 1's record shows low_nr 9 (above curr_nr) on its first @left reads. */
struct torn {
	struct fake *f;
	int left;
};

static bool torn_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		      struct kmp_err *err)
{
	struct torn *t = mem->priv;

	if (!t->f->mem.ops->read(&t->f->mem, addr, buf, len, err))
		return false;
	if (addr == pool_addr(1) && len >= L.pool_size && t->left > 0) {
		t->left--;
		put(buf, &L.low_nr, 9);
	}
	return true;
}

/* A sink that fails with @kind at the first pool (output, no memory). */
static bool failing_pool(const struct kmp_pool *p, void *arg, struct kmp_err *err)
{
	(void)p;
	kmp_seterr(err, *(const enum kmp_errkind *)arg, "the sink failed");
	return false;
}

static void collect_none(const struct kmp_waiter *w, void *arg)
{
	(void)w;
	(void)arg;
}

/*
 * Every exit status of kmempool(1) from a failure of the library, through
 * kmp_exit_status(), the one mapping (1, bad command lines, and whole runs:
 * tests/badinput.sh and tests/crafted.sh; 7 and 9 only here).
 */
static void test_exit_statuses(const char *vmlinux)
{
	static const char *const vi_other = "OSRELEASE=9.9.9-other\nPAGESIZE=4096\n";
	enum kmp_errkind kinds[2] = { KMP_ERR_OUTPUT, KMP_ERR_NOMEM };
	struct kmp_options o = { .vmlinux = vmlinux };
	struct kmp_layout nt = L;
	struct kmp_session s;
	struct kmp_vmlinux v;
	struct kmp_pools p;
	struct kmp_err err;
	struct kmp_core core;
	struct fake f;

	begin("exit statuses: each one documented comes from a failure of its kind");
	fake_init(&f, 3);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_OK, "0: %s", err.msg);
	kmp_pools_free(&p);
	CHECK(status(kmp_core_open(&core, "/", &err), &err, false) == KMP_ECORE,
	      "2, a directory as core: %s", err.msg);
	CHECK(status(kmp_vmlinux_open(&v, "/nonexistent/vmlinux", &err), &err, false) ==
	      KMP_EVMLINUX, "3, no vmlinux: %s", err.msg);
	CHECK(status(kmp_session_open_mem(&s, &o, &f.mem, vi_other, "test", "memory", &err), &err,
		     false) == KMP_EMISMATCH, "4, another release: %s", err.msg);
	kmp_session_close(&s);
	set_next(&f, pool_node(0), 0);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL,
	      "5, a broken list: %s", err.msg);
	kmp_pools_free(&p);
	fake_free(&f);
	/* 6: was 5 - the kind said corrupt where the status said format. */
	nt.have_tasks = false;
	fake_init(&f, 3);
	CHECK(status(kmp_read_waiters(&f.mem, &nt, pool_addr(1), &LIM, NULL, collect_none, NULL,
				      &err), &err, true) == KMP_EFORMAT,
	      "6, no task_struct members: %s", err.msg);
	/* 7: test_live(); 8 and 9: the sink's own failure is the walk's. */
	for (int i = 0; i < 2; i++) {
		struct kmp_pool_sink sink = { failing_pool, NULL, &kinds[i] };

		memset(&p, 0, sizeof(p));
		CHECK(status(kmp_walk_pools(&f.mem, &L, HEAD_ADDR, &LIM, &sink, &p, &err), &err,
			     true) == (i ? KMP_ENOMEM : KMP_EOUTPUT), "%s: %s",
		      kmp_errkind_name(kinds[i]), err.msg);
	}
	fake_free(&f);
	end();
}

static void test_counters(void)
{
	static const struct {
		int64_t min, curr, low;
		const char *why;
	} bad[] = {
		{ 5, 5, -16777215, "(min_nr 5, curr_nr 5, low_nr -16777215; name pool-1)" },
		{ 5, 5, -1, "low_nr -1;" },
		{ 4, 9, 1, "curr_nr 9," },
		{ 4, 2, 5, "low_nr 5;" },
		{ -2, -3, -4, "min_nr -2," },
	};
	static const struct kmp_mem_ops ops = { .read = torn_read };
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;

	begin("counters that break 0 <= curr_nr, low_nr <= min_nr: that pool left out as corrupt");
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		fake_init(&f, 3);
		put(pool_bytes(&f, 1), &L.min_nr, (uint64_t)bad[k].min);
		put(pool_bytes(&f, 1), &L.curr_nr, (uint64_t)bad[k].curr);
		put(pool_bytes(&f, 1), &L.low_nr, (uint64_t)bad[k].low);
		CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL && err.kind == KMP_ERR_CORRUPT,
		      "case %zu: not partial, corrupt: %s", k, err.msg);
		CHECK(p.n == 2 && !strcmp(p.v[0].name, "pool-0") && !strcmp(p.v[1].name, "pool-2"),
		      "case %zu: %zu pools", k, p.n);
		CHECK(nnotes == 1 && strstr(notes, "left out as corrupt: its counters break") &&
		      strstr(notes, bad[k].why), "case %zu: notes: %s", k, notes);
		kmp_pools_free(&p);
		fake_free(&f);
	}
	end();

	begin("live: counters read in the middle of an update are read again, not called corrupt");
	for (int left = 1; left <= 4; left++) {
		struct torn t = { &f, left == 4 ? 1000 : left };
		struct kmp_mem mem = { &ops, &t, true, false };
		int rc;

		fake_init(&f, 3);
		memset(&p, 0, sizeof(p));
		p.notes.note = note_capture;
		notes[0] = '\0';
		nnotes = 0;
		rc = status(kmp_read_pools(&mem, &L, HEAD_ADDR, &LIM, &p, &err), &err, true);
		if (left <= 3)
			CHECK(rc == KMP_OK && p.n == 3 && p.v[1].low_nr == 5 && !nnotes,
			      "torn %d times: rc %d, %zu pools, notes %s", left, rc, p.n, notes);
		else
			CHECK(rc == KMP_EPARTIAL && err.kind == KMP_ERR_CORRUPT && p.n == 2 &&
			      nnotes == 1, "torn %d times: rc %d, %zu pools, notes %s", left, rc,
			      p.n, notes);
		kmp_pools_free(&p);
		fake_free(&f);
	}
	end();
}

static void test_version(void)
{
	struct fake f;
	struct kmp_err err;
	char buf[16];
	unsigned char *v;

	begin("format versions: known, unknown, truncated");
	CHECK(kmp_format_known("1.0") && kmp_format_known("1.1") && kmp_format_known("1.2"),
	      "1.0, 1.1 or 1.2 unknown");
	CHECK(!kmp_format_known("1.3") && !kmp_format_known("2.0") && !kmp_format_known("1") &&
	      !kmp_format_known("") && !kmp_format_known("1.0 "), "accepts a foreign version");
	fake_init(&f, 0);
	v = memimg_add(&f.img, 0xffffffff82200000ULL, 16);
	memcpy(v, "1.0", 4);
	CHECK(kmp_read_string(&f.mem, 0xffffffff82200000ULL, buf, sizeof(buf), &err) &&
	      !strcmp(buf, "1.0"), "read 1.0: %s", err.msg);
	/* Truncated: the image ends before the NUL. */
	v = memimg_add(&f.img, 0xffffffff82300000ULL, 2);
	memcpy(v, "1.", 2);
	CHECK(!kmp_read_string(&f.mem, 0xffffffff82300000ULL, buf, sizeof(buf), &err),
	      "read a truncated version");
	CHECK(strstr(err.msg, "0xffffffff82300000"), "message: %s", err.msg);
	/* Garbage: no NUL in 16 bytes. */
	v = memimg_add(&f.img, 0xffffffff82400000ULL, 64);
	memset(v, '9', 64);
	CHECK(!kmp_read_string(&f.mem, 0xffffffff82400000ULL, buf, sizeof(buf), &err),
	      "read an unterminated version");
	CHECK(strstr(err.msg, "no NUL within 16 bytes"), "message: %s", err.msg);
	fake_free(&f);
	end();
}

struct seen {
	int n;
	struct kmp_waiter w[8];
};

static void collect(const struct kmp_waiter *w, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8)
		s->w[s->n] = *w;
	s->n++;
}

static void test_waiters(void)
{
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	struct seen s = { 0 };
	uint64_t wq = pool_addr(1) + L.wait.off + L.wqh_head.off;
	uint64_t prev = wq;

	begin("wait queue: count and the waiting tasks' pid, comm, state");
	fake_init(&f, 3);
	for (int i = 0; i < 3; i++) {
		uint64_t task = TASK_BASE + i * 0x400, wqe = WQE_BASE + i * 0x100;
		uint64_t node = wqe + L.wqe_entry.off;
		unsigned char *t = f.tasks + i * 0x400, *e = f.wqes + i * 0x100;
		unsigned char *pb = prev == wq ? pool_bytes(&f, 1) +
			L.wait.off + L.wqh_head.off : f.wqes + (i - 1) * 0x100 + L.wqe_entry.off;

		put(t, &L.task_pid, 100 + i);
		put(t, &L.task_state, 2);	/* TASK_UNINTERRUPTIBLE */
		snprintf((char *)t + L.task_comm.off, 16, "kmp_waiter/%c", (char)('0' + i));
		put(e, &L.wqe_private, task);
		/* link prev -> node */
		put_at(pb, L.lh_next.off, 8, node);
		put_at(e, L.wqe_entry.off + L.lh_prev.off, 8, prev);
		put_at(e, L.wqe_entry.off + L.lh_next.off, 8, wq);
		put_at(pool_bytes(&f, 1), L.wait.off + L.wqh_head.off + L.lh_prev.off, 8, node);
		prev = node;
	}
	put(pool_bytes(&f, 1), &L.curr_nr, 0);
	put(pool_bytes(&f, 1), &L.low_nr, 0);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_OK, "rc: %s", err.msg);
	CHECK(p.n == 3 && p.v[1].waiting == 3 && p.v[0].waiting == 0 && p.v[2].waiting == 0,
	      "waiting counts");
	kmp_pools_free(&p);
	CHECK(kmp_read_waiters(&f.mem, &L, pool_addr(1), &LIM, NULL, collect, &s, &err),
	      "waiters: %s", err.msg);
	CHECK(s.n == 3, "%d waiters", s.n);
	for (int i = 0; i < 3 && i < s.n; i++) {
		char comm[32];

		snprintf(comm, sizeof(comm), "kmp_waiter/%d", i);
		CHECK(s.w[i].pid == 100 + i && !strcmp(s.w[i].comm, comm) &&
		      !strcmp(kmp_task_state(s.w[i].state), "D (uninterruptible)"),
		      "waiter %d: pid %" PRId64 " comm %s", i, s.w[i].pid, s.w[i].comm);
	}
	end();

	begin("corrupt wait queue: the pool and the entry are named");
	put_at(f.wqes + 0x100, L.wqe_entry.off + L.lh_prev.off, 8, 0x1234);
	CHECK(status(read_all(&f, &p, &err, NULL), &err, true) == KMP_EPARTIAL, "not partial");
	CHECK(p.n == 3, "%zu pools (a bad wait queue costs only its count)", p.n);
	CHECK(p.n == 3 && p.v[1].waiting_unknown && !p.v[2].waiting_unknown &&
	      p.v[2].waiting == 0, "counts: an uncounted queue is unknown, not a number");
	CHECK(err.kind == KMP_ERR_CORRUPT, "kind %s", kmp_errkind_name(err.kind));
	CHECK(nnotes == 1 && strstr(notes, "waiting count of mempool pool-1") &&
	      strstr(notes, "broken prev link"), "notes: %s", notes);
	CHECK(strstr(err.msg, "1 wait queue(s) not counted"), "message: %s", err.msg);
	kmp_pools_free(&p);
	s.n = 0;
	CHECK(status(kmp_read_waiters(&f.mem, &L, pool_addr(1), &LIM, NULL, collect, &s, &err),
		     &err, true) == KMP_EPARTIAL, "waiters not partial");
	CHECK(s.n == 1, "%d waiters before the bad entry", s.n);
	fake_free(&f);
	end();
}

/*
 * Live memory that changes under the walk: pool 1 is destroyed at the
 * @at-th read (unlinked with the kernel's poison values, its name freed
 * and overwritten), or, with @flip, pool 2's prev link is wrong on every
 * other read, forever.
 */
struct churn {
	struct fake *f;
	unsigned long reads, at;
	bool flip;
	size_t victim;		/* 1 or 2 (the last) */
	bool init;		/* unlinked by list_del_init() and its name pointer cleared */
	unsigned long flips;
	/*
	 * The first read of pool 1's name sees other bytes at the same
	 * address (a string freed and reused); every later read, "pool-1".
	 */
	bool garble;
};

static bool churn_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		       struct kmp_err *err)
{
	struct churn *c = mem->priv;
	struct fake *f = c->f;

	if (++c->reads == c->at) {
		size_t v = c->victim;
		uint64_t before = pool_node(v - 1);
		uint64_t after = v + 1 < f->npools ? pool_node(v + 1) : HEAD_ADDR;

		set_next(f, before, after);
		set_prev(f, after, before);
		if (c->init) {
			/* mempool_exit(): list_del_init(), then the name cleared. */
			set_next(f, pool_node(v), pool_node(v));
			set_prev(f, pool_node(v), pool_node(v));
			put(pool_bytes(f, v), &L.name, 0);
		} else {
			/* mempool_destroy(): list_del(), the name freed and reused. */
			set_next(f, pool_node(v), 0xdead000000000100ULL);
			set_prev(f, pool_node(v), 0xdead000000000122ULL);
			snprintf((char *)f->strs + v * STR_STRIDE, STR_STRIDE, "reused");
		}
	}
	/*
	 * A link that never settles: pool 2's prev is rewritten before every
	 * read that covers it (broken, right, broken, ...), however the walk
	 * reads it (alone, or with its page).
	 */
	if (c->flip && addr <= pool_node(2) + L.lh_prev.off &&
	    pool_node(2) + L.lh_prev.off + 8 <= addr + len) {
		/* A read that fails reads nothing: no new value for it. */
		if (!f->mem.ops->read(&f->mem, addr, buf, len, err))
			return false;
		set_prev(f, pool_node(2), ++c->flips % 2 ? pool_node(0) : pool_node(1));
	}
	if (c->garble && addr <= STR_BASE + STR_STRIDE && STR_BASE + STR_STRIDE + 7 <= addr + len) {
		if (!f->mem.ops->read(&f->mem, addr, buf, len, err))
			return false;
		memcpy((char *)buf + (STR_BASE + STR_STRIDE - addr), "zzzzzz", 7);
		c->garble = false;
		return true;
	}
	return f->mem.ops->read(&f->mem, addr, buf, len, err);
}

/*
 * Live at scale (issue 21 item 8): on /proc/kcore every read is a system
 * call.  A quiet live walk of 256 pools (8 a page, as slab pages hold
 * them) reads lines of 8 pages once and checks the pools again with one
 * read per run of nearby pages, their strings with another: under 0.1
 * reads a pool (it was 7, then 0.3 a page at a time), and the same report
 * as a dump's.  A string whose bytes differ when
 * read again (freed and reused under a pool made again at the same
 * address) makes the walk start again rather than print it.
 */
static void test_live_reads(void)
{
	static const struct kmp_mem_ops ops = { .read = churn_read };
	struct kmp_pools live, dump;
	struct kmp_err err;
	struct fake f;
	const size_t n = 256;
	struct churn c = { &f, 0, 0, false, 1, false, 0, false };
	struct kmp_mem mem = { &ops, &c, true, false };
	bool same = true;

	begin("live: a quiet walk of 256 pools reads their pages a line at a time, and checks "
	      "them again a run of pages at a time (under 0.1 reads a pool), with the report of "
	      "a dump");
	fake_init(&f, n);
	memset(&live, 0, sizeof(live));
	memset(&dump, 0, sizeof(dump));
	CHECK(status(kmp_read_pools(&mem, &L, HEAD_ADDR, &LIM, &live, &err), &err, true) ==
	      KMP_OK && live.n == n && live.attempts == 1, "live: %zu pools, %u attempts: %s",
	      live.n, live.attempts, err.msg);
	CHECK(c.reads * 10 < n, "%lu reads for %zu pools", c.reads, n);
	printf("# %lu reads for %zu pools\n", c.reads, n);
	CHECK(status(kmp_read_pools(&f.mem, &L, HEAD_ADDR, &LIM, &dump, &err), &err, true) ==
	      KMP_OK && dump.n == n, "dump: %zu pools: %s", dump.n, err.msg);
	for (size_t i = 0; i < n && i < live.n && i < dump.n; i++)
		if (live.v[i].addr != dump.v[i].addr || strcmp(live.v[i].name, dump.v[i].name) ||
		    live.v[i].curr_nr != dump.v[i].curr_nr || live.v[i].waiting != dump.v[i].waiting)
			same = false;
	CHECK(same, "the live walk and the dump's differ");
	kmp_pools_free(&live);
	kmp_pools_free(&dump);
	fake_free(&f);
	end();

	begin("live: a string read while freed (its address reused with the same links) is "
	      "read again, not printed");
	{
		struct churn g = { &f, 0, 0, false, 1, false, 0, true };
		struct kmp_mem gm = { &ops, &g, true, false };

		fake_init(&f, 3);
		memset(&live, 0, sizeof(live));
		CHECK(status(kmp_read_pools(&gm, &L, HEAD_ADDR, &LIM, &live, &err), &err, true) ==
		      KMP_OK && live.n == 3 && !strcmp(live.v[1].name, "pool-1") &&
		      live.attempts == 2, "%zu pools, pool 1 named %s, %u attempts: %s", live.n,
		      live.n > 1 ? live.v[1].name : "", live.attempts, err.msg);
		kmp_pools_free(&live);
		fake_free(&f);
	}
	end();
}

/*
 * The live reader's cache and its batched reads where memory has a hole:
 * a line or a run that cannot be read whole is read a page or a span at a
 * time, so what can be read is read, and nothing else.
 */
static void test_readcache_holes(void)
{
	const uint64_t base = 0xffff888000100000ULL;
	struct kmp_readcache *rc;
	struct kmp_spans *sp = calloc(1, sizeof(*sp));
	struct memimg img;
	struct kmp_mem mem;
	struct kmp_err err;
	unsigned char *a, *b, buf[16];
	unsigned long before;
	bool ok;

	begin("live reads: a line or a run of pages across a hole falls back to a page or a span "
	      "at a time");
	memimg_init(&img, &mem);
	mem.live = true;
	/* Pages 0-2 of a line mapped, page 3 a hole, pages 4-7 mapped. */
	a = memimg_add(&img, base, 3 * KMP_RC_PAGE);
	b = memimg_add(&img, base + 4 * KMP_RC_PAGE, 4 * KMP_RC_PAGE);
	memset(a, 0xa1, 3 * KMP_RC_PAGE);
	memset(b, 0xb2, 4 * KMP_RC_PAGE);
	rc = kmp_readcache_new(&mem);
	CHECK(rc && sp, "out of memory");
	if (!rc || !sp)
		goto out;
	before = img.reads;
	ok = kmp_read(&rc->mem, base + 16, buf, 8, &err) && buf[0] == 0xa1;
	/* The line, then the page alone. */
	CHECK(ok && img.reads - before == 2, "page 0: %d, %lu reads", ok, img.reads - before);
	before = img.reads;
	ok = kmp_read(&rc->mem, base + 2 * KMP_RC_PAGE + 8, buf, 8, &err) && buf[7] == 0xa1;
	CHECK(ok && img.reads - before == 1, "page 2: %d, %lu reads", ok, img.reads - before);
	before = img.reads;
	ok = kmp_read(&rc->mem, base + KMP_RC_PAGE + 8, buf, 8, &err);
	CHECK(ok && img.reads == before + 1, "page 1: %lu reads", img.reads - before);
	ok = kmp_read(&rc->mem, base + 3 * KMP_RC_PAGE + 8, buf, 8, &err);
	CHECK(!ok, "the hole read through the cache");
	ok = kmp_read(&rc->mem, base + 5 * KMP_RC_PAGE, buf, 16, &err) && buf[15] == 0xb2;
	CHECK(ok, "page 5 after the hole: %s", err.msg);

	/* Spans on pages 0, 2, 3 (the hole) and 5: one run, read a span at a time. */
	kmp_spans_reset(sp);
	CHECK(kmp_spans_add(sp, base + 5 * KMP_RC_PAGE, 48) &&
	      kmp_spans_add(sp, base + 2 * KMP_RC_PAGE + 100, 8) &&
	      kmp_spans_add(sp, base + 3 * KMP_RC_PAGE, 8) && kmp_spans_add(sp, base + 4000, 96),
	      "spans refused");
	before = img.reads;
	CHECK(kmp_spans_read(sp, &mem), "out of memory");
	CHECK(img.reads - before == 5, "%lu reads (the run, then each of 4 spans)",
	      img.reads - before);
	CHECK(kmp_spans_get(sp, base + 4000, 96) && kmp_spans_get(sp, base + 4000, 96)[95] == 0xa1 &&
	      kmp_spans_get(sp, base + 2 * KMP_RC_PAGE + 100, 8) &&
	      kmp_spans_get(sp, base + 5 * KMP_RC_PAGE + 40, 8) &&
	      kmp_spans_get(sp, base + 5 * KMP_RC_PAGE + 40, 8)[0] == 0xb2 &&
	      !kmp_spans_get(sp, base + 3 * KMP_RC_PAGE, 8), "the spans as read differ");
	/* Without the hole: pages 0 and 2 in one read, page 6 (4 pages on) in another. */
	kmp_spans_reset(sp);
	kmp_spans_add(sp, base + 100, 8);
	kmp_spans_add(sp, base + 2 * KMP_RC_PAGE + 8, 8);
	kmp_spans_add(sp, base + 6 * KMP_RC_PAGE + 8, 8);
	CHECK(sp->n == 3, "%zu spans", sp->n);
	before = img.reads;
	CHECK(kmp_spans_read(sp, &mem) && img.reads - before == 2 &&
	      kmp_spans_get(sp, base + 2 * KMP_RC_PAGE + 8, 8) &&
	      kmp_spans_get(sp, base + 6 * KMP_RC_PAGE + 8, 8), "%lu reads, want 2",
	      img.reads - before);
out:
	kmp_readcache_free(rc);
	kmp_spans_free(sp);
	memimg_free(&img);
	end();
}

/*
 * The rows are built by hand (report.c), not with printf(): every
 * version's row against the printf() conversions it stands for, with
 * numbers at their limits, names longer than the columns and the buffer.
 */
static void test_row_format(void)
{
	static const int64_t ints[] = { 0, 7, -1, 123456789, INT64_MIN, INT64_MAX, -4000 };
	static const uint64_t uints[] = { 0, 9, 4294967295u, UINT64_MAX, 100000 };
	char *longname = malloc(3000), *got = NULL, *want = NULL;
	size_t gotlen = 0, wantlen = 0, bad = 0, rows = 0;

	begin("a row built by hand is the row printf() makes, byte for byte, in every version");
	if (!longname)
		abort();
	memset(longname, 'n', 2999);
	longname[2999] = '\0';
	for (int v = 0; v < 4; v++) {
		for (size_t k = 0; k < 7; k++) {
			const char *names[] = { "a", "exactly_24_chars_long_xx", "bio-0",
						"thirty_chars_long_name_xxxxxxx", longname, "", "x y" };
			struct kmp_pool p = { 0 };
			char waiting[24], oldest[24];
			FILE *g, *w;

			p.name = (char *)names[k];
			p.type = k % 2 ? "kmalloc" : "page";
			p.elem_size = uints[k % 5];
			p.min_nr = ints[k % 7];
			p.curr_nr = ints[(k + 1) % 7];
			p.low_nr = ints[(k + 4) % 7];
			p.nr_reserve = uints[(k + 3) % 5];
			p.nr_wait = uints[(k + 1) % 5];
			p.waiting = uints[(k + 2) % 5];
			p.waiting_unknown = k == 3;
			snprintf(p.owner, sizeof(p.owner), "%s", k == 2 ? "-" : "dm_crypt");
			p.v11 = v >= 1;
			p.v12 = v >= 2;
			p.v6 = v == 3;
			p.nr_fail = uints[(k + 4) % 5];
			p.nr_empty = uints[k % 5];
			p.oldest_wait = uints[(k + 2) % 5];
			p.oldest_unknown = k == 5;
			p.instance = k == 4 ? longname : "253:0";
			p.site = k == 6 ? longname : "drivers/md/dm-crypt.c:3349";
			g = open_memstream(&got, &gotlen);
			w = open_memstream(&want, &wantlen);
			if (!g || !w)
				abort();
			kmp_report_pool(g, &p);
			if (p.waiting_unknown)
				snprintf(waiting, sizeof(waiting), "?");
			else
				snprintf(waiting, sizeof(waiting), "%" PRIu64, p.waiting);
			if (p.oldest_unknown)
				snprintf(oldest, sizeof(oldest), "?");
			else
				snprintf(oldest, sizeof(oldest), "%" PRIu64, p.oldest_wait);
			if (p.v6) {
				size_t len = strlen(p.name);

				fprintf(w, "%s%*s %-7s %9" PRIu64 " %6" PRId64 " %7" PRId64 " %6"
					PRId64 " %12" PRIu64 " %8" PRIu64 " %7s %8" PRIu64 " %8" PRIu64
					" %11s %s %s %s\n", p.name, len < 30 ? (int)(30 - len) : 0, "",
					p.type, p.elem_size, p.min_nr, p.curr_nr, p.low_nr, p.nr_reserve,
					p.nr_wait, waiting, p.nr_fail, p.nr_empty, oldest, p.owner,
					p.instance, p.site);
			} else {
				fprintf(w, "%-24s %-7s %9" PRIu64 " %6" PRId64 " %7" PRId64 " %6" PRId64
					" %12" PRIu64 " %8" PRIu64 " %7s %s", p.name, p.type, p.elem_size,
					p.min_nr, p.curr_nr, p.low_nr, p.nr_reserve, p.nr_wait, waiting,
					p.owner);
				if (p.v11)
					fprintf(w, " %" PRIu64 " %" PRIu64, p.nr_fail, p.nr_empty);
				if (p.v12)
					fprintf(w, " %s %s", oldest, p.instance);
				fputc('\n', w);
			}
			fclose(g);
			fclose(w);
			rows++;
			if (gotlen != wantlen || memcmp(got, want, gotlen)) {
				if (!bad++)
					printf("# version %d row %zu:\n#  got  %.200s#  want %.200s", v, k,
					       got, want);
			}
			free(got);
			free(want);
			got = want = NULL;
		}
	}
	CHECK(!bad, "%zu of %zu rows differ", bad, rows);
	free(longname);
	end();
}

/*
 * A unit read through a handle of its own (dwarfunit.c): the same unit
 * and the same layout as through the whole file's handle; a unit whose
 * abbreviations refer outside it (DWARF 4 type units, DW_FORM_ref_sig8)
 * is refused, and the layout then comes from the whole file's handle.
 */
static void test_dwarf_unit(const char *vmlinux, const char *types)
{
	struct kmp_sym sym = { .name = "mempool_exit" };
	struct kmp_layout whole = { 0 }, alone = { 0 };
	char sname[64], cname[256];
	struct kmp_vmlinux v;
	struct kmp_err err;
	Dwarf_Die cu, ref;
	Dwarf_Off next;
	size_t hsize;

	begin("a unit alone in a handle of its own: the same unit and layout; a unit that "
	      "refers outside itself is refused");
	if (!kmp_vmlinux_open(&v, vmlinux, &err)) {
		CHECK(0, "cannot open %s: %s", vmlinux, err.msg);
		end();
		return;
	}
	kmp_vmlinux_symbols(&v, &sym, 1);
	CHECK(sym.found && dwarf_nextcu(v.dwarf, 0, &next, &hsize, NULL, NULL, NULL) == 0 &&
	      dwarf_offdie(v.dwarf, hsize, &ref), "no mempool_exit or no first unit");
	CHECK(kmp_dwarf_unit(v.units, 0, &cu) && dwarf_cu_getdwarf(cu.cu) != v.dwarf &&
	      dwarf_diename(&cu) && dwarf_diename(&ref) &&
	      !strcmp(dwarf_diename(&cu), dwarf_diename(&ref)), "the unit alone differs");
	/* The layout from the unit alone (kmp_dwarf_cu's first choice), and from the whole file. */
	CHECK(kmp_layout_load(&v, sym.addr, false, &alone, &err), "unit alone: %s", err.msg);
	/* Its names live in the unit's handle, freed here (the session frees it with the file's). */
	snprintf(sname, sizeof(sname), "%s", alone.pool_struct ? alone.pool_struct : "");
	snprintf(cname, sizeof(cname), "%s", alone.cu_name ? alone.cu_name : "");
	alone.pool_struct = sname;
	alone.cu_name = cname;
	kmp_dwarf_units_free(v.units);
	v.units = NULL;
	CHECK(kmp_layout_load(&v, sym.addr, false, &whole, &err), "whole file: %s", err.msg);
	/* Names point into each handle's string section: compared as strings. */
	CHECK(whole.pool_struct && alone.pool_struct && !strcmp(whole.pool_struct, alone.pool_struct),
	      "struct names differ");
	alone.pool_struct = whole.pool_struct;
	CHECK(whole.cu_name && alone.cu_name && !strcmp(whole.cu_name, alone.cu_name),
	      "unit names differ");
	alone.cu_name = whole.cu_name;
	CHECK(!memcmp(&whole, &alone, sizeof(whole)), "the layouts differ");
	kmp_vmlinux_close(&v);
	if (!kmp_vmlinux_open(&v, types, &err)) {
		CHECK(0, "cannot open %s: %s", types, err.msg);
		end();
		return;
	}
	CHECK(!kmp_dwarf_unit(v.units, 0, &cu), "a unit with DW_FORM_ref_sig8 was taken alone");
	kmp_vmlinux_close(&v);
	end();
}

/*
 * Two vmlinux files open in one process (issue 35): each keeps its own
 * unit handles (struct kmp_vmlinux's units), so opening the second does not
 * send the first back to the whole file's handle, and closing it leaves
 * the first's alone.  @a and @b: two test kernels with mempool_exit.
 */
static bool unit_alone(struct kmp_vmlinux *v, uint64_t addr, struct kmp_layout *l)
{
	struct kmp_err err;
	Dwarf_Die cu;
	bool via = false;

	return kmp_dwarf_cu(v, addr, "", false, &cu, &via) && via &&
	       dwarf_cu_getdwarf(cu.cu) != v->dwarf && kmp_layout_load(v, addr, false, l, &err);
}

static void test_two_vmlinux(const char *a, const char *b)
{
	struct kmp_sym sa = { .name = "mempool_exit" }, sb = { .name = "mempool_exit" };
	struct kmp_layout la1 = { 0 }, lb = { 0 }, la2 = { 0 }, la3 = { 0 };
	struct kmp_vmlinux va, vb;
	struct kmp_err err;

	begin("two vmlinux files in one process: each reads its units alone, the other's "
	      "opening and closing change nothing");
	if (!kmp_vmlinux_open(&va, a, &err)) {
		CHECK(0, "cannot open %s: %s", a, err.msg);
		end();
		return;
	}
	if (!kmp_vmlinux_open(&vb, b, &err)) {
		CHECK(0, "cannot open %s: %s", b, err.msg);
		kmp_vmlinux_close(&va);
		end();
		return;
	}
	kmp_vmlinux_symbols(&va, &sa, 1);
	kmp_vmlinux_symbols(&vb, &sb, 1);
	CHECK(sa.found && sb.found, "no mempool_exit");
	/* The first file, after the second was opened; the second; the first again. */
	CHECK(unit_alone(&va, sa.addr, &la1), "%s: not from its unit alone with %s open", a, b);
	CHECK(unit_alone(&vb, sb.addr, &lb), "%s: not from its unit alone with %s open", b, a);
	CHECK(unit_alone(&va, sa.addr, &la2), "%s: not from its unit alone after %s's", a, b);
	CHECK(la1.pool_size && la1.pool_size == la2.pool_size && !la1.v6 && lb.v6,
	      "layouts: %s %" PRIu64 "/%" PRIu64 " v6 %d, %s v6 %d", a, la1.pool_size,
	      la2.pool_size, la1.v6, b, lb.v6);
	kmp_vmlinux_close(&vb);
	CHECK(unit_alone(&va, sa.addr, &la3) && la3.pool_size == la1.pool_size,
	      "%s: not from its unit alone after %s was closed", a, b);
	kmp_vmlinux_close(&va);
	end();
}

static void test_live(void)
{
	static const struct kmp_mem_ops ops = { .read = churn_read };
	unsigned long at, total, retried = 0, with1 = 0;
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	bool all_ok = true;

	begin("live: a pool destroyed or exited at any point of the walk is never half printed");
	/* How many reads does a quiet walk of 3 pools take? */
	{
		struct churn c = { &f, 0, 0, false, 1, false, 0, false };
		struct kmp_mem mem = { &ops, &c, true, false };

		fake_init(&f, 3);
		memset(&p, 0, sizeof(p));
		CHECK(status(kmp_read_pools(&mem, &L, HEAD_ADDR, &LIM, &p, &err), &err, true) == KMP_OK &&
		      p.n == 3 && p.attempts == 1, "quiet walk: %zu pools, %u attempts",
		      p.n, p.attempts);
		total = c.reads;
		kmp_pools_free(&p);
		fake_free(&f);
	}
	for (size_t victim = 1; victim <= 4; victim++) {
		for (at = 1; at <= total + 1; at++) {
			struct churn c = { &f, 0, at, false, (victim - 1) % 2 + 1, victim > 2, 0, false };
			struct kmp_mem mem = { &ops, &c, true, false };
			char want[16];
			int rc;

			fake_init(&f, 3);
			memset(&p, 0, sizeof(p));
			p.notes.note = note_capture;
			notes[0] = '\0';
			nnotes = 0;
			rc = status(kmp_read_pools(&mem, &L, HEAD_ADDR, &LIM, &p, &err), &err, true);
			/* Complete; the victim only whole, under its own name, if read before. */
			snprintf(want, sizeof(want), "pool-%zu", c.victim);
			for (size_t i = 0; i < p.n; i++)
				if (strncmp(p.v[i].name, "pool-", 5) ||
				    (p.n == 2 && !strcmp(p.v[i].name, want)))
					rc = -1;
			if (rc != KMP_OK || nnotes || p.n < 2 || p.n > 3 ||
			    strcmp(p.v[0].name, "pool-0")) {
				all_ok = false;
				CHECK(0, "pool %zu %s at read %lu: rc %d, %zu pools (%s, ...), "
				      "notes %s", c.victim, c.init ? "exited" : "destroyed", at, rc,
				      p.n, p.n ? p.v[p.n - 1].name : "", notes);
			}
			retried += p.attempts > 1;
			with1 += p.n == 3;
			kmp_pools_free(&p);
			fake_free(&f);
		}
	}
	CHECK(all_ok && retried > 0 && with1 > 0, "4 x %lu points: %lu retried, %lu read "
	      "before the pool went", total + 1, retried, with1);
	end();

	begin("live: a list that never settles ends as changed; a steady broken link is corrupt");
	{
		struct churn c = { &f, 0, 0, true, 1, false, 0, false };
		struct kmp_mem mem = { &ops, &c, true, false };

		fake_init(&f, 3);
		memset(&p, 0, sizeof(p));
		CHECK(status(kmp_read_pools(&mem, &L, HEAD_ADDR, &LIM, &p, &err), &err, true) ==
		      KMP_ECHANGED, "a flipping list: not exit 7");
		CHECK(err.kind == KMP_ERR_CHANGED && p.attempts == KMP_LIVE_ATTEMPTS,
		      "kind %s after %u attempts: %s", kmp_errkind_name(err.kind), p.attempts,
		      err.msg);
		CHECK(strstr(err.msg, "changed while it was read"), "message: %s", err.msg);
		kmp_pools_free(&p);
		fake_free(&f);
	}
	/* A live wait queue that cannot be walked, of a pool still listed: "?", changed. */
	{
		struct churn c = { &f, 0, 0, false, 1, false, 0, false };
		struct kmp_mem mem = { &ops, &c, true, false };

		fake_init(&f, 3);
		put_at(pool_bytes(&f, 1), L.wait.off + L.wqh_head.off + L.lh_next.off, 8, 0);
		memset(&p, 0, sizeof(p));
		p.notes.note = note_capture;
		notes[0] = '\0';
		nnotes = 0;
		CHECK(status(kmp_read_pools(&mem, &L, HEAD_ADDR, &LIM, &p, &err), &err, true) ==
		      KMP_ECHANGED && err.kind == KMP_ERR_CHANGED && p.n == 3 && p.v[1].waiting_unknown &&
		      !p.v[0].waiting_unknown && strstr(err.msg, "changed while read") &&
		      nnotes == 1, "an uncountable live wait queue: kind %s, %zu pools, %d notes: %s",
		      kmp_errkind_name(err.kind), p.n, nnotes, err.msg);
		kmp_pools_free(&p);
		fake_free(&f);
	}
	/* A link that is broken the same way in every walk is corrupt, live too. */
	{
		struct churn c = { &f, 0, 0, false, 1, false, 0, false };
		struct kmp_mem mem = { &ops, &c, true, false };

		fake_init(&f, 3);
		set_prev(&f, pool_node(2), pool_node(0));
		memset(&p, 0, sizeof(p));
		CHECK(status(kmp_read_pools(&mem, &L, HEAD_ADDR, &LIM, &p, &err), &err, true) != KMP_OK &&
		      err.kind == KMP_ERR_CORRUPT && p.attempts == KMP_LIVE_ATTEMPTS &&
		      strstr(err.msg, "broken prev link") && strstr(err.msg, "the same in 8 walks"),
		      "a steady broken link, live: kind %s after %u walks: %s",
		      kmp_errkind_name(err.kind), p.attempts, err.msg);
		/* The pools before the break are reported, as in a dump. */
		CHECK(p.n == 2 && !strcmp(p.v[0].name, "pool-0") && !strcmp(p.v[1].name, "pool-1"),
		      "a steady broken link, live: %zu pools before it", p.n);
		kmp_pools_free(&p);
		fake_free(&f);
	}
	/* The same broken link in a dump is corruption, reported at once. */
	fake_init(&f, 3);
	set_prev(&f, pool_node(2), pool_node(0));
	memset(&p, 0, sizeof(p));
	CHECK(status(kmp_read_pools(&f.mem, &L, HEAD_ADDR, &LIM, &p, &err), &err, true) != KMP_OK &&
	      err.kind == KMP_ERR_CORRUPT && p.attempts == 1,
	      "the same in a dump: kind %s, %u attempts: %s", kmp_errkind_name(err.kind),
	      p.attempts, err.msg);
	kmp_pools_free(&p);
	fake_free(&f);
	end();
}

/* kmp_json_string(@s) is @want. */
static bool json_of(const char *s, const char *want)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&text, &len);
	bool same;

	kmp_json_string(mf, s);
	fclose(mf);
	same = !strcmp(text, want);
	if (!same)
		printf("  json of %s: %s, want %s\n", s, text, want);
	free(text);
	return same;
}

static void test_json_escape(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&text, &len);

	begin("JSON string escaping");
	kmp_json_string(mf, "a\"b\\c\n\x01\xff");
	fclose(mf);
	CHECK(!strcmp(text, "\"a\\\"b\\\\c\\u000a\\u0001\\u00ff\""), "got %s", text);
	free(text);
	/* Valid UTF-8 is read as UTF-8, anything else byte by byte as ISO 8859-1. */
	CHECK(json_of("caf\xc3\xa9", "\"caf\\u00e9\""), "UTF-8 name");
	CHECK(json_of("\xe2\x82\xac \xf0\x9f\x98\x80", "\"\\u20ac \\ud83d\\ude00\""),
	      "3- and 4-byte UTF-8");
	CHECK(json_of("\xe2_\xac", "\"\\u00e2_\\u00ac\""), "a euro sign the kernel made '_'");
	CHECK(json_of("caf\xe9", "\"caf\\u00e9\""), "ISO 8859-1 name");
	CHECK(json_of("\xc0\x80", "\"\\u00c0\\u0080\""), "overlong NUL is not UTF-8");
	CHECK(json_of("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\""), "a surrogate is not UTF-8");
	CHECK(json_of("\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\""),
	      "above U+10FFFF is not UTF-8");
	CHECK(json_of("\xc3", "\"\\u00c3\""), "a sequence cut by the NUL");
	CHECK(json_of("\x7f", "\"\\u007f\""), "DEL");
	end();
}

static void test_states(void)
{
	begin("task states");
	CHECK(!strcmp(kmp_task_state(0), "R (running)"), "R");
	CHECK(!strcmp(kmp_task_state(1), "S (sleeping)"), "S");
	CHECK(!strcmp(kmp_task_state(2), "D (uninterruptible)"), "D");
	CHECK(!strcmp(kmp_task_state(0x402), "I (idle)"), "I");
	CHECK(!strcmp(kmp_task_state(0x80), "? (unknown)"), "?");
	end();
}

/* ------------------------------------------------------------------ */
/* The panic message from a synthetic printk ring buffer. */

#define RB_ADDR		0xffff888080000000ULL
#define DESCS_ADDR	0xffff888080001000ULL
#define INFOS_ADDR	0xffff888080002000ULL
#define DATA_ADDR	0xffff888080004000ULL
#define RB_COUNT_BITS	3
#define RB_SIZE_BITS	8

struct ring_img {
	struct memimg img;
	struct kmp_mem mem;
	unsigned char *rb, *descs, *infos, *data;
	unsigned long lpos;
};

static void rb_init(struct ring_img *r, uint64_t prb_sym)
{
	struct printk_ringbuffer rb = { 0 };
	uint64_t ptr = RB_ADDR;

	memimg_init(&r->img, &r->mem);
	memcpy(memimg_add(&r->img, prb_sym, 8), &ptr, 8);
	r->rb = memimg_add(&r->img, RB_ADDR, sizeof(rb));
	r->descs = memimg_add(&r->img, DESCS_ADDR, sizeof(struct prb_desc) << RB_COUNT_BITS);
	r->infos = memimg_add(&r->img, INFOS_ADDR, sizeof(struct printk_info) << RB_COUNT_BITS);
	r->data = memimg_add(&r->img, DATA_ADDR, 1UL << RB_SIZE_BITS);
	rb.desc_ring.count_bits = RB_COUNT_BITS;
	rb.desc_ring.descs = (struct prb_desc *)(uintptr_t)DESCS_ADDR;
	rb.desc_ring.infos = (struct printk_info *)(uintptr_t)INFOS_ADDR;
	rb.text_data_ring.size_bits = RB_SIZE_BITS;
	rb.text_data_ring.data = (char *)(uintptr_t)DATA_ADDR;
	memcpy(r->rb, &rb, sizeof(rb));
	r->lpos = 0;
}

static void rb_set_ids(struct ring_img *r, unsigned long tail, unsigned long head)
{
	struct printk_ringbuffer *rb = (struct printk_ringbuffer *)r->rb;

	rb->desc_ring.tail_id.counter = (long)tail;
	rb->desc_ring.head_id.counter = (long)head;
}

/* Append record @id with @text (no NUL, as the kernel stores it). */
static void rb_add(struct ring_img *r, unsigned long id, const char *text, unsigned long state)
{
	size_t len = strlen(text), size = (sizeof(unsigned long) + len + 7) & ~7UL;
	unsigned long ring = 1UL << RB_SIZE_BITS, begin = r->lpos, next, off;
	struct prb_desc *d = (struct prb_desc *)r->descs + (id & ((1 << RB_COUNT_BITS) - 1));
	struct printk_info *in = (struct printk_info *)r->infos + (id & ((1 << RB_COUNT_BITS) - 1));
	struct prb_data_block *blk;

	if ((begin % ring) + size > ring) {	/* wrap: the block starts the ring */
		next = (begin / ring + 1) * ring + size;
		off = 0;
	} else {
		next = begin + size;
		off = begin % ring;
	}
	blk = (struct prb_data_block *)(r->data + off);
	blk->id = id;
	memcpy(blk->data, text, len);
	d->state_var.counter = (long)((state << 62) | id);
	d->text_blk_lpos.begin = begin;
	d->text_blk_lpos.next = next;
	in->text_len = (unsigned short)len;
	r->lpos = next;
}

static void test_panic(const char *vmlinux)
{
	struct kmp_sym sym[2] = { { .name = "prb" }, { .name = "prb_read_valid" } };
	struct kmp_vmlinux v;
	struct kmp_err err;
	struct ring_img r;
	char out[256];
	int rc;

	begin("panic message from the printk ring buffer (newest, wrapped, stale)");
	if (!kmp_vmlinux_open(&v, vmlinux, &err)) {
		CHECK(0, "open: %s", err.msg);
		end();
		return;
	}
	kmp_vmlinux_symbols(&v, sym, 2);
	CHECK(sym[0].found && sym[1].found, "symbols prb, prb_read_valid");
	rb_init(&r, sym[0].addr);
	rb_add(&r, 21, "Booting the test kernel, with a first line that is long enough to push the fourth record past the ring end", 2);
	rb_add(&r, 22, "Kernel panic - not syncing: the older one", 2);
	rb_add(&r, 23, "some line", 2);
	/* This one does not fit before the end of the 256-byte ring: wraps. */
	rb_add(&r, 24, "Kernel panic - not syncing: hung_task: blocked tasks", 1);
	rb_add(&r, 25, "CPU: 0 PID: 22 Comm: khungtaskd", 2);
	rb_set_ids(&r, 21, 25);
	CHECK(r.lpos > 256, "the test did not wrap the ring (lpos %lu)", r.lpos);
	rc = kmp_find_panic(&v, &r.mem, sym[0].addr, sym[1].addr, false, out, sizeof(out),
			    &err);
	CHECK(rc == 1 && !strcmp(out, "Kernel panic - not syncing: hung_task: blocked tasks"),
	      "rc %d out [%s] err %s", rc, out, rc < 0 ? err.msg : "");

	/* A descriptor whose id does not match is a stale slot: skipped. */
	((struct prb_desc *)r.descs)[24 & 7].state_var.counter = (long)((2UL << 62) | 16);
	rc = kmp_find_panic(&v, &r.mem, sym[0].addr, sym[1].addr, false, out, sizeof(out),
			    &err);
	CHECK(rc == 1 && !strcmp(out, "Kernel panic - not syncing: the older one"),
	      "stale slot: rc %d out [%s]", rc, out);
	/* A reserved (not yet committed) record is not read. */
	((struct prb_desc *)r.descs)[22 & 7].state_var.counter = (long)((0UL << 62) | 22);
	rc = kmp_find_panic(&v, &r.mem, sym[0].addr, sym[1].addr, false, out, sizeof(out),
			    &err);
	CHECK(rc == 0 && out[0] == '\0', "no panic: rc %d out [%s]", rc, out);
	memimg_free(&r.img);

	/* prb points nowhere: an error, not a crash. */
	memimg_init(&r.img, &r.mem);
	rc = kmp_find_panic(&v, &r.mem, sym[0].addr, sym[1].addr, false, out, sizeof(out),
			    &err);
	CHECK(rc == -1 && strstr(err.msg, "cannot read prb"), "rc %d: %s", rc, err.msg);
	memimg_free(&r.img);
	kmp_vmlinux_close(&v);
	end();
}

static void test_vmcoreinfo(void)
{
	static const struct {
		const char *text, *bad;
	} cases[] = {
		{ "KERNELOFFSET=zz\n", "KERNELOFFSET=zz: not a hexadecimal" },
		{ "KERNELOFFSET=1f0000x\n", "KERNELOFFSET=1f0000x: not a hexadecimal" },
		{ "KERNELOFFSET=\n", "KERNELOFFSET=: not a hexadecimal number of 1 to 16" },
		{ "KERNELOFFSET=12345678901234567\n", "of 1 to 16 digits" },
		{ "CRASHTIME=17x\n", "CRASHTIME=17x: not a decimal" },
		{ "CRASHTIME=-\n", "CRASHTIME=-: not a decimal number of 1 to 18" },
		{ "BUILD-ID=a\n", "BUILD-ID=a: not an even number" },
		{ "BUILD-ID=abc\n", "BUILD-ID=abc: not an even number" },
		{ "BUILD-ID=0123456g\n", "BUILD-ID=0123456g: not hexadecimal" },
		{ "OSRELEASE=../x\n", "OSRELEASE=../x: not printable, or holds white space or '/'" },
		{ "OSRELEASE=6.1..0\n", "OSRELEASE=6.1..0: holds \"..\"" },
		{ "OSRELEASE=\n", "OSRELEASE=: not 1 to 64" },
		{ "OSRELEASE=6.1\x01\n", "OSRELEASE=6.1?: not printable" },
	};
	struct kmp_vmcoreinfo vi;

	begin("VMCOREINFO: strict numbers, build IDs and releases; the first bad line named");
	kmp_vmcoreinfo_parse("OSRELEASE=6.1.0-26-amd64\nBUILD-ID=9D91F87853f57eb7a321c1746a234c054d886b0e\n"
			     "KERNELOFFSET=e400000\nCRASHTIME=1796277309\nOTHER=x y\n", &vi);
	CHECK(!vi.bad[0] && !strcmp(vi.osrelease, "6.1.0-26-amd64") &&
	      !strcmp(vi.build_id, "9d91f87853f57eb7a321c1746a234c054d886b0e") &&
	      vi.have_kerneloffset && vi.kerneloffset == 0xe400000 && vi.have_crashtime &&
	      vi.crashtime == 1796277309, "good text: bad [%s] rel %s id %s", vi.bad,
	      vi.osrelease, vi.build_id);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		kmp_vmcoreinfo_parse(cases[i].text, &vi);
		CHECK(strstr(vi.bad, cases[i].bad), "%s: bad [%s]", cases[i].text, vi.bad);
	}
	kmp_vmcoreinfo_parse("KERNELOFFSET=zz\nCRASHTIME=x\n", &vi);
	CHECK(strstr(vi.bad, "KERNELOFFSET") && !vi.have_kerneloffset, "first bad line: %s", vi.bad);
	kmp_vmcoreinfo_parse(NULL, &vi);
	CHECK(!vi.bad[0] && !vi.osrelease[0], "NULL text");
	end();

	begin("VMCOREINFO: known-garbage build IDs of stable releases are ignored");
	kmp_vmcoreinfo_parse("OSRELEASE=6.1.115\nBUILD-ID=zz\n", &vi);
	CHECK(!vi.bad[0] && vi.build_id_ignored && !vi.build_id[0], "6.1.115: bad [%s]", vi.bad);
	kmp_vmcoreinfo_parse("BUILD-ID=0011223344556677\nOSRELEASE=6.6.58-1-amd64\n", &vi);
	CHECK(!vi.bad[0] && vi.build_id_ignored && !vi.build_id[0], "6.6.58 (BUILD-ID first)");
	kmp_vmcoreinfo_parse("OSRELEASE=6.1.119\nBUILD-ID=zz\n", &vi);
	CHECK(vi.bad[0] && !vi.build_id_ignored, "6.1.119 is fixed: must be strict");
	CHECK(kmp_build_id_known_broken("5.15.170") && kmp_build_id_known_broken("6.1.113") &&
	      kmp_build_id_known_broken("6.1.118-rt") && !kmp_build_id_known_broken("6.1.112") &&
	      !kmp_build_id_known_broken("6.1.1130") && !kmp_build_id_known_broken("6.10.5") &&
	      !kmp_build_id_known_broken("6.1.0-27-amd64") && !kmp_build_id_known_broken(""),
	      "release ranges");
	CHECK(kmp_build_id_known_broken_banner("Linux version 6.1.0-27-amd64 (debian-kernel@lists."
					       "debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.1.115-1 "
					       "(2024-11-01)") &&
	      !kmp_build_id_known_broken_banner("Linux version 6.1.0-26-amd64 (d) #1 SMP Debian "
						"6.1.112-1 (2024-09-30)") &&
	      kmp_build_id_known_broken_banner("Linux version 6.6.60 (x@y) #1"),
	      "banners");
	end();
}

/*
 * The one table of pieces and their alternatives (kpieces.c): every piece
 * has two or more, numbered from 0 without a gap, each row named; the
 * waiter's functions fill the kernel's slots exactly; the lists the
 * errors and the README print name every alternative, in bounds.
 */
static void test_kpieces(void)
{
	char buf[600], small[12];

	begin("the one table of kernel alternatives: complete, and what errors and README list");
	for (int p = 0; p < KP_N; p++) {
		unsigned int n = kmp_piece_nalts((enum kmp_piece)p);

		CHECK(n >= 2 && n <= 8, "piece %d has %u alternatives", p, n);
		for (unsigned int a = 0; a < n; a++) {
			bool rows = false;

			for (size_t i = 0; i < kmp_nkalts; i++)
				rows |= kmp_kalts[i].piece == (enum kmp_piece)p && kmp_kalts[i].alt == a;
			CHECK(rows, "piece %d: alternative %u has no row", p, a);
		}
		CHECK(strcmp(kmp_piece_title((enum kmp_piece)p), "?"), "piece %d has no title", p);
	}
	for (size_t i = 0; i < kmp_nkalts; i++)
		CHECK(kmp_kalts[i].name[0] && kmp_kalts[i].shown[0], "row %zu is unnamed", i);
	CHECK(kmp_piece_nalts(KP_WAITFN) == KMP_WAITFN_MAX, "%u functions a waiter sleeps in, %d slots",
	      kmp_piece_nalts(KP_WAITFN), KMP_WAITFN_MAX);
	kmp_piece_list(KP_WAITFN, false, buf, sizeof(buf));
	CHECK(strstr(buf, "mempool_alloc() (to 6.9)") && strstr(buf, "mempool_alloc_noprof()") &&
	      strstr(buf, "mempool_alloc_from_pool()") && strstr(buf, "mempool_alloc_bulk_noprof()") &&
	      !strchr(buf, '`'), "the error's list: %s", buf);
	kmp_piece_list(KP_THREADS, true, buf, sizeof(buf));
	CHECK(!strcmp(buf, "`task_struct.thread_group` (to 6.6); `signal->thread_head` + "
		      "`task_struct.thread_node` (6.7 on)"), "the README's row: %s", buf);
	memset(small, 'x', sizeof(small));
	kmp_piece_list(KP_SLAB_TEST, true, small, 8);
	CHECK(strlen(small) == 7 && small[8] == 'x', "truncated: \"%.12s\"", small);
	CHECK(kmp_piece_list(KP_POOL, false, small, 0) == small && small[0] == '`',
	      "size 0 writes nothing");
	end();
}

static void test_layout_check(void)
{
	struct kmp_layout l = L;
	struct kmp_err err;

	begin("DWARF layout sanity: fields inside mempool_s, integer sizes, bounded struct size");
	CHECK(kmp_layout_check(&L, "v", &err), "the test object's layout: %s", err.msg);
	l.pool_size = 16;
	CHECK(!kmp_layout_check(&l, "v", &err) && strstr(err.msg, "outside the struct's 16 bytes"),
	      "small struct: %s", err.msg);
	l = L;
	l.pool_size = 0;
	CHECK(!kmp_layout_check(&l, "v", &err) && strstr(err.msg, "implausible size"), "size 0");
	l.pool_size = KMP_MAX_STRUCT + 1;
	CHECK(!kmp_layout_check(&l, "v", &err), "size above 64 KiB");
	l = L;
	l.name.off = UINT64_MAX - 4;
	CHECK(!kmp_layout_check(&l, "v", &err) && strstr(err.msg, "mempool_s.name"), "wrapping offset");
	l = L;
	l.min_nr.size = 3;
	CHECK(!kmp_layout_check(&l, "v", &err) && strstr(err.msg, "not an integer"), "3-byte int");
	l = L;
	l.lh_next.size = 0;
	CHECK(!kmp_layout_check(&l, "v", &err), "0-byte list pointer");
	l = L;
	l.task_comm.off = 1ULL << 40;
	CHECK(!kmp_layout_check(&l, "v", &err) && strstr(err.msg, "task_struct.comm"), "comm offset");
	/* Members the checks used to leave out: mempool_s.elements, alloc; members of members. */
	l = L;
	l.elements.off = L.pool_size;
	CHECK(!kmp_layout_check(&l, "v", &err) && strstr(err.msg, "mempool_s.elements (offset"),
	      "elements past the struct: %s", err.msg);
	l = L;
	l.alloc.size = 4;
	CHECK(!kmp_layout_check(&l, "v", &err) && strstr(err.msg, "mempool_s.alloc") &&
	      strstr(err.msg, "a pointer's"), "4-byte alloc pointer: %s", err.msg);
	l = L;
	l.lh_prev.off = 0x1000;
	kmp_layout_compose(&l);
	CHECK(!kmp_layout_check(&l, "v", &err) && strstr(err.msg, "list.prev (offset"),
	      "list_head.prev past its struct: %s", err.msg);
	l = L;
	l.list.off = L.pool_size - 8;
	l.list.size = 8;
	kmp_layout_compose(&l);
	CHECK(!kmp_layout_check(&l, "v", &err), "an 8-byte mempool_s.list accepted");
	l.list.size = 16;
	CHECK(!kmp_layout_check(&l, "v", &err) && strstr(err.msg, "mempool_s.list"),
	      "mempool_s.list over the struct's end: %s", err.msg);
	l = L;
	l.task_size = 0;
	CHECK(!kmp_layout_check(&l, "v", &err) && strstr(err.msg, "size of struct task_struct"),
	      "task_struct without a size: %s", err.msg);
	end();

	begin("the list walk refuses a layout whose member lies past the struct, reads nothing");
	{
		struct kmp_pools p = { 0 };
		struct fake f;

		fake_init(&f, 2);
		l = L;
		l.nr_fail = l.nr_empty = L.nr_wait;
		l.nr_empty.off = L.pool_size + 64;
		kmp_layout_compose(&l);		/* the fields' names */
		CHECK(!kmp_read_pools(&f.mem, &l, HEAD_ADDR, &LIM, &p, &err) &&
		      err.kind == KMP_ERR_FORMAT && strstr(err.msg, "mempool_s.nr_empty") &&
		      p.n == 0, "kind %s, %zu pools: %s", kmp_errkind_name(err.kind), p.n,
		      err.msg);
		kmp_pools_free(&p);
		fake_free(&f);
	}
	end();
}

static void test_name_rule(void)
{
	char why[128], comm[32];

	begin("name rule and comm cleaning");
	CHECK(kmp_name_ok("dm-crypt_req", 12, why, sizeof(why)), "plain name");
	CHECK(kmp_name_ok("kmp_test:kmp_test_init", 22, why, sizeof(why)), "object:function");
	CHECK(!kmp_name_ok("", 0, why, sizeof(why)) && !strcmp(why, "is empty"), "empty");
	CHECK(!kmp_name_ok("a b", 3, why, sizeof(why)) && strstr(why, "0x20 at offset 1"), "%s", why);
	CHECK(!kmp_name_ok("a\x80", 2, why, sizeof(why)) && strstr(why, "0x80"), "%s", why);
	/* The kernel's table (tests/kernel_ctype.sh compares with a kernel tree's). */
	for (int c = 0; c < 256; c++) {
		bool print = (c >= 0x20 && c <= 0x7e) || c >= 0xa0;
		bool space = (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0;
		char one = (char)c;

		CHECK(kmp_kernel_isprint((unsigned char)c) == print, "isprint(0x%02x)", c);
		CHECK(kmp_kernel_isspace((unsigned char)c) == space, "isspace(0x%02x)", c);
		CHECK(kmp_name_byte_ok((unsigned char)c) == (print && !space), "kept(0x%02x)", c);
		CHECK(kmp_name_ok(&one, 1, why, sizeof(why)) == (print && !space), "name 0x%02x", c);
	}
	CHECK(kmp_name_ok("caf\xc3\xa9", 5, why, sizeof(why)), "a UTF-8 name: %s", why);
	CHECK(!kmp_name_ok("a\xa0" "b", 3, why, sizeof(why)) && strstr(why, "0xa0 at offset 1"),
	      "no-break space: %s", why);
	snprintf(comm, sizeof(comm), "kworker/0:1 \x1b[31m\n\x7f");
	kmp_comm_clean(comm);
	CHECK(!strcmp(comm, "kworker/0:1 ?[31m??"), "comm: %s", comm);
	end();
}

/* The notes callbacks (kmp.h): formatted, dropped without a callback, progress only if shown. */
static char got_note[256], got_progress[256];
static size_t got_len;

static void take_note(const char *msg, void *arg)
{
	got_len = strlen(msg);
	snprintf(got_note, sizeof(got_note), "%s|%s", (const char *)arg, msg);
}

static void take_progress(const char *msg, void *arg)
{
	snprintf(got_progress, sizeof(got_progress), "%s|%s", (const char *)arg, msg);
}

static void test_notes(void)
{
	struct kmp_notes quiet = { 0 }, lines = { take_note, NULL, "a" },
			 both = { take_note, take_progress, "b" };
	char long_msg[KMP_ERRLEN + 100];

	begin("notes go to the caller's callbacks, progress only where it is shown");
	kmp_note(NULL, "dropped %d", 1);
	kmp_note(&quiet, "dropped %d", 2);
	kmp_progress(&lines, "not shown %d", 3);
	CHECK(!got_note[0] && !got_progress[0], "note '%s', progress '%s'", got_note, got_progress);
	CHECK(!kmp_progress_shown(NULL) && !kmp_progress_shown(&lines) && kmp_progress_shown(&both),
	      "kmp_progress_shown()");
	kmp_note(&lines, "pool %s at 0x%x", "x", 0x10);
	CHECK(!strcmp(got_note, "a|pool x at 0x10"), "note: '%s'", got_note);
	kmp_progress(&both, "%d of %d MB", 1, 2);
	CHECK(!strcmp(got_progress, "b|1 of 2 MB"), "progress: '%s'", got_progress);
	/* A note may quote a whole error message: it is not cut at KMP_ERRLEN. */
	memset(long_msg, 'e', sizeof(long_msg) - 1);
	long_msg[sizeof(long_msg) - 1] = '\0';
	kmp_note(&lines, "x: %s", long_msg);
	CHECK(got_len == 3 + sizeof(long_msg) - 1, "long note: %zu bytes", got_len);
	end();
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: unit FAKE_VMLINUX FAKE_VMLINUX_TYPES FAKE_VMLINUX_V6\n");
		return 2;
	}
	test_layout(argv[1]);
	test_dwarf_unit(argv[1], argv[2]);
	test_two_vmlinux(argv[1], argv[3]);
	test_empty();
	test_one();
	test_many();
	test_cycle();
	test_brent();
	test_broken();
	test_names();
	test_version();
	test_format12();
	test_waiters();
	test_live();
	test_live_reads();
	test_readcache_holes();
	test_counters();
	test_exit_statuses(argv[1]);
	test_json_escape();
	test_row_format();
	test_states();
	test_panic(argv[1]);
	test_vmcoreinfo();
	test_layout_check();
	test_kpieces();
	test_name_rule();
	test_notes();
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
