// SPDX-License-Identifier: GPL-2.0
/*
 * kmempool: which module holds an address, by binary search over the
 * modules' core regions (the scan asks for every word of 40 MiB that
 * could be a function pointer: a walk of every region of every module
 * each time was 40% of `kmempool scan`).
 */
#include <stddef.h>
#include <stdlib.h>

#include "bsearch.h"
#include "modules.h"

static int cmp_span(const void *a, const void *b)
{
	const struct kmp_modspan *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Only disjoint regions that do not wrap past the top of the address
 * space are indexed: then one region at most holds an address, and the
 * answer is the one a search in list order gives.  Otherwise no index.
 */
void kmp_modules_index(struct kmp_modules *m)
{
	size_t n = 0, cap = 0;
	struct kmp_modspan *s;

	free(m->spans);
	m->spans = NULL;
	m->nspans = 0;
	for (size_t i = 0; i < m->n; i++)
		cap += m->v[i].nreg < KMP_MOD_N ? m->v[i].nreg : KMP_MOD_N;
	if (!cap || !(s = malloc(cap * sizeof(*s))))
		return;
	for (size_t i = 0; i < m->n; i++) {
		for (size_t j = 0; j < m->v[i].nreg && j < KMP_MOD_N; j++) {
			const struct kmp_modregion *r = &m->v[i].reg[j];

			if (!r->size)
				continue;	/* holds nothing */
			if (r->start + r->size < r->start) {
				free(s);
				return;
			}
			s[n++] = (struct kmp_modspan){ r->start, r->start + r->size, i };
		}
	}
	if (n > 1)
		qsort(s, n, sizeof(*s), cmp_span);
	for (size_t i = 1; i < n; i++) {
		if (s[i - 1].end > s[i].start) {
			free(s);
			return;
		}
	}
	m->spans = s;
	m->nspans = n;
}

const struct kmp_module *kmp_module_at(const struct kmp_modules *m, uint64_t addr)
{
	size_t lo;

	if (!m->spans) {
		for (size_t i = 0; i < m->n; i++)
			for (size_t j = 0; j < m->v[i].nreg; j++)
				if (kmp_modregion_has(&m->v[i].reg[j], addr))
					return &m->v[i];
		return NULL;
	}
	/* Below the first region or past the last: most words the scan asks about. */
	if (!m->nspans || addr < m->spans[0].start || addr >= m->spans[m->nspans - 1].end)
		return NULL;
	/* The last region that starts at or below @addr. */
	_Static_assert(offsetof(struct kmp_modspan, start) == 0, "the key leads");
	lo = kmp_first_key(m->spans, sizeof(*m->spans), 0, m->nspans, addr, true);
	if (!lo || addr >= m->spans[lo - 1].end)
		return NULL;
	return &m->v[m->spans[lo - 1].mod];
}
