// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: /proc/kcore, an ELF core whose PT_LOAD segments are mapped at
 * kernel virtual addresses; read with libelf's program headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfnote.h"
#include "core.h"

struct kcore_seg {
	uint64_t vaddr, size, offset;
};

struct kcore {
	int fd;
	Elf *elf;
	struct kcore_seg *segs;
	size_t nsegs;
};

static bool kcore_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
		       struct kmp_err *err)
{
	struct kcore *k = mem->priv;
	char *out = buf;

	while (len) {
		const struct kcore_seg *s = NULL;
		size_t n;
		ssize_t got;

		for (size_t i = 0; i < k->nsegs; i++) {
			if (addr >= k->segs[i].vaddr && addr - k->segs[i].vaddr < k->segs[i].size) {
				s = &k->segs[i];
				break;
			}
		}
		if (!s) {
			kmp_fault(err, KMP_ERR_UNMAPPED, addr, "address 0x%llx is not mapped in /proc/kcore",
				  (unsigned long long)addr);
			return false;
		}
		n = s->size - (addr - s->vaddr);
		if (n > len)
			n = len;
		got = pread(k->fd, out, n, (off_t)(s->offset + (addr - s->vaddr)));
		if (got != (ssize_t)n) {
			kmp_fault(err, got < 0 ? KMP_ERR_IO : KMP_ERR_UNMAPPED, addr,
				  "cannot read 0x%llx from /proc/kcore: %s", (unsigned long long)addr,
				   got < 0 ? strerror(errno) : "short read");
			return false;
		}
		out += n;
		addr += n;
		len -= n;
	}
	return true;
}

static void kcore_close(struct kmp_mem *mem)
{
	struct kcore *k = mem->priv;

	elf_end(k->elf);
	close(k->fd);
	free(k->segs);
	free(k);
}

static struct kmp_mem *kcore_clone(struct kmp_mem *mem);

static const struct kmp_mem_ops kcore_ops = {
	.read = kcore_read,
	.close = kcore_close,
	.clone = kcore_clone,
};

/*
 * A second reader (mem.h): the segments copied, and /proc/kcore opened
 * anew, not a dup() of the descriptor: the kernel reads RAM through a
 * bounce buffer of the open file (open_kcore()'s private_data), so two
 * threads reading through one open file get each other's bytes.
 */
static struct kmp_mem *kcore_clone(struct kmp_mem *mem)
{
	const struct kcore *k = mem->priv;
	struct kmp_mem *m = calloc(1, sizeof(*m));
	struct kcore *c = calloc(1, sizeof(*c));
	char self[64];

	if (!m || !c || !(c->segs = calloc(k->nsegs, sizeof(*c->segs))))
		goto fail;
	memcpy(c->segs, k->segs, k->nsegs * sizeof(*c->segs));
	c->nsegs = k->nsegs;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", k->fd);
	c->fd = open(self, O_RDONLY | O_CLOEXEC);
	if (c->fd < 0)
		goto fail;
	*m = (struct kmp_mem){ .ops = &kcore_ops, .priv = c, .live = mem->live };
	return m;
fail:
	if (c)
		free(c->segs);
	free(c);
	free(m);
	return NULL;
}

static char *find_vmcoreinfo(Elf *elf, const GElf_Phdr *ph)
{
	Elf_Data *data = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz,
					      ELF_T_NHDR);
	struct kmp_note n;
	uint64_t off = 0;

	if (!data)
		return NULL;
	while (kmp_note_next(data->d_buf, data->d_size, &off, &n) == KMP_NOTE_OK) {
		if (kmp_note_is(&n, "VMCOREINFO")) {
			char *s = malloc((size_t)n.descsz + 1);

			if (!s)
				return NULL;
			memcpy(s, n.desc, n.descsz);
			s[n.descsz] = '\0';
			return s;
		}
	}
	return NULL;
}

bool kmp_kcore_open(struct kmp_core *core, int fd, struct kmp_err *err)
{
	struct kcore *k = calloc(1, sizeof(*k));
	size_t nph;

	if (!k) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		close(fd);
		return false;
	}
	k->fd = fd;
	elf_version(EV_CURRENT);
	k->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!k->elf || elf_kind(k->elf) != ELF_K_ELF || elf_getphdrnum(k->elf, &nph)) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s is not an ELF core", core->path);
		goto fail;
	}
	k->segs = calloc(nph ? nph : 1, sizeof(*k->segs));
	if (!k->segs) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(k->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD && ph.p_filesz) {
			k->segs[k->nsegs++] = (struct kcore_seg){
				ph.p_vaddr, ph.p_filesz, ph.p_offset };
		} else if (ph.p_type == PT_NOTE && !core->vmcoreinfo) {
			core->vmcoreinfo = find_vmcoreinfo(k->elf, &ph);
		}
	}
	if (!k->nsegs) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s has no memory segments", core->path);
		goto fail;
	}
	core->mem.ops = &kcore_ops;
	core->mem.priv = k;
	core->mem.live = true;
	snprintf(core->format, sizeof(core->format), "kcore");
	return true;
fail:
	if (k->elf)
		elf_end(k->elf);
	free(k->segs);
	free(k);
	close(fd);
	free(core->vmcoreinfo);
	core->vmcoreinfo = NULL;
	return false;
}
