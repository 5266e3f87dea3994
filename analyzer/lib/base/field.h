/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: the one way to take a member out of a struct read into a
 * buffer.  A struct kmp_field comes from DWARF, which a damaged vmlinux can
 * fill with anything: the accessor refuses a field that is absent, not an
 * integer of 1, 2, 4 or 8 bytes, or not wholly inside the buffer, with an
 * error (kind format) that names it, instead of reading past the buffer.
 */
#ifndef KMP_FIELD_H
#define KMP_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kmp.h"
#include "layout.h"

/* Does integer field @f lie inside a buffer of @len bytes? */
static inline bool kmp_field_fits(const struct kmp_field *f, size_t len)
{
	return f->ok && (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) &&
	       f->off <= len && f->size <= len - f->off;
}

/* Set @err (kind format) for field @f refused in a buffer of @len bytes. */
void kmp_field_refuse(const struct kmp_field *f, size_t len, struct kmp_err *err);

/*
 * Field @f (little endian) of the struct in @buf, @len bytes: true with
 * *@val, or false with @err when kmp_field_fits() says no.
 */
static inline bool kmp_field_get(const void *buf, size_t len, const struct kmp_field *f,
				 uint64_t *val, struct kmp_err *err)
{
	const unsigned char *p = (const unsigned char *)buf;
	uint64_t v = 0;

	if (!kmp_field_fits(f, len)) {
		kmp_field_refuse(f, len, err);
		return false;
	}
	p += f->off;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* The common sizes in one load (module symbols are read so: millions in a scan). */
	if (f->size == 8) {
		memcpy(&v, p, 8);
		*val = v;
		return true;
	}
	if (f->size == 4) {
		uint32_t w;

		memcpy(&w, p, 4);
		*val = w;
		return true;
	}
#endif
	for (uint64_t i = f->size; i > 0; i--)
		v = (v << 8) | p[i - 1];
	*val = v;
	return true;
}

/* The same, sign-extended from the field's size. */
static inline bool kmp_field_sget(const void *buf, size_t len, const struct kmp_field *f,
				  int64_t *val, struct kmp_err *err)
{
	uint64_t u;

	if (!kmp_field_get(buf, len, f, &u, err))
		return false;
	if (f->size < 8 && (u & (1ULL << (f->size * 8 - 1))))
		u |= ~0ULL << (f->size * 8);
	*val = (int64_t)u;
	return true;
}

/*
 * The bytes of field @f (of any size: a char array, a struct) in @buf,
 * @len bytes; NULL with @err when they are not all inside it.
 */
static inline const unsigned char *kmp_field_bytes(const void *buf, size_t len,
						   const struct kmp_field *f, struct kmp_err *err)
{
	if (!f->ok || !f->size || f->off > len || f->size > len - f->off) {
		kmp_field_refuse(f, len, err);
		return NULL;
	}
	return (const unsigned char *)buf + f->off;
}

/*
 * Do all @n fields fit a buffer of @len bytes?  A reader checks the fields
 * it takes once, before its first buffer, so that a layout it cannot use
 * is one error (the first field refused) and not one per struct.
 */
bool kmp_fields_fit(const struct kmp_field *const *fs, size_t n, size_t len,
		    struct kmp_err *err);

#endif
