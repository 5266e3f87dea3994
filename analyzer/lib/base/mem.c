// SPDX-License-Identifier: GPL-2.0
/* kmempool: typed reads on top of a memory reader. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mem.h"

bool kmp_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
	      struct kmp_err *err)
{
	return mem->ops->read(mem, addr, buf, len, err);
}

/* The second half of a kmp_read_bulk(), on a reader of its own. */
struct half {
	struct kmp_mem *mem;
	uint64_t addr;
	void *buf;
	size_t len;
	bool ok;
	struct kmp_err err;
};

static void *read_half(void *arg)
{
	struct half *h = arg;

	h->ok = kmp_read(h->mem, h->addr, h->buf, h->len, &h->err);
	return NULL;
}

bool kmp_read_bulk(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		   struct kmp_err *err)
{
	struct half h;
	pthread_t t;
	bool ok;

	if (len < KMP_READ_BULK_MIN || mem->serial || !(h.mem = kmp_mem_clone(mem)))
		return kmp_read(mem, addr, buf, len, err);
	h.addr = addr + len / 2;
	h.buf = (char *)buf + len / 2;
	h.len = len - len / 2;
	if (pthread_create(&t, NULL, read_half, &h)) {
		kmp_mem_free(h.mem);
		return kmp_read(mem, addr, buf, len, err);
	}
	ok = kmp_read(mem, addr, buf, len / 2, err);
	pthread_join(t, NULL);
	kmp_mem_free(h.mem);
	if (ok && !h.ok)
		*err = h.err;
	return ok && h.ok;
}

bool kmp_mem_stored(struct kmp_mem *mem, uint64_t addr, void *out, size_t cap, size_t *len)
{
	return mem->ops->stored && mem->ops->stored(mem, addr, out, cap, len);
}

struct kmp_mem *kmp_mem_clone(struct kmp_mem *mem)
{
	return mem->ops->clone ? mem->ops->clone(mem) : NULL;
}

void kmp_mem_free(struct kmp_mem *clone)
{
	if (!clone)
		return;
	if (clone->ops->close)
		clone->ops->close(clone);
	free(clone);
}

bool kmp_read_uint(struct kmp_mem *mem, uint64_t addr, uint64_t size,
		   uint64_t *val, struct kmp_err *err)
{
	unsigned char b[8];
	uint64_t v = 0;

	if (size == 0 || size > 8 || (size & (size - 1))) {
		kmp_seterr(err, KMP_ERR_FORMAT, "cannot read an integer of %llu bytes",
			   (unsigned long long)size);
		return false;
	}
	if (!kmp_read(mem, addr, b, size, err))
		return false;
	for (uint64_t i = size; i > 0; i--)
		v = (v << 8) | b[i - 1];
	*val = v;
	return true;
}

bool kmp_read_int(struct kmp_mem *mem, uint64_t addr, uint64_t size,
		  int64_t *val, struct kmp_err *err)
{
	uint64_t u;

	if (!kmp_read_uint(mem, addr, size, &u, err))
		return false;
	if (size < 8 && (u & (1ULL << (size * 8 - 1))))
		u |= ~0ULL << (size * 8);
	*val = (int64_t)u;
	return true;
}

bool kmp_read_string(struct kmp_mem *mem, uint64_t addr, char *buf,
		     size_t max, struct kmp_err *err)
{
	size_t done = 0;

	/* Read in small chunks so a short string near an unmapped page works. */
	while (done < max) {
		size_t chunk = 64 - ((addr + done) & 63);

		if (chunk > max - done)
			chunk = max - done;
		if (!kmp_read(mem, addr + done, buf + done, chunk, err))
			return false;
		if (memchr(buf + done, '\0', chunk))
			return true;
		done += chunk;
	}
	buf[max - 1] = '\0';
	kmp_fault(err, KMP_ERR_CORRUPT, addr, "string at 0x%llx has no NUL within %zu bytes",
		  (unsigned long long)addr, max);
	return false;
}

void *kmp_map_alloc(size_t size)
{
	void *p;

	if (!size)
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void kmp_map_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}
