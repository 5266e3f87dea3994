// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: the /proc/mempool format.  It is defined by the kernel patch
 * (mm/mempool.c, mempool_seq_show()); this file reproduces versions 1.0,
 * 1.1 (which appended the columns failed and emptied) and 1.2 (which
 * appended oldest_wait and instance) byte for byte, each kernel in its own
 * version; and series v6's (Linux 7.2) format 1.0, whose header the
 * kernel keeps in memory (mempool_format_version, mempool_format_columns)
 * and whose rows mempool_seq_show() prints from a pool's tag.
 */
#include <inttypes.h>
#include <string.h>

#include "report.h"

bool kmp_format_known(const char *version)
{
	return !strcmp(version, "1.0") || !strcmp(version, "1.1") || !strcmp(version, "1.2");
}

const char *kmp_formats_known(void)
{
	return "1.0, 1.1, 1.2";
}

/* Series v6's version and column lines that this kmempool prints. */
static const struct {
	const char *version, *columns;
} v6_formats[] = {
	{ "1.0", "# name                         type    elem_size min_nr curr_nr low_nr from_reserve    waits waiting   failed  emptied oldest_wait owner instance site" },
};

bool kmp_format_known_v6(const char *version, const char *columns)
{
	for (size_t i = 0; i < sizeof(v6_formats) / sizeof(v6_formats[0]); i++)
		if (!strcmp(version, v6_formats[i].version) && !strcmp(columns, v6_formats[i].columns))
			return true;
	return false;
}

bool kmp_format_check_v6(const char *version, const char *columns, struct kmp_err *err)
{
	if (kmp_format_known_v6(version, columns))
		return true;
	kmp_seterr(err, KMP_ERR_FORMAT, "this series v6 kernel's /proc/mempool format is version "
		   "'%.15s' with the column line '%.200s'; kmempool knows series v6's 1.0 with its "
		   "column line only", version, columns);
	return false;
}

const char *kmp_format_of_layout(const struct kmp_layout *l)
{
	if (l->v6)
		return "1.0";
	if (l->v12)
		return "1.2";
	if (l->nr_fail.ok && l->nr_empty.ok)
		return "1.1";
	return "1.0";
}

void kmp_report_header(FILE *f, const char *version)
{
	fprintf(f, "mempool - version: %s\n", version);
	fprintf(f, "# %-22s %-7s %9s %6s %7s %6s %12s %8s %7s %s",
		"name", "type", "elem_size", "min_nr", "curr_nr", "low_nr",
		"from_reserve", "waits", "waiting", "owner");
	if (!strcmp(version, "1.1") || !strcmp(version, "1.2"))
		fputs(" failed emptied", f);
	if (!strcmp(version, "1.2"))
		fputs(" oldest_wait instance", f);
	fputc('\n', f);
}

void kmp_report_header_v6(FILE *f, const char *version, const char *columns)
{
	fprintf(f, "mempool - version: %s\n%s\n", version, columns);
}

/*
 * Series v6: mempool_seq_show()'s row, the name padded to 30 by its
 * escaped length, then "%-7s %9zu %6d %7d %6d %12u %8u %7u %8u %8u %11lu ",
 * owner, instance and site.
 */
static void report_pool_v6(FILE *f, const struct kmp_pool *p, const char *waiting)
{
	size_t len = strlen(p->name);
	char oldest[24];

	if (p->oldest_unknown)
		snprintf(oldest, sizeof(oldest), "?");
	else
		snprintf(oldest, sizeof(oldest), "%" PRIu64, p->oldest_wait);
	fprintf(f, "%s%*s %-7s %9" PRIu64 " %6" PRId64 " %7" PRId64 " %6" PRId64 " %12" PRIu64
		" %8" PRIu64 " %7s %8" PRIu64 " %8" PRIu64 " %11s %s %s %s\n",
		p->name, len < 30 ? (int)(30 - len) : 0, "", p->type, p->elem_size, p->min_nr,
		p->curr_nr, p->low_nr, p->nr_reserve, p->nr_wait, waiting, p->nr_fail,
		p->nr_empty, oldest, p->owner, p->instance, p->site);
}

void kmp_report_pool(FILE *f, const struct kmp_pool *p)
{
	char waiting[24];

	/* An uncounted wait queue is "?", never a number that may be wrong. */
	if (p->waiting_unknown)
		snprintf(waiting, sizeof(waiting), "?");
	else
		snprintf(waiting, sizeof(waiting), "%" PRIu64, p->waiting);
	if (p->v6) {
		report_pool_v6(f, p, waiting);
		return;
	}
	fprintf(f, "%-24s %-7s %9" PRIu64 " %6" PRId64 " %7" PRId64 " %6" PRId64
		" %12" PRIu64 " %8" PRIu64 " %7s %s",
		p->name, p->type, p->elem_size, p->min_nr, p->curr_nr, p->low_nr,
		p->nr_reserve, p->nr_wait, waiting, p->owner);
	if (p->v11)
		fprintf(f, " %" PRIu64 " %" PRIu64, p->nr_fail, p->nr_empty);
	if (p->v12 && p->oldest_unknown)
		fprintf(f, " ? %s", p->instance);
	else if (p->v12)
		fprintf(f, " %" PRIu64 " %s", p->oldest_wait, p->instance);
	fputc('\n', f);
}

void kmp_report_text(FILE *f, const char *version, const struct kmp_pools *pools)
{
	kmp_report_header(f, version);
	for (size_t i = 0; i < pools->n; i++)
		kmp_report_pool(f, &pools->v[i]);
}

/*
 * The UTF-8 sequence at @p: its length (0: none), its code point in *@cp.
 * Strict (RFC 3629): no overlong forms, no surrogates, at most U+10FFFF.
 */
static size_t utf8_seq(const unsigned char *p, uint32_t *cp)
{
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc0 ? 2 : 0;

	if (*p < 0x80) {
		*cp = *p;
		return 1;
	}
	if (!n || *p > 0xf4)
		return 0;
	*cp = *p & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* also the NUL */
			return 0;
		*cp = *cp << 6 | (p[i] & 0x3f);
	}
	if (*cp < min[n] || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

static bool utf8_valid(const unsigned char *s)
{
	uint32_t cp;
	size_t n;

	for (; *s; s += n)
		if (!(n = utf8_seq(s, &cp)))
			return false;
	return true;
}

/* One character of a JSON string, as ASCII. */
static void json_char(FILE *f, uint32_t cp)
{
	if (cp == '"' || cp == '\\')
		fprintf(f, "\\%c", (int)cp);
	else if (cp >= 0x20 && cp < 0x7f)
		fputc((int)cp, f);
	else if (cp < 0x10000)
		fprintf(f, "\\u%04x", (unsigned int)cp);
	else	/* a surrogate pair */
		fprintf(f, "\\u%04x\\u%04x", (unsigned int)(0xd800 + ((cp - 0x10000) >> 10)),
			(unsigned int)(0xdc00 + ((cp - 0x10000) & 0x3ff)));
}

void kmp_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	bool utf8 = utf8_valid(p);
	uint32_t cp;

	fputc('"', f);
	while (*p) {
		if (utf8)
			p += utf8_seq(p, &cp);
		else
			cp = *p++;	/* ISO 8859-1: byte 0xNN is U+00NN */
		json_char(f, cp);
	}
	fputc('"', f);
}

/* "-" (none, as /proc/mempool prints it) is null in JSON. */
static void json_string_or_null(FILE *f, const char *s)
{
	if (!strcmp(s, "-"))
		fputs("null", f);
	else
		kmp_json_string(f, s);
}

void kmp_json_pool(FILE *f, const struct kmp_pool *p)
{
	kmp_json_pool_open(f, p);
	fputc('}', f);
}

void kmp_json_pool_head(FILE *f, const struct kmp_json_poolhead *h)
{
	fprintf(f, "{\"address\": \"0x%" PRIx64 "\", \"name\": ", h->addr);
	kmp_json_string(f, h->name);
	fputs(", \"type\": ", f);
	kmp_json_string(f, h->type);
	if (h->have_elem_size)
		fprintf(f, ", \"elem_size\": %" PRIu64, h->elem_size);
	else
		fputs(", \"elem_size\": null", f);
	fprintf(f, ", \"min_nr\": %" PRId64 ", \"curr_nr\": %" PRId64, h->min_nr, h->curr_nr);
	if (h->have_counters)
		fprintf(f, ", \"low_nr\": %" PRId64 ", \"from_reserve\": %" PRIu64 ", \"waits\": %"
			PRIu64, h->low_nr, h->nr_reserve, h->nr_wait);
	else
		fputs(", \"low_nr\": null, \"from_reserve\": null, \"waits\": null", f);
	if (h->have_waiting)
		fprintf(f, ", \"waiting\": %" PRIu64, h->waiting);
	else
		fputs(", \"waiting\": null", f);
}

void kmp_json_pool_open(FILE *f, const struct kmp_pool *p)
{
	const struct kmp_json_poolhead h = {
		.addr = p->addr, .name = p->name, .type = p->type,
		.have_elem_size = true, .elem_size = p->elem_size,
		.min_nr = p->min_nr, .curr_nr = p->curr_nr,
		.have_counters = true, .low_nr = p->low_nr, .nr_reserve = p->nr_reserve,
		.nr_wait = p->nr_wait,
		.have_waiting = !p->waiting_unknown, .waiting = p->waiting,
	};

	kmp_json_pool_head(f, &h);
	fputs(", \"owner\": ", f);
	json_string_or_null(f, p->owner);
	if (p->v11)
		fprintf(f, ", \"failed\": %" PRIu64 ", \"emptied\": %" PRIu64, p->nr_fail,
			p->nr_empty);
	if (p->v12) {
		fputs(", \"oldest_wait\": ", f);
		if (p->oldest_unknown)
			fputs("null", f);
		else
			fprintf(f, "%" PRIu64, p->oldest_wait);
		fputs(", \"instance\": ", f);
		json_string_or_null(f, p->instance);
	}
	if (p->v6) {
		/* Series v6: where the pool was set up (name, owner, instance as the table prints them). */
		fputs(", \"site\": ", f);
		kmp_json_string(f, p->site);
		fputs(", \"file\": ", f);
		kmp_json_string(f, p->file);
		fprintf(f, ", \"line\": %" PRIu64 ", \"function\": ", p->line);
		kmp_json_string(f, p->function);
		fputs(", \"kind\": ", f);
		if (p->kind)
			kmp_json_string(f, p->kind);
		else
			fputs("null", f);
	}
}
