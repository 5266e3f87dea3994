// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: ORC unwinding of a blocked task's stack from memory (orc.h).
 * The steps are those of the kernel's own unwinder for a task that is not
 * running (arch/x86/kernel/unwind_orc.c: __unwind_start() from the
 * inactive_task_frame at thread.sp, then unwind_next_frame()), written
 * afresh for memory read from a dump: every address is checked against
 * the task's stack before it is read, the walk is bounded, and a table
 * index comes from a bounded binary search.
 */
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarfutil.h"
#include "orc.h"
#include "vmlinux.h"

/* The register and type numbers of one ORC generation. */
struct orc_nums {
	unsigned int sp, bp, prev_sp, sp_ind, bp_ind;
	unsigned int call, regs, regs_partial, end_of_stack;	/* end_of_stack: ~0u if none */
};

/* To 7.x (6.1 and 6.12): SP 5, PREV_SP 1. */
static const struct orc_nums nums_6 = { 5, 4, 1, 9, 8, 0, 1, 2, ~0u };
/* 7.x: AX 1 added, SP 3, PREV_SP 8. */
static const struct orc_nums nums_7 = { 3, 4, 8, 9, 10, 0, 1, 2, ~0u };

struct bits {
	unsigned int off, width;
};

struct kmp_orc {
	const struct kmp_kernel *k;
	uint64_t ip_start, n;		/* vmlinux: __start_orc_unwind_ip, entries */
	uint64_t orc_start;		/* __start_orc_unwind */
	uint64_t entry_size;		/* struct orc_entry: 6 */
	struct kmp_field sp_offset, bp_offset;
	struct bits sp_reg, bp_reg, type, end;	/* end.width 0: the 'signal' generation */
	struct orc_nums nums;
	uint64_t frame_size;		/* struct inactive_task_frame */
	struct kmp_field frame_bp, frame_ret;
	struct kmp_field mod_num, mod_ip, mod_orc;	/* struct module.arch.* (ok false: none) */
};

struct entry {
	int64_t sp_offset, bp_offset;
	unsigned int sp_reg, bp_reg, type;
	bool end;
};

static bool read_u64(const struct kmp_kernel *k, uint64_t addr, uint64_t *v)
{
	struct kmp_err e;

	return kmp_read_uint(k->mem, addr, 8, v, &e);
}

static unsigned int field_bits(uint64_t word, struct bits b)
{
	return b.width ? (unsigned int)((word >> b.off) & ((1ULL << b.width) - 1)) : 0;
}

static bool read_entry(const struct kmp_orc *o, uint64_t addr, struct entry *e)
{
	unsigned char buf[16] = { 0 };
	uint64_t word = 0;
	struct kmp_err err;

	if (o->entry_size > sizeof(buf) || !kmp_read(o->k->mem, addr, buf, o->entry_size, &err))
		return false;
	memcpy(&word, buf, o->entry_size < 8 ? o->entry_size : 8);
	e->sp_offset = (int16_t)(buf[o->sp_offset.off] | buf[o->sp_offset.off + 1] << 8);
	e->bp_offset = (int16_t)(buf[o->bp_offset.off] | buf[o->bp_offset.off + 1] << 8);
	e->sp_reg = field_bits(word, o->sp_reg);
	e->bp_reg = field_bits(word, o->bp_reg);
	e->type = field_bits(word, o->type);
	e->end = o->end.width && field_bits(word, o->end);
	return true;
}

/* The last entry of a table whose ip is at or below @ip: index into @idx (binary search). */
static bool table_find(const struct kmp_orc *o, uint64_t ips, uint64_t n, uint64_t ip,
		       uint64_t *idx)
{
	uint64_t lo = 0, hi = n;
	struct kmp_err e;

	while (lo < hi) {		/* at most 64 steps: n < 2^64 */
		uint64_t mid = lo + (hi - lo) / 2, a;
		int64_t rel;

		if (!kmp_read_int(o->k->mem, ips + 4 * mid, 4, &rel, &e))
			return false;
		a = ips + 4 * mid + (uint64_t)rel;
		if (a <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	*idx = lo - 1;
	return true;
}

/* The ORC entry for code at @ip: vmlinux's table or its module's. */
static bool find(const struct kmp_orc *o, uint64_t ip, struct entry *e)
{
	const struct kmp_kernel *k = o->k;
	const struct kmp_module *m;
	uint64_t idx, num, ips, orcs;
	struct kmp_err err;

	if (ip >= k->stext && ip < k->etext)
		return table_find(o, o->ip_start, o->n, ip, &idx) &&
		       read_entry(o, o->orc_start + idx * o->entry_size, e);
	m = kmp_module_at(&k->mods, ip);
	if (!m || !kmp_modregion_has(&m->text, ip) || !o->mod_num.ok ||
	    !kmp_read_uint(k->mem, m->addr + o->mod_num.off, o->mod_num.size, &num, &err) ||
	    !num || num > (1u << 24) || !read_u64(k, m->addr + o->mod_ip.off, &ips) ||
	    !read_u64(k, m->addr + o->mod_orc.off, &orcs))
		return false;
	return table_find(o, ips, num, ip, &idx) && read_entry(o, orcs + idx * o->entry_size, e);
}

/* Load the types: orc_entry, inactive_task_frame, module.arch (DWARF: unwind_orc.c's unit). */
static bool load_types(struct kmp_orc *o, struct kmp_vmlinux *v, uint64_t cu_addr, char *why,
		       size_t len)
{
	struct kmp_wanted w[] = {
		{ .name = "orc_entry", .tag = DW_TAG_structure_type },
		{ .name = "inactive_task_frame", .tag = DW_TAG_structure_type },
		{ .name = "module", .tag = DW_TAG_structure_type },
	};
	uint64_t off, width;
	bool via;
	Dwarf_Die cu;

	if (!kmp_vmlinux_cu(v, cu_addr, "arch/x86/kernel/unwind_orc.c", false, &cu, &via)) {
		snprintf(why, len, "no types of arch/x86/kernel/unwind_orc.c");
		return false;
	}
	kmp_dwarf_scan(&cu, w, 3);
	if (!w[0].found || !w[1].found || !kmp_dwarf_size(&w[0].die, &o->entry_size) ||
	    o->entry_size < 5 || o->entry_size > 16 ||
	    !kmp_dwarf_member(&w[0].die, "sp_offset", &o->sp_offset) || o->sp_offset.size != 2 ||
	    !kmp_dwarf_member(&w[0].die, "bp_offset", &o->bp_offset) || o->bp_offset.size != 2 ||
	    o->sp_offset.off + 2 > o->entry_size || o->bp_offset.off + 2 > o->entry_size ||
	    !kmp_dwarf_size(&w[1].die, &o->frame_size) || !o->frame_size || o->frame_size > 256 ||
	    !kmp_dwarf_member(&w[1].die, "bp", &o->frame_bp) || o->frame_bp.size != 8 ||
	    !kmp_dwarf_member(&w[1].die, "ret_addr", &o->frame_ret) || o->frame_ret.size != 8 ||
	    o->frame_bp.off + 8 > o->frame_size || o->frame_ret.off + 8 > o->frame_size) {
		snprintf(why, len, "the types lack struct orc_entry or inactive_task_frame");
		return false;
	}
	struct { const char *name; struct bits *b; } bf[] = {
		{ "sp_reg", &o->sp_reg }, { "bp_reg", &o->bp_reg }, { "type", &o->type },
	};
	for (size_t i = 0; i < 3; i++) {
		if (!kmp_dwarf_bitfield(&w[0].die, bf[i].name, &off, &width) || !width ||
		    width > 8 || off + width > 64 || off + width > 8 * o->entry_size) {
			snprintf(why, len, "struct orc_entry has no bit field %s", bf[i].name);
			return false;
		}
		*bf[i].b = (struct bits){ (unsigned int)off, (unsigned int)width };
	}
	/* 6.1's entries end a stack with a bit; from 6.4 a type says it. */
	if (kmp_dwarf_bitfield(&w[0].die, "end", &off, &width) && width == 1 && off < 64)
		o->end = (struct bits){ (unsigned int)off, 1 };
	else if (!kmp_dwarf_bitfield(&w[0].die, "signal", &off, &width)) {
		snprintf(why, len, "struct orc_entry has neither 'end' nor 'signal'");
		return false;
	}
	if (w[2].found && kmp_dwarf_member_path(&w[2].die, "arch.num_orcs", &o->mod_num) &&
	    kmp_dwarf_member_path(&w[2].die, "arch.orc_unwind_ip", &o->mod_ip) &&
	    kmp_dwarf_member_path(&w[2].die, "arch.orc_unwind", &o->mod_orc) &&
	    o->mod_num.size >= 1 && o->mod_num.size <= 8 && o->mod_ip.size == 8 &&
	    o->mod_orc.size == 8)
		return true;
	o->mod_num.ok = false;	/* modules' frames then end the walk */
	return true;
}

/*
 * The register numbers of this kernel's generation: the entry of a
 * function's first instruction computes the CFA as SP + 8, so its sp_reg
 * is SP's number.
 */
static bool calibrate(struct kmp_orc *o, uint64_t func, char *why, size_t len)
{
	struct entry e;

	if (!find(o, func, &e) || e.sp_offset != 8) {
		snprintf(why, len, "no ORC entry of CFA = SP + 8 at a function's start");
		return false;
	}
	if (e.sp_reg == nums_6.sp)
		o->nums = nums_6;
	else if (e.sp_reg == nums_7.sp)
		o->nums = nums_7;
	else {
		snprintf(why, len, "unknown ORC register number %u for SP", e.sp_reg);
		return false;
	}
	if (!o->end.width) {	/* the 'signal' generation's types */
		o->nums.end_of_stack = 1;
		o->nums.call = 2;
		o->nums.regs = 3;
		o->nums.regs_partial = 4;
	}
	return true;
}

static const char *const orc_names[4] = { "__start_orc_unwind_ip", "__stop_orc_unwind_ip",
					   "__start_orc_unwind", "unwind_next_frame" };

void kmp_orc_expect(struct kmp_vmlinux *vml)
{
	kmp_vmlinux_expect(vml, orc_names, 4);
}

struct kmp_orc *kmp_orc_new(const struct kmp_kernel *k, char *why, size_t len)
{
	struct kmp_sym s[4] = { { .name = orc_names[0] }, { .name = orc_names[1] },
				{ .name = orc_names[2] }, { .name = orc_names[3] } };
	struct kmp_orc *o = calloc(1, sizeof(*o));

	if (!o) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	o->k = k;
	kmp_vmlinux_symbols(k->vml, s, 4);
	if (!s[0].found || !s[1].found || !s[2].found || !s[3].found || s[1].addr <= s[0].addr ||
	    (s[1].addr - s[0].addr) % 4 || (s[1].addr - s[0].addr) / 4 > (1u << 24)) {
		snprintf(why, len, "no ORC tables (a kernel without CONFIG_UNWINDER_ORC)");
		goto fail;
	}
	o->ip_start = s[0].addr + k->kaslr;
	o->n = (s[1].addr - s[0].addr) / 4;
	o->orc_start = s[2].addr + k->kaslr;
	if (!k->l->task_thread_sp.ok || !k->l->task_stack.ok || !k->thread_size) {
		snprintf(why, len, "task_struct.thread.sp or .stack unknown");
		goto fail;
	}
	if (!load_types(o, k->vml, s[3].addr, why, len) ||
	    !calibrate(o, s[3].addr + k->kaslr, why, len))
		goto fail;
	return o;
fail:
	free(o);
	return NULL;
}

void kmp_orc_free(struct kmp_orc *o)
{
	free(o);
}

size_t kmp_orc_unwind(const struct kmp_orc *o, uint64_t task, uint64_t *pcs, size_t max)
{
	const struct kmp_kernel *k = o->k;
	const struct kmp_layout *l = k->l;
	uint64_t stack, tsp, sp, bp, ip, lo, hi;
	struct kmp_err e;
	size_t n = 0;

	if (!kmp_read_uint(k->mem, task + l->task_stack.off, 8, &stack, &e) ||
	    !kmp_read_uint(k->mem, task + l->task_thread_sp.off, 8, &tsp, &e))
		return 0;
	lo = stack;
	hi = stack + k->thread_size;
	if (hi < lo || tsp < lo || tsp + o->frame_size > hi || (tsp & 7) ||
	    !read_u64(k, tsp + o->frame_bp.off, &bp) || !read_u64(k, tsp + o->frame_ret.off, &ip))
		return 0;
	sp = tsp + o->frame_size;
	while (n < max && kmp_kernel_is_text(k, ip)) {
		struct entry en;
		uint64_t cfa, base;

		pcs[n++] = ip;
		if (!find(o, ip - 1, &en) || en.end || en.type == o->nums.end_of_stack ||
		    en.type != o->nums.call)
			break;	/* the end, an entry frame (pt_regs) or undefined */
		if (en.sp_reg == o->nums.sp)
			base = sp;
		else if (en.sp_reg == o->nums.bp)
			base = bp;
		else
			break;	/* indirect or another register: not on a sleeping task's stack */
		cfa = base + (uint64_t)en.sp_offset;
		if (cfa < sp + 8 || cfa > hi || (cfa & 7))
			break;	/* the stack grows down: the CFA lies above this frame */
		if (en.bp_reg == o->nums.prev_sp) {
			uint64_t at = cfa + (uint64_t)en.bp_offset;

			if (at < lo || at + 8 > hi || !read_u64(k, at, &bp))
				break;
		} else if (en.bp_reg == o->nums.bp) {
			uint64_t at = bp + (uint64_t)en.bp_offset;

			if (at < lo || at + 8 > hi || !read_u64(k, at, &bp))
				break;
		}
		if (!read_u64(k, cfa - 8, &ip))
			break;
		sp = cfa;
	}
	return n;
}

size_t kmp_orc_callers(const struct kmp_kernel *k, const uint64_t *pcs, size_t n)
{
	size_t last = n;

	for (size_t i = 0; i < n; i++)
		if (kmp_kernel_in_waitfn(k, pcs[i]))
			last = i;
	return last == n ? n : last + 1;
}
