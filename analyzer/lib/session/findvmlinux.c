// SPDX-License-Identifier: GPL-2.0
/* kmempool: find the vmlinux of a core from VMCOREINFO, like drgn does. */
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "session.h"

static bool build_id_matches(const char *path, const char *want)
{
	struct kmp_vmlinux v;
	struct kmp_err err;
	bool ok;

	if (!want[0])
		return true;
	if (!kmp_vmlinux_open(&v, path, &err))
		return false;
	ok = !strcmp(v.build_id, want);
	kmp_vmlinux_close(&v);
	return ok;
}

bool kmp_find_vmlinux(const struct kmp_vmcoreinfo *vi, char *out, size_t len)
{
	const char *rel = vi->osrelease;
	char cand[8][4096];
	int n = 0;

	if (vi->build_id[0] && strlen(vi->build_id) > 2)
		snprintf(cand[n++], sizeof(cand[0]), "/usr/lib/debug/.build-id/%.2s/%s.debug",
			 vi->build_id, vi->build_id + 2);
	if (rel[0]) {
		snprintf(cand[n++], sizeof(cand[0]), "/usr/lib/debug/boot/vmlinux-%s", rel);
		snprintf(cand[n++], sizeof(cand[0]), "/usr/lib/debug/lib/modules/%s/vmlinux", rel);
		snprintf(cand[n++], sizeof(cand[0]), "/boot/vmlinux-%s", rel);
		snprintf(cand[n++], sizeof(cand[0]), "/lib/modules/%s/build/vmlinux", rel);
		snprintf(cand[n++], sizeof(cand[0]), "/lib/modules/%s/vmlinux", rel);
	}
	for (int i = 0; i < n; i++) {
		if (access(cand[i], R_OK) == 0 && build_id_matches(cand[i], vi->build_id)) {
			snprintf(out, len, "%s", cand[i]);
			return true;
		}
	}
	return false;
}
