// SPDX-License-Identifier: GPL-2.0
/*
 * A second compilation unit of the test object: the printk ring buffer's
 * types, found by the reader from the address of prb_read_valid().
 */
#include "fake_printk.h"

static struct printk_ringbuffer fake_rb;
struct printk_ringbuffer *prb = &fake_rb;

int prb_read_valid(struct printk_ringbuffer *rb, struct prb_data_block *blk)
{
	enum desc_state st = desc_finalized;

	return (int)rb->desc_ring.count_bits + (int)blk->id + (int)st;
}
