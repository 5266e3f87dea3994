/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kallsyms tables written the way scripts/kallsyms writes them, for the
 * unit tests and fuzz harnesses of kallsyms.c and orc.c: one-character
 * tokens for 0x00..0x7f, token 0x80 "mempool_".
 */
#ifndef FAKE_KALLSYMS_H
#define FAKE_KALLSYMS_H

#include <stdint.h>
#include <string.h>

#include "kallsyms.h"

struct ktab {
	uint8_t names[4096];
	size_t nlen;
	uint16_t tidx[256];
	char ttab[1024];
	size_t tlen;
	int32_t offs[16];
	uint32_t num;
};

/* Tokens: 0x00..0x7f stand for themselves (a one-character token); 0x80 "mempool_". */
static inline void ktab_init(struct ktab *t)
{
	memset(t, 0, sizeof(*t));
	for (int c = 0; c < 128; c++) {
		t->tidx[c] = (uint16_t)t->tlen;
		t->ttab[t->tlen++] = (char)c;
		t->ttab[t->tlen++] = '\0';
	}
	t->tidx[0x80] = (uint16_t)t->tlen;
	memcpy(t->ttab + t->tlen, "mempool_", 9);
	t->tlen += 9;
	for (int c = 0x81; c < 256; c++)
		t->tidx[c] = t->tidx[0x80];
}

/* Symbol @type @name ("mempool_" prefixes become token 0x80) at offset @off. */
static inline void ktab_add(struct ktab *t, char type, const char *name, int32_t off)
{
	uint8_t enc[256];
	size_t n = 0;

	enc[n++] = (uint8_t)type;
	if (!strncmp(name, "mempool_", 8)) {
		enc[n++] = 0x80;
		name += 8;
	}
	while (*name)
		enc[n++] = (uint8_t)*name++;
	t->names[t->nlen++] = (uint8_t)n;
	memcpy(t->names + t->nlen, enc, n);
	t->nlen += n;
	t->offs[t->num++] = off;
}

static inline struct kmp_kallsyms_raw ktab_raw(const struct ktab *t)
{
	return (struct kmp_kallsyms_raw){ .names = t->names, .names_len = t->nlen,
		.token_index = t->tidx, .token_table = t->ttab, .token_len = t->tlen,
		.offsets = t->offs, .num = t->num };
}

#endif
