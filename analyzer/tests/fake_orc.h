/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A synthetic kernel for the ORC unwinder (lib/kernel/orc.c): a kallsyms table with
 * the ORC tables' symbols, BTF with struct orc_entry (6.4 on: 'signal') and
 * struct inactive_task_frame, memory holding the tables, a task and its
 * stack.  The unit test (unit_btf.c) and the fuzz harness (fuzz_orc.c)
 * share it; the harness lets its input write the entries and the stack.
 */
#ifndef FAKE_ORC_H
#define FAKE_ORC_H

#include <bpf/btf.h>
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "fake_kallsyms.h"
#include "kallsyms.h"
#include "kernel.h"
#include "memimg.h"
#include "vmlinux.h"

#define FO_TEXT 0xffffffff81000000ULL	/* functions at +0x1000, +0x2000, ... */
#define FO_IPS 0xffffffff82000000ULL	/* __start_orc_unwind_ip */
#define FO_ORCS 0xffffffff82010000ULL	/* __start_orc_unwind */
#define FO_TASK 0xffff888000000000ULL	/* stack pointer at +0, thread.sp at +8 */
#define FO_STACK 0xffffc90000000000ULL	/* 16 KiB */
#define FO_NORC 8			/* entries: one per function, the first unwind_next_frame */

struct fake_orc {
	struct memimg img;
	struct kmp_mem mem;
	struct kmp_vmlinux vml;
	struct kmp_layout l;
	struct kmp_kernel k;
	unsigned char *stack, *orcs;
};

/* One 6-byte entry (sp_reg SP is 3, the 7.x numbering; type CALL 2, END 1). */
static inline void fo_entry(struct fake_orc *f, int i, int16_t sp_off, int16_t bp_off,
			    unsigned sp_reg, unsigned bp_reg, unsigned type)
{
	unsigned char *e = f->orcs + 6 * i;
	uint16_t flags = (uint16_t)((sp_reg & 15) | (bp_reg & 15) << 4 | (type & 7) << 8);

	memcpy(e, &sp_off, 2);
	memcpy(e + 2, &bp_off, 2);
	memcpy(e + 4, &flags, 2);
}

static inline struct btf *fo_btf(void)
{
	struct btf *b = btf__new_empty();
	int s16 = btf__add_int(b, "short", 2, BTF_INT_SIGNED);
	int u32 = btf__add_int(b, "unsigned int", 4, 0);
	int u64 = btf__add_int(b, "long unsigned int", 8, 0);
	static const char *const regs[] = { "r15", "r14", "r13", "r12", "bx", "bp", "ret_addr" };

	btf__add_struct(b, "orc_entry", 6);
	btf__add_field(b, "sp_offset", s16, 0, 0);
	btf__add_field(b, "bp_offset", s16, 16, 0);
	btf__add_field(b, "sp_reg", u32, 32, 4);
	btf__add_field(b, "bp_reg", u32, 36, 4);
	btf__add_field(b, "type", u32, 40, 3);
	btf__add_field(b, "signal", u32, 43, 1);
	btf__add_struct(b, "inactive_task_frame", 56);
	for (int i = 0; i < 7; i++)
		btf__add_field(b, regs[i], u64, 64 * i, 0);
	return b;
}

/*
 * The kernel: entries for the functions at FO_TEXT + 0x1000 * (i + 1), all
 * "CFA = SP + 8, CALL" (fo_entry() changes them); thread.sp at @tsp.
 */
static inline bool fo_init(struct fake_orc *f, uint64_t tsp)
{
	struct ktab t;
	struct kmp_kallsyms_raw r;
	struct kmp_err err;
	struct btf *b = fo_btf();
	uint32_t size;
	const void *raw = btf__raw_data(b, &size);
	unsigned char *ips, *task;
	bool ok;

	memset(f, 0, sizeof(*f));
	memimg_init(&f->img, &f->mem);
	ips = memimg_add(&f->img, FO_IPS, 4 * FO_NORC);
	f->orcs = memimg_add(&f->img, FO_ORCS, 6 * FO_NORC);
	memimg_add(&f->img, FO_TEXT, 0x10000);
	f->stack = memimg_add(&f->img, FO_STACK, 16384);
	task = memimg_add(&f->img, FO_TASK, 64);
	for (int i = 0; i < FO_NORC; i++) {
		int32_t rel = (int32_t)(FO_TEXT + 0x1000 * (uint64_t)(i + 1) - (FO_IPS + 4 * (uint64_t)i));

		memcpy(ips + 4 * i, &rel, 4);
		fo_entry(f, i, 8, 0, 3, 0, 2);
	}
	memcpy(task, &(uint64_t){ FO_STACK }, 8);
	memcpy(task + 8, &tsp, 8);
	/* kallsyms: the tables' symbols and unwind_next_frame, the first function */
	ktab_init(&t);
	ktab_add(&t, 'T', "_text", -1);
	ktab_add(&t, 'T', "unwind_next_frame", -1 - 0x1000);
	ktab_add(&t, 'R', "__start_orc_unwind_ip", -1 - (int32_t)(FO_IPS - FO_TEXT));
	ktab_add(&t, 'R', "__stop_orc_unwind_ip", -1 - (int32_t)(FO_IPS - FO_TEXT + 4 * FO_NORC));
	ktab_add(&t, 'R', "__start_orc_unwind", -1 - (int32_t)(FO_ORCS - FO_TEXT));
	r = ktab_raw(&t);
	r.have_base = true;
	r.relative_base = FO_TEXT;
	f->vml.fd = -1;
	f->vml.ks = calloc(1, sizeof(*f->vml.ks));
	f->vml.btf = calloc(1, sizeof(*f->vml.btf));
	ok = f->vml.ks && f->vml.btf && kmp_kallsyms_decode(f->vml.ks, &r, 0, &err) &&
	     kmp_btf_parse(f->vml.btf, raw, size, &err);
	btf__free(b);
	f->l.task_stack = (struct kmp_field){ .off = 0, .size = 8, .ok = true };
	f->l.task_thread_sp = (struct kmp_field){ .off = 8, .size = 8, .ok = true };
	f->k.mem = &f->mem;
	f->k.l = &f->l;
	f->k.vml = &f->vml;
	f->k.thread_size = 16384;
	f->k.stext = FO_TEXT;
	f->k.etext = FO_TEXT + 0x10000;
	return ok;
}

static inline void fo_free(struct fake_orc *f)
{
	kmp_vmlinux_close(&f->vml);
	memimg_free(&f->img);
}

#endif
