// SPDX-License-Identifier: GPL-2.0
/*
 * mkcore: write a crafted ELF vmcore for the test object fake_vmlinux, so
 * that the real kmempool binary runs end to end on the host.  The pools
 * are laid out by the test object's DWARF (as the analyzer reads it); the
 * symbols mempool_list, linux_banner and mempool_format_version lie at
 * their link-time address plus the KASLR offset, the pools and strings in
 * the direct map.  Each region is one PT_LOAD segment at a page-aligned
 * file offset.
 *
 *   mkcore FAKE_VMLINUX OUT [options]
 *	--pools N		pools on the list (default 3)
 *	--name I=TEXT		name of pool I (default pool-I)
 *	--name-hex I=HEX	name of pool I as hex bytes (may hold \n, be empty)
 *	--name-len I=N		name of pool I: N times 'n'
 *	--owner I=TEXT		owner of pool I (default none: "-")
 *	--waiters I=N		N tasks waiting on pool I
 *	--counters I=MIN,CURR,LOW  min_nr, curr_nr and low_nr of pool I (default
 *				4 + I % 7, the same or 0 with waiters, I % 3 at most curr_nr)
 *	--skip I		pool I is corrupt: left out of OUT.expected
 *	--vi KEY=VALUE		set a VMCOREINFO line (replaces the default)
 *	--vi KEY		drop a VMCOREINFO line
 *	--kaslr HEX		KASLR offset (default ffffffff80000000)
 *	--misalign N		segments at N bytes past a page boundary in the file
 *
 * Writes OUT, OUT.expected (the report kmempool must print) and prints the
 * file layout on stdout, one "SEGMENT vaddr offset size" line each, for
 * tests that cut the file at a chosen place.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "pools.h"
#include "report.h"
#include "vmlinux.h"
#include "elfcore.h"

/*
 * Everything lies in the kernel text mapping (KASLR offset + link address),
 * which libkdumpfile translates without page tables: the regions below are
 * offsets from the KASLR offset, the physical address is KTEXT_PHYS plus
 * that offset.
 */
#define POOL_OFF	0x400000ULL
#define STR_OFF		0x800000ULL
#define TASK_OFF	0xc00000ULL
#define WQE_OFF		0xe00000ULL
#define KTEXT_PHYS	0x1000000ULL
#define PAGE		4096ULL
#define MAX_POOLS	20000
#define MAX_VI		32

struct region {
	const char *name;
	uint64_t vaddr, paddr, size, offset;
	unsigned char *data;
};

static struct kmp_layout L;
static struct region R[8];
static int nr;

static void die(const char *msg)
{
	fprintf(stderr, "mkcore: %s\n", msg);
	exit(2);
}

static struct region *add_region(const char *name, uint64_t vaddr, uint64_t paddr,
				 uint64_t size)
{
	struct region *r = &R[nr++];

	r->name = name;
	r->vaddr = vaddr;
	r->paddr = paddr;
	r->size = (size + PAGE - 1) & ~(PAGE - 1);
	r->data = calloc(1, r->size);
	if (!r->data)
		die("out of memory");
	return r;
}

static void put(unsigned char *base, uint64_t off, uint64_t size, uint64_t v)
{
	for (uint64_t i = 0; i < size; i++)
		base[off + i] = (unsigned char)(v >> (8 * i));
}

static void putf(unsigned char *base, const struct kmp_field *f, uint64_t v)
{
	put(base, f->off, f->size, v);
}

struct pool_spec {
	char *name;
	size_t name_len;
	char *owner;
	int waiters;
	int skip;
	bool counters;		/* --counters given: */
	long long min_nr, curr_nr, low_nr;
};

static struct pool_spec P[MAX_POOLS];
static char *vi_key[MAX_VI], *vi_val[MAX_VI];
static int nvi;

static void set_vi(const char *key, const char *val)
{
	for (int i = 0; i < nvi; i++) {
		if (!strcmp(vi_key[i], key)) {
			free(vi_val[i]);
			vi_val[i] = val ? strdup(val) : NULL;
			return;
		}
	}
	if (nvi == MAX_VI)
		die("too many --vi");
	vi_key[nvi] = strdup(key);
	vi_val[nvi++] = val ? strdup(val) : NULL;
}

static int pool_index(const char *arg, const char **rest, int npools)
{
	char *end;
	long i = strtol(arg, &end, 10);

	if (end == arg || i < 0 || i >= npools || (*end != '=' && *end != '\0'))
		die("bad pool index (give --pools first)");
	*rest = *end ? end + 1 : end;
	return (int)i;
}

/* Counters that keep 0 <= low_nr <= curr_nr <= min_nr, unless --counters said otherwise. */
static void default_counters(struct pool_spec *p, int i)
{
	if (p->counters)
		return;
	p->min_nr = 4 + i % 7;
	p->curr_nr = p->waiters ? 0 : p->min_nr;
	p->low_nr = i % 3 < p->curr_nr ? i % 3 : p->curr_nr;
}

static char *from_hex(const char *h, size_t *len)
{
	size_t n = strlen(h) / 2;
	char *s = malloc(n + 1);

	if (!s)
		die("out of memory");
	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		if (sscanf(h + 2 * i, "%2x", &b) != 1)
			die("bad hex");
		s[i] = (char)b;
	}
	s[n] = '\0';
	*len = n;
	return s;
}

int main(int argc, char **argv)
{
	struct kmp_sym syms[] = { { .name = "mempool_exit" }, { .name = "mempool_list" },
				  { .name = "linux_banner" },
				  { .name = "mempool_format_version" } };
	uint64_t kaslr = 0xffffffff80000000ULL, lo, hi, pool_stride, str_size = 0, off;
	uint64_t POOL_BASE, STR_BASE, TASK_BASE, WQE_BASE;
	int npools = 3, ntasks = 0;
	uint64_t misalign = 0;
	struct kmp_vmlinux v;
	struct kmp_err err;
	char vi[4096], path[4096], *text = NULL;
	size_t vilen = 0, textlen;
	FILE *f;

	if (argc < 3)
		die("usage: mkcore FAKE_VMLINUX OUT [options]");
	if (!kmp_vmlinux_open(&v, argv[1], &err))
		die(err.msg);
	kmp_vmlinux_symbols(&v, syms, 4);
	for (int i = 0; i < 4; i++)
		if (!syms[i].found)
			die("symbol missing in the test object");
	if (!kmp_layout_load(&v, syms[0].addr, false, &L, &err))
		die(err.msg);

	set_vi("OSRELEASE", "6.1.0-fake");
	set_vi("BUILD-ID", v.build_id);
	set_vi("PAGESIZE", "4096");
	set_vi("KERNELOFFSET", "0");	/* replaced below */
	set_vi("CRASHTIME", "1796277309");
	for (int i = 0; i < MAX_POOLS; i++) {
		P[i].name = malloc(32);
		P[i].name_len = (size_t)snprintf(P[i].name, 32, "pool-%d", i);
	}
	for (int a = 3; a < argc; a++) {
		const char *o = argv[a], *arg = a + 1 < argc ? argv[a + 1] : NULL, *rest;
		int i;

		if (!arg)
			die("option without argument");
		a++;
		if (!strcmp(o, "--pools")) {
			npools = atoi(arg);
			if (npools < 0 || npools > MAX_POOLS)
				die("bad --pools");
		} else if (!strcmp(o, "--misalign")) {
			misalign = strtoull(arg, NULL, 0) % PAGE;
		} else if (!strcmp(o, "--kaslr")) {
			kaslr = strtoull(arg, NULL, 16);
		} else if (!strcmp(o, "--vi")) {
			const char *eq = strchr(arg, '=');
			char key[128];

			snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg),
				 arg);
			set_vi(key, eq ? eq + 1 : NULL);
		} else {
			i = pool_index(arg, &rest, npools);
			if (!strcmp(o, "--name")) {
				free(P[i].name);
				P[i].name = strdup(rest);
				P[i].name_len = strlen(rest);
			} else if (!strcmp(o, "--name-hex")) {
				free(P[i].name);
				P[i].name = from_hex(rest, &P[i].name_len);
			} else if (!strcmp(o, "--name-len")) {
				size_t n = strtoul(rest, NULL, 10);

				free(P[i].name);
				P[i].name = malloc(n + 1);
				memset(P[i].name, 'n', n);
				P[i].name[n] = '\0';
				P[i].name_len = n;
			} else if (!strcmp(o, "--owner")) {
				P[i].owner = strdup(rest);
			} else if (!strcmp(o, "--waiters")) {
				P[i].waiters = atoi(rest);
				ntasks += P[i].waiters;
			} else if (!strcmp(o, "--counters")) {
				if (sscanf(rest, "%lld,%lld,%lld", &P[i].min_nr, &P[i].curr_nr,
					   &P[i].low_nr) != 3)
					die("bad --counters");
				P[i].counters = true;
			} else if (!strcmp(o, "--skip")) {
				P[i].skip = 1;
			} else {
				die("unknown option");
			}
		}
	}
	for (int i = 0; i < npools; i++)
		default_counters(&P[i], i);
	{
		char k[32];

		snprintf(k, sizeof(k), "%" PRIx64, kaslr);
		for (int i = 0; i < nvi; i++)
			if (!strcmp(vi_key[i], "KERNELOFFSET") && vi_val[i] &&
			    !strcmp(vi_val[i], "0")) {
				free(vi_val[i]);
				vi_val[i] = strdup(k);
			}
	}
	for (int i = 0; i < nvi; i++)
		if (vi_val[i])
			vilen += (size_t)snprintf(vi + vilen, sizeof(vi) - vilen, "%s=%s\n",
						  vi_key[i], vi_val[i]);

	POOL_BASE = kaslr + POOL_OFF;
	STR_BASE = kaslr + STR_OFF;
	TASK_BASE = kaslr + TASK_OFF;
	WQE_BASE = kaslr + WQE_OFF;
	/* The kernel image: the test object's data at its address plus KASLR. */
	lo = syms[1].addr, hi = syms[1].addr + 16;
	for (int i = 2; i < 4; i++) {
		if (syms[i].addr < lo)
			lo = syms[i].addr;
		if (syms[i].addr + syms[i].size > hi)
			hi = syms[i].addr + syms[i].size;
	}
	lo &= ~(PAGE - 1);
	struct region *kt = add_region("ktext", kaslr + lo, KTEXT_PHYS + lo, hi - lo);
	for (int i = 2; i < 4; i++)
		if (!kmp_vmlinux_read(&v, syms[i].addr, kt->data + (syms[i].addr - lo),
				      syms[i].size))
			die("cannot read the test object's data");
	uint64_t head = kaslr + syms[1].addr;
	unsigned char *hb = kt->data + (syms[1].addr - lo);

	pool_stride = (L.pool_size + 63) & ~63ULL;
	for (int i = 0; i < npools; i++)
		str_size += ((P[i].name_len + 8) & ~7ULL) + (P[i].owner ? 64 : 0);
	struct region *pr = add_region("pools", POOL_BASE, KTEXT_PHYS + POOL_OFF,
				       npools ? npools * pool_stride : 1);
	struct region *sr = add_region("strings", STR_BASE, KTEXT_PHYS + STR_OFF,
				       str_size ? str_size : 1);
	struct region *tr = NULL, *wr = NULL;

	if (ntasks) {
		tr = add_region("tasks", TASK_BASE, KTEXT_PHYS + TASK_OFF, ntasks * 0x400ULL);
		wr = add_region("wqes", WQE_BASE, KTEXT_PHYS + WQE_OFF, ntasks * 0x100ULL);
	}
	uint64_t soff = 0, prev = head;
	int task = 0;

	for (int i = 0; i < npools; i++) {
		unsigned char *p = pr->data + i * pool_stride;
		uint64_t addr = POOL_BASE + i * pool_stride, node = addr + L.list.off;
		uint64_t wq = addr + L.wait.off + L.wqh_head.off, wprev = wq;

		memcpy(sr->data + soff, P[i].name, P[i].name_len);
		putf(p, &L.name, STR_BASE + soff);
		soff += (P[i].name_len + 8) & ~7ULL;
		if (P[i].owner) {
			snprintf((char *)sr->data + soff, 64, "%s", P[i].owner);
			putf(p, &L.owner, STR_BASE + soff);
			soff += 64;
		}
		putf(p, &L.type, (uint64_t)i % 4);
		putf(p, &L.elem_size, 64 + (uint64_t)i);
		putf(p, &L.min_nr, (uint64_t)P[i].min_nr);
		putf(p, &L.curr_nr, (uint64_t)P[i].curr_nr);
		putf(p, &L.low_nr, (uint64_t)P[i].low_nr);
		putf(p, &L.nr_reserve, (uint64_t)i * 3 + 1);
		putf(p, &L.nr_wait, (uint64_t)i + 2);
		/* Wait queue: the head, then this pool's waiters. */
		for (int w = 0; w < P[i].waiters; w++, task++) {
			uint64_t t = TASK_BASE + task * 0x400ULL, e = WQE_BASE + task * 0x100ULL;
			uint64_t en = e + L.wqe_entry.off;
			unsigned char *tb = tr->data + task * 0x400, *eb = wr->data + task * 0x100;
			unsigned char *pb = wprev == wq ? p + L.wait.off + L.wqh_head.off :
				wr->data + (task - 1) * 0x100 + L.wqe_entry.off;

			putf(tb, &L.task_pid, 100 + (uint64_t)task);
			putf(tb, &L.task_state, 2);
			snprintf((char *)tb + L.task_comm.off, 16, "waiter-%d", task);
			putf(eb, &L.wqe_private, t);
			put(pb, L.lh_next.off, 8, en);
			put(eb, L.wqe_entry.off + L.lh_prev.off, 8, wprev);
			put(eb, L.wqe_entry.off + L.lh_next.off, 8, wq);
			wprev = en;
		}
		put(p, L.wait.off + L.wqh_head.off + L.lh_prev.off, 8, wprev);
		if (!P[i].waiters)
			put(p, L.wait.off + L.wqh_head.off + L.lh_next.off, 8, wq);
		/* mempool_list: prev -> this node */
		put(prev == head ? hb : pr->data + (prev - POOL_BASE), L.lh_next.off, 8, node);
		put(p, L.list.off + L.lh_prev.off, 8, prev);
		prev = node;
	}
	put(prev == head ? hb : pr->data + (prev - POOL_BASE), L.lh_next.off, 8, head);
	put(hb, L.lh_prev.off, 8, prev);

	/* ELF: header, program headers, the VMCOREINFO note, page-aligned segments. */
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[9] = { 0 };
	Elf64_Nhdr nh = { 11, (Elf64_Word)vilen, 0 };
	size_t notesz = sizeof(nh) + 12 + ((vilen + 3) & ~3UL);
	size_t hdrsz = sizeof(eh) + (size_t)(nr + 1) * sizeof(Elf64_Phdr);

	eh = elfcore_header((unsigned int)nr + 1);
	ph[0].p_type = PT_NOTE;
	ph[0].p_offset = hdrsz;
	ph[0].p_filesz = notesz;
	off = ((hdrsz + notesz + PAGE - 1) & ~(PAGE - 1)) + misalign;
	for (int i = 0; i < nr; i++) {
		R[i].offset = off;
		ph[i + 1] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_W | PF_X, off, R[i].vaddr,
					  R[i].paddr, R[i].size, R[i].size, 0 };
		off += R[i].size;
	}
	f = fopen(argv[2], "wb");
	if (!f)
		die("cannot write the core");
	fwrite(&eh, sizeof(eh), 1, f);
	fwrite(ph, sizeof(ph[0]), (size_t)nr + 1, f);
	fwrite(&nh, sizeof(nh), 1, f);
	fwrite("VMCOREINFO\0\0", 12, 1, f);
	fwrite(vi, 1, vilen, f);
	fwrite("\0\0\0", 1, ((vilen + 3) & ~3UL) - vilen, f);
	for (int i = 0; i < nr; i++) {
		fseek(f, (long)R[i].offset, SEEK_SET);
		fwrite(R[i].data, 1, R[i].size, f);
		printf("%s 0x%" PRIx64 " %" PRIu64 " %" PRIu64 "\n", R[i].name, R[i].vaddr,
		       R[i].offset, R[i].size);
	}
	if (fclose(f))
		die("cannot write the core");
	printf("pool_stride %" PRIu64 "\n", pool_stride);

	/* The report kmempool must print for this core. */
	f = open_memstream(&text, &textlen);
	kmp_report_header(f, "1.0");
	for (int i = 0; i < npools; i++) {
		struct kmp_pool q = { 0 };

		if (P[i].skip)
			continue;
		q.name = P[i].name;
		q.type = kmp_type_name(&L, i % 4);
		q.elem_size = 64 + (uint64_t)i;
		q.min_nr = P[i].min_nr;
		q.curr_nr = P[i].curr_nr;
		q.low_nr = P[i].low_nr;
		q.nr_reserve = (uint64_t)i * 3 + 1;
		q.nr_wait = (uint64_t)i + 2;
		q.waiting = (uint64_t)P[i].waiters;
		snprintf(q.owner, sizeof(q.owner), "%s", P[i].owner ? P[i].owner : "-");
		kmp_report_pool(f, &q);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s.expected", argv[2]);
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, textlen, f) != textlen || fclose(f))
		die("cannot write the expected report");
	free(text);
	kmp_vmlinux_close(&v);
	return 0;
}
