// SPDX-License-Identifier: GPL-2.0
/* kmempool: libkdumpfile loaded when a dump first needs it; see kdumpdl.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <libkdumpfile/kdumpfile.h>	/* the real names: not kdumpdl.h */

#if !defined(KMP_KDUMPFILE_SONAME) || !defined(KMP_KDUMPFILE_PKG)
#error "KMP_KDUMPFILE_SONAME, _PKG: the Makefile reads them from the libkdumpfile built against"
#endif
_Static_assert(sizeof(KMP_KDUMPFILE_SONAME) > 1,
	       "KMP_KDUMPFILE_SONAME is empty: is libkdumpfile-dev installed (make deps)?");

bool kmp_kd_load(char *why, size_t len);
/* The wrappers kdumpdl.h renames the library's functions to: the same types. */
__typeof__(kdump_new) kmp_kd_new;
__typeof__(kdump_free) kmp_kd_free;
__typeof__(kdump_open_fdset) kmp_kd_open_fdset;
__typeof__(kdump_set_attr) kmp_kd_set_attr;
__typeof__(kdump_get_typed_attr) kmp_kd_get_typed_attr;
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
 * RTLD_GLOBAL and RTLD_DEFAULT: a function an LD_PRELOAD library defines
 * (the tests' shims) is found before the library's, and a shim's RTLD_NEXT
 * finds the library's; the library's pread() calls find kmempool's hook
 * (fdhook.c), which the executable exports.
 */
static void load(void)
{
	const char *miss = NULL;

	if (!dlopen(KMP_KDUMPFILE_SONAME, RTLD_NOW | RTLD_GLOBAL)) {
		snprintf(lib.why, sizeof(lib.why), "cannot load %s (package %s), which reads "
			 "this dump: %s", KMP_KDUMPFILE_SONAME, KMP_KDUMPFILE_PKG, dlerror());
		return;
	}
#define SYM(field, name) \
	do { \
		*(void **)&lib.field = dlsym(RTLD_DEFAULT, name); \
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
		snprintf(lib.why, sizeof(lib.why), "%s lacks %s()", KMP_KDUMPFILE_SONAME, miss);
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

kdump_status kmp_kd_get_typed_attr(kdump_ctx_t *ctx, const char *key, kdump_attr_t *valp)
{
	return lib.get_typed_attr(ctx, key, valp);
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
