// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: vmcores (ELF, kdump-compressed, uncompressed kdump, each also
 * flattened) through libkdumpfile, which translates kernel virtual
 * addresses.  A flattened dump is read in place: libkdumpfile reads its
 * descriptor, and the read hook answers from the index of its records.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <libkdumpfile/addrxlat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kdumpdl.h"
#include "core.h"
#include "ddxlat.h"
#include "diskcheck.h"
#include "diskdump.h"
#include "elfcheck.h"
#include "fdhook.h"
#include "flat.h"
#include "vmcoreinfo.h"

/*
 * libkdumpfile's page cache, and how kmempool keeps it from evicting.
 * libkdumpfile 0.5.1 (Debian 12) hands out a cache entry without a data
 * buffer when it reuses a ghost entry, which exists only once the cache
 * has evicted (memcpy to NULL in kdump_read(); fixed upstream in 2024,
 * "cache: Get data buffer before adjusting ghost partition size").  Which
 * read pattern and cache size hit it depends on the dump: 64 pages on a
 * 6.1 dump, 1000-1025 (not 512 or 2048) on a 6.12 one.  So the cache must
 * never evict: every miss takes an entry, and before the misses could
 * fill it, the context is opened anew (a fresh cache; resizing the cache
 * in place would free pages that libkdumpfile's translation still holds).
 * Its file cache is the same kind of cache over the file's 4 KiB blocks
 * (16,384 of them, 64 MiB): the blocks read through the pread() hook are
 * counted, and the context is renewed long before that one could evict,
 * which also keeps what it holds (resident memory) at 4 MiB.
 */
#define KMP_KDUMP_CACHE_PAGES 512
#define KMP_KDUMP_FILE_BLOCKS 1024
/* Entries one kdump_read() can take: its pages (KMP_KDUMP_READ_MAX) and page tables. */
#define KMP_KDUMP_CACHE_MARGIN 64
#define KMP_KDUMP_READ_MAX (16 * 4096)	/* one kdump_read() at most */
#define KMP_DD_TLB 16			/* translations kept per reader */

struct kdump {
	kdump_ctx_t *ctx;
	int fd;
	off_t size;		/* of the file (of the reassembled view when flat) */
	struct kmp_flat *flat;	/* a flattened dump's index, or NULL */
	bool owns_flat;		/* false in a clone: the first reader frees it and @dd */
	bool cut_short;		/* known to be cut short: every short read is an error */
	off_t past;		/* offset of the first byte a read of the current
				 * step (opening, one kdump_read()) wanted and the
				 * file does not have, or -1 */
	uint64_t blocks;	/* file blocks read since the context was opened */
	/*
	 * A kdump-compressed dump's pages read here (diskdump.h), each
	 * address translated through libkdumpfile's: @dd shared with the
	 * clones (the first reader frees it), a reader each.
	 */
	struct kmp_diskdump *dd;
	struct kmp_ddreader *ddr;
	/*
	 * The translation set up here (ddxlat.h), without libkdumpfile: then
	 * @ctx is opened only when a page needs it (one this reader does not
	 * take, or an address it cannot translate), for its bytes or for
	 * its error.
	 */
	struct kmp_ddxlat *x;
	addrxlat_ctx_t *axctx;	/* @ctx's translation, once asked for */
	addrxlat_sys_t *axsys;
	uint64_t tlb_va[KMP_DD_TLB], tlb_pa[KMP_DD_TLB];	/* the last translations */
	bool tlb_ok[KMP_DD_TLB];
	/*
	 * The own reader's "not in the dump" and "not mapped" are asked of
	 * libkdumpfile too, the first KMP_DD_CONFIRM times in a dump (when it
	 * can be loaded; the readers of one dump share the count): if it
	 * agrees each time, the own answers stand from then on; if it ever
	 * reads the page, libkdumpfile reads every page of the dump after
	 * that (@second->dd_off).  The first reader owns @second.
	 */
	struct kdump_second *second;
	/* What an excluded page's message says of the capture: dump level, release, advice. */
	char hint[224];
};

#define KMP_DD_CONFIRM 8

struct kdump_second {
	atomic_uint asked;	/* faults asked of libkdumpfile (claimed before asking) */
	atomic_bool dd_off;	/* it read a page the own reader said it could not */
};

/*
 * One call into libkdumpfile at a time.  The threads of a scan each read
 * through a context of their own, but libkdumpfile 0.5.1 is not safe to
 * call from two threads at once even on two contexts: about one `kmempool
 * scan` in 30 on the bookworm dump crashed inside kdump_free() (a context
 * renewed by one thread while the main thread inflated a page in its own),
 * and locking only the making and freeing of contexts still crashed
 * (2 in 100).  With every call under this lock, 0 in 200.  The scan's own
 * work (checking what was read) stays parallel.
 */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * A context over the file, set up as kmp_kdump_open() sets up the first
 * (under ctx_lock): a context anew, or the first one of a dump whose
 * translation is kmempool's.  It too must read through the hook.
 */
static kdump_ctx_t *reopen(struct kdump *k)
{
	kdump_ctx_t *ctx = kdump_new();
	unsigned long hits = kmp_fdhook_hits(k->fd);

	if (ctx &&
	    (kdump_set_number_attr(ctx, "cache.size", KMP_KDUMP_CACHE_PAGES) != KDUMP_OK ||
	     kdump_set_number_attr(ctx, KDUMP_ATTR_FILE_MMAP_POLICY, KDUMP_MMAP_NEVER) != KDUMP_OK ||
	     kdump_open_fd(ctx, k->fd) != KDUMP_OK || kmp_fdhook_hits(k->fd) == hits ||
	     kdump_set_string_attr(ctx, "addrxlat.ostype", "linux") != KDUMP_OK)) {
		kdump_free(ctx);
		ctx = NULL;
	}
	return ctx;
}

/* Let go of the context's translation (before the context goes). */
static void drop_xlat(struct kdump *k)
{
	if (k->axsys)
		addrxlat_sys_decref(k->axsys);
	if (k->axctx)
		addrxlat_ctx_decref(k->axctx);
	k->axsys = NULL;
	k->axctx = NULL;
}

/*
 * Before a read that could make libkdumpfile's cache evict, a fresh
 * context (see above).  The old one is freed first, so that the new one
 * takes its memory: one cache at a time.  Without a context (the last
 * renewal failed), every read fails.
 */
static bool cache_guard(struct kdump *k)
{
	kdump_num_t misses;

	if (k->ctx) {
		if (kmp_kd_number_attr(k->ctx, "cache.misses", &misses) != KDUMP_OK)
			return false;	/* not knowing how full it is, do not read */
		if (misses + KMP_KDUMP_CACHE_MARGIN < KMP_KDUMP_CACHE_PAGES &&
		    k->blocks + KMP_KDUMP_CACHE_MARGIN < KMP_KDUMP_FILE_BLOCKS)
			return true;
		drop_xlat(k);
		kdump_free(k->ctx);
	}
	k->blocks = 0;
	k->ctx = reopen(k);
	return k->ctx != NULL;
}

static void note_past(struct kdump *k, off_t offset)
{
	if (k->past < 0)
		k->past = offset;
}

/*
 * libkdumpfile reads the dump with pread() of one page at a time (mmap is
 * switched off, see kmp_kdump_open()) and takes a read that comes back
 * short for the end of the file, padding it with zeros: a cut-short dump
 * would yield zeroed page tables and list heads instead of an error.  A
 * read that starts at or past the end of the file is made an error here,
 * and its offset kept for the message.  A short read that starts inside
 * the file is the last, partial page of the file, which a complete dump
 * has too: passed on, unless the dump's headers said its data runs past
 * the end of the file (then the missing part may be what is wanted).
 */
static ssize_t file_pread(void *arg, int fd, void *buf, size_t count, off_t offset)
{
	struct kdump *k = arg;
	ssize_t ret = kmp_real_pread(fd, buf, count, offset);

	k->blocks += (count + 4095) / 4096;
	if (ret >= 0 && (size_t)ret < count && (ret == 0 || k->cut_short)) {
		note_past(k, offset + ret);
		errno = EIO;
		return -1;
	}
	return ret;
}

/*
 * A flattened dump: libkdumpfile sees the reassembled file, served from
 * the index.  Past the end of a complete stream it is like a file's end;
 * in a truncated stream any byte the cut may have taken is an error.
 */
static ssize_t flat_pread(void *arg, int fd, void *buf, size_t count, off_t offset)
{
	struct kdump *k = arg;
	ssize_t ret;

	k->blocks += (count + 4095) / 4096;
	if (offset < 0) {
		errno = EINVAL;
		return -1;
	}
	ret = kmp_flat_pread(k->flat, fd, buf, count, (uint64_t)offset);
	if (ret < 0)
		return -1;
	if ((size_t)ret < count && (k->flat->truncated || ret == 0)) {
		note_past(k, offset + ret);
		errno = EIO;
		return -1;
	}
	return ret;
}

/* One kdump_read() of at most KMP_KDUMP_READ_MAX bytes; its status, what it read in *@done. */
static kdump_status read_piece(struct kdump *k, uint64_t addr, void *buf, size_t len,
			       size_t *done)
{
	kdump_status st;

	*done = 0;
	pthread_mutex_lock(&ctx_lock);
	if (!cache_guard(k)) {
		pthread_mutex_unlock(&ctx_lock);
		return KDUMP_ERR_BUSY;
	}
	*done = len;
	st = kdump_read(k->ctx, KDUMP_KVADDR, addr, buf, done);
	pthread_mutex_unlock(&ctx_lock);
	return st;
}

/* The file as it is (a flattened dump: as its index reassembles it), for diskdump.c. */
static ssize_t dd_pread(void *arg, int fd, void *buf, size_t count, off_t offset)
{
	const struct kdump *k = arg;

	if (!k->flat)
		return kmp_real_pread(fd, buf, count, offset);
	if (offset < 0)
		return -1;
	return kmp_flat_pread(k->flat, fd, buf, count, (uint64_t)offset);
}

/* What dd_read() made of a read: done, or why not. */
enum dd_result {
	DD_OK,
	DD_OTHER,	/* read it through libkdumpfile, for its bytes or its error */
	DD_ABSENT,	/* the dump's bitmap has no such page: libkdumpfile's "excluded" */
	DD_UNMAPPED,	/* kmempool's translation: not mapped (libaddrxlat's message) */
};

/*
 * The physical address of the page at @page, by kmempool's translation or
 * libkdumpfile's: DD_OK, DD_UNMAPPED (kmempool's: the page tables map
 * nothing there) or DD_OTHER.  The last translations are kept (a dump
 * does not change).
 */
static enum dd_result dd_xlat(struct kdump *k, uint64_t page, uint64_t *paddr)
{
	addrxlat_fulladdr_t fa = { .addr = page, .as = ADDRXLAT_KVADDR };
	unsigned int t = (unsigned int)((page * 0x9e3779b97f4a7c15ULL) >> 60) % KMP_DD_TLB;
	addrxlat_status st;
	bool ok;

	if (k->tlb_ok[t] && k->tlb_va[t] == page) {
		*paddr = k->tlb_pa[t];
		return DD_OK;
	}
	if (k->x) {	/* this reader's own context: no lock */
		st = kmp_ddxlat_conv(k->x, page, &fa.addr);
		if (st == ADDRXLAT_ERR_NOTPRESENT)
			return DD_UNMAPPED;
		ok = st == ADDRXLAT_OK;
		goto done;
	}
	pthread_mutex_lock(&ctx_lock);
	ok = cache_guard(k) &&
	     (k->axsys || kdump_get_addrxlat(k->ctx, &k->axctx, &k->axsys) == KDUMP_OK) &&
	     addrxlat_fulladdr_conv(&fa, ADDRXLAT_KPHYSADDR, k->axctx, k->axsys) == ADDRXLAT_OK;
	pthread_mutex_unlock(&ctx_lock);
done:
	*paddr = fa.addr;
	if (ok) {
		k->tlb_va[t] = page;
		k->tlb_pa[t] = fa.addr;
		k->tlb_ok[t] = true;
	}
	return ok ? DD_OK : DD_OTHER;
}

/* A page for the translation's page-table walks (ddxlat.h). */
static const unsigned char *ddx_page(void *arg, uint64_t pfn)
{
	struct kdump *k = arg;

	return kmp_ddreader_page(k->ddr, dd_pread, k, k->fd, pfn);
}

/*
 * @n bytes at @addr, all in one page, read here (outside ctx_lock, so
 * threads inflate at once).  Two answers need no libkdumpfile: a page
 * the dump's bitmap does not hold (libkdumpfile too can only say it is
 * excluded: diskdump.c takes only a dump whose bitmap says it all), and
 * an address kmempool's translation finds unmapped (libkdumpfile gives
 * libaddrxlat's same message).  For anything else, DD_OTHER.
 */
static enum dd_result dd_read(struct kdump *k, uint64_t addr, unsigned char *out, size_t n)
{
	uint64_t ps = k->dd->page_size, page = addr & ~(ps - 1), paddr, idx;
	const unsigned char *p;
	enum dd_result r = dd_xlat(k, page, &paddr);

	if (r != DD_OK)
		return r;
	if (paddr % ps)
		return DD_OTHER;
	if (!kmp_diskdump_index(k->dd, paddr / ps, &idx))
		return DD_ABSENT;
	if (n == ps)	/* a whole page of a large read: straight into @out */
		return kmp_ddreader_page_into(k->ddr, dd_pread, k, k->fd, paddr / ps, out) ?
		       DD_OK : DD_OTHER;
	if (!(p = kmp_ddreader_page(k->ddr, dd_pread, k, k->fd, paddr / ps)))
		return DD_OTHER;
	memcpy(out, p + (addr - page), n);
	return DD_OK;
}

static bool kdump_mem_read(struct kmp_mem *mem, uint64_t addr, void *buf, size_t len,
			   struct kmp_err *err)
{
	struct kdump *k = mem->priv;
	size_t size = 0, piece;
	kdump_status st = KDUMP_OK;

	k->past = -1;	/* did this read run past the end of the file? */
	while (size < len) {
		size_t want = len - size < KMP_KDUMP_READ_MAX ? len - size : KMP_KDUMP_READ_MAX;

		if (k->dd && !atomic_load(&k->second->dd_off)) {
			/* A page at a time here; one this reader does not take, through libkdumpfile. */
			uint64_t a = addr + size, ps = k->dd->page_size;
			enum dd_result r;

			want = len - size < ps - (a & (ps - 1)) ? len - size : ps - (a & (ps - 1));
			r = dd_read(k, a, (unsigned char *)buf + size, want);
			if (r == DD_OK) {
				size += want;
				continue;
			}
			if ((r == DD_ABSENT || r == DD_UNMAPPED) && kmp_kd_load(NULL, 0) &&
			    atomic_fetch_add(&k->second->asked, 1) < KMP_DD_CONFIRM) {
				/* A second opinion: libkdumpfile's read of the same piece. */
				st = read_piece(k, a, (unsigned char *)buf + size, want, &piece);
				if (st == KDUMP_OK && piece == want) {
					/* it disagrees: its pages from now on */
					atomic_store(&k->second->dd_off, true);
					size += want;
					continue;
				}
				if (st == KDUMP_ERR_NODATA || st == KDUMP_ERR_ADDRXLAT)
					break;	/* its own words below */
			}
			if (r == DD_ABSENT) {
				st = KDUMP_ERR_NODATA;
				break;
			}
			if (r == DD_UNMAPPED) {
				kmp_fault(err, KMP_ERR_UNMAPPED, a, "cannot read 0x%llx from the dump: "
					  "Cannot get page I/O address: %s", (unsigned long long)a,
					  kmp_ddxlat_err(k->x));
				return false;
			}
		}
		st = read_piece(k, addr + size, (unsigned char *)buf + size, want, &piece);
		size += piece;
		if (st != KDUMP_OK || piece != want)
			break;
	}
	if (st == KDUMP_OK && size == len)
		return true;
	if (k->past >= 0 && k->flat && k->flat->truncated)
		kmp_fault(err, KMP_ERR_PAST_EOF, addr + size, "address 0x%llx is not in the dump: flattened dump truncated "
			   "(its data would be at offset %lld of the reassembled dump, which the "
			   "records before the cut at byte %llu of the file do not hold)",
			   (unsigned long long)(addr + size), (long long)k->past,
			   (unsigned long long)k->flat->cut);
	else if (k->past >= 0)
		kmp_fault(err, KMP_ERR_PAST_EOF, addr + size, "address 0x%llx is not in the dump: its data would be at "
			   "offset %lld, past the end of the %sfile (%lld bytes); the dump "
			   "is truncated", (unsigned long long)(addr + size),
			   (long long)k->past, k->flat ? "reassembled " : "", (long long)k->size);
	else if (st == KDUMP_ERR_NODATA)
		kmp_fault(err, KMP_ERR_EXCLUDED, addr + size, "address 0x%llx is not in the dump (page excluded by "
			   "makedumpfile, or beyond a truncated file; %s)",
			   (unsigned long long)(addr + size), k->hint);
	else
		kmp_fault(err, st == KDUMP_ERR_ADDRXLAT ? KMP_ERR_UNMAPPED :
			  st == KDUMP_ERR_EOF ? KMP_ERR_PAST_EOF : KMP_ERR_IO, addr + size,
			  "cannot read 0x%llx from the dump: %s",
			   (unsigned long long)(addr + size),
			   st == KDUMP_OK ? "short read" : st != KDUMP_ERR_BUSY ?
			   kdump_get_err(k->ctx) : k->x ?
			   "kmempool's reader does not take its page, and libkdumpfile cannot open the dump" :
			   "the dump could not be opened anew for a fresh libkdumpfile cache");
	return false;
}

static void kdump_free_all(struct kdump *k)
{
	pthread_mutex_lock(&ctx_lock);
	drop_xlat(k);
	if (k->ctx)
		kdump_free(k->ctx);
	pthread_mutex_unlock(&ctx_lock);
	kmp_ddxlat_free(k->x);
	kmp_ddreader_free(k->ddr);
	if (k->dd && k->owns_flat) {
		kmp_diskdump_free(k->dd);
		free(k->dd);
	}
	if (k->owns_flat)
		free(k->second);
	kmp_fdhook_unregister(k->fd);
	close(k->fd);
	if (k->flat && k->owns_flat) {
		kmp_flat_free(k->flat);
		free(k->flat);
	}
	free(k);
}

static void kdump_mem_close(struct kmp_mem *mem)
{
	kdump_free_all(mem->priv);
}

/* mem.h's stored(): a page kmempool's own reader takes, as the dump stores it. */
static bool kdump_mem_stored(struct kmp_mem *mem, uint64_t addr, void *out, size_t cap,
			     size_t *len)
{
	struct kdump *k = mem->priv;
	uint64_t ps, paddr;

	if (!k->dd || atomic_load(&k->second->dd_off))
		return false;
	ps = k->dd->page_size;
	if (dd_xlat(k, addr & ~(ps - 1), &paddr) != DD_OK || paddr % ps)
		return false;
	return kmp_ddreader_stored(k->ddr, dd_pread, k, k->fd, paddr / ps, out, cap, len);
}

static struct kmp_mem *kdump_mem_clone(struct kmp_mem *mem);

static const struct kmp_mem_ops kdump_ops = {
	.read = kdump_mem_read,
	.close = kdump_mem_close,
	.clone = kdump_mem_clone,
};

/* A kdump-compressed dump whose pages kmempool reads: it says how they are stored. */
static const struct kmp_mem_ops kdump_dd_ops = {
	.read = kdump_mem_read,
	.close = kdump_mem_close,
	.clone = kdump_mem_clone,
	.stored = kdump_mem_stored,
};

/*
 * A second reader of the same dump (mem.h): a descriptor, read hook and
 * libkdumpfile context of its own, set up as the first; a flattened
 * dump's index (read only) is shared.
 */
static struct kmp_mem *kdump_mem_clone(struct kmp_mem *mem)
{
	const struct kdump *k = mem->priv;
	struct kmp_mem *m = calloc(1, sizeof(*m));
	struct kdump *c = calloc(1, sizeof(*c));

	if (!m || !c)
		goto fail;
	c->fd = fcntl(k->fd, F_DUPFD_CLOEXEC, 0);
	if (c->fd < 0)
		goto fail;
	c->flat = k->flat;
	c->dd = k->dd;
	c->cut_short = k->cut_short;
	c->size = k->size;
	c->past = -1;
	c->second = k->second;
	memcpy(c->hint, k->hint, sizeof(c->hint));
	if (!kmp_fdhook_register(c->fd, c->flat ? flat_pread : file_pread, c)) {
		close(c->fd);
		goto fail;
	}
	if (!k->x) {	/* with kmempool's translation, a context when a page needs one */
		pthread_mutex_lock(&ctx_lock);
		c->ctx = reopen(c);
		pthread_mutex_unlock(&ctx_lock);
		if (!c->ctx) {
			kdump_free_all(c);
			free(m);
			return NULL;
		}
	}
	if ((c->dd && !(c->ddr = kmp_ddreader_new(c->dd))) ||
	    (k->x && !(c->x = kmp_ddxlat_clone(k->x, ddx_page, c)))) {
		kdump_free_all(c);
		free(m);
		return NULL;
	}
	*m = (struct kmp_mem){ .ops = mem->ops, .priv = c, .live = mem->live, .serial = !c->dd };
	return m;
fail:
	free(c);
	free(m);
	return NULL;
}

/*
 * A flattened ELF dump (makedumpfile -E -F) gets the checks core.c makes
 * of an ELF file before libkdumpfile trusts its headers (a damaged one
 * crashed it), on the reassembled view: @fd is hooked, so pread() reads
 * through the index.
 */
static bool check_flat_elf(const struct kmp_core *core, int fd, struct kmp_err *err)
{
	unsigned char magic[16];
	struct kmp_elfcheck ec;

	if (pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    !kmp_is_elf(magic, sizeof(magic)))
		return true;
	return kmp_elf_check(fd, core->path, false, &ec, err);
}

/*
 * libkdumpfile must have read the dump through the hook while it opened
 * it (reads after @before): one that reads another way (mmap(), another
 * call or descriptor) would bypass every check of truncation and read a
 * flattened file raw, silently.
 */
static bool reads_seen(const struct kmp_core *core, int fd, unsigned long before,
		       struct kmp_err *err)
{
	if (kmp_fdhook_hits(fd) > before)
		return true;
	kmp_seterr(err, KMP_ERR_IO, "libkdumpfile opened %s without one read through pread(): "
		   "kmempool cannot check its reads (truncation, flattened dumps), so it does not "
		   "use a libkdumpfile that reads another way", core->path);
	return false;
}

/* Why a step failed when it read past the end: the end of what. */
static const char *past_what(const struct kdump *k)
{
	if (!k->flat)
		return "past its end: if it is a dump, it is truncated";
	if (k->flat->truncated)
		return "beyond the records before the cut: flattened dump truncated";
	return "past the end of the reassembled dump: if it is a dump, it is truncated";
}

/*
 * What the message of a page left out of the dump says of its capture
 * (issue 32 item 6): the dump level makedumpfile wrote in the sub-header
 * (kdump-compressed and flattened dumps), the kernel's release, and what
 * to capture with where a makedumpfile is known to drop pages this kernel
 * needs: up to 1.7.8 (Debian sid's) it takes 7.x's slab pages for user
 * pages (-d 8, in kdump-tools' default -d 31), so the stock rigs capture
 * 7.2 with -d 23; bookworm's 1.7.2 drops the slab pages of 6.10 on (a page
 * type it does not know) unless the dump level is 17 or below.
 */
static ssize_t hint_read(void *arg, void *buf, size_t len, uint64_t off)
{
	struct kdump *k = arg;

	return off > INT64_MAX ? -1 : dd_pread(k, k->fd, buf, len, (off_t)off);
}

static void capture_hint(const struct kmp_core *core, struct kdump *k)
{
	struct kmp_vmcoreinfo vi;
	struct kmp_ddhdr h;
	struct kmp_err err;
	unsigned int maj = 0, min = 0;
	unsigned char sig[8];
	long level = -1;
	int n;

	if (dd_pread(k, k->fd, sig, sizeof(sig), 0) == (ssize_t)sizeof(sig) &&
	    !memcmp(sig, "KDUMP   ", 8) && kmp_ddhdr_read(hint_read, k, UINT64_MAX, core->path, &h, &err) &&
	    h.sub_blocks && h.dump_level <= 31)
		level = (long)h.dump_level;
	kmp_vmcoreinfo_parse(core->vmcoreinfo, &vi);
	if (sscanf(vi.osrelease, "%u.%u", &maj, &min) != 2)
		maj = min = 0;
	n = level >= 0 ? snprintf(k->hint, sizeof(k->hint), "dump level %ld", level) :
			 snprintf(k->hint, sizeof(k->hint), "dump level not recorded");
	n += snprintf(k->hint + n, sizeof(k->hint) - (size_t)n, ", kernel %s",
		      vi.osrelease[0] ? vi.osrelease : "release unknown");
	if (level >= 0 && (level & 8) && maj >= 7)
		snprintf(k->hint + n, sizeof(k->hint) - (size_t)n, ": makedumpfile up to 1.7.8 "
			 "drops 7.x slab pages as user pages (-d 8 of %ld): capture with -d 23", level);
	else if (level > 17 && maj == 6 && min >= 10)
		snprintf(k->hint + n, sizeof(k->hint) - (size_t)n, ": a makedumpfile older than "
			 "this kernel (1.7.2) drops its slab pages: capture with -d 17 or a newer one");
}

/*
 * A kdump-compressed dump this reader takes: its pages are read here from
 * now on (without it, or out of memory, all go through libkdumpfile).
 */
static void use_diskdump(struct kdump *k)
{
	struct kmp_diskdump *dd = calloc(1, sizeof(*dd));

	if (!dd || !kmp_diskdump_open(dd, dd_pread, k, k->fd, NULL) || !(k->ddr = kmp_ddreader_new(dd))) {
		kmp_ddreader_free(k->ddr);
		k->ddr = NULL;
		if (dd)
			kmp_diskdump_free(dd);
		free(dd);
		return;
	}
	k->dd = dd;
}

/*
 * A kdump-compressed dump of an x86_64 kernel that diskdump.c and ddxlat.c
 * take: read and translated here, libkdumpfile not opened (see struct
 * kdump).  False, with nothing kept: open it through libkdumpfile.
 */
static bool open_own(struct kmp_core *core, struct kdump *k)
{
	struct kmp_diskdump *dd = calloc(1, sizeof(*dd));

	if (!dd || !kmp_diskdump_open(dd, dd_pread, k, k->fd, NULL) || !dd->vmcoreinfo)
		goto no;
	k->dd = dd;
	if (!(k->ddr = kmp_ddreader_new(dd)) || !(k->x = kmp_ddxlat_new(dd, ddx_page, k)) ||
	    !(core->vmcoreinfo = strdup(dd->vmcoreinfo)))
		goto no;
	snprintf(core->format, sizeof(core->format), "%sdiskdump", k->flat ? "flattened " : "");
	return true;
no:
	kmp_ddxlat_free(k->x);
	kmp_ddreader_free(k->ddr);
	k->x = NULL;
	k->ddr = NULL;
	k->dd = NULL;
	if (dd)
		kmp_diskdump_free(dd);
	free(dd);
	return false;
}

bool kmp_kdump_open(struct kmp_core *core, int fd, const struct kmp_dumpinfo *info,
		    struct kmp_err *err)
{
	struct kmp_flat *flat = info->flat;
	struct kdump *k = calloc(1, sizeof(*k));
	const char *fmt = NULL;
	struct stat stbuf;
	kdump_num_t policy;
	unsigned long hits;
	kdump_status st;
	char *raw = NULL;
	char why[320];

	if (!k) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		close(fd);
		if (flat) {
			kmp_flat_free(flat);
			free(flat);
		}
		return false;
	}
	k->fd = fd;
	k->flat = flat;
	k->owns_flat = true;
	if (!(k->second = calloc(1, sizeof(*k->second)))) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		goto fail;
	}
	k->cut_short = info->cut_short;
	k->past = -1;
	if (flat)
		k->size = (off_t)flat->end;
	else if (!fstat(fd, &stbuf))
		k->size = stbuf.st_size;
	if (!kmp_fdhook_register(fd, flat ? flat_pread : file_pread, k)) {
		kmp_seterr(err, KMP_ERR_DUMP, "cannot watch the reads of %s", core->path);
		goto fail;
	}
	if (flat && !check_flat_elf(core, fd, err))
		goto fail;
	if (open_own(core, k)) {
		capture_hint(core, k);
		core->mem.ops = &kdump_dd_ops;
		core->mem.priv = k;
		core->mem.serial = false;	/* a reader and a translation each */
		return true;
	}
	if (!kmp_kd_load(why, sizeof(why))) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: %s", core->path, why);
		goto fail;
	}
	if (!(k->ctx = kdump_new())) {
		kmp_seterr(err, KMP_ERR_NOMEM, "out of memory");
		goto fail;
	}
	/* The cache that cache_guard() never lets evict (KMP_KDUMP_CACHE_PAGES). */
	kdump_set_number_attr(k->ctx, "cache.size", KMP_KDUMP_CACHE_PAGES);
	/*
	 * Every read through pread(), none through mmap(): a page of a
	 * mapping past the end of a truncated file is SIGBUS, and a
	 * flattened dump must be read through its index.  Before opening:
	 * libkdumpfile takes the policy when it sets up its file cache.
	 */
	st = kdump_set_number_attr(k->ctx, KDUMP_ATTR_FILE_MMAP_POLICY, KDUMP_MMAP_NEVER);
	if (st != KDUMP_OK) {
		kmp_seterr(err, KMP_ERR_DUMP, "cannot switch libkdumpfile to read(2): %s", kdump_get_err(k->ctx));
		goto fail;
	}
	hits = kmp_fdhook_hits(fd);
	st = kdump_open_fd(k->ctx, fd);
	if (st != KDUMP_OK && k->past >= 0) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s is not a kernel dump libkdumpfile can read: %s (reads went "
			   "to offset %lld, %s)", core->path, kdump_get_err(k->ctx),
			   (long long)k->past, past_what(k));
		goto fail;
	}
	if (st != KDUMP_OK) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s is not a kernel dump libkdumpfile can read: %s%s",
			   core->path, kdump_get_err(k->ctx),
			   flat ? " (after reassembling the flattened records)" : "");
		goto fail;
	}
	if (!reads_seen(core, fd, hits, err))
		goto fail;
	if (kmp_kd_number_attr(k->ctx, KDUMP_ATTR_FILE_MMAP_POLICY, &policy) != KDUMP_OK ||
	    policy != KDUMP_MMAP_NEVER) {
		kmp_seterr(err, KMP_ERR_DUMP, "libkdumpfile did not keep the read(2) policy for %s", core->path);
		goto fail;
	}
	k->past = -1;
	st = kdump_set_string_attr(k->ctx, "addrxlat.ostype", "linux");
	if (st != KDUMP_OK && k->past >= 0) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s is truncated: the data needed to translate kernel addresses "
			   "lies at offset %lld, %s", core->path, (long long)k->past, past_what(k));
		goto fail;
	}
	if (st != KDUMP_OK) {
		kmp_seterr(err, KMP_ERR_DUMP, "%s: cannot set up Linux address translation: %s",
			   core->path, kdump_get_err(k->ctx) ? kdump_get_err(k->ctx) :
			   "unknown error");
		goto fail;
	}
	if (kdump_vmcoreinfo_raw(k->ctx, &raw) == KDUMP_OK)
		core->vmcoreinfo = raw;
	if (kmp_kd_string_attr(k->ctx, KDUMP_ATTR_FILE_FORMAT, &fmt) != KDUMP_OK)
		fmt = "unknown";
	snprintf(core->format, sizeof(core->format), "%s%s", flat ? "flattened " : "", fmt);
	use_diskdump(k);
	capture_hint(core, k);
	core->mem.ops = k->dd ? &kdump_dd_ops : &kdump_ops;
	core->mem.priv = k;
	/* Under ctx_lock, but for the pages read here. */
	core->mem.serial = !k->dd;
	return true;
fail:
	kdump_free_all(k);
	return false;
}
