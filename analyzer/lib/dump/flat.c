// SPDX-License-Identifier: GPL-2.0
/* kmempool: an index of a flattened dump's records; see flat.h. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fdhook.h"
#include "flat.h"

#define FLAT_SIGNATURE		"makedumpfile"
#define FLAT_SIG_LEN		16	/* the signature, NUL-padded */
#define FLAT_TYPE		1
#define FLAT_VERSION		1
#define FLAT_END		(-1)
#define FLAT_READAHEAD		65536	/* bytes read at a time for record headers */
#define FLAT_FIRST_ALLOC	256

static uint64_t get_be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

bool kmp_flat_detect(const void *head, size_t len)
{
	static const char sig[FLAT_SIG_LEN] = FLAT_SIGNATURE;

	return len >= FLAT_SIG_LEN && !memcmp(head, sig, FLAT_SIG_LEN);
}

/* Record headers are small and close together: read them in chunks. */
struct hdr_reader {
	int fd;
	unsigned char buf[FLAT_READAHEAD];
	uint64_t start;		/* file offset of buf[0] */
	size_t len;		/* valid bytes in buf */
};

/* The 16 bytes at @pos; false with errno set on an I/O error. */
static bool read_rechdr(struct hdr_reader *r, uint64_t pos, unsigned char *out)
{
	if (pos < r->start || pos - r->start + KMP_FLAT_RECHDR_SIZE > r->len) {
		ssize_t got = kmp_real_pread(r->fd, r->buf, sizeof(r->buf), (off_t)pos);

		if (got < 0)
			return false;
		r->start = pos;
		r->len = (size_t)got;
		if (r->len < KMP_FLAT_RECHDR_SIZE) {
			errno = EIO;	/* the file shrank under us */
			return false;
		}
	}
	memcpy(out, r->buf + (pos - r->start), KMP_FLAT_RECHDR_SIZE);
	return true;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct kmp_flat_rec *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static bool add_rec(struct kmp_flat *flat, size_t *cap, uint64_t off, uint64_t size,
		    uint64_t pos)
{
	if (flat->nrecs == *cap) {
		size_t ncap = *cap ? *cap * 2 : FLAT_FIRST_ALLOC;
		struct kmp_flat_rec *n;

		if (ncap > SIZE_MAX / sizeof(*n))
			return false;
		n = realloc(flat->recs, ncap * sizeof(*n));
		if (!n)
			return false;
		flat->recs = n;
		*cap = ncap;
	}
	flat->recs[flat->nrecs++] = (struct kmp_flat_rec){ off, size, pos };
	return true;
}

/* One pass over the records, in file order; the caller sorts. */
static bool scan(struct kmp_flat *flat, struct hdr_reader *r, struct kmp_err *err)
{
	uint64_t pos = KMP_FLAT_HEADER_SIZE, size = flat->file_size;
	uint64_t max_recs = KMP_FLAT_MIN_RECS + size / KMP_FLAT_BYTES_PER_REC;
	size_t cap = 0;

	for (;;) {
		unsigned char h[KMP_FLAT_RECHDR_SIZE];
		int64_t off, len;
		uint64_t avail;

		if (size - pos < KMP_FLAT_RECHDR_SIZE) {
			/* No end marker: the stream was cut here. */
			flat->truncated = true;
			flat->cut = pos;
			return true;
		}
		if (!read_rechdr(r, pos, h)) {
			kmp_seterr(err, KMP_ERR_DUMP, "cannot read the flattened record header at byte %" PRIu64
				   ": %s", pos, strerror(errno));
			return false;
		}
		off = (int64_t)get_be64(h);
		len = (int64_t)get_be64(h + 8);
		if (off == FLAT_END && len == FLAT_END)
			return true;
		if (off < 0 || len <= 0 || (uint64_t)len > KMP_FLAT_MAX_RECORD ||
		    off > INT64_MAX - len) {
			kmp_seterr(err, KMP_ERR_DUMP, "bad flattened record at byte %" PRIu64 ": offset %" PRId64
				   ", size %" PRId64 " (%s)", pos, off, len,
				   off == FLAT_END ? "a broken end marker" :
				   off < 0 ? "negative offset" :
				   len <= 0 ? "size not positive" :
				   (uint64_t)len > KMP_FLAT_MAX_RECORD ? "size above 1 GiB" :
				   "offset + size overflows");
			return false;
		}
		if (flat->nrecs >= max_recs) {
			kmp_seterr(err, KMP_ERR_DUMP, "more than %" PRIu64 " flattened records in %"
				   PRIu64 " bytes (at most %d and one per %d bytes; record at byte %"
				   PRIu64 "): not a stream makedumpfile writes", max_recs, size,
				   KMP_FLAT_MIN_RECS, KMP_FLAT_BYTES_PER_REC, pos);
			return false;
		}
		pos += KMP_FLAT_RECHDR_SIZE;
		avail = size - pos;
		if ((uint64_t)len > avail) {
			/* The cut lies inside this record's data: keep what is there. */
			flat->truncated = true;
			flat->cut = size;
			if (avail && !add_rec(flat, &cap, (uint64_t)off, avail, pos))
				goto nomem;
			return true;
		}
		if (!add_rec(flat, &cap, (uint64_t)off, (uint64_t)len, pos))
			goto nomem;
		pos += (uint64_t)len;
	}
nomem:
	kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for the index of %zu flattened records", flat->nrecs);
	return false;
}

bool kmp_flat_index(struct kmp_flat *flat, int fd, struct kmp_err *err)
{
	struct kmp_flat_rec *shrunk;
	struct hdr_reader *r = NULL;
	unsigned char h[FLAT_SIG_LEN + 16];
	uint64_t type, version;
	struct stat st;
	ssize_t got;
	bool ok = false;

	memset(flat, 0, sizeof(*flat));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		kmp_seterr(err, KMP_ERR_DUMP, "a flattened dump must be a regular file");
		return false;
	}
	flat->file_size = (uint64_t)st.st_size;
	got = kmp_real_pread(fd, h, sizeof(h), 0);
	if (got < 0) {
		kmp_seterr(err, KMP_ERR_DUMP, "cannot read the flattened header: %s", strerror(errno));
		return false;
	}
	if (!kmp_flat_detect(h, (size_t)got)) {
		kmp_seterr(err, KMP_ERR_DUMP, "not a flattened dump (no makedumpfile signature)");
		return false;
	}
	if ((size_t)got < sizeof(h) || flat->file_size < KMP_FLAT_HEADER_SIZE) {
		kmp_seterr(err, KMP_ERR_DUMP, "flattened dump truncated inside its header (%" PRIu64 " of %d "
			   "bytes)", flat->file_size, KMP_FLAT_HEADER_SIZE);
		return false;
	}
	type = get_be64(h + FLAT_SIG_LEN);
	version = get_be64(h + FLAT_SIG_LEN + 8);
	if (type != FLAT_TYPE || version != FLAT_VERSION) {
		kmp_seterr(err, KMP_ERR_DUMP, "unknown flattened format: type %" PRIu64 ", version %" PRIu64
			   " (known: type %d, version %d)", type, version, FLAT_TYPE, FLAT_VERSION);
		return false;
	}
	r = malloc(sizeof(*r));
	if (!r) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return false;
	}
	r->fd = fd;
	r->start = 0;
	r->len = 0;
	if (!scan(flat, r, err))
		goto out;
	if (!flat->nrecs) {
		kmp_seterr(err, KMP_ERR_DUMP, flat->truncated ? "flattened dump truncated before its first record" :
			   "flattened dump holds no records");
		goto out;
	}
	shrunk = realloc(flat->recs, flat->nrecs * sizeof(*flat->recs));
	if (shrunk)	/* give back what doubling left unused */
		flat->recs = shrunk;
	qsort(flat->recs, flat->nrecs, sizeof(*flat->recs), cmp_rec);
	for (size_t i = 0; i + 1 < flat->nrecs; i++) {
		const struct kmp_flat_rec *a = &flat->recs[i], *b = &flat->recs[i + 1];

		if (a->off + a->size > b->off) {
			kmp_seterr(err, KMP_ERR_DUMP, "flattened records overlap: %" PRIu64 " bytes at offset %"
				   PRIu64 " (data at byte %" PRIu64 ") and %" PRIu64 " at %" PRIu64
				   " (data at byte %" PRIu64 ")", a->size, a->off, a->pos,
				   b->size, b->off, b->pos);
			goto out;
		}
	}
	flat->end = flat->recs[flat->nrecs - 1].off + flat->recs[flat->nrecs - 1].size;
	ok = true;
out:
	free(r);
	if (!ok)
		kmp_flat_free(flat);
	return ok;
}

void kmp_flat_free(struct kmp_flat *flat)
{
	free(flat->recs);
	flat->recs = NULL;
	flat->nrecs = 0;
}

/* Index of the first record that ends after @off (nrecs if none). */
static size_t find(const struct kmp_flat *flat, uint64_t off)
{
	size_t lo = 0, hi = flat->nrecs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct kmp_flat_rec *m = &flat->recs[mid];

		if (m->off + m->size <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The gap just below record @i: in a complete stream a hole (zeros).  In
 * a truncated one it may be data that came after the cut.  makedumpfile
 * writes each region of the file (headers, bitmaps, page descriptors,
 * page data) in increasing order, the regions interleaved; a gap whose
 * upper neighbour was written before its lower one lies where the writer
 * was still going to write, so it counts as lost.  A gap below the first
 * record, too.
 */
static bool gap_lost(const struct kmp_flat *flat, size_t i)
{
	if (!flat->truncated)
		return false;
	return i == 0 || flat->recs[i].pos < flat->recs[i - 1].pos;
}

ssize_t kmp_flat_pread(const struct kmp_flat *flat, int fd, void *buf, size_t len,
		       uint64_t off)
{
	unsigned char *out = buf;
	size_t done = 0, i;

	if (len > SSIZE_MAX)
		len = SSIZE_MAX;
	i = find(flat, off);
	while (done < len && i < flat->nrecs) {
		const struct kmp_flat_rec *r = &flat->recs[i];
		uint64_t cur = off + done;
		size_t n = len - done;
		ssize_t got;

		if (cur < r->off) {
			if (gap_lost(flat, i))
				break;
			if (n > r->off - cur)
				n = (size_t)(r->off - cur);
			memset(out + done, 0, n);
			done += n;
			continue;
		}
		if (n > r->off + r->size - cur)
			n = (size_t)(r->off + r->size - cur);
		got = kmp_real_pread(fd, out + done, n, (off_t)(r->pos + (cur - r->off)));
		if (got < 0)
			return -1;
		done += (size_t)got;
		if ((size_t)got < n)
			break;	/* the flattened file shrank */
		i++;
	}
	return (ssize_t)done;
}
