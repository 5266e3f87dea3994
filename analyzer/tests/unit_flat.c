// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the flattened-dump index (src/flat.c) and the pread() hook
 * (src/fdhook.c), on flattened streams this test writes itself.  Each test
 * prints "ok"/"not ok"; the last line is "unit-flat: N passed, N failed".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fdhook.h"
#include "flat.h"

#include "check.h"

/* ------------------------------------------------------------------ */
/* A flattened stream, built in memory, then put in a memfd. */

struct stream {
	unsigned char *buf;
	size_t len, cap;
};

static void put(struct stream *s, const void *p, size_t n)
{
	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2;
		s->buf = realloc(s->buf, s->cap);
		if (!s->buf)
			abort();
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void put_be64(struct stream *s, uint64_t v)
{
	unsigned char b[8];

	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = (unsigned char)v;
	put(s, b, 8);
}

static void header(struct stream *s, const char *sig, uint64_t type, uint64_t version)
{
	unsigned char h[4096] = { 0 };

	s->len = 0;
	memcpy(h, sig, strlen(sig));
	put(s, h, 16);
	put_be64(s, type);
	put_be64(s, version);
	put(s, h, 4096 - 32);
}

/* A record of @size bytes at @off, each byte (off + i) * 7 + 1 (mod 256). */
static void record(struct stream *s, int64_t off, int64_t size)
{
	put_be64(s, (uint64_t)off);
	put_be64(s, (uint64_t)size);
	for (int64_t i = 0; i < size; i++) {
		unsigned char c = (unsigned char)((off + i) * 7 + 1);

		put(s, &c, 1);
	}
}

static unsigned char byte_at(uint64_t off)
{
	return (unsigned char)(off * 7 + 1);
}

static void end_marker(struct stream *s)
{
	put_be64(s, UINT64_MAX);
	put_be64(s, UINT64_MAX);
}

static int to_fd(const struct stream *s)
{
	int fd = memfd_create("flat", 0);

	if (fd < 0 || write(fd, s->buf, s->len) != (ssize_t)s->len)
		abort();
	return fd;
}

/* Index @s; the status, and @msg holds the error. */
static int index_of(const struct stream *s, struct kmp_flat *flat, int *fdp, char *msg)
{
	struct kmp_err err = { 0 };
	int fd = to_fd(s), rc;

	rc = status(kmp_flat_index(flat, fd, &err), &err, false);
	snprintf(msg, KMP_ERRLEN, "%s", err.msg);
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return rc;
}

/* Does a read of @len at @off give the bytes the records put there? */
static bool read_matches(const struct kmp_flat *flat, int fd, uint64_t off, size_t len,
			 ssize_t want, uint64_t hole_lo, uint64_t hole_hi)
{
	unsigned char buf[512];
	ssize_t got = kmp_flat_pread(flat, fd, buf, len, off);

	if (got != want)
		return false;
	for (ssize_t i = 0; i < got; i++) {
		uint64_t o = off + (uint64_t)i;
		unsigned char w = (o >= hole_lo && o < hole_hi) ? 0 : byte_at(o);

		if (buf[i] != w)
			return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */

static void test_good(void)
{
	struct stream s = { 0 };
	struct kmp_flat flat;
	char msg[KMP_ERRLEN];
	int fd, rc;

	begin("flat: a complete stream with a hole; reads across records and the hole");
	header(&s, "makedumpfile", 1, 1);
	record(&s, 0, 100);
	record(&s, 100, 50);	/* adjacent */
	record(&s, 200, 300);	/* a hole at 150..200 */
	end_marker(&s);
	rc = index_of(&s, &flat, &fd, msg);
	CHECK(rc == KMP_OK, "index failed: %s", msg);
	if (rc == KMP_OK) {
		CHECK(flat.nrecs == 3 && !flat.truncated && flat.end == 500,
		      "nrecs %zu truncated %d end %" PRIu64, flat.nrecs, flat.truncated, flat.end);
		CHECK(flat.recs[2].pos == 4096 + 16 + 100 + 16 + 50 + 16,
		      "data position %" PRIu64, flat.recs[2].pos);
		CHECK(read_matches(&flat, fd, 0, 100, 100, 0, 0), "first record");
		CHECK(read_matches(&flat, fd, 90, 20, 20, 0, 0), "across two records");
		CHECK(read_matches(&flat, fd, 140, 100, 100, 150, 200), "across the hole: zeros");
		CHECK(read_matches(&flat, fd, 160, 10, 10, 150, 200), "inside the hole");
		CHECK(read_matches(&flat, fd, 450, 100, 50, 0, 0), "a read past the end is short");
		CHECK(read_matches(&flat, fd, 500, 10, 0, 0, 0), "a read at the end gives 0");
		CHECK(read_matches(&flat, fd, UINT64_MAX - 4, 8, 0, 0, 0), "a read far beyond");
		kmp_flat_free(&flat);
		close(fd);
	}
	end();
	free(s.buf);
}

static void test_order(void)
{
	struct stream s = { 0 };
	struct kmp_flat flat;
	char msg[KMP_ERRLEN];
	int fd, rc;
	bool sorted = true, all = true;

	begin("flat: 20000 one-byte records written in reverse order are sorted");
	header(&s, "makedumpfile", 1, 1);
	for (int i = 19999; i >= 0; i--)
		record(&s, i, 1);
	end_marker(&s);
	rc = index_of(&s, &flat, &fd, msg);
	CHECK(rc == KMP_OK, "index failed: %s", msg);
	if (rc == KMP_OK) {
		CHECK(flat.nrecs == 20000 && flat.end == 20000, "nrecs %zu end %" PRIu64,
		      flat.nrecs, flat.end);
		for (size_t i = 0; i + 1 < flat.nrecs; i++)
			sorted &= flat.recs[i].off + 1 == flat.recs[i + 1].off;
		CHECK(sorted, "not sorted by offset");
		for (uint64_t o = 0; o < 20000; o += 400)
			all &= read_matches(&flat, fd, o, 400, 400, 0, 0);
		CHECK(all, "reads across 400 records each");
		kmp_flat_free(&flat);
		close(fd);
	}
	end();
	free(s.buf);
}

/* One bad stream: the index must fail with a message containing @words. */
static void bad(const char *name, const struct stream *s, const char *words)
{
	struct kmp_flat flat;
	char msg[KMP_ERRLEN];
	int rc;

	begin(name);
	rc = index_of(s, &flat, NULL, msg);
	CHECK(rc == KMP_ECORE, "accepted (rc %d)", rc);
	CHECK(strstr(msg, words) != NULL, "message '%s' lacks '%s'", msg, words);
	CHECK(flat.recs == NULL && flat.nrecs == 0, "index not freed");
	printf("  # %s\n", msg);
	end();
}

static void test_bad(void)
{
	static const unsigned char zeros[100];
	struct stream s = { 0 };

	header(&s, "makedumpfile", 1, 1);
	record(&s, 0, 100);
	record(&s, 50, 100);
	end_marker(&s);
	bad("flat: overlapping records are refused", &s, "overlap");

	header(&s, "makedumpfile", 1, 1);
	record(&s, 4096, 10);
	record(&s, 0, 4096);
	record(&s, 4000, 10);	/* inside the second, written last */
	end_marker(&s);
	bad("flat: a record inside another, out of order, is refused", &s, "overlap");

	header(&s, "makedumpfile", 1, 1);
	record(&s, 0, 10);
	record(&s, -4096, 10);
	end_marker(&s);
	bad("flat: a negative offset is refused", &s, "negative offset");

	header(&s, "makedumpfile", 1, 1);
	record(&s, 0, 10);
	put_be64(&s, 100);
	put_be64(&s, (uint64_t)-5);
	end_marker(&s);
	bad("flat: a negative size is refused", &s, "size not positive");

	header(&s, "makedumpfile", 1, 1);
	record(&s, 0, 0);
	end_marker(&s);
	bad("flat: a record of size 0 is refused (as makedumpfile -R does)", &s,
	    "size not positive");

	header(&s, "makedumpfile", 1, 1);
	put_be64(&s, (uint64_t)-1);
	put_be64(&s, 5);
	end_marker(&s);
	bad("flat: an end marker with a size is refused", &s, "broken end marker");

	header(&s, "makedumpfile", 1, 1);
	put_be64(&s, 0);
	put_be64(&s, (uint64_t)1 << 40);
	put(&s, "abcd", 4);
	bad("flat: a size of 1 TiB (past the end of the file) is refused", &s, "above 1 GiB");

	header(&s, "makedumpfile", 1, 1);
	put_be64(&s, (uint64_t)INT64_MAX - 10);
	put_be64(&s, 100);
	put(&s, zeros, 100);
	end_marker(&s);
	bad("flat: offset + size overflowing is refused", &s, "overflows");

	header(&s, "makedumpfilf", 1, 1);
	record(&s, 0, 10);
	end_marker(&s);
	bad("flat: a wrong signature is refused", &s, "no makedumpfile signature");

	header(&s, "makedumpfile", 2, 1);
	record(&s, 0, 10);
	end_marker(&s);
	bad("flat: an unknown type is refused", &s, "type 2");

	header(&s, "makedumpfile", 1, 7);
	record(&s, 0, 10);
	end_marker(&s);
	bad("flat: an unknown version is refused", &s, "version 7");

	header(&s, "makedumpfile", 1, 1);
	end_marker(&s);
	bad("flat: zero records are refused", &s, "holds no records");

	header(&s, "makedumpfile", 1, 1);
	bad("flat: a header and nothing else is refused", &s, "before its first record");

	header(&s, "makedumpfile", 1, 1);
	s.len = 100;
	bad("flat: a header cut short is refused", &s, "inside its header");
	free(s.buf);
}

static void test_truncated(void)
{
	struct stream s = { 0 };
	struct kmp_flat flat;
	char msg[KMP_ERRLEN];
	int fd, rc;

	begin("flat: no end marker: the records are kept, the stream is truncated");
	header(&s, "makedumpfile", 1, 1);
	record(&s, 0, 100);
	record(&s, 100, 100);
	rc = index_of(&s, &flat, &fd, msg);
	CHECK(rc == KMP_OK, "index failed: %s", msg);
	if (rc == KMP_OK) {
		CHECK(flat.nrecs == 2 && flat.truncated && flat.cut == s.len && flat.end == 200,
		      "nrecs %zu truncated %d cut %" PRIu64, flat.nrecs, flat.truncated, flat.cut);
		CHECK(read_matches(&flat, fd, 150, 100, 50, 0, 0), "read up to the cut");
		kmp_flat_free(&flat);
		close(fd);
	}
	end();

	begin("flat: cut inside a record's data (size past EOF): its first part is kept");
	header(&s, "makedumpfile", 1, 1);
	record(&s, 0, 100);
	record(&s, 100, 100);
	s.len -= 30;
	rc = index_of(&s, &flat, &fd, msg);
	CHECK(rc == KMP_OK, "index failed: %s", msg);
	if (rc == KMP_OK) {
		CHECK(flat.nrecs == 2 && flat.truncated && flat.end == 170 && flat.cut == s.len,
		      "nrecs %zu truncated %d end %" PRIu64, flat.nrecs, flat.truncated, flat.end);
		CHECK(read_matches(&flat, fd, 150, 100, 20, 0, 0), "read up to the cut");
		kmp_flat_free(&flat);
		close(fd);
	}
	end();

	begin("flat: cut inside a record header");
	header(&s, "makedumpfile", 1, 1);
	record(&s, 0, 100);
	record(&s, 100, 100);
	s.len -= 100 + 9;
	rc = index_of(&s, &flat, &fd, msg);
	CHECK(rc == KMP_OK && flat.nrecs == 1 && flat.truncated && flat.end == 100,
	      "rc %d %s", rc, msg);
	if (rc == KMP_OK) {
		kmp_flat_free(&flat);
		close(fd);
	}
	end();

	/*
	 * Written: A 0..10, C 100..110, B 10..20, cut.  The gap 20..100 lies
	 * below C, which was written before B: the writer was still to fill
	 * it, so it is lost.  Written: A 0..10, B 50..60, cut: the gap 10..50
	 * was skipped on the way up, a hole.
	 */
	begin("flat: truncated: a gap the writer was still to fill is lost, a skipped one a hole");
	header(&s, "makedumpfile", 1, 1);
	record(&s, 0, 10);
	record(&s, 100, 10);
	record(&s, 10, 10);
	rc = index_of(&s, &flat, &fd, msg);
	CHECK(rc == KMP_OK, "index failed: %s", msg);
	if (rc == KMP_OK) {
		CHECK(read_matches(&flat, fd, 5, 100, 15, 0, 0), "stops at the lost gap");
		CHECK(read_matches(&flat, fd, 50, 10, 0, 0, 0), "inside the lost gap");
		CHECK(read_matches(&flat, fd, 100, 20, 10, 0, 0), "stops past the end");
		kmp_flat_free(&flat);
		close(fd);
	}
	header(&s, "makedumpfile", 1, 1);
	record(&s, 0, 10);
	record(&s, 50, 10);
	rc = index_of(&s, &flat, &fd, msg);
	CHECK(rc == KMP_OK, "index failed: %s", msg);
	if (rc == KMP_OK) {
		CHECK(read_matches(&flat, fd, 5, 55, 55, 10, 50), "the skipped gap reads as zeros");
		kmp_flat_free(&flat);
		close(fd);
	}
	header(&s, "makedumpfile", 1, 1);
	record(&s, 10, 10);
	rc = index_of(&s, &flat, &fd, msg);
	CHECK(rc == KMP_OK && read_matches(&flat, fd, 0, 20, 0, 0, 0),
	      "the gap below the first record of a truncated stream is lost (%s)", msg);
	if (rc == KMP_OK) {
		kmp_flat_free(&flat);
		close(fd);
	}
	end();
	free(s.buf);
}

/* ------------------------------------------------------------------ */
/* The pread() hook. */

static int calls;

static ssize_t fake_read(void *arg, int fd, void *buf, size_t count, off_t offset)
{
	(void)fd;
	calls++;
	memset(buf, *(const char *)arg, count);
	return offset == 12345 ? (errno = EIO, -1) : (ssize_t)count;
}

static void test_hook(void)
{
	static const char fill = 'x';
	char buf[8] = { 0 };
	int fd = memfd_create("hook", 0), other = memfd_create("other", 0);

	begin("fdhook: reads of a registered descriptor go to its callback, others do not");
	if (fd < 0 || other < 0 || write(fd, "abcdefgh", 8) != 8 || write(other, "12345678", 8) != 8)
		abort();
	CHECK(kmp_fdhook_register(fd, fake_read, (void *)&fill), "register failed");
	CHECK(pread(fd, buf, 4, 0) == 4 && !memcmp(buf, "xxxx", 4) && calls == 1,
	      "hooked read: %.4s, %d calls", buf, calls);
	CHECK(pread(fd, buf, 4, 12345) == -1 && errno == EIO, "the callback's error");
	CHECK(pread(other, buf, 4, 2) == 4 && !memcmp(buf, "3456", 4) && calls == 2,
	      "another descriptor: %.4s", buf);
	CHECK(kmp_real_pread(fd, buf, 4, 0) == 4 && !memcmp(buf, "abcd", 4), "the real read");
	kmp_fdhook_unregister(fd);
	CHECK(pread(fd, buf, 4, 4) == 4 && !memcmp(buf, "efgh", 4) && calls == 2,
	      "after unregister: %.4s", buf);
	CHECK(!kmp_fdhook_register(-1, fake_read, NULL), "a negative descriptor registered");
	close(fd);
	close(other);
	end();
}

static void test_hook_hits(void)
{
	static const char fill = 'y';
	int fds[KMP_FDHOOK_SLOTS + 1];
	char buf[8];

	begin("fdhook: the reads each hook served are counted; the table holds KMP_FDHOOK_SLOTS");
	for (int i = 0; i <= KMP_FDHOOK_SLOTS; i++)
		if ((fds[i] = memfd_create("hits", 0)) < 0 || write(fds[i], "abcdefgh", 8) != 8)
			abort();
	CHECK(kmp_fdhook_hits(fds[0]) == 0, "hits of a descriptor without a hook");
	CHECK(kmp_fdhook_register(fds[0], fake_read, (void *)&fill), "register");
	CHECK(kmp_fdhook_hits(fds[0]) == 0, "hits right after registering");
	for (int i = 0; i < 3; i++)
		CHECK(pread(fds[0], buf, 4, 0) == 4, "hooked read");
	/* Reads that bypass the hook are not counted: the bypass is what the count shows. */
	CHECK(lseek(fds[0], 0, SEEK_SET) == 0 && read(fds[0], buf, 4) == 4 &&
	      kmp_real_pread(fds[0], buf, 4, 0) == 4 &&
	      pread(fds[1], buf, 4, 0) == 4, "reads past the hook");
	CHECK(kmp_fdhook_hits(fds[0]) == 3, "%lu hits, want 3", kmp_fdhook_hits(fds[0]));
	CHECK(kmp_fdhook_register(fds[0], fake_read, (void *)&fill) &&
	      kmp_fdhook_hits(fds[0]) == 0, "registering again starts the count again");
	for (int i = 1; i < KMP_FDHOOK_SLOTS; i++)
		CHECK(kmp_fdhook_register(fds[i], fake_read, (void *)&fill), "slot %d", i);
	CHECK(!kmp_fdhook_register(fds[KMP_FDHOOK_SLOTS], fake_read, (void *)&fill),
	      "a slot beyond the table");
	for (int i = 0; i <= KMP_FDHOOK_SLOTS; i++) {
		kmp_fdhook_unregister(fds[i]);
		CHECK(kmp_fdhook_hits(fds[i]) == 0, "hits after unregister");
		close(fds[i]);
	}
	end();
}

/* Issue 32 item 4: an index that would outgrow the file is refused. */
static void test_many(void)
{
	struct stream s = { 0 };
	struct kmp_flat flat;
	char msg[KMP_ERRLEN];
	int rc;
	size_t n = 100000;	/* 1-byte records: 1.7 MB of file, 2.4 MB of index */

	begin("flat: 100,000 one-byte records refused (the index bounded by the file's size)");
	header(&s, "makedumpfile", 1, 1);
	for (size_t i = 0; i < n; i++)
		record(&s, (int64_t)i * 2, 1);
	end_marker(&s);
	rc = index_of(&s, &flat, NULL, msg);
	CHECK(rc == KMP_ECORE && strstr(msg, "flattened records in"),
	      "status %d, '%s' (nrecs %zu)", rc, msg, rc == KMP_OK ? flat.nrecs : 0);
	if (rc == KMP_OK)
		kmp_flat_free(&flat);
	/* The same number of records, each 128 bytes with its header: taken. */
	header(&s, "makedumpfile", 1, 1);
	for (size_t i = 0; i < n; i++)
		record(&s, (int64_t)i * 200, 112);
	end_marker(&s);
	rc = index_of(&s, &flat, NULL, msg);
	CHECK(rc == KMP_OK && flat.nrecs == n, "records of 128 bytes: status %d, '%s'", rc, msg);
	if (rc == KMP_OK)
		kmp_flat_free(&flat);
	end();
	free(s.buf);
}

int main(void)
{
	test_good();
	test_order();
	test_bad();
	test_truncated();
	test_hook();
	test_hook_hits();
	test_many();
	printf("unit-flat: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
