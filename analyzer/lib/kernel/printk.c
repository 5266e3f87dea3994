// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: find the panic message in the kernel log of a core.
 *
 * The log is the lockless printk ring buffer of kernel/printk/
 * printk_ringbuffer.c: a ring of descriptors (state and the position of
 * the text in the data ring) beside a ring of printk_info records (text
 * length).  Every layout comes from the DWARF of that file's compilation
 * unit; what is written here is the encoding the kernel documents in
 * printk_ringbuffer.h: the two top bits of a descriptor's state_var hold
 * its state, the rest its id, an odd begin position means "no data", a
 * text block that wraps the ring starts at the ring's beginning, and a
 * block whose id is not the record's has been overwritten.
 */
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dwarfutil.h"
#include "printk.h"

#define PANIC_PREFIX "Kernel panic - not syncing: "
#define MAX_TEXT 1024

struct prb_layout {
	struct kmp_field desc_ring, text_ring;			/* printk_ringbuffer */
	struct kmp_field count_bits, descs, infos, head_id, tail_id; /* prb_desc_ring */
	uint64_t desc_size;
	struct kmp_field state_var, text_lpos;			/* prb_desc */
	struct kmp_field begin, next;				/* prb_data_blk_lpos */
	uint64_t info_size;
	struct kmp_field text_len;				/* printk_info */
	struct kmp_field size_bits, data;			/* prb_data_ring */
	struct kmp_field blk_id, blk_data;			/* prb_data_block */
	int64_t committed, finalized;				/* enum desc_state */
};

enum { P_RB, P_DR, P_DESC, P_LPOS, P_INFO, P_TR, P_BLK, P_STATE, P_N };

static bool load(struct kmp_vmlinux *v, uint64_t cu_addr, bool no_aranges,
		 struct prb_layout *p, struct kmp_err *err)
{
	struct kmp_wanted w[P_N] = {
		[P_RB] = { "printk_ringbuffer", DW_TAG_structure_type },
		[P_DR] = { "prb_desc_ring", DW_TAG_structure_type },
		[P_DESC] = { "prb_desc", DW_TAG_structure_type },
		[P_LPOS] = { "prb_data_blk_lpos", DW_TAG_structure_type },
		[P_INFO] = { "printk_info", DW_TAG_structure_type },
		[P_TR] = { "prb_data_ring", DW_TAG_structure_type },
		[P_BLK] = { "prb_data_block", DW_TAG_structure_type },
		[P_STATE] = { "desc_state", DW_TAG_enumeration_type },
	};
	Dwarf_Die cu;
	bool aranges;

	if (!kmp_vmlinux_cu(v, cu_addr, "kernel/printk/printk_ringbuffer.c", no_aranges,
			  &cu, &aranges)) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "no debug info for kernel/printk/printk_ringbuffer.c");
		return false;
	}
	kmp_dwarf_scan(&cu, w, P_N);
	for (int i = 0; i < P_N; i++) {
		if (!w[i].found) {
			kmp_seterr(err, KMP_ERR_CORRUPT, "the printk ring buffer's debug info lacks %s", w[i].name);
			return false;
		}
	}
	if (!kmp_dwarf_member(&w[P_RB].die, "desc_ring", &p->desc_ring) ||
	    !kmp_dwarf_member(&w[P_RB].die, "text_data_ring", &p->text_ring) ||
	    !kmp_dwarf_member(&w[P_DR].die, "count_bits", &p->count_bits) ||
	    !kmp_dwarf_member(&w[P_DR].die, "descs", &p->descs) ||
	    !kmp_dwarf_member(&w[P_DR].die, "infos", &p->infos) ||
	    !kmp_dwarf_member(&w[P_DR].die, "head_id", &p->head_id) ||
	    !kmp_dwarf_member(&w[P_DR].die, "tail_id", &p->tail_id) ||
	    !kmp_dwarf_size(&w[P_DESC].die, &p->desc_size) ||
	    !kmp_dwarf_member(&w[P_DESC].die, "state_var", &p->state_var) ||
	    !kmp_dwarf_member(&w[P_DESC].die, "text_blk_lpos", &p->text_lpos) ||
	    !kmp_dwarf_member(&w[P_LPOS].die, "begin", &p->begin) ||
	    !kmp_dwarf_member(&w[P_LPOS].die, "next", &p->next) ||
	    !kmp_dwarf_size(&w[P_INFO].die, &p->info_size) ||
	    !kmp_dwarf_member(&w[P_INFO].die, "text_len", &p->text_len) ||
	    !kmp_dwarf_member(&w[P_TR].die, "size_bits", &p->size_bits) ||
	    !kmp_dwarf_member(&w[P_TR].die, "data", &p->data) ||
	    !kmp_dwarf_member(&w[P_BLK].die, "id", &p->blk_id) ||
	    !kmp_dwarf_member(&w[P_BLK].die, "data", &p->blk_data) ||
	    !kmp_dwarf_enumerator(&w[P_STATE].die, "desc_committed", &p->committed) ||
	    !kmp_dwarf_enumerator(&w[P_STATE].die, "desc_finalized", &p->finalized)) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "the printk ring buffer's debug info lacks a member this "
			   "kmempool reads (a kernel other than 5.10 to 6.x?)");
		return false;
	}
	if (p->state_var.size != 8 || p->begin.size != 8 || p->next.size != 8) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "the printk ring buffer is not of a 64-bit kernel");
		return false;
	}
	return true;
}

static bool rd(struct kmp_mem *mem, uint64_t base, const struct kmp_field *f, uint64_t *v,
	       struct kmp_err *err)
{
	return kmp_read_uint(mem, base + f->off, f->size, v, err);
}

int kmp_find_panic(struct kmp_vmlinux *v, struct kmp_mem *mem, uint64_t prb,
		   uint64_t cu_addr, bool no_aranges, char *out, size_t len,
		   struct kmp_err *err)
{
	uint64_t rb, dr, tr, count_bits, descs, infos, head, tail, size_bits, data;
	const uint64_t state_shift = 62, id_mask = (1ULL << state_shift) - 1;
	struct prb_layout p;
	struct kmp_err why;

	out[0] = '\0';
	if (!prb) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "no symbol prb (the printk ring buffer)");
		return -1;
	}
	if (!load(v, cu_addr, no_aranges, &p, err))
		return -1;
	/* prb points to a struct printk_ringbuffer, as descs points to descriptors. */
	if (!kmp_read_uint(mem, prb, p.descs.size, &rb, &why)) {
		kmp_wraperr(err, &why, "cannot read prb: %s", why.msg);
		return -1;
	}
	dr = rb + p.desc_ring.off;
	tr = rb + p.text_ring.off;
	if (!rd(mem, dr, &p.count_bits, &count_bits, &why) || !rd(mem, dr, &p.descs, &descs, &why) ||
	    !rd(mem, dr, &p.infos, &infos, &why) || !rd(mem, dr, &p.head_id, &head, &why) ||
	    !rd(mem, dr, &p.tail_id, &tail, &why) || !rd(mem, tr, &p.size_bits, &size_bits, &why) ||
	    !rd(mem, tr, &p.data, &data, &why)) {
		kmp_wraperr(err, &why, "cannot read the printk ring buffer at 0x%" PRIx64 ": %s", rb,
			   why.msg);
		return -1;
	}
	if (count_bits > 24 || size_bits > 32 || size_bits < 4) {
		kmp_seterr(err, KMP_ERR_CORRUPT, "implausible printk ring buffer at 0x%" PRIx64 " (count_bits %"
			   PRIu64 ", size_bits %" PRIu64 ")", rb, count_bits, size_bits);
		return -1;
	}

	/* Newest record first; the panic message is among the last. */
	for (uint64_t id = head & id_mask, n = 0; n < (1ULL << count_bits);
	     id = (id - 1) & id_mask, n++) {
		uint64_t idx = id & ((1ULL << count_bits) - 1);
		uint64_t desc = descs + idx * p.desc_size, sv, begin, next, tlen, blk, bid;
		char text[MAX_TEXT + 1];
		int64_t state;

		if (!rd(mem, desc, &p.state_var, &sv, &why))
			break;
		state = (int64_t)(sv >> state_shift);
		if ((sv & id_mask) != id || (state != p.committed && state != p.finalized))
			goto next;
		if (!rd(mem, desc + p.text_lpos.off, &p.begin, &begin, &why) ||
		    !rd(mem, desc + p.text_lpos.off, &p.next, &next, &why) ||
		    !rd(mem, infos + idx * p.info_size, &p.text_len, &tlen, &why))
			goto next;
		if ((begin & 1) || tlen == 0)
			goto next;		/* a record without text */
		if (tlen > MAX_TEXT)
			tlen = MAX_TEXT;
		if ((begin >> size_bits) == (next >> size_bits))
			blk = data + (begin & ((1ULL << size_bits) - 1));
		else
			blk = data;		/* wrapped: the text is at the start */
		/* The block must still be this record's, not overwritten. */
		if (!rd(mem, blk, &p.blk_id, &bid, &why) || (bid & id_mask) != id ||
		    !kmp_read(mem, blk + p.blk_data.off, text, tlen, &why))
			goto next;
		text[tlen] = '\0';
		if (!strncmp(text, PANIC_PREFIX, strlen(PANIC_PREFIX))) {
			text[strcspn(text, "\n")] = '\0';
			snprintf(out, len, "%s", text);
			return 1;
		}
next:
		if (id == (tail & id_mask))
			break;
	}
	return 0;
}
