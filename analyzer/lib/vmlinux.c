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

void kmp_vmlinux_release(struct kmp_vmlinux *v)
{
	kmp_elf_release(v->elf);
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
	read_build_id(v);
	return true;
fail:
	kmp_vmlinux_close(v);
	return false;
}

void kmp_vmlinux_close(struct kmp_vmlinux *v)
{
	free(v->symidx);
	v->symidx = NULL;
	if (v->dwarf) {
		kmp_dwarf_forget(v->dwarf);	/* a later Dwarf may get its address */
		dwarf_end(v->dwarf);
	}
	if (v->elf)
		elf_end(v->elf);
	if (v->fd >= 0)
		close(v->fd);
	v->dwarf = NULL;
	v->elf = NULL;
	v->fd = -1;
}

/* FNV-1a, to compare a symbol's name with the wanted ones only on a hash match. */
/*
 * A symbol name's hash, eight bytes at a time (Debian's .strtab holds 4 MB
 * of names: hashing them byte by byte was a third of `kmempool waiters`).
 * The hash of the bytes before the NUL, zero-padded to whole words, and
 * their number; name_hash_in() finds the NUL a word at a time and never
 * reads at or past @end.
 */
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

static uint32_t finish(uint64_t h, size_t len)
{
	h ^= len;
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 32;
	return (uint32_t)h;
}

static uint32_t name_hash_in(const char *s, const char *end)
{
	const char *start = s;
	uint64_t h = 0x9e3779b97f4a7c15ULL, w, z;

	while (end - s >= 8) {
		memcpy(&w, s, 8);
		z = (w - ONES) & ~w & HIGHS;
		if (z) {
			unsigned int n = (unsigned int)__builtin_ctzll(z) / 8;

			if (n)
				h = mix(h, w & ((1ULL << (8 * n)) - 1));
			return finish(h, (size_t)(s - start) + n);
		}
		h = mix(h, w);
		s += 8;
	}
	/* The last few bytes of the table, one at a time. */
	w = 0;
	for (unsigned int n = 0; s + n < end; n++) {
		if (!s[n]) {
			if (n)
				h = mix(h, w);
			return finish(h, (size_t)(s - start) + n);
		}
		w |= (uint64_t)(unsigned char)s[n] << (8 * n);
	}
	return finish(h, (size_t)(s - start));	/* no NUL: the table is checked to end in one */
}

static uint32_t name_hash(const char *s)
{
	return name_hash_in(s, s + strlen(s) + 1);
}


bool kmp_vmlinux_symtab(struct kmp_vmlinux *v, struct kmp_symtab *t)
{
	Elf_Scn *scn = NULL;

	memset(t, 0, sizeof(*t));
	while ((scn = elf_nextscn(v->elf, scn))) {
		GElf_Shdr sh, strsh;
		Elf_Data *data, *str;
		Elf_Scn *strscn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		/* The raw table is used as is: a 64-bit little-endian file on such a host. */
		if (sh.sh_entsize != sizeof(Elf64_Sym) || !(data = elf_rawdata(scn, NULL)) ||
		    !data->d_buf || data->d_size < sh.sh_size ||
		    (uintptr_t)data->d_buf % _Alignof(Elf64_Sym) ||	/* a damaged sh_offset */
		    !(strscn = elf_getscn(v->elf, sh.sh_link)) || !gelf_getshdr(strscn, &strsh) ||
		    strsh.sh_type != SHT_STRTAB || !(str = elf_rawdata(strscn, NULL)) ||
		    !str->d_buf || !str->d_size ||
		    ((const char *)str->d_buf)[str->d_size - 1] != '\0')
			return false;
		t->syms = data->d_buf;
		t->n = sh.sh_size / sizeof(Elf64_Sym);
		t->str = str->d_buf;
		t->strsize = str->d_size;
		return true;
	}
	return false;
}

const char *kmp_symtab_name(const struct kmp_symtab *t, const Elf64_Sym *s)
{
	return s->st_name < t->strsize ? t->str + s->st_name : "";
}

/*
 * A hash table of every defined symbol's index, by name, built on the
 * first look-up: one pass over .symtab however many look-ups follow.  The
 * first symbol of a name wins, as in a linear search.
 */
static bool build_symidx(struct kmp_vmlinux *v, const struct kmp_symtab *t)
{
	size_t cap = 1024;

	while (cap < 2 * t->n && cap < (1u << 30))
		cap <<= 1;
	v->symidx = malloc(cap * sizeof(*v->symidx));
	if (!v->symidx)
		return false;
	memset(v->symidx, 0xff, cap * sizeof(*v->symidx));
	v->symidx_mask = cap - 1;
	for (size_t k = 0; k < t->n && k < 0xffffffffu; k++) {
		const Elf64_Sym *sym = &t->syms[k];
		const char *name;
		size_t slot;

		if (sym->st_shndx == SHN_UNDEF || !sym->st_name)
			continue;
		if (sym->st_name >= t->strsize)
			continue;	/* a name outside .strtab: no name to find it by */
		name = kmp_symtab_name(t, sym);
		for (slot = name_hash_in(name, t->str + t->strsize) & v->symidx_mask;
		     v->symidx[slot] != 0xffffffffu;
		     slot = (slot + 1) & v->symidx_mask)
			if (!strcmp(kmp_symtab_name(t, &t->syms[v->symidx[slot]]), name))
				break;
		if (v->symidx[slot] == 0xffffffffu)
			v->symidx[slot] = (uint32_t)k;
	}
	return true;
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
	struct kmp_symtab t;

	for (size_t i = 0; i < n; i++)
		syms[i].found = false;
	if (!v->symidx && kmp_vmlinux_symtab(v, &t)) {
		bool built = build_symidx(v, &t);

		kmp_vmlinux_release(v);	/* the index read all of .symtab and .strtab */
		if (!built) {
			symbols_from_source(v, syms, n);
			return;
		}
	}
	if (!kmp_vmlinux_symtab(v, &t) || !v->symidx) {
		symbols_from_source(v, syms, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t slot = name_hash(syms[i].name) & v->symidx_mask;
		     v->symidx[slot] != 0xffffffffu; slot = (slot + 1) & v->symidx_mask) {
			const Elf64_Sym *sym = &t.syms[v->symidx[slot]];

			if (!strcmp(kmp_symtab_name(&t, sym), syms[i].name)) {
				syms[i].addr = sym->st_value;
				syms[i].size = sym->st_size;
				syms[i].found = true;
				break;
			}
		}
	}
	symbols_from_source(v, syms, n);
}

bool kmp_vmlinux_read(struct kmp_vmlinux *v, uint64_t addr, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;

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
