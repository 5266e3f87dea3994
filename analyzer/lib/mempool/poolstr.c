// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: a pool's strings, read during the walk: series v5's name,
 * owner and instance, series v6's from its code tag; and the copies a
 * caller keeps.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "namerule.h"
#include "poolwalk.h"
#include "tagname.h"

void kmp_pw_free_strs(struct kmp_pw_str *v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free(v[i].bytes);
	*n = 0;
}

/*
 * kmp_read_long_string() through the walk's reader; on live memory the
 * bytes are kept in a->cur, to be compared with a read made after the
 * pool is checked again (a pool freed and made again at the same address,
 * with the same links, tag and string address, shows in its string).
 */
static int read_str(struct kmp_pw *a, uint64_t ptr, size_t max, char **s, size_t *len,
		    struct kmp_err *err)
{
	int rc = kmp_read_long_string(a->mem, ptr, max, s, len, err);

	if (rc == KMP_STR_OK && a->mem->live && a->ncur < KMP_PW_STRS_MAX) {
		struct kmp_pw_str *c = &a->cur[a->ncur];

		c->bytes = malloc(*len + 1);
		if (!c->bytes) {
			free(*s);
			*s = NULL;
			kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
			return KMP_STR_NOMEM;
		}
		memcpy(c->bytes, *s, *len + 1);
		c->ptr = ptr;
		c->len = *len;
		a->ncur++;
	}
	return rc;
}

/*
 * Read the string of @what ("name", "owner") of the pool at @addr into
 * *@s.  Returns 1 if it is a valid name, 0 if it breaks the kernel's rule
 * (@why says how), -1 if it cannot be read (@err set).
 */
static int pool_string(struct kmp_pw *a, uint64_t addr, const char *what, uint64_t ptr,
		       size_t max, char **s, char *why, size_t whylen, struct kmp_err *err)
{
	struct kmp_err rerr;
	size_t len = 0;

	switch (read_str(a, ptr, max, s, &len, &rerr)) {
	case KMP_STR_OK:
		break;
	case KMP_STR_TOO_LONG:
		snprintf(why, whylen, "has no NUL within %zu bytes", max);
		return 0;
	default:
		kmp_wraperr(err, &rerr, "%s of mempool at 0x%" PRIx64 ": %s", what, addr, rerr.msg);
		return -1;
	}
	if (!kmp_name_ok(*s, len, why, whylen)) {
		free(*s);
		*s = NULL;
		return 0;
	}
	return 1;
}

/* A string that breaks the rule: on live memory, first make sure the pool is still there. */
static bool bad_string(struct kmp_pw *a, uint64_t addr, const char *what, uint64_t ptr,
		       const char *why, struct kmp_err *err)
{
	if (a->mem->live && !kmp_pw_still_listed(a, addr, err))
		return false;
	if (!ptr)
		kmp_pw_note(a, "mempool at 0x%" PRIx64 " left out as corrupt: it has no %s (NULL "
		     "pointer)", addr, what);
	else
		kmp_pw_note(a, "mempool at 0x%" PRIx64 " left out as corrupt: its %s at 0x%" PRIx64
		     " %s", addr, what, ptr, why);
	a->st->skipped++;
	return true;
}

/* Series 5's strings (name, owner, instance): 1, 0 (left out, noted) or -1 (@err). */
int kmp_pw_v5_strings(struct kmp_pw *a, uint64_t addr, const struct kmp_poolrec *r,
		      struct kmp_pool *p, struct kmp_err *err)
{
	char *owner_s = NULL, why[128];
	int ok;

	if (!r->name)
		return bad_string(a, addr, "name", r->name, "is a NULL pointer", err) ? 0 : -1;
	ok = pool_string(a, addr, "name", r->name, KMP_NAME_MAX, &p->name, why, sizeof(why), err);
	if (ok <= 0)
		return ok == 0 && bad_string(a, addr, "name", r->name, why, err) ? 0 : -1;
	if (!r->owner) {
		snprintf(p->owner, sizeof(p->owner), "-");
	} else {
		ok = pool_string(a, addr, "owner", r->owner, KMP_OWNER_MAX, &owner_s, why,
				 sizeof(why), err);
		if (ok <= 0)
			return ok == 0 && bad_string(a, addr, "owner", r->owner, why, err) ? 0 : -1;
		snprintf(p->owner, sizeof(p->owner), "%s", owner_s);
		free(owner_s);
	}
	if (r->instance) {
		ok = pool_string(a, addr, "instance", r->instance, KMP_NAME_MAX, &p->instance, why,
				 sizeof(why), err);
		if (ok <= 0)
			return ok == 0 && bad_string(a, addr, "instance", r->instance, why, err) ?
			       0 : -1;
	} else if (!(p->instance = strdup("-"))) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return -1;
	}
	return 1;
}

/*
 * Series v6's strings, from the pool's tag and its instance, escaped as
 * mempool_seq_show() prints them: 1, 0 (left out, noted) or -1 (@err).
 */
int kmp_pw_v6_strings(struct kmp_pw *a, uint64_t addr, const struct kmp_poolrec *r,
		      struct kmp_pool *p, struct kmp_err *err)
{
	struct kmp_tagstrs *ts;
	char why[256], *inst = NULL;
	struct kmp_err rerr;
	size_t len;
	int ok;

	if (!r->tag && a->l->v7)
		return 0;	/* series v7: a /proc/mempool reader's cursor */
	if (!r->tag)
		return kmp_pw_left_out(a, addr, "it has no tag (NULL pointer)", err) ? 0 : -1;
	ok = kmp_tag_read_cached(a->tags, a->mem, a->l, r->tag, &ts, why, sizeof(why), err);
	if (ok <= 0)
		return ok == 0 && kmp_pw_left_out(a, addr, why, err) ? 0 : -1;
	if (r->instance) {
		switch (read_str(a, r->instance, KMP_NAME_MAX, &inst, &len, &rerr)) {
		case KMP_STR_OK:
			break;
		case KMP_STR_TOO_LONG:
			kmp_tagstrs_put(ts);
			snprintf(why, sizeof(why), "its instance at 0x%" PRIx64 " has no NUL within %d "
				 "bytes", r->instance, KMP_NAME_MAX);
			return kmp_pw_left_out(a, addr, why, err) ? 0 : -1;
		default:
			kmp_tagstrs_put(ts);
			kmp_wraperr(err, &rerr, "instance of mempool at 0x%" PRIx64 ": %s", addr,
				    rerr.msg);
			return -1;
		}
	}
	p->instance = inst ? kmp_escape_word_take(inst) : kmp_escape_word("-");
	/* snprintf("%s")'s copy, cut to the buffer, without printf's cost a pool. */
	len = strnlen(ts->t.owner, sizeof(p->owner) - 1);
	memcpy(p->owner, ts->t.owner, len);
	p->owner[len] = '\0';
	p->tagstrs = ts;
	p->name = ts->t.name;
	p->site = ts->t.site;
	p->function = ts->t.function;
	p->file = ts->t.file;
	p->kind = ts->t.kind;
	p->line = ts->t.line;
	p->v6 = true;
	if (!p->instance) {
		kmp_pool_free_strings(p);
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return -1;
	}
	return 1;
}

void kmp_pool_free_strings(struct kmp_pool *p)
{
	free(p->instance);
	if (p->tagstrs) {
		kmp_tagstrs_put(p->tagstrs);
	} else {
		free(p->name);
		free(p->site);
		free(p->function);
		free(p->file);
		free(p->kind);
	}
	p->name = p->instance = p->site = p->function = p->file = p->kind = NULL;
	p->tagstrs = NULL;
}

/* A copy of @s, or NULL for NULL; false when out of memory. */
static bool dup_or_null(char **out, const char *s)
{
	*out = s ? strdup(s) : NULL;
	return !s || *out;
}

bool kmp_pool_dup_strings(struct kmp_pool *q, const struct kmp_pool *p)
{
	bool ok = dup_or_null(&q->instance, p->instance);

	if (p->tagstrs) {
		/* The tag's block is shared: another reference, the same pointers. */
		q->tagstrs = kmp_tagstrs_get(p->tagstrs);
	} else {
		q->tagstrs = NULL;
		ok = dup_or_null(&q->name, p->name) && ok;
		ok = dup_or_null(&q->site, p->site) && ok;
		ok = dup_or_null(&q->function, p->function) && ok;
		ok = dup_or_null(&q->file, p->file) && ok;
		ok = dup_or_null(&q->kind, p->kind) && ok;
	}
	if (!ok)
		kmp_pool_free_strings(q);
	return ok;
}
