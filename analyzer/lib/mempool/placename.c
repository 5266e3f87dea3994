// SPDX-License-Identifier: GPL-2.0
/* kmempool: name pools after the globals that hold or point to them. */
#include <dirent.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "debuginfod.h"
#include "dwarfpath.h"
#include "dwarfutil.h"
#include "btf.h"
#include "kpieces.h"
#include "namerule.h"
#include "placename.h"
#include "vmsyms.h"

#define MAX_DEBUG_PATHS 16
#define MAX_DIR_ENTRIES 200000	/* bound of one directory search */
#define MAX_MODS_CACHED 64
#define MAX_HEAP_ANSWERS 64
#define MAX_MODBTF 4096		/* bound of a walk of btf_modules */
#define MAX_TYPED 4096		/* heap objects named by type, kept as referrers */
#define MAX_POOL_PTRS 64	/* pointers to a pool in one struct */

struct moddebug {
	char name[KMP_MODNAME_MAX];
	Dwfl *dwfl;
	Dwarf *dw;			/* NULL: no debug file found */
	struct kmp_btf *btf;		/* its BTF (types from the dump), NULL: none */
	bool btf_tried;
};

struct kmp_naming {
	const struct kmp_kernel *k;
	const struct kmp_slablayout *sl;
	struct kmp_varindex *varindex;		/* built on first use */
	/* kmp_naming_prepare(): targets and the global pointing at each (0: none) */
	uint64_t *tkey, *tval;
	size_t tmask;
	char *paths[MAX_DEBUG_PATHS];
	size_t npaths;
	struct moddebug mods[MAX_MODS_CACHED];
	size_t nmods;
	/* types from the dump: the kernel's list of module BTFs (btf_modules) */
	uint64_t modbtf_head;
	struct kmp_field mb_list, mb_module, mb_btf, btf_data, btf_size;
	bool modbtf_tried, modbtf_ok;
	/*
	 * Heap objects named by their type (heap_name()): the kernel's BTF
	 * (the session's, or read from memory here when the types are DWARF)
	 * and every module's in btf_modules, each read once; the answers by
	 * object size and offset.
	 */
	struct kmp_btf *kbtf, kbtf_own;
	bool kbtf_tried;
	struct heapmod {
		struct kmp_btf btf;
	} *hmods;
	size_t nhmods;
	bool hmods_tried;
	bool hmods_all;		/* every loaded module's BTF is among them */
	struct heapans {
		uint64_t osize, off;
		struct kmp_btf_hit hit;
	} answers[MAX_HEAP_ANSWERS];
	size_t nanswers;
	/*
	 * The referrer rule (kmp_naming_referrer()): the heap objects
	 * heap_name() named, and the pointers to a pool their structs hold
	 * (read once per object, value not 0).  refs_unknown: an object's
	 * pointers could not all be read or listed, or objects were left out:
	 * a referrer may be unseen.
	 */
	struct typedobj {
		uint64_t obj;
		const struct kmp_btf *btf;
		uint32_t id;
		char label[400];	/* "<gendisk vda>" */
	} *typed;
	size_t ntyped, typed_cap, typed_done;
	struct poolref {
		uint64_t value, off;	/* the pointer, its member's offset in the object */
		size_t typed;		/* the object, in typed */
		char *path;		/* ".r1bio_pool" */
	} *refs;
	size_t nrefs, refs_cap;
	bool refs_unknown;
};

struct kmp_naming *kmp_naming_new(const struct kmp_kernel *k, const struct kmp_slablayout *sl,
				  const char *const *moddebug, size_t nmoddebug,
				  const char *release)
{
	struct kmp_naming *nm = calloc(1, sizeof(*nm));
	char buf[4096];

	if (!nm)
		return NULL;
	nm->k = k;
	nm->sl = sl;
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
	kmp_vmlinux_varindex_free(nm->varindex);
	free(nm->tkey);
	free(nm->tval);
	for (size_t i = 0; i < nm->npaths; i++)
		free(nm->paths[i]);
	for (size_t i = 0; i < nm->nmods; i++)
		if (nm->mods[i].dwfl)
			dwfl_end(nm->mods[i].dwfl);
	for (size_t i = 0; i < nm->nmods; i++)
		if (nm->mods[i].btf) {
			kmp_btf_free(nm->mods[i].btf);
			free(nm->mods[i].btf);
		}
	for (size_t i = 0; i < nm->nhmods; i++)
		kmp_btf_free(&nm->hmods[i].btf);
	free(nm->hmods);
	if (nm->kbtf == &nm->kbtf_own)
		kmp_btf_free(&nm->kbtf_own);
	for (size_t i = 0; i < nm->nrefs; i++)
		free(nm->refs[i].path);
	free(nm->refs);
	free(nm->typed);
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
	/* Counted down to 0 and no further: a search below may have used it up. */
	while (!found && *budget > 0 && (e = readdir(d))) {
		char path[4096];
		struct stat st;

		(*budget)--;
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

bool kmp_find_module_file(const char *dir, const char *mod, char *out, size_t len,
			  size_t *budget)
{
	return search_dir(dir, mod, out, len, 0, budget);
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
			if (kmp_find_module_file(nm->paths[i], mod, out, len, &budget))
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
	/* Then debuginfod by the module's build ID (DEBUGINFOD_URLS set; issue 20). */
	if (!find_debug_file(nm, mod, path, sizeof(path)) &&
	    !kmp_debuginfod_module(nm->k, mod, path, sizeof(path)))
		return NULL;
	md->dwfl = dwfl_begin(&offline_callbacks);
	if (!md->dwfl)
		return NULL;
	m = dwfl_report_offline(md->dwfl, mod, path, -1);
	dwfl_report_end(md->dwfl, NULL, NULL);
	md->dw = m ? dwfl_module_getdwarf(m, &bias) : NULL;
	return md->dw;
}

/* A place in a global: "sym.member[2]" or "sym+0x10", its module, its type. */
struct place {
	char expr[400];
	char mod[KMP_MODNAME_MAX];	/* "" for vmlinux */
	bool typed;			/* @end is the type at the place */
	Dwarf_Die end;
};

/*
 * @type: the variable's DWARF type, NULL if unknown; @size: the symbol's
 * size in the symbol table.  Debug info whose type has another size
 * belongs to another build (a module file that is not the loaded module):
 * it is not used, and the name stays symbol+offset.
 */
static void place_at(Dwarf_Die *type, uint64_t size, const char *sym, uint64_t off,
		     const char *stop_at, struct place *pl)
{
	uint64_t tsize;

	snprintf(pl->expr, sizeof(pl->expr), "%s", sym);
	pl->typed = false;
	if (type && size && (!kmp_dwarf_size(type, &tsize) || tsize != size))
		type = NULL;
	if (type && kmp_dwarf_path_end(type, off, stop_at, pl->expr, sizeof(pl->expr), &pl->end)) {
		pl->typed = !strstr(pl->expr, "+0x");
		return;
	}
	if (off)
		snprintf(pl->expr + strlen(pl->expr), sizeof(pl->expr) - strlen(pl->expr),
			 "+0x%" PRIx64, off);
}

/* The name of the kernel's mempool struct (mempool_s; mempool from 7.x on). */
static const char *pool_struct(const struct kmp_kernel *k)
{
	return k->l->pool_struct ? k->l->pool_struct : kn_mempool_s;
}

/* The global place at @addr (pool or pointer); false if not in a global. */
static bool locate_global(struct kmp_naming *nm, uint64_t addr, const char *stop_at,
			  struct place *pl)
{
	const struct kmp_kernel *k = nm->k;
	const struct kmp_module *m;
	char sym[KMP_SYMNAME_MAX];
	uint64_t start, size;
	char mname[128];

	Dwarf_Die type;
	Dwarf *dw;

	pl->mod[0] = '\0';
	if (kmp_kernel_in_image(k, addr)) {
		if (!kmp_vmlinux_addrsym(k->vml, addr - k->kaslr, sym, sizeof(sym), &start, &size))
			return false;
		place_at(kmp_vmlinux_variable_type(k->vml, &nm->varindex, sym, start, &type) ?
			 &type : NULL, size, sym, addr - k->kaslr - start, stop_at, pl);
		return true;
	}
	m = kmp_module_at(&k->mods, addr);
	if (!m || !kmp_modregion_has(&m->data, addr))
		return false;
	if (!kmp_module_symbol(k->mem, &k->modlayout, m, addr, k->lim.max_module_syms,
			       mname, sizeof(mname), &start, &size))
		return false;
	dw = module_dwarf(nm, m->name);
	place_at(dw && kmp_dwarf_variable_type(dw, mname, &type) ? &type : NULL, size, mname,
		 addr - start, stop_at, pl);
	snprintf(pl->mod, sizeof(pl->mod), "%s", m->name);
	return true;
}

/* The kernel's list of module BTFs (kernel/bpf/btf.c's btf_modules), from BTF; false: none. */
/* The symbols of the kernel's BTF: its bounds, the list of the modules'. */
static const char *const btf_bounds[] = { "__start_BTF", "__stop_BTF", "btf_modules" };

void kmp_naming_expect(struct kmp_vmlinux *vml)
{
	kmp_vmlinux_expect(vml, btf_bounds, 3);
}

static bool modbtf_layout(struct kmp_naming *nm)
{
	struct kmp_wanted w[2] = { { .name = "btf_module", .tag = DW_TAG_structure_type },
				   { .name = "btf", .tag = DW_TAG_structure_type } };
	struct kmp_sym head = { .name = btf_bounds[2] };
	const struct kmp_kernel *k = nm->k;
	Dwarf_Die cu;
	bool via;

	if (nm->modbtf_tried)
		return nm->modbtf_ok;
	nm->modbtf_tried = true;
	kmp_vmlinux_symbols(k->vml, &head, 1);
	if (!head.found)
		return false;
	/*
	 * The types from the kernel's BTF when heap_name() read it beside a
	 * vmlinux: finding kernel/bpf/btf.c's unit in the vmlinux's DWARF by
	 * name alone would walk every unit (37 MB more resident on 6.1).
	 */
	if (!k->vml->btf && nm->kbtf)
		kmp_btf_handle(nm->kbtf, 0, &cu);
	else if (!kmp_vmlinux_cu(k->vml, 0, "kernel/bpf/btf.c", false, &cu, &via))
		return false;
	kmp_dwarf_scan(&cu, w, 2);
	nm->modbtf_head = head.addr + k->kaslr;
	nm->modbtf_ok = w[0].found && w[1].found &&
		kmp_dwarf_member(&w[0].die, "list", &nm->mb_list) && nm->mb_list.size == 16 &&
		kmp_dwarf_member(&w[0].die, "module", &nm->mb_module) && nm->mb_module.size == 8 &&
		kmp_dwarf_member(&w[0].die, "btf", &nm->mb_btf) && nm->mb_btf.size == 8 &&
		kmp_dwarf_member(&w[1].die, "data", &nm->btf_data) && nm->btf_data.size == 8 &&
		kmp_dwarf_member(&w[1].die, "data_size", &nm->btf_size) && nm->btf_size.size <= 8;
	return nm->modbtf_ok;
}

/*
 * The BTF of btf_modules' entry @entry (its struct btf's data, split over
 * @base), read into @out when it is at most @budget bytes; *@size is its
 * size.  False: none, too large, unreadable, or it does not parse.
 */
static bool entry_btf(struct kmp_naming *nm, uint64_t entry, const struct kmp_btf *base,
		      uint64_t budget, struct kmp_btf *out, uint64_t *size)
{
	const struct kmp_kernel *k = nm->k;
	uint64_t btf, data;
	struct kmp_err e;
	void *buf;
	bool ok;

	*size = 0;
	if (!kmp_read_uint(k->mem, entry + nm->mb_btf.off, 8, &btf, &e) || !btf ||
	    !kmp_read_uint(k->mem, btf + nm->btf_data.off, 8, &data, &e) ||
	    !kmp_read_uint(k->mem, btf + nm->btf_size.off, nm->btf_size.size, size, &e) ||
	    !data || *size < 24 || *size > budget || !(buf = malloc(*size)))
		return false;
	ok = kmp_read(k->mem, data, buf, *size, &e) &&
	     kmp_btf_parse_split(out, buf, *size, base, &e);
	free(buf);
	return ok;
}

/*
 * Calls @fn with each entry of the kernel's btf_modules and the module it
 * is of, at most @max of them, until @fn returns false.  True when the walk
 * came back to the list's head (every entry seen).
 */
static bool modbtf_walk(struct kmp_naming *nm, int max,
			bool (*fn)(struct kmp_naming *nm, uint64_t entry, uint64_t mod, void *arg),
			void *arg)
{
	const struct kmp_kernel *k = nm->k;
	uint64_t node, mod;
	struct kmp_err e;

	if (!modbtf_layout(nm) || !kmp_read_uint(k->mem, nm->modbtf_head, 8, &node, &e))
		return false;
	for (int i = 0; i < max; i++) {
		uint64_t entry = node - nm->mb_list.off;

		if (node == nm->modbtf_head)
			return true;
		if (!kmp_read_uint(k->mem, entry + nm->mb_module.off, 8, &mod, &e) ||
		    !fn(nm, entry, mod, arg) ||
		    !kmp_read_uint(k->mem, node, 8, &node, &e))	/* list.next */
			return false;
	}
	return false;
}

struct modbtf_find {
	const struct kmp_module *m;
	struct moddebug *md;
};

static bool modbtf_find(struct kmp_naming *nm, uint64_t entry, uint64_t mod, void *arg)
{
	struct modbtf_find *f = arg;
	uint64_t size;

	if (mod != f->m->addr)
		return true;
	if ((f->md->btf = calloc(1, sizeof(*f->md->btf))) &&
	    !entry_btf(nm, entry, nm->k->vml->btf, KMP_BTF_MAX, f->md->btf, &size)) {
		free(f->md->btf);
		f->md->btf = NULL;
	}
	return false;	/* found: stop */
}

/*
 * Module @m's BTF as the kernel keeps it (the btf_modules entry whose
 * module is @m: a module's own btf_data pointer is cleared once it has
 * loaded), read once; NULL when there is none or it does not parse.
 */
static const struct kmp_btf *module_btf(struct kmp_naming *nm, const struct kmp_module *m)
{
	struct modbtf_find f = { .m = m };

	(void)module_dwarf(nm, m->name);	/* its entry in the cache, DWARF tried first */
	for (size_t i = 0; i < nm->nmods && !f.md; i++)
		if (!strcmp(nm->mods[i].name, m->name))
			f.md = &nm->mods[i];
	if (!f.md || f.md->btf_tried)
		return f.md ? f.md->btf : NULL;
	f.md->btf_tried = true;
	(void)modbtf_walk(nm, MAX_MODBTF, modbtf_find, &f);
	return f.md->btf;
}

/*
 * Without a vmlinux (types from BTF, which types no globals): a pool at
 * sym+0xOFF named by the member path of the one struct that fits the
 * global and holds a pool there (kmp_btf_pool_member()): of vmlinux by the
 * kernel's BTF and the distance to the next symbol, of a module by its own
 * BTF and the symbol's size in its symbol table (exact: arrays too).
 */
static void btf_place(struct kmp_naming *nm, uint64_t addr, struct place *pl)
{
	const struct kmp_kernel *k = nm->k;
	const struct kmp_module *m;
	const struct kmp_btf *mb;
	char sym[KMP_SYMNAME_MAX];
	uint64_t start, size;
	char path[256], mname[128];

	if (!k->vml->btf || pl->typed || !strstr(pl->expr, "+0x"))
		return;
	if (!pl->mod[0]) {
		if (kmp_vmlinux_addrsym(k->vml, addr - k->kaslr, sym, sizeof(sym), &start, &size) &&
		    kmp_btf_pool_member(k->vml->btf, size, addr - k->kaslr - start, pool_struct(k),
					false, path, sizeof(path)))
			if (snprintf(pl->expr, sizeof(pl->expr), "%s%s", sym, path) < 0)
				pl->expr[0] = '\0';	/* (cut where it is too long) */
		return;
	}
	if ((m = kmp_module_at(&k->mods, addr)) && (mb = module_btf(nm, m)) &&
	    kmp_module_symbol(k->mem, &k->modlayout, m, addr, k->lim.max_module_syms, mname,
			      sizeof(mname), &start, &size) &&
	    kmp_btf_pool_member(mb, size, addr - start, pool_struct(k), true, path, sizeof(path)))
		snprintf(pl->expr, sizeof(pl->expr), "%s%s", mname, path);
}

static void finish(char *out, size_t len, const char *prefix, const char *expr,
		   const char *suffix, const char *mod)
{
	snprintf(out, len, "%s%s%s%s%s%s", prefix, expr, suffix, mod[0] ? " [" : "", mod,
		 mod[0] ? "]" : "");
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

/* Open addressing on the targets of kmp_naming_prepare(). */
static size_t tslot(const struct kmp_naming *nm, uint64_t key)
{
	size_t i = (size_t)((key >> 3) * 0x9e3779b97f4a7c15ULL) & nm->tmask;

	while (nm->tkey[i] && nm->tkey[i] != key)
		i = (i + 1) & nm->tmask;
	return i;
}

/* Each word of [lo, hi) that equals a target: remember the first place. */
static void find_pointers(struct kmp_naming *nm, uint64_t lo, uint64_t hi, unsigned char *page)
{
	uint64_t ps = nm->k->page_size;

	lo &= ~7ULL;
	for (uint64_t a = lo; a < hi;) {
		uint64_t end = (a | (ps - 1)) + 1, n;
		struct kmp_err e;

		if (end > hi)
			end = hi;
		n = end - a;
		if (kmp_read(nm->k->mem, a, page, n, &e)) {
			for (uint64_t i = 0; i + 8 <= n; i += 8) {
				uint64_t w;
				size_t sl;

				memcpy(&w, page + i, 8);
				if (!w || (w & 7))
					continue;
				sl = tslot(nm, w);
				if (nm->tkey[sl] == w && !nm->tval[sl])
					nm->tval[sl] = a + i;
			}
		}
		a = end;
	}
}

void kmp_naming_prepare(struct kmp_naming *nm, const uint64_t *addrs, size_t n)
{
	const struct kmp_kernel *k = nm->k;
	unsigned char *page = malloc(k->page_size);
	struct kmp_range r[KMP_DATA_RANGES];
	size_t cap = 16, nr;

	while (cap < 4 * n + 16)
		cap <<= 1;
	free(nm->tkey);
	free(nm->tval);
	nm->tkey = calloc(cap, sizeof(*nm->tkey));
	nm->tval = calloc(cap, sizeof(*nm->tval));
	nm->tmask = cap - 1;
	if (!page || !nm->tkey || !nm->tval) {
		free(nm->tkey);
		free(nm->tval);
		nm->tkey = nm->tval = NULL;
		free(page);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t obj, cache;

		if (kmp_kernel_in_image(k, addrs[i]) || kmp_module_at(&k->mods, addrs[i]))
			continue;
		nm->tkey[tslot(nm, addrs[i])] = addrs[i];
		if (nm->sl && kmp_slab_object(k->mem, nm->sl, addrs[i], &obj, &cache) && obj)
			nm->tkey[tslot(nm, obj)] = obj;
	}
	for (size_t i = 0; i < k->mods.n; i++)
		find_pointers(nm, k->mods.v[i].data.start,
			      k->mods.v[i].data.start + k->mods.v[i].data.size, page);
	nr = kmp_kernel_data_ranges(k, r);
	for (size_t i = 0; i < nr; i++)
		find_pointers(nm, r[i].lo, r[i].hi, page);
	free(page);
}

/*
 * A global that points at @addr: the data of module @first (may be NULL)
 * first, then the other modules', then kernel data and bss.
 */
static uint64_t pointer_to(const struct kmp_kernel *k, uint64_t addr,
			   const struct kmp_module *first)
{
	unsigned char *page = malloc(k->page_size);
	struct kmp_range r[KMP_DATA_RANGES];
	uint64_t at = 0;
	size_t nr;

	if (!page)
		return 0;
	/* Module data first: small, and where a module keeps its pools. */
	if (first)
		at = find_pointer(k, first->data.start, first->data.start + first->data.size, addr,
				  page);
	for (size_t i = 0; !at && i < k->mods.n; i++) {
		const struct kmp_module *m = &k->mods.v[i];

		if (m != first)
			at = find_pointer(k, m->data.start, m->data.start + m->data.size, addr, page);
	}
	nr = kmp_kernel_data_ranges(k, r);
	for (size_t i = 0; !at && i < nr; i++)
		at = find_pointer(k, r[i].lo, r[i].hi, addr, page);
	free(page);
	return at;
}

/*
 * The module whose code allocates the elements of the pool at @addr (its
 * alloc function), or NULL: where a pointer to the pool most likely is.
 */
static const struct kmp_module *owner_of(const struct kmp_kernel *k, uint64_t addr)
{
	uint64_t alloc;
	struct kmp_err e;

	if (!k->l->alloc.ok || !kmp_read_uint(k->mem, addr + k->l->alloc.off, k->l->alloc.size,
					      &alloc, &e))
		return NULL;
	return kmp_module_at(&k->mods, alloc);
}

/* Was @addr a target of kmp_naming_prepare()?  @at: the global pointing at it, or 0. */
static bool prepared(const struct kmp_naming *nm, uint64_t addr, uint64_t *at)
{
	size_t sl;

	if (!nm->tkey)
		return false;
	sl = tslot(nm, addr);
	if (nm->tkey[sl] != addr)
		return false;
	*at = nm->tval[sl];
	return true;
}

/*
 * The kernel's BTF for heap_name(): the session's (types from the dump),
 * else read from memory between __start_BTF and __stop_BTF (a vmlinux's
 * DWARF does not list the types by size; its kernel's BTF does).  NULL
 * when the kernel has none.
 */
static const struct kmp_btf *kernel_btf(struct kmp_naming *nm)
{
	const struct kmp_kernel *k = nm->k;
	struct kmp_sym b[2] = { { .name = btf_bounds[0] }, { .name = btf_bounds[1] } };
	struct kmp_err e;

	if (nm->kbtf_tried)
		return nm->kbtf;
	nm->kbtf_tried = true;
	if (k->vml->btf)
		return nm->kbtf = k->vml->btf;
	kmp_vmlinux_symbols(k->vml, b, 2);
	if (b[0].found && b[1].found &&
	    kmp_btf_load(&nm->kbtf_own, k->mem, b[0].addr + k->kaslr, b[1].addr + k->kaslr, &e))
		nm->kbtf = &nm->kbtf_own;
	return nm->kbtf;
}

struct heapmods_acc {
	const struct kmp_btf *base;
	uint64_t total;		/* bytes of module BTF read so far */
	bool *has;		/* per loaded module: its BTF was read */
	size_t found;		/* loaded modules whose BTF was read */
};

static bool heapmods_add(struct kmp_naming *nm, uint64_t entry, uint64_t mod, void *arg)
{
	const struct kmp_kernel *k = nm->k;
	struct heapmods_acc *acc = arg;
	struct heapmod *h;
	uint64_t size;
	size_t j;

	for (j = 0; j < k->mods.n && k->mods.v[j].addr != mod; j++)
		;
	if (j == k->mods.n || !(h = realloc(nm->hmods, (nm->nhmods + 1) * sizeof(*h))))
		return true;
	nm->hmods = h;
	h += nm->nhmods;
	memset(h, 0, sizeof(*h));
	if (entry_btf(nm, entry, acc->base, KMP_BTF_MAX - acc->total, &h->btf, &size)) {
		nm->nhmods++;
		acc->found += !acc->has[j];	/* a module listed twice counts once */
		acc->has[j] = true;
	}
	acc->total += size <= KMP_BTF_MAX - acc->total ? size : 0;	/* all within the one bound */
	return true;
}

/*
 * Every module's BTF from the kernel's btf_modules (bounded walk, and at
 * most KMP_BTF_MAX bytes of them all), split over @base, once; a module
 * whose BTF does not parse is left out.  hmods_all: the whole list was
 * walked and every loaded module had its BTF there.
 */
static void heap_modules(struct kmp_naming *nm, const struct kmp_btf *base)
{
	const struct kmp_modules *mods = &nm->k->mods;
	struct heapmods_acc acc = { .base = base };

	if (nm->hmods_tried)
		return;
	nm->hmods_tried = true;
	if (mods->complete && !mods->n) {	/* no module: nothing unseen */
		nm->hmods_all = true;
		return;
	}
	if (!(acc.has = calloc(mods->n, sizeof(*acc.has))))
		return;
	if (modbtf_walk(nm, MAX_MODBTF, heapmods_add, &acc))
		nm->hmods_all = mods->complete && acc.found == mods->n;
	free(acc.has);
}

/*
 * Keep the heap object @obj that heap_name() named as struct @hit (its own
 * name @inst) for the referrer rule; the same object again (a second pool
 * in it: a scan names them in address order) once.  When there are too
 * many, or no memory, the rule's answers would be incomplete: none.
 */
static void add_typed(struct kmp_naming *nm, uint64_t obj, const struct kmp_btf_hit *hit,
		      const char *inst)
{
	struct typedobj *t = nm->ntyped ? &nm->typed[nm->ntyped - 1] : NULL;

	if (t && t->obj == obj && t->btf == hit->btf && t->id == hit->id)
		return;
	if (nm->ntyped == nm->typed_cap) {
		size_t cap = nm->typed_cap ? 2 * nm->typed_cap : 16;

		if (cap > MAX_TYPED || !(t = realloc(nm->typed, cap * sizeof(*t)))) {
			nm->refs_unknown = true;
			return;
		}
		nm->typed = t;
		nm->typed_cap = cap;
	}
	t = &nm->typed[nm->ntyped++];
	t->obj = obj;
	t->btf = hit->btf;
	t->id = hit->id;
	snprintf(t->label, sizeof(t->label), "<%s%s>", hit->type, inst);
}

/* kmp_btf_pool_pointers()'s callback: the pointer at @off of one object, read. */
struct refread {
	struct kmp_naming *nm;
	size_t typed;
};

static void add_ref(void *arg, uint64_t off, const char *path)
{
	struct refread *r = arg;
	struct kmp_naming *nm = r->nm;
	struct poolref *p;
	struct kmp_err e;
	uint64_t v;

	if (nm->refs_unknown)
		return;
	if (!kmp_read_uint(nm->k->mem, nm->typed[r->typed].obj + off, 8, &v, &e)) {
		nm->refs_unknown = true;	/* it may point at any pool */
		return;
	}
	if (!v)
		return;
	if (nm->nrefs == nm->refs_cap) {
		size_t cap = nm->refs_cap ? 2 * nm->refs_cap : 16;

		if (!(p = realloc(nm->refs, cap * sizeof(*p)))) {
			nm->refs_unknown = true;
			return;
		}
		nm->refs = p;
		nm->refs_cap = cap;
	}
	p = &nm->refs[nm->nrefs];
	if (!(p->path = strdup(path))) {
		nm->refs_unknown = true;
		return;
	}
	p->value = v;
	p->off = off;
	p->typed = r->typed;
	nm->nrefs++;
}

/* The pool pointers of the objects named by type since the last call, read. */
static void read_refs(struct kmp_naming *nm)
{
	for (; nm->typed_done < nm->ntyped && !nm->refs_unknown; nm->typed_done++) {
		struct refread r = { .nm = nm, .typed = nm->typed_done };
		const struct typedobj *t = &nm->typed[r.typed];

		if (!kmp_btf_pool_pointers(t->btf, t->id, pool_struct(nm->k), MAX_POOL_PTRS,
					   add_ref, &r))
			nm->refs_unknown = true;	/* its pointers not all known */
	}
}

bool kmp_naming_referrer(struct kmp_naming *nm, uint64_t addr, char *out, size_t len)
{
	const struct poolref *one = NULL;

	read_refs(nm);
	if (nm->refs_unknown || !addr)
		return false;
	for (size_t i = 0; i < nm->nrefs; i++) {
		const struct poolref *r = &nm->refs[i];
		const struct typedobj *a, *b;

		if (r->value != addr)
			continue;
		if (!one) {
			one = r;
			continue;
		}
		a = &nm->typed[one->typed];
		b = &nm->typed[r->typed];
		/* The same member of the same object seen twice is one referrer. */
		if (a->obj != b->obj || a->btf != b->btf || a->id != b->id || one->off != r->off)
			return false;	/* two referrers: no guess */
	}
	if (!one)
		return false;
	snprintf(out, len, "*%s%s", nm->typed[one->typed].label, one->path);
	return true;
}

/*
 * A pool at @off in the heap object @obj of @osize bytes named by its
 * type: "<gendisk vda>.bio_split.bio_pool" (the struct, the object's own
 * name when the struct has a name member holding a valid one, the path),
 * when exactly one named struct of the kernel's and the modules' BTF fits
 * the object and holds a pool at that offset (kmp_btf_heap_pool(); a
 * struct several modules carry counts once).  No module is named: the
 * object is not a module's memory, and a struct of md.h is in the BTF of
 * every md personality.  False when none does, two do, the kernel has no
 * BTF, or a loaded module has none (an out-of-tree driver's struct could
 * be the one, unseen: no name is better than a wrong one).
 */
static bool heap_name(struct kmp_naming *nm, uint64_t obj, uint64_t osize, uint64_t off,
		      char *out, size_t len)
{
	const struct kmp_kernel *k = nm->k;
	const struct kmp_btf *base;
	struct heapans one = { .osize = osize, .off = off }, *a = NULL;
	char inst[260] = "";
	struct kmp_err e;

	for (size_t i = 0; i < nm->nanswers && !a; i++)
		if (nm->answers[i].osize == osize && nm->answers[i].off == off)
			a = &nm->answers[i];
	if (!a) {
		if (!(base = kernel_btf(nm)))
			return false;
		heap_modules(nm, base);
		if (!nm->hmods_all)
			return false;	/* a module's types unknown: its struct could be the one */
		kmp_btf_heap_pool(base, 0, osize, off, pool_struct(k), &one.hit);
		for (size_t i = 0; i < nm->nhmods && one.hit.n < 2; i++)
			kmp_btf_heap_pool(&nm->hmods[i].btf, base->ntypes, osize, off, pool_struct(k),
					  &one.hit);
		a = &one;
		if (nm->nanswers < MAX_HEAP_ANSWERS)
			a = memcpy(&nm->answers[nm->nanswers++], &one, sizeof(one));
	}
	if (a->hit.n != 1)
		return false;
	if (a->hit.name_len) {
		char buf[256];
		size_t n;

		if (a->hit.name_len <= sizeof(buf) &&
		    kmp_read(k->mem, obj + a->hit.name_off, buf, a->hit.name_len, &e) &&
		    (n = strnlen(buf, a->hit.name_len)) < a->hit.name_len &&
		    kmp_name_ok(buf, n, NULL, 0))
			snprintf(inst, sizeof(inst), " %.*s", (int)n, buf);
	}
	snprintf(out, len, "<%s%s>%s", a->hit.type, inst, a->hit.path);
	add_typed(nm, obj, &a->hit, inst);
	return true;
}

void kmp_naming_pool(struct kmp_naming *nm, uint64_t addr, char *out, size_t len)
{
	(void)kmp_naming_pool_in(nm, addr, 0, out, len);
}

bool kmp_naming_pool_in(struct kmp_naming *nm, uint64_t addr, uint64_t in_obj, char *out,
			size_t len)
{
	const struct kmp_kernel *k = nm->k;
	uint64_t ptr, obj, cache = 0, osize, off, known;
	char cname[KMP_CACHE_NAME_MAX], path[400];
	struct place pl;
	struct kmp_err e;
	Dwarf_Die target;

	/* A global that is, or holds, the pool. */
	if (locate_global(nm, addr, pool_struct(k), &pl)) {
		btf_place(nm, addr, &pl);
		finish(out, len, "", pl.expr, "", pl.mod);
		return false;
	}
	/* A global that points at it, first in the data of the module that owns it. */
	ptr = prepared(nm, addr, &known) ? known : pointer_to(k, addr, owner_of(k, addr));
	if (ptr && locate_global(nm, ptr, pool_struct(k), &pl)) {
		finish(out, len, "*", pl.expr, "", pl.mod);
		return false;
	}
	/* The object that holds it (a slab object, or as the caller knows), and a global
	 * that points at that. */
	if (in_obj && in_obj <= addr) {
		obj = in_obj;
	} else if (!nm->sl || !kmp_slab_object(k->mem, nm->sl, addr, &obj, &cache)) {
		snprintf(out, len, "-");
		return false;
	}
	off = addr - obj;
	ptr = !off ? 0 : prepared(nm, obj, &known) ? known : pointer_to(k, obj, owner_of(k, addr));
	if (ptr && locate_global(nm, ptr, pool_struct(k), &pl)) {
		path[0] = '\0';
		if (pl.typed && kmp_dwarf_pointee(&pl.end, &target) &&
		    kmp_dwarf_path(&target, off, pool_struct(k), path, sizeof(path)) &&
		    path[0] == '.' && !strstr(path, "+0x")) {
			/* "->" then the path without its leading '.' */
			snprintf(out, len, "%s->%s%s%s%s", pl.expr, path + 1, pl.mod[0] ? " [" : "",
				 pl.mod, pl.mod[0] ? "]" : "");
			return false;
		}
		snprintf(path, sizeof(path), ")+0x%" PRIx64, off);
		finish(out, len, "(*", pl.expr, path, pl.mod);
		return false;
	}
	if (!cache) {
		snprintf(out, len, "<vmalloc 0x%" PRIx64 ">+0x%" PRIx64, obj, off);
		return true;
	}
	if (!kmp_cache_read(k->mem, nm->sl, cache, cname, sizeof(cname), &osize, &e)) {
		snprintf(out, len, "-");
		return false;
	}
	if (heap_name(nm, obj, osize, off, out, len))
		return false;
	snprintf(out, len, "<%s>+0x%" PRIx64, cname, off);
	return true;
}
