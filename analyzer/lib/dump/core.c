// SPDX-License-Identifier: GPL-2.0
/* kmempool: recognise what kind of core a file is and open it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "core.h"
#include "diskcheck.h"
#include "elfcheck.h"

#define PROC_SUPER_MAGIC 0x9fa0

struct flat_reader {
	struct kmp_flat *flat;
	int fd;
};

static ssize_t flat_read(void *arg, void *buf, size_t len, uint64_t off)
{
	struct flat_reader *fr = arg;

	return kmp_flat_pread(fr->flat, fr->fd, buf, len, off);
}

static ssize_t plain_read(void *arg, void *buf, size_t len, uint64_t off)
{
	return pread(*(int *)arg, buf, len, (off_t)off);
}

/*
 * Is the open file @st (on procfs) /proc/kcore itself?  Another ELF file of
 * procfs is /proc/vmcore in a kdump capture kernel: a dump like any other,
 * whose vmalloc and module addresses need the crashed kernel's page tables.
 * Told apart by inode, whatever the path it was opened by.
 */
static bool is_proc_kcore(const struct stat *st)
{
	struct stat kc;

	return !stat("/proc/kcore", &kc) && kc.st_dev == st->st_dev && kc.st_ino == st->st_ino;
}

bool kmp_core_open(struct kmp_core *core, const char *path, struct kmp_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		memset(core, 0, sizeof(*core));
		snprintf(core->path, sizeof(core->path), "%s", path);
		kmp_seterr(err, KMP_ERR_DUMP, "cannot open core %s: %s", path, strerror(errno));
		return false;
	}
	return kmp_core_open_fd(core, fd, path, err);
}

bool kmp_core_open_fd(struct kmp_core *core, int fd, const char *path, struct kmp_err *err)
{
	unsigned char magic[16] = { 0 };
	struct kmp_dumpinfo info = { 0 };
	struct statfs sfs;
	struct stat st;
	ssize_t got;

	memset(core, 0, sizeof(*core));
	snprintf(core->path, sizeof(core->path), "%s", path);
	if (fstat(fd, &st) || S_ISDIR(st.st_mode)) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s is a directory, not a dump file", path);
		goto fail;
	}
	got = pread(fd, magic, sizeof(magic), 0);
	if (got < 0) {
		kmp_seterr(err, KMP_ERR_DUMP, "cannot read core %s: %s", path, strerror(errno));
		goto fail;
	}
	if (got < 8) {
		kmp_seterr(err, KMP_ERR_DUMP, "core %s is too short (%zd bytes) to be a dump", path, got);
		goto fail;
	}
	if (kmp_flat_detect(magic, (size_t)got)) {
		/* makedumpfile -F: read in place, through an index of its records. */
		struct kmp_flat *flat = malloc(sizeof(*flat));
		struct kmp_err why;

		if (!flat) {
			kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
			goto fail;
		}
		if (!kmp_flat_index(flat, fd, &why)) {
			free(flat);
			kmp_wraperr(err, &why, "core %s: %s", path, why.msg);
			goto fail;
		}
		{
			unsigned char head[8];
			struct flat_reader fr = { flat, fd };

			if (kmp_flat_pread(flat, fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) &&
			    kmp_is_diskdump(head, sizeof(head)) &&
			    !kmp_diskdump_check(flat_read, &fr, flat->end, path, err)) {
				kmp_flat_free(flat);
				free(flat);
				goto fail;
			}
		}
		info.flat = flat;
		return kmp_kdump_open(core, fd, &info, err);
	}
	if (kmp_is_diskdump(magic, (size_t)got)) {
		/* Checked before libkdumpfile sizes its tables from the header. */
		int pfd = fd;

		if (!kmp_diskdump_check(plain_read, &pfd, (uint64_t)st.st_size, path, err))
			goto fail;
	}
	if (kmp_is_elf(magic, (size_t)got)) {
		/* Checked before libelf or libkdumpfile trust its headers. */
		struct kmp_elfcheck ec;
		bool kcore = !fstatfs(fd, &sfs) && sfs.f_type == PROC_SUPER_MAGIC &&
			     is_proc_kcore(&st);

		if (!kmp_elf_check(fd, path, kcore, &ec, err))
			goto fail;
		info.cut_short = ec.nload_cut > 0;
	}
	if (!fstatfs(fd, &sfs) && sfs.f_type == PROC_SUPER_MAGIC && is_proc_kcore(&st))
		return kmp_kcore_open(core, fd, err);
	return kmp_kdump_open(core, fd, &info, err);
fail:
	close(fd);
	return false;
}

bool kmp_core_is_procfs(int fd)
{
	struct statfs sfs;

	return !fstatfs(fd, &sfs) && sfs.f_type == PROC_SUPER_MAGIC;
}

/* kmp_core_close() is in session.c: closing needs no file code. */
