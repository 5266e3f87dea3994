// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the flattened-dump index (src/flat.c).  The input is
 * a flattened file; one that does not start with the makedumpfile
 * signature gets a valid 4096-byte header put before it, so that small
 * inputs reach the records.  When the index accepts the file, every read
 * it serves is checked against a naive reassembly of the same bytes (the
 * records applied in file order into a zeroed buffer, as makedumpfile -R
 * does): a difference traps.
 *
 *   make -C analyzer O=DIR fuzz-flat [FUZZ_SECONDS=60]
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flat.h"

#define NAIVE_MAX	(1u << 20)	/* reassemble naively only up to this size */

static int memfd = -1;

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* makedumpfile -R in memory: the records before the end marker or the cut. */
static uint8_t *naive(const uint8_t *f, size_t size, uint64_t end)
{
	uint8_t *out = calloc(1, end ? end : 1);
	size_t pos = KMP_FLAT_HEADER_SIZE;

	if (!out)
		abort();
	while (size - pos >= 16) {
		uint64_t off = be64(f + pos), len = be64(f + pos + 8);

		if (off == UINT64_MAX && len == UINT64_MAX)
			break;
		pos += 16;
		if (len > size - pos)
			len = size - pos;	/* the cut: nothing follows */
		if (!len)
			break;
		if (off > end || len > end - off)
			__builtin_trap();	/* the index missed a record's end */
		memcpy(out + off, f + pos, len);
		pos += len;
	}
	return out;
}

static void check_reads(const struct kmp_flat *flat, const uint8_t *file, size_t size)
{
	uint8_t *want = naive(file, size, flat->end);
	uint8_t *buf = malloc(flat->end + 64);
	ssize_t got;

	if (!buf)
		abort();
	/* The whole file, then a few windows. */
	got = kmp_flat_pread(flat, memfd, buf, flat->end + 64, 0);
	if (got < 0 || (uint64_t)got > flat->end || memcmp(buf, want, (size_t)got))
		__builtin_trap();
	if (!flat->truncated && (uint64_t)got != flat->end)
		__builtin_trap();	/* a complete stream has no lost byte */
	for (uint64_t off = 0; off < flat->end + 16; off += 1 + flat->end / 7) {
		size_t len = 1 + (size_t)(off % 97);

		got = kmp_flat_pread(flat, memfd, buf, len, off);
		if (got < 0 || (size_t)got > len)
			__builtin_trap();
		if (got && (off + (uint64_t)got > flat->end || memcmp(buf, want + off, (size_t)got)))
			__builtin_trap();
	}
	free(buf);
	free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char sig[16] = "makedumpfile";
	struct kmp_flat flat;
	struct kmp_err err = { 0 };
	uint8_t *file = NULL;
	const uint8_t *f = data;
	size_t fsize = size;

	if (memfd < 0 && (memfd = memfd_create("fuzz_flat", 0)) < 0)
		abort();
	if (size < sizeof(sig) || memcmp(data, sig, sizeof(sig))) {
		/* Records only: put a valid header before them. */
		fsize = KMP_FLAT_HEADER_SIZE + size;
		file = calloc(1, fsize);
		if (!file)
			abort();
		memcpy(file, sig, sizeof(sig));
		file[16 + 7] = 1;	/* type 1, big endian */
		file[24 + 7] = 1;	/* version 1 */
		memcpy(file + KMP_FLAT_HEADER_SIZE, data, size);
		f = file;
	}
	if (ftruncate(memfd, 0) || pwrite(memfd, f, fsize, 0) != (ssize_t)fsize)
		abort();
	if (kmp_flat_index(&flat, memfd, &err)) {
		for (size_t i = 0; i + 1 < flat.nrecs; i++) {
			if (flat.recs[i].off + flat.recs[i].size > flat.recs[i + 1].off)
				__builtin_trap();	/* overlap let through */
		}
		if (flat.end <= NAIVE_MAX)
			check_reads(&flat, f, fsize);
		kmp_flat_free(&flat);
	} else if (flat.recs || !err.msg[0]) {
		__builtin_trap();	/* a failure must free and explain */
	}
	free(file);
	return 0;
}
