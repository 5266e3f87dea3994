// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: finding named symbols in a vmlinux's .strtab and
 * .symtab (symscan.c), read through a small, input-chosen buffer,
 * against a linear search of the same tables.  Input: one byte of chunk
 * size, a 2-byte string table length, the string table, then symbols.
 * The names looked for: a few fixed ones and every string of the table.
 */
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symscan.h"

#define NAMES_MAX 64

static const Elf64_Sym *linear(const Elf64_Sym *syms, size_t n, const char *str, size_t strsize,
			       const char *name)
{
	for (size_t k = 0; k < n; k++) {
		const Elf64_Sym *s = &syms[k];

		if (s->st_shndx == SHN_UNDEF || !s->st_name || s->st_name >= strsize)
			continue;
		if (memchr(str + s->st_name, 0, strsize - s->st_name) && !strcmp(str + s->st_name, name))
			return s;
	}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fixed[] = { "vfree", "x", "ab", "abc", "init_task", "" };
	const char *names[NAMES_MAX];
	struct kmp_sym q[NAMES_MAX];
	size_t strsize, nsyms, nn = 0, chunk;
	struct kmp_symfile f;
	Elf64_Sym *syms;
	char *str;
	int fd;

	if (size < 3)
		return 0;
	chunk = data[0];	/* 0: the default */
	strsize = (size_t)data[1] | (size_t)data[2] << 8;
	data += 3;
	size -= 3;
	if (strsize > size)
		strsize = size;
	nsyms = (size - strsize) / sizeof(Elf64_Sym);
	fd = memfd_create("fuzz_symscan", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	/* Copies the harness reads: NUL-terminated strings, aligned symbols. */
	str = calloc(1, strsize + 1);
	syms = calloc(nsyms ? nsyms : 1, sizeof(*syms));
	if (!str || !syms)
		abort();
	memcpy(str, data, strsize);
	memcpy(syms, data + strsize, nsyms * sizeof(*syms));
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		names[nn++] = fixed[i];
	for (size_t o = 0; o < strsize && nn < NAMES_MAX; o += strlen(str + o) + 1)
		names[nn++] = str + o;
	for (size_t i = 0; i < nn; i++)
		q[i] = (struct kmp_sym){ .name = names[i] };
	f = (struct kmp_symfile){ .fd = fd, .stroff = 0, .strsize = strsize,
				  .symoff = strsize, .nsyms = nsyms };
	if (!kmp_symscan(&f, q, nn, chunk))
		abort();	/* the whole file is there: no read fails */
	for (size_t i = 0; i < nn; i++) {
		const Elf64_Sym *l = *names[i] && strlen(names[i]) <= KMP_SYMNAME_MAX ?
			linear(syms, nsyms, str, strsize, names[i]) : NULL;

		if (q[i].found != !!l || (l && (q[i].addr != l->st_value || q[i].size != l->st_size)))
			abort();
	}
	free(syms);
	free(str);
	close(fd);
	return 0;
}
