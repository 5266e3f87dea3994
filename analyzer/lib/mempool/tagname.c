// SPDX-License-Identifier: GPL-2.0
/* kmempool: a series v6 pool's tag, read from a dump and escaped like the kernel. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "layout_check.h"
#include "tagname.h"

/*
 * The bytes seq_escape() escapes in mempool_seq_word(): string_escape_mem()
 * with ESCAPE_OCTAL and this @only set passes every byte not in it through
 * and writes those in it as \ooo (lib/string_helpers.c).
 */
static const bool escaped_byte[256] = {
	[' '] = true, ['\t'] = true, ['\n'] = true, ['\v'] = true, ['\f'] = true, ['\r'] = true,
	['\\'] = true,
};

/* The length of @s escaped; *@plain: no byte of it needs escaping. */
static size_t escaped_len(const char *s, bool *plain)
{
	size_t n = 0, extra = 0;

	for (const unsigned char *c = (const unsigned char *)s; *c; c++, n++)
		extra += escaped_byte[*c] ? 3 : 0;
	*plain = !extra;
	return n + extra;
}

/* @s escaped into @out, which has room for it and a NUL. */
static void escape_into(char *out, const char *s)
{
	char *p = out;

	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (!escaped_byte[*c]) {
			*p++ = (char)*c;
			continue;
		}
		*p++ = '\\';
		*p++ = (char)('0' + ((*c >> 6) & 7));
		*p++ = (char)('0' + ((*c >> 3) & 7));
		*p++ = (char)('0' + (*c & 7));
	}
	*p = '\0';
}

char *kmp_escape_word(const char *s)
{
	bool plain;
	size_t n = escaped_len(s, &plain);
	char *out = malloc(n + 1);

	if (out)
		escape_into(out, s);
	return out;
}

char *kmp_escape_word_take(char *s)
{
	bool plain;
	size_t n = escaped_len(s, &plain);
	char *out;

	if (plain)
		return s;
	out = malloc(n + 1);
	if (out)
		escape_into(out, s);
	free(s);
	return out;
}

int kmp_read_long_string(struct kmp_mem *mem, uint64_t addr, size_t max, char **out,
			 size_t *len, struct kmp_err *err)
{
	size_t done = 0, cap = 0;
	char *buf = NULL;

	*out = NULL;
	while (done < max) {
		/* Chunks end at 64-byte boundaries: a short string before an unreadable page reads. */
		size_t chunk = 64 - ((addr + done) & 63);
		char *nul;

		if (chunk > max - done)
			chunk = max - done;
		if (done + chunk > cap) {
			size_t ncap = cap ? cap * 2 : 128;
			char *nbuf;

			while (ncap < done + chunk)
				ncap *= 2;
			nbuf = realloc(buf, ncap);
			if (!nbuf) {
				free(buf);
				kmp_seterr(err, KMP_ERR_NOMEM, "out of memory reading a string of %zu bytes", done);
				return KMP_STR_NOMEM;
			}
			buf = nbuf;
			cap = ncap;
		}
		if (!kmp_read(mem, addr + done, buf + done, chunk, err)) {
			free(buf);
			return KMP_STR_FAULT;
		}
		nul = memchr(buf + done, '\0', chunk);
		if (nul) {
			*len = (size_t)(nul - buf);
			*out = buf;
			return KMP_STR_OK;
		}
		done += chunk;
	}
	free(buf);
	return KMP_STR_TOO_LONG;
}

/* One string of the tag at @tag: 1, 0 (@why), -1 (@err); a NULL pointer is 1 with *@s NULL. */
static int tag_string(struct kmp_mem *mem, uint64_t tag, const char *what, uint64_t ptr,
		      size_t max, char **s, char *why, size_t whylen, struct kmp_err *err)
{
	struct kmp_err rerr;
	size_t len;

	*s = NULL;
	if (!ptr)
		return 1;
	switch (kmp_read_long_string(mem, ptr, max, s, &len, &rerr)) {
	case KMP_STR_OK:
		return 1;
	case KMP_STR_TOO_LONG:
		snprintf(why, whylen, "its %s at 0x%" PRIx64 " has no NUL within %zu bytes", what,
			 ptr, max);
		return 0;
	default:
		kmp_wraperr(err, &rerr, "%s of mempool_tag at 0x%" PRIx64 ": %s", what, tag, rerr.msg);
		return -1;
	}
}

void kmp_tagnames_free(struct kmp_tagnames *t)
{
	free(t->name);
	free(t->owner);
	free(t->site);
	free(t->function);
	free(t->file);
	free(t->kind);
	memset(t, 0, sizeof(*t));
}

/*
 * Series v7 escapes ':' too in a name and a kind (mempool_seq_word() with
 * its colon set), so that "name:kind" parses: @s as kmp_escape_word(),
 * with each ':' as \072.
 */
static char *escape_word_colon(const char *s)
{
	size_t colons = 0;
	char *w, *out, *o;

	for (const char *c = s; *c; c++)
		colons += *c == ':';
	w = kmp_escape_word(s);
	if (!w || !colons)
		return w;
	out = malloc(strlen(w) + 3 * colons + 1);
	if (out) {
		o = out;
		for (const char *c = w; *c; c++) {
			if (*c != ':') {
				*o++ = *c;
				continue;
			}
			memcpy(o, "\\072", 4);
			o += 4;
		}
		*o = '\0';
	}
	free(w);
	return out;
}

/*
 * The escaped columns from the raw strings (@tname: the tag's name, may be
 * NULL; @colon: series v7, ':' escaped in name and kind).
 */
static bool escape_all(struct kmp_tagnames *t, const char *tname, const char *modname,
		       bool colon)
{
	char *(*esc)(const char *) = colon ? escape_word_colon : kmp_escape_word;
	char *name = esc(tname ? tname : t->function);
	char *kind = t->kind ? esc(t->kind) : NULL;
	char *file = kmp_escape_word(t->file);
	bool ok = name && file && (!t->kind || kind);

	t->owner = kmp_escape_word(modname ? modname : "-");
	ok = ok && t->owner;
	if (ok) {
		size_t n = strlen(name) + (kind ? strlen(kind) + 1 : 0) + 1;

		t->name = malloc(n);
		t->site = malloc(strlen(file) + 24);
		ok = t->name && t->site;
		if (ok) {
			snprintf(t->name, n, "%s%s%s", name, kind ? ":" : "", kind ? kind : "");
			sprintf(t->site, "%s:%" PRIu64, file, t->line);
		}
	}
	free(name);
	free(kind);
	free(file);
	return ok;
}

/* The tag at @tag from its bytes @buf (@len of them): as kmp_tag_read(). */
static int tag_from_bytes(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t tag,
			  const unsigned char *buf, size_t len, struct kmp_tagnames *t, char *why,
			  size_t whylen, struct kmp_err *err)
{
	uint64_t name, kind, modname, function, file, line;
	char *tname = NULL, *mname = NULL;
	int rc = -1;

	if (!kmp_field_get(buf, len, &l->mtag_name, &name, err) ||
	    !kmp_field_get(buf, len, &l->mtag_kind, &kind, err) ||
	    !kmp_field_get(buf, len, &l->mtag_modname, &modname, err) ||
	    !kmp_field_get(buf, len, &l->mtag_function, &function, err) ||
	    !kmp_field_get(buf, len, &l->mtag_filename, &file, err) ||
	    !kmp_field_get(buf, len, &l->mtag_lineno, &line, err))
		goto out;
	t->line = line;
	rc = 0;
	/* What the kernel prints unconditionally: a NULL there would oops mempool_seq_show(). */
	if (!file || (!name && !function)) {
		snprintf(why, whylen, "its tag at 0x%" PRIx64 " has no %s (NULL pointer)", tag,
			 !file ? "file name" : "name or function");
		goto out;
	}
	if ((rc = tag_string(mem, tag, "name", name, KMP_TAGSTR_MAX, &tname, why, whylen, err)) <= 0 ||
	    (rc = tag_string(mem, tag, "function", function, KMP_TAGSTR_MAX, &t->function, why,
			     whylen, err)) <= 0 ||
	    (rc = tag_string(mem, tag, "kind", kind, KMP_TAGSTR_MAX, &t->kind, why, whylen,
			     err)) <= 0 ||
	    (rc = tag_string(mem, tag, "file name", file, KMP_TAGSTR_MAX, &t->file, why, whylen,
			     err)) <= 0 ||
	    (rc = tag_string(mem, tag, "module name", modname, KMP_MODNAME_READ_MAX, &mname, why,
			     whylen, err)) <= 0)
		goto out;
	if (!t->function) {
		/* A tag with a name and no function: JSON's function is then "" (never printed). */
		t->function = strdup("");
	}
	if (!t->function || !escape_all(t, tname, mname, l->v7)) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		rc = -1;
	}
out:
	free(tname);
	free(mname);
	return rc;
}

/* The tag's bytes, in a malloc'ed buffer of l->mtag_size; NULL with @err. */
static unsigned char *tag_bytes(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t tag,
				struct kmp_err *err)
{
	size_t len = l->mtag_size;
	unsigned char *buf;

	if (!len || len > KMP_MAX_STRUCT) {
		kmp_seterr(err, KMP_ERR_FORMAT, "no usable struct mempool_tag in the debug info");
		return NULL;
	}
	buf = malloc(len);
	if (!buf) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (!kmp_read(mem, tag, buf, len, err)) {
		struct kmp_err cause = *err;

		kmp_wraperr(err, &cause, "mempool_tag at 0x%" PRIx64 ": %s", tag, cause.msg);
		free(buf);
		return NULL;
	}
	return buf;
}

struct kmp_tagstrs *kmp_tagstrs_get(struct kmp_tagstrs *s)
{
	s->refs++;
	return s;
}

void kmp_tagstrs_put(struct kmp_tagstrs *s)
{
	if (s && !--s->refs)
		free(s);
}

/* @s copied to @at, which moves past it; the copy. */
static char *pack_one(char **at, const char *s)
{
	size_t n = strlen(s) + 1;
	char *out = *at;

	memcpy(out, s, n);
	*at += n;
	return out;
}

/* @t's strings in one counted block (one reference); NULL when out of memory. */
static struct kmp_tagstrs *tagstrs_pack(const struct kmp_tagnames *t)
{
	const char *const strs[] = { t->name, t->owner, t->site, t->function, t->file };
	size_t n = t->kind ? strlen(t->kind) + 1 : 0;
	struct kmp_tagstrs *s;
	char *at;

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		n += strlen(strs[i]) + 1;
	s = malloc(sizeof(*s) + n);
	if (!s)
		return NULL;
	s->refs = 1;
	at = s->data;
	s->t.name = pack_one(&at, t->name);
	s->t.owner = pack_one(&at, t->owner);
	s->t.site = pack_one(&at, t->site);
	s->t.function = pack_one(&at, t->function);
	s->t.file = pack_one(&at, t->file);
	s->t.kind = t->kind ? pack_one(&at, t->kind) : NULL;
	s->t.line = t->line;
	return s;
}

int kmp_tag_read_cached(struct kmp_tagcache *c, struct kmp_mem *mem, const struct kmp_layout *l,
			uint64_t tag, struct kmp_tagstrs **out, char *why, size_t whylen,
			struct kmp_err *err)
{
	struct kmp_tagcache_slot *slot = NULL;
	struct kmp_tagnames t = { 0 };
	unsigned char *buf;
	int rc;

	*out = NULL;
	buf = tag_bytes(mem, l, tag, err);
	if (!buf)
		return -1;
	if (c) {
		slot = &c->slot[((tag >> 3) * 0x9e3779b97f4a7c15ULL) >> 58 & (KMP_TAGCACHE_SLOTS - 1)];
		/* The same bytes at the same address: the strings read for it before. */
		if (slot->raw && slot->addr == tag && !memcmp(slot->raw, buf, l->mtag_size)) {
			free(buf);
			c->hits++;
			*out = kmp_tagstrs_get(slot->s);
			return 1;
		}
	}
	rc = tag_from_bytes(mem, l, tag, buf, l->mtag_size, &t, why, whylen, err);
	if (rc == 1 && !(*out = tagstrs_pack(&t))) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		rc = -1;
	}
	if (rc == 1 && slot) {
		free(slot->raw);
		kmp_tagstrs_put(slot->s);
		slot->addr = tag;
		slot->raw = buf;
		slot->s = kmp_tagstrs_get(*out);
		buf = NULL;
	}
	free(buf);
	kmp_tagnames_free(&t);
	return rc;
}

int kmp_tag_read(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t tag,
		 struct kmp_tagnames *t, char *why, size_t whylen, struct kmp_err *err)
{
	unsigned char *buf = tag_bytes(mem, l, tag, err);
	int rc;

	memset(t, 0, sizeof(*t));
	if (!buf)
		return -1;
	rc = tag_from_bytes(mem, l, tag, buf, l->mtag_size, t, why, whylen, err);
	free(buf);
	if (rc != 1)
		kmp_tagnames_free(t);
	return rc;
}

void kmp_tagcache_reset(struct kmp_tagcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < KMP_TAGCACHE_SLOTS; i++) {
		free(c->slot[i].raw);
		kmp_tagstrs_put(c->slot[i].s);
		c->slot[i].raw = NULL;
		c->slot[i].s = NULL;
		c->slot[i].addr = 0;
	}
}

void kmp_tagcache_free(struct kmp_tagcache *c)
{
	kmp_tagcache_reset(c);
	free(c);
}
