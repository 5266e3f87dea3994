// SPDX-License-Identifier: GPL-2.0
/*
 * ddcheck: every page of a real kdump-compressed dump read by kmempool's
 * own reader (lib/dump/diskdump.c) and by libkdumpfile, compared byte for byte.
 * A page the reader takes must be one libkdumpfile reads, with the same
 * bytes; a page it leaves must be one it may leave (another compression).
 *
 *   ddcheck DUMP PERCENT
 *	ok when no page differs and the reader took at least PERCENT of the
 *	dumped pages (100 for zlib and uncompressed dumps, 0 for lzo ones);
 *	one line says how many pages it took and left.  Exit 0, 1 (a
 *	difference, or too few taken) or 2 (cannot open the dump).
 *
 * A second line checks the translation kmempool sets up itself
 * (lib/dump/ddxlat.c) against libkdumpfile's on the same dump: VMCOREINFO the
 * same bytes, every method and every map of the two translation systems
 * the same, and the same answer (or none from both) for kernel virtual
 * addresses in each range of the kernel's map and for the direct mapping
 * of every 64th dumped page.
 */
#include <fcntl.h>
#include <libkdumpfile/kdumpfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddxlat.h"
#include "diskdump.h"

static ssize_t plain_pread(void *arg, int fd, void *buf, size_t count, off_t off)
{
	(void)arg;
	return pread(fd, buf, count, off);
}

struct pages {
	struct kmp_ddreader *r;
	int fd;
};

static kdump_ctx_t *g_ctx;		/* libkdumpfile's, for its messages */
static uint64_t g_unmapped;		/* addresses both find unmapped, same message */

static const unsigned char *page_of(void *arg, uint64_t pfn)
{
	struct pages *p = arg;

	return kmp_ddreader_page(p->r, plain_pread, NULL, p->fd, pfn);
}

/* Do two methods say the same?  (What a kind's parameters are, compared by kind.) */
static bool same_meth(const addrxlat_meth_t *a, const addrxlat_meth_t *b)
{
	const addrxlat_param_pgt_t *pa = &a->param.pgt, *pb = &b->param.pgt;

	if (a->kind != b->kind || (a->kind != ADDRXLAT_NOMETH && a->target_as != b->target_as))
		return false;
	switch (a->kind) {
	case ADDRXLAT_NOMETH:
		return true;
	case ADDRXLAT_LINEAR:
		return a->param.linear.off == b->param.linear.off;
	case ADDRXLAT_PGT:
		return pa->root.as == pb->root.as && pa->root.addr == pb->root.addr &&
		       pa->pte_mask == pb->pte_mask && pa->pf.pte_format == pb->pf.pte_format &&
		       pa->pf.nfields == pb->pf.nfields &&
		       !memcmp(pa->pf.fieldsz, pb->pf.fieldsz, sizeof(pa->pf.fieldsz));
	case ADDRXLAT_MEMARR:
		return a->param.memarr.base.as == b->param.memarr.base.as &&
		       a->param.memarr.base.addr == b->param.memarr.base.addr &&
		       a->param.memarr.shift == b->param.memarr.shift &&
		       a->param.memarr.elemsz == b->param.memarr.elemsz &&
		       a->param.memarr.valsz == b->param.memarr.valsz;
	case ADDRXLAT_LOOKUP:
		if (a->param.lookup.endoff != b->param.lookup.endoff ||
		    a->param.lookup.nelem != b->param.lookup.nelem)
			return false;
		for (size_t i = 0; i < a->param.lookup.nelem; i++) {
			if (a->param.lookup.tbl[i].orig != b->param.lookup.tbl[i].orig ||
			    a->param.lookup.tbl[i].dest != b->param.lookup.tbl[i].dest)
				return false;
		}
		return true;
	default:	/* custom: functions of their own, not comparable */
		return false;
	}
}

/* Field by field: a range's padding is not part of it. */
static bool same_map(const addrxlat_map_t *a, const addrxlat_map_t *b)
{
	size_t n = a ? addrxlat_map_len(a) : 0;
	const addrxlat_range_t *ra, *rb;

	if (!a || !b)
		return !a && !b;
	if (n != addrxlat_map_len(b))
		return false;
	ra = addrxlat_map_ranges(a);
	rb = addrxlat_map_ranges(b);
	for (size_t i = 0; i < n; i++) {
		if (ra[i].endoff != rb[i].endoff || ra[i].meth != rb[i].meth)
			return false;
	}
	return true;
}

/*
 * One address both ways: false (and a line saying how) if the answers
 * differ.  With @may_leave (a dump whose pages the reader may leave), no
 * answer from kmempool where libkdumpfile has one is allowed: kmempool
 * then asks libkdumpfile; counted in *@left.
 */
static bool same_xlat(struct kmp_ddxlat *x, addrxlat_ctx_t *tctx, addrxlat_sys_t *tsys,
		      uint64_t va, uint64_t *n, bool may_leave, uint64_t *left)
{
	addrxlat_fulladdr_t fa = { .addr = va, .as = ADDRXLAT_KVADDR };
	bool theirs = addrxlat_fulladdr_conv(&fa, ADDRXLAT_KPHYSADDR, tctx, tsys) == ADDRXLAT_OK;
	uint64_t pa = 0;
	addrxlat_status st = kmp_ddxlat_conv(x, va, &pa);
	bool ours = st == ADDRXLAT_OK;

	++*n;
	if (ours == theirs && ours && pa == fa.addr)
		return true;
	if (!ours && !theirs) {
		/* kmempool's message for an address not mapped is libkdumpfile's */
		char b[8], want[512];
		size_t len = sizeof(b);
		kdump_status ks = kdump_read(g_ctx, KDUMP_KVADDR, va, b, &len);

		if (st != ADDRXLAT_ERR_NOTPRESENT)
			return true;
		snprintf(want, sizeof(want), "Cannot get page I/O address: %s", kmp_ddxlat_err(x));
		if (ks == KDUMP_ERR_ADDRXLAT && !strcmp(kdump_get_err(g_ctx), want)) {
			++g_unmapped;
			return true;
		}
		printf("# 0x%llx: not mapped: kmempool says \"%s\", libkdumpfile (%d) \"%s\"\n",
		       (unsigned long long)va, want, ks, kdump_get_err(g_ctx));
		return false;
	}
	if (!ours && theirs && may_leave) {
		++*left;
		return true;
	}
	printf("# 0x%llx: kmempool %s 0x%llx, libkdumpfile %s 0x%llx\n", (unsigned long long)va,
	       ours ? "ok" : "none", (unsigned long long)pa, theirs ? "ok" : "none",
	       (unsigned long long)fa.addr);
	return false;
}

/* The second line (see the top): 0 ok, 1 not. */
static int check_xlat(const char *path, kdump_ctx_t *ctx, const struct kmp_diskdump *d,
		      struct pages *pg, bool may_leave)
{
	struct kmp_ddxlat *x = kmp_ddxlat_new(d, page_of, pg);
	addrxlat_ctx_t *tctx = NULL;
	addrxlat_sys_t *tsys = NULL;
	const addrxlat_meth_t *direct;
	const addrxlat_map_t *kv;
	uint64_t tried = 0, left = 0, start = 0;
	char *raw = NULL;
	int bad = 0;

	if (!x && may_leave) {
		printf("ok - ddxlat: %s: left to libkdumpfile (its translation's set-up reads a page "
		       "kmempool's reader does not take)\n", path);
		return 0;
	}
	if (!x) {
		printf("not ok - ddxlat: %s: kmempool does not set up this dump's translation\n", path);
		return 1;
	}
	if (kdump_vmcoreinfo_raw(ctx, &raw) != KDUMP_OK || !d->vmcoreinfo ||
	    strcmp(raw, d->vmcoreinfo)) {
		printf("# VMCOREINFO differs from libkdumpfile's\n");
		bad = 1;
	}
	if (kdump_get_addrxlat(ctx, &tctx, &tsys) != KDUMP_OK) {
		printf("not ok - ddxlat: %s: no translation from libkdumpfile\n", path);
		kmp_ddxlat_free(x);
		free(raw);
		return 1;
	}
	for (int i = 0; i < ADDRXLAT_SYS_METH_NUM; i++) {
		if (!same_meth(addrxlat_sys_get_meth(kmp_ddxlat_sys(x), i),
			       addrxlat_sys_get_meth(tsys, i))) {
			printf("# method %d differs\n", i);
			bad = 1;
		}
	}
	for (int i = 0; i < ADDRXLAT_SYS_MAP_NUM; i++) {
		if (!same_map(addrxlat_sys_get_map(kmp_ddxlat_sys(x), i),
			      addrxlat_sys_get_map(tsys, i))) {
			printf("# map %d differs\n", i);
			bad = 1;
		}
	}
	/* 64 pages spread over each range of the kernel's map, its first and its last */
	kv = addrxlat_sys_get_map(tsys, ADDRXLAT_SYS_MAP_KV_PHYS);
	for (size_t i = 0; kv && i < addrxlat_map_len(kv) && bad < 10; i++) {
		uint64_t end = addrxlat_map_ranges(kv)[i].endoff, step = (end - start) / 64 + 1;

		for (uint64_t k = 0; k <= 64 && bad < 10; k++) {
			uint64_t va = k < 64 ? start + k * step : end;

			if (va > end)
				va = end;
			if (!same_xlat(x, tctx, tsys, va & ~(uint64_t)(d->page_size - 1), &tried,
				       may_leave, &left))
				bad++;
		}
		start = end + 1;
	}
	/* the direct mapping of every 64th dumped page */
	direct = addrxlat_sys_get_meth(tsys, ADDRXLAT_SYS_METH_RDIRECT);
	for (uint64_t pfn = 0, nth = 0; direct->kind == ADDRXLAT_LINEAR && pfn < d->nbits && bad < 10;
	     pfn++) {
		uint64_t idx;

		if (kmp_diskdump_index(d, pfn, &idx) && !(nth++ % 64) &&
		    !same_xlat(x, tctx, tsys, pfn * d->page_size + (uint64_t)direct->param.linear.off,
			       &tried, may_leave, &left))
			bad++;
	}
	if (bad)
		printf("not ok - ddxlat: %s: kmempool's translation differs from libkdumpfile's\n",
		       path);
	else
		printf("ok - ddxlat: %s: VMCOREINFO, every method and map the same as libkdumpfile's, "
		       "and the same answer for %llu addresses (%llu not mapped, with libkdumpfile's "
		       "message; %llu left to libkdumpfile)\n", path,
		       (unsigned long long)(tried - left), (unsigned long long)g_unmapped,
		       (unsigned long long)left);
	addrxlat_sys_decref(tsys);
	addrxlat_ctx_decref(tctx);
	kmp_ddxlat_free(x);
	free(raw);
	return bad != 0;
}

int main(int argc, char **argv)
{
	uint64_t taken = 0, left = 0, differ = 0, first_bad = UINT64_MAX, absent = 0, absent_bad = 0;
	struct kmp_diskdump d;
	const char *why = NULL;
	struct kmp_ddreader *r;
	unsigned char *ours, *theirs;
	kdump_ctx_t *ctx;
	double pct;
	int fd, rc, xrc;

	if (argc != 3) {
		fprintf(stderr, "usage: ddcheck DUMP PERCENT\n");
		return 2;
	}
	pct = atof(argv[2]);
	fd = open(argv[1], O_RDONLY);
	ctx = kdump_new();
	/* As kmempool opens a dump: Linux address translation set up. */
	if (fd < 0 || !ctx || kdump_open_fd(ctx, fd) != KDUMP_OK ||
	    kdump_set_string_attr(ctx, "addrxlat.ostype", "linux") != KDUMP_OK) {
		printf("not ok - ddcheck: cannot open %s with libkdumpfile\n", argv[1]);
		return 2;
	}
	if (!kmp_diskdump_open(&d, plain_pread, NULL, fd, &why)) {
		printf("%s - ddcheck: %s: the reader does not take this dump at all (%s)\n",
		       pct > 0 ? "not ok" : "ok", argv[1], why);
		return pct > 0;
	}
	/*
	 * The translations first, against libkdumpfile's as it sets them up:
	 * its reads of physical pages below may add to its maps of physical
	 * addresses (which kmempool's reads do not use).
	 */
	{
		struct pages pg = { kmp_ddreader_new(&d), fd };

		g_ctx = ctx;
		xrc = !pg.r || check_xlat(argv[1], ctx, &d, &pg, pct < 100);
		kmp_ddreader_free(pg.r);
	}
	r = kmp_ddreader_new(&d);
	ours = malloc(d.page_size);
	theirs = malloc(d.page_size);
	if (!r || !ours || !theirs)
		return 2;
	for (uint64_t pfn = 0; pfn < d.nbits; pfn++) {
		uint64_t idx;
		size_t len = d.page_size;

		if (!kmp_diskdump_index(&d, pfn, &idx))
			continue;
		const unsigned char *page = kmp_ddreader_page(r, plain_pread, NULL, fd, pfn);

		if (!page) {
			left++;
			continue;
		}
		memcpy(ours, page, d.page_size);
		taken++;
		if (kdump_read(ctx, KDUMP_KPHYSADDR, pfn * d.page_size, theirs, &len) != KDUMP_OK ||
		    len != d.page_size || memcmp(ours, theirs, d.page_size)) {
			if (!differ++) {
				first_bad = pfn;
				printf("# pfn 0x%llx: %s\n", (unsigned long long)pfn,
				       len != d.page_size ? kdump_get_err(ctx) : "other bytes");
			}
		}
	}
	/* A pfn the bitmap leaves out is one libkdumpfile cannot read either (every 16th). */
	for (uint64_t pfn = 0, nth = 0; pfn < d.nbits + 16; pfn++) {
		uint64_t idx;
		size_t len = d.page_size;

		if (kmp_diskdump_index(&d, pfn, &idx) || nth++ % 16)
			continue;
		absent++;
		if (kdump_read(ctx, KDUMP_KPHYSADDR, pfn * d.page_size, theirs, &len) != KDUMP_ERR_NODATA) {
			if (!absent_bad++)
				printf("# pfn 0x%llx: not in the bitmap, but libkdumpfile: %s\n",
				       (unsigned long long)pfn, kdump_get_err(ctx));
		}
	}
	if (absent_bad)
		differ++;
	rc = differ || taken + left != d.ndesc || (double)taken * 100 < pct * (double)d.ndesc;
	rc |= xrc;
	if (absent_bad)
		printf("not ok - ddcheck: %s: %llu of %llu pfns the bitmap leaves out are readable by "
		       "libkdumpfile\n", argv[1], (unsigned long long)absent_bad,
		       (unsigned long long)absent);
	else if (differ)
		printf("not ok - ddcheck: %s: %llu of %llu pages taken differ from libkdumpfile's "
		       "(the first: pfn 0x%llx)\n", argv[1], (unsigned long long)differ,
		       (unsigned long long)taken, (unsigned long long)first_bad);
	else if (taken + left != d.ndesc || (double)taken * 100 < pct * (double)d.ndesc)
		printf("not ok - ddcheck: %s: took %llu and left %llu of %llu dumped pages (at least "
		       "%g%% should be taken)\n", argv[1], (unsigned long long)taken,
		       (unsigned long long)left, (unsigned long long)d.ndesc, pct);
	else
		printf("ok - ddcheck: %s: %llu pages taken, each the same as libkdumpfile's, %llu "
		       "left to it, of %llu dumped; %llu pfns the bitmap leaves out, none readable "
		       "by libkdumpfile\n", argv[1], (unsigned long long)taken,
		       (unsigned long long)left, (unsigned long long)d.ndesc,
		       (unsigned long long)absent);
	kmp_ddreader_free(r);
	kmp_diskdump_free(&d);
	free(ours);
	free(theirs);
	kdump_free(ctx);
	close(fd);
	return rc;
}
