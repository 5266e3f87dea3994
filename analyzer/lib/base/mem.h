/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the memory reader interface.  Every source of kernel memory
 * (/proc/kcore, a vmcore, a synthetic image in the unit tests) implements
 * read(); everything above it sees only kernel virtual addresses.
 */
#ifndef KMP_MEM_H
#define KMP_MEM_H

#include <stdbool.h>
#include "kmp.h"
#include "layout.h"

struct kmp_mem;

struct kmp_mem_ops {
	/* Read @len bytes at kernel virtual @addr; false and @err on failure. */
	bool (*read)(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		     struct kmp_err *err);
	void (*close)(struct kmp_mem *mem);
	/*
	 * Optional: a second reader of the same memory, independent of
	 * this one (its own descriptor, caches and state), for another
	 * thread; NULL when the source cannot be read so.  Each reader is
	 * used by one thread at a time.
	 */
	struct kmp_mem *(*clone)(struct kmp_mem *mem);
	/*
	 * Optional: what the source stores for the page that holds @addr,
	 * exactly as it is stored (a kdump-compressed dump's page: its
	 * descriptor's flags, then its compressed stream), into @out (room
	 * for @cap bytes), its length in *@len.  Two pages stored alike read
	 * alike, so these bytes can stand for the page (debuginfo/dumpcache.h).
	 * False when the source cannot say: not such a dump, a page its own
	 * reader does not take.
	 */
	bool (*stored)(struct kmp_mem *mem, uint64_t addr, void *out, size_t cap, size_t *len);
};

struct kmp_mem {
	const struct kmp_mem_ops *ops;
	void *priv;
	/*
	 * Live memory (/proc/kcore): it may change between two reads, so a
	 * walk that meets an inconsistency starts again instead of calling
	 * it corruption.
	 */
	bool live;
	/*
	 * Its reads are made one at a time whatever the readers (libkdumpfile,
	 * kdump.c): a scan's default is then one thread.
	 */
	bool serial;
};

bool kmp_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
	      struct kmp_err *err);
/*
 * kmp_read() of a large buffer (at least KMP_READ_BULK_MIN bytes: the
 * kernel's BTF, its symbol tables) with two readers, half each, on two
 * threads, where @mem can be read so (a clone, not serial); else one
 * read.  The same bytes and, on failure, one of the halves' errors.
 */
#define KMP_READ_BULK_MIN (256u << 10)
/*
 * A buffer for a whole table read once and freed soon (the kernel's BTF,
 * kallsyms_names, kallsyms_offsets): mapped on its own, so that freeing
 * gives its memory back at once (the program keeps freed heap for its
 * page caches, cli/main.c), and only its pages written count.  NULL when
 * it cannot be mapped; kmp_map_free() with the same @size.
 */
void *kmp_map_alloc(size_t size);
void kmp_map_free(void *p, size_t size);
bool kmp_read_bulk(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		   struct kmp_err *err);
/*
 * A second reader of @mem for another thread (its ops' clone()), or NULL
 * when @mem has none or it failed; kmp_mem_free() closes and frees it.
 */
struct kmp_mem *kmp_mem_clone(struct kmp_mem *mem);
void kmp_mem_free(struct kmp_mem *clone);
/* @mem's stored(), false where it has none. */
bool kmp_mem_stored(struct kmp_mem *mem, uint64_t addr, void *out, size_t cap, size_t *len);
/* A field of a struct read into a buffer: the accessor of field.h. */
/* Read an unsigned integer of @size (1, 2, 4 or 8) bytes, little endian. */
bool kmp_read_uint(struct kmp_mem *mem, uint64_t addr, uint64_t size,
		   uint64_t *val, struct kmp_err *err);
/* Read a signed integer of @size bytes. */
bool kmp_read_int(struct kmp_mem *mem, uint64_t addr, uint64_t size,
		  int64_t *val, struct kmp_err *err);
/*
 * Read a NUL-terminated string of at most @max - 1 characters into @buf.
 * Fails if no NUL is found within @max bytes or the memory is unreadable.
 */
bool kmp_read_string(struct kmp_mem *mem, uint64_t addr, char *buf,
		     size_t max, struct kmp_err *err);

#endif
