// SPDX-License-Identifier: GPL-2.0
/*
 * layout_probe VMLINUX: which of its alternatives (lib/base/kpieces.c, the
 * one table of them) each piece of the kernel that kmempool relies on
 * takes in this vmlinux (symbols and DWARF only, no memory), a line each;
 * exit 0 only if every piece was found.  The stock rigs run it on each
 * Debian suite's vmlinux.
 * layout_probe --table: the README's support table, generated from the
 * same table (make test's readme step compares them).
 */
#include <stdio.h>
#include <string.h>

#include "dwarf_kernel.h"
#include "kpieces.h"
#include "layout.h"
#include "vmlinux.h"

static int missing;

/* Piece @p's line: the alternatives in mask @alts (bit a: alternative a), MISSING if none. */
static void piece(enum kmp_piece p, unsigned int alts)
{
	char buf[400] = "";

	for (unsigned int a = 0; a < kmp_piece_nalts(p); a++) {
		if (!(alts & (1u << a)))
			continue;
		if (buf[0])
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ", ");
		kmp_piece_alt(p, a, false, buf, sizeof(buf));
	}
	printf("%-24s %s\n", kmp_piece_title(p), alts ? buf : "MISSING");
	missing += !alts;
}

/* The alternatives of @p that are symbols of @v: a bit each, alternative by alternative. */
static unsigned int symbols(struct kmp_vmlinux *v, enum kmp_piece p)
{
	struct kmp_sym s[16];
	unsigned int alt[16], n = 0, found = 0;

	for (size_t i = 0; i < kmp_nkalts && n < 16; i++)
		if (kmp_kalts[i].piece == p) {
			alt[n] = kmp_kalts[i].alt;
			s[n++] = (struct kmp_sym){ .name = kmp_kalts[i].name };
		}
	kmp_vmlinux_symbols(v, s, n);
	for (unsigned int i = 0; i < n; i++)
		if (s[i].found)
			found |= 1u << alt[i];
	return found;
}

static void table(void)
{
	char buf[600];

	printf("| piece | alternatives, as the kernel's symbols and types show them |\n");
	printf("|---|---|\n");
	for (int p = 0; p < KP_N; p++)
		printf("| %s | %s |\n", kmp_piece_title((enum kmp_piece)p),
		       kmp_piece_list((enum kmp_piece)p, true, buf, sizeof(buf)));
}

int main(int argc, char **argv)
{
	struct kmp_sym cu[] = { { .name = "mempool_exit" }, { .name = "__module_address" }, { .name = "vfree" },
				{ .name = "kmem_cache_free" } };
	struct kmp_vmlinux v;
	struct kmp_layout l;
	struct kmp_modlayout ml;
	struct kmp_slablayout sl;
	struct kmp_vmlayout vl;
	struct kmp_err err;
	unsigned int vmap;
	bool pool;

	if (argc == 2 && !strcmp(argv[1], "--table")) {
		table();
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: layout_probe VMLINUX | --table\n");
		return 2;
	}
	memset(&v, 0, sizeof(v));
	if (!kmp_vmlinux_open(&v, argv[1], &err)) {
		fprintf(stderr, "layout_probe: %s\n", err.msg);
		return 2;
	}
	kmp_vmlinux_symbols(&v, cu, 4);
	pool = kmp_layout_load(&v, cu[0].found ? cu[0].addr : 0, false, &l, &err);
	if (!pool)
		fprintf(stderr, "layout_probe: %s\n", err.msg);
	piece(KP_WAITFN, symbols(&v, KP_WAITFN));
	piece(KP_POOL, !pool ? 0 : !strcmp(l.pool_struct, kn_mempool) ? 2 : 1);
	piece(KP_TASK_STATE, !pool || !l.have_tasks ? 0 : l.task_state_old ? 2 : 1);
	piece(KP_THREADS, !pool || !l.have_stacks ? 0 : l.threads_by_signal ? 2 : 1);
	piece(KP_STACK_END, symbols(&v, KP_STACK_END));
	if (kmp_modlayout_load(&v, cu[0].addr, false, &ml) ||
	    kmp_modlayout_load(&v, cu[1].found ? cu[1].addr : 0, false, &ml))
		piece(KP_MODMEM, ml.per_kind ? 2 : 1);
	else
		piece(KP_MODMEM, 0);
	kmp_vmlayout_load(&v, cu[2].found ? cu[2].addr : 0, &vl);
	/* vmap_nodes counts only with the struct vmap_node it points to */
	vmap = symbols(&v, KP_VMAP) & (vl.ok ? (vl.nodes_ok ? 3u : 1u) : 0u);
	piece(KP_VMAP, vmap & 1 ? 1 : vmap);
	kmp_slablayout_load(&v, cu[0].addr, cu[3].found ? cu[3].addr : 0, false, &sl);
	piece(KP_SLAB_TEST, !sl.objects_ok ? 0 : 1u << sl.slab_by);
	piece(KP_SLAB_CACHE, !sl.objects_ok ? 0 : sl.cache_in_page ? 2 : 1);
	piece(KP_ORDER, !sl.objects_ok ? 0 : sl.order_mask == 0xff ? 2 : 1);
	piece(KP_HEAD, !sl.objects_ok ? 0 : sl.head_by_info ? 2 : 1);
	kmp_vmlinux_close(&v);
	return missing ? 1 : 0;
}
