/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: a core and its vmlinux, checked against each other, with the
 * addresses the commands need (KASLR offset applied).
 */
#ifndef KMP_SESSION_H
#define KMP_SESSION_H

#include "core.h"
#include "layout.h"
#include "pools.h"
#include "vmcoreinfo.h"
#include "vmlinux.h"

/* Where types and symbols come from (--types). */
enum kmp_types {
	KMP_TYPES_AUTO,		/* a vmlinux if one is found, else the dump's BTF */
	KMP_TYPES_DWARF,	/* a vmlinux's DWARF and ELF symbols */
	KMP_TYPES_BTF,		/* the kernel's BTF and kallsyms, from its memory */
};

struct kmp_options {
	const char *core;	/* NULL: /proc/kcore */
	const char *vmlinux;	/* NULL: search like drgn */
	enum kmp_types types;
	bool force;		/* accept a vmlinux that does not match */
	bool no_aranges;	/* scan unit headers instead (benchmark) */
	bool from_stacks;	/* waiters: search task stacks even with mempool_list */
	/*
	 * The dump cache (dumpcache.h) used when it has the dump, but no
	 * entry written for it (triage: many dumps, each read once; an entry
	 * each would write 9-16 MB and push out the ones in use).
	 */
	bool cache_no_store;
	const char *moddebug[16];	/* --module-debug files or directories */
	size_t nmoddebug;
	struct kmp_limits lim;
	const struct kmp_symbol_source *symsrc;	/* the crash extension's: crash's symbols */
	struct kmp_notes notes;	/* the front end's notes and progress (kmp.h) */
};

struct kmp_session {
	struct kmp_core core;
	struct kmp_vmlinux vml;
	struct kmp_vmcoreinfo vi;
	struct kmp_layout layout;
	uint64_t kaslr;		/* added to every vmlinux symbol address */
	uint64_t mempool_list;	/* runtime address */
	uint64_t prb;		/* runtime address of prb, 0 if no such symbol */
	uint64_t prb_cu;	/* link-time address of code in printk_ringbuffer.c */
	bool series;		/* the kernel has mempool_list */
	uint64_t page_size;
	uint64_t layout_cu_addr;	/* link-time address of code in mm/mempool.c */
	char version[16];	/* /proc/mempool format of this kernel ("" without the series) */
	char columns[256];	/* series v6: its column line, mempool_format_columns */
	struct kmp_clock clock;	/* format 1.2: jiffies and HZ (zero: unknown) */
	char release[65];
	char banner[256];
	bool core_open, vml_open;
	struct kmp_notes notes;	/* the options' */
};

/*
 * False with @err set (its kind says what failed; kmp_exit_status() makes
 * it a status); close in any case.
 */
bool kmp_session_open(struct kmp_session *s, const struct kmp_options *o,
		      struct kmp_err *err);

/*
 * HZ from the length of a tick in ns (tick_nsec, or TICK_NSEC): the
 * nearest whole rate, 0 outside HZ 10..10000.  From the jiffies
 * clocksource: @name must be "jiffies" and @mult a whole TICK_NSEC
 * shifted left by @shift (at most 31); 0 otherwise.
 */
uint64_t kmp_hz_of_tick(uint64_t tick_nsec);
uint64_t kmp_hz_of_jiffies_clocksource(const char *name, uint64_t mult, uint64_t shift);
void kmp_session_close(struct kmp_session *s);

/*
 * The checks and look-ups of kmp_session_open() on a core already in
 * s->core (mem, path, format, vmcoreinfo): the vmlinux, its match with the
 * core, the layout, the format version.  For front ends that bring their own
 * memory reader (session_mem.c).
 */
bool kmp_session_attach(struct kmp_session *s, const struct kmp_options *o,
			struct kmp_err *err);

/*
 * A session over memory the caller reads (a crash extension: crash's
 * readmem()): @mem is copied and never closed, @vmcoreinfo is the dump's
 * VMCOREINFO text (KEY=VALUE lines), which must stay valid until
 * kmp_session_close() (not freed by it); @source and @format name the
 * memory for messages and JSON.  @o->vmlinux must be set; @o->core is
 * ignored.  Same return values as kmp_session_open(); close with
 * kmp_session_close().
 */
bool kmp_session_open_mem(struct kmp_session *s, const struct kmp_options *o,
			  const struct kmp_mem *mem, const char *vmcoreinfo,
			  const char *source, const char *format, struct kmp_err *err);

/* Try the places drgn looks for a vmlinux; returns false if none fits. */
bool kmp_find_vmlinux(const struct kmp_vmcoreinfo *vi, char *out, size_t len);

#endif
