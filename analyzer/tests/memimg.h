/* SPDX-License-Identifier: GPL-2.0 */
/* A synthetic kernel memory image for the unit tests. */
#ifndef MEMIMG_H
#define MEMIMG_H

#include "mem.h"

struct memimg_region {
	uint64_t addr;
	size_t len;
	unsigned char *data;
};

struct memimg {
	struct memimg_region *r;
	size_t n;
	_Atomic unsigned long reads;	/* also by the threads of a scan */
};

void memimg_init(struct memimg *img, struct kmp_mem *mem);
/* A zeroed region of @len bytes at @addr; returns its bytes. */
void *memimg_add(struct memimg *img, uint64_t addr, size_t len);
void memimg_free(struct memimg *img);

#endif
