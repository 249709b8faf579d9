/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Plain Bloom filter (Deng and Rafiei, "Approximately detecting duplicates for streaming
 * data using stable Bloom filters", seed 001 §2.3; seed 003's sizing; ALGORITHMS.md §8): m
 * bits, k positions by double hashing over the whole array. DUPLICATE iff all k bits are 1;
 * every key sets its k bits. No false negatives; on an unbounded stream the FPR climbs to
 * 1. It is SBF with Max = 1 and P = 0, kept separate so its hot loop has no decrement step.
 */
#include <stdlib.h>

#include "filter_private.h"

struct bloom {
	struct pd_filter base;
	uint64_t *bits;
	uint64_t m;
	unsigned k;
};

static inline void bloom_prefetch(const struct bloom *b, const uint64_t *pos)
{
	for (unsigned j = 0; j < b->k; j++)
		pd_prefetch_w(b->base.far, &b->bits[pos[j] >> 6]);
}

static void bloom_burst(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
			unsigned n)
{
	struct bloom *b = (struct bloom *)f;
	uint64_t pos[PD_BURST_MAX][PD_MAX_HASHES];
	const unsigned k = b->k;
	const unsigned ahead = pd_ahead(k, f->far);

	(void)ts;
	for (unsigned i = 0; i < n; i++) {
		uint64_t h1 = h[i], h2 = pd_hash2(h[i]);

		for (unsigned j = 0; j < k; j++)
			pos[i][j] = pd_range(h1 + j * h2, b->m);
		if (i < ahead)
			bloom_prefetch(b, pos[i]);
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned dup = 1;

		if (i + ahead < n)
			bloom_prefetch(b, pos[i + ahead]);

		for (unsigned j = 0; j < k; j++)
			dup &= (unsigned)(b->bits[pos[i][j] >> 6] >> (pos[i][j] & 63)) & 1;
		v[i] = (uint8_t)dup;
		if (dup)
			continue; /* its bits are all set: no store, so its lines stay clean */
		for (unsigned j = 0; j < k; j++)
			b->bits[pos[i][j] >> 6] |= 1ULL << (pos[i][j] & 63);
	}
}

static void bloom_reset(struct pd_filter *f)
{
	struct bloom *b = (struct bloom *)f;

	for (uint64_t i = 0; i < b->m / 64; i++)
		b->bits[i] = 0;
}

static void bloom_destroy(struct pd_filter *f)
{
	struct bloom *b = (struct bloom *)f;

	pd_free(b->bits, b->m / 8);
	free(b);
}

static double bloom_state(const struct pd_filter *f)
{
	const struct bloom *b = (const struct bloom *)f;
	uint64_t ones = 0;

	for (uint64_t i = 0; i < b->m / 64; i++)
		ones += (uint64_t)__builtin_popcountll(b->bits[i]);
	return (double)ones / (double)b->m;
}

static unsigned bloom_sections(struct pd_filter *f, struct pd_section *sec)
{
	struct bloom *b = (struct bloom *)f;

	sec[0] = (struct pd_section){b->bits, b->m / 8};
	return 1;
}

static const struct pd_filter_ops bloom_ops = {
	.timeless = true,
	.sections = bloom_sections,
	.burst = bloom_burst,
	.reset = bloom_reset,
	.destroy = bloom_destroy,
	.state = bloom_state,
	.state_name = "fraction of 1 bits",
};

struct pd_filter *pd_bloom_create(const struct pd_filter_params *p, struct pd_error *err)
{
	struct bloom *b = PD_VARIANT_NEW(struct bloom, &bloom_ops, err);

	if (b == NULL)
		return NULL;
	b->k = p->k;
	b->m = p->memory_bytes / 8 * 64;
	b->bits = pd_variant_table(b->m / 8, err);
	if (b->bits == NULL) {
		free(b);
		return NULL;
	}
	b->base.memory_bits = b->m;
	b->base.footprint_bytes = b->m / 8;
	return &b->base;
}
