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
/* The format whose columns the DWARF of struct mempool_s has: "1.1". */
const char *kmp_format_of_layout(const struct kmp_layout *l);

void kmp_report_header(FILE *f, const char *version);
void kmp_report_pool(FILE *f, const struct kmp_pool *p);
void kmp_report_text(FILE *f, const char *version, const struct kmp_pools *pools);

/* JSON helpers. */
void kmp_json_string(FILE *f, const char *s);
void kmp_json_pool(FILE *f, const struct kmp_pool *p);
/* The same without the closing brace, for members that follow ("waiters"). */
void kmp_json_pool_open(FILE *f, const struct kmp_pool *p);

#endif
