// SPDX-License-Identifier: GPL-2.0
/*
 * ddcheck: every page of a real kdump-compressed dump read by kmempool's
 * own reader (lib/diskdump.c) and by libkdumpfile, compared byte for byte.
 * A page the reader takes must be one libkdumpfile reads, with the same
 * bytes; a page it leaves must be one it may leave (another compression).
 *
 *   ddcheck DUMP PERCENT
 *	ok when no page differs and the reader took at least PERCENT of the
 *	dumped pages (100 for zlib and uncompressed dumps, 0 for lzo ones);
 *	one line says how many pages it took and left.  Exit 0, 1 (a
 *	difference, or too few taken) or 2 (cannot open the dump).
 */
#include <fcntl.h>
#include <libkdumpfile/kdumpfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diskdump.h"

static ssize_t plain_pread(void *arg, int fd, void *buf, size_t count, off_t off)
{
	(void)arg;
	return pread(fd, buf, count, off);
}

int main(int argc, char **argv)
{
	uint64_t taken = 0, left = 0, differ = 0, first_bad = UINT64_MAX;
	struct kmp_diskdump d;
	struct kmp_ddreader *r;
	unsigned char *ours, *theirs;
	kdump_ctx_t *ctx;
	double pct;
	int fd, rc;

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
	if (!kmp_diskdump_open(&d, plain_pread, NULL, fd)) {
		printf("%s - ddcheck: %s: the reader does not take this dump at all\n",
		       pct > 0 ? "not ok" : "ok", argv[1]);
		return pct > 0;
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
	rc = differ || taken + left != d.ndesc || (double)taken * 100 < pct * (double)d.ndesc;
	if (differ)
		printf("not ok - ddcheck: %s: %llu of %llu pages taken differ from libkdumpfile's "
		       "(the first: pfn 0x%llx)\n", argv[1], (unsigned long long)differ,
		       (unsigned long long)taken, (unsigned long long)first_bad);
	else if (taken + left != d.ndesc || (double)taken * 100 < pct * (double)d.ndesc)
		printf("not ok - ddcheck: %s: took %llu and left %llu of %llu dumped pages (at least "
		       "%g%% should be taken)\n", argv[1], (unsigned long long)taken,
		       (unsigned long long)left, (unsigned long long)d.ndesc, pct);
	else
		printf("ok - ddcheck: %s: %llu pages taken, each the same as libkdumpfile's, %llu "
		       "left to it, of %llu dumped\n", argv[1], (unsigned long long)taken,
		       (unsigned long long)left, (unsigned long long)d.ndesc);
	kmp_ddreader_free(r);
	kmp_diskdump_free(&d);
	free(ours);
	free(theirs);
	kdump_free(ctx);
	close(fd);
	return rc;
}
