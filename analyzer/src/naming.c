// SPDX-License-Identifier: GPL-2.0
/* kmempool: name pools after the globals that hold or point to them. */
#include <dirent.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dwarfpath.h"
#include "naming.h"
#include "vmsyms.h"

#define MAX_DEBUG_PATHS 16
#define MAX_DIR_ENTRIES 200000	/* bound of one directory search */
#define MAX_MODS_CACHED 64

struct moddebug {
	char name[KMP_MODNAME_MAX];
	Dwfl *dwfl;
	Dwarf *dw;			/* NULL: no debug file found */
};

struct kmp_naming {
	const struct kmp_kernel *k;
	char *paths[MAX_DEBUG_PATHS];
	size_t npaths;
	struct moddebug mods[MAX_MODS_CACHED];
	size_t nmods;
};

struct kmp_naming *kmp_naming_new(const struct kmp_kernel *k, const char *const *moddebug,
				  size_t nmoddebug, const char *release)
{
	struct kmp_naming *nm = calloc(1, sizeof(*nm));
	char buf[4096];

	if (!nm)
		return NULL;
	nm->k = k;
	for (size_t i = 0; i < nmoddebug && nm->npaths < MAX_DEBUG_PATHS; i++)
		nm->paths[nm->npaths++] = strdup(moddebug[i]);
	if (release && *release && !strchr(release, '/') && !strstr(release, "..")) {
		snprintf(buf, sizeof(buf), "/usr/lib/debug/lib/modules/%s", release);
		if (nm->npaths < MAX_DEBUG_PATHS)
			nm->paths[nm->npaths++] = strdup(buf);
		snprintf(buf, sizeof(buf), "/lib/modules/%s", release);
		if (nm->npaths < MAX_DEBUG_PATHS)
			nm->paths[nm->npaths++] = strdup(buf);
	}
	return nm;
}

void kmp_naming_free(struct kmp_naming *nm)
{
	if (!nm)
		return;
	for (size_t i = 0; i < nm->npaths; i++)
		free(nm->paths[i]);
	for (size_t i = 0; i < nm->nmods; i++)
		if (nm->mods[i].dwfl)
			dwfl_end(nm->mods[i].dwfl);
	free(nm);
}

/* "dm-crypt.ko" and "dm_crypt.ko.debug" are module dm_crypt. */
static bool file_is_module(const char *file, const char *mod)
{
	size_t n = strlen(mod);

	for (size_t i = 0; i < n; i++) {
		char c = file[i] == '-' ? '_' : file[i];

		if (!file[i] || c != mod[i])
			return false;
	}
	return !strcmp(file + n, ".ko") || !strcmp(file + n, ".ko.debug") ||
	       !strcmp(file + n, ".debug");
}

static bool search_dir(const char *dir, const char *mod, char *out, size_t len, int depth,
		       size_t *budget)
{
	DIR *d;
	struct dirent *e;
	bool found = false;

	if (depth > 8 || !(d = opendir(dir)))
		return false;
	while (!found && (e = readdir(d)) && (*budget)-- > 0) {
		char path[4096];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			found = search_dir(path, mod, out, len, depth + 1, budget);
		else if (S_ISREG(st.st_mode) && file_is_module(e->d_name, mod)) {
			snprintf(out, len, "%s", path);
			found = true;
		}
	}
	closedir(d);
	return found;
}

static bool find_debug_file(struct kmp_naming *nm, const char *mod, char *out, size_t len)
{
	for (size_t i = 0; i < nm->npaths; i++) {
		struct stat st;
		size_t budget = MAX_DIR_ENTRIES;
		const char *base;

		if (stat(nm->paths[i], &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (search_dir(nm->paths[i], mod, out, len, 0, &budget))
				return true;
			continue;
		}
		base = strrchr(nm->paths[i], '/');
		base = base ? base + 1 : nm->paths[i];
		if (S_ISREG(st.st_mode) && file_is_module(base, mod)) {
			snprintf(out, len, "%s", nm->paths[i]);
			return true;
		}
	}
	return false;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* The DWARF of module @mod (relocated: a .ko is ET_REL), or NULL. */
static Dwarf *module_dwarf(struct kmp_naming *nm, const char *mod)
{
	struct moddebug *md;
	char path[4096];
	Dwarf_Addr bias;
	Dwfl_Module *m;

	for (size_t i = 0; i < nm->nmods; i++)
		if (!strcmp(nm->mods[i].name, mod))
			return nm->mods[i].dw;
	if (nm->nmods == MAX_MODS_CACHED)
		return NULL;
	md = &nm->mods[nm->nmods++];
	snprintf(md->name, sizeof(md->name), "%s", mod);
	if (!find_debug_file(nm, mod, path, sizeof(path)))
		return NULL;
	md->dwfl = dwfl_begin(&offline_callbacks);
	if (!md->dwfl)
		return NULL;
	m = dwfl_report_offline(md->dwfl, mod, path, -1);
	dwfl_report_end(md->dwfl, NULL, NULL);
	md->dw = m ? dwfl_module_getdwarf(m, &bias) : NULL;
	return md->dw;
}

/* "sym" + member path in @dw, or "sym+0xOFF" without it. */
static void symbol_path(Dwarf *dw, const char *sym, uint64_t off, const char *stop_at,
			char *out, size_t len)
{
	Dwarf_Die type;

	snprintf(out, len, "%s", sym);
	if (dw && kmp_dwarf_variable_type(dw, sym, &type) &&
	    kmp_dwarf_path(&type, off, stop_at, out, len))
		return;
	if (off)
		snprintf(out + strlen(out), len - strlen(out), "+0x%" PRIx64, off);
}

/* Name a global place at @addr (pool or pointer); false if not in a global. */
static bool name_global(struct kmp_naming *nm, uint64_t addr, const char *stop_at,
			char *out, size_t len)
{
	const struct kmp_kernel *k = nm->k;
	const struct kmp_module *m;
	const char *sym;
	uint64_t start, size;
	char mname[128], path[512];

	if (kmp_kernel_in_image(k, addr)) {
		if (!kmp_vmlinux_addrsym(k->vml, addr - k->kaslr, &sym, &start, &size))
			return false;
		symbol_path(NULL, sym, addr - k->kaslr - start, stop_at, out, len);
		return true;
	}
	m = kmp_module_at(&k->mods, addr);
	if (!m || addr < m->data_start)
		return false;
	if (!kmp_module_symbol(k->mem, &k->modlayout, m, addr, k->lim.max_module_syms,
			       mname, sizeof(mname), &start, &size))
		return false;
	symbol_path(module_dwarf(nm, m->name), mname, addr - start, stop_at, path,
		    sizeof(path));
	snprintf(out, len, "%s [%s]", path, m->name);
	return true;
}

/* A word equal to @target in [lo, hi), read a page at a time; 0 if none. */
static uint64_t find_pointer(const struct kmp_kernel *k, uint64_t lo, uint64_t hi,
			     uint64_t target, unsigned char *page)
{
	uint64_t ps = k->page_size;

	lo &= ~7ULL;
	for (uint64_t a = lo; a < hi;) {
		uint64_t end = (a | (ps - 1)) + 1, n;
		struct kmp_err e;

		if (end > hi)
			end = hi;
		n = end - a;
		if (kmp_read(k->mem, a, page, n, &e)) {
			for (uint64_t i = 0; i + 8 <= n; i += 8) {
				uint64_t w;

				memcpy(&w, page + i, 8);
				if (w == target)
					return a + i;
			}
		}
		a = end;
	}
	return 0;
}

/* A global that points at @addr: kernel data and bss, then module data. */
static uint64_t pointer_to(const struct kmp_kernel *k, uint64_t addr)
{
	unsigned char *page = malloc(k->page_size);
	uint64_t at = 0;

	if (!page)
		return 0;
	if (k->sdata && k->edata > k->sdata)
		at = find_pointer(k, k->sdata, k->edata, addr, page);
	if (!at && k->sbss && k->ebss > k->sbss)
		at = find_pointer(k, k->sbss, k->ebss, addr, page);
	for (size_t i = 0; !at && i < k->mods.n; i++) {
		const struct kmp_module *m = &k->mods.v[i];

		at = find_pointer(k, m->data_start, m->base + m->size, addr, page);
	}
	free(page);
	return at;
}

void kmp_naming_pool(struct kmp_naming *nm, uint64_t addr, char *out, size_t len)
{
	char where[480];
	uint64_t ptr;

	if (name_global(nm, addr, "mempool_s", out, len))
		return;
	ptr = pointer_to(nm->k, addr);
	if (ptr && name_global(nm, ptr, "mempool_s", where, sizeof(where))) {
		snprintf(out, len, "*%s", where);
		return;
	}
	snprintf(out, len, "-");
}
