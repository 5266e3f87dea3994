/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ELF header of the crafted x86-64 cores the tests write (mkcore,
 * mkcore_v6, unit-stacks): program headers right after it, no sections.
 */
#ifndef KMP_TEST_ELFCORE_H
#define KMP_TEST_ELFCORE_H

#include <elf.h>
#include <string.h>

static inline Elf64_Ehdr elfcore_header(unsigned int phnum)
{
	Elf64_Ehdr eh;

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_CORE;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (Elf64_Half)phnum;
	return eh;
}

#endif
