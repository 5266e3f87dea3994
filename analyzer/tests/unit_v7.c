// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of series v7's path (Linux 7.2): what v7 changed from v6
 * (unit_v6.c tests the rest): the layout with a 64-bit id per pool and
 * unsigned long counters, the format 1.1 row with the id appended, ':'
 * escaped in names and kinds, counters past 32 bits, and a /proc/mempool
 * reader's cursor (a pool with a NULL tag) on the list, skipped without a
 * note.  The expected lines are written out here.  The last line is
 * "unit-v7: N passed, N failed".
 *
 *   unit-v7 FAKE_VMLINUX_V7
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_kernel_v7.h"
#include "layout_check.h"
#include "memimg.h"
#include "pools.h"
#include "report.h"
#include "vmlinux.h"

#include "check.h"

#define HEAD_ADDR	0xffffffff82a01000ULL
#define JIFFIES_ADDR	0xffffffff82b00000ULL
#define POOL_BASE	0xffff888004000000ULL
#define TAG_BASE	0xffff888005000000ULL
#define CACHE_ADDR	0xffff888006000000ULL
#define STR_BASE	0xffff888010000000ULL
#define POOL_STRIDE	0x200ULL
#define TAG_STRIDE	0x100ULL
#define STR_SIZE	0x10000ULL
#define NOW		1000000ULL
#define HZ		250

static struct kmp_layout L;
static struct kmp_v6fns FNS;
static const struct kmp_limits LIM = { 100000, 100000 };

struct fake {
	struct memimg img;
	struct kmp_mem mem;
	unsigned char *head, *pools, *tags, *strs, *cache, *jiffies;
	size_t strused;
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
static unsigned char *pool_bytes(struct fake *f, size_t i) { return f->pools + i * POOL_STRIDE; }

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
	bool cursor;		/* a /proc/mempool cursor: all zero but its links */
	const char *name, *kind, *function, *modname, *file;
	uint64_t line, alloc, pool_data;
	int min_nr, curr_nr, low_nr;
	uint64_t nr_reserve, nr_wait, nr_fail, nr_empty, id;
	const char *instance;
};

static void set_pool(struct fake *f, size_t i, const struct spec *s)
{
	unsigned char *p = pool_bytes(f, i), *t = f->tags + i * TAG_STRIDE;
	uint64_t wq = pool_addr(i) + L.wait_head.off;

	put_at(p, L.wait_head.off + L.lh_next.off, 8, wq);
	put_at(p, L.wait_head.off + L.lh_prev.off, 8, wq);
	if (s->cursor)
		return;
	put(t, &L.mtag_name, str(f, s->name));
	put(t, &L.mtag_kind, str(f, s->kind));
	put(t, &L.mtag_function, str(f, s->function));
	put(t, &L.mtag_modname, str(f, s->modname));
	put(t, &L.mtag_filename, str(f, s->file));
	put(t, &L.mtag_lineno, s->line);
	put(p, &L.tag, TAG_BASE + i * TAG_STRIDE);
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
	put(p, &L.id, s->id);
}

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
	put_at(f->jiffies, 0, 8, NOW);
	put(f->cache, &L.kc_object_size, 192);
}

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

#define COLUMNS "# name                         type    elem_size min_nr curr_nr low_nr " \
	"from_reserve    waits waiting   failed  emptied oldest_wait owner instance site id"

static char *table(const struct kmp_pools *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		abort();
	kmp_report_header_v6(m, "1.1", COLUMNS);
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

	begin("series v7 told by layout from DWARF: id and 64-bit counters at offsetof()");
	if (!kmp_vmlinux_open(&v, path, &err)) {
		CHECK(0, "cannot open %s: %s", path, err.msg);
		end();
		exit(1);
	}
	kmp_vmlinux_symbols(&v, sym, sizeof(sym) / sizeof(sym[0]));
	for (size_t i = 0; i < sizeof(sym) / sizeof(sym[0]); i++)
		CHECK(sym[i].found, "no symbol %s", sym[i].name);
	CHECK(kmp_layout_load(&v, sym[0].addr, false, &L, &err), "layout: %s", err.msg);
	CHECK(L.series && L.v6 && L.v7 && L.v12, "series %d v6 %d v7 %d v12 %d", L.series, L.v6,
	      L.v7, L.v12);
#define OFF(field, type, member) \
	CHECK(L.field.ok && L.field.off == offsetof(type, member) && \
	      L.field.size == sizeof(((type *)0)->member), \
	      #field ": DWARF says off %" PRIu64 " size %" PRIu64 ", C says %zu/%zu", \
	      L.field.off, L.field.size, offsetof(type, member), sizeof(((type *)0)->member))
	CHECK(L.pool_size == sizeof(mempool_t), "pool size %" PRIu64, L.pool_size);
	OFF(id, mempool_t, id);
	OFF(nr_reserve, mempool_t, nr_reserve);
	OFF(nr_wait, mempool_t, nr_wait);
	OFF(nr_fail, mempool_t, nr_fail);
	OFF(nr_empty, mempool_t, nr_empty);
	OFF(waiter_since, struct mempool_waiter, since);
	CHECK(!strcmp(kmp_format_of_layout(&L), "1.1"), "format %s", kmp_format_of_layout(&L));
	FNS.alloc_slab = sym[1].addr;
	FNS.kmalloc = sym[2].addr;
	FNS.alloc_pages = sym[3].addr;
	FNS.wake = sym[4].addr;
	FNS.page_size = 4096;
	kmp_vmlinux_close(&v);
	end();
}

static void test_rows(void)
{
	const struct spec s[4] = {
		{ false, NULL, "bio", "bioset_init", NULL, "block/bio.c", 1812, FNS.alloc_slab,
		  CACHE_ADDR, 2, 2, 2, 0, 0, 0, 0, 1, NULL },
		{ .cursor = true },
		{ false, "a:b", "c:d", "crypt_ctr", "dm_crypt", "dm:x.c", 9, FNS.kmalloc, 592,
		  64, 60, 3, 5000000000ULL, 4294967296ULL, 1, 3, 18446744073709551615ULL, "dm-0" },
		{ false, "dm-crypt_tag", NULL, "crypt_ctr", "dm_crypt", "drivers/md/dm-crypt.c",
		  3361, FNS.kmalloc, 64, 16, 16, 16, 0, 0, 0, 0, 73, "dm-1" },
	};
	static const char want[] =
		"mempool - version: 1.1\n" COLUMNS "\n"
		"bioset_init:bio                slab          192      2       2      2            0        0       0        0        0           0 - - block/bio.c:1812 1\n"
		"a\\072b:c\\072d                  kmalloc       592     64      60      3   5000000000 4294967296       0        1        3           0 dm_crypt dm-0 dm:x.c:9 18446744073709551615\n"
		"dm-crypt_tag                   kmalloc        64     16      16     16            0        0       0        0        0           0 dm_crypt dm-1 drivers/md/dm-crypt.c:3361 73\n";
	struct kmp_pools p;
	struct kmp_err err;
	struct fake f;
	char *t;
	bool ok;

	begin("format 1.1 rows byte for byte: id appended, ':' escaped in name and kind (not "
	      "site), counters past 32 bits, a reader's cursor skipped without a note");
	fake_init(&f, 4);
	for (size_t i = 0; i < 4; i++)
		set_pool(&f, i, &s[i]);
	link_pools(&f, 4);
	ok = read_all(&f, &p, &err);
	CHECK(ok, "read: %s", err.msg);
	CHECK(!notes[0], "notes: %s", notes);
	CHECK(p.n == 3, "%zu pools read, want 3 (the cursor is not a pool)", p.n);
	t = table(&p);
	CHECK(!strcmp(t, want), "table differs:\n--- got\n%s--- want\n%s", t, want);
	free(t);
	kmp_pools_free(&p);
	memimg_free(&f.img);
	end();
}

static void test_format(void)
{
	struct kmp_err err;

	begin("format check: v7's 1.1 with its column line known, v6's 1.0 too, 1.1 with "
	      "v6's column line refused");
	CHECK(kmp_format_check_v6("1.1", COLUMNS, &err), "%s", err.msg);
	CHECK(kmp_format_known_v6("1.0", "# name                         type    elem_size min_nr "
				  "curr_nr low_nr from_reserve    waits waiting   failed  emptied "
				  "oldest_wait owner instance site"), "v6's 1.0 not known");
	CHECK(!kmp_format_known_v6("1.1", "# name                         type    elem_size min_nr "
				   "curr_nr low_nr from_reserve    waits waiting   failed  emptied "
				   "oldest_wait owner instance site"), "1.1 without id known");
	end();
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: unit-v7 FAKE_VMLINUX_V7\n");
		return 2;
	}
	test_layout(argv[1]);
	test_rows();
	test_format();
	printf("unit-v7: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
