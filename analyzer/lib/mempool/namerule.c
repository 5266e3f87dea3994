// SPDX-License-Identifier: GPL-2.0
/* kmempool: the rule for names read from kernel memory: the kernel's own. */
#include <stdio.h>

#include "namerule.h"

/* The flags of include/linux/ctype.h. */
enum {
	K_U = 0x01,	/* upper */
	K_L = 0x02,	/* lower */
	K_D = 0x04,	/* digit */
	K_C = 0x08,	/* cntrl */
	K_P = 0x10,	/* punct */
	K_S = 0x20,	/* white space (space/lf/tab) */
	K_X = 0x40,	/* hex digit */
	K_SP = 0x80,	/* hard space (0x20) */
};

/*
 * The kernel's _ctype[] (lib/ctype.c of Linux 6.1), row for row;
 * tests/kernel_ctype.sh checks the rule against a kernel tree's own table.
 */
static const unsigned char kernel_ctype[256] = {
K_C,K_C,K_C,K_C,K_C,K_C,K_C,K_C,				/* 0-7 */
K_C,K_C|K_S,K_C|K_S,K_C|K_S,K_C|K_S,K_C|K_S,K_C,K_C,		/* 8-15 */
K_C,K_C,K_C,K_C,K_C,K_C,K_C,K_C,				/* 16-23 */
K_C,K_C,K_C,K_C,K_C,K_C,K_C,K_C,				/* 24-31 */
K_S|K_SP,K_P,K_P,K_P,K_P,K_P,K_P,K_P,				/* 32-39 */
K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,				/* 40-47 */
K_D,K_D,K_D,K_D,K_D,K_D,K_D,K_D,				/* 48-55 */
K_D,K_D,K_P,K_P,K_P,K_P,K_P,K_P,				/* 56-63 */
K_P,K_U|K_X,K_U|K_X,K_U|K_X,K_U|K_X,K_U|K_X,K_U|K_X,K_U,	/* 64-71 */
K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_U,				/* 72-79 */
K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_U,				/* 80-87 */
K_U,K_U,K_U,K_P,K_P,K_P,K_P,K_P,				/* 88-95 */
K_P,K_L|K_X,K_L|K_X,K_L|K_X,K_L|K_X,K_L|K_X,K_L|K_X,K_L,	/* 96-103 */
K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_L,				/* 104-111 */
K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_L,				/* 112-119 */
K_L,K_L,K_L,K_P,K_P,K_P,K_P,K_C,				/* 120-127 */
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,				/* 128-143 */
0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,				/* 144-159 */
K_S|K_SP,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P, /* 160-175 */
K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P,K_P, /* 176-191 */
K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_U, /* 192-207 */
K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_P,K_U,K_U,K_U,K_U,K_U,K_U,K_U,K_L, /* 208-223 */
K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_L, /* 224-239 */
K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_P,K_L,K_L,K_L,K_L,K_L,K_L,K_L,K_L}; /* 240-255 */

bool kmp_kernel_isprint(unsigned char c)
{
	return kernel_ctype[c] & (K_P | K_U | K_L | K_D | K_SP);
}

bool kmp_kernel_isspace(unsigned char c)
{
	return kernel_ctype[c] & K_S;
}

/* mempool_make_word(): "if (isspace(*p) || !isprint(*p)) *p = '_';" */
bool kmp_name_byte_ok(unsigned char c)
{
	return kmp_kernel_isprint(c) && !kmp_kernel_isspace(c);
}

bool kmp_name_ok(const char *s, size_t len, char *why, size_t whylen)
{
	if (!len) {
		snprintf(why, whylen, "is empty");
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!kmp_name_byte_ok(c)) {
			snprintf(why, whylen, "has byte 0x%02x at offset %zu (white space, or not "
				 "printable by the kernel's isprint())", c, i);
			return false;
		}
	}
	return true;
}

void kmp_comm_clean(char *comm)
{
	for (unsigned char *p = (unsigned char *)comm; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
}
