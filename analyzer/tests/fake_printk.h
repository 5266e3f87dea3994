/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The printk ring buffer types with the kernel's names, for the unit tests
 * of the panic-message reader.  Members are in another order than in the
 * kernel where that is allowed, so the reader must use DWARF.
 */
#ifndef FAKE_PRINTK_H
#define FAKE_PRINTK_H

typedef struct {
	long counter;
} atomic_long_t;

struct prb_data_blk_lpos {
	unsigned long begin;
	unsigned long next;
};

struct prb_desc {
	atomic_long_t state_var;
	struct prb_data_blk_lpos text_blk_lpos;
};

struct printk_info {
	unsigned long long seq;
	unsigned int caller_id;
	unsigned char facility;
	unsigned short text_len;
	unsigned long long ts_nsec;
	char dev_info[48];
};

struct prb_desc_ring {
	atomic_long_t tail_id;
	unsigned int count_bits;
	struct printk_info *infos;
	struct prb_desc *descs;
	atomic_long_t head_id;
	atomic_long_t last_finalized_id;
};

struct prb_data_ring {
	char *data;
	atomic_long_t head_lpos;
	unsigned int size_bits;
	atomic_long_t tail_lpos;
};

struct printk_ringbuffer {
	atomic_long_t fail;
	struct prb_data_ring text_data_ring;
	struct prb_desc_ring desc_ring;
};

struct prb_data_block {
	unsigned long id;
	char data[];
};

enum desc_state {
	desc_miss = -1,
	desc_reserved = 0x0,
	desc_committed = 0x1,
	desc_finalized = 0x2,
	desc_reusable = 0x3,
};

#endif
