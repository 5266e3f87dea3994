// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the printk ring reader (panic message) over a mutated
 * memory image.  The input is one region at BASE; the symbol prb is taken
 * to be at BASE (its first 8 bytes point at the printk_ringbuffer).  The
 * layouts come from the test object's DWARF (fake_printk.c's unit).
 * KMP_FUZZ_WRITE_SEED=FILE writes a seed ring holding a panic line.
 */
#include <stdint.h>
#include <string.h>

#include "fake_printk.h"
#include "fuzz_common.h"
#include "memimg.h"
#include "printk.h"

#define BASE 0xffff888000000000ULL
#define RB 0x40
#define DESCS 0x200
#define INFOS 0x400
#define DATA 0x1000
#define COUNT_BITS 3
#define SIZE_BITS 8

static struct kmp_vmlinux V;
static uint64_t prb_cu;

static void write_seed(const char *path)
{
	static unsigned char m[DATA + (1 << SIZE_BITS)];
	static const char *text[] = {
		"Booting",
		"Kernel panic - not syncing: hung_task: blocked tasks",
		"CPU: 0 PID: 22",
	};
	struct printk_ringbuffer rb = { 0 };
	uint64_t ptr = BASE + RB, lpos = 0;

	memcpy(m, &ptr, 8);
	rb.desc_ring.count_bits = COUNT_BITS;
	rb.desc_ring.descs = (struct prb_desc *)(uintptr_t)(BASE + DESCS);
	rb.desc_ring.infos = (struct printk_info *)(uintptr_t)(BASE + INFOS);
	rb.desc_ring.tail_id.counter = 1;
	rb.desc_ring.head_id.counter = 3;
	rb.text_data_ring.size_bits = SIZE_BITS;
	rb.text_data_ring.data = (char *)(uintptr_t)(BASE + DATA);
	memcpy(m + RB, &rb, sizeof(rb));
	for (unsigned long id = 1; id <= 3; id++) {
		size_t len = strlen(text[id - 1]), sz = (8 + len + 7) & ~7UL;
		struct prb_desc *d = (struct prb_desc *)(m + DESCS) + id;
		struct printk_info *in = (struct printk_info *)(m + INFOS) + id;
		struct prb_data_block *blk = (struct prb_data_block *)(m + DATA + lpos);

		blk->id = id;
		memcpy(blk->data, text[id - 1], len);
		d->state_var.counter = (long)((2UL << 62) | id);
		d->text_blk_lpos.begin = lpos;
		d->text_blk_lpos.next = lpos + sz;
		in->text_len = (unsigned short)len;
		lpos += sz;
	}
	fuzz_write_seed(path, m, sizeof(m));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct kmp_sym sym = { .name = "prb_read_valid" };
	struct kmp_err err;

	(void)argc;
	(void)argv;
	if (!kmp_vmlinux_open(&V, fuzz_fake_path(), &err)) {
		fprintf(stderr, "fuzz: %s\n", err.msg);
		exit(1);
	}
	kmp_vmlinux_symbols(&V, &sym, 1);
	prb_cu = sym.addr;
	if (getenv("KMP_FUZZ_WRITE_SEED")) {
		write_seed(getenv("KMP_FUZZ_WRITE_SEED"));
		exit(0);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmp_err err;
	struct memimg img;
	struct kmp_mem mem;
	char out[256];

	if (size < 8)
		return 0;
	memimg_init(&img, &mem);
	memcpy(memimg_add(&img, BASE, size), data, size);
	if (kmp_find_panic(&V, &mem, BASE, prb_cu, false, out, sizeof(out), &err) == 1 &&
	    (strlen(out) >= sizeof(out) || strchr(out, '\n')))
		abort();
	memimg_free(&img);
	return 0;
}
