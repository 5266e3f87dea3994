/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the rule for strings read from a dump that end up in the
 * report.  The kernel's pool names and module names are one word of
 * printable ASCII; anything else in memory is corruption (or a string
 * freed and reused), and printing it as is could inject lines or columns.
 */
#ifndef KMP_NAMES_H
#define KMP_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True if the @len bytes at @s are a valid name: non-empty, every byte
 * printable ASCII other than the space (0x21..0x7e).  Otherwise false,
 * with the reason in @why ("is empty", "has byte 0x0a at offset 3").
 */
bool kmp_name_ok(const char *s, size_t len, char *why, size_t whylen);

/*
 * A task's comm is set by the task itself (prctl, exec) and may hold any
 * byte: replace every byte outside printable ASCII (0x20..0x7e) by '?',
 * in place, up to the NUL.
 */
void kmp_comm_clean(char *comm);

#endif
