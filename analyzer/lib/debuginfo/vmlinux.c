// SPDX-License-Identifier: GPL-2.0
/* kmempool: open vmlinux with libelf, look up symbols and the build ID. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarfutil.h"
#include "dwarfunit.h"
#include "btf.h"
#include "kallsyms.h"
#include "dumpcache.h"
#include "btfmemo.h"
#include "vmlinux.h"

static void read_build_id(struct kmp_vmlinux *v)
{
	Elf_Scn *scn = NULL;

	v->build_id[0] = '\0';
	while ((scn = elf_nextscn(v->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			const unsigned char *d = (const unsigned char *)data->d_buf + doff;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)data->d_buf + noff, "GNU", 4))
				continue;
			for (size_t i = 0; i < nh.n_descsz && i < 64; i++)
				sprintf(v->build_id + 2 * i, "%02x", d[i]);
			return;
		}
	}
}

/*
 * The vmlinux is mapped and read at scattered places (a symbol, a unit's
 * DIEs, each unit header libdw walks past): no readahead and no mapping of
 * neighbouring pages on a fault, which would otherwise make most of the
 * 200-350 MB debug info resident for a few pages' worth of reading.
 */
static void random_access(Elf *elf)
{
	size_t size;
	char *base = elf_rawfile(elf, &size);
	uintptr_t start, pg = (uintptr_t)sysconf(_SC_PAGESIZE);

	if (!base || !size)
		return;
	start = (uintptr_t)base & ~(pg - 1);
	madvise((void *)start, size + ((uintptr_t)base - start), MADV_RANDOM);
}

void kmp_elf_release(Elf *elf)
{
	size_t size;
	char *base = elf ? elf_rawfile(elf, &size) : NULL;
	uintptr_t start, pg = (uintptr_t)sysconf(_SC_PAGESIZE);

	if (!base || !size)
		return;
	start = (uintptr_t)base & ~(pg - 1);
	/* A read-only file mapping: dropped pages come back from the page cache. */
	madvise((void *)start, size + ((uintptr_t)base - start), MADV_DONTNEED);
}

bool kmp_vmlinux_open(struct kmp_vmlinux *v, const char *path,
		      struct kmp_err *err)
{
	struct stat st;
	GElf_Ehdr eh;

	memset(v, 0, sizeof(*v));
	v->fd = -1;
	snprintf(v->path, sizeof(v->path), "%s", path);
	elf_version(EV_CURRENT);
	v->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (v->fd < 0) {
		kmp_seterr(err, KMP_ERR_VMLINUX, "cannot open vmlinux %s: %s", path, strerror(errno));
		return false;
	}
	if (fstat(v->fd, &st) || !S_ISREG(st.st_mode)) {
		kmp_seterr(err, KMP_ERR_VMLINUX, "vmlinux %s is not a regular file", path);
		goto fail;
	}
	v->elf = elf_begin(v->fd, ELF_C_READ_MMAP, NULL);
	if (!v->elf || elf_kind(v->elf) != ELF_K_ELF || !gelf_getehdr(v->elf, &eh)) {
		const char *why = elf_errmsg(elf_errno());
		bool say = why && strcmp(why, "no error");

		kmp_seterr(err, KMP_ERR_VMLINUX, "vmlinux %s is not an ELF file%s%s%s", path,
			   say ? " (libelf: " : "", say ? why : "", say ? ")" : "");
		goto fail;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		kmp_seterr(err, KMP_ERR_VMLINUX, "vmlinux %s is not a 64-bit little-endian ELF file", path);
		goto fail;
	}
	random_access(v->elf);
	v->dwarf = dwarf_begin_elf(v->elf, DWARF_C_READ, NULL);
	if (!v->dwarf) {
		kmp_seterr(err, KMP_ERR_VMLINUX, "vmlinux %s has no DWARF debug info (build with "
			   "CONFIG_DEBUG_INFO; libdw: %s)", path, dwarf_errmsg(-1));
		goto fail;
	}
	v->units = kmp_dwarf_units_new(v->dwarf, v->fd);
	read_build_id(v);
	return true;
fail:
	kmp_vmlinux_close(v);
	return false;
}

void kmp_vmlinux_close(struct kmp_vmlinux *v)
{
	kmp_vmlinux_keep_answers(v);
	if (v->ks)
		kmp_kallsyms_free(v->ks);
	if (v->btf)
		kmp_btf_free(v->btf);
	free(v->ks);
	free(v->btf);
	v->ks = NULL;
	v->btf = NULL;
	kmp_btf_memo_free(v->memo);	/* (after the BTF that kept its answers in it) */
	v->memo = NULL;
	if (v->dcache)	/* after the table that points into it */
		kmp_dcache_close(v->dcache);
	free(v->dcache);
	v->dcache = NULL;
	free(v->known);
	v->known = NULL;
	v->nknown = v->capknown = 0;
	if (v->dwarf) {
		kmp_dwarf_units_free(v->units);
		dwarf_end(v->dwarf);
	}
	if (v->elf)
		elf_end(v->elf);
	if (v->fd >= 0)
		close(v->fd);
	v->dwarf = NULL;
	v->units = NULL;
	v->interned_to = 0;
	v->elf = NULL;
	v->fd = -1;
}

const char *kmp_symtab_name(const struct kmp_symtab *t, const Elf64_Sym *s)
{
	return s->st_name < t->strsize ? t->str + s->st_name : "";
}

/*
 * The headers of .symtab and its string table; false if there is none,
 * or its entries are not Elf64_Sym (used as is: a 64-bit little-endian
 * file on such a host) or its link is not a string table.
 */
static bool symtab_headers(struct kmp_vmlinux *v, Elf_Scn **symscn, GElf_Shdr *sh,
			   Elf_Scn **strscn, GElf_Shdr *strsh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(v->elf, scn))) {
		if (!gelf_getshdr(scn, sh) || sh->sh_type != SHT_SYMTAB)
			continue;
		*symscn = scn;
		return sh->sh_entsize == sizeof(Elf64_Sym) &&
		       (*strscn = elf_getscn(v->elf, sh->sh_link)) && gelf_getshdr(*strscn, strsh) &&
		       strsh->sh_type == SHT_STRTAB;
	}
	return false;
}

bool kmp_vmlinux_symtab(struct kmp_vmlinux *v, struct kmp_symtab *t)
{
	Elf_Scn *scn, *strscn;
	GElf_Shdr sh, strsh;
	Elf_Data *data, *str;

	memset(t, 0, sizeof(*t));
	if (v->ks)		/* no file: the kernel's kallsyms (vmdump.c), asked its own way */
		return false;
	if (!symtab_headers(v, &scn, &sh, &strscn, &strsh) ||
	    !(data = elf_rawdata(scn, NULL)) || !data->d_buf || data->d_size < sh.sh_size ||
	    (uintptr_t)data->d_buf % _Alignof(Elf64_Sym) ||	/* a damaged sh_offset */
	    !(str = elf_rawdata(strscn, NULL)) || !str->d_buf || !str->d_size ||
	    ((const char *)str->d_buf)[str->d_size - 1] != '\0')
		return false;
	t->syms = data->d_buf;
	t->n = sh.sh_size / sizeof(Elf64_Sym);
	t->str = str->d_buf;
	t->strsize = str->d_size;
	return true;
}

/* Where .symtab and its string table are in the file. */
bool kmp_vmlinux_symfile(struct kmp_vmlinux *v, struct kmp_symfile *f)
{
	Elf_Scn *scn, *strscn;
	GElf_Shdr sh, strsh;

	if (!symtab_headers(v, &scn, &sh, &strscn, &strsh))
		return false;
	*f = (struct kmp_symfile){ .fd = v->fd, .symoff = sh.sh_offset,
				   .nsyms = sh.sh_size / sizeof(Elf64_Sym),
				   .stroff = strsh.sh_offset, .strsize = strsh.sh_size };
	return true;
}

/* @name's entry among the known names, added (not yet looked for) if new; NULL: no memory. */
static struct kmp_known *known(struct kmp_vmlinux *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->nknown && strcmp(v->known[i].sym.name, name); i++)
		;
	if (i == v->nknown) {
		if (v->nknown == v->capknown) {
			size_t cap = v->capknown ? 2 * v->capknown : 64;
			struct kmp_known *k = realloc(v->known, cap * sizeof(*k));

			if (!k)
				return NULL;
			v->known = k;
			v->capknown = cap;
		}
		v->known[i] = (struct kmp_known){ .sym.name = name };
		v->nknown++;
	}
	return &v->known[i];
}

void kmp_vmlinux_expect(struct kmp_vmlinux *v, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		known(v, names[i]);
}

/* Look for every known name not yet looked for, in one read of the tables. */
static void resolve(struct kmp_vmlinux *v)
{
	struct kmp_symfile f;
	struct kmp_sym *todo;
	size_t n = 0, j = 0;

	for (size_t i = 0; i < v->nknown; i++)
		n += !v->known[i].resolved;
	if (!n || !(todo = malloc(n * sizeof(*todo))))
		return;
	for (size_t i = 0; i < v->nknown; i++)
		if (!v->known[i].resolved)
			todo[j++] = v->known[i].sym;
	if (v->ks)
		kmp_kallsyms_find(v->ks, todo, n);
	else if (!kmp_vmlinux_symfile(v, &f) || !kmp_symscan(&f, todo, n, 0))
		for (j = 0; j < n; j++)
			todo[j].found = false;	/* nothing found; not looked for again */
	j = 0;
	for (size_t i = 0; i < v->nknown; i++) {
		if (v->known[i].resolved)
			continue;
		v->known[i].sym = todo[j++];
		v->known[i].resolved = true;
	}
	free(todo);
}

/*
 * With a symbol source, its answer is the address; the size comes from the
 * file where both agree (crash keeps no sizes), and a disagreement is
 * counted (a vmlinux that is not the one the source loaded).
 */
static void symbols_from_source(struct kmp_vmlinux *v, struct kmp_sym *syms, size_t n)
{
	for (size_t i = 0; v->symsrc && i < n; i++) {
		uint64_t addr;

		if (!v->symsrc->lookup(v->symsrc->arg, syms[i].name, &addr))
			continue;
		v->from_source++;
		if (syms[i].found && syms[i].addr != addr) {
			v->disagree++;
			syms[i].size = 0;
		}
		syms[i].addr = addr;
		syms[i].found = true;
	}
}

void kmp_vmlinux_symbols(struct kmp_vmlinux *v, struct kmp_sym *syms, size_t n)
{
	bool todo = false;

	for (size_t i = 0; i < n; i++) {
		const struct kmp_known *k = known(v, syms[i].name);

		syms[i].found = false;
		todo |= k && !k->resolved;
	}
	if (todo)
		resolve(v);
	for (size_t i = 0; i < n; i++) {
		const struct kmp_known *k = known(v, syms[i].name);

		if (k && k->resolved) {
			syms[i].addr = k->sym.addr;
			syms[i].size = k->sym.size;
			syms[i].found = k->sym.found;
		}
	}
	symbols_from_source(v, syms, n);
}

bool kmp_vmlinux_read(struct kmp_vmlinux *v, uint64_t addr, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	struct kmp_err err;

	if (v->mem)	/* no file: what memory holds now */
		return kmp_read(v->mem, addr + v->kaslr, buf, len, &err);

	while ((scn = elf_nextscn(v->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		if (addr < sh.sh_addr || addr - sh.sh_addr > sh.sh_size ||
		    len > sh.sh_size - (addr - sh.sh_addr))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size < sh.sh_size)
			return false;
		memcpy(buf, (const char *)data->d_buf + (addr - sh.sh_addr), len);
		return true;
	}
	return false;
}
