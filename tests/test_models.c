/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * White box: filters against plain reference models written from ALGORITHMS.md, one
 * byte per cell and none of the library's layout, SIMD or prefetching. A model shares
 * with the library only what the spec leaves to the implementation: the hash (keyed
 * XXH3 of the key's 8 little-endian bytes), the position derivation (double hashing,
 * multiply-shift) and the PRNG, so that both make the same random choices. Every verdict
 * must match. Also: the prefetch the library uses for large state gives the same
 * verdicts as the one for small state (forced through far_bytes, filter_private.h).
 */
#include <stdio.h>
#include <xxhash.h>

#include "filter_private.h"
#include "testutil.h"

static uint64_t key_hash(uint64_t key, uint64_t seed)
{
	unsigned char le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(key >> (8 * i));
	return XXH3_64bits_withSeed(le, sizeof(le), seed);
}

/*
 * SBF (ALGORITHMS.md §1): m cells of d bits, m = (memory / 8) * floor(64 / d). A hash g
 * names cell word * cpw + slot with word = mulhi(g, nwords) and slot = mulhi(the low half
 * of g * nwords, cpw) (sbf.c). Per key: DUPLICATE iff none of the K cells of
 * g_j = h1 + j * h2 is 0; then the P cells from the cell of the next PRNG draw, wrapping
 * at m, lose 1 if nonzero; then the K cells are set to Max.
 */
static uint64_t sbf_cell(uint64_t g, uint64_t nwords, unsigned cpw)
{
	pd_u128 wide = (pd_u128)g * nwords;

	return (uint64_t)(wide >> 64) * cpw + pd_range((uint64_t)wide, cpw);
}

static void sbf_model(uint64_t memory, unsigned max, unsigned K, unsigned P, unsigned chunk,
		      bool far)
{
	const size_t n = 60000;
	const uint64_t seed = 0x5bf0 + max * 131 + K * 17 + P;
	unsigned d = 1;

	while ((1u << d) - 1 < max)
		d++;
	const unsigned cpw = 64 / d;
	const uint64_t nwords = memory / 8, m = nwords * cpw;
	uint8_t *cell = calloc(m, 1), *v = malloc(n);
	/* keys come back while their cells live (about Max * m / P keys): both verdicts */
	uint64_t *k = tu_keys(n, max * m / (2 * (P + 1)) + 8, seed);
	struct pd_prng prng;
	size_t dups = 0;
	struct pd_filter *f = tu_create((struct pd_filter_params){
		.type = PD_FILTER_SBF, .memory_bytes = memory, .seed = seed, .k = K,
		.sbf_max = max, .sbf_p = P});

	assert_non_null(cell);
	if (far)
		f->far_bytes = 0; /* the prefetch of large tables (into L2, further ahead) */
	for (size_t i = 0; i < n; i += chunk)
		pd_filter_burst_u64(f, k + i, NULL, v + i, n - i < chunk ? n - i : chunk);
	pd_prng_seed(&prng, seed);
	for (size_t i = 0; i < n; i++) {
		uint64_t h1 = key_hash(k[i], seed), h2 = pd_hash2(h1), c[PD_MAX_HASHES];
		uint8_t dup = 1;

		for (unsigned j = 0; j < K; j++) {
			c[j] = sbf_cell(h1 + j * h2, nwords, cpw);
			dup &= cell[c[j]] != 0;
		}
		if (v[i] != dup)
			fail_msg("sbf memory %llu Max %u K %u P %u chunk %u far %d: key %zu is %s, "
				 "the model says %s", (unsigned long long)memory, max, K, P, chunk,
				 far, i, v[i] ? "DUPLICATE" : "DISTINCT",
				 dup ? "DUPLICATE" : "DISTINCT");
		dups += dup;
		uint64_t start = sbf_cell(pd_prng_next(&prng), nwords, cpw);

		for (unsigned t = 0; t < P; t++) {
			uint8_t *x = &cell[(start + t) % m];

			*x -= *x != 0;
		}
		for (unsigned j = 0; j < K; j++)
			cell[c[j]] = (uint8_t)max;
	}
	/* both verdicts occur, or the comparison proves little */
	assert_true(dups > n / 20 && dups < n - n / 20);
	pd_filter_destroy(f);
	free(cell);
	free(k);
	free(v);
}

/* Max = 1 (one bit per cell) and wider cells; P within one word, across two, longer than
 * a word, and a one-word table where a run wraps onto itself; K from 1 to PD_MAX_HASHES. */
static void test_sbf_model(void **state)
{
	static const struct {
		uint64_t memory;
		unsigned max, K, P;
	} c[] = {
		{4096, 1, 3, 11}, {4096, 1, 1, 1},   {4096, 1, 2, 64},  {4096, 1, 5, 63},
		{4096, 1, 3, 65}, {4096, 1, 4, 200}, {4096, 1, 6, 30},  {4096, 1, 8, 20},
		{4096, 1, 16, 9}, {64, 1, 2, 60},    {64, 1, 1, 512},   {64, 1, 7, 3},
		{4096, 3, 3, 20}, {4096, 7, 4, 50},  {4096, 255, 2, 30}, {64, 3, 2, 21},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		for (unsigned chunk = 7; chunk <= 70000; chunk *= 100)
			for (int far = 0; far <= 1; far++)
				sbf_model(c[i].memory, c[i].max, c[i].K, c[i].P, chunk, far);
}

/*
 * Every filter (and the windowed qqhtd): the prefetch used for state larger than twice
 * the L2 cache (into L2, further ahead), forced here on a small table, gives the verdicts
 * of the one used for small state, in bursts of 1 to 150 keys with pd_filter_prefetch()
 * hints in between. Hints and distances change the speed, never a verdict.
 */
static void test_far_same_verdicts(void **state)
{
	const size_t n = 30000;
	uint64_t *k = tu_keys(n, 6000, 77);
	uint8_t *a = malloc(n), *b = malloc(n);

	(void)state;
	for (unsigned t = 0; t <= PD_FILTER_COUNT; t++) {
		struct pd_filter_params p = {.type = (enum pd_filter_type)t, .memory_bytes = 4096,
					     .seed = 42, .target_fpr = 0.05};
		uint64_t r = 5;

		if (t == PD_FILTER_TIMERBF)
			p.window = 3000;
		if (t == PD_FILTER_COUNT) { /* windowed qqhtd */
			p.type = PD_FILTER_QQHTD;
			p.window = 3000;
		}
		struct pd_filter *near = tu_create(p), *far = tu_create(p);
		size_t dups = 0;

		far->far_bytes = 0;
		pd_filter_burst_u64(near, k, NULL, a, n);
		for (size_t i = 0; i < n;) {
			size_t len = 1 + tu_splitmix(&r) % 150;

			if (len > n - i)
				len = n - i;
			for (size_t j = i + len; j < i + 2 * len && j < n; j++)
				pd_filter_prefetch(far, pd_filter_hash(far, &k[j], sizeof(k[j])));
			pd_filter_burst_u64(far, &k[i], NULL, &b[i], len);
			i += len;
		}
		for (size_t i = 0; i < n; i++) {
			if (a[i] != b[i])
				fail_msg("%s%s: key %zu differs with the large-state prefetch",
					 pd_filter_type_name(p.type), p.window ? " (window)" : "",
					 i);
			dups += a[i];
		}
		assert_true(dups > 0 && dups < n);
		pd_filter_destroy(near);
		pd_filter_destroy(far);
	}
	free(k);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sbf_model),
		cmocka_unit_test(test_far_same_verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
