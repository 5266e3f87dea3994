/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: print pools as /proc/mempool text or as JSON. */
#ifndef KMP_REPORT_H
#define KMP_REPORT_H

#include <stdio.h>

#include "pools.h"

/* True if this kmempool can print /proc/mempool format @version. */
bool kmp_format_known(const char *version);
/* The known versions, for messages: "1.0". */
const char *kmp_formats_known(void);
/* True if this kmempool prints series v6's format @version with column line @columns. */
bool kmp_format_known_v6(const char *version, const char *columns);
/*
 * The same, false with @err (kind format, one line naming both) when not:
 * an unknown version or column line is refused, never guessed.
 */
bool kmp_format_check_v6(const char *version, const char *columns, struct kmp_err *err);
/* The format whose columns the DWARF of struct mempool_s has: "1.1". */
const char *kmp_format_of_layout(const struct kmp_layout *l);

void kmp_report_header(FILE *f, const char *version);
/* Series v6: the kernel's own two lines (its version and column line, read from memory). */
void kmp_report_header_v6(FILE *f, const char *version, const char *columns);
void kmp_report_pool(FILE *f, const struct kmp_pool *p);
void kmp_report_text(FILE *f, const char *version, const struct kmp_pools *pools);

/*
 * The JSON pool writer: the keys every pool record starts with, from "{"
 * to the value of "waiting" - the same for the list's report, the stack
 * search and the scan, which each add their own keys after them.  A value
 * that is not known is null.
 */
struct kmp_json_poolhead {
	uint64_t addr;
	const char *name, *type;
	bool have_elem_size;
	uint64_t elem_size;
	int64_t min_nr, curr_nr;
	bool have_counters;		/* low_nr, from_reserve and waits (the series') */
	int64_t low_nr;
	uint64_t nr_reserve, nr_wait;
	bool have_waiting;
	uint64_t waiting;
};
void kmp_json_pool_head(FILE *f, const struct kmp_json_poolhead *h);

/*
 * JSON helpers.  kmp_json_string() writes the bytes of @s as a JSON string
 * of ASCII only: the characters of @s read as UTF-8 when all of @s is
 * valid UTF-8 (a UTF-8 name reads as /proc/mempool shows it on a UTF-8
 * terminal), otherwise each byte as the ISO 8859-1 character of its value
 * (the character set of the kernel's ctype table: byte 0xe9 is U+00E9);
 * every character outside printable ASCII as \uXXXX (a surrogate pair
 * above U+FFFF), so the output is valid UTF-8 whatever memory held.
 */
void kmp_json_string(FILE *f, const char *s);
void kmp_json_pool(FILE *f, const struct kmp_pool *p);
/* The same without the closing brace, for members that follow ("waiters"). */
void kmp_json_pool_open(FILE *f, const struct kmp_pool *p);

#endif
