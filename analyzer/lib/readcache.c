// SPDX-License-Identifier: GPL-2.0
/* kmempool: a few pages of a live reader kept for one walk; see readcache.h. */
#include <stdlib.h>
#include <string.h>

#include "readcache.h"

/* The slot holding the page at @page, filled from the reader on a miss; -1 if unreadable. */
static int slot_of(struct kmp_readcache *rc, uint64_t page)
{
	struct kmp_err why;
	unsigned int s;

	for (s = 0; s < KMP_RC_SLOTS; s++) {
		if (rc->valid[s] && rc->page[s] == page)
			return (int)s;
	}
	s = rc->next;
	rc->next = (rc->next + 1) % KMP_RC_SLOTS;
	rc->valid[s] = false;
	if (!kmp_read(rc->under, page, rc->data[s], KMP_RC_PAGE, &why))
		return -1;
	rc->page[s] = page;
	rc->valid[s] = true;
	return (int)s;
}

static bool rc_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		    struct kmp_err *err)
{
	struct kmp_readcache *rc = mem->priv;
	unsigned char *out = buf;

	while (len) {
		uint64_t page = addr & ~(KMP_RC_PAGE - 1), in = addr - page;
		size_t n = len < KMP_RC_PAGE - in ? len : (size_t)(KMP_RC_PAGE - in);
		int s = slot_of(rc, page);

		/* A page that cannot be read whole: the bytes asked for, as the reader gives them. */
		if (s < 0) {
			if (!kmp_read(rc->under, addr, out, n, err))
				return false;
		} else {
			memcpy(out, rc->data[s] + in, n);
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
	memset(rc->valid, 0, sizeof(rc->valid));
	rc->next = 0;
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

bool kmp_spans_read(struct kmp_spans *s, struct kmp_mem *mem)
{
	size_t total = 0;
	struct kmp_err why;

	for (size_t i = 0; i < s->n; i++) {
		s->v[i].off = total;
		total += (size_t)(s->v[i].hi - s->v[i].lo);	/* at most a page each */
	}
	if (total > s->cap) {
		unsigned char *d = realloc(s->data, total);

		if (!d)
			return false;
		s->data = d;
		s->cap = total;
	}
	for (size_t i = 0; i < s->n; i++)
		s->v[i].ok = kmp_read(mem, s->v[i].lo, s->data + s->v[i].off,
				      s->v[i].hi - s->v[i].lo, &why);
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
