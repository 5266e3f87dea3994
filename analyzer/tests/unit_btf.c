// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the dump-alone back end (issue 33): the kallsyms decoder
 * (kallsyms.c) on tables built here in both encodings (6.x's relative
 * base with absolute per-CPU symbols, 7.x's offsets from their own slot)
 * and damaged; the BTF look-ups (btf.c) through the layout loader
 * (kmp_layout_load(), the one DWARF uses) on a BTF written here with
 * libbpf's writer, and on damaged BTF: an id past the last type, a typedef
 * loop, a type section past the end, a truncated blob.  Every damaged
 * input must end in a refusal of kind format (exit 6), never a crash.
 *
 *   unit-btf [DIR]   (DIR: write fuzz seeds there, then exit)
 */
#include <bpf/btf.h>
#include <dirent.h>
#include <dwarf.h>
#include <inttypes.h>
#include <libdeflate.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "btfmemo.h"
#include "dumpcache.h"
#include "kallsyms.h"
#include "layout_check.h"
#include "memimg.h"
#include "vmlinux.h"
#include "orc.h"
#include "vmsyms.h"

#include "check.h"
#include "fake_kallsyms.h"
#include "fake_orc.h"

/* ------------------------------------------------------------------ */
/* kallsyms */

static void test_kallsyms_relative(void)
{
	const uint64_t base = 0xffffffff81000000ULL, kaslr = 0x1000000;
	struct kmp_sym q[4] = { { .name = "mempool_alloc" }, { .name = "init_task" },
				{ .name = "fixed_percpu_data" }, { .name = "nothere" } };
	struct kmp_err err = { 0 };
	struct kmp_kallsyms ks;
	struct kmp_kallsyms_raw r;
	struct ktab t;

	begin("kallsyms: 6.x relative base, absolute per-CPU symbols left out, sizes from the next");
	ktab_init(&t);
	ktab_add(&t, 'V', "fixed_percpu_data", 0x0);	/* absolute: a per-CPU offset */
	ktab_add(&t, 'T', "_text", -1);			/* base - 1 - (-1) = base */
	ktab_add(&t, 'T', "mempool_alloc", -1 - 0x100);
	ktab_add(&t, 't', "mempool_alloc", -1 - 0x180);	/* a local of the same name */
	ktab_add(&t, 'D', "init_task", -1 - 0x200000);
	ktab_add(&t, 'D', "init_task_end", -1 - 0x203000);
	r = ktab_raw(&t);
	r.have_base = true;
	r.relative_base = base;
	CHECK(kmp_kallsyms_decode(&ks, &r, kaslr, &err), "decode: %s", err.msg);
	CHECK(ks.abs_percpu && ks.n == 5, "abs_percpu %d, %zu symbols", ks.abs_percpu, ks.n);
	kmp_kallsyms_find(&ks, q, 4);	/* linear */
	CHECK(q[0].found && q[0].addr == base + 0x100 - kaslr, "linear: 0x%" PRIx64, q[0].addr);
	kmp_kallsyms_index(&ks);
	kmp_kallsyms_find(&ks, q, 4);	/* by the index */
	CHECK(q[0].found && q[0].addr == base + 0x100 - kaslr && q[0].size == 0x80,
	      "mempool_alloc: the global one, 0x%" PRIx64 " size 0x%" PRIx64, q[0].addr, q[0].size);
	CHECK(q[1].found && q[1].addr == base + 0x200000 - kaslr && q[1].size == 0x3000,
	      "init_task 0x%" PRIx64 " size 0x%" PRIx64, q[1].addr, q[1].size);
	CHECK(!q[2].found && !q[3].found, "a per-CPU offset or a missing name found");
	kmp_kallsyms_free(&ks);
	/* the same answers from the tables as read, before decoding (vmdump.c) */
	{
		struct kmp_sym rq[4] = { { .name = "mempool_alloc" }, { .name = "init_task" },
					 { .name = "fixed_percpu_data" }, { .name = "nothere" } };
		size_t last;

		CHECK(kmp_kallsyms_raw_find(&r, kaslr, rq, 4) == 2 && rq[0].found &&
		      rq[0].addr == q[0].addr && rq[1].found && rq[1].addr == q[1].addr &&
		      !rq[2].found && !rq[3].found, "raw: %d 0x%" PRIx64 ", %d 0x%" PRIx64 ", %d, %d",
		      rq[0].found, rq[0].addr, rq[1].found, rq[1].addr, rq[2].found, rq[3].found);
		/* a local of the name listed first: the global still wins */
		ktab_init(&t);
		ktab_add(&t, 'T', "_text", -1);
		ktab_add(&t, 't', "mempool_alloc", -1 - 0x80);
		last = t.nlen;
		ktab_add(&t, 'T', "mempool_alloc", -1 - 0x100);
		r = ktab_raw(&t);
		r.have_base = true;
		r.relative_base = base;
		CHECK(kmp_kallsyms_raw_find(&r, kaslr, rq, 1) == 1 &&
		      rq[0].addr == base + 0x100 - kaslr, "raw, local first: 0x%" PRIx64, rq[0].addr);
		/* a damaged entry (a length of 0) ends the pass; what came before it is found */
		t.names[last] = 0;
		CHECK(kmp_kallsyms_raw_find(&r, kaslr, rq, 1) == 1 &&
		      rq[0].addr == base + 0x80 - kaslr, "raw, damaged: 0x%" PRIx64, rq[0].addr);
		ktab_init(&t);
		ktab_add(&t, 'V', "fixed_percpu_data", 0x0);
		ktab_add(&t, 'T', "_text", -1);
		ktab_add(&t, 'T', "mempool_alloc", -1 - 0x100);
		ktab_add(&t, 't', "mempool_alloc", -1 - 0x180);
		ktab_add(&t, 'D', "init_task", -1 - 0x200000);
		ktab_add(&t, 'D', "init_task_end", -1 - 0x203000);
		r = ktab_raw(&t);
		r.have_base = true;
		r.relative_base = base;
	}
	/* KASLR off (offset 0): a per-CPU offset is still no address */
	CHECK(kmp_kallsyms_decode(&ks, &r, 0, &err), "decode: %s", err.msg);
	kmp_kallsyms_find(&ks, q, 4);
	CHECK(ks.n == 5 && !q[2].found, "without KASLR: %zu symbols, per-CPU found %d", ks.n, q[2].found);
	kmp_kallsyms_free(&ks);
	end();

	begin("kallsyms: 6.x relative base without absolute per-CPU symbols");
	ktab_init(&t);
	ktab_add(&t, 'T', "_text", 0);
	ktab_add(&t, 'T', "mempool_free", 0x40);
	r = ktab_raw(&t);
	r.have_base = true;
	r.relative_base = base;
	CHECK(kmp_kallsyms_decode(&ks, &r, 0, &err), "decode: %s", err.msg);
	q[0].name = "mempool_free";
	kmp_kallsyms_find(&ks, q, 1);
	CHECK(!ks.abs_percpu && q[0].found && q[0].addr == base + 0x40, "0x%" PRIx64, q[0].addr);
	kmp_kallsyms_free(&ks);
	end();

	begin("kallsyms: a table out of address order is sorted, names and sizes kept with their symbols");
	ktab_init(&t);
	ktab_add(&t, 'T', "zeta", 0x300);
	ktab_add(&t, 'T', "_text", 0);
	ktab_add(&t, 'D', "alpha_data", 0x1000);
	ktab_add(&t, 't', "mid", 0x100);
	ktab_add(&t, 'T', "mid_twin", 0x100);	/* the same address: table order kept among equals */
	r = ktab_raw(&t);
	r.have_base = true;
	r.relative_base = base;
	CHECK(kmp_kallsyms_decode(&ks, &r, 0, &err), "decode: %s", err.msg);
	{
		static const char *const want[] = { "_text", "mid", "mid_twin", "zeta", "alpha_data" };
		char name[64], at[64];
		uint64_t start = 0, size = 0;

		for (size_t i = 0; i < ks.n && i < 5; i++) {
			kmp_kallsyms_name(&ks, i, name, sizeof(name));
			CHECK(!strcmp(name, want[i]) && (!i || kmp_kallsyms_addr(&ks, i - 1) <= kmp_kallsyms_addr(&ks, i)),
			      "entry %zu: %s at 0x%" PRIx64 ", want %s", i, name, kmp_kallsyms_addr(&ks, i), want[i]);
		}
		q[0].name = "zeta";
		kmp_kallsyms_index(&ks);
		kmp_kallsyms_find(&ks, q, 1);
		CHECK(ks.n == 5 && q[0].found && q[0].addr == base + 0x300 && q[0].size == 0xd00,
		      "zeta: 0x%" PRIx64 " size 0x%" PRIx64, q[0].addr, q[0].size);
		CHECK(kmp_kallsyms_addrsym(&ks, base + 0x120, at, sizeof(at), &start, &size) &&
		      !strcmp(at, "mid") && start == base + 0x100 && size == 0x200,
		      "0x120 in %s at 0x%" PRIx64 " size 0x%" PRIx64, at, start, size);
	}
	kmp_kallsyms_free(&ks);
	end();

	begin("kallsyms: 20,000 symbols of one name at one address: no index (linear look-ups), "
	      "the same answers, sizes by binary search");
	{
		static uint8_t names[2 * 20002];
		static int32_t offs[20002];
		static uint16_t tidx[256] = { 0, 7, 13 };	/* the rest: token 0 */
		static const char ttab[] = "T_text\0tsame\0Tafter";

		for (int i = 0; i < 20002; i++) {
			names[2 * i] = 1;	/* one token */
			names[2 * i + 1] = i == 0 ? 0 : i == 20001 ? 2 : 1;
			offs[i] = i == 0 ? 0 : i == 20001 ? 0x180 : 0x100;
		}
		r = (struct kmp_kallsyms_raw){ .names = names, .names_len = sizeof(names),
					       .token_index = tidx, .token_table = ttab,
					       .token_len = sizeof(ttab), .offsets = offs, .num = 20002,
					       .have_base = true, .relative_base = base };
	}
	CHECK(kmp_kallsyms_decode(&ks, &r, 0, &err), "decode: %s", err.msg);
	kmp_kallsyms_index(&ks);
	CHECK(!ks.byname && ks.hash, "an index of 20,000 alike was built (%p)", (void *)ks.byname);
	q[0].name = "same";
	q[1].name = "after";
	kmp_kallsyms_find(&ks, q, 2);
	CHECK(q[0].found && q[0].addr == base + 0x100 && q[0].size == 0x80 && q[1].found &&
	      q[1].addr == base + 0x180, "same 0x%" PRIx64 " size 0x%" PRIx64 ", after 0x%" PRIx64,
	      q[0].addr, q[0].size, q[1].addr);
	{
		char at[64];
		uint64_t start = 0, size = 0;

		CHECK(kmp_kallsyms_addrsym(&ks, base + 0x17f, at, sizeof(at), &start, &size) &&
		      !strcmp(at, "same") && start == base + 0x100 && size == 0x80,
		      "0x17f in %s at 0x%" PRIx64 " size 0x%" PRIx64, at, start, size);
	}
	kmp_kallsyms_free(&ks);
	end();
}

static void test_kallsyms_self_relative(void)
{
	const uint64_t at = 0xffffffff82000000ULL;
	struct kmp_sym q[2] = { { .name = "_text" }, { .name = "mempool_alloc_noprof" } };
	struct kmp_err err = { 0 };
	struct kmp_kallsyms ks;
	struct kmp_kallsyms_raw r;
	struct ktab t;

	begin("kallsyms: 7.x offsets relative to their own slot");
	ktab_init(&t);
	ktab_add(&t, 'T', "_text", -0x1000000);			/* slot 0 */
	ktab_add(&t, 'T', "mempool_alloc_noprof", -0x1000000 + 0x500 - 4);	/* slot 1 */
	r = ktab_raw(&t);
	r.offsets_addr = at;
	CHECK(kmp_kallsyms_decode(&ks, &r, 0, &err), "decode: %s", err.msg);
	kmp_kallsyms_find(&ks, q, 2);
	CHECK(q[0].found && q[0].addr == at - 0x1000000, "_text 0x%" PRIx64, q[0].addr);
	CHECK(q[1].found && q[1].addr == at - 0x1000000 + 0x500 && q[0].size == 0x500,
	      "mempool_alloc_noprof 0x%" PRIx64 ", _text's size 0x%" PRIx64, q[1].addr, q[0].size);
	kmp_kallsyms_free(&ks);
	end();
}

/* @t damaged by @damage must be refused with kind format. */
static void kallsyms_refused(const char *name, void (*damage)(struct ktab *, struct kmp_kallsyms_raw *))
{
	struct kmp_err err = { 0 };
	struct kmp_kallsyms ks;
	struct kmp_kallsyms_raw r;
	struct ktab t;
	char title[160];

	snprintf(title, sizeof(title), "kallsyms: %s: refused, exit 6", name);
	begin(title);
	ktab_init(&t);
	ktab_add(&t, 'T', "_text", 0);
	ktab_add(&t, 'T', "mempool_alloc", 0x10);
	r = ktab_raw(&t);
	r.have_base = true;
	r.relative_base = 0xffffffff81000000ULL;
	damage(&t, &r);
	CHECK(!kmp_kallsyms_decode(&ks, &r, 0, &err), "decoded");
	CHECK(status(false, &err, false) == KMP_EFORMAT, "status %d: %s",
	      status(false, &err, false), err.msg);
	CHECK(err.msg[0] && !strchr(err.msg, '\n'), "not one line: '%s'", err.msg);
	end();
}

static void dmg_count(struct ktab *t, struct kmp_kallsyms_raw *r) { (void)t; r->num = 3; }
static void dmg_zero(struct ktab *t, struct kmp_kallsyms_raw *r) { (void)t; r->num = 0; }
static void dmg_huge(struct ktab *t, struct kmp_kallsyms_raw *r) { (void)t; r->num = 1u << 30; }
static void dmg_len(struct ktab *t, struct kmp_kallsyms_raw *r) { t->names[0] = 0x7f; (void)r; }
static void dmg_biglen(struct ktab *t, struct kmp_kallsyms_raw *r) { t->names[0] = 0xff; (void)r; }
static void dmg_token(struct ktab *t, struct kmp_kallsyms_raw *r) { t->tidx['_'] = 60000; (void)r; }
static void dmg_unended(struct ktab *t, struct kmp_kallsyms_raw *r)
{
	r->token_len = t->tidx['_'] + 1;	/* the table ends inside a token */
}
static void dmg_control(struct ktab *t, struct kmp_kallsyms_raw *r) { t->names[2] = 0x01; (void)r; }
static void dmg_empty(struct ktab *t, struct kmp_kallsyms_raw *r) { t->names[0] = 0; (void)r; }
/* 7.x's offsets from their own slots, 2 GiB below and above: more than 4 GiB apart */
static void dmg_span(struct ktab *t, struct kmp_kallsyms_raw *r)
{
	r->have_base = false;
	r->offsets_addr = 0xffffffff81000000ULL;
	t->offs[0] = INT32_MIN;
	t->offs[1] = INT32_MAX;
}

static void test_kallsyms_damaged(void)
{
	kallsyms_refused("more symbols than names", dmg_count);
	kallsyms_refused("no symbols", dmg_zero);
	kallsyms_refused("2^30 symbols", dmg_huge);
	kallsyms_refused("a name longer than kallsyms_names", dmg_len);
	kallsyms_refused("a two-byte length past the table", dmg_biglen);
	kallsyms_refused("a token index past the token table", dmg_token);
	kallsyms_refused("a token without its NUL", dmg_unended);
	kallsyms_refused("a control character in a name", dmg_control);
	kallsyms_refused("an empty entry", dmg_empty);
	kallsyms_refused("addresses more than 4 GiB apart", dmg_span);
}

/*
 * kmp_kallsyms_load() on memory laid out as a kernel's: the tables where
 * VMCOREINFO says, kallsyms_names ending 100 bytes before memory that is
 * not there (a dump's left-out page): its 64 KiB read falls back to pages.
 */
static void test_kallsyms_load_memory(void)
{
	const uint64_t base = 0xffffffff81000000ULL, tab = 0xffffffff82000000ULL;
	struct kmp_sym q[1] = { { .name = "mempool_alloc" } };
	struct kmp_err err = { 0 };
	struct kmp_kallsyms ks;
	struct memimg img;
	struct kmp_mem mem;
	struct ktab t;
	unsigned char *m;
	char vi[512];
	uint64_t names;

	begin("kallsyms from memory: names at the end of what the dump holds");
	ktab_init(&t);
	ktab_add(&t, 'T', "_text", -1);
	ktab_add(&t, 'T', "mempool_alloc", -1 - 0x240);
	memimg_init(&img, &mem);
	m = memimg_add(&img, tab, 0x3000);
	names = tab + 0x3000 - 100 - t.nlen;	/* then 100 bytes, then nothing */
	memcpy(m + (names - tab), t.names, t.nlen);
	memcpy(m, t.tidx, sizeof(t.tidx));
	memcpy(m + 0x200, t.ttab, t.tlen);
	memcpy(m + 0x600, t.offs, 4 * t.num);
	memcpy(m + 0x700, &t.num, 4);
	memcpy(m + 0x708, &base, 8);
	snprintf(vi, sizeof(vi), "SYMBOL(kallsyms_names)=%" PRIx64 "\nSYMBOL(kallsyms_num_syms)=%" PRIx64
		 "\nSYMBOL(kallsyms_token_table)=%" PRIx64 "\nSYMBOL(kallsyms_token_index)=%" PRIx64
		 "\nSYMBOL(kallsyms_offsets)=%" PRIx64 "\nSYMBOL(kallsyms_relative_base)=%" PRIx64 "\n",
		 names, tab + 0x700, tab + 0x200, tab, tab + 0x600, tab + 0x708);
	/* the token table's read runs 256 bytes past its last token: inside the region */
	CHECK(kmp_kallsyms_load(&ks, &mem, vi, 0, &err), "%s", err.msg);
	kmp_kallsyms_find(&ks, q, 1);
	CHECK(q[0].found && q[0].addr == base + 0x240, "mempool_alloc 0x%" PRIx64, q[0].addr);
	kmp_kallsyms_free(&ks);
	end();

	begin("kallsyms from memory: no kallsyms in VMCOREINFO: kind vmlinux (exit 3)");
	CHECK(!kmp_kallsyms_load(&ks, &mem, "OSRELEASE=5.10.0\n", 0, &err) &&
	      status(false, &err, false) == KMP_EVMLINUX, "status %d: %s", status(false, &err, false),
	      err.msg);
	end();
	memimg_free(&img);
}

/*
 * kmp_vmlinux_addrsyms() answers what kmp_vmlinux_addrsym() answers, address by
 * address: sized symbols over unsized ones, the nearest unsized one below.
 */
static void test_addrsyms(void)
{
	const uint64_t base = 0xffffffff81000000ULL;
	struct kmp_err err = { 0 };
	struct kmp_kallsyms_raw r;
	struct kmp_vmlinux v;
	struct kmp_addrsym a[40];
	struct ktab t;
	size_t n = 0;

	begin("addresses to symbols in one pass = one look-up per address");
	ktab_init(&t);
	ktab_add(&t, 'T', "_text", -1);
	ktab_add(&t, 'T', "f_one", -1 - 0x100);
	ktab_add(&t, 't', "f_two", -1 - 0x180);
	ktab_add(&t, 'T', "f_three", -1 - 0x180);	/* the same start */
	ktab_add(&t, 'T', "f_four", -1 - 0x400);
	ktab_add(&t, 'D', "data_end", -1 - 0x2000);
	r = ktab_raw(&t);
	r.have_base = true;
	r.relative_base = base;
	memset(&v, 0, sizeof(v));
	v.fd = -1;
	v.ks = calloc(1, sizeof(*v.ks));
	CHECK(kmp_kallsyms_decode(v.ks, &r, 0, &err), "%s", err.msg);
	/* kallsyms gives sizes up to the next symbol; one without a size: the last */
	for (uint64_t off = 0; off < 0x2100 && n < 40; off += 0xd7)
		a[n++].addr = base + off;
	kmp_vmlinux_addrsyms(&v, a, n);
	for (size_t i = 0; i < n; i++) {
		/* the oracle: the highest start at or below, the first of equals; size to the next */
		static const struct { const char *name; uint64_t off; } tab[] = {
			{ "_text", 0 }, { "f_one", 0x100 }, { "f_two", 0x180 }, { "f_three", 0x180 },
			{ "f_four", 0x400 }, { "data_end", 0x2000 } };
		uint64_t off = a[i].addr - base, wsize = 0;
		size_t w = 0;
		char name[128] = "";
		uint64_t start = 0, size = 0;
		bool ok = kmp_vmlinux_addrsym(&v, a[i].addr, name, sizeof(name), &start, &size);

		for (size_t j = 0; j < 6; j++)
			if (tab[j].off <= off && tab[j].off > tab[w].off)
				w = j;
		for (size_t j = w + 1; j < 6 && !wsize; j++)
			wsize = tab[j].off - tab[w].off;
		CHECK(ok && !strcmp(name, tab[w].name) && start == base + tab[w].off && size == wsize,
		      "0x%" PRIx64 ": %s+%" PRIu64 " (%d), want %s (size %" PRIu64 ")", a[i].addr,
		      name, size, ok, tab[w].name, wsize);
		CHECK(ok == a[i].found && (!ok || (!strcmp(name, a[i].name) && start == a[i].start &&
						    size == a[i].size)),
		      "0x%" PRIx64 ": one by one %s (%d), in one pass %s (%d)", a[i].addr,
		      ok ? name : "-", ok, a[i].found ? a[i].name : "-", a[i].found);
	}
	{	/* below the first symbol: none */
		char name[128];
		uint64_t start, size;

		CHECK(!kmp_vmlinux_addrsym(&v, base - 1, name, sizeof(name), &start, &size),
		      "below _text: %s", name);
	}
	kmp_vmlinux_close(&v);
	end();
}

/*
 * ORC (orc.c) on a synthetic kernel (fake_orc.h): three functions' frames
 * from the inactive_task_frame at thread.sp, by their "CFA = SP + N" rules,
 * to an end-of-stack entry; and damaged entries and stacks: the walk stops,
 * never reads outside the stack, never loops.
 */
static size_t orc_walk(struct fake_orc *f, uint64_t *pcs, char *why)
{
	struct kmp_orc *o = kmp_orc_new(&f->k, why, 256);
	size_t n = o ? kmp_orc_unwind(o, FO_TASK, pcs, KMP_ORC_MAX_FRAMES) : 0;

	kmp_orc_free(o);
	return n;
}

/* The inactive frame at stack offset @at: bp, then the return address @ret. */
static void orc_frame(struct fake_orc *f, size_t at, uint64_t ret)
{
	memset(f->stack + at, 0, 56);
	memcpy(f->stack + at + 48, &ret, 8);
}

static void test_orc(void)
{
	const uint64_t fa = FO_TEXT + 0x2000, fb = FO_TEXT + 0x3000, fc = FO_TEXT + 0x4000;
	uint64_t pcs[KMP_ORC_MAX_FRAMES], ra;
	struct fake_orc f;
	char why[256] = "";
	size_t n;

	begin("ORC: three frames by their CFA rules, to the end of the stack");
	CHECK(fo_init(&f, FO_STACK + 0x1000), "fake kernel");
	orc_frame(&f, 0x1000, fa + 0x10);	/* switched out in fa */
	fo_entry(&f, 1, 24, 0, 3, 0, 2);	/* fa: CFA = SP + 24 */
	ra = fb + 0x20;
	memcpy(f.stack + 0x1000 + 56 + 16, &ra, 8);
	fo_entry(&f, 2, 8, 0, 3, 0, 2);		/* fb: CFA = SP + 8 */
	ra = fc + 0x30;
	memcpy(f.stack + 0x1000 + 56 + 24, &ra, 8);
	fo_entry(&f, 3, 0, 0, 0, 0, 1);		/* fc: end of stack */
	n = orc_walk(&f, pcs, why);
	CHECK(n == 3 && pcs[0] == fa + 0x10 && pcs[1] == fb + 0x20 && pcs[2] == fc + 0x30,
	      "%zu frames (%s)", n, why);
	end();

	begin("ORC: a CFA below the frame (a loop in a damaged table) stops the walk");
	fo_entry(&f, 2, -64, 0, 3, 0, 2);
	n = orc_walk(&f, pcs, why);
	CHECK(n == 2, "%zu frames", n);
	end();

	begin("ORC: a CFA past the top of the stack stops the walk");
	fo_entry(&f, 2, 0x7ff0, 0, 3, 0, 2);
	n = orc_walk(&f, pcs, why);
	CHECK(n == 2, "%zu frames", n);
	end();

	begin("ORC: an unknown register, an undefined type: the walk stops there");
	fo_entry(&f, 2, 8, 0, 13, 0, 2);
	CHECK(orc_walk(&f, pcs, why) == 2, "register 13");
	fo_entry(&f, 2, 8, 0, 3, 0, 0);
	CHECK(orc_walk(&f, pcs, why) == 2, "type undefined");
	end();

	begin("ORC: thread.sp outside the stack, or a return address outside text: no frames");
	fo_entry(&f, 2, 8, 0, 3, 0, 2);
	memcpy(f.stack + 0x1000 + 48, &(uint64_t){ 0xffff888000001234ULL }, 8);
	CHECK(orc_walk(&f, pcs, why) == 0, "not text");
	fo_free(&f);
	CHECK(fo_init(&f, FO_STACK + 16384 - 8), "fake kernel");
	CHECK(orc_walk(&f, pcs, why) == 0, "a frame past the stack's top");
	fo_free(&f);
	CHECK(fo_init(&f, FO_STACK - 4096), "fake kernel");
	CHECK(orc_walk(&f, pcs, why) == 0, "below the stack");
	end();

	begin("ORC: register numbers that are neither generation's: no unwinder, one reason");
	fo_entry(&f, 0, 8, 0, 7, 0, 2);		/* unwind_next_frame: CFA = R13 + 8? */
	CHECK(!kmp_orc_new(&f.k, why, sizeof(why)) && strstr(why, "register"), "%s", why);
	fo_free(&f);
	end();
}

/* ------------------------------------------------------------------ */
/* kmp_read_bulk(): two readers for the large reads of the dump alone */

static struct kmp_mem *bulk_base;	/* the image the counting readers read */
static _Atomic int bulk_clones;

static bool bulk_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		      struct kmp_err *err)
{
	(void)mem;
	return kmp_read(bulk_base, addr, buf, len, err);
}

static struct kmp_mem *bulk_clone(struct kmp_mem *mem)
{
	struct kmp_mem *m = malloc(sizeof(*m));

	if (m) {
		*m = *mem;
		bulk_clones++;
	}
	return m;
}

static const struct kmp_mem_ops bulk_ops = { .read = bulk_read, .clone = bulk_clone };

static void test_read_bulk(void)
{
	const size_t len = 1u << 20, mapped = 600u << 10;
	struct kmp_mem base, mem = { .ops = &bulk_ops };
	struct memimg img;
	unsigned char *data, *buf = malloc(len);
	struct kmp_err err;
	bool ok;

	begin("kmp_read_bulk: a large read in two halves on two readers gives the same bytes; "
	      "a short or serial source, one read; an unmapped second half, its error");
	memimg_init(&img, &base);
	bulk_base = &base;
	data = memimg_add(&img, 0xffffffff82000000ull, len);
	for (size_t i = 0; i < len; i++)
		data[i] = (unsigned char)(i * 7 + (i >> 12));
	memimg_add(&img, 0xffffffff84000000ull, mapped);

	memset(buf, 0, len);
	ok = kmp_read_bulk(&mem, 0xffffffff82000000ull, buf, len, &err);
	CHECK(ok && !memcmp(buf, data, len), "whole read: ok %d, bytes %s", ok,
	      memcmp(buf, data, len) ? "differ" : "equal");
	CHECK(bulk_clones == 1, "a second reader was made %d times, want 1", (int)bulk_clones);

	bulk_clones = 0;
	ok = kmp_read_bulk(&mem, 0xffffffff82000000ull + 5, buf, KMP_READ_BULK_MIN - 1, &err);
	CHECK(ok && !memcmp(buf, data + 5, KMP_READ_BULK_MIN - 1) && bulk_clones == 0,
	      "below KMP_READ_BULK_MIN: ok %d, %d second readers (want one read)", ok,
	      (int)bulk_clones);

	mem.serial = true;
	memset(buf, 0, len);
	ok = kmp_read_bulk(&mem, 0xffffffff82000000ull, buf, len, &err);
	CHECK(ok && !memcmp(buf, data, len) && bulk_clones == 0,
	      "serial source: ok %d, %d second readers (want one read)", ok, (int)bulk_clones);
	mem.serial = false;

	memset(&err, 0, sizeof(err));
	ok = kmp_read_bulk(&mem, 0xffffffff84000000ull, buf, len, &err);
	CHECK(!ok && err.kind == KMP_ERR_UNMAPPED, "second half unmapped: ok %d, kind %d (want %d)",
	      ok, (int)err.kind, (int)KMP_ERR_UNMAPPED);
	memimg_free(&img);
	free(buf);
	end();
}

static void test_vmcoreinfo_symbol(void)
{
	const char *vi = "OSRELEASE=6.12\nSYMBOL(kallsyms_names)=ffffffff82a0b1c0\n"
			 "SYMBOL(kallsyms_num)=zz\nSYMBOL(kallsyms_offsets)=\n"
			 "SYMBOL(kallsyms_token_table)=1ffffffff82a0b1c0\n";
	uint64_t a = 0;

	begin("VMCOREINFO SYMBOL(): whole hex numbers only, names matched whole");
	CHECK(kmp_vmcoreinfo_symbol(vi, "kallsyms_names", &a) && a == 0xffffffff82a0b1c0ULL,
	      "0x%" PRIx64, a);
	CHECK(!kmp_vmcoreinfo_symbol(vi, "kallsyms_num", &a), "not hex");
	CHECK(!kmp_vmcoreinfo_symbol(vi, "kallsyms_offsets", &a), "empty");
	CHECK(!kmp_vmcoreinfo_symbol(vi, "kallsyms_token_table", &a), "17 digits");
	CHECK(!kmp_vmcoreinfo_symbol(vi, "kallsyms", &a), "a prefix");
	end();
}

/* ------------------------------------------------------------------ */
/* BTF */

/*
 * A BTF with what kmp_layout_load() needs of a stock kernel: struct
 * list_head, wait_queue_head and mempool_s (72 bytes, curr_nr inside an
 * anonymous struct), through a typedef; with @loop, mempool_s.elements is
 * of a typedef that refers to itself through another.
 */
static struct btf *make_btf(bool loop)
{
	struct btf *b = btf__new_empty();
	int i_int, i_ptr, i_lh, i_lhp, i_wqh, i_anon, i_pool, i_elem;

	i_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	i_ptr = btf__add_ptr(b, 0);				/* void * */
	i_lhp = btf__add_ptr(b, btf__type_cnt(b) + 1);		/* the next type */
	i_lh = btf__add_struct(b, "list_head", 16);		/* fields go to the last type */
	btf__add_field(b, "next", i_lhp, 0, 0);
	btf__add_field(b, "prev", i_lhp, 64, 0);
	i_wqh = btf__add_struct(b, "wait_queue_head", 24);
	btf__add_field(b, "lock", i_int, 0, 0);
	btf__add_field(b, "head", i_lh, 64, 0);
	i_anon = btf__add_struct(b, NULL, 4);
	btf__add_field(b, "curr_nr", i_int, 0, 0);
	if (loop) {
		int t1 = btf__type_cnt(b);

		btf__add_typedef(b, "loop_a", t1 + 1);
		btf__add_typedef(b, "loop_b", t1);
		i_elem = t1;
	} else {
		i_elem = btf__add_typedef(b, "elements_t", i_ptr);
	}
	i_pool = btf__add_struct(b, "mempool_s", 72);
	btf__add_field(b, "lock", i_int, 0, 0);
	btf__add_field(b, "min_nr", i_int, 32, 0);
	btf__add_field(b, NULL, i_anon, 64, 0);
	btf__add_field(b, "elements", i_elem, 128, 0);
	btf__add_field(b, "pool_data", i_ptr, 192, 0);
	btf__add_field(b, "alloc", i_ptr, 256, 0);
	btf__add_field(b, "free", i_ptr, 320, 0);
	btf__add_field(b, "wait", i_wqh, 384, 0);
	btf__add_typedef(b, "mempool_t", i_pool);
	btf__add_enum(b, "pageflags", 4);
	btf__add_enum_value(b, "PG_locked", 0);
	btf__add_enum_value(b, "PG_head", 6);
	return b;
}

/* The raw bytes of @b, copied (the caller frees). */
static void *raw(struct btf *b, uint32_t *size)
{
	const void *d = btf__raw_data(b, size);
	void *c = malloc(*size);

	memcpy(c, d, *size);
	return c;
}

/* kmp_layout_load() through a BTF-only kmp_vmlinux over @data. */
static bool load(const void *data, uint32_t size, struct kmp_layout *l, struct kmp_err *err)
{
	struct kmp_vmlinux v;
	struct kmp_btf *b = calloc(1, sizeof(*b));
	bool ok;

	memset(&v, 0, sizeof(v));
	v.fd = -1;
	snprintf(v.path, sizeof(v.path), "test BTF");
	ok = kmp_btf_parse(b, data, size, err);
	v.btf = b;
	ok = ok && kmp_layout_load(&v, 0x1000, false, l, err);
	kmp_vmlinux_close(&v);		/* frees b */
	return ok;
}

static void test_btf_layout(void)
{
	struct btf *b = make_btf(false);
	struct kmp_err err = { 0 };
	struct kmp_layout l;
	uint32_t size;
	void *d = raw(b, &size);

	begin("BTF: the layout loader reads struct mempool_s, list_head, wait_queue_head");
	CHECK(load(d, size, &l, &err), "%s", err.msg);
	CHECK(l.pool_size == 72 && !strcmp(l.pool_struct, "mempool_s"), "pool %" PRIu64, l.pool_size);
	CHECK(l.curr_nr.ok && l.curr_nr.off == 8 && l.curr_nr.size == 4,
	      "curr_nr (in an anonymous struct) at %" PRIu64, l.curr_nr.off);
	CHECK(l.elements.off == 16 && l.elements.size == 8, "elements (a typedef) %" PRIu64 "/%" PRIu64,
	      l.elements.off, l.elements.size);
	CHECK(l.wait_head.ok && l.wait_head.off == 56 && l.wait_head.size == 16,
	      "wait.head at %" PRIu64, l.wait_head.off);
	CHECK(!l.series && !l.have_stacks && l.stacks_missing &&
	      !strcmp(l.stacks_missing, "struct task_struct"), "stacks: %s",
	      l.stacks_missing ? l.stacks_missing : "none missing");
	end();
	free(d);
	btf__free(b);
}

/* Damaged BTF: refused with kind format, one line. */
static void btf_refused(const char *name, void *d, uint32_t size)
{
	struct kmp_err err = { 0 };
	struct kmp_layout l;
	char title[160];

	snprintf(title, sizeof(title), "BTF: %s: refused, exit 6", name);
	begin(title);
	CHECK(!load(d, size, &l, &err), "loaded");
	CHECK(status(false, &err, false) == KMP_EFORMAT, "status %d: %s", status(false, &err, false),
	      err.msg);
	CHECK(err.msg[0] && !strchr(err.msg, '\n'), "not one line: '%s'", err.msg);
	end();
}

/* The type id of member @name's record in mempool_s, found in the raw bytes @d of @size. */
static uint32_t *member_type_slot(struct btf *b, void *d, uint32_t size, const char *name)
{
	int id = btf__find_by_name_kind(b, "mempool_s", BTF_KIND_STRUCT);
	const struct btf_type *t = btf__type_by_id(b, (uint32_t)id);
	const struct btf_member *m = btf_members(t);

	for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
		char *at;

		if (!m->name_off || strcmp(btf__name_by_offset(b, m->name_off), name))
			continue;
		at = memmem(d, size, m, sizeof(*m));	/* the record, as written */
		return at ? (uint32_t *)(void *)(at + 4) : NULL;
	}
	return NULL;
}

static void test_btf_damaged(void)
{
	struct btf *b = make_btf(false), *lb = make_btf(true);
	uint32_t size, lsize;
	void *d = raw(b, &size), *ld = raw(lb, &lsize);
	struct btf_header *h;
	void *c;

	c = malloc(size);
	memcpy(c, d, size);
	{
		uint32_t *slot = member_type_slot(b, c, size, "elements");

		if (slot)
			*slot = 0x00ffffff;
		begin("BTF: the member record to damage is found");
		CHECK(slot, "no record of mempool_s.elements");
		end();
	}
	btf_refused("a member's type id past the last type", c, size);
	free(c);

	btf_refused("mempool_s.elements of a typedef loop", ld, lsize);

	c = malloc(size);
	memcpy(c, d, size);
	h = c;
	h->type_len = size * 4;
	btf_refused("a type section past the end of the BTF", c, size);
	free(c);

	c = malloc(size + 1);
	memcpy(c, d, size);
	h = c;
	memmove((char *)c + h->hdr_len + 1, (char *)c + h->hdr_len, size - h->hdr_len);
	h->type_off = 1;	/* the type records one byte further: misaligned */
	h->str_off += 1;
	btf_refused("a type section at an unaligned offset", c, size + 1);
	free(c);

	btf_refused("a blob cut after its header", d, 30);
	btf_refused("16 bytes", d, 16);

	c = malloc(size);
	memcpy(c, d, size);
	((struct btf_header *)c)->magic = 0x1234;
	btf_refused("a wrong magic", c, size);
	free(c);

	free(d);
	free(ld);
	btf__free(b);
	btf__free(lb);
}

/* A global of @size with a pool at @off: kmp_btf_pool_member()'s answer, "" if none. */
static const char *pool_member(struct btf *b, uint64_t size, uint64_t off, bool exact, char *path)
{
	uint32_t n;
	const void *d = btf__raw_data(b, &n);
	struct kmp_err err;
	struct kmp_btf kb;
	bool ok;

	path[0] = '\0';
	if (!kmp_btf_parse(&kb, d, n, &err))
		return "(no parse)";
	ok = kmp_btf_pool_member(&kb, size, off, "mempool_s", exact, path, 128);
	kmp_btf_free(&kb);
	return ok ? path : "";
}

/* kmp_btf_defer()'s load for the tests: parse the blob at @arg, counting the calls. */
struct memo_src {
	const void *raw;
	uint32_t len;
	unsigned int loads;
};

static bool memo_load(struct kmp_btf *b, void *arg)
{
	struct memo_src *src = arg;
	struct kmp_err err;

	src->loads++;
	return kmp_btf_parse(b, src->raw, src->len, &err);
}

/*
 * A module's BTF (split over the kernel's) and the kept answers: a module
 * only parsed costs the memo nothing; one that answered a question is kept
 * by its blob, and a later run with the kernel's BTF deferred answers the
 * same question for the same blob without parsing either; another blob is
 * parsed, the kernel's BTF with it.
 */
static void test_btf_memo_split(void)
{
	struct btf *b = make_btf(false), *mb;
	struct memo_src src;
	struct kmp_btf base, mod, base2, mod2;
	struct kmp_btf_memo *memo = kmp_btf_memo_new(), *again;
	struct kmp_err err;
	const void *mraw;
	unsigned char *other;
	uint32_t mlen;
	char path[128] = "";
	void *img;
	size_t ilen;
	const char *why;
	int pool;

	begin("BTF: a module's answers kept by its blob; the same blob later answers without a "
	      "parse, another is parsed");
	src.loads = 0;
	pool = btf__find_by_name_kind(b, "mempool_s", BTF_KIND_STRUCT);
	mb = btf__new_empty_split(b);
	btf__add_struct(mb, "mod_dev", 96);		/* a pool at 8 */
	btf__add_field(mb, "id", btf__find_by_name_kind(b, "int", BTF_KIND_INT), 0, 0);
	btf__add_field(mb, "pool", pool, 64, 0);
	mraw = btf__raw_data(mb, &mlen);
	src.raw = btf__raw_data(b, &src.len);	/* (after the split: libbpf redoes it) */
	CHECK(memo && kmp_btf_parse(&base, src.raw, src.len, &err), "base: %s", err.msg);
	kmp_btf_keep(&base, memo);
	CHECK(kmp_btf_parse_split(&mod, mraw, mlen, &base, &err), "module: %s", err.msg);
	CHECK(!kmp_btf_memo_blob(memo, mraw, mlen, false), "a module only parsed is in the memo");
	CHECK(kmp_btf_pool_member(&mod, 2 * 96, 96 + 8, "mempool_s", true, path, sizeof(path)) &&
	      !strcmp(path, "[1].pool"), "module global: '%s'", path);
	CHECK(kmp_btf_memo_blob(memo, mraw, mlen, false) == 1, "an asked module's blob not kept");
	kmp_btf_free(&mod);
	kmp_btf_free(&base);
	/* the next run: its memo from the image, the kernel's BTF deferred */
	img = kmp_btf_memo_image(memo, &ilen);
	again = img ? kmp_btf_memo_adopt(img, ilen, &why) : NULL;
	CHECK(again != NULL, "image: %s", img ? why : "none");
	if (again && kmp_btf_defer(&base2, again, memo_load, &src)) {
		CHECK(kmp_btf_parse_split(&mod2, mraw, mlen, &base2, &err) && !kmp_btf_parsed(&mod2),
		      "the kept blob: deferred");
		path[0] = '\0';
		CHECK(kmp_btf_pool_member(&mod2, 2 * 96, 96 + 8, "mempool_s", true, path, sizeof(path)) &&
		      !strcmp(path, "[1].pool") && !src.loads && !kmp_btf_parsed(&mod2),
		      "kept answer: '%s', %u parses", path, src.loads);
		CHECK(kmp_btf_pool_member(&mod2, 96, 8, "mempool_s", true, path, sizeof(path)) &&
		      !strcmp(path, ".pool") && src.loads == 1 && kmp_btf_parsed(&mod2),
		      "a new question: '%s', %u parses", path, src.loads);
		kmp_btf_free(&mod2);
		kmp_btf_free(&base2);
	} else {
		CHECK(false, "the kernel's BTF not deferred");
	}
	/* another blob (a name changed): not the kept one, parsed with the kernel's */
	if (again && (other = malloc(mlen)) && kmp_btf_defer(&base2, again, memo_load, &src)) {
		char *n;

		memcpy(other, mraw, mlen);
		n = memmem(other, mlen, "mod_dev", 7);
		if (n)
			n[4] = 'x';
		src.loads = 0;
		CHECK(n && kmp_btf_parse_split(&mod2, other, mlen, &base2, &err) &&
		      kmp_btf_parsed(&mod2) && src.loads == 1, "another blob: parsed %d, %u parses",
		      kmp_btf_parsed(&mod2), src.loads);
		kmp_btf_free(&mod2);
		kmp_btf_free(&base2);
		free(other);
	}
	kmp_btf_memo_free(again);
	kmp_btf_memo_free(memo);
	btf__free(mb);
	btf__free(b);
	end();
}

static void test_btf_pool_member(void)
{
	struct btf *b = make_btf(false);
	int pool = btf__find_by_name_kind(b, "mempool_s", BTF_KIND_STRUCT);
	int i_int = btf__find_by_name_kind(b, "int", BTF_KIND_INT);
	char path[128];

	begin("BTF: a global's pool named by the one struct that fits and holds it there");
	btf__add_struct(b, "bio_set", 168);		/* two pools, at 16 and 88 */
	btf__add_field(b, "front_pad", i_int, 0, 0);
	btf__add_field(b, "bio_pool", pool, 128, 0);
	btf__add_field(b, "bvec_pool", pool, 704, 0);
	CHECK(!strcmp(pool_member(b, 168, 88, false, path), ".bvec_pool"), "168/88: '%s'", path);
	CHECK(!strcmp(pool_member(b, 192, 16, false, path), ".bio_pool"), "192 (padding)/16: '%s'", path);
	CHECK(!strcmp(pool_member(b, 168, 20, false, path), ""), "not at a pool's start: '%s'", path);
	CHECK(!strcmp(pool_member(b, 256, 16, false, path), ""), "a size 88 bytes off: '%s'", path);
	end();

	begin("BTF: two structs that fit hold a pool at the offset under two names: no guess");
	btf__add_struct(b, "other_set", 160);
	btf__add_field(b, "pad", i_int, 0, 0);
	btf__add_field(b, "rq_pool", pool, 128, 0);
	CHECK(!strcmp(pool_member(b, 168, 16, false, path), ""), "guessed '%s'", path);
	CHECK(!strcmp(pool_member(b, 168, 88, false, path), ".bvec_pool"), "the other offset: '%s'", path);
	end();

	begin("BTF: a module global's exact size: the struct, or an array of it");
	CHECK(!strcmp(pool_member(b, 168, 88, true, path), ".bvec_pool"), "168/88: '%s'", path);
	CHECK(!strcmp(pool_member(b, 3 * 168, 168 + 16, true, path), "[1].bio_pool"),
	      "an array of 3: '%s'", path);
	CHECK(!strcmp(pool_member(b, 192, 16, true, path), ""), "192 is no multiple: '%s'", path);
	end();
	btf__free(b);
}

/* A heap object of @osize with a pool at @off: kmp_btf_heap_pool()'s answer. */
static struct kmp_btf_hit heap_pool(struct btf *b, uint64_t osize, uint64_t off)
{
	struct kmp_btf_hit hit = { 0 };
	uint32_t n;
	const void *d = btf__raw_data(b, &n);
	struct kmp_err err;
	struct kmp_btf kb;

	if (!kmp_btf_parse(&kb, d, n, &err))
		return hit;
	kmp_btf_heap_pool(&kb, 0, osize, off, "mempool_s", &hit);
	hit.btf = NULL;		/* freed below */
	kmp_btf_free(&kb);
	return hit;
}

static void test_btf_heap_pool(void)
{
	struct btf *b = make_btf(false);
	int pool = btf__find_by_name_kind(b, "mempool_s", BTF_KIND_STRUCT);
	int i_int = btf__find_by_name_kind(b, "int", BTF_KIND_INT);
	int i_char = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	int i_name = btf__add_array(b, i_int, i_char, 32);
	struct kmp_btf_hit h;

	begin("BTF: a pool in a heap object named by the one struct that fits the object");
	btf__add_struct(b, "disk", 200);		/* a name, then a pool at 64 */
	btf__add_field(b, "major", i_int, 0, 0);
	btf__add_field(b, "disk_name", i_name, 32, 0);
	btf__add_field(b, "split", pool, 512, 0);
	h = heap_pool(b, 256, 64);
	CHECK(h.n == 1 && !strcmp(h.type, "disk") && !strcmp(h.path, ".split") &&
	      h.name_off == 4 && h.name_len == 32, "256/64: %u '%s' '%s' name at %" PRIu64 " (%" PRIu64 ")",
	      h.n, h.type, h.path, h.name_off, h.name_len);
	h = heap_pool(b, 192, 64);
	CHECK(h.n == 0, "an object smaller than the struct: %u '%s'", h.n, h.type);
	h = heap_pool(b, 256, 68);
	CHECK(h.n == 0, "not at a pool's start: %u '%s'", h.n, h.path);
	btf__add_struct(b, "wrapper", 80);		/* a pool at 0: the object may be a bare pool */
	btf__add_field(b, "pool", pool, 0, 0);
	h = heap_pool(b, 96, 0);
	CHECK(h.n == 2, "offset 0 is never named by a struct: %u '%s'", h.n, h.type);
	end();

	begin("BTF: two structs that fit the object hold a pool at the offset: no guess");
	btf__add_struct(b, "queue", 136);		/* no name member, a pool at 64 too */
	btf__add_field(b, "depth", i_int, 0, 0);
	btf__add_field(b, "rq_pool", pool, 512, 0);
	h = heap_pool(b, 256, 64);
	CHECK(h.n == 2, "two answers: %u ('%s' '%s')", h.n, h.type, h.path);
	h = heap_pool(b, 192, 64);
	CHECK(h.n == 1 && !strcmp(h.type, "queue") && !strcmp(h.path, ".rq_pool") && !h.name_len,
	      "only the smaller fits 192: %u '%s' '%s'", h.n, h.type, h.path);
	end();

	begin("BTF: a struct made of itself (30 unnamed members at 0) costs a bounded search, "
	      "and its answer is unknown, not none: no name");
	{
		int loop = btf__add_struct(b, "loop", 128);
		char path[128];

		for (int i = 0; i < 30; i++)
			btf__add_field(b, NULL, loop, 0, 0);
		h = heap_pool(b, 128, 8);	/* without a bound: 30^8 visits */
		CHECK(h.n == 2, "the loop: %u '%s' '%s'", h.n, h.type, h.path);
		CHECK(!strcmp(pool_member(b, 128, 8, false, path), ""), "a global: '%s'", path);
	}
	end();

	begin("BTF: a struct too small to hold a pool past the offset is no candidate, loop or not");
	{
		int small = btf__add_struct(b, "small_loop", 64);	/* 8 + a 72-byte pool > 64 */
		char path[128];

		for (int i = 0; i < 30; i++)
			btf__add_field(b, NULL, small, 0, 0);
		h = heap_pool(b, 64, 8);
		CHECK(h.n == 0, "64 bytes at 8: %u '%s' '%s'", h.n, h.type, h.path);
		CHECK(!strcmp(pool_member(b, 64, 8, false, path), ""), "a global: '%s'", path);
	}
	end();
	btf__free(b);
}

/* kmp_btf_pool_pointers()'s answers as "off:path;..." */
static void add_pointer(void *arg, uint64_t off, const char *path)
{
	char *out = arg;
	size_t n = strlen(out);

	snprintf(out + n, 512 - n, "%" PRIu64 ":%s;", off, path);
}

/* The pool pointers of struct @name of @b: true when all were listed; "off:path;..." in @out. */
static bool pool_pointers(struct btf *b, const char *name, unsigned int max, char *out)
{
	uint32_t n;
	const void *d = btf__raw_data(b, &n);
	struct kmp_err err;
	struct kmp_btf kb;
	int id;
	bool ok;

	out[0] = '\0';
	if (!kmp_btf_parse(&kb, d, n, &err))
		return false;
	id = btf__find_by_name_kind(b, name, BTF_KIND_STRUCT);
	ok = kmp_btf_pool_pointers(&kb, id > 0 ? (uint32_t)id : 0, "mempool_s", max, add_pointer,
				   out);
	kmp_btf_free(&kb);
	return ok;
}

/*
 * To make_btf()'s types: struct conf, with pointers to a pool (through
 * mempool_t, const, an anonymous union, an array, an embedded struct)
 * beside a pool, a name, other pointers and an array of 1000 list_heads.
 */
static void add_conf(struct btf *b)
{
	int pool = btf__find_by_name_kind(b, "mempool_s", BTF_KIND_STRUCT);
	int pool_t = btf__find_by_name_kind(b, "mempool_t", BTF_KIND_TYPEDEF);
	int lh = btf__find_by_name_kind(b, "list_head", BTF_KIND_STRUCT);
	int i_int = btf__find_by_name_kind(b, "int", BTF_KIND_INT);
	int i_char = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	int p_pool_t = btf__add_ptr(b, pool_t);			/* mempool_t * */
	int p_cpool = btf__add_ptr(b, btf__add_const(b, pool));	/* const struct mempool_s * */
	int p_lh = btf__add_ptr(b, lh);
	int p_void = btf__add_ptr(b, 0);
	int a_pools = btf__add_array(b, i_int, p_pool_t, 3);
	int a_name = btf__add_array(b, i_int, i_char, 32);
	int a_lh = btf__add_array(b, i_int, lh, 1000);		/* holds none: looked at once */
	int u, in;

	u = btf__add_union(b, NULL, 8);
	btf__add_field(b, "u_pool", p_cpool, 0, 0);
	btf__add_field(b, "other", p_void, 0, 0);
	in = btf__add_struct(b, "inner", 8);
	btf__add_field(b, "p", p_pool_t, 0, 0);
	btf__add_struct(b, "conf", 16400);
	btf__add_field(b, "a", i_int, 0, 0);
	btf__add_field(b, "r1bio_pool", p_pool_t, 64, 0);
	btf__add_field(b, "buf_pool", pool, 128, 0);		/* a pool, not a pointer */
	btf__add_field(b, NULL, u, 704, 0);
	btf__add_field(b, "pools", a_pools, 768, 0);
	btf__add_field(b, "in", in, 960, 0);
	btf__add_field(b, "name", a_name, 1024, 0);
	btf__add_field(b, "vp", p_void, 1280, 0);
	btf__add_field(b, "lp", p_lh, 1344, 0);
	btf__add_field(b, "lists", a_lh, 1408, 0);
}

static void test_btf_pool_pointers(void)
{
	struct btf *b = make_btf(false);
	int pool_t = btf__find_by_name_kind(b, "mempool_t", BTF_KIND_TYPEDEF);
	int p_pool_t = btf__add_ptr(b, pool_t);
	int self;
	char out[512];
	bool ok;

	begin("BTF: the pointers to a pool a struct holds, in its embedded structs, unions and "
	      "arrays too");
	add_conf(b);
	ok = pool_pointers(b, "conf", 64, out);
	CHECK(ok && !strcmp(out, "8:.r1bio_pool;88:.u_pool;96:.pools[0];104:.pools[1];"
			    "112:.pools[2];120:.in.p;"), "conf: %d '%s'", ok, out);
	ok = pool_pointers(b, "conf", 5, out);
	CHECK(!ok, "more than 5: %d '%s'", ok, out);
	ok = pool_pointers(b, "inner", 64, out);
	CHECK(ok && !strcmp(out, "0:.p;"), "inner: %d '%s'", ok, out);
	ok = pool_pointers(b, "list_head", 64, out);
	CHECK(ok && !out[0], "a struct with none: %d '%s'", ok, out);
	ok = pool_pointers(b, "no_such_struct", 64, out);
	CHECK(!ok, "no struct: %d", ok);
	end();

	begin("BTF: a pool's declaration alone (a module's BTF) is the pool; a struct made of "
	      "itself or nested too deep: not all known, in bounded time");
	{
		int fwd = btf__add_fwd(b, "mempool_s", BTF_FWD_STRUCT);
		int p_fwd = btf__add_ptr(b, fwd), prev;

		btf__add_struct(b, "modconf", 8);	/* (fields go to the last type added) */
		btf__add_field(b, "pool", p_fwd, 0, 0);
		ok = pool_pointers(b, "modconf", 64, out);
		CHECK(ok && !strcmp(out, "0:.pool;"), "declared only: %d '%s'", ok, out);
		btf__add_struct(b, "unnamed", 8);	/* a pointer without a name: no path */
		btf__add_field(b, NULL, p_fwd, 0, 0);
		ok = pool_pointers(b, "unnamed", 64, out);
		CHECK(!ok && !out[0], "an unnamed pointer: %d '%s'", ok, out);
		self = btf__add_struct(b, "self", 64);
		for (int i = 0; i < 30; i++)
			btf__add_field(b, NULL, self, 0, 0);
		ok = pool_pointers(b, "self", 64, out);
		CHECK(!ok, "a struct of itself: %d '%s'", ok, out);
		prev = btf__add_struct(b, "deep0", 8);
		btf__add_field(b, "p", p_pool_t, 0, 0);
		for (int i = 1; i <= 20; i++) {
			char nm[16];
			int t;

			snprintf(nm, sizeof(nm), "deep%d", i);
			t = btf__add_struct(b, nm, 8);
			btf__add_field(b, "d", prev, 0, 0);
			prev = t;
		}
		ok = pool_pointers(b, "deep20", 64, out);
		CHECK(!ok, "20 deep: %d '%s'", ok, out);
		ok = pool_pointers(b, "deep8", 64, out);
		CHECK(ok && !strcmp(out, "0:.d.d.d.d.d.d.d.d.p;"), "8 deep: %d '%s'", ok, out);
	}
	end();
	btf__free(b);
}

/* Fuzz seeds: the BTF above, and kallsyms tables in fuzz_kallsyms's format. */

/* dump cache (dumpcache.c) */

/*
 * A dump that says how it stores its pages: the image's, each stored as
 * "PAGE" and its 4 KiB (what a kdump-compressed dump's reader gives is the
 * flags and the compressed stream; here the bytes themselves stand in).
 */
static const struct kmp_mem_ops *dc_img_ops;
static bool dc_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len, struct kmp_err *err)
{
	return dc_img_ops->read(mem, addr, buf, len, err);
}
static bool dc_stored(struct kmp_mem *mem, uint64_t addr, void *out, size_t cap, size_t *len)
{
	struct kmp_err err;

	if (cap < 4 + 4096 || !dc_img_ops->read(mem, addr & ~4095ULL, (char *)out + 4, 4096, &err))
		return false;
	memcpy(out, "PAGE", 4);
	*len = 4 + 4096;
	return true;
}
static void dc_close(struct kmp_mem *mem)
{
	(void)mem;
}
static const struct kmp_mem_ops dc_ops = { .read = dc_read, .close = dc_close, .stored = dc_stored };

/* The dump: kallsyms tables at @tab, the BTF at @btf_at (both regions whole pages). */
struct dc_dump {
	struct memimg img;
	struct kmp_mem mem;
	char vi[1024];
	unsigned char *btf;
	uint32_t btf_len;
};

static void dc_dump_init(struct dc_dump *d, struct btf *b)
{
	const uint64_t base = 0xffffffff81000000ULL, tab = 0xffffffff82000000ULL;
	const uint64_t btf_at = base + 0x10000;
	const void *raw_btf = btf__raw_data(b, &d->btf_len);
	struct ktab t;
	unsigned char *m;

	ktab_init(&t);
	ktab_add(&t, 'T', "_text", -1);
	ktab_add(&t, 'T', "mempool_alloc", -1 - 0x240);
	ktab_add(&t, 'T', "mempool_free", -1 - 0x400);
	ktab_add(&t, 'D', "__start_BTF", -1 - 0x10000);
	ktab_add(&t, 'D', "__stop_BTF", -1 - 0x10000 - (int32_t)d->btf_len);
	memimg_init(&d->img, &d->mem);
	dc_img_ops = d->mem.ops;
	d->mem.ops = &dc_ops;
	m = memimg_add(&d->img, tab, 0x3000);
	memcpy(m, t.tidx, sizeof(t.tidx));
	memcpy(m + 0x200, t.ttab, t.tlen);
	memcpy(m + 0x600, t.offs, 4 * t.num);
	memcpy(m + 0x700, &t.num, 4);
	memcpy(m + 0x708, &base, 8);
	memcpy(m + 0x1000, t.names, t.nlen);
	d->btf = memimg_add(&d->img, btf_at, (d->btf_len + 4095) & ~4095u);
	memcpy(d->btf, raw_btf, d->btf_len);
	snprintf(d->vi, sizeof(d->vi), "OSRELEASE=7.2.0-test\nSYMBOL(kallsyms_names)=%" PRIx64
		 "\nSYMBOL(kallsyms_num_syms)=%" PRIx64 "\nSYMBOL(kallsyms_token_table)=%" PRIx64
		 "\nSYMBOL(kallsyms_token_index)=%" PRIx64 "\nSYMBOL(kallsyms_offsets)=%" PRIx64
		 "\nSYMBOL(kallsyms_relative_base)=%" PRIx64 "\nCRASHTIME=1\n",
		 tab + 0x1000, tab + 0x700, tab + 0x200, tab, tab + 0x600, tab + 0x708);
}

/* Open @d alone (kallsyms and BTF), as kmempool does; what the cache did in *@state. */
static bool dc_open_as(struct dc_dump *d, struct kmp_vmlinux *v, bool store, const char **state)
{
	struct kmp_err err = { 0 };
	bool ok = kmp_vmlinux_open_dump(v, &d->mem, d->vi, 0, store, &err);

	*state = ok ? v->cache_state : err.msg;
	return ok;
}

static bool dc_open(struct dc_dump *d, struct kmp_vmlinux *v, const char **state)
{
	return dc_open_as(d, v, true, state);
}

/* Does the BTF of @v have struct @type (through the look-ups: kept answers or the BTF)? */
static bool dc_has(struct kmp_vmlinux *v, const char *type)
{
	struct kmp_wanted w[1] = { { .name = type, .tag = DW_TAG_structure_type } };
	Dwarf_Die all;

	kmp_btf_handle(v->btf, 0, &all);
	kmp_btf_scan(&all, w, 1);
	return w[0].found;
}

/* What a run would look up: mempool_free's address and size, and whether BTF has @type. */
static bool dc_answers(struct kmp_vmlinux *v, const char *type)
{
	struct kmp_sym q[1] = { { .name = "mempool_free" } };
	char name[64];
	uint64_t start, size;

	kmp_kallsyms_find(v->ks, q, 1);
	return q[0].found && q[0].addr == 0xffffffff81000400ULL && q[0].size == 0x10000 - 0x400 &&
	       kmp_kallsyms_addrsym(v->ks, 0xffffffff81000250ULL, name, sizeof(name), &start, &size) &&
	       !strcmp(name, "mempool_alloc") && dc_has(v, type);
}

/* min_nr of struct @type: its offset, through the look-ups; -1 if none. */
static int64_t dc_min_nr(struct kmp_vmlinux *v, const char *type)
{
	struct kmp_wanted w[1] = { { .name = type, .tag = DW_TAG_structure_type } };
	struct kmp_field f;
	Dwarf_Die all;

	kmp_btf_handle(v->btf, 0, &all);
	kmp_btf_scan(&all, w, 1);
	return w[0].found && kmp_btf_member(&w[0].die, "min_nr", &f) ? (int64_t)f.off : -1;
}

/* The entry's bytes (read whole), or NULL. */
static unsigned char *dc_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	long n;

	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (b = malloc((size_t)n)) && fread(b, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	else {
		free(b);
		b = NULL;
	}
	if (f)
		fclose(f);
	return b;
}

static bool dc_write(const char *path, const unsigned char *b, size_t len)
{
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(b, 1, len, f) == len;

	return (f && !fclose(f)) && ok;
}

/* Remove the memo beside the entry at @path (X.kdm beside X.kdc). */
static void dc_unlink_memo(const char *path)
{
	char m[4096];

	snprintf(m, sizeof(m), "%s", path);
	m[strlen(m) - 1] = 'm';
	unlink(m);
}

/* The memo beside the entry at @path, read whole (NULL if none). */
static unsigned char *dc_memo(const char *path, size_t *len)
{
	char m[4096];

	snprintf(m, sizeof(m), "%s", path);
	m[strlen(m) - 1] = 'm';
	return dc_file(m, len);
}

/*
 * The BTF's answers kept beside the entry: a run that asks what an
 * earlier one asked does not parse the BTF; a new question parses it (from
 * the entry, or from the dump when the entry's copy is damaged) and is
 * kept in turn; a memo that does not check out, or another entry's, is
 * not used.
 */
static void test_dump_cache_memo(struct dc_dump *d, const char *path, const char *seed_dir)
{
	struct kmp_vmlinux v;
	const char *state;
	unsigned char *m, *f;
	size_t mlen = 0, flen = 0;
	int64_t want;

	begin("dump cache: the BTF's answers kept beside the entry: the same question is not "
	      "parsed again, a new one is, and is kept");
	dc_unlink_memo(path);
	CHECK(dc_open(d, &v, &state) && !strcmp(state, "hit") && kmp_btf_parsed(v.btf),
	      "no memo: parsed at once: %s", state);
	CHECK(dc_has(&v, "mempool_q"), "its answer");
	kmp_vmlinux_close(&v);
	CHECK((m = dc_memo(path, &mlen)) != NULL, "no memo written beside %s", path);
	free(m);
	CHECK(dc_open(d, &v, &state) && !strcmp(state, "hit") && !kmp_btf_parsed(v.btf) &&
	      dc_has(&v, "mempool_q") && !kmp_btf_parsed(v.btf),
	      "the same question: %s, parsed %d", state, kmp_btf_parsed(v.btf));
	want = dc_min_nr(&v, "mempool_q");
	CHECK(want == 4 && kmp_btf_parsed(v.btf), "a new question: min_nr at %" PRId64 ", parsed %d",
	      want, kmp_btf_parsed(v.btf));
	kmp_vmlinux_close(&v);
	CHECK(dc_open(d, &v, &state) && dc_min_nr(&v, "mempool_q") == 4 &&
	      dc_has(&v, "mempool_q") && !kmp_btf_parsed(v.btf),
	      "both kept: parsed %d", kmp_btf_parsed(v.btf));
	CHECK(!dc_has(&v, "mempool_s") && kmp_btf_parsed(v.btf), "a struct it has not, asked anew");
	kmp_vmlinux_close(&v);
	end();
	if (seed_dir && (m = dc_memo(path, &mlen)) && mlen > 24) {	/* fuzz_btfmemo's seed */
		char seed[4096];

		snprintf(seed, sizeof(seed), "%s/../fuzz_btfmemo", seed_dir);
		mkdir(seed, 0755);
		snprintf(seed, sizeof(seed), "%s/../fuzz_btfmemo/memo-image", seed_dir);
		if (!dc_write(seed, m + 24, mlen - 24))
			abort();
		free(m);
	}

	begin("dump cache: a damaged memo, or another entry's, is not used; a damaged BTF in the "
	      "entry is read from the dump when a question needs it");
	m = dc_memo(path, &mlen);
	CHECK(m && mlen > 40, "memo: %zu bytes", mlen);
	if (m && mlen > 40) {
		char mp[4096];
		FILE *o;

		snprintf(mp, sizeof(mp), "%s", path);
		mp[strlen(mp) - 1] = 'm';
		m[mlen - 3] ^= 0x40;	/* under its CRC-32 */
		CHECK((o = fopen(mp, "wb")) && fwrite(m, 1, mlen, o) == mlen && !fclose(o) &&
		      dc_open(d, &v, &state) && kmp_btf_parsed(v.btf) && dc_min_nr(&v, "mempool_q") == 4,
		      "damaged memo: parsed %d", kmp_btf_parsed(v.btf));
		kmp_vmlinux_close(&v);	/* (a good memo written again) */
		free(m);
		m = dc_memo(path, &mlen);
		CHECK(m && mlen > 24, "memo rewritten");
		if (m && mlen > 24) {
			m[16] ^= 1;	/* the nonce: another entry's memo */
			CHECK((o = fopen(mp, "wb")) && fwrite(m, 1, mlen, o) == mlen && !fclose(o) &&
			      dc_open(d, &v, &state) && kmp_btf_parsed(v.btf) &&
			      dc_min_nr(&v, "mempool_q") == 4,
			      "another entry's memo: parsed %d", kmp_btf_parsed(v.btf));
			kmp_vmlinux_close(&v);
		}
		free(m);
		/* the memo good, the entry's BTF damaged: a new question reads the dump's */
		f = dc_file(path, &flen);
		if (f) {
			struct kmp_dcache_view view;
			const char *why;

			kmp_dcache_parse(f, flen, &view, &why);
			((unsigned char *)view.t.btf)[8] ^= 0x10;
			CHECK(dc_write(path, f, flen) && dc_open(d, &v, &state) &&
			      !strcmp(state, "hit") && !kmp_btf_parsed(v.btf),
			      "damaged BTF, good memo: %s, parsed %d", state, kmp_btf_parsed(v.btf));
			CHECK(dc_has(&v, "mempool_q") && !kmp_btf_parsed(v.btf), "a kept answer");
			CHECK(dc_has(&v, "list_head") && kmp_btf_parsed(v.btf) &&
			      dc_min_nr(&v, "mempool_q") == 4, "a new question: from the dump");
			kmp_vmlinux_close(&v);
			free(f);
		}
	}
	end();
}

static void test_dump_cache(const char *seed_dir)
{
	char dir[] = "/tmp/kmp-dcache-XXXXXX", path[4096];
	struct btf *b = make_btf(false);
	struct kmp_vmlinux v;
	struct dc_dump d;
	const char *state;
	unsigned char *f;
	size_t flen = 0;
	char *name;

	if (!mkdtemp(dir))
		abort();
	setenv("KMEMPOOL_CACHE", dir, 1);
	dc_dump_init(&d, b);

	begin("dump cache: a first run writes the entry, a second uses it and answers the same");
	CHECK(dc_open(&d, &v, &state) && !strcmp(state, "written") && dc_answers(&v, "mempool_s"),
	      "first run: %s", state);
	snprintf(path, sizeof(path), "%s", v.cache_path);
	kmp_vmlinux_close(&v);
	CHECK(dc_open(&d, &v, &state) && !strcmp(state, "hit") && v.dcache && v.ks->borrowed &&
	      dc_answers(&v, "mempool_s"), "second run: %s", state);
	kmp_vmlinux_close(&v);
	end();

	begin("dump cache: a run that keeps no entry (triage: each dump once) uses one, and "
	      "writes none where there is none");
	{
		char other[] = "/tmp/kmp-dcache-XXXXXX";
		DIR *dp;
		struct dirent *de;
		int files = 0;

		CHECK(dc_open_as(&d, &v, false, &state) && !strcmp(state, "hit") &&
		      dc_answers(&v, "mempool_s"), "an entry there: %s", state);
		kmp_vmlinux_close(&v);
		if (mkdtemp(other)) {
			setenv("KMEMPOOL_CACHE", other, 1);
			CHECK(dc_open_as(&d, &v, false, &state) && !strncmp(state, "miss, not kept", 14) &&
			      dc_answers(&v, "mempool_s"), "none there: %s", state);
			kmp_vmlinux_close(&v);
			if ((dp = opendir(other))) {
				while ((de = readdir(dp)))
					files += de->d_name[0] != '.';
				closedir(dp);
			}
			CHECK(!files, "%d files written", files);
			rmdir(other);
			setenv("KMEMPOOL_CACHE", dir, 1);
		}
	}
	end();

	begin("dump cache: an entry with no address ranges is refused; a memo is written only "
	      "beside the entry of its nonce; a memo without its entry is removed");
	f = dc_file(path, &flen);
	CHECK(f != NULL, "no entry at %s", path);
	if (f) {
		struct kmp_dcache_view view;
		const char *why = NULL;
		uint64_t zero = 0, btf_off, nonce;
		uint32_t crc;
		char orphan[4096], mp[4096];
		struct stat st;

		memcpy(&btf_off, f + 24 + 9 * 16, 8);
		memcpy(&nonce, f + 232, 8);
		memcpy(f + 24 + 16 + 8, &zero, 8);	/* the ranges' length: 0 */
		crc = libdeflate_crc32(0, f + KMP_DCACHE_HEADER, btf_off - KMP_DCACHE_HEADER);
		memcpy(f + 12, &crc, 4);
		CHECK(!kmp_dcache_parse(f, flen, &view, &why) && why && strstr(why, "sizes"),
		      "no ranges: %s", why ? why : "taken");
		free(f);
		snprintf(mp, sizeof(mp), "%s", path);
		mp[strlen(mp) - 1] = 'm';
		unlink(mp);
		CHECK(!kmp_dcache_memo_write(path, nonce ^ 1, "x", 1) && stat(mp, &st),
		      "a memo for another nonce written");
		CHECK(kmp_dcache_memo_write(path, nonce, "x", 1) && !stat(mp, &st),
		      "the memo of its nonce not written");
		unlink(mp);
		snprintf(orphan, sizeof(orphan), "%s/0123456789abcdef.kdm", dir);
		dc_write(orphan, (const unsigned char *)"x", 1);
		unlink(path);	/* a miss: the store evicts */
		CHECK(dc_open(&d, &v, &state) && !strcmp(state, "written") && stat(orphan, &st),
		      "orphan memo still there after a store: %s", state);
		kmp_vmlinux_close(&v);
	}
	end();

	if (seed_dir) {	/* the fuzz harness's seed: this entry */
		char seed[4096];

		f = dc_file(path, &flen);
		snprintf(seed, sizeof(seed), "%s/dcache-entry", seed_dir);
		if (!f || !dc_write(seed, f, flen))
			abort();
		free(f);
	}

	begin("dump cache: a dump that stores other bytes in its BTF gets its own answer, not the entry's");
	name = memmem(d.btf, d.btf_len, "mempool_s", 10);
	CHECK(name != NULL, "no name to change in the BTF");
	if (name) {
		name[8] = 'q';		/* mempool_q: still a good BTF, another answer */
		CHECK(dc_open(&d, &v, &state) && !strcmp(state, "written") &&
		      dc_answers(&v, "mempool_q") && !dc_has(&v, "mempool_s"),
		      "changed dump: %s", state);
		kmp_vmlinux_close(&v);
		CHECK(dc_open(&d, &v, &state) && !strcmp(state, "hit") && dc_answers(&v, "mempool_q"),
		      "changed dump, again: %s", state);
		kmp_vmlinux_close(&v);
	}
	end();

	begin("dump cache: an entry damaged on disk (CRC-32, bounds, a page record, a table's "
	      "invariants) is a miss, and is rewritten");
	f = dc_file(path, &flen);
	CHECK(f != NULL, "no entry at %s", path);
	if (f) {
		struct kmp_dcache_view view;
		const char *why;
		uint32_t crc;
		size_t pages_off = (size_t)-1;

		CHECK(kmp_dcache_parse(f, flen, &view, &why), "the entry: %s", why);
		if (!why)
			pages_off = (size_t)(view.pages - f);
		/* a byte of the BTF, which its own CRC-32 covers (no memo: parsed at once) */
		((unsigned char *)view.t.btf)[view.t.btf_len / 2] ^= 1;
		CHECK(!kmp_dcache_parse(f, flen, &view, &why) && strstr(why, "CRC"), "parse: %s",
		      why ? why : "took it");
		dc_unlink_memo(path);
		CHECK(dc_write(path, f, flen) && dc_open(&d, &v, &state) && !strcmp(state, "written") &&
		      dc_answers(&v, "mempool_q"), "flipped BTF byte: %s", state);
		kmp_vmlinux_close(&v);
		CHECK(!kmp_dcache_parse(f, flen - 8, &view, &why), "a cut entry parsed");
		free(f);
		/* a stored page's byte (no CRC-32: compared with the dump's) */
		f = dc_file(path, &flen);
		CHECK(f && pages_off < flen, "rewritten entry");
		if (f && pages_off < flen) {
			f[flen - 1] ^= 1;
			CHECK(kmp_dcache_parse(f, flen, &view, &why), "page record: %s", why);
			CHECK(dc_write(path, f, flen) && dc_open(&d, &v, &state) &&
			      !strcmp(state, "written") && dc_answers(&v, "mempool_q"),
			      "flipped page byte: %s", state);
			kmp_vmlinux_close(&v);
		}
		free(f);
		/* a symbol's entry pointing past the names, under a good CRC-32 */
		f = dc_file(path, &flen);
		CHECK(f && kmp_dcache_parse(f, flen, &view, &why), "rewritten entry: %s", why);
		if (f && !why) {
			uint32_t bad = (uint32_t)view.t.ks.names_len + 5;

			memcpy((unsigned char *)view.t.ks.pos + 4, &bad, 4);
			crc = libdeflate_crc32(0, f + KMP_DCACHE_HEADER, (size_t)((const unsigned char *)
					       view.t.btf - f) - KMP_DCACHE_HEADER);
			memcpy(f + 12, &crc, 4);
			CHECK(kmp_dcache_parse(f, flen, &view, &why), "re-sealed entry: %s", why);
			{
				struct kmp_kallsyms ks;

				CHECK(!kmp_kallsyms_adopt(&ks, &view.t.ks, &why) && strstr(why, "entry"),
				      "adopt: %s", why ? why : "took it");
			}
			CHECK(dc_write(path, f, flen) && dc_open(&d, &v, &state) &&
			      !strcmp(state, "written") && dc_answers(&v, "mempool_q"), "bad table: %s",
			      state);
			kmp_vmlinux_close(&v);
		}
		free(f);
	}
	end();

	test_dump_cache_memo(&d, path, seed_dir);

	begin("dump cache: KMEMPOOL_CACHE=off, a directory others may write, a dump without "
	      "stored pages: no cache, the same answers");
	setenv("KMEMPOOL_CACHE", "off", 1);
	CHECK(dc_open(&d, &v, &state) && !strcmp(state, "off") && dc_answers(&v, "mempool_q"), "%s",
	      state);
	kmp_vmlinux_close(&v);
	setenv("KMEMPOOL_CACHE", dir, 1);
	chmod(dir, 0777);
	CHECK(dc_open(&d, &v, &state) && !strncmp(state, "not used", 8) && !v.dcache &&
	      dc_answers(&v, "mempool_q"), "%s", state);
	kmp_vmlinux_close(&v);
	chmod(dir, 0700);
	d.mem.ops = dc_img_ops;
	CHECK(dc_open(&d, &v, &state) && !strncmp(state, "off", 3) && dc_answers(&v, "mempool_q"),
	      "%s", state);
	kmp_vmlinux_close(&v);
	end();

	dc_unlink_memo(path);
	unlink(path);
	rmdir(dir);
	unsetenv("KMEMPOOL_CACHE");
	memimg_free(&d.img);
	btf__free(b);
}

static int seeds(const char *dir)
{
	struct btf *b = make_btf(false);
	uint32_t size;
	const void *d = btf__raw_data(b, &size);
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/btf-stock-layout", dir);
	if (!(f = fopen(path, "wb")) || fwrite(d, 1, size, f) != size || fclose(f))
		return 1;
	add_conf(b);		/* (the pointers to a pool of kmp_btf_pool_pointers()) */
	d = btf__raw_data(b, &size);
	snprintf(path, sizeof(path), "%s/btf-pool-pointers", dir);
	if (!(f = fopen(path, "wb")) || fwrite(d, 1, size, f) != size || fclose(f))
		return 1;
	btf__free(b);
	{
		char sub[4096];

		snprintf(sub, sizeof(sub), "%s/../fuzz_dcache", dir);
		mkdir(sub, 0755);
		test_dump_cache(sub);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return seeds(argv[1]);
	test_kallsyms_relative();
	test_kallsyms_self_relative();
	test_kallsyms_damaged();
	test_vmcoreinfo_symbol();
	test_kallsyms_load_memory();
	test_read_bulk();
	test_addrsyms();
	test_orc();
	test_btf_layout();
	test_btf_damaged();
	test_btf_pool_member();
	test_btf_memo_split();
	test_btf_heap_pool();
	test_btf_pool_pointers();
	test_dump_cache(NULL);
	printf("unit-btf: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
