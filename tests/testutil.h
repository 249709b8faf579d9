/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helpers: a key generator and an exact oracle on the raw keys that shares no code
 * with the library (no hashing of the library's, no filter API).
 */
#ifndef PKTDEDUP_TESTUTIL_H
#define PKTDEDUP_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pktdedup/pd_filter.h>
#include <pktdedup/pd_plan.h>

static inline uint64_t tu_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* n keys drawn uniformly from [0, universe) (universe 0: all distinct, 0..n-1 shuffled). */
static inline uint64_t *tu_keys(size_t n, uint64_t universe, uint64_t seed)
{
	uint64_t *k = malloc(n * sizeof(*k));

	assert_non_null(k);
	for (size_t i = 0; i < n; i++)
		k[i] = universe ? tu_splitmix(&seed) % universe : tu_splitmix(&seed);
	return k;
}

/* Exact truth by a plain open-addressing set on raw keys: 1 = seen before. */
static inline uint8_t *tu_truth(const uint64_t *keys, size_t n)
{
	size_t size = 16;
	uint64_t *slot;
	uint8_t *used, *t = malloc(n);

	while (size < 2 * n)
		size <<= 1;
	slot = calloc(size, sizeof(*slot));
	used = calloc(size, 1);
	assert_non_null(t);
	assert_non_null(slot);
	assert_non_null(used);
	for (size_t i = 0; i < n; i++) {
		size_t j = (size_t)((keys[i] * 0x9e3779b97f4a7c15ULL) >> 20) & (size - 1);

		while (used[j] && slot[j] != keys[i])
			j = (j + 1) & (size - 1);
		t[i] = used[j];
		used[j] = 1;
		slot[j] = keys[i];
	}
	free(slot);
	free(used);
	return t;
}

static inline struct pd_filter *tu_create(struct pd_filter_params p)
{
	struct pd_error err = {0};
	struct pd_filter *f = pd_filter_create(&p, &err);

	if (f == NULL)
		fail_msg("create %s: %s", pd_filter_type_name(p.type), err.msg);
	return f;
}

/* The verdict of one 8-byte key at time ts. */
static inline uint8_t tu_one(struct pd_filter *f, uint64_t key, uint64_t ts)
{
	uint8_t v;

	pd_filter_burst_u64(f, &key, &ts, &v, 1);
	return v;
}

struct tu_score {
	uint64_t fp, fn, distinct, dups;
};

static inline struct tu_score tu_score(const uint8_t *truth, const uint8_t *v, size_t from,
				       size_t to)
{
	struct tu_score s = {0, 0, 0, 0};

	for (size_t i = from; i < to; i++) {
		s.distinct += truth[i] == 0;
		s.dups += truth[i] != 0;
		s.fp += truth[i] == 0 && v[i] != 0;
		s.fn += truth[i] != 0 && v[i] == 0;
	}
	return s;
}

#endif
