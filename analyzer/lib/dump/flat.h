/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: makedumpfile's flattened format (makedumpfile -F), read in
 * place.  The file is a 4096-byte header (signature "makedumpfile", then
 * type and version, big endian) and a stream of records, each a 16-byte
 * big-endian header {offset, size} followed by size bytes that belong at
 * offset of the reassembled file; a record with offset and size -1 ends
 * the stream.  One pass over the file builds an index of the records
 * (nothing of the data is copied); reads of the reassembled file are
 * served from it.
 */
#ifndef KMP_FLAT_H
#define KMP_FLAT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kmp.h"

#define KMP_FLAT_HEADER_SIZE	4096
#define KMP_FLAT_RECHDR_SIZE	16
/* The largest record accepted: makedumpfile writes buffers of a few MB. */
#define KMP_FLAT_MAX_RECORD	(1ULL << 30)
/*
 * The index is bounded by the file: at most KMP_FLAT_MIN_RECS records,
 * plus one per KMP_FLAT_BYTES_PER_REC bytes of file (header included), so
 * 24 bytes of index per 128 of file at worst, where 1-byte records would
 * make it 1.4 times the file.  makedumpfile writes whole buffers (pages,
 * bitmap and descriptor blocks), far larger on average.
 */
#define KMP_FLAT_MIN_RECS	65536
#define KMP_FLAT_BYTES_PER_REC	128

struct kmp_flat_rec {
	uint64_t off;		/* in the reassembled file */
	uint64_t size;		/* bytes */
	uint64_t pos;		/* of the data in the flattened file */
};

struct kmp_flat {
	struct kmp_flat_rec *recs;	/* sorted by off, none overlapping */
	size_t nrecs;
	uint64_t end;		/* the reassembled file's size: highest off + size */
	uint64_t file_size;	/* of the flattened file */
	/*
	 * The stream stops before its end marker (cut short): the records
	 * before the cut are indexed, and @cut is the byte of the flattened
	 * file where it stops making sense.
	 */
	bool truncated;
	uint64_t cut;
};

/* Does @head (@len bytes from the start of a file) start a flattened file? */
bool kmp_flat_detect(const void *head, size_t len);

/*
 * Index the flattened file open on @fd (read with the real pread(), so
 * @fd may be hooked).  False with @err set: not a
 * flattened file, bad header, a bad record (negative or absurd offset or
 * size, offset + size overflowing, records overlapping), no records,
 * more records than the file's size allows (KMP_FLAT_BYTES_PER_REC).
 * Memory: one struct kmp_flat_rec per record.
 */
bool kmp_flat_index(struct kmp_flat *flat, int fd, struct kmp_err *err);
void kmp_flat_free(struct kmp_flat *flat);

/*
 * Read up to @len bytes at @off of the reassembled file into @buf: the
 * records' bytes, zeros in the holes between them (makedumpfile -R
 * leaves them unwritten).  Stops at the first byte the file does not
 * have: past the end of the reassembled file, or, in a truncated stream,
 * in a gap whose data may have been in the lost part.  Returns the bytes
 * read (less than @len when it stopped), or -1 with errno on an I/O error.
 */
ssize_t kmp_flat_pread(const struct kmp_flat *flat, int fd, void *buf, size_t len,
		       uint64_t off);

#endif
