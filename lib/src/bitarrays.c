/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sampling Bloom filters of seed 000 (Bera, Dutta, Narang and Bhattacherjee, "Advanced
 * Bloom filter based algorithms for efficient approximate data de-duplication in streams";
 * ALGORITHMS.md §2-5): RSBF, BSBF, BSBFSD, RLBSBF.
 *
 * State: k bit arrays ("Bloom filters") of s bits each, one position per array
 * (h_j = range(h1 + j*h2, s)). DUPLICATE iff all k bits are 1. (The seed's Algorithms 2-4
 * swap DUPLICATE and DISTINCT: a typo; all bits set means DUPLICATE.) They differ in what
 * a DISTINCT key deletes before its k bits are set:
 *
 *   bsbf    reset one uniformly random bit in each array
 *   bsbfsd  reset one uniformly random bit of one uniformly random array
 *   rlbsbf  in each array j pick a random bit and reset it with probability L_j / s
 *   rsbf    (Algorithm 1 of seed 000 as printed; i is the key's index from 1)
 *           phase 1 (i <= s): insert every key, whatever its verdict: set its k bits,
 *                    then reset one uniformly random bit per array;
 *           phase 2 (s/i > p*): the same insertion with probability s/i, whatever the
 *                    verdict;
 *           phase 3 (s/i <= p*): for each array whose bit h_j is 0, reset one bit that is
 *                    1 (the next set bit at or after a random position, wrapping), then
 *                    set h_j: the load of each array stays constant.
 *
 * L_j, the number of 1 bits of array j, is kept exactly on every 0->1 and 1->0 change.
 *
 * Random draws per key are a fixed number, in this order: bsbf k (a reset position per
 * array), bsbfsd 2 (the array, the position), rlbsbf 2k (k positions, then k reset
 * tests), rsbf k+1 (k positions, or phase 3's k scan starts, then the insertion draw).
 * They are drawn in pass 1 so their cache lines are prefetched with the probe positions;
 * a key that does not need them discards them. The count never depends on a verdict, so
 * verdicts are those of one-by-one processing. Reset lines are prefetched only for keys
 * that may reset (rsbf: not when phase 2's insertion draw fails), and bsbf, bsbfsd and
 * rlbsbf keys found DUPLICATE store nothing, so the lines they touch stay clean.
 *
 * Layout: the k arrays are consecutive runs of s/64 words in one allocation.
 */
#include <stdlib.h>

#include "filter_private.h"

struct ba {
	struct pd_filter base;
	uint64_t *bits;
	uint64_t swords;   /* words per array */
	uint64_t s;        /* bits per array */
	unsigned k;
	enum pd_filter_type type;
	double pstar;
	uint64_t iter;     /* rsbf: index of the current key, from 1 */
	uint64_t load[PD_MAX_HASHES];
};

static inline uint64_t *ba_word(struct ba *b, unsigned j, uint64_t pos)
{
	return &b->bits[j * b->swords + (pos >> 6)];
}

static inline int ba_test(struct ba *b, unsigned j, uint64_t pos)
{
	return (int)((*ba_word(b, j, pos) >> (pos & 63)) & 1);
}

static inline void ba_set(struct ba *b, unsigned j, uint64_t pos)
{
	uint64_t *w = ba_word(b, j, pos);
	uint64_t m = 1ULL << (pos & 63);

	b->load[j] += (*w & m) == 0;
	*w |= m;
}

static inline void ba_clear(struct ba *b, unsigned j, uint64_t pos)
{
	uint64_t *w = ba_word(b, j, pos);
	uint64_t m = 1ULL << (pos & 63);

	b->load[j] -= (*w & m) != 0;
	*w &= ~m;
}

/* rsbf phase 3: reset the first 1 bit at or after pos in array j (wrapping). */
static void ba_clear_next_set(struct ba *b, unsigned j, uint64_t pos)
{
	uint64_t *a = &b->bits[j * b->swords];
	uint64_t wi = pos >> 6;
	uint64_t x = a[wi] & (~0ULL << (pos & 63));

	if (b->load[j] == 0)
		return;
	for (uint64_t step = 0; step <= b->swords; step++) {
		if (x != 0) {
			a[wi] &= ~(x & (0 - x)); /* clear the lowest set bit of x */
			b->load[j]--;
			return;
		}
		if (++wi == b->swords)
			wi = 0;
		x = a[wi];
	}
}

/* The probe lines of a key and, with resets, the lines its random resets may touch. */
static inline void ba_prefetch(struct ba *b, const uint64_t *pos, const uint64_t *rnd,
			       int resets)
{
	for (unsigned j = 0; j < b->k; j++)
		pd_prefetch_w(b->base.far, ba_word(b, j, pos[j]));
	if (!resets)
		return;
	if (b->type == PD_FILTER_BSBFSD) {
		pd_prefetch_w(b->base.far,
			      ba_word(b, (unsigned)pd_range(rnd[0], b->k), pd_range(rnd[1], b->s)));
		return;
	}
	for (unsigned j = 0; j < b->k; j++)
		pd_prefetch_w(b->base.far, ba_word(b, j, pd_range(rnd[j], b->s)));
}

static void ba_burst(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		     unsigned n)
{
	struct ba *b = (struct ba *)f;
	const unsigned k = b->k;
	uint64_t pos[PD_BURST_MAX][PD_MAX_HASHES];
	uint64_t rnd[PD_BURST_MAX][2 * PD_MAX_HASHES];
	uint8_t resets[PD_BURST_MAX]; /* may key i reset bits, if it is DISTINCT? */
	const unsigned ahead = pd_ahead(2 * k, f->far);
	unsigned ndraw;

	(void)ts;
	switch (b->type) {
	case PD_FILTER_BSBFSD:
		ndraw = 2;
		break;
	case PD_FILTER_RLBSBF:
		ndraw = 2 * k;
		break;
	case PD_FILTER_RSBF:
		ndraw = k + 1;
		break;
	default:
		ndraw = k;
		break;
	}

	/* Pass 1: probe positions and random draws of every key. */
	for (unsigned i = 0; i < n; i++) {
		uint64_t h1 = h[i], h2 = pd_hash2(h[i]), it;

		for (unsigned j = 0; j < k; j++)
			pos[i][j] = pd_range(h1 + j * h2, b->s);
		for (unsigned j = 0; j < ndraw; j++)
			rnd[i][j] = pd_prng_next(&f->prng);
		/* rsbf knows each key's index: no resets in phase 2 when the insertion draw
		 * fails (pass 2's test) */
		it = b->iter + i + 1;
		resets[i] = b->type != PD_FILTER_RSBF || it <= b->s ||
			    (double)b->s / (double)it <= b->pstar || pd_range(rnd[i][k], it) < b->s;
		if (i < ahead)
			ba_prefetch(b, pos[i], rnd[i], resets[i]);
	}

	/* Pass 2: probe and update in key order, lines of key i + ahead in flight. */
	for (unsigned i = 0; i < n; i++) {
		unsigned dup = 1;

		if (i + ahead < n)
			ba_prefetch(b, pos[i + ahead], rnd[i + ahead], resets[i + ahead]);
		for (unsigned j = 0; j < k; j++)
			dup &= (unsigned)ba_test(b, j, pos[i][j]);
		v[i] = (uint8_t)dup;

		switch (b->type) {
		case PD_FILTER_BSBF:
			if (dup)
				continue;
			for (unsigned j = 0; j < k; j++)
				ba_clear(b, j, pd_range(rnd[i][j], b->s));
			break;
		case PD_FILTER_BSBFSD:
			if (dup)
				continue;
			ba_clear(b, (unsigned)pd_range(rnd[i][0], k), pd_range(rnd[i][1], b->s));
			break;
		case PD_FILTER_RLBSBF:
			if (dup)
				continue;
			for (unsigned j = 0; j < k; j++) {
				/* reset with probability L_j / s: compare 64-bit uniform to L_j/s */
				if (pd_range(rnd[i][k + j], b->s) < b->load[j])
					ba_clear(b, j, pd_range(rnd[i][j], b->s));
			}
			break;
		case PD_FILTER_RSBF:
		default: {
			uint64_t it = ++b->iter;

			if (it > b->s && (double)b->s / (double)it <= b->pstar) {
				/* phase 3: keep every array's load constant */
				for (unsigned j = 0; j < k; j++) {
					if (!ba_test(b, j, pos[i][j])) {
						ba_clear_next_set(b, j, pd_range(rnd[i][j], b->s));
						ba_set(b, j, pos[i][j]);
					}
				}
				continue;
			}
			/* phase 2: insert with probability s/i; phase 1: always */
			if (it > b->s && pd_range(rnd[i][k], it) >= b->s)
				continue;
			for (unsigned j = 0; j < k; j++)
				ba_set(b, j, pos[i][j]);
			for (unsigned j = 0; j < k; j++)
				ba_clear(b, j, pd_range(rnd[i][j], b->s));
			continue;
		}
		}
		for (unsigned j = 0; j < k; j++)
			ba_set(b, j, pos[i][j]);
	}
}

static void ba_reset(struct pd_filter *f)
{
	struct ba *b = (struct ba *)f;

	for (uint64_t i = 0; i < b->k * b->swords; i++)
		b->bits[i] = 0;
	for (unsigned j = 0; j < b->k; j++)
		b->load[j] = 0;
	b->iter = 0;
}

static void ba_destroy(struct pd_filter *f)
{
	struct ba *b = (struct ba *)f;

	pd_free(b->bits, b->k * b->swords * sizeof(uint64_t));
	free(b);
}

static double ba_state(const struct pd_filter *f)
{
	const struct ba *b = (const struct ba *)f;
	uint64_t ones = 0;

	for (unsigned j = 0; j < b->k; j++)
		ones += b->load[j];
	return (double)ones / ((double)b->s * b->k);
}

static unsigned ba_sections(struct pd_filter *f, struct pd_section *sec)
{
	struct ba *b = (struct ba *)f;

	sec[0] = (struct pd_section){b->bits, b->k * b->swords * sizeof(uint64_t)};
	sec[1] = (struct pd_section){&b->iter, sizeof(b->iter)};
	return 2;
}

/* The loads are the exact counts of 1 bits per array: recount them, trust nothing. */
static void ba_post_load(struct pd_filter *f)
{
	struct ba *b = (struct ba *)f;

	for (unsigned j = 0; j < b->k; j++) {
		uint64_t ones = 0;

		for (uint64_t i = 0; i < b->swords; i++)
			ones += (uint64_t)__builtin_popcountll(b->bits[j * b->swords + i]);
		b->load[j] = ones;
	}
}

static const struct pd_filter_ops ba_ops = {
	.timeless = true,
	.sections = ba_sections,
	.post_load = ba_post_load,
	.burst = ba_burst,
	.reset = ba_reset,
	.destroy = ba_destroy,
	.state = ba_state,
	.state_name = "fraction of 1 bits",
};

struct pd_filter *pd_bitarrays_create(const struct pd_filter_params *p, struct pd_error *err)
{
	struct ba *b = PD_VARIANT_NEW(struct ba, &ba_ops, err);

	if (b == NULL)
		return NULL;
	b->type = p->type;
	b->k = p->k;
	b->pstar = p->rsbf_pstar;
	b->swords = p->memory_bytes / sizeof(uint64_t) / b->k;
	b->s = b->swords * 64;
	b->bits = pd_variant_table(b->k * b->swords * sizeof(uint64_t), err);
	if (b->bits == NULL) {
		free(b);
		return NULL;
	}
	b->base.memory_bits = b->s * b->k;
	b->base.footprint_bytes = b->k * b->swords * sizeof(uint64_t);
	return &b->base;
}
