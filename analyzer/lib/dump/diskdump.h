/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the pages of a kdump-compressed dump (makedumpfile's default
 * format, what Debian's kdump-tools writes), read and inflated here, on as
 * many threads as read at once.  libkdumpfile reads them under one lock
 * (it is not safe to call from two threads) and inflates them with zlib;
 * here a page costs its descriptor (from a block kept per reader), one
 * pread() and libdeflate's zlib decompression, which checks the stream's
 * checksum as zlib does in half the instructions.  A reader keeps the
 * last pages it decoded.
 *
 * Only the plain case is taken: a dump that is not split, not marked
 * incomplete, not of a Xen host or guest (its bitmap counts machine
 * frames), without makedumpfile's vmemmap exclusion, and pages stored
 * with zlib or uncompressed.  For anything else (a page not dumped,
 * another compression, a descriptor or stream that does not check out, a
 * short read) the reader says no, and the caller reads that page through
 * libkdumpfile, which gives the same bytes or says why it cannot.  The
 * file's header, bitmap and descriptors are untrusted: every size and
 * offset is bounded and checked for overflow.
 */
#ifndef KMP_DISKDUMP_H
#define KMP_DISKDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How the reader reads the file: pread() on @fd, or a flattened dump's index. */
typedef ssize_t (*kmp_pread_fn)(void *arg, int fd, void *buf, size_t count, off_t offset);

/* A dump's header and its bitmap of dumped pages: read only once opened, shared by readers. */
struct kmp_diskdump {
	uint32_t page_size;		/* block_size: a page */
	uint64_t nbits;			/* pfns the bitmap of dumped pages covers */
	uint64_t *bits;			/* that bitmap, bit n: pfn n is in the dump */
	uint32_t *rank;			/* set bits before each run of 8 words */
	uint64_t desc_off;		/* file offset of the first page descriptor */
	uint64_t ndesc;			/* descriptors: the dumped pages */
	/*
	 * What address translation is set up from (ddxlat.h), read as
	 * libkdumpfile reads it: the machine, the sub-header's phys_base, and
	 * VMCOREINFO: the last VMCOREINFO note (header version 4 on), the
	 * sub-header's own field (version 3).  @vmcoreinfo NULL (its bytes,
	 * NUL-terminated) when there is none or it cannot be read.
	 */
	char machine[66];
	uint64_t phys_base;
	char *vmcoreinfo;
	uint32_t dump_level;		/* makedumpfile -d, from the sub-header */
};

/* The bitmap's bound (32 MiB: 1 TiB of 4 KiB pages); a larger dump is left to libkdumpfile. */
#define KMP_DISKDUMP_BITMAP_MAX (32ULL << 20)

/*
 * Parse the dump read by @rd(@arg, @fd, ...): true with @d filled in; false
 * when it is not a dump this reader takes (see above), @d then empty and
 * *@why (when @why is not NULL) a static string saying why.
 */
bool kmp_diskdump_open(struct kmp_diskdump *d, kmp_pread_fn rd, void *arg, int fd,
		       const char **why);
void kmp_diskdump_free(struct kmp_diskdump *d);

/* Is pfn @pfn in the dump?  Its index among the dumped pages in *@idx. */
bool kmp_diskdump_index(const struct kmp_diskdump *d, uint64_t pfn, uint64_t *idx);

/* What one thread reads with: its decompressor, buffers and last pages. */
struct kmp_ddreader;
struct kmp_ddreader *kmp_ddreader_new(const struct kmp_diskdump *d);
void kmp_ddreader_free(struct kmp_ddreader *r);

/*
 * The page at @pfn (page_size bytes, valid until the reader's next call);
 * NULL when this reader does not take it (then read it the other way).
 */
const unsigned char *kmp_ddreader_page(struct kmp_ddreader *r, kmp_pread_fn rd, void *arg, int fd,
				       uint64_t pfn);
/*
 * The same page into @out, for a read that wants it whole (the kernel's
 * BTF, its symbol tables): from the reader's pages when it holds it, else
 * decoded straight into @out without taking one of them (a large read
 * would only evict the pages a walk reads again).  False as NULL above.
 */
bool kmp_ddreader_page_into(struct kmp_ddreader *r, kmp_pread_fn rd, void *arg, int fd,
			    uint64_t pfn, unsigned char *out);

/*
 * What the dump stores for page @pfn, as stored: its descriptor's flags
 * (4 bytes, little endian) and the bytes they describe, into @out (room
 * for @cap), the length in *@len.  False for a page this reader does not
 * take (it then says nothing of how the page is stored).
 */
bool kmp_ddreader_stored(struct kmp_ddreader *r, kmp_pread_fn rd, void *arg, int fd,
			 uint64_t pfn, unsigned char *out, size_t cap, size_t *len);

#endif
