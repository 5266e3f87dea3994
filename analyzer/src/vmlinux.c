// SPDX-License-Identifier: GPL-2.0
/* kmempool: open vmlinux with libelf, look up symbols and the build ID. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
		kmp_seterr(err, "cannot open vmlinux %s: %s", path, strerror(errno));
		return false;
	}
	if (fstat(v->fd, &st) || !S_ISREG(st.st_mode)) {
		kmp_seterr(err, "vmlinux %s is not a regular file", path);
		goto fail;
	}
	v->elf = elf_begin(v->fd, ELF_C_READ_MMAP, NULL);
	if (!v->elf || elf_kind(v->elf) != ELF_K_ELF || !gelf_getehdr(v->elf, &eh)) {
		kmp_seterr(err, "vmlinux %s is not an ELF file", path);
		goto fail;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		kmp_seterr(err, "vmlinux %s is not a 64-bit little-endian ELF file", path);
		goto fail;
	}
	v->dwarf = dwarf_begin_elf(v->elf, DWARF_C_READ, NULL);
	if (!v->dwarf) {
		kmp_seterr(err, "vmlinux %s has no DWARF debug info (build with CONFIG_DEBUG_INFO)",
			   path);
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
	if (v->dwarf)
		dwarf_end(v->dwarf);
	if (v->elf)
		elf_end(v->elf);
	if (v->fd >= 0)
		close(v->fd);
	v->dwarf = NULL;
	v->elf = NULL;
	v->fd = -1;
}

void kmp_vmlinux_symbols(struct kmp_vmlinux *v, struct kmp_sym *syms, size_t n)
{
	Elf_Scn *scn = NULL;

	for (size_t i = 0; i < n; i++)
		syms[i].found = false;
	while ((scn = elf_nextscn(v->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)k, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(v->elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			for (size_t i = 0; i < n; i++) {
				if (!syms[i].found && !strcmp(name, syms[i].name)) {
					syms[i].addr = sym.st_value;
					syms[i].size = sym.st_size;
					syms[i].found = true;
				}
			}
		}
	}
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
