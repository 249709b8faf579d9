/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * White box: filters against plain reference models written from ALGORITHMS.md, one
 * byte per cell and none of the library's layout, SIMD or prefetching. A model shares
 * with the library only what the spec leaves to the implementation: the hash (keyed
 * XXH3 of the key's 8 little-endian bytes), the position derivation (double hashing,
 * multiply-shift) and the PRNG, so that both make the same random choices. Every verdict
 * must match.
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

static void sbf_model(uint64_t memory, unsigned max, unsigned K, unsigned P, unsigned chunk)
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
			fail_msg("sbf memory %llu Max %u K %u P %u chunk %u: key %zu is %s, the model "
				 "says %s", (unsigned long long)memory, max, K, P, chunk, i,
				 v[i] ? "DUPLICATE" : "DISTINCT", dup ? "DUPLICATE" : "DISTINCT");
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
			sbf_model(c[i].memory, c[i].max, c[i].K, c[i].P, chunk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sbf_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
