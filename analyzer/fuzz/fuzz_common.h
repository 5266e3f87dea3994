/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libFuzzer harnesses: the test object that stands in
 * for vmlinux (its DWARF gives the layouts, as in the unit tests), and
 * in-memory files for the readers that take a file descriptor.
 */
#ifndef KMP_FUZZ_COMMON_H
#define KMP_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "layout.h"
#include "vmlinux.h"

/* $KMP_FAKE_VMLINUX, else fake_vmlinux beside the fuzz directory of the binary. */
static inline const char *fuzz_fake_path(void)
{
	static char path[4096];
	char self[4096];
	ssize_t n;
	char *slash;

	if (getenv("KMP_FAKE_VMLINUX"))
		return getenv("KMP_FAKE_VMLINUX");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return "fake_vmlinux";
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/../fake_vmlinux", self);
	return path;
}

/* $KMP_FAKE_VMLINUX_V6, else the series v6 test object beside fake_vmlinux. */
static inline const char *fuzz_fake_v6_path(void)
{
	static char path[4200];

	if (getenv("KMP_FAKE_VMLINUX_V6"))
		return getenv("KMP_FAKE_VMLINUX_V6");
	snprintf(path, sizeof(path), "%s_v6", fuzz_fake_path());
	return path;
}

/* Open test object @path and load the mempool layout from it; exits on failure. */
static inline void fuzz_load_layout_from(const char *path, struct kmp_vmlinux *v,
					 struct kmp_layout *l)
{
	struct kmp_sym sym = { .name = "mempool_exit" };
	struct kmp_err err;

	if (!kmp_vmlinux_open(v, path, &err)) {
		fprintf(stderr, "fuzz: %s\n", err.msg);
		exit(1);
	}
	kmp_vmlinux_symbols(v, &sym, 1);
	if (!sym.found || !kmp_layout_load(v, sym.addr, false, l, &err)) {
		fprintf(stderr, "fuzz: layout: %s\n", err.msg);
		exit(1);
	}
}

/* The same for the series 5 test object (fake_vmlinux). */
static inline void fuzz_load_layout(struct kmp_vmlinux *v, struct kmp_layout *l)
{
	fuzz_load_layout_from(fuzz_fake_path(), v, l);
}

/* A memfd holding @data; -1 on failure. */
static inline int fuzz_memfd(const unsigned char *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	return fd;
}

/* Write a seed input to @path (used with KMP_FUZZ_WRITE_SEED). */
static inline void fuzz_write_seed(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "fuzz: cannot write seed %s\n", path);
		exit(1);
	}
}

#endif
