// SPDX-License-Identifier: GPL-2.0
/* kmempool: libkdumpfile loaded when a dump first needs it; see kdumpdl.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <libkdumpfile/addrxlat.h>	/* linked: kmempool's own translations */
#include <libkdumpfile/kdumpfile.h>	/* the real names: not kdumpdl.h */

#if !defined(KMP_KDUMPFILE_SONAME) || !defined(KMP_KDUMPFILE_PKG)
#error "KMP_KDUMPFILE_SONAME, _PKG: the Makefile reads them from the libkdumpfile built against"
#endif
_Static_assert(sizeof(KMP_KDUMPFILE_SONAME) > 1,
	       "KMP_KDUMPFILE_SONAME is empty: is libkdumpfile-dev installed (make deps)?");

bool kmp_kd_load(char *why, size_t len);
kdump_status kmp_kd_number_attr(kdump_ctx_t *ctx, const char *key, kdump_num_t *num);
kdump_status kmp_kd_string_attr(kdump_ctx_t *ctx, const char *key, const char **str);
/* The wrappers kdumpdl.h renames the library's functions to: the same types. */
__typeof__(kdump_new) kmp_kd_new;
__typeof__(kdump_free) kmp_kd_free;
__typeof__(kdump_open_fdset) kmp_kd_open_fdset;
__typeof__(kdump_set_attr) kmp_kd_set_attr;
__typeof__(kdump_read) kmp_kd_read;
__typeof__(kdump_get_err) kmp_kd_get_err;
__typeof__(kdump_vmcoreinfo_raw) kmp_kd_vmcoreinfo_raw;
__typeof__(kdump_get_addrxlat) kmp_kd_get_addrxlat;

/*
 * The library named for tools that pack a program with what it loads (the
 * rig's qemu/mkinitramfs.sh, initramfs generators): an FDO ELF dlopen note,
 * https://systemd.io/ELF_DLOPEN_METADATA/ (JSON in a note of owner "FDO",
 * type 0x407c0c0a, in section .note.dlopen).
 */
#define DLOPEN_JSON "[{\"feature\":\"kdumpfile\",\"description\":\"vmcores and pages " \
	"kmempool does not read itself\",\"priority\":\"required\",\"soname\":[\"" \
	KMP_KDUMPFILE_SONAME "\"]}]"
__attribute__((used, section(".note.dlopen"), aligned(4)))
static const struct {
	uint32_t namesz, descsz, type;
	char name[4];
	char desc[(sizeof(DLOPEN_JSON) + 3) & ~3u];
} dlopen_note = { 4, sizeof(DLOPEN_JSON), 0x407c0c0a, "FDO", DLOPEN_JSON };

static struct {
	bool ok;
	char why[256];
	__typeof__(kdump_new) *new_;
	__typeof__(kdump_free) *free_;
	__typeof__(kdump_open_fdset) *open_fdset;
	__typeof__(kdump_set_attr) *set_attr;
	__typeof__(kdump_get_typed_attr) *get_typed_attr;
	__typeof__(kdump_read) *read;
	__typeof__(kdump_get_err) *get_err;
	__typeof__(kdump_vmcoreinfo_raw) *vmcoreinfo_raw;
	__typeof__(kdump_get_addrxlat) *get_addrxlat;
} lib;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/*
 * The library loaded on its own (RTLD_LOCAL) and its functions looked up in
 * it and its dependencies only (dlsym on its handle): no other object that
 * happens to export kdump_new() is taken for it, and libkdumpfile's
 * dependencies stay out of the global scope.  The library's pread() calls
 * still find kmempool's hook (fdhook.c): the executable is first in every
 * lookup.  Test builds (-DKMP_TESTING) load $KMP_TEST_KDUMPFILE instead when
 * set: a shim that depends on the library and overrides some of its
 * functions (tests/kdump_forbid.c, kdump_bypass.c, kdump_otherxlat.c).
 */
static void load(void)
{
	const char *miss = NULL, *soname = KMP_KDUMPFILE_SONAME;
	void *h, *xlat;

#ifdef KMP_TESTING
	if (getenv("KMP_TEST_KDUMPFILE") && *getenv("KMP_TEST_KDUMPFILE"))
		soname = getenv("KMP_TEST_KDUMPFILE");
#endif
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(lib.why, sizeof(lib.why), "cannot load %s (package %s), which reads "
			 "this dump: %s", soname, KMP_KDUMPFILE_PKG, dlerror());
		return;
	}
	/*
	 * kmempool hands the library's translation objects to the libaddrxlat
	 * it is linked with (kdump.c): both must be one library, not two
	 * copies of different SONAMEs exchanging structs.
	 */
	xlat = dlsym(h, "addrxlat_ctx_new");
	if (xlat != (void *)addrxlat_ctx_new) {
		Dl_info a = { 0 }, b = { 0 };

		dladdr(xlat, &a);
		dladdr((void *)addrxlat_ctx_new, &b);
		snprintf(lib.why, sizeof(lib.why), "%s uses %s, not the libaddrxlat kmempool is "
			 "linked with (%s): install the libkdumpfile kmempool was built against "
			 "(package %s)", soname, xlat ? (a.dli_fname ? a.dli_fname : "another "
			 "libaddrxlat") : "no libaddrxlat", b.dli_fname ? b.dli_fname : "?",
			 KMP_KDUMPFILE_PKG);
		return;
	}
#define SYM(field, name) \
	do { \
		*(void **)&lib.field = dlsym(h, name); \
		if (!lib.field && !miss) \
			miss = name; \
	} while (0)
	SYM(new_, "kdump_new");
	SYM(free_, "kdump_free");
	SYM(open_fdset, "kdump_open_fdset");
	SYM(set_attr, "kdump_set_attr");
	SYM(get_typed_attr, "kdump_get_typed_attr");
	SYM(read, "kdump_read");
	SYM(get_err, "kdump_get_err");
	SYM(vmcoreinfo_raw, "kdump_vmcoreinfo_raw");
	SYM(get_addrxlat, "kdump_get_addrxlat");
#undef SYM
	if (miss) {
		snprintf(lib.why, sizeof(lib.why), "%s lacks %s()", soname, miss);
		return;
	}
	lib.ok = true;
}

bool kmp_kd_load(char *why, size_t len)
{
	pthread_once(&once, load);
	if (!lib.ok && why && len)
		snprintf(why, len, "%s", lib.why);
	return lib.ok;
}

/* The only way to a context: the others are called with one, so loaded. */
kdump_ctx_t *kmp_kd_new(void)
{
	return kmp_kd_load(NULL, 0) ? lib.new_() : NULL;
}

void kmp_kd_free(kdump_ctx_t *ctx)
{
	lib.free_(ctx);
}

kdump_status kmp_kd_open_fdset(kdump_ctx_t *ctx, unsigned int nfds, const int *fds)
{
	return lib.open_fdset(ctx, nfds, fds);
}

kdump_status kmp_kd_set_attr(kdump_ctx_t *ctx, const char *key, const kdump_attr_t *valp)
{
	return lib.set_attr(ctx, key, valp);
}

/*
 * The version switch: kdump_get_typed_attr() took the expected type inside
 * a kdump_attr_t up to 0.5.4 (Debian 12: 0.5.1, 13: 0.5.4) and takes it as
 * an argument, with a kdump_attr_value_t, from 0.5.5 (sid: 0.5.6).
 */
#if KDUMPFILE_VERSION >= KDUMPFILE_MKVER(0, 5, 5)
static kdump_status typed_attr(kdump_ctx_t *ctx, const char *key, kdump_attr_type_t type,
			       kdump_attr_value_t *val)
{
	return lib.get_typed_attr(ctx, key, type, val);
}
#else
static kdump_status typed_attr(kdump_ctx_t *ctx, const char *key, kdump_attr_type_t type,
			       kdump_attr_value_t *val)
{
	kdump_attr_t attr = { .type = type };
	kdump_status st = lib.get_typed_attr(ctx, key, &attr);

	if (st == KDUMP_OK)
		*val = attr.val;
	return st;
}
#endif

kdump_status kmp_kd_number_attr(kdump_ctx_t *ctx, const char *key, kdump_num_t *num)
{
	kdump_attr_value_t v;
	kdump_status st = typed_attr(ctx, key, KDUMP_NUMBER, &v);

	if (st == KDUMP_OK)
		*num = v.number;
	return st;
}

kdump_status kmp_kd_string_attr(kdump_ctx_t *ctx, const char *key, const char **str)
{
	kdump_attr_value_t v;
	kdump_status st = typed_attr(ctx, key, KDUMP_STRING, &v);

	if (st == KDUMP_OK)
		*str = v.string;
	return st;
}

kdump_status kmp_kd_read(kdump_ctx_t *ctx, kdump_addrspace_t as, kdump_addr_t addr,
			 void *buffer, size_t *plength)
{
	return lib.read(ctx, as, addr, buffer, plength);
}

const char *kmp_kd_get_err(kdump_ctx_t *ctx)
{
	return lib.get_err(ctx);
}

kdump_status kmp_kd_vmcoreinfo_raw(kdump_ctx_t *ctx, char **raw)
{
	return lib.vmcoreinfo_raw(ctx, raw);
}

kdump_status kmp_kd_get_addrxlat(kdump_ctx_t *ctx, addrxlat_ctx_t **axctx, addrxlat_sys_t **axsys)
{
	return lib.get_addrxlat(ctx, axctx, axsys);
}
