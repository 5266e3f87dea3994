/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmempool: one walk of mempool_list, shared by the files that make it
 * (lib/mempool/: pools.c the walk, poolrec.c the record, poolstr.c the
 * strings, poollive.c the checks of live memory).  Not for callers
 * outside them: theirs is pools.h.
 */
#ifndef KMP_POOLWALK_H
#define KMP_POOLWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "pools.h"
#include "readcache.h"
#include "tagname.h"

#define KMP_PW_NOTES_KEPT 16
#define KMP_PW_PENDING_MAX 64
#define KMP_PW_STRS_MAX 3		/* strings a pool's line shows: name, owner, instance */

/* Live: a string as the walk read it, to be read again once its pool is checked. */
struct kmp_pw_str {
	uint64_t ptr;
	size_t len;		/* without the NUL */
	char *bytes;		/* malloc'ed, NUL-terminated */
};

/* The members of a pool record that are not its counters, from its bytes (field.h). */
struct kmp_poolrec {
	uint64_t name, owner, instance, elem_size, nr_reserve, nr_wait, nr_fail, nr_empty;
	int64_t type;
	uint64_t tag, alloc, pool_data;		/* series v6 */
	uint64_t id;				/* series v7 */
};

struct kmp_pw_pending {
	uint64_t addr;
	struct kmp_poolrec r;
	struct kmp_pool p;
	unsigned char *buf;		/* its record as read */
	struct kmp_pw_str str[KMP_PW_STRS_MAX];	/* its strings as read */
	size_t nstr;
};


/* The state of one walk of mempool_list (kmp_walk_pools()). */
struct kmp_pw {
	/*
	 * Live memory: @mem reads through @rc, the pages of this walk
	 * attempt; @fresh is the reader itself, for what must be read now
	 * (is the pool still there, its counters and queue).  Otherwise both
	 * are the caller's reader.
	 */
	struct kmp_mem *mem, *fresh;
	struct kmp_readcache *rc;
	const struct kmp_layout *l;
	const struct kmp_limits *lim;
	const struct kmp_pool_sink *sink;
	struct kmp_pools *st;
	unsigned char *buf, *again;
	struct kmp_tagcache *tags;	/* series v6: the tags read in this walk */
	/*
	 * Live: pools read whose strings are read, not yet checked again;
	 * all in one page, so that one read checks them (kmp_pw_flush_pending()).
	 */
	struct kmp_pw_pending *pend;
	size_t npend;
	struct kmp_pw_str cur[KMP_PW_STRS_MAX];	/* the strings of the pool being read */
	size_t ncur;
	unsigned char *pend_bytes;	/* KMP_PW_PENDING_MAX records */
	struct kmp_spans *spans;	/* kmp_pw_flush_pending()'s reads */
	bool have_now;		/* format 1.2: jiffies of this walk */
	uint64_t now;
	/* Notes of a live attempt are kept until it is known to be the last. */
	char (*kept)[KMP_ERRLEN];
	size_t nkept, dropped;
};

/* pools.c */
/* A note of the walk (kept on live memory until the walk is the last). */
void kmp_pw_note(struct kmp_pw *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A pool that breaks a rule, left out with one note; on live memory, if it is still there. */
bool kmp_pw_left_out(struct kmp_pw *a, uint64_t addr, const char *why, struct kmp_err *err);
/* The pool at @addr (record @rec, read into a->buf) finished and sent; frees @pp's strings. */
bool kmp_pw_finish(struct kmp_pw *a, uint64_t addr, const struct kmp_poolrec *rec,
		   struct kmp_pool *pp, struct kmp_err *err);

/* poolrec.c */
bool kmp_poolrec_read(const struct kmp_layout *l, const unsigned char *buf,
		      struct kmp_poolrec *r, struct kmp_err *err);
bool kmp_poolrec_fits(const struct kmp_layout *l, struct kmp_err *err);
bool kmp_poolrec_counters(const struct kmp_layout *l, const unsigned char *buf,
			  struct kmp_pool *p, struct kmp_err *err);
bool kmp_poolrec_counters_ok(const struct kmp_pool *p);
bool kmp_poolrec_same(const struct kmp_layout *l, uint64_t addr, const unsigned char *was,
		      const unsigned char *now, struct kmp_err *err);
bool kmp_poolrec_queue_empty(const struct kmp_layout *l, const unsigned char *buf,
			     uint64_t addr);

/* poolstr.c: 1, 0 (left out, noted) or -1 (@err). */
int kmp_pw_v5_strings(struct kmp_pw *a, uint64_t addr, const struct kmp_poolrec *r,
		      struct kmp_pool *p, struct kmp_err *err);
int kmp_pw_v6_strings(struct kmp_pw *a, uint64_t addr, const struct kmp_poolrec *r,
		      struct kmp_pool *p, struct kmp_err *err);
void kmp_pw_free_strs(struct kmp_pw_str *v, size_t *n);

/* poollive.c */
bool kmp_pw_still_listed(struct kmp_pw *a, uint64_t addr, struct kmp_err *err);
bool kmp_pw_flush_pending(struct kmp_pw *a, struct kmp_err *err);
void kmp_pw_drop_pending(struct kmp_pw *a);

#endif
