/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: what the dump-alone mode derives from a kdump-compressed dump
 * (the kernel's BTF inflated, its kallsyms decoded and indexed), kept in a
 * file across runs, so that a second command on the same dump (waiters,
 * then scan, top, triage) does not inflate and decode ~1,700 pages again.
 *
 * Keyed by what the dump stores, compared exactly: the entry holds, for
 * every page the tables were read from, the bytes the dump stores for it
 * (the page descriptor's flags and its compressed stream, mem.h's
 * stored()), and it is used only when the dump being read stores the very
 * same bytes at those addresses, under the same KASLR offset and table
 * addresses (VMCOREINFO).  The same stored bytes always inflate to the
 * same pages, so a dump cannot get another dump's answer, hostile or not:
 * it gets its own, or a miss.  A file that does not check out (its own
 * bounds, a CRC-32 of its contents, the symbol table's invariants as the
 * decoder checks them) is a miss too; a miss is never an error.
 *
 * Where: $KMEMPOOL_CACHE (a directory; "off" or "0": no cache), else
 * $XDG_CACHE_HOME/kmempool, else $HOME/.cache/kmempool.  The directory is
 * created 0700 and used only when it is the user's own and no one else's
 * to write; the newest KMP_DCACHE_KEEP entries are kept (9-16 MB each:
 * bookworm, trixie, sid).
 *
 * Beside an entry, a memo (kmp_dcache_memo_read(), btfmemo.h: a few KB)
 * keeps the answers the runs got from the BTF, so that a run asking only
 * what earlier runs asked does not parse it (vmdump.c).
 */
#ifndef KMP_DUMPCACHE_H
#define KMP_DUMPCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kallsyms.h"
#include "mem.h"

#define KMP_DCACHE_KEEP 8
#define KMP_DCACHE_RANGES 8		/* address ranges an entry covers, at most */
#define KMP_DCACHE_MAX (256u << 20)	/* an entry's size, at most */
/*
 * The header's size: the CRC-32 at byte 12 covers every byte from here on
 * up to the BTF; the section table at byte 24, 16 bytes (offset, length) a
 * section, the BTF's the 10th and the stored pages' the last of 11.
 */
#define KMP_DCACHE_HEADER 240

struct kmp_dcache_range {
	uint64_t addr, len;
};

/* An entry's parts, pointing into its bytes (kmp_dcache_parse()). */
struct kmp_dcache_view {
	const char *params;
	size_t params_len;
	const struct kmp_dcache_range *ranges;
	size_t nranges;
	const unsigned char *pages;	/* per page of the ranges: u32 length, stored bytes, padding to 4 */
	size_t pages_len;
	uint32_t crc;			/* the header's: of every byte from its end to the BTF */
	uint32_t btf_crc;		/* the BTF's */
	uint64_t nonce;			/* the entry's, random: its memo's key */
	struct kmp_dcache_tables {
		const void *btf;
		size_t btf_len;
		const uint32_t *btf_byname;	/* struct kmp_btf's index by name */
		size_t btf_nbyname;
		struct kmp_kallsyms_image ks;
	} t;
};

/*
 * Check an entry's bytes (@len of them at @buf, 8-byte aligned): its
 * header, every section inside it and aligned (the stored pages' last),
 * the sizes that go together, its CRC-32.  True with @v pointing into @buf; false with a
 * static reason in *@why.  (The symbol table's own invariants are
 * kmp_kallsyms_adopt()'s, the BTF's libbpf's.)
 */
bool kmp_dcache_parse(const void *buf, size_t len, struct kmp_dcache_view *v, const char **why);

/*
 * Do the stored bytes of every page of @v's ranges, as @mem stores them
 * now, equal those @v recorded?  The records are walked within
 * @v->pages_len.
 */
bool kmp_dcache_matches(const struct kmp_dcache_view *v, struct kmp_mem *mem);

/* An entry opened for use: a mapping of its file. */
struct kmp_dcache {
	void *map;
	size_t len;
	struct kmp_dcache_view v;
	char path[4096];
	size_t crc_at;		/* kmp_dcache_crc_to(): how far, and the CRC-32 so far */
	uint32_t crc;
};

/*
 * kmp_dcache_open() checks an entry's bounds and its stored pages; its
 * CRC-32 is checked as its parts are used, each part read once
 * (mapped just before its use): kmp_dcache_crc_to() adds the bytes from
 * where the last call stopped to @end (inside the part the CRC-32
 * covers: up to the BTF); kmp_dcache_crc_ok() says whether all of that
 * part was added and the CRC-32 is the header's.  The BTF has its own,
 * kmp_dcache_btf_ok().  Nothing read from an entry counts before it is
 * true.
 */
void kmp_dcache_crc_to(struct kmp_dcache *c, const void *end);
bool kmp_dcache_crc_ok(const struct kmp_dcache *c);
bool kmp_dcache_btf_ok(const struct kmp_dcache *c);

/*
 * The memo beside @c's entry (X.kdm, btfmemo.h's image): malloc'd, its
 * length in *@len, when it is the user's own regular file, its CRC-32
 * checks out and it was written for this very entry (its nonce); else
 * NULL.
 */
void *kmp_dcache_memo_read(const struct kmp_dcache *c, size_t *len);
/*
 * Write the memo @img[@len] beside the entry at @entry (written with
 * @nonce): a new file renamed into place.  False if it cannot be.
 */
bool kmp_dcache_memo_write(const char *entry, uint64_t nonce, const void *img, size_t len);

/* What kmp_dcache_open() found: no cache to use, no entry to use (write one), one. */
enum kmp_dcache_found { KMP_DCACHE_OFF, KMP_DCACHE_MISS, KMP_DCACHE_HIT };
/*
 * The entry for @params (the key's text: KASLR offset, the tables'
 * addresses; kept in the entry and compared whole) if there is one and
 * it matches @mem: HIT with @c open (its mapping stays until
 * kmp_dcache_close()).  Otherwise MISS (the cache is there: no entry, or
 * one not used) or OFF, with what happened in @state ("off", "miss", or
 * why, for the user).
 */
enum kmp_dcache_found kmp_dcache_open(struct kmp_dcache *c, struct kmp_mem *mem,
				      const char *params, const char **state);
void kmp_dcache_close(struct kmp_dcache *c);
/*
 * Let go of the pages of [@p, @p + @len) inside @c's mapping (read again
 * from the file if touched again): a part used once, out of the run's RSS.
 */
void kmp_dcache_release(struct kmp_dcache *c, const void *p, size_t len);

/*
 * Write the entry for @params: the stored bytes of every page of @r[@nr]
 * (read from @mem now) and the tables @t.  Written to a
 * new file and renamed into place (readers see a whole entry or none);
 * the oldest entries beyond KMP_DCACHE_KEEP removed (with their memos, as
 * is the memo of the entry replaced).  The path written in @path (@plen
 * bytes) and the entry's nonce in *@nonce, or false with why in @state
 * (no cache is no error).
 */
bool kmp_dcache_store(struct kmp_mem *mem, const char *params, const struct kmp_dcache_range *r,
		      size_t nr, const struct kmp_dcache_tables *t, char *path, size_t plen,
		      uint64_t *nonce, const char **state);

#endif
