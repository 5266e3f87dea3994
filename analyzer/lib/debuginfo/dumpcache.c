// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: the dump-alone mode's tables kept across runs (dumpcache.h).
 *
 * An entry is one file: a header, then its sections in this order, each at
 * an offset that is a multiple of 8:
 *   params   the key's text, compared whole
 *   ranges   the address ranges the tables were read from
 *   btfidx   the BTF's index by name (struct kmp_btf's)
 *   off, pos, names, ttab, tidx, byname   the symbol table (kallsyms.h)
 *   btf      the kernel's BTF blob
 *   pages    for each 4 KiB step of each range: u32 length, the bytes the
 *            dump stores for that page, zeros to a multiple of 4
 * The header's first CRC-32 covers every byte after it up to the BTF, its
 * second the BTF (read only when a run parses it: its answers may come
 * from the memo beside the entry); the stored pages need none: they are
 * compared with what the dump stores.
 *
 * Beside an entry X.kdc, X.kdm keeps the BTF look-ups' answers
 * (btfmemo.h): a header ("KMPDCMEM", u32 version, u32 CRC-32 of the rest,
 * u64 the entry's nonce), then the memo's image.  The nonce, random for
 * each entry written, ties the answers to that entry and no other.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "btfmemo.h"
#include "dumpcache.h"
#include "prefault.h"

#define STEP 4096u			/* the pages of a range, as walked */
#define STORED_MAX (4u + 65536u)	/* a page's stored bytes, at most */

enum { S_PARAMS, S_RANGES, S_BTFIDX, S_OFF, S_POS, S_NAMES, S_TTAB, S_TIDX, S_BYNAME, S_BTF, S_PAGES,
       NSECT };

struct header {
	char magic[8];
	uint32_t version;
	uint32_t crc;		/* of every byte after the header up to the BTF */
	uint64_t size;		/* the file's */
	struct { uint64_t off, len; } s[NSECT];
	uint64_t n, base, nbyname;	/* the symbol table's */
	uint32_t flags;
	uint32_t btf_crc;	/* of the BTF's bytes */
	uint64_t nonce;		/* this entry's: its memo's (X.kdm) */
};

_Static_assert(sizeof(struct header) == KMP_DCACHE_HEADER && NSECT == 11 && S_PAGES == 10 &&
	       S_BTF == 9, "the layout dumpcache.h describes");

static const char MAGIC[] = "KMPDCACH";	/* the first 8 bytes, without its NUL */
#define VERSION 2
#define F_RELATIVE_BASE 1u
#define F_ABS_PERCPU 2u

/* kmp_dcache_parse(), the CRC-32 checked when @crc (else kmp_dcache_crc_to()'s, as used). */
static bool parse(const void *buf, size_t len, bool crc, struct kmp_dcache_view *v,
		  const char **why)
{
	struct header h;
	const unsigned char *b = buf;

	memset(v, 0, sizeof(*v));
	*why = "not an entry (header)";
	if (len < sizeof(h))
		return false;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, MAGIC, sizeof(h.magic)) || h.version != VERSION || h.size != len ||
	    len > KMP_DCACHE_MAX)
		return false;
	*why = "a section out of bounds or out of order";
	for (int i = 0; i < NSECT; i++)
		if (h.s[i].off % 8 || h.s[i].off < sizeof(h) || h.s[i].off > len ||
		    h.s[i].len > len - h.s[i].off ||
		    (i && h.s[i].off < h.s[i - 1].off + h.s[i - 1].len))
			return false;
	*why = "sections whose sizes disagree";
	if (h.s[S_RANGES].len % sizeof(struct kmp_dcache_range) || !h.s[S_RANGES].len ||
	    h.s[S_RANGES].len > KMP_DCACHE_RANGES * sizeof(struct kmp_dcache_range) ||
	    h.n > KMP_KALLSYMS_MAX_SYMS || h.nbyname > 4ULL * KMP_KALLSYMS_MAX_SYMS ||
	    h.s[S_OFF].len != 4 * h.n || h.s[S_POS].len != 4 * h.n ||
	    h.s[S_TIDX].len != 256 * sizeof(uint16_t) || h.s[S_BYNAME].len != 4 * h.nbyname ||
	    h.s[S_BTFIDX].len % 4 ||
	    h.flags & ~(F_RELATIVE_BASE | F_ABS_PERCPU))
		return false;
	*why = "a CRC-32 that does not match";
	if (crc && (libdeflate_crc32(0, b + sizeof(h), h.s[S_BTF].off - sizeof(h)) != h.crc ||
		    libdeflate_crc32(0, b + h.s[S_BTF].off, h.s[S_BTF].len) != h.btf_crc))
		return false;
	v->crc = h.crc;
	v->btf_crc = h.btf_crc;
	v->nonce = h.nonce;
	v->params = (const char *)b + h.s[S_PARAMS].off;
	v->params_len = h.s[S_PARAMS].len;
	v->ranges = (const void *)(b + h.s[S_RANGES].off);
	v->nranges = h.s[S_RANGES].len / sizeof(struct kmp_dcache_range);
	v->pages = b + h.s[S_PAGES].off;
	v->pages_len = h.s[S_PAGES].len;
	v->t.btf = b + h.s[S_BTF].off;
	v->t.btf_len = h.s[S_BTF].len;
	v->t.btf_byname = (const void *)(b + h.s[S_BTFIDX].off);
	v->t.btf_nbyname = h.s[S_BTFIDX].len / 4;
	v->t.ks = (struct kmp_kallsyms_image){
		.n = h.n, .base = h.base, .names_len = h.s[S_NAMES].len,
		.token_len = h.s[S_TTAB].len, .nbyname = h.nbyname,
		.relative_base = h.flags & F_RELATIVE_BASE, .abs_percpu = h.flags & F_ABS_PERCPU,
		.off = (const void *)(b + h.s[S_OFF].off), .pos = (const void *)(b + h.s[S_POS].off),
		.byname = (const void *)(b + h.s[S_BYNAME].off), .names = b + h.s[S_NAMES].off,
		.ttab = (const char *)b + h.s[S_TTAB].off, .tidx = (const void *)(b + h.s[S_TIDX].off),
	};
	*why = NULL;
	return true;
}

bool kmp_dcache_parse(const void *buf, size_t len, struct kmp_dcache_view *v, const char **why)
{
	return parse(buf, len, true, v, why);
}

void kmp_dcache_crc_to(struct kmp_dcache *c, const void *end)
{
	const unsigned char *from = (const unsigned char *)c->map + c->crc_at, *to = end;

	if (to <= from || to > (const unsigned char *)c->v.t.btf)
		return;
	c->crc = libdeflate_crc32(c->crc, from, (size_t)(to - from));
	c->crc_at += (size_t)(to - from);
}

bool kmp_dcache_crc_ok(const struct kmp_dcache *c)
{
	return (const void *)((const unsigned char *)c->map + c->crc_at) == c->v.t.btf &&
	       c->crc == c->v.crc;
}

bool kmp_dcache_btf_ok(const struct kmp_dcache *c)
{
	return libdeflate_crc32(0, c->v.t.btf, c->v.t.btf_len) == c->v.btf_crc;
}

/*
 * @fn(@arg, page) for each 4 KiB step of each of @r[@nr], in order, from
 * the step that holds a range's start; false as soon as @fn says false, or
 * for a range that is empty, wraps or has more steps than an entry holds.
 */
static bool each_page(const struct kmp_dcache_range *r, size_t nr,
		      bool (*fn)(void *arg, uint64_t page), void *arg)
{
	for (size_t i = 0; i < nr; i++) {
		uint64_t first = r[i].addr & ~(uint64_t)(STEP - 1), end, n;

		if (!r[i].len || __builtin_add_overflow(r[i].addr, r[i].len - 1, &end))
			return false;
		n = ((end & ~(uint64_t)(STEP - 1)) - first) / STEP + 1;
		if (n > KMP_DCACHE_MAX / 4)
			return false;
		for (uint64_t k = 0; k < n; k++)
			if (!fn(arg, first + k * STEP))
				return false;
	}
	return true;
}

/* kmp_dcache_matches(): the next page record against what @mem stores for @page. */
struct match {
	const struct kmp_dcache_view *v;
	struct kmp_mem *mem;
	unsigned char *buf;		/* STORED_MAX bytes */
	size_t at;			/* in v->pages */
};

static bool match_page(void *arg, uint64_t page)
{
	struct match *m = arg;
	const struct kmp_dcache_view *v = m->v;
	uint32_t rlen;
	size_t got;

	if (v->pages_len - m->at < 4)
		return false;
	memcpy(&rlen, v->pages + m->at, 4);
	m->at += 4;
	if (rlen > STORED_MAX || rlen > v->pages_len - m->at ||
	    !kmp_mem_stored(m->mem, page, m->buf, STORED_MAX, &got) || got != rlen ||
	    memcmp(m->buf, v->pages + m->at, rlen))
		return false;
	m->at += (rlen + 3) & ~3u;
	return true;
}

bool kmp_dcache_matches(const struct kmp_dcache_view *v, struct kmp_mem *mem)
{
	struct match m = { .v = v, .mem = mem, .buf = malloc(STORED_MAX) };
	bool ok = m.buf && each_page(v->ranges, v->nranges, match_page, &m) &&
		  m.at == v->pages_len;

	free(m.buf);
	return ok;
}

/* The cache's directory into @dir, created if need be; false when off or not safe to use. */
static bool cache_dir(char *dir, size_t len, const char **state)
{
	const char *env = getenv("KMEMPOOL_CACHE"), *base;
	struct stat st;
	int n;

	*state = "off";
	if (env && (!strcmp(env, "off") || !strcmp(env, "0") || !*env))
		return false;
	if (env)
		n = snprintf(dir, len, "%s", env);
	else if ((base = getenv("XDG_CACHE_HOME")) && *base == '/')
		n = snprintf(dir, len, "%s/kmempool", base);
	else if ((base = getenv("HOME")) && *base == '/')
		n = snprintf(dir, len, "%s/.cache/kmempool", base);
	else
		return false;
	if (n < 0 || (size_t)n >= len - 64)
		return false;
	if (!env) {	/* $HOME/.cache may not exist yet */
		char parent[4096];

		snprintf(parent, sizeof(parent), "%s", dir);
		*strrchr(parent, '/') = '\0';
		if (mkdir(parent, 0700) && errno != EEXIST)
			return false;
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return false;
	*state = "not used: its directory is not the user's own, or others may write to it";
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_mode & (S_IWGRP | S_IWOTH))
		return false;
	return true;
}

/*
 * @path opened for reading if it is the user's own regular file (not a
 * link: O_NOFOLLOW; not a FIFO to wait on: O_NONBLOCK), its status in
 * @st; -1 if it cannot be opened, -2 (closed) if it is not such a file.
 */
static int open_owned(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_uid != geteuid()) {
		close(fd);
		return -2;
	}
	return fd;
}

/* The entry's file name for @params: FNV-1a, 64 bits (the key itself is in the entry). */
static void entry_path(char *path, size_t len, const char *dir, const char *params)
{
	uint64_t h = 14695981039346656037ULL;

	for (const char *p = params; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	snprintf(path, len, "%s/%016" PRIx64 ".kdc", dir, h);
}

enum kmp_dcache_found kmp_dcache_open(struct kmp_dcache *c, struct kmp_mem *mem,
				      const char *params, const char **state)
{
	char dir[3968];
	struct stat st;
	const char *why;
	int fd;

	memset(c, 0, sizeof(*c));
	if (!mem->ops->stored) {
		*state = "off (not a kdump-compressed dump)";
		return KMP_DCACHE_OFF;
	}
	if (!cache_dir(dir, sizeof(dir), state))
		return KMP_DCACHE_OFF;
	entry_path(c->path, sizeof(c->path), dir, params);
	*state = "miss";
	if ((fd = open_owned(c->path, &st)) == -2) {
		*state = "miss (an entry that is not the user's own regular file)";
		return KMP_DCACHE_MISS;
	}
	if (fd < 0)
		return KMP_DCACHE_MISS;
	if (st.st_size < (off_t)sizeof(struct header) || st.st_size > KMP_DCACHE_MAX) {
		close(fd);
		*state = "miss (an entry that is not the user's own regular file)";
		return KMP_DCACHE_MISS;
	}
	c->len = (size_t)st.st_size;
	c->map = mmap(NULL, c->len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (c->map == MAP_FAILED) {
		c->map = NULL;
		return KMP_DCACHE_MISS;
	}
	/*
	 * Each part is mapped just before its use and let go after it
	 * (kmp_dcache_release()): a run's peak RSS is not the whole entry.
	 */
	if (!parse(c->map, c->len, false, &c->v, &why)) {
		*state = "miss (a damaged entry: its header or bounds)";
		goto miss;
	}
	c->crc_at = sizeof(struct header);
	c->crc = 0;
	if (c->v.params_len != strlen(params) || memcmp(c->v.params, params, c->v.params_len)) {
		*state = "miss (another dump's entry under the same name)";
		goto miss;
	}
	kmp_prefault_read(c->v.pages, c->v.pages_len);
	if (!kmp_dcache_matches(&c->v, mem)) {
		*state = "miss (the dump stores other bytes at the tables' addresses)";
		goto miss;
	}
	kmp_dcache_release(c, c->v.pages, c->v.pages_len);
	utimensat(AT_FDCWD, c->path, NULL, AT_SYMLINK_NOFOLLOW);	/* used: the newest */
	*state = "hit";
	return KMP_DCACHE_HIT;
miss:
	kmp_dcache_close(c);
	return KMP_DCACHE_MISS;
}

void kmp_dcache_release(struct kmp_dcache *c, const void *p, size_t len)
{
	uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)p + len) & ~(uintptr_t)4095;

	if (c->map && e > a)
		madvise((void *)a, e - a, MADV_DONTNEED);
}

void kmp_dcache_close(struct kmp_dcache *c)
{
	if (c->map)
		munmap(c->map, c->len);
	c->map = NULL;
	c->len = 0;
}

/* A file being written: its descriptor, where it is, and the CRC-32 so far. */
struct out {
	int fd;
	uint64_t at;
	uint32_t crc;
	bool ok;
};

static void put(struct out *o, const void *p, size_t len)
{
	const char *b = p;

	while (o->ok && len) {
		ssize_t w = write(o->fd, b, len);

		if (w <= 0) {
			o->ok = false;
			return;
		}
		o->crc = libdeflate_crc32(o->crc, b, (size_t)w);
		o->at += (uint64_t)w;
		b += w;
		len -= (size_t)w;
	}
}

/* Zeros to the next multiple of @to (4 or 8). */
static void pad(struct out *o, unsigned int to)
{
	static const char zero[8];

	put(o, zero, (size_t)((to - o->at % to) % to));
}

/* Keep the newest KMP_DCACHE_KEEP entries of @dir. */
static void evict(const char *dir)
{
	struct { struct timespec t; char name[32]; } e[64];
	size_t n = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp)) && n < 64) {
		size_t l = strlen(d->d_name);
		struct stat st;

		if (l == 20 && !strcmp(d->d_name + 16, ".kdm")) {	/* a memo without its entry */
			char kdc[32];

			memcpy(kdc, d->d_name, l + 1);
			kdc[19] = 'c';
			if (fstatat(dirfd(dp), kdc, &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT)
				unlinkat(dirfd(dp), d->d_name, 0);
			continue;
		}
		if (l != 20 || strcmp(d->d_name + 16, ".kdc") ||
		    fstatat(dirfd(dp), d->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		e[n].t = st.st_mtim;
		memcpy(e[n].name, d->d_name, l + 1);
		n++;
	}
	while (n > KMP_DCACHE_KEEP) {	/* drop the oldest, one at a time */
		size_t old = 0;

		for (size_t i = 1; i < n; i++)
			if (e[i].t.tv_sec < e[old].t.tv_sec ||
			    (e[i].t.tv_sec == e[old].t.tv_sec && e[i].t.tv_nsec < e[old].t.tv_nsec))
				old = i;
		unlinkat(dirfd(dp), e[old].name, 0);
		e[old].name[19] = 'm';	/* its memo, X.kdm */
		unlinkat(dirfd(dp), e[old].name, 0);
		e[old] = e[--n];
	}
	closedir(dp);
}

/* kmp_dcache_store(): the record of what @mem stores for @page, appended to @o. */
struct record {
	struct out *o;
	struct kmp_mem *mem;
	unsigned char *buf;		/* STORED_MAX bytes */
};

static bool record_page(void *arg, uint64_t page)
{
	struct record *rec = arg;
	size_t got;
	uint32_t len;

	if (!kmp_mem_stored(rec->mem, page, rec->buf, STORED_MAX, &got))
		return false;
	len = (uint32_t)got;
	put(rec->o, &len, 4);
	put(rec->o, rec->buf, got);
	pad(rec->o, 4);
	return rec->o->ok;
}

/* The memo's path beside the entry at @entry (".kdc" to ".kdm"); false if it is no entry's. */
static bool memo_path(char *out, size_t len, const char *entry)
{
	size_t n = strlen(entry);

	if (n < 4 || n >= len || strcmp(entry + n - 4, ".kdc"))
		return false;
	memcpy(out, entry, n + 1);
	out[n - 1] = 'm';
	return true;
}

bool kmp_dcache_store(struct kmp_mem *mem, const char *params, const struct kmp_dcache_range *r,
		      size_t nr, const struct kmp_dcache_tables *t, char *path, size_t plen,
		      uint64_t *nonce, const char **state)
{
	const struct kmp_kallsyms_image *ks = &t->ks;
	char dir[3968], tmp[4096];
	struct header h = { .version = VERSION };
	struct out o = { .ok = true };
	struct record rec = { .o = &o, .mem = mem };
	const struct { const void *p; uint64_t len; } sect[S_PAGES] = {
		[S_PARAMS] = { params, strlen(params) },
		[S_RANGES] = { r, nr * sizeof(*r) },
		[S_BTFIDX] = { t->btf_byname, 4 * t->btf_nbyname },
		[S_OFF] = { ks->off, 4 * ks->n },
		[S_POS] = { ks->pos, 4 * ks->n },
		[S_NAMES] = { ks->names, ks->names_len },
		[S_TTAB] = { ks->ttab, ks->token_len },
		[S_TIDX] = { ks->tidx, 256 * sizeof(uint16_t) },
		[S_BYNAME] = { ks->byname, 4 * ks->nbyname },
		[S_BTF] = { t->btf, t->btf_len },
	};
	char mpath[4096];

	if (nr > KMP_DCACHE_RANGES || !mem->ops->stored) {
		*state = "not kept (not a kdump-compressed dump)";
		return false;
	}
	if (!cache_dir(dir, sizeof(dir), state))
		return false;
	entry_path(path, plen, dir, params);
	snprintf(tmp, sizeof(tmp), "%s/.new-XXXXXX", dir);
	*state = "not kept (cannot write in its directory)";
	if ((o.fd = mkstemp(tmp)) < 0)
		return false;
	if (!(rec.buf = malloc(STORED_MAX)))
		o.ok = false;
	memcpy(h.magic, MAGIC, sizeof(h.magic));
	h.n = ks->n;
	h.base = ks->base;
	h.nbyname = ks->nbyname;
	h.flags = (ks->relative_base ? F_RELATIVE_BASE : 0) | (ks->abs_percpu ? F_ABS_PERCPU : 0);
	o.at = sizeof(h);
	if (lseek(o.fd, (off_t)sizeof(h), SEEK_SET) < 0)
		o.ok = false;
	h.nonce = *nonce = kmp_random64();	/* (a new entry's: its memo's key) */
	h.btf_crc = libdeflate_crc32(0, t->btf, t->btf_len);
	for (int i = 0; i < S_PAGES; i++) {
		if (i == S_BTF)
			h.crc = o.crc;	/* of all before the BTF */
		h.s[i].off = o.at;
		h.s[i].len = sect[i].len;
		put(&o, sect[i].p, sect[i].len);
		pad(&o, 8);
	}
	h.s[S_PAGES].off = o.at;
	if (o.ok && !each_page(r, nr, record_page, &rec) && o.ok) {
		*state = "not kept (a page the dump's own reader does not take)";
		o.ok = false;
	}
	h.s[S_PAGES].len = o.at - h.s[S_PAGES].off;
	h.size = o.at;
	free(rec.buf);
	if (o.ok && (o.at > KMP_DCACHE_MAX || pwrite(o.fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)))
		o.ok = false;
	if (close(o.fd))
		o.ok = false;
	if (o.ok && rename(tmp, path)) {
		*state = "not kept (cannot write in its directory)";
		o.ok = false;
	}
	if (!o.ok) {
		unlink(tmp);
		return false;
	}
	if (memo_path(mpath, sizeof(mpath), path))
		unlink(mpath);	/* the answers of the entry it replaced (their nonce is not this) */
	evict(dir);
	*state = "written";
	return true;
}

/* A memo file's header (the memo's image follows). */
struct memo_header {
	char magic[8];
	uint32_t version;
	uint32_t crc;		/* of the image */
	uint64_t nonce;		/* the entry's it was written for */
};

static const char MEMO_MAGIC[] = "KMPDCMEM";
#define MEMO_VERSION 1

void *kmp_dcache_memo_read(const struct kmp_dcache *c, size_t *len)
{
	char path[4096];
	struct memo_header h;
	struct stat st;
	void *img = NULL;
	int fd;

	if (!memo_path(path, sizeof(path), c->path) || (fd = open_owned(path, &st)) < 0)
		return NULL;
	if (st.st_size > (off_t)sizeof(h) &&
	    st.st_size - (off_t)sizeof(h) <= (off_t)KMP_BTF_MEMO_MAX &&
	    read(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
	    !memcmp(h.magic, MEMO_MAGIC, sizeof(h.magic)) && h.version == MEMO_VERSION &&
	    h.nonce == c->v.nonce && (img = malloc((size_t)st.st_size - sizeof(h)))) {
		*len = (size_t)st.st_size - sizeof(h);
		if (read(fd, img, *len) != (ssize_t)*len || libdeflate_crc32(0, img, *len) != h.crc) {
			free(img);
			img = NULL;
		}
	}
	close(fd);
	return img;
}

/* The nonce in the header of the entry at @path; 0 if it has none (or is not there). */
static uint64_t entry_nonce(const char *path)
{
	struct header h;
	struct stat st;
	int fd = open_owned(path, &st);
	bool ok;

	if (fd < 0)
		return 0;
	ok = pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	     !memcmp(h.magic, MAGIC, sizeof(h.magic)) && h.version == VERSION;
	close(fd);
	return ok ? h.nonce : 0;
}

bool kmp_dcache_memo_write(const char *entry, uint64_t nonce, const void *img, size_t len)
{
	char path[4096], tmp[4096], *slash;
	struct memo_header h = { .version = MEMO_VERSION, .nonce = nonce };
	struct out o = { .ok = true };

	if (!memo_path(path, sizeof(path), entry) || len > KMP_BTF_MEMO_MAX)
		return false;
	snprintf(tmp, sizeof(tmp), "%s", path);
	if (!(slash = strrchr(tmp, '/')) || (size_t)(slash - tmp) + 16 > sizeof(tmp))
		return false;
	strcpy(slash + 1, ".new-XXXXXX");
	if ((o.fd = mkstemp(tmp)) < 0)
		return false;
	memcpy(h.magic, MEMO_MAGIC, sizeof(h.magic));
	h.crc = libdeflate_crc32(0, img, len);
	put(&o, &h, sizeof(h));
	put(&o, img, len);
	if (close(o.fd))
		o.ok = false;
	/*
	 * Only beside the entry it was written for: another run may have
	 * replaced or evicted that entry meanwhile (its memo is then its own,
	 * or none).  (A replacement between this check and the rename leaves a
	 * memo of the wrong nonce: not used, and written over.)
	 */
	if (!o.ok || entry_nonce(entry) != nonce || rename(tmp, path)) {
		unlink(tmp);
		return false;
	}
	return true;
}
