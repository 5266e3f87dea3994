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
static bool escaped_byte(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' ||
	       c == '\\';
}

char *kmp_escape_word(const char *s)
{
	size_t n = 0;
	char *out, *p;

	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		n += escaped_byte(*c) ? 4 : 1;
	out = malloc(n + 1);
	if (!out)
		return NULL;
	p = out;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (!escaped_byte(*c)) {
			*p++ = (char)*c;
			continue;
		}
		*p++ = '\\';
		*p++ = (char)('0' + ((*c >> 6) & 7));
		*p++ = (char)('0' + ((*c >> 3) & 7));
		*p++ = (char)('0' + (*c & 7));
	}
	*p = '\0';
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

/* The escaped columns from the raw strings (@tname: the tag's name, may be NULL). */
static bool escape_all(struct kmp_tagnames *t, const char *tname, const char *modname)
{
	char *name = kmp_escape_word(tname ? tname : t->function);
	char *kind = t->kind ? kmp_escape_word(t->kind) : NULL;
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
	if (!t->function || !escape_all(t, tname, mname)) {
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

/* A copy of @from's strings in @to; false when out of memory (@to then empty). */
static bool tagnames_dup(struct kmp_tagnames *to, const struct kmp_tagnames *from)
{
	bool ok;

	memset(to, 0, sizeof(*to));
	to->line = from->line;
	to->name = strdup(from->name);
	to->owner = strdup(from->owner);
	to->site = strdup(from->site);
	to->function = strdup(from->function);
	to->file = strdup(from->file);
	to->kind = from->kind ? strdup(from->kind) : NULL;
	ok = to->name && to->owner && to->site && to->function && to->file &&
	     (!from->kind || to->kind);
	if (!ok)
		kmp_tagnames_free(to);
	return ok;
}

int kmp_tag_read_cached(struct kmp_tagcache *c, struct kmp_mem *mem, const struct kmp_layout *l,
			uint64_t tag, struct kmp_tagnames *t, char *why, size_t whylen,
			struct kmp_err *err)
{
	struct kmp_tagcache_slot *slot = NULL;
	unsigned char *buf;
	int rc;

	memset(t, 0, sizeof(*t));
	buf = tag_bytes(mem, l, tag, err);
	if (!buf)
		return -1;
	if (c) {
		slot = &c->slot[((tag >> 3) * 0x9e3779b97f4a7c15ULL) >> 58 & (KMP_TAGCACHE_SLOTS - 1)];
		/* The same bytes at the same address: the strings read for it before. */
		if (slot->raw && slot->addr == tag && !memcmp(slot->raw, buf, l->mtag_size)) {
			free(buf);
			c->hits++;
			if (tagnames_dup(t, &slot->t))
				return 1;
			kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
			return -1;
		}
	}
	rc = tag_from_bytes(mem, l, tag, buf, l->mtag_size, t, why, whylen, err);
	if (rc == 1 && slot) {
		struct kmp_tagnames copy;

		if (tagnames_dup(&copy, t)) {
			free(slot->raw);
			kmp_tagnames_free(&slot->t);
			slot->addr = tag;
			slot->raw = buf;
			slot->t = copy;
			buf = NULL;
		}
	}
	free(buf);
	if (rc != 1)
		kmp_tagnames_free(t);
	return rc;
}

int kmp_tag_read(struct kmp_mem *mem, const struct kmp_layout *l, uint64_t tag,
		 struct kmp_tagnames *t, char *why, size_t whylen, struct kmp_err *err)
{
	return kmp_tag_read_cached(NULL, mem, l, tag, t, why, whylen, err);
}

void kmp_tagcache_free(struct kmp_tagcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < KMP_TAGCACHE_SLOTS; i++) {
		free(c->slot[i].raw);
		kmp_tagnames_free(&c->slot[i].t);
	}
	free(c);
}
