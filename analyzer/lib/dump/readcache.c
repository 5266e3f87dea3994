// SPDX-License-Identifier: GPL-2.0
/* kmempool: a few pages of a live reader kept for one walk; see readcache.h. */
#include <stdlib.h>
#include <string.h>

#include "readcache.h"

/*
 * The bytes of the page at @page, from its line, read on a miss: the whole
 * line at once, or the page alone when the line cannot be read whole (it
 * crosses the end of what the reader maps); NULL if the page is unreadable.
 */
static const unsigned char *page_of(struct kmp_readcache *rc, uint64_t page)
{
	uint64_t line = page & ~(KMP_RC_LINE - 1);
	unsigned int idx = (unsigned int)((page - line) / KMP_RC_PAGE), s;
	uint8_t bit = (uint8_t)(1u << idx);
	const unsigned char *p;
	struct kmp_err why;

	for (unsigned int h = 0; h < KMP_RC_HINTS; h++)
		if (rc->hint[h] && rc->hint_page[h] == page)
			return rc->hint[h];
	for (s = 0; s < KMP_RC_SLOTS; s++) {
		if (rc->have[s] && rc->line[s] == line)
			break;
	}
	if (s == KMP_RC_SLOTS) {
		s = rc->next;
		rc->next = (rc->next + 1) % KMP_RC_SLOTS;
		rc->line[s] = line;
		rc->have[s] = 0;
		memset(rc->hint, 0, sizeof(rc->hint));
		if (kmp_read(rc->under, line, rc->data[s], KMP_RC_LINE, &why))
			rc->have[s] = 0xff;
	}
	if (!(rc->have[s] & bit)) {
		if (!kmp_read(rc->under, page, rc->data[s] + idx * KMP_RC_PAGE, KMP_RC_PAGE, &why))
			return NULL;
		rc->have[s] |= bit;
	}
	p = rc->data[s] + idx * KMP_RC_PAGE;
	rc->hint_page[rc->next_hint] = page;
	rc->hint[rc->next_hint] = p;
	rc->next_hint = (rc->next_hint + 1) % KMP_RC_HINTS;
	return p;
}

static bool rc_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		    struct kmp_err *err)
{
	struct kmp_readcache *rc = mem->priv;
	unsigned char *out = buf;

	while (len) {
		uint64_t page = addr & ~(KMP_RC_PAGE - 1), in = addr - page;
		size_t n = len < KMP_RC_PAGE - in ? len : (size_t)(KMP_RC_PAGE - in);
		const unsigned char *p = page_of(rc, page);

		/* A page that cannot be read whole: the bytes asked for, as the reader gives them. */
		if (!p) {
			if (!kmp_read(rc->under, addr, out, n, err))
				return false;
		} else {
			memcpy(out, p + in, n);
		}
		out += n;
		addr += n;
		len -= n;
	}
	return true;
}

static const struct kmp_mem_ops rc_ops = {
	.read = rc_read,
};

struct kmp_readcache *kmp_readcache_new(struct kmp_mem *under)
{
	struct kmp_readcache *rc = malloc(sizeof(*rc));

	if (!rc)
		return NULL;
	rc->mem = (struct kmp_mem){ .ops = &rc_ops, .priv = rc, .live = under->live };
	rc->under = under;
	kmp_readcache_reset(rc);
	return rc;
}

void kmp_readcache_reset(struct kmp_readcache *rc)
{
	memset(rc->have, 0, sizeof(rc->have));
	memset(rc->hint, 0, sizeof(rc->hint));
	rc->next = 0;
	rc->next_hint = 0;
}

void kmp_readcache_free(struct kmp_readcache *rc)
{
	free(rc);
}

void kmp_spans_reset(struct kmp_spans *s)
{
	s->n = 0;
}

bool kmp_spans_add(struct kmp_spans *s, uint64_t addr, uint64_t len)
{
	uint64_t page = addr & ~(KMP_RC_PAGE - 1);

	if (!len || addr > UINT64_MAX - len || ((addr + len - 1) & ~(KMP_RC_PAGE - 1)) != page)
		return false;
	for (size_t i = 0; i < s->n; i++) {
		struct kmp_span *v = &s->v[i];

		if (v->page == page) {
			v->lo = addr < v->lo ? addr : v->lo;
			v->hi = addr + len > v->hi ? addr + len : v->hi;
			return true;
		}
	}
	if (s->n == KMP_SPANS_MAX)
		return false;
	s->v[s->n++] = (struct kmp_span){ .page = page, .lo = addr, .hi = addr + len };
	return true;
}

static int by_lo(const void *a, const void *b, void *arg)
{
	const struct kmp_span *v = arg;
	uint64_t x = v[*(const uint16_t *)a].lo, y = v[*(const uint16_t *)b].lo;

	return x < y ? -1 : x > y;
}

/*
 * The run of spans (in address order) that starts at the @i-th: the index
 * past its last span, and its end in *@hi.  A span joins the run before it
 * when it starts at most KMP_SPANS_GAP bytes after the run's end and the
 * run stays within KMP_SPANS_RUN bytes.
 */
static size_t run_end(const struct kmp_spans *s, size_t i, uint64_t *hi)
{
	uint64_t lo = s->v[s->by_addr[i]].lo;
	size_t j;

	*hi = s->v[s->by_addr[i]].hi;
	for (j = i + 1; j < s->n; j++) {
		const struct kmp_span *v = &s->v[s->by_addr[j]];

		if ((v->lo > *hi && v->lo - *hi > KMP_SPANS_GAP) || v->hi - lo > KMP_SPANS_RUN)
			break;
		*hi = v->hi > *hi ? v->hi : *hi;
	}
	return j;
}

/*
 * Each run read with one call, its bytes kept whole in data and each
 * span's at its place in them; when a run cannot be read whole, each of
 * its spans is read alone.
 */
bool kmp_spans_read(struct kmp_spans *s, struct kmp_mem *mem)
{
	size_t total = 0, i, j;
	struct kmp_err why;
	uint64_t hi;

	for (i = 0; i < s->n; i++)
		s->by_addr[i] = (uint16_t)i;
	if (s->n > 1)
		qsort_r(s->by_addr, s->n, sizeof(*s->by_addr), by_lo, s->v);
	for (i = 0; i < s->n; i = j) {
		uint64_t lo = s->v[s->by_addr[i]].lo;

		j = run_end(s, i, &hi);
		for (size_t k = i; k < j; k++)
			s->v[s->by_addr[k]].off = total + (size_t)(s->v[s->by_addr[k]].lo - lo);
		total += (size_t)(hi - lo);	/* at most KMP_SPANS_RUN */
	}
	if (total > s->cap) {
		unsigned char *d = realloc(s->data, total);

		if (!d)
			return false;
		s->data = d;
		s->cap = total;
	}
	for (i = 0; i < s->n; i = j) {
		const struct kmp_span *first = &s->v[s->by_addr[i]];
		bool whole;

		j = run_end(s, i, &hi);
		whole = kmp_read(mem, first->lo, s->data + first->off, hi - first->lo, &why);
		for (size_t k = i; k < j; k++) {
			struct kmp_span *v = &s->v[s->by_addr[k]];

			v->ok = whole || kmp_read(mem, v->lo, s->data + v->off, v->hi - v->lo, &why);
		}
	}
	return true;
}

const unsigned char *kmp_spans_get(const struct kmp_spans *s, uint64_t addr, uint64_t len)
{
	for (size_t i = 0; s && i < s->n; i++) {
		const struct kmp_span *v = &s->v[i];

		if (v->ok && addr >= v->lo && addr <= v->hi && len <= v->hi - addr)
			return s->data + v->off + (addr - v->lo);
	}
	return NULL;
}

void kmp_spans_free(struct kmp_spans *s)
{
	if (s)
		free(s->data);
	free(s);
}
