// SPDX-License-Identifier: GPL-2.0
/* kmempool: debug files by build ID from debuginfod (libdebuginfod, loaded on demand). */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "debuginfod.h"
#include "modbuildid.h"

/* libdebuginfod's functions, checked against its header's prototypes. */
static struct {
	bool ok;
	char why[256];
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	__typeof__(debuginfod_get_user_data) *get_user_data;
} lib;

bool kmp_debuginfod_enabled(void)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);

	return urls && urls[strspn(urls, " \t")];
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load_once(void)
{
	void *h;

	h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(lib.why, sizeof(lib.why), "cannot load %s (package libdebuginfod1): %s",
			 DEBUGINFOD_SONAME, dlerror());
		return;
	}
	*(void **)&lib.begin = dlsym(h, "debuginfod_begin");
	*(void **)&lib.end = dlsym(h, "debuginfod_end");
	*(void **)&lib.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&lib.set_progressfn = dlsym(h, "debuginfod_set_progressfn");
	*(void **)&lib.set_user_data = dlsym(h, "debuginfod_set_user_data");
	*(void **)&lib.get_user_data = dlsym(h, "debuginfod_get_user_data");
	if (!lib.begin || !lib.end || !lib.find_debuginfo) {
		snprintf(lib.why, sizeof(lib.why), "%s lacks debuginfod_find_debuginfo()",
			 DEBUGINFOD_SONAME);
		dlclose(h);
		return;
	}
	/* Kept loaded: libcurl's global state must outlive every client. */
	lib.ok = true;
}

/* The library, loaded once by whichever thread asks first. */
static bool load(void)
{
	pthread_once(&once, load_once);
	return lib.ok;
}

/* The progress line of one download, where the caller shows one. */
struct progress {
	const struct kmp_notes *notes;
	const char *what;
	double start, last;
	bool shown;
	long total;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int progress_fn(debuginfod_client *c, long a, long b)
{
	struct progress *p = lib.get_user_data ? lib.get_user_data(c) : NULL;
	double t = now();

	if (!p || t - p->last < 0.2)
		return 0;
	p->last = t;
	p->shown = true;
	if (b > 0)
		p->total = b;
	if (a > 0 && b > 0)
		kmp_progress(p->notes, "debuginfod: %s: %.1f of %.1f MB (%.0f s)", p->what, a / 1e6,
			     b / 1e6, t - p->start);
	else if (a > 0)
		kmp_progress(p->notes, "debuginfod: %s: %.1f MB (%.0f s)", p->what, a / 1e6,
			     t - p->start);
	else
		kmp_progress(p->notes, "debuginfod: %s: waiting for the server (%.0f s)", p->what,
			     t - p->start);
	return 0;
}

/* The servers, for messages: DEBUGINFOD_URLS, shortened, in @buf of @len >= 4 bytes. */
static const char *urls(char *buf, size_t len)
{
	const char *u = getenv(DEBUGINFOD_URLS_ENV_VAR);

	snprintf(buf, len, "%s", u ? u : "");
	if (u && strlen(u) >= len)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}

bool kmp_debuginfod_find(const char *build_id, const char *what, char *out, size_t len,
			 char *why, size_t whylen, const struct kmp_notes *notes)
{
	struct progress p = { .notes = notes, .what = what };
	debuginfod_client *c;
	char *path = NULL, servers[160];
	size_t n = build_id ? strlen(build_id) : 0;
	int fd;

	if (!kmp_debuginfod_enabled()) {
		snprintf(why, whylen, "DEBUGINFOD_URLS is not set");
		return false;
	}
	/* From a dump or kernel memory: only what a build ID can be. */
	if (n < 2 || n > 2 * KMP_BUILD_ID_MAX || n % 2 ||
	    strspn(build_id, "0123456789abcdef") != n) {
		snprintf(why, whylen, "no usable build ID to ask debuginfod for");
		return false;
	}
	if (!load()) {
		snprintf(why, whylen, "%s", lib.why);
		return false;
	}
	c = lib.begin();
	if (!c) {
		snprintf(why, whylen, "debuginfod_begin() failed");
		return false;
	}
	if (kmp_progress_shown(notes) && lib.set_progressfn && lib.set_user_data &&
	    lib.get_user_data) {
		p.start = p.last = now();
		p.last -= 1;	/* the first call prints */
		lib.set_user_data(c, &p);
		lib.set_progressfn(c, progress_fn);
	}
	fd = lib.find_debuginfo(c, (const unsigned char *)build_id, 0, &path);
	if (p.shown) {
		kmp_progress(notes, "%s", "");
		if (fd >= 0 && p.total > 0)
			kmp_note(notes, "debuginfod: %s: %.1f MB in %.0f s", what, p.total / 1e6,
				 now() - p.start);
	}
	lib.end(c);
	if (fd < 0) {
		free(path);
		if (fd == -ENOENT)
			snprintf(why, whylen, "debuginfod has no debug file for build ID %s (%s)",
				 build_id, urls(servers, sizeof(servers)));
		else
			snprintf(why, whylen, "debuginfod (%s) failed for build ID %s: %s",
				 urls(servers, sizeof(servers)), build_id, strerror(-fd));
		return false;
	}
	close(fd);
	if (!path || strlen(path) >= len) {
		snprintf(why, whylen, "debuginfod gave no usable cache path");
		free(path);
		return false;
	}
	snprintf(out, len, "%s", path);
	free(path);
	return true;
}

bool kmp_debuginfod_module(const struct kmp_kernel *k, const char *mod, char *out, size_t len)
{
	char hex[2 * KMP_BUILD_ID_MAX + 1], what[KMP_MODNAME_MAX + 16], why[512];
	const struct kmp_module *m = NULL;
	struct kmp_err err = { 0 };

	if (!kmp_debuginfod_enabled())
		return false;
	for (size_t i = 0; i < k->mods.n && !m; i++)
		if (!strcmp(k->mods.v[i].name, mod))
			m = &k->mods.v[i];
	if (!m)
		return false;
	if (!kmp_module_build_id(k, m->addr, hex, sizeof(hex), &err)) {
		kmp_note(k->notes, "note: module %s: no build ID to ask debuginfod for: %s", mod,
			 err.msg);
		return false;
	}
	snprintf(what, sizeof(what), "module %s", mod);
	if (kmp_debuginfod_find(hex, what, out, len, why, sizeof(why), k->notes))
		return true;
	kmp_note(k->notes, "note: module %s: %s", mod, why);
	return false;
}
