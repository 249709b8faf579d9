/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The copy counts of --allow N (pd_allow.h): 64-byte buckets of 12 {tag, count} entries.
 * A key's bucket comes from the top bits of its hash (multiply-shift), its tag from the
 * low 32 (0 is taken as 1: 0 marks an empty entry). A burst prefetches every bucket,
 * then applies the verdicts in order (copies of one key in one burst count in turn).
 */
#include <stdlib.h>
#include <string.h>

#include "pktdedup/pd_allow.h"
#include "filter_private.h"

#define WAYS 12

struct bucket {
	uint32_t tag[WAYS];
	uint8_t cnt[WAYS];
	uint8_t next;     /* the entry a full bucket overwrites next */
	uint8_t pad[3];
};

_Static_assert(sizeof(struct bucket) == 64, "one cache line a bucket");

struct pd_allow {
	unsigned n;
	uint64_t nb;      /* buckets */
	struct bucket *b;
};

struct pd_allow *pd_allow_create(unsigned n, uint64_t bytes)
{
	struct pd_allow *a;

	if (n < 1 || n > PD_ALLOW_MAX || bytes < sizeof(struct bucket) ||
	    bytes > (UINT64_C(1) << 40))
		return NULL;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return NULL;
	a->n = n;
	a->nb = bytes / sizeof(struct bucket);
	a->b = pd_alloc_zero(a->nb * sizeof(struct bucket));
	if (a->b == NULL) {
		free(a);
		return NULL;
	}
	return a;
}

void pd_allow_free(struct pd_allow *a)
{
	if (a == NULL)
		return;
	pd_free(a->b, a->nb * sizeof(struct bucket));
	free(a);
}

uint64_t pd_allow_entries(const struct pd_allow *a)
{
	return a->nb * WAYS;
}

/* The key's entry in its bucket, or a fresh one (count 0) taken from an empty or the
 * next overwritten entry. */
static unsigned entry(struct bucket *b, uint32_t tag, int *found)
{
	unsigned empty = WAYS, j;

	for (j = 0; j < WAYS; j++) {
		if (b->tag[j] == tag) {
			*found = 1;
			return j;
		}
		if (b->tag[j] == 0 && empty == WAYS)
			empty = j;
	}
	*found = 0;
	if (empty == WAYS) {
		empty = b->next;
		b->next = (uint8_t)(b->next + 1 == WAYS ? 0 : b->next + 1);
	}
	b->tag[empty] = tag;
	b->cnt[empty] = 0;
	return empty;
}

void pd_allow_apply(struct pd_allow *a, const uint64_t *h, uint8_t *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		__builtin_prefetch(&a->b[pd_range(h[i], a->nb)], 1);
	for (unsigned i = 0; i < n; i++) {
		struct bucket *b = &a->b[pd_range(h[i], a->nb)];
		const uint32_t tag = (uint32_t)h[i] | ((uint32_t)h[i] == 0);
		int found;
		const unsigned j = entry(b, tag, &found);

		if (v[i] == PD_DISTINCT) {
			b->cnt[j] = 0; /* new: its copies count from here */
		} else if (b->cnt[j] < a->n) {
			b->cnt[j]++;
			v[i] = PD_ALLOWED;
		}
	}
}
