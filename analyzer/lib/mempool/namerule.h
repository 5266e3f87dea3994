/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the rule for strings read from a dump that end up in the
 * report.  The series makes every pool name (and instance) one word by the
 * kernel's own character classes (mempool_make_word(): a byte that is
 * isspace() or not isprint() becomes '_'), so a name that breaks that rule
 * is corruption (or a string freed and reused) and is not printed as a
 * name.  The classes are the kernel's, not the C library's: the kernel's
 * table (lib/ctype.c) is ISO 8859-1, whose bytes 0xa1..0xff are printable,
 * so a name may hold them (the bytes of a UTF-8 name, for instance); the
 * report prints them as they are, as /proc/mempool does.
 */
#ifndef KMP_NAMERULE_H
#define KMP_NAMERULE_H

#include <stdbool.h>
#include <stddef.h>

/* The kernel's isprint() and isspace() (include/linux/ctype.h) of byte @c. */
bool kmp_kernel_isprint(unsigned char c);
bool kmp_kernel_isspace(unsigned char c);

/*
 * True if the series keeps byte @c in a name: the kernel's isprint() and
 * not its isspace() (0x21..0x7e and 0xa1..0xff).
 */
bool kmp_name_byte_ok(unsigned char c);

/*
 * True if the @len bytes at @s are a valid name: non-empty, every byte
 * one that kmp_name_byte_ok() accepts.  Otherwise false, with the reason
 * in @why ("is empty", "has byte 0x0a at offset 3 ...").
 */
bool kmp_name_ok(const char *s, size_t len, char *why, size_t whylen);

/*
 * A task's comm is set by the task itself (prctl, exec) and may hold any
 * byte: replace every byte outside printable ASCII (0x20..0x7e) by '?',
 * in place, up to the NUL.
 */
void kmp_comm_clean(char *comm);

#endif
