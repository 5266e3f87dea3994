// SPDX-License-Identifier: GPL-2.0
/* kmempool: structural checks of an ELF core, before any library reads it. */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfcheck.h"
#include "elfnote.h"

bool kmp_is_elf(const unsigned char *magic, size_t len)
{
	return len >= SELFMAG && !memcmp(magic, ELFMAG, SELFMAG);
}

static bool read_at(int fd, uint64_t off, void *buf, size_t len)
{
	size_t done = 0;

	if (off > (uint64_t)INT64_MAX - len)
		return false;
	while (done < len) {
		ssize_t got = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		done += (size_t)got;
	}
	return true;
}

/* @off + @len within a file of @size bytes (no overflow)? */
static bool inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static bool check_ehdr(const Elf64_Ehdr *eh, const char *path, struct kmp_err *err)
{
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s is an ELF file but not 64-bit little endian "
			   "(class %u, data %u)", path, eh->e_ident[EI_CLASS],
			   eh->e_ident[EI_DATA]);
		return false;
	}
	if (eh->e_ident[EI_VERSION] != EV_CURRENT || eh->e_version != EV_CURRENT) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: ELF version %u/%u, not %u (damaged header?)", path,
			   eh->e_ident[EI_VERSION], eh->e_version, EV_CURRENT);
		return false;
	}
	if (eh->e_type != ET_CORE) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s is not a kernel dump: an ELF file of type %u, not "
			   "a core (ET_CORE)", path, eh->e_type);
		return false;
	}
	/*
	 * The 64-bit little-endian machines libkdumpfile 0.5.1 translates
	 * for; with another one it has no page size and divides by zero.
	 */
	if (eh->e_machine != EM_X86_64 && eh->e_machine != EM_AARCH64 &&
	    eh->e_machine != EM_PPC64) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s is an ELF core of machine %u, not x86-64, arm64 or "
			   "ppc64le (damaged header?)", path, eh->e_machine);
		return false;
	}
	if (eh->e_ehsize != sizeof(Elf64_Ehdr)) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: ELF header size %u, not %zu (damaged header?)", path,
			   eh->e_ehsize, sizeof(Elf64_Ehdr));
		return false;
	}
	if (eh->e_phentsize != sizeof(Elf64_Phdr)) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: program header size (e_phentsize) %u, not %zu "
			   "(damaged header?)", path, eh->e_phentsize, sizeof(Elf64_Phdr));
		return false;
	}
	if (eh->e_shoff == 0 && eh->e_shnum != 0) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: %u section headers (e_shnum) but no section header "
			   "table (e_shoff 0) (damaged header?)", path, eh->e_shnum);
		return false;
	}
	if (eh->e_shoff != 0 && eh->e_shentsize != sizeof(Elf64_Shdr)) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: section header size (e_shentsize) %u, not %zu "
			   "(damaged header?)", path, eh->e_shentsize, sizeof(Elf64_Shdr));
		return false;
	}
	if (eh->e_shoff == 0 && eh->e_shstrndx != SHN_UNDEF) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: section name table index %u without section headers "
			   "(damaged header?)", path, eh->e_shstrndx);
		return false;
	}
	return true;
}

static bool key_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '(' || c == ')' || c == '.' || c == '-';
}

/*
 * The VMCOREINFO text: lines of KEY=VALUE (KEY a letter, then letters,
 * digits and _().-, as in "OFFSET(list_head.next)"; VALUE printable
 * ASCII), empty lines, NUL padding at the end.  libkdumpfile 0.5.1 turns
 * every key into an attribute path and crashed on a key starting with '.'.
 */
static bool check_vmcoreinfo(const unsigned char *t, uint64_t len, const char *path,
			    struct kmp_err *err)
{
	uint64_t line = 1, i = 0;

	while (len && t[len - 1] == '\0')
		len--;
	while (i < len) {
		uint64_t start = i, eq = 0;

		for (; i < len && t[i] != '\n'; i++) {
			if (t[i] == '=' && !eq)
				eq = i;
			else if (!eq && !key_char(t[i]))
				goto bad;
			else if (eq && (t[i] < 0x20 || t[i] > 0x7e))
				goto bad;
		}
		if (i > start && (!eq || eq == start || !((t[start] | 0x20) >= 'a' &&
							  (t[start] | 0x20) <= 'z'))) {
			i = eq == start || eq ? start : i;	/* name the culprit */
			goto bad;
		}
		i++;
		line++;
	}
	return true;
bad:
	kmp_seterr(err, KMP_ERR_DUMP, "core %s: VMCOREINFO line %" PRIu64 " is not KEY=VALUE text (byte 0x%02x "
		   "at offset %" PRIu64 "; damaged dump?)", path, line, i < len ? t[i] : 0, i);
	return false;
}

/* The notes of one PT_NOTE segment: each header and its name and data inside. */
static bool check_notes(int fd, const char *path, const Elf64_Phdr *ph, unsigned int idx,
		       struct kmp_elfcheck *info, struct kmp_err *err)
{
	unsigned char *buf;
	uint64_t off = 0;

	if (ph->p_filesz == 0)
		return true;
	if (ph->p_filesz > KMP_ELF_MAX_NOTES) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: note segment %u is %" PRIu64 " bytes (more than %u; "
			   "damaged header?)", path, idx, ph->p_filesz, KMP_ELF_MAX_NOTES);
		return false;
	}
	buf = malloc(ph->p_filesz);
	if (!buf) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for the %" PRIu64 " bytes of note segment %u",
			   ph->p_filesz, idx);
		return false;
	}
	if (!read_at(fd, ph->p_offset, buf, ph->p_filesz)) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: cannot read note segment %u (%" PRIu64 " bytes at "
			   "offset %" PRIu64 ")", path, idx, ph->p_filesz, ph->p_offset);
		free(buf);
		return false;
	}
	for (;;) {
		struct kmp_note n;
		enum kmp_note_step st = kmp_note_next(buf, ph->p_filesz, &off, &n);

		if (st == KMP_NOTE_END)
			break;
		if (st == KMP_NOTE_BAD_HDR)
			goto bad_hdr;
		if (st == KMP_NOTE_PAST_END) {
			kmp_seterr(err, KMP_ERR_DUMP, "core %s: note at offset %" PRIu64 " of note segment %u "
				   "(name %u bytes, data %u bytes) runs past the segment's end "
				   "(%" PRIu64 " bytes) (damaged dump?)", path, n.off, idx,
				   n.namesz, n.descsz, ph->p_filesz);
			free(buf);
			return false;
		}
		if (kmp_note_is(&n, "VMCOREINFO")) {
			info->vmcoreinfo = true;
			if (!check_vmcoreinfo(n.desc, n.descsz, path, err)) {
				free(buf);
				return false;
			}
		}
	}
	free(buf);
	return true;
bad_hdr:
	kmp_seterr(err, KMP_ERR_DUMP, "core %s: note segment %u ends in %" PRIu64 " bytes that are not a "
		   "note header (damaged dump?)", path, idx, ph->p_filesz - off);
	free(buf);
	return false;
}

static bool check_load(const char *path, const Elf64_Phdr *ph, unsigned int idx,
		      bool kcore, struct kmp_elfcheck *info, struct kmp_err *err)
{
	if (ph->p_filesz > ph->p_memsz) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: memory segment %u has more file data (%" PRIu64
			   " bytes) than memory (%" PRIu64 " bytes) (damaged header?)", path,
			   idx, ph->p_filesz, ph->p_memsz);
		return false;
	}
	if (ph->p_offset > (uint64_t)INT64_MAX - ph->p_filesz ||
	    (ph->p_memsz && ph->p_vaddr + (ph->p_memsz - 1) < ph->p_vaddr)) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: memory segment %u (offset 0x%" PRIx64 ", %" PRIu64
			   " bytes at 0x%" PRIx64 ") wraps around (damaged header?)", path, idx,
			   ph->p_offset, ph->p_filesz, ph->p_vaddr);
		return false;
	}
	if (!ph->p_filesz)
		return true;
	info->nload++;
	if (!kcore && !inside(ph->p_offset, ph->p_filesz, info->file_size)) {
		uint64_t have = ph->p_offset < info->file_size ?
			info->file_size - ph->p_offset : 0;

		if (!info->nload_cut || ph->p_vaddr + have < info->cut_vaddr) {
			info->cut_vaddr = ph->p_vaddr + have;
			info->cut_offset = ph->p_offset + have;
		}
		info->nload_cut++;
	}
	return true;
}

bool kmp_elf_check(int fd, const char *path, bool kcore, struct kmp_elfcheck *info,
		   struct kmp_err *err)
{
	Elf64_Phdr *phs = NULL;
	Elf64_Ehdr eh;
	struct stat st;
	uint64_t phnum;
	bool ok = true;

	memset(info, 0, sizeof(*info));
	if (!kcore) {
		if (fstat(fd, &st)) {
			kmp_seterr(err, KMP_ERR_DUMP, "cannot stat core %s: %s", path, strerror(errno));
			return false;
		}
		info->file_size = (uint64_t)st.st_size;
	}
	if (!read_at(fd, 0, &eh, sizeof(eh))) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s is too short for an ELF header (%zu bytes)", path,
			   sizeof(eh));
		return false;
	}
	if (!check_ehdr(&eh, path, err))
		return false;
	phnum = eh.e_phnum;
	if (!kcore && eh.e_shoff &&
	    !inside(eh.e_shoff, (uint64_t)(eh.e_shnum ? eh.e_shnum : 1) * sizeof(Elf64_Shdr),
		    info->file_size)) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: the section header table (%u entries at offset %"
			   PRIu64 ") lies outside the file (%" PRIu64 " bytes) (damaged header, "
			   "or truncated?)", path, eh.e_shnum, (uint64_t)eh.e_shoff,
			   info->file_size);
		return false;
	}
	if (phnum == PN_XNUM) {
		/* More than 65534 program headers: the count is in section 0's sh_info. */
		Elf64_Shdr sh0;

		if (!eh.e_shoff || !read_at(fd, eh.e_shoff, &sh0, sizeof(sh0))) {
			kmp_seterr(err, KMP_ERR_DUMP, "core %s: e_phnum says the program header count is in "
				   "section header 0, which cannot be read", path);
			return false;
		}
		phnum = sh0.sh_info;
	}
	if (phnum == 0 || phnum > KMP_ELF_MAX_PHNUM) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: %" PRIu64 " program headers (damaged header?)", path,
			   phnum);
		return false;
	}
	info->phnum = (uint32_t)phnum;
	if (eh.e_phoff < sizeof(eh) ||
	    (!kcore && !inside(eh.e_phoff, phnum * sizeof(Elf64_Phdr), info->file_size))) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: the program header table (%" PRIu64 " entries at "
			   "offset %" PRIu64 ") lies outside the file (%" PRIu64 " bytes) "
			   "(damaged header, or truncated?)", path, phnum, (uint64_t)eh.e_phoff,
			   info->file_size);
		return false;
	}
	phs = malloc(phnum * sizeof(*phs));
	if (!phs) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory for %" PRIu64 " program headers", phnum);
		return false;
	}
	if (!read_at(fd, eh.e_phoff, phs, phnum * sizeof(*phs))) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: cannot read its %" PRIu64 " program headers at offset %"
			   PRIu64, path, phnum, (uint64_t)eh.e_phoff);
		ok = false;
		goto out;
	}
	for (uint32_t i = 0; i < phnum && ok; i++) {
		const Elf64_Phdr *ph = &phs[i];

		if (ph->p_type == PT_NOTE) {
			if (!kcore && !inside(ph->p_offset, ph->p_filesz, info->file_size)) {
				kmp_seterr(err, KMP_ERR_DUMP, "core %s: note segment %u (%" PRIu64 " bytes at "
					   "offset %" PRIu64 ") lies outside the file (%" PRIu64
					   " bytes) (damaged header, or truncated?)", path, i,
					   (uint64_t)ph->p_filesz, (uint64_t)ph->p_offset,
					   info->file_size);
				ok = false;
				break;
			}
			ok = check_notes(fd, path, ph, i, info, err);
		} else if (ph->p_type == PT_LOAD) {
			ok = check_load(path, ph, i, kcore, info, err);
		}
	}
	if (ok && !info->nload) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s: an ELF core without memory (no PT_LOAD segment with "
			   "data)", path);
		ok = false;
	}
out:
	free(phs);
	return ok;
}
