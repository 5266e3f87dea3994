/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: check the structure of an ELF core (a vmcore or /proc/kcore)
 * before libelf or libkdumpfile parse it: those libraries trust the
 * headers, and a damaged header crashed libkdumpfile 0.5.1.
 */
#ifndef KMP_ELFCHECK_H
#define KMP_ELFCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "kmp.h"

#define KMP_ELF_MAX_PHNUM (1u << 20)		/* program headers */
#define KMP_ELF_MAX_NOTES (64u << 20)		/* bytes in one PT_NOTE segment */

struct kmp_elfcheck {
	uint64_t file_size;	/* 0 for /proc/kcore (not checked) */
	uint32_t phnum;		/* program headers */
	uint32_t nload;		/* PT_LOAD segments with file data */
	uint32_t nload_cut;	/* ... whose data runs past the end of the file */
	uint64_t cut_vaddr;	/* the lowest vaddr of such data (first missing byte) */
	uint64_t cut_offset;	/* its file offset */
	bool vmcoreinfo;	/* a VMCOREINFO note exists */
};

/* True if the first @len bytes of a file say ELF. */
bool kmp_is_elf(const unsigned char *magic, size_t len);

/*
 * Check the ELF core open as @fd (@path for messages): ELF header (64-bit,
 * little endian, ET_CORE, sane program and section header tables inside
 * the file), every program header's file range (PT_NOTE inside the file,
 * notes inside their segment; PT_LOAD data past the end is counted in
 * @info as cut short, not an error).  With @kcore (/proc/kcore, whose size
 * stat cannot tell), the ranges are not checked against the file size but
 * the structure is.  False with @err set.
 */
bool kmp_elf_check(int fd, const char *path, bool kcore, struct kmp_elfcheck *info,
		   struct kmp_err *err);

#endif
