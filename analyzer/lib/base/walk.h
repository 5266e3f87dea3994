/* SPDX-License-Identifier: GPL-2.0 */
/* kmempool: a validated walk of a kernel struct list_head list. */
#ifndef KMP_WALK_H
#define KMP_WALK_H

#include "layout.h"
#include "mem.h"

enum kmp_walk_status {
	KMP_WALK_DONE,		/* back at the head */
	KMP_WALK_BROKEN,	/* unreadable or inconsistent node; err says which */
	KMP_WALK_STOPPED,	/* the visitor asked to stop (it set err) */
};

/* Return false to stop the walk. */
typedef bool (*kmp_visit_fn)(uint64_t node, void *arg, struct kmp_err *err);

/*
 * Walk the list at @head: every step checks that the node is readable,
 * that node->prev points back at the previous node, that the node is not
 * part of a cycle (Brent's algorithm) and that at most @max nodes come.
 * @last_good gets the address of the last node that passed the checks
 * (the head if none did).
 *
 * A next pointer back to an earlier entry is caught by the prev check of
 * that entry and then reported as a cycle; Brent's check catches a cycle
 * even when the prev links agree with it (memory changing under a live
 * walk), and the bound ends everything else.
 */
enum kmp_walk_status kmp_list_walk(struct kmp_mem *mem, const struct kmp_layout *l,
				   uint64_t head, uint64_t max, kmp_visit_fn visit,
				   void *arg, uint64_t *last_good, struct kmp_err *err);

#endif
