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
	/* series v7: the id column appended, ':' escaped in names */
	{ "1.1", "# name                         type    elem_size min_nr curr_nr low_nr from_reserve    waits waiting   failed  emptied oldest_wait owner instance site id" },
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
	kmp_seterr(err, KMP_ERR_FORMAT, "this series v6 or v7 kernel's /proc/mempool format is "
		   "version '%.15s' with the column line '%.200s'; kmempool knows series v6's 1.0 "
		   "and v7's 1.1 with their column lines only", version, columns);
	return false;
}

const char *kmp_format_of_layout(const struct kmp_layout *l)
{
	if (l->v7)
		return "1.1";
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
 * A row built in a buffer and written with one call: printf() was the
 * largest cost of a live walk of 100,000 pools.  Each piece is what the
 * printf() conversion named beside it would give, byte for byte: a
 * string or number right-aligned (%Ns), left-aligned (%-Ns), never cut.
 */
struct row {
	FILE *f;
	size_t n;
	char b[1024];
};

/* Room for @len more bytes, the row so far written out if need be; false: @len never fits. */
static bool row_room(struct row *r, size_t len)
{
	if (len <= sizeof(r->b) - r->n)
		return true;
	fwrite(r->b, 1, r->n, r->f);
	r->n = 0;
	return len <= sizeof(r->b);
}

static void row_put(struct row *r, const char *s, size_t len)
{
	if (!row_room(r, len)) {
		fwrite(s, 1, len, r->f);
		return;
	}
	memcpy(r->b + r->n, s, len);
	r->n += len;
}

/* @k spaces. */
static void row_pad(struct row *r, size_t k)
{
	while (k) {
		size_t n = k < 64 ? k : 64;

		row_room(r, n);
		memset(r->b + r->n, ' ', n);
		r->n += n;
		k -= n;
	}
}

/* " " then @s (@len bytes) in @width: %*s (@left false) or %-*s (@left true). */
static void row_strn(struct row *r, const char *s, size_t len, size_t width, bool left)
{
	size_t pad = len < width ? width - len : 0;

	if (row_room(r, 1 + pad + len)) {
		char *o = r->b + r->n;

		*o++ = ' ';
		if (!left) {
			memset(o, ' ', pad);
			o += pad;
		}
		memcpy(o, s, len);
		o += len;
		if (left) {
			memset(o, ' ', pad);
			o += pad;
		}
		r->n = (size_t)(o - r->b);
		return;
	}
	row_put(r, " ", 1);
	if (!left)
		row_pad(r, pad);
	row_put(r, s, len);
	if (left)
		row_pad(r, pad);
}

static void row_str(struct row *r, const char *s, size_t width, bool left)
{
	row_strn(r, s, strlen(s), width, left);
}

/* " " then %*PRIu64, or %*PRId64 when @neg (the magnitude in @v). */
static void row_num(struct row *r, uint64_t v, bool neg, size_t width)
{
	char t[24];
	size_t i = sizeof(t);

	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		t[--i] = '-';
	row_strn(r, t + i, sizeof(t) - i, width, false);
}

static void row_u(struct row *r, uint64_t v, size_t width)
{
	row_num(r, v, false, width);
}

static void row_end(struct row *r)
{
	row_put(r, "\n", 1);
	fwrite(r->b, 1, r->n, r->f);
}

/* A right-aligned column, " %*" of @width: the number @v (negative: @neg) or, if set, @s. */
struct col {
	uint64_t v;
	const char *s;
	bool neg;
	unsigned char width;
};

static struct col col_u(uint64_t v, unsigned char width)
{
	return (struct col){ v, NULL, false, width };
}

static struct col col_d(int64_t v, unsigned char width)
{
	return (struct col){ v < 0 ? -(uint64_t)v : (uint64_t)v, NULL, v < 0, width };
}

/* "?" for a count not known, never a number that may be wrong. */
static struct col col_or_unknown(uint64_t v, bool unknown, unsigned char width)
{
	return (struct col){ v, unknown ? "?" : NULL, false, width };
}

/* @c's value written to end at @end, in its width; false if it is wider. */
static bool col_at(char *end, const struct col *c)
{
	char *p = end, *lim = end - c->width;
	uint64_t v = c->v;

	if (c->s) {
		size_t len = strlen(c->s);

		if (len > c->width)
			return false;
		memcpy(end - len, c->s, len);
		return true;
	}
	do {
		if (p == lim)
			return false;
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (c->neg) {
		if (p == lim)
			return false;
		*--p = '-';
	}
	return true;
}

/*
 * A run of columns: laid as spaces in one go, each value written into its
 * place; a value wider than its column (never in a table that lines up)
 * sends the run through row_strn(), which widens it as printf() would.
 */
static void row_cols(struct row *r, const struct col *c, size_t n)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += 1 + (size_t)c[i].width;
	if (row_room(r, total)) {
		char *end = r->b + r->n;
		size_t i;

		memset(end, ' ', total);
		for (i = 0; i < n; i++) {
			end += 1 + (size_t)c[i].width;
			if (!col_at(end, &c[i]))
				break;
		}
		if (i == n) {
			r->n += total;
			return;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (c[i].s)
			row_str(r, c[i].s, c[i].width, false);
		else
			row_num(r, c[i].v, c[i].neg, c[i].width);
	}
}

/*
 * The columns every version starts with: "%-*s %-7s %9u %6d %7d %6d %12u
 * %8u %7s", the name left-aligned in @name_width; series v6 goes on with
 * " %8u %8u %11lu" (@v6).
 */
static void row_common(struct row *r, const struct kmp_pool *p, size_t name_width, bool v6)
{
	size_t len = strlen(p->name);
	const struct col c[] = {
		col_u(p->elem_size, 9), col_d(p->min_nr, 6), col_d(p->curr_nr, 7),
		col_d(p->low_nr, 6), col_u(p->nr_reserve, 12), col_u(p->nr_wait, 8),
		col_or_unknown(p->waiting, p->waiting_unknown, 7),
		col_u(p->nr_fail, 8), col_u(p->nr_empty, 8),
		col_or_unknown(p->oldest_wait, p->oldest_unknown, 11),
	};

	row_put(r, p->name, len);
	row_pad(r, len < name_width ? name_width - len : 0);
	row_str(r, p->type, 7, true);
	row_cols(r, c, v6 ? 10 : 7);
}

/*
 * Series v6: mempool_seq_show()'s row, the name padded to 30 by its
 * escaped length, then "%-7s %9zu %6d %7d %6d %12u %8u %7u %8u %8u %11lu ",
 * owner, instance and site.
 */
static void report_pool_v6(FILE *f, const struct kmp_pool *p)
{
	struct row r = { .f = f };

	row_common(&r, p, 30, true);
	row_str(&r, p->owner, 0, false);
	row_str(&r, p->instance, 0, false);
	row_str(&r, p->site, 0, false);
	if (p->v7)
		row_u(&r, p->id, 0);
	row_end(&r);
}

void kmp_report_pool(FILE *f, const struct kmp_pool *p)
{
	struct row r = { .f = f };

	if (p->v6) {
		report_pool_v6(f, p);
		return;
	}
	/* "%-24s ... %7s %s", then the later versions' columns */
	row_common(&r, p, 24, false);
	row_str(&r, p->owner, 0, false);
	if (p->v11) {
		row_u(&r, p->nr_fail, 0);
		row_u(&r, p->nr_empty, 0);
	}
	if (p->v12) {
		if (p->oldest_unknown)
			row_str(&r, "?", 0, false);
		else
			row_u(&r, p->oldest_wait, 0);
		row_str(&r, p->instance, 0, false);
	}
	row_end(&r);
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
