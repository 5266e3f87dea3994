// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: cross-check a core and a vmlinux.  Reader-agnostic: the core's
 * memory is already open (a dump or /proc/kcore by kmp_session_open() in
 * session_open.c, crash's readmem() by kmp_session_open_mem()).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfod.h"
#include "dwarf_kernel.h"
#include "field.h"
#include "kernel.h"
#include "layout_check.h"
#include "modbuildid.h"
#include "orc.h"
#include "placename.h"
#include "session.h"

/* "Linux version 6.1.192 (...)" -> "6.1.192" */
static void banner_release(const char *banner, char *rel, size_t len)
{
	const char *p = strncmp(banner, "Linux version ", 14) ? NULL : banner + 14;
	size_t n = 0;

	rel[0] = '\0';
	if (!p)
		return;
	while (p[n] && p[n] != ' ' && n + 1 < len)
		n++;
	memcpy(rel, p, n);
	rel[n] = '\0';
}

/* PAGESIZE from VMCOREINFO; the x86-64 page size when it is absent. */
static uint64_t page_size(const char *vmcoreinfo)
{
	size_t n = 0;
	const char *p = kmp_vmcoreinfo_value(vmcoreinfo, "PAGESIZE", &n);
	char buf[16], *end;
	uint64_t v;

	if (!p || !n || n >= sizeof(buf))
		return 4096;
	memcpy(buf, p, n);
	buf[n] = '\0';
	v = strtoull(buf, &end, 10);
	return !*end && v >= 4096 && v <= 65536 && !(v & (v - 1)) ? v : 4096;
}

/*
 * No vmlinux on disk: without DEBUGINFOD_URLS the error kmempool always
 * gave; with it, the vmlinux by the dump's build ID from debuginfod (its
 * cache first), or that error saying why debuginfod had none.
 */
static bool find_debuginfod(struct kmp_session *s, char *path, size_t len, struct kmp_err *err)
{
	const char *rel = s->vi.osrelease[0] ? s->vi.osrelease : "?";
	const char *bid = s->vi.build_id[0] ? s->vi.build_id : "?";
	char what[96], why[512];

	if (!kmp_debuginfod_enabled()) {
		kmp_seterr(err, KMP_ERR_VMLINUX, "no vmlinux found for release %s (build ID %s); "
			   "give one with -s", rel, bid);
		return false;
	}
	if (!s->vi.build_id[0]) {
		kmp_seterr(err, KMP_ERR_VMLINUX, "no vmlinux found for release %s on disk, and no "
			   "build ID in the dump to ask debuginfod for; give one with -s", rel);
		return false;
	}
	snprintf(what, sizeof(what), "vmlinux %s", rel);
	if (!kmp_debuginfod_find(s->vi.build_id, what, path, len, why, sizeof(why), &s->notes)) {
		kmp_seterr(err, KMP_ERR_VMLINUX, "no vmlinux found for release %s on disk, and %s; "
			   "give one with -s", rel, why);
		return false;
	}
	return true;
}

enum { S_LIST, S_VERSION, S_BANNER, S_CUFN, S_PRB, S_PRB_CUFN, S_JIFFIES, S_TICK, S_COLUMNS,
       S_ALLOC_SLAB, S_KMALLOC, S_ALLOC_PAGES, S_WAKE, S_SLAB_CU, S_JIFFIES_CS, S_JIFFIES_CU, S_N };

uint64_t kmp_hz_of_tick(uint64_t tick_nsec)
{
	if (tick_nsec < 100000 || tick_nsec > 100000000)	/* HZ 10 .. 10000 */
		return 0;
	return (1000000000u + tick_nsec / 2) / tick_nsec;
}

uint64_t kmp_hz_of_jiffies_clocksource(const char *name, uint64_t mult, uint64_t shift)
{
	if (strcmp(name, "jiffies") || shift > 31 || (mult & ((1ULL << shift) - 1)))
		return 0;
	return kmp_hz_of_tick(mult >> shift);
}

/*
 * HZ from the jiffies clocksource in memory (kernel/time/jiffies.c:
 * clocksource_jiffies, whose mult is TICK_NSEC << JIFFIES_SHIFT, never
 * rescaled: it registers without a frequency); its type from the unit of
 * jiffies_read().  0 when either is missing or it does not read as such.
 */
static uint64_t hz_from_clocksource(struct kmp_session *s, const struct kmp_sym *cs,
				    const struct kmp_sym *cu)
{
	unsigned char buf[1024];
	struct kmp_cslayout cl;
	uint64_t name, mult, shift;
	char str[16];
	struct kmp_err e;

	if (!cs->found || !cu->found || !kmp_cslayout_load(&s->vml, cu->addr, &cl) ||
	    cl.size > sizeof(buf) || !kmp_read(&s->core.mem, cs->addr + s->kaslr, buf, cl.size, &e) ||
	    !kmp_field_get(buf, cl.size, &cl.name, &name, &e) ||
	    !kmp_field_get(buf, cl.size, &cl.mult, &mult, &e) ||
	    !kmp_field_get(buf, cl.size, &cl.shift, &shift, &e))
		return 0;
	memset(str, 0, sizeof(str));
	if (!kmp_read_string(&s->core.mem, name, str, sizeof(str), &e))
		return 0;
	return kmp_hz_of_jiffies_clocksource(str, mult, shift);
}

/*
 * HZ from the initial value of jiffies_64 in the vmlinux file (not in
 * memory): INITIAL_JIFFIES is (unsigned int)(-300 * HZ).  For kernels
 * without tick_nsec (7.x); 0 if it does not read as such.
 */
static uint64_t hz_from_initial_jiffies(struct kmp_session *s, const struct kmp_sym *jiffies)
{
	unsigned char b[4];
	uint64_t v;

	if (s->vml.mem || !kmp_vmlinux_read(&s->vml, jiffies->addr, b, sizeof(b)))
		return 0;	/* no file (BTF mode): memory holds jiffies now, not its start */
	v = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24;
	v = (1ULL << 32) - v;
	if (!v || v % 300 || v / 300 < 10 || v / 300 > 10000)
		return 0;
	return v / 300;
}

/*
 * The clock for format 1.2's wait times: jiffies_64, and HZ from
 * tick_nsec (the length of a tick in ns, NTP-adjusted by a few ppm at
 * most, so rounding 10^9 / tick_nsec gives CONFIG_HZ), or, on kernels
 * without tick_nsec (7.x), from the jiffies clocksource in memory (so
 * from the dump alone too), else from jiffies_64's initial value in the
 * vmlinux file.  HZ is left zero when it cannot be told, the clock
 * entirely when jiffies_64 is missing; the waits are then printed as "?".
 */
static void session_clock(struct kmp_session *s, const struct kmp_sym *syms)
{
	const struct kmp_sym *jiffies = &syms[S_JIFFIES], *tick = &syms[S_TICK];
	uint64_t tick_nsec, size = tick->size ? tick->size : 8, hz = 0;
	struct kmp_err why;

	memset(&s->clock, 0, sizeof(s->clock));
	if (!jiffies->found || (jiffies->size != 8 && jiffies->size != 4))
		return;
	if (tick->found && size <= 8 &&
	    kmp_read_uint(&s->core.mem, tick->addr + s->kaslr, size, &tick_nsec, &why))
		hz = kmp_hz_of_tick(tick_nsec);
	else if (!tick->found &&
		 !(hz = hz_from_clocksource(s, &syms[S_JIFFIES_CS], &syms[S_JIFFIES_CU])))
		hz = hz_from_initial_jiffies(s, jiffies);
	/* jiffies without HZ still says "HZ unknown" rather than "jiffies unreadable". */
	s->clock.jiffies_addr = jiffies->addr + s->kaslr;
	s->clock.jiffies_size = jiffies->size;
	s->clock.hz = hz;
}

/*
 * Series v6: the column line the kernel prints (mempool_format_columns),
 * the functions that tell a pool's type and a waiter, and the element
 * size of a slab pool (kmem_cache.object_size, from the allocator's unit
 * when mm/mempool.c's has no struct kmem_cache).
 */
static bool session_v6(struct kmp_session *s, const struct kmp_options *o,
		       const struct kmp_sym *syms, const char *path, struct kmp_err *err)
{
	static const int fn[] = { S_ALLOC_SLAB, S_KMALLOC, S_ALLOC_PAGES, S_WAKE };
	struct kmp_v6fns *f = &s->clock.v6;
	struct kmp_slablayout sl;
	struct kmp_err why;

	if (!syms[S_COLUMNS].found) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s has no symbol mempool_format_columns", path);
		return false;
	}
	memset(s->columns, 0, sizeof(s->columns));
	if (!kmp_read_string(&s->core.mem, syms[S_COLUMNS].addr + s->kaslr, s->columns,
			     sizeof(s->columns), &why)) {
		kmp_wraperr(err, &why, "cannot read the /proc/mempool column line: %s", why.msg);
		return false;
	}
	for (size_t i = 0; i < sizeof(fn) / sizeof(fn[0]); i++) {
		if (!syms[fn[i]].found) {
			kmp_seterr(err, KMP_ERR_FORMAT, "%s has no symbol %s, which series v6's "
				   "/proc/mempool needs", path, syms[fn[i]].name);
			return false;
		}
	}
	f->alloc_slab = syms[S_ALLOC_SLAB].addr + s->kaslr;
	f->kmalloc = syms[S_KMALLOC].addr + s->kaslr;
	f->alloc_pages = syms[S_ALLOC_PAGES].addr + s->kaslr;
	f->wake = syms[S_WAKE].addr + s->kaslr;
	f->page_size = s->page_size;
	if (s->layout.kc_object_size.ok)
		return true;
	if (kmp_slablayout_load(&s->vml, s->layout_cu_addr,
				syms[S_SLAB_CU].found ? syms[S_SLAB_CU].addr : 0, o->no_aranges,
				&sl) && sl.object_size.ok) {
		s->layout.kc_object_size = sl.object_size;
		s->layout.kc_object_size.name = "kmem_cache.object_size";
		s->layout.kc_size = sl.object_size.off + sl.object_size.size;
		return kmp_layout_check(&s->layout, path, err);
	}
	kmp_seterr(err, KMP_ERR_FORMAT, "%s: the debug info lacks kmem_cache.object_size, the "
		   "element size of a slab pool", path);
	return false;
}

/*
 * The kernel's own BTF and kallsyms from the dump (issue 33).  @why: why
 * no vmlinux was found, NULL when --types btf asked for them; with it, a
 * kernel that lacks them gets one line saying both.
 */
static bool open_dump_types(struct kmp_session *s, const struct kmp_options *o,
			    const struct kmp_err *why, struct kmp_err *err)
{
	uint64_t kaslr = s->vi.have_kerneloffset ? s->vi.kerneloffset : 0;
	struct kmp_err e;
	char msg[sizeof(why->msg)];
	char *cut;

	if (kmp_vmlinux_open_dump(&s->vml, &s->core.mem, s->core.vmcoreinfo, kaslr,
				  !o->cache_no_store, &e))
		return true;
	if (!why || e.kind != KMP_ERR_VMLINUX) {
		*err = e;
		return false;
	}
	snprintf(msg, sizeof(msg), "%s", why->msg);
	if ((cut = strstr(msg, "; give one with -s")))
		*cut = '\0';
	kmp_seterr(err, KMP_ERR_VMLINUX, "%s, and the dump alone does not do: %s; give a vmlinux "
		   "with -s VMLINUX", msg, e.msg);
	return false;
}

/*
 * Where types and symbols come from: -s (DWARF), a vmlinux found on disk or
 * by debuginfod, else the dump's BTF and kallsyms; --types forces one.
 */
static bool open_types(struct kmp_session *s, const struct kmp_options *o, char *path,
		       size_t len, struct kmp_err *err)
{
	struct kmp_err why;

	if (o->types == KMP_TYPES_BTF) {
		snprintf(path, len, "the dump");
		return open_dump_types(s, o, NULL, err);
	}
	if (o->vmlinux)
		snprintf(path, len, "%s", o->vmlinux);
	else if (!kmp_find_vmlinux(&s->vi, path, len) && !find_debuginfod(s, path, len, &why)) {
		if (o->types == KMP_TYPES_DWARF) {
			*err = why;
			return false;
		}
		snprintf(path, len, "the dump");
		return open_dump_types(s, o, &why, err);
	}
	return kmp_vmlinux_open(&s->vml, path, err);
}

bool kmp_session_attach(struct kmp_session *s, const struct kmp_options *o,
			struct kmp_err *err)
{
	struct kmp_sym syms[S_N] = {
		[S_LIST] = { "mempool_list" },
		[S_VERSION] = { "mempool_format_version" },
		[S_BANNER] = { "linux_banner" },
		[S_CUFN] = { "mempool_exit" },
		[S_PRB] = { "prb" },
		[S_PRB_CUFN] = { "prb_read_valid" },
		[S_JIFFIES] = { "jiffies_64" },
		[S_TICK] = { "tick_nsec" },
		[S_COLUMNS] = { "mempool_format_columns" },
		[S_ALLOC_SLAB] = { "mempool_alloc_slab" },
		[S_KMALLOC] = { "mempool_kmalloc" },
		[S_ALLOC_PAGES] = { "mempool_alloc_pages" },
		[S_WAKE] = { "mempool_wake_function" },
		[S_SLAB_CU] = { "kmem_cache_free" },
		[S_JIFFIES_CS] = { "clocksource_jiffies" },
		[S_JIFFIES_CU] = { "jiffies_read" },
	};
	const char *core = s->core.path;
	char path[4096], membanner[256];
	struct kmp_err why;

	s->notes = o->notes;
	kmp_vmcoreinfo_parse(s->core.vmcoreinfo, &s->vi);
	if (!s->core.vmcoreinfo) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s has no VMCOREINFO: cannot tell the kernel's release "
			   "or KASLR offset", core);
		return false;
	}
	if (s->vi.bad[0]) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s has a bad VMCOREINFO line: %s", core, s->vi.bad);
		return false;
	}
	if (!open_types(s, o, path, sizeof(path), err))
		return false;
	s->vml_open = true;
	s->vml.symsrc = o->symsrc;
	/* One read of the symbol tables for the whole run. */
	kmp_kernel_expect(&s->vml);
	kmp_module_build_id_expect(&s->vml);
	kmp_orc_expect(&s->vml);
	kmp_naming_expect(&s->vml);
	kmp_vmlinux_symbols(&s->vml, syms, S_N);
	if (!syms[S_BANNER].found ||
	    !kmp_vmlinux_read(&s->vml, syms[S_BANNER].addr, s->banner,
			      syms[S_BANNER].size && syms[S_BANNER].size < sizeof(s->banner) ?
			      syms[S_BANNER].size : sizeof(s->banner) - 1)) {
		kmp_seterr(err, KMP_ERR_VMLINUX, "%s: no linux_banner; is this a vmlinux?", path);
		return false;
	}
	s->banner[sizeof(s->banner) - 1] = '\0';
	s->banner[strcspn(s->banner, "\n")] = '\0';
	banner_release(s->banner, s->release, sizeof(s->release));
	s->kaslr = s->vi.have_kerneloffset ? s->vi.kerneloffset : 0;

	/* Refuse a vmlinux of another kernel, unless forced. */
	if (!o->force) {
		/* In full; a known-garbage build ID leaves release and banner to decide. */
		if (s->vi.build_id[0] && s->vml.build_id[0] &&
		    strcmp(s->vml.build_id, s->vi.build_id) &&
		    !kmp_build_id_known_broken_banner(s->banner)) {
			kmp_seterr(err, KMP_ERR_MISMATCH, "vmlinux %s does not match the core: build ID %s, core has %s "
				   "(--force to use it anyway)", path, s->vml.build_id, s->vi.build_id);
			return false;
		}
		if (s->vi.osrelease[0] && strcmp(s->vi.osrelease, s->release)) {
			kmp_seterr(err, KMP_ERR_MISMATCH, "vmlinux %s does not match the core: release %s, core has %s "
				   "(--force to use it anyway)", path, s->release, s->vi.osrelease);
			return false;
		}
		memset(membanner, 0, sizeof(membanner));
		if (!kmp_read_string(&s->core.mem, syms[S_BANNER].addr + s->kaslr, membanner,
				     sizeof(membanner), &why)) {
			kmp_wraperr(err, &why, "cannot read linux_banner from %s: %s (--force to skip "
				   "this check)", core, why.msg);
			return false;
		}
		membanner[strcspn(membanner, "\n")] = '\0';
		if (strcmp(membanner, s->banner)) {
			kmp_seterr(err, KMP_ERR_MISMATCH, "vmlinux %s does not match the core: linux_banner differs "
				   "(\"%s\" in the core) (--force to use it anyway)", path, membanner);
			return false;
		}
	}
	/* Without mempool_list this is a stock kernel: the searches of memory still work. */
	s->series = syms[S_LIST].found;
	s->mempool_list = s->series ? syms[S_LIST].addr + s->kaslr : 0;
	s->prb = syms[S_PRB].found ? syms[S_PRB].addr + s->kaslr : 0;
	s->prb_cu = syms[S_PRB_CUFN].found ? syms[S_PRB_CUFN].addr : 0;
	s->page_size = page_size(s->core.vmcoreinfo);
	s->layout_cu_addr = syms[S_CUFN].found ? syms[S_CUFN].addr : 0;
	if (!kmp_layout_load(&s->vml, syms[S_CUFN].found ? syms[S_CUFN].addr : 0,
			     o->no_aranges, &s->layout, err))
		return false;
	if (s->series != s->layout.series) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s: mempool_list and the DWARF of struct mempool_s disagree "
			   "on whether this kernel has the series", path);
		return false;
	}
	if (!s->series)
		return true;
	if (!syms[S_VERSION].found) {
		kmp_seterr(err, KMP_ERR_FORMAT, "%s has no symbol mempool_format_version", path);
		return false;
	}
	if (!kmp_read_string(&s->core.mem, syms[S_VERSION].addr + s->kaslr, s->version,
			     sizeof(s->version), &why)) {
		kmp_wraperr(err, &why, "cannot read the /proc/mempool format version: %s", why.msg);
		return false;
	}
	if (s->vml.ks) {
		/*
		 * kallsyms gives no sizes, only the distance to the next symbol:
		 * jiffies_64 (u64) and tick_nsec (unsigned long) are 8 bytes on
		 * a 64-bit kernel when that distance has room for them.
		 */
		for (int i = S_JIFFIES; i <= S_TICK; i++)
			syms[i].size = syms[i].size >= 8 ? 8 : 0;
	}
	if (s->layout.v12)
		session_clock(s, syms);
	return !s->layout.v6 || session_v6(s, o, syms, path, err);
}

/*
 * Closing a core is its reader's own close() and the VMCOREINFO it read:
 * no file code, so this half of the library (libkmempool-core.a, all the
 * crash extension links) never pulls in the dump and kcore readers.
 */
void kmp_core_close(struct kmp_core *core)
{
	if (core->mem.ops && core->mem.ops->close)
		core->mem.ops->close(&core->mem);
	core->mem.ops = NULL;
	free(core->vmcoreinfo);
	core->vmcoreinfo = NULL;
}

void kmp_session_close(struct kmp_session *s)
{
	if (s->core_open)
		kmp_core_close(&s->core);
	if (s->vml_open)
		kmp_vmlinux_close(&s->vml);
	s->core_open = s->vml_open = false;
}
