// SPDX-License-Identifier: GPL-2.0
/* A synthetic kernel memory image: a few mapped regions, nothing else. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "memimg.h"

static bool img_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		     struct kmp_err *err)
{
	struct memimg *img = mem->priv;

	img->reads++;
	for (size_t i = 0; i < img->n; i++) {
		const struct memimg_region *r = &img->r[i];

		if (addr >= r->addr && addr - r->addr <= r->len &&
		    len <= r->len - (addr - r->addr)) {
			memcpy(buf, r->data + (addr - r->addr), len);
			return true;
		}
	}
	kmp_fault(err, KMP_ERR_UNMAPPED, addr, "address 0x%" PRIx64 " is not mapped in the image", addr);
	return false;
}

static void img_close(struct kmp_mem *mem)
{
	(void)mem;
}

/* A second reader of the same image, for the threads of a scan: reads only. */
static struct kmp_mem *img_clone(struct kmp_mem *mem)
{
	struct kmp_mem *m = malloc(sizeof(*m));

	if (m)
		*m = *mem;
	return m;
}

static const struct kmp_mem_ops img_ops = { .read = img_read, .close = img_close, .clone = img_clone };

void memimg_init(struct memimg *img, struct kmp_mem *mem)
{
	memset(img, 0, sizeof(*img));
	mem->ops = &img_ops;
	mem->priv = img;
	mem->live = false;
}

void *memimg_add(struct memimg *img, uint64_t addr, size_t len)
{
	struct memimg_region *r = realloc(img->r, (img->n + 1) * sizeof(*r));

	if (!r)
		abort();
	img->r = r;
	r = &img->r[img->n++];
	r->addr = addr;
	r->len = len;
	r->data = calloc(1, len);
	if (!r->data)
		abort();
	return r->data;
}

void memimg_free(struct memimg *img)
{
	for (size_t i = 0; i < img->n; i++)
		free(img->r[i].data);
	free(img->r);
	img->r = NULL;
	img->n = 0;
}
