// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of series v6's path (Linux 7.2): the layout of a v6-shaped
 * kernel from DWARF (fake_kernel_v6.c), pools whose names come from code
 * tags, type and size derived from alloc, waiters told by their wake
 * function, the rows byte for byte as mempool_seq_show() prints them
 * (the expected lines are written out here, not computed by the code
 * under test), JSON, and crafted bad input.  The last line is
 * "unit-v6: N passed, N failed".
 *
 *   unit-v6 FAKE_VMLINUX_V6
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_kernel_v6.h"
#include "layout_check.h"
#include "memimg.h"
#include "pools.h"
#include "report.h"
#include "tagname.h"
#include "vmlinux.h"

#include "check.h"

#define HEAD_ADDR	0xffffffff82a01000ULL
#define JIFFIES_ADDR	0xffffffff82b00000ULL
#define POOL_BASE	0xffff888004000000ULL
#define TAG_BASE	0xffff888005000000ULL
#define CACHE_ADDR	0xffff888006000000ULL
#define STR_BASE	0xffff888010000000ULL
#define TASK_BASE	0xffff888020000000ULL
#define WAITER_BASE	0xffff888030000000ULL
#define POOL_STRIDE	0x200ULL
#define TAG_STRIDE	0x100ULL
#define WAITER_STRIDE	0x100ULL
#define STR_SIZE	0x10000ULL
#define NOW		1000000ULL
#define HZ		250

static struct kmp_layout L;
static struct kmp_v6fns FNS;
static const struct kmp_limits LIM = { 100000, 100000 };

struct fake {
	struct memimg img;
	struct kmp_mem mem;
	unsigned char *head, *pools, *tags, *strs, *tasks, *waiters, *cache, *jiffies;
	size_t npools, strused;
};

static void put(unsigned char *base, const struct kmp_field *f, uint64_t v)
{
	for (uint64_t i = 0; i < f->size; i++)
		base[f->off + i] = (unsigned char)(v >> (8 * i));
}

static void put_at(unsigned char *base, uint64_t off, uint64_t size, uint64_t v)
{
	const struct kmp_field f = { .off = off, .size = size, .ok = true };

	put(base, &f, v);
}

static uint64_t pool_addr(size_t i) { return POOL_BASE + i * POOL_STRIDE; }
static uint64_t tag_addr(size_t i) { return TAG_BASE + i * TAG_STRIDE; }
static unsigned char *pool_bytes(struct fake *f, size_t i) { return f->pools + i * POOL_STRIDE; }
static unsigned char *tag_bytes(struct fake *f, size_t i) { return f->tags + i * TAG_STRIDE; }

/* A NUL-terminated string in the image; 0 for NULL. */
static uint64_t str(struct fake *f, const char *s)
{
	size_t n;
	uint64_t a;

	if (!s)
		return 0;
	n = strlen(s) + 1;
	if (f->strused + n > STR_SIZE)
		abort();
	memcpy(f->strs + f->strused, s, n);
	a = STR_BASE + f->strused;
	f->strused += n;
	return a;
}

struct spec {
	const char *name, *kind, *function, *modname, *file;
	uint64_t line;
	uint64_t alloc, pool_data;
	int min_nr, curr_nr, low_nr;
	uint64_t nr_reserve, nr_wait, nr_fail, nr_empty;
	const char *instance;
};

static void set_pool(struct fake *f, size_t i, const struct spec *s)
{
	unsigned char *p = pool_bytes(f, i), *t = tag_bytes(f, i);
	uint64_t wq = pool_addr(i) + L.wait_head.off;

	put(t, &L.mtag_name, str(f, s->name));
	put(t, &L.mtag_kind, str(f, s->kind));
	put(t, &L.mtag_function, str(f, s->function));
	put(t, &L.mtag_modname, str(f, s->modname));
	put(t, &L.mtag_filename, str(f, s->file));
	put(t, &L.mtag_lineno, s->line);
	put(p, &L.tag, tag_addr(i));
	put(p, &L.instance, str(f, s->instance));
	put(p, &L.alloc, s->alloc);
	put(p, &L.pool_data, s->pool_data);
	put(p, &L.min_nr, (uint64_t)(int64_t)s->min_nr);
	put(p, &L.curr_nr, (uint64_t)(int64_t)s->curr_nr);
	put(p, &L.low_nr, (uint64_t)(int64_t)s->low_nr);
	put(p, &L.nr_reserve, s->nr_reserve);
	put(p, &L.nr_wait, s->nr_wait);
	put(p, &L.nr_fail, s->nr_fail);
	put(p, &L.nr_empty, s->nr_empty);
	put_at(p, L.wait_head.off + L.lh_next.off, 8, wq);
	put_at(p, L.wait_head.off + L.lh_prev.off, 8, wq);
}

/* Link pools 0..n-1 on the list at HEAD_ADDR. */
static void link_pools(struct fake *f, size_t n)
{
	for (size_t i = 0; i <= n; i++) {
		uint64_t node = i ? pool_addr(i - 1) + L.list.off : HEAD_ADDR;
		uint64_t next = i < n ? pool_addr(i) + L.list.off : HEAD_ADDR;
		unsigned char *nb = i ? pool_bytes(f, i - 1) + L.list.off : f->head;
		unsigned char *xb = i < n ? pool_bytes(f, i) + L.list.off : f->head;

		put(nb, &L.lh_next, next);
		put(xb, &L.lh_prev, node);
	}
	f->npools = n;
}

/*
 * The wait queue of pool @i: @n entries at waiter slots @first.., each a
 * struct mempool_waiter (wake function mempool_wake_function) waiting
 * since @since[k], or a foreign DEFINE_WAIT entry when since[k] is 0.
 */
static void set_queue(struct fake *f, size_t i, size_t first, size_t n, const uint64_t *since)
{
	uint64_t head = pool_addr(i) + L.wait_head.off, prev = head;
	unsigned char *pb = pool_bytes(f, i) + L.wait_head.off;

	for (size_t k = 0; k < n; k++) {
		size_t slot = first + k;
		uint64_t w = WAITER_BASE + slot * WAITER_STRIDE;
		uint64_t wqe = w + L.waiter_entry.off, node = wqe + L.wqe_entry.off;
		unsigned char *wb = f->waiters + slot * WAITER_STRIDE;
		unsigned char *eb = wb + L.waiter_entry.off;
		unsigned char *task = f->tasks + slot * 0x100;
		char comm[16];

		put_at(eb, L.wqe_func.off, 8, since[k] ? FNS.wake : 0x1000);
		put_at(eb, L.wqe_private.off, 8, TASK_BASE + slot * 0x100);
		put_at(eb, L.wqe_entry.off + L.lh_prev.off, 8, prev);
		put_at(wb, L.waiter_since.off, L.waiter_since.size, since[k]);
		put_at(task, L.task_pid.off, L.task_pid.size, 100 + slot);
		put_at(task, L.task_state.off, L.task_state.size, 2);
		snprintf(comm, sizeof(comm), "task%zu", slot);
		memcpy(task + L.task_comm.off, comm, strlen(comm) + 1);
		/* the previous node's next */
		if (prev == head)
			put_at(pb, L.lh_next.off, 8, node);
		else
			put_at(f->waiters + (prev - L.wqe_entry.off - L.waiter_entry.off - WAITER_BASE),
			       L.waiter_entry.off + L.wqe_entry.off + L.lh_next.off, 8, node);
		prev = node;
	}
	if (prev == head)
		return;
	put_at(f->waiters + (prev - L.wqe_entry.off - L.waiter_entry.off - WAITER_BASE),
	       L.waiter_entry.off + L.wqe_entry.off + L.lh_next.off, 8, head);
	put_at(pb, L.lh_prev.off, 8, prev);
}

static void fake_init(struct fake *f, size_t n)
{
	memset(f, 0, sizeof(*f));
	memimg_init(&f->img, &f->mem);
	f->head = memimg_add(&f->img, HEAD_ADDR, 64);
	f->jiffies = memimg_add(&f->img, JIFFIES_ADDR, 8);
	f->pools = memimg_add(&f->img, POOL_BASE, n * POOL_STRIDE);
	f->tags = memimg_add(&f->img, TAG_BASE, n * TAG_STRIDE);
	f->cache = memimg_add(&f->img, CACHE_ADDR, 256);
	f->strs = memimg_add(&f->img, STR_BASE, STR_SIZE);
	f->tasks = memimg_add(&f->img, TASK_BASE, 16 * 0x100);
	f->waiters = memimg_add(&f->img, WAITER_BASE, 16 * WAITER_STRIDE);
	put_at(f->jiffies, 0, 8, NOW);
	put(f->cache, &L.kc_object_size, 192);
}

/* The four pools of the table test (expected rows in test_rows()). */
static void fake_four(struct fake *f)
{
	static const uint64_t since[] = { NOW - 10 * HZ - 3, 0, NOW - 3 * HZ };
	const struct spec s[4] = {
		{ NULL, "bio", "bioset_init", NULL, "block/bio.c", 1812, FNS.alloc_slab,
		  CACHE_ADDR, 2, 2, 2, 0, 0, 0, 0, NULL },
		{ "dm-crypt_req", NULL, "crypt_ctr", "dm_crypt", "drivers/md/dm-crypt.c", 3349,
		  FNS.kmalloc, 592, 64, 64, 64, 5, 2, 1, 3, "dm-0" },
		{ "a b\\c\td", NULL, "kmp_v6_init", "kmp_v6", "x y.c", 7, FNS.alloc_pages, 2,
		  4, 0, 0, 9, 3, 0, 1, NULL },
		{ NULL, "bvec", "a_very_long_pool_name_for_the_padding_check", NULL,
		  "lib/sg_pool.c", 4294967295u, 0xffffffff81000000ULL, 77, 1, 1, 0,
		  4294967295u, 0, 0, 0, "md0" },
	};

	fake_init(f, 8);
	for (size_t i = 0; i < 4; i++)
		set_pool(f, i, &s[i]);
	set_queue(f, 2, 0, 3, since);
	link_pools(f, 4);
}

#define COLUMNS "# name                         type    elem_size min_nr curr_nr low_nr " \
	"from_reserve    waits waiting   failed  emptied oldest_wait owner instance site"
static const char HEADER[] = "mempool - version: 1.0\n" COLUMNS "\n";
static const char ROWS[] =
	"bioset_init:bio                slab          192      2       2      2            0        0       0        0        0           0 - - block/bio.c:1812\n"
	"dm-crypt_req                   kmalloc       592     64      64     64            5        2       0        1        3           0 dm_crypt dm-0 drivers/md/dm-crypt.c:3349\n"
	"a\\040b\\134c\\011d               page        16384      4       0      0            9        3       2        0        1          10 kmp_v6 - x\\040y.c:7\n"
	"a_very_long_pool_name_for_the_padding_check:bvec private         0      1       1      0   4294967295        0       0        0        0           0 - md0 lib/sg_pool.c:4294967295\n";

static char notes[8192];

static void note_capture(const char *msg, void *arg)
{
	size_t len = strlen(notes);

	(void)arg;
	snprintf(notes + len, sizeof(notes) - len, "%s\n", msg);
}

static bool read_all(struct fake *f, struct kmp_pools *out, struct kmp_err *err)
{
	memset(out, 0, sizeof(*out));
	out->notes.note = note_capture;
	out->clock.jiffies_addr = JIFFIES_ADDR;
	out->clock.jiffies_size = 8;
	out->clock.hz = HZ;
	out->clock.v6 = FNS;
	notes[0] = '\0';
	err->msg[0] = '\0';
	return kmp_read_pools(&f->mem, &L, HEAD_ADDR, &LIM, out, err);
}

/* The table as kmempool prints it, in a malloc'ed string. */
static char *table(const struct kmp_pools *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		abort();
	kmp_report_header_v6(m, "1.0", COLUMNS);
	for (size_t i = 0; i < p->n; i++)
		kmp_report_pool(m, &p->v[i]);
	fclose(m);
	return buf;
}

static void test_layout(const char *path)
{
	struct kmp_sym sym[] = { { .name = "mempool_exit" }, { .name = "mempool_alloc_slab" },
				 { .name = "mempool_kmalloc" }, { .name = "mempool_alloc_pages" },
				 { .name = "mempool_wake_function" } };
	struct kmp_vmlinux v;
	struct kmp_err err;

	begin("series v6 told by layout from DWARF; offsets match offsetof()");
	if (!kmp_vmlinux_open(&v, path, &err)) {
		CHECK(0, "cannot open %s: %s", path, err.msg);
		end();
		exit(1);
	}
	kmp_vmlinux_symbols(&v, sym, sizeof(sym) / sizeof(sym[0]));
	for (size_t i = 0; i < sizeof(sym) / sizeof(sym[0]); i++)
		CHECK(sym[i].found, "no symbol %s", sym[i].name);
	CHECK(kmp_layout_load(&v, sym[0].addr, false, &L, &err), "layout: %s", err.msg);
	CHECK(L.series && L.v6 && L.v12 && !strcmp(L.pool_struct, "mempool"),
	      "series %d v6 %d v12 %d struct %s", L.series, L.v6, L.v12, L.pool_struct);
	CHECK(!L.name.ok && !L.owner.ok && !L.type.ok && !L.elem_size.ok,
	      "v5 members found in a v6 pool");
#define OFF(field, type, member) \
	CHECK(L.field.ok && L.field.off == offsetof(type, member) && \
	      L.field.size == sizeof(((type *)0)->member), \
	      #field ": DWARF says off %" PRIu64 " size %" PRIu64 ", C says %zu/%zu", \
	      L.field.off, L.field.size, offsetof(type, member), sizeof(((type *)0)->member))
	CHECK(L.pool_size == sizeof(mempool_t), "pool size %" PRIu64, L.pool_size);
	OFF(tag, mempool_t, tag);
	OFF(instance, mempool_t, instance);
	OFF(low_nr, mempool_t, low_nr);
	OFF(nr_reserve, mempool_t, nr_reserve);
	OFF(nr_wait, mempool_t, nr_wait);
	OFF(nr_fail, mempool_t, nr_fail);
	OFF(nr_empty, mempool_t, nr_empty);
	OFF(alloc, mempool_t, alloc);
	OFF(pool_data, mempool_t, pool_data);
	OFF(mtag_name, struct mempool_tag, name);
	OFF(mtag_kind, struct mempool_tag, kind);
	OFF(mtag_ct, struct mempool_tag, ct);
	OFF(mtag_modname, struct mempool_tag, ct.modname);
	OFF(mtag_function, struct mempool_tag, ct.function);
	OFF(mtag_filename, struct mempool_tag, ct.filename);
	OFF(mtag_lineno, struct mempool_tag, ct.lineno);
	OFF(kc_object_size, struct kmem_cache, object_size);
	OFF(waiter_entry, struct mempool_waiter, entry);
	OFF(waiter_since, struct mempool_waiter, since);
	OFF(wqe_func, struct wait_queue_entry, func);
	CHECK(!strcmp(kmp_format_of_layout(&L), "1.0"), "format %s", kmp_format_of_layout(&L));
	FNS.alloc_slab = sym[1].addr;
	FNS.kmalloc = sym[2].addr;
	FNS.alloc_pages = sym[3].addr;
	FNS.wake = sym[4].addr;
	FNS.page_size = 4096;
	kmp_vmlinux_close(&v);
	end();
}

static void test_escape(void)
{
	char *e = kmp_escape_word(" a\tb\nc\vd\fe\rf\\g\x80h\xe9:,\"'");

	begin("escape: exactly space, \\t \\n \\v \\f \\r and backslash as \\ooo, other bytes raw");
	CHECK(e && !strcmp(e, "\\040a\\011b\\012c\\013d\\014e\\015f\\134g\x80h\xe9:,\"'"),
	      "got '%s'", e ? e : "(null)");
	free(e);
	e = kmp_escape_word("");
	CHECK(e && !*e, "empty string");
	free(e);
	/* The taking form: the same bytes; the string itself back when none needs escaping. */
	{
		char *plain = strdup("md0:\x80"), *spaced = strdup("a b"), *p0 = plain;

		plain = kmp_escape_word_take(plain);
		spaced = kmp_escape_word_take(spaced);
		CHECK(plain == p0 && !strcmp(plain, "md0:\x80"), "plain: '%s'", plain ? plain : "");
		CHECK(spaced && !strcmp(spaced, "a\\040b"), "spaced: '%s'", spaced ? spaced : "");
		free(plain);
		free(spaced);
	}
	for (int c = 1; c < 256; c++) {
		char s[2] = { (char)c, 0 }, want[8];

		e = kmp_escape_word(s);
		if (strchr(" \t\n\v\f\r\\", c))
			snprintf(want, sizeof(want), "\\%03o", (unsigned int)c);
		else
			snprintf(want, sizeof(want), "%c", c);
		CHECK(e && !strcmp(e, want), "byte 0x%02x: '%s', want '%s'", (unsigned int)c,
		      e ? e : "", want);
		free(e);
	}
	end();
}

static void test_rows(void)
{
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	char *t, *want;
	bool ok;

	begin("rows byte for byte: escaping, kind, padding, modname NULL, instance NULL, "
	      "slab/kmalloc/page/private, waiters by wake function, oldest_wait");
	fake_four(&f);
	ok = read_all(&f, &p, &err);
	CHECK(ok, "read: %s", err.msg);
	CHECK(!notes[0], "notes: %s", notes);
	t = table(&p);
	want = malloc(sizeof(HEADER) + sizeof(ROWS));
	snprintf(want, sizeof(HEADER) + sizeof(ROWS), "%s%s", HEADER, ROWS);
	CHECK(!strcmp(t, want), "table differs:\n--- got\n%s--- want\n%s", t, want);
	CHECK(p.n == 4 && p.v[2].waiting == 2 && p.v[2].oldest_wait == 10,
	      "pool 2: %" PRIu64 " waiting, oldest %" PRIu64, p.n > 2 ? p.v[2].waiting : 0,
	      p.n > 2 ? p.v[2].oldest_wait : 0);
	free(t);
	free(want);
	kmp_pools_free(&p);
	memimg_free(&f.img);
	end();
}

struct got_waiters {
	int n;
	int64_t pid[8];
	uint64_t waited[8];
};

static void collect_waiter(const struct kmp_waiter *w, void *arg)
{
	struct got_waiters *g = arg;

	if (g->n < 8) {
		g->pid[g->n] = w->pid;
		g->waited[g->n] = w->have_waited ? w->waited : 999;
	}
	g->n++;
}

static void test_waiters(void)
{
	struct kmp_clock clock = { JIFFIES_ADDR, 8, HZ, { 0 } };
	struct got_waiters g = { 0 };
	struct kmp_err err;
	struct fake f;

	begin("waiters: mempool_alloc() waiters only (a foreign DEFINE_WAIT entry skipped), "
	      "with their waits");
	fake_four(&f);
	clock.v6 = FNS;
	CHECK(kmp_read_waiters(&f.mem, &L, pool_addr(2), &LIM, &clock, collect_waiter, &g, &err),
	      "waiters: %s", err.msg);
	CHECK(g.n == 2 && g.pid[0] == 100 && g.pid[1] == 102 && g.waited[0] == 10 &&
	      g.waited[1] == 3, "%d waiters: pid %" PRId64 " (%" PRIu64 " s), pid %" PRId64
	      " (%" PRIu64 " s)", g.n, g.pid[0], g.waited[0], g.pid[1], g.waited[1]);
	memimg_free(&f.img);
	end();
}

static void test_json(void)
{
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	begin("JSON of a v6 pool: table's name, owner, instance; site, file, line, function, kind");
	fake_four(&f);
	CHECK(read_all(&f, &p, &err), "read: %s", err.msg);
	m = open_memstream(&buf, &len);
	for (size_t i = 0; m && i < p.n; i++) {
		kmp_json_pool(m, &p.v[i]);
		fputc('\n', m);
	}
	if (m)
		fclose(m);
	CHECK(buf && strstr(buf, "\"name\": \"bioset_init:bio\", \"type\": \"slab\", "
			    "\"elem_size\": 192,"), "%s", buf);
	CHECK(buf && strstr(buf, "\"owner\": null, \"failed\": 0, \"emptied\": 0, "
			    "\"oldest_wait\": 0, \"instance\": null, \"site\": "
			    "\"block/bio.c:1812\", \"file\": \"block/bio.c\", \"line\": 1812, "
			    "\"function\": \"bioset_init\", \"kind\": \"bio\"}"), "%s", buf);
	CHECK(buf && strstr(buf, "\"name\": \"a\\\\040b\\\\134c\\\\011d\""), "%s", buf);
	CHECK(buf && strstr(buf, "\"file\": \"x y.c\", \"line\": 7, \"function\": "
			    "\"kmp_v6_init\", \"kind\": null}"), "%s", buf);
	free(buf);
	kmp_pools_free(&p);
	memimg_free(&f.img);
	end();
}

/* One line, no newline inside: what kmempool prints before it exits. */
static bool one_line(const char *s)
{
	return s[0] && !strchr(s, '\n');
}

static void test_bad_tag(void)
{
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	bool ok;

	begin("bad input: a tag pointer that is not mapped stops the walk: one line, status 5");
	fake_four(&f);
	put(pool_bytes(&f, 1), &L.tag, 0xffff8880dead0000ULL);
	ok = read_all(&f, &p, &err);
	CHECK(status(ok, &err, true) == KMP_EPARTIAL && err.kind == KMP_ERR_UNMAPPED &&
	      one_line(err.msg) && strstr(err.msg, "mempool_tag at 0xffff8880dead0000"),
	      "status %d: %s", status(ok, &err, true), err.msg);
	CHECK(p.n == 1, "%zu pools before the bad one", p.n);
	kmp_pools_free(&p);
	memimg_free(&f.img);
	end();

	begin("bad input: a tag string without a NUL within its bound: pool left out, status 5");
	fake_four(&f);
	{
		/* a function name of KMP_TAGSTR_MAX bytes and no NUL */
		unsigned char *s = f.strs + f.strused;

		memset(s, 'x', KMP_TAGSTR_MAX + 64);
		put(tag_bytes(&f, 3), &L.mtag_function, STR_BASE + f.strused);
		f.strused += KMP_TAGSTR_MAX + 64;
	}
	ok = read_all(&f, &p, &err);
	CHECK(status(ok, &err, true) == KMP_EPARTIAL && err.kind == KMP_ERR_CORRUPT &&
	      one_line(err.msg) && p.n == 3, "status %d, %zu pools: %s", status(ok, &err, true), p.n,
	      err.msg);
	CHECK(strstr(notes, "mempool at 0xffff888004000600 left out as corrupt: its function "
		     "at 0x") && strstr(notes, "has no NUL within 4096 bytes"), "notes: %s", notes);
	kmp_pools_free(&p);
	memimg_free(&f.img);
	end();

	begin("bad input: NULL tag, NULL file name, page order out of range: each pool left out");
	fake_four(&f);
	put(pool_bytes(&f, 0), &L.tag, 0);
	put(tag_bytes(&f, 1), &L.mtag_filename, 0);
	put(pool_bytes(&f, 2), &L.pool_data, 64);
	ok = read_all(&f, &p, &err);
	CHECK(status(ok, &err, true) == KMP_EPARTIAL && p.n == 1 && one_line(err.msg) &&
	      strstr(err.msg, "3 mempool(s) left out as corrupt"), "status %d, %zu pools: %s",
	      status(ok, &err, true), p.n, err.msg);
	CHECK(strstr(notes, "it has no tag (NULL pointer)") &&
	      strstr(notes, "has no file name (NULL pointer)") &&
	      strstr(notes, "page order 64 is out of range"), "notes: %s", notes);
	kmp_pools_free(&p);
	memimg_free(&f.img);
	end();
}

static void test_bad_counters(void)
{
	static const int bad[][3] = { { 4, 5, 4 }, { 4, 2, 5 }, { 4, 2, -1 } };
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	bool ok;

	begin("bad input: counters breaking 0 <= curr_nr, low_nr <= min_nr: pool left out, "
	      "status 5");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fake_four(&f);
		put(pool_bytes(&f, 1), &L.min_nr, (uint64_t)(int64_t)bad[i][0]);
		put(pool_bytes(&f, 1), &L.curr_nr, (uint64_t)(int64_t)bad[i][1]);
		put(pool_bytes(&f, 1), &L.low_nr, (uint64_t)(int64_t)bad[i][2]);
		ok = read_all(&f, &p, &err);
		CHECK(status(ok, &err, true) == KMP_EPARTIAL && p.n == 3 && one_line(err.msg) &&
		      strstr(notes, "its counters break 0 <= curr_nr, low_nr <= min_nr") &&
		      strstr(notes, "name dm-crypt_req"), "case %zu: status %d, %zu pools: %s / %s",
		      i, status(ok, &err, true), p.n, err.msg, notes);
		kmp_pools_free(&p);
		memimg_free(&f.img);
	}
	end();
}

/*
 * Zero-minimum pools on the list (poolrule.h), by each kernel's rule: to
 * 6.16 the array is ZERO_SIZE_PTR and nothing is kept; from 6.17 (the
 * series' 7.2 base) an array of one slot, 0 or 1 element kept.
 */
static void test_zero_minimum(void)
{
	static const struct { uint64_t elements; int curr, low; bool ok; const char *want; } c[] = {
		{ 16, 0, 0, true, " 0       0      0 " },
		{ 16, 1, 0, false, "<= 0, a zero-minimum pool without slots" },
		{ 0xffff888012345600ULL, 1, 0, true, " 0       1      0 " },
		{ 0xffff888012345600ULL, 1, 1, true, " 0       1      1 " },
		{ 0xffff888012345600ULL, 0, 0, true, " 0       0      0 " },
		{ 0xffff888012345600ULL, 2, 1, false, "<= 1, a zero-minimum pool's one slot" },
	};
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	bool ok;

	begin("zero-minimum pools: min_nr 0 with curr_nr 1 listed where the array has a slot "
	      "(7.2), left out where it is ZERO_SIZE_PTR (to 6.16)");
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *t;

		fake_four(&f);
		put(pool_bytes(&f, 1), &L.min_nr, 0);
		put(pool_bytes(&f, 1), &L.elements, c[i].elements);
		put(pool_bytes(&f, 1), &L.curr_nr, (uint64_t)c[i].curr);
		put(pool_bytes(&f, 1), &L.low_nr, (uint64_t)c[i].low);
		ok = read_all(&f, &p, &err);
		if (c[i].ok) {
			t = table(&p);
			CHECK(status(ok, &err, true) == KMP_OK && p.n == 4 && !notes[0] &&
			      strstr(t, c[i].want), "case %zu: status %d, %zu pools, notes '%s':\n%s",
			      i, status(ok, &err, true), p.n, notes, t);
			free(t);
		} else {
			CHECK(status(ok, &err, true) == KMP_EPARTIAL && p.n == 3 &&
			      strstr(notes, c[i].want) && strstr(notes, "name dm-crypt_req"),
			      "case %zu: status %d, %zu pools: %s", i, status(ok, &err, true), p.n,
			      notes);
		}
		kmp_pools_free(&p);
		memimg_free(&f.img);
	}
	end();
}

static void test_format(void)
{
	struct kmp_err err;
	bool ok;

	begin("format: v6 1.0 with its column line known; another version or column line "
	      "refused in one line, status 6");
	CHECK(kmp_format_known_v6("1.0", COLUMNS), "its own column line is not known");
	CHECK(kmp_format_check_v6("1.0", COLUMNS, &err), "refused: %s", err.msg);
	ok = kmp_format_check_v6("1.1", COLUMNS, &err);
	CHECK(!ok && kmp_exit_status(&err, true) == KMP_EFORMAT && one_line(err.msg),
	      "1.1: %s", err.msg);
	ok = kmp_format_check_v6("1.0", COLUMNS " extra", &err);
	CHECK(!ok && kmp_exit_status(&err, true) == KMP_EFORMAT && one_line(err.msg),
	      "a column appended: %s", err.msg);
	ok = kmp_format_check_v6("1.0", "# name type", &err);
	CHECK(!ok && kmp_exit_status(&err, true) == KMP_EFORMAT && one_line(err.msg) &&
	      strstr(err.msg, "'# name type'"), "other columns: %s", err.msg);
	end();
}

/* A reader that rewrites tag 0 (its file and line) before serving its @nth read. */
struct retag {
	struct kmp_mem inner;
	struct fake *f;
	int reads, nth;
	uint64_t file;
};

static bool retag_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		       struct kmp_err *err)
{
	struct retag *r = mem->priv;

	if (addr == tag_addr(0) && ++r->reads == r->nth) {
		put(tag_bytes(r->f, 0), &L.mtag_filename, r->file);
		put(tag_bytes(r->f, 0), &L.mtag_lineno, 99);
	}
	return kmp_read(&r->inner, addr, buf, len, err);
}

/* Pools 0..n-1, each with its own instance; all on tag 0 when @shared, else each on its own. */
static void same_site(struct fake *f, size_t n, bool shared)
{
	const struct spec s = { "kmp_many", NULL, "kmp_many_init", "kmp_test", "kmp_test.c", 42,
				FNS.kmalloc, 64, 2, 2, 2, 0, 0, 0, 0, NULL };
	char inst[32];

	fake_init(f, n);
	for (size_t i = 0; i < n; i++) {
		struct spec si = s;

		snprintf(inst, sizeof(inst), "many%zu", i);
		si.instance = inst;
		set_pool(f, i, &si);
		if (shared)
			put(pool_bytes(f, i), &L.tag, tag_addr(0));
	}
	link_pools(f, n);
}

/*
 * Issue 21, item 8: pools made at one call site share a tag; a walk reads
 * its strings once, then only the tag's bytes, and reads them again when
 * those bytes changed.
 */
static void test_tag_cache(void)
{
	struct kmp_pools shared, own;
	struct kmp_err err;
	struct fake f;
	unsigned long rshared, rown;
	bool ok;

	begin("tags: pools of one call site read the tag's strings once a walk and share one "
	      "block of them; a tag whose bytes changed is read again");
	same_site(&f, 6, false);
	f.img.reads = 0;
	ok = read_all(&f, &own, &err);
	rown = f.img.reads;
	memimg_free(&f.img);
	same_site(&f, 6, true);
	f.img.reads = 0;
	CHECK(ok && read_all(&f, &shared, &err) && shared.n == 6 && own.n == 6, "walks: %s",
	      err.msg);
	rshared = f.img.reads;
	/* each of 5 pools: its name, function, file and module name not read again */
	CHECK(rown >= rshared + 5 * 4, "reads: %lu with a tag each, %lu with one tag", rown,
	      rshared);
	for (size_t i = 0; i < shared.n && i < own.n; i++)
		CHECK(!strcmp(shared.v[i].name, own.v[i].name) &&
		      !strcmp(shared.v[i].site, own.v[i].site) &&
		      !strcmp(shared.v[i].owner, own.v[i].owner) &&
		      !strcmp(shared.v[i].instance, own.v[i].instance),
		      "pool %zu: %s %s %s", i, shared.v[i].name, shared.v[i].site, shared.v[i].owner);
	/* One block of strings for the pools of a tag, not a copy a pool (live at scale). */
	for (size_t i = 1; i < shared.n && i < own.n; i++)
		CHECK(shared.v[i].tagstrs && shared.v[i].tagstrs == shared.v[0].tagstrs &&
		      shared.v[i].name == shared.v[0].name && shared.v[i].site == shared.v[0].site &&
		      own.v[i].tagstrs != own.v[0].tagstrs,
		      "pool %zu: one tag's strings at %p and %p, own tags' at %p and %p", i,
		      (void *)shared.v[0].name, (void *)shared.v[i].name, (void *)own.v[0].name,
		      (void *)own.v[i].name);
	kmp_pools_free(&shared);
	kmp_pools_free(&own);
	{
		struct retag r = { .inner = f.mem, .f = &f, .nth = 3 };
		static const struct kmp_mem_ops ops = { .read = retag_read };
		struct kmp_mem mem = { .ops = &ops, .priv = &r };

		r.file = str(&f, "other.c");
		memset(&shared, 0, sizeof(shared));
		shared.clock.jiffies_addr = JIFFIES_ADDR;
		shared.clock.jiffies_size = 8;
		shared.clock.hz = HZ;
		shared.clock.v6 = FNS;
		CHECK(kmp_read_pools(&mem, &L, HEAD_ADDR, &LIM, &shared, &err) && shared.n == 6,
		      "walk: %s", err.msg);
		CHECK(shared.n == 6 && !strcmp(shared.v[1].site, "kmp_test.c:42") &&
		      !strcmp(shared.v[2].site, "other.c:99") &&
		      !strcmp(shared.v[5].site, "other.c:99"), "sites: %s, %s, %s",
		      shared.n == 6 ? shared.v[1].site : "", shared.n == 6 ? shared.v[2].site : "",
		      shared.n == 6 ? shared.v[5].site : "");
		/* The tag read again is a block of its own; the pools before it keep theirs. */
		CHECK(shared.n == 6 && shared.v[1].tagstrs != shared.v[2].tagstrs &&
		      shared.v[2].tagstrs == shared.v[5].tagstrs, "blocks of the changed tag");
		kmp_pools_free(&shared);
	}
	memimg_free(&f.img);
	end();
}

/* The count of a queue that scan, triage and the stack search print: mempool_alloc()'s waiters only. */
static void test_queue_length(void)
{
	struct fake f;
	uint64_t n = 0, all = 0;

	begin("queue length: the foreign entry on a v6 pool's queue is not counted by the "
	      "searches' count either");
	fake_four(&f);
	CHECK(kmp_wait_queue_length(&f.mem, &L, pool_addr(2), FNS.wake, 100, &n) && n == 2,
	      "waiters by wake function: %" PRIu64, n);
	CHECK(kmp_wait_queue_length(&f.mem, &L, pool_addr(2), 0, 100, &all) && all == 3,
	      "every entry: %" PRIu64, all);
	memimg_free(&f.img);
	end();
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: unit-v6 FAKE_VMLINUX_V6\n");
		return 2;
	}
	test_layout(argv[1]);
	test_escape();
	test_rows();
	test_waiters();
	test_json();
	test_bad_tag();
	test_bad_counters();
	test_zero_minimum();
	test_format();
	test_tag_cache();
	test_queue_length();
	printf("unit-v6: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
