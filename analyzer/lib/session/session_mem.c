// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: a session over memory that the caller reads (the crash
 * extension), with the vmlinux checks of kmp_session_open().
 */
#include <stdio.h>
#include <string.h>

#include "session.h"

bool kmp_session_open_mem(struct kmp_session *s, const struct kmp_options *o,
			  const struct kmp_mem *mem, const char *vmcoreinfo,
			  const char *source, const char *format, struct kmp_err *err)
{
	memset(s, 0, sizeof(*s));
	if (!o->vmlinux) {
		kmp_seterr(err, KMP_ERR_VMLINUX, "no vmlinux given");
		return false;
	}
	if (!mem || !mem->ops || !mem->ops->read) {
		kmp_seterr(err, KMP_ERR_DUMP, "no memory reader");
		return false;
	}
	s->core.mem = *mem;
	/* kmp_session_close() leaves the core alone: core_open stays false. */
	s->core.vmcoreinfo = (char *)vmcoreinfo;
	snprintf(s->core.path, sizeof(s->core.path), "%s", source ? source : "memory");
	snprintf(s->core.format, sizeof(s->core.format), "%s", format ? format : "memory");
	return kmp_session_attach(s, o, err);
}
