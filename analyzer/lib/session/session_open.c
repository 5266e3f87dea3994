// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: a session over a file, a vmcore or /proc/kcore (core.c), then
 * the checks of kmp_session_attach() (session.c).  The file-opening half of
 * the library (libkmempool-files.a: core.c, kcore.c, kdump.c, flat.c,
 * fdhook.c, diskcheck.c, elfcheck.c and this file): libkdumpfile and the
 * pread() hook come only with it, so the crash extension, whose memory is
 * crash's, links neither.
 */
#include <string.h>

#include "session.h"

bool kmp_session_open(struct kmp_session *s, const struct kmp_options *o,
		      struct kmp_err *err)
{
	const char *core = o->core ? o->core : "/proc/kcore";

	memset(s, 0, sizeof(*s));
	if (!kmp_core_open(&s->core, core, err))
		return false;
	s->core_open = true;
	return kmp_session_attach(s, o, err);
}
