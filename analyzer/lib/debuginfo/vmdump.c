// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: the dump alone in place of a vmlinux (issue 33): symbols from
 * the kernel's kallsyms and types from its BTF, both read from memory.
 * kmp_vmlinux's users see the same interface: names and addresses through
 * the symbol table kallsyms.c decodes, types through the BTF handles of
 * btf.h, contents through memory.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "btfmemo.h"
#include "dumpcache.h"
#include "prefault.h"
#include "dwarfutil.h"
#include "kallsyms.h"
#include "vmlinux.h"

/*
 * The dump cache's key (dumpcache.h): what the tables' decoding depends on
 * besides the bytes at their addresses, which the entry holds as stored:
 * the KASLR offset and the tables' addresses; the release and build ID
 * too, for whoever reads the entry.
 */
static void cache_params(char *out, size_t len, const char *vmcoreinfo, uint64_t kaslr)
{
	static const char *const keep[] = { "OSRELEASE=", "BUILD-ID=", "SYMBOL(kallsyms_" };
	size_t o = (size_t)snprintf(out, len, "kmempool dump cache\nkaslr=%" PRIx64 "\n", kaslr);

	for (const char *l = vmcoreinfo; l && *l && o < len;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) + 1 : strlen(l);

		for (size_t k = 0; k < sizeof(keep) / sizeof(keep[0]); k++)
			if (!strncmp(l, keep[k], strlen(keep[k])) && n < len - o) {
				memcpy(out + o, l, n);
				o += n;
				break;
			}
		l += n;
	}
	out[o < len ? o : len - 1] = '\0';
}

/* The address ranges the tables were read from, as decoded: the number of them. */
static size_t cache_ranges(struct kmp_dcache_range *r, const char *vmcoreinfo,
			   const struct kmp_kallsyms_tables *t, const struct kmp_kallsyms *ks,
			   uint64_t btf_start, uint64_t btf_stop)
{
	uint64_t a;
	size_t n = 0;

	if (kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_names", &a))
		r[n++] = (struct kmp_dcache_range){ a, ks->names_len };
	if (kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_num_syms", &a))
		r[n++] = (struct kmp_dcache_range){ a, 4 };
	if (kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_token_table", &a))
		r[n++] = (struct kmp_dcache_range){ a, ks->ttab_len };
	if (kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_token_index", &a))
		r[n++] = (struct kmp_dcache_range){ a, sizeof(t->tidx) };
	if (kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_offsets", &a))
		r[n++] = (struct kmp_dcache_range){ a, (uint64_t)t->raw.num * 4 };
	if (t->raw.have_base && kmp_vmcoreinfo_symbol(vmcoreinfo, "kallsyms_relative_base", &a))
		r[n++] = (struct kmp_dcache_range){ a, 8 };
	r[n++] = (struct kmp_dcache_range){ btf_start, btf_stop - btf_start };
	return n;
}

/* The kernel's BTF from the entry's copy, if its CRC-32 checks out. */
static bool btf_from_entry(struct kmp_btf *b, struct kmp_dcache *c)
{
	const struct kmp_dcache_tables *t = &c->v.t;
	struct kmp_err e;
	bool ok;

	kmp_prefault_read(t->btf, t->btf_len);
	ok = kmp_dcache_btf_ok(c) &&
	     kmp_btf_parse_indexed(b, t->btf, t->btf_len, t->btf_byname, t->btf_nbyname, &e);
	kmp_dcache_release(c, t->btf, t->btf_len);
	return ok;
}

/*
 * The kernel's BTF when a question needs it parsed (kmp_btf_defer()): the
 * entry's copy, else read from the dump again (the entry matched the
 * dump: the same bytes).
 */
static bool load_btf(struct kmp_btf *b, void *arg)
{
	struct kmp_vmlinux *v = arg;
	struct kmp_err e;

	return btf_from_entry(b, v->dcache) ||
	       kmp_btf_load(b, v->mem, v->btf_start, v->btf_stop, &e);
}

/*
 * The tables from the dump cache's entry for @params, if it has one that
 * checks out (HIT); else MISS (an entry for this dump is to be written) or
 * OFF.  The BTF is parsed only when the entry's memo cannot answer.
 */
static enum kmp_dcache_found from_cache(struct kmp_vmlinux *v, struct kmp_mem *mem,
					const char *params)
{
	struct kmp_dcache *c = calloc(1, sizeof(*c));
	enum kmp_dcache_found found;
	const char *why;

	if (!c) {
		v->cache_state = "off (out of memory)";
		return KMP_DCACHE_OFF;
	}
	if ((found = kmp_dcache_open(c, mem, params, &v->cache_state)) == KMP_DCACHE_HIT) {
		const struct kmp_dcache_tables *t = &c->v.t;
		const struct kmp_dcache_range *br = &c->v.ranges[c->v.nranges - 1];
		void *img;
		size_t len;

		/* the symbol table's arrays, checked, used in place */
		kmp_prefault_read(c->v.params, (size_t)((const char *)t->btf - c->v.params));
		kmp_dcache_crc_to(c, t->btf);
		if (kmp_dcache_crc_ok(c) && kmp_kallsyms_adopt(v->ks, &t->ks, &why)) {
			v->dcache = c;
			v->nonce = c->v.nonce;
			v->btf_start = br->addr;	/* (cache_ranges(): the BTF's last) */
			v->btf_stop = br->addr + br->len;
			snprintf(v->cache_path, sizeof(v->cache_path), "%s", c->path);
			/* the BTF: its kept answers, else parsed now (its answers kept from here) */
			if ((img = kmp_dcache_memo_read(c, &len)) &&
			    !(v->memo = kmp_btf_memo_adopt(img, len, &why)))
				free(img);
			if (kmp_btf_defer(v->btf, v->memo, load_btf, v))
				return KMP_DCACHE_HIT;
			if (btf_from_entry(v->btf, c)) {
				kmp_btf_memo_free(v->memo);
				if ((v->memo = kmp_btf_memo_new()))
					kmp_btf_keep(v->btf, v->memo);
				return KMP_DCACHE_HIT;
			}
			kmp_btf_memo_free(v->memo);
			v->memo = NULL;
			v->dcache = NULL;
			v->nonce = v->btf_start = v->btf_stop = 0;
			v->cache_path[0] = '\0';
			kmp_kallsyms_free(v->ks);
			v->cache_state = "miss (an entry whose BTF does not check out)";
		} else {
			v->cache_state = kmp_dcache_crc_ok(c) ?
					 "miss (an entry whose tables do not check out)" :
					 "miss (a damaged entry: its CRC-32)";
		}
		kmp_dcache_close(c);
		found = KMP_DCACHE_MISS;
	}
	free(c);
	return found;
}

void kmp_vmlinux_keep_answers(struct kmp_vmlinux *v)
{
	void *img;
	size_t len;

	if (!v->memo || !kmp_btf_memo_dirty(v->memo) || !v->cache_path[0] ||
	    !(img = kmp_btf_memo_image(v->memo, &len)))
		return;
	kmp_dcache_memo_write(v->cache_path, v->nonce, img, len);
	free(img);
}

bool kmp_vmlinux_open_dump(struct kmp_vmlinux *v, struct kmp_mem *mem, const char *vmcoreinfo,
			   uint64_t kaslr, bool store, struct kmp_err *err)
{
	struct kmp_sym b[2] = { { .name = "__start_BTF" }, { .name = "__stop_BTF" } };
	struct kmp_kallsyms_tables t = { 0 };
	struct kmp_dcache_range r[KMP_DCACHE_RANGES];
	struct kmp_dcache_tables tab;
	enum kmp_dcache_found found;
	char params[4096];
	size_t nr;

	memset(v, 0, sizeof(*v));
	v->fd = -1;
	v->mem = mem;
	v->kaslr = kaslr;
	snprintf(v->path, sizeof(v->path), "the dump's kallsyms and BTF");
	if (!(v->ks = calloc(1, sizeof(*v->ks))) || !(v->btf = calloc(1, sizeof(*v->btf)))) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		goto fail;
	}
	cache_params(params, sizeof(params), vmcoreinfo, kaslr);
	if ((found = from_cache(v, mem, params)) == KMP_DCACHE_HIT)
		return true;
	/*
	 * The BTF's bounds from the tables as read, the BTF parsed, and only
	 * then the symbol table decoded: libbpf holds two copies of the BTF
	 * while it parses, the peak of the run, and the decoded table is not
	 * in memory beside them (issue 33's 15 MB).  When the raw tables do
	 * not give both bounds, the decoder's answer (the damage, or no BTF).
	 */
	if (!kmp_kallsyms_read(&t, mem, vmcoreinfo, err))
		goto fail;
	if (kmp_kallsyms_raw_find(&t.raw, kaslr, b, 2) == 2) {
		if (!kmp_btf_load(v->btf, mem, b[0].addr + kaslr, b[1].addr + kaslr, err)) {
			struct kmp_err why;

			/* bounds from a damaged table: say so, not what they pointed at */
			if (!kmp_kallsyms_decode(v->ks, &t.raw, kaslr, &why))
				*err = why;
			goto fail;
		}
		if (!kmp_kallsyms_decode(v->ks, &t.raw, kaslr, err))
			goto fail;
	} else {
		if (!kmp_kallsyms_decode(v->ks, &t.raw, kaslr, err))
			goto fail;
		kmp_kallsyms_find(v->ks, b, 2);
		if (!b[0].found || !b[1].found) {
			kmp_seterr(err, KMP_ERR_VMLINUX, "the kernel has no BTF (no __start_BTF/"
				   "__stop_BTF in its kallsyms: built without CONFIG_DEBUG_INFO_BTF)");
			goto fail;
		}
		if (!kmp_btf_load(v->btf, mem, b[0].addr + kaslr, b[1].addr + kaslr, err))
			goto fail;
	}
	nr = cache_ranges(r, vmcoreinfo, &t, v->ks, b[0].addr + kaslr, b[1].addr + kaslr);
	kmp_kallsyms_tables_free(&t);
	kmp_kallsyms_index(v->ks);
	if (found != KMP_DCACHE_MISS)
		return true;	/* off: said as it is */
	if (!store) {
		v->cache_state = "miss, not kept (each dump read once: triage)";
		return true;
	}
	if (!(tab.btf = kmp_btf_raw(v->btf, &tab.btf_len)) || !kmp_kallsyms_export(v->ks, &tab.ks))
		v->cache_state = "not kept (no index by name)";
	else {	/* an entry for this dump, in place of any other of its name */
		tab.btf_byname = v->btf->byname;
		tab.btf_nbyname = v->btf->byname ? v->btf->nbyname : 0;
		if (kmp_dcache_store(mem, params, r, nr, &tab, v->cache_path, sizeof(v->cache_path),
				     &v->nonce, &v->cache_state) && (v->memo = kmp_btf_memo_new()))
			kmp_btf_keep(v->btf, v->memo);	/* this run's answers, for the next */
	}
	return true;
fail:
	kmp_kallsyms_tables_free(&t);
	kmp_vmlinux_close(v);
	return false;
}

bool kmp_vmlinux_cu(struct kmp_vmlinux *v, uint64_t addr, const char *suffix, bool no_aranges,
		    Dwarf_Die *cu, bool *via_aranges)
{
	if (v->btf) {
		*via_aranges = false;
		kmp_btf_handle(v->btf, 0, cu);
		return true;
	}
	return v->dwarf && kmp_dwarf_cu(v, addr, suffix, no_aranges, cu, via_aranges);
}

const char *kmp_vmlinux_btf_state(const struct kmp_vmlinux *v)
{
	if (!v->btf || !v->dcache)
		return "";
	if (v->btf->load_failed)
		return ", the BTF does not parse (from the entry nor the dump)";
	return kmp_btf_parsed(v->btf) ? ", BTF parsed" : ", BTF not parsed: its answers kept";
}

const char *kmp_vmlinux_types(const struct kmp_vmlinux *v)
{
	return v->btf ? "BTF from the dump" : "DWARF";
}
