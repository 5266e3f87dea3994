// SPDX-License-Identifier: GPL-2.0
/* kmempool: a struct's member refused by the accessor (field.h), with its name. */
#include <inttypes.h>

#include "field.h"

void kmp_field_refuse(const struct kmp_field *f, size_t len, struct kmp_err *err)
{
	const char *name = f->name ? f->name : "a member";

	if (!f->ok)
		kmp_seterr(err, KMP_ERR_FORMAT, "%s is not in the debug info, but was to be read",
			   name);
	else
		kmp_seterr(err, KMP_ERR_FORMAT, "%s (offset %" PRIu64 ", size %" PRIu64 ") does not "
			   "fit the %zu bytes read of its struct: refused (damaged debug info?)",
			   name, f->off, f->size, len);
}

bool kmp_fields_fit(const struct kmp_field *const *fs, size_t n, size_t len,
		    struct kmp_err *err)
{
	for (size_t i = 0; i < n; i++) {
		if (!kmp_field_fits(fs[i], len)) {
			kmp_field_refuse(fs[i], len, err);
			return false;
		}
	}
	return true;
}
