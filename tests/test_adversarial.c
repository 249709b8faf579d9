/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Keyed hashing against crafted input (Geraud, Lombard-Platet and Naccache, "Quotient hash
 * tables", seed 004, section 7). An attacker who knows the
 * code and the hash secret of one box crafts keys that all land in one qqhtd row with
 * one fingerprint: under that secret each is a false positive (a unique packet dropped).
 * Under another secret the same keys must be no worse than random keys: their false
 * positives stay within the paper's bound b/(2^f - 1) per key (plus 4 sigma), as do a
 * control set's. White box: the positions are computed with the library's own helpers,
 * as an attacker reading the source would.
 */
#include <math.h>
#include <stdio.h>

#include "filter_private.h"
#include "rows.h"
#include "testutil.h"

#define CRAFTED 300
#define B 8
#define F 8
#define MEM 4096

static struct pd_filter_params params(uint64_t seed)
{
	return (struct pd_filter_params){.type = PD_FILTER_QQHTD, .memory_bytes = MEM,
					 .seed = seed, .qht_b = B, .qht_f = F};
}

/* Row and fingerprint of a key under f's secret, as qht.c computes them. */
static void place(struct pd_filter *f, uint64_t key, uint64_t *row, uint64_t *fp)
{
	uint64_t h = pd_filter_hash(f, &key, sizeof(key)); /* little-endian host */
	pd_u128 wide = (pd_u128)h * (MEM / 64); /* line, then the slot in it */

	*row = (uint64_t)(wide >> 64) * 64 + pd_range((uint64_t)wide, pd_qht_rows_per_line(B, F));
	*fp = 1 + pd_range(pd_hash2(h), (1ULL << F) - 1);
}

/* False positives when the keys arrive after k0, all distinct. */
static unsigned fps(uint64_t seed, uint64_t k0, const uint64_t *keys, unsigned n)
{
	struct pd_filter *f = tu_create(params(seed));
	uint8_t v[CRAFTED];
	unsigned c = 0;

	pd_filter_burst_u64(f, &k0, NULL, v, 1);
	pd_filter_burst_u64(f, keys, NULL, v, n);
	for (unsigned i = 0; i < n; i++)
		c += v[i];
	pd_filter_destroy(f);
	return c;
}

static void test_crafted_keys(void **state)
{
	const uint64_t seed_a = 0x1111, seed_b = 0x2222, k0 = 42;
	struct pd_filter *a = tu_create(params(seed_a));
	uint64_t crafted[CRAFTED], control[CRAFTED], row0, fp0, x = 7;
	unsigned n = 0, fa, fb, fc;
	double bound = CRAFTED * (double)B / ((1 << F) - 1);

	(void)state;
	place(a, k0, &row0, &fp0);
	for (uint64_t c = 1000; n < CRAFTED; c++) {
		uint64_t row, fp;

		place(a, c, &row, &fp);
		if (row == row0 && fp == fp0)
			crafted[n++] = c;
	}
	for (unsigned i = 0; i < CRAFTED; i++)
		control[i] = tu_splitmix(&x) | (1ULL << 63); /* never one of the crafted */
	pd_filter_destroy(a);

	fa = fps(seed_a, k0, crafted, CRAFTED);
	fb = fps(seed_b, k0, crafted, CRAFTED);
	fc = fps(seed_b, k0, control, CRAFTED);
	print_message("crafted keys: %u/%d false positives under the secret they were made "
		      "for, %u under another; random keys %u (bound %.1f + 4 sigma)\n", fa,
		      CRAFTED, fb, fc, bound);
	assert_int_equal(fa, CRAFTED); /* the attack works where it was aimed */
	assert_true(fb <= bound + 4 * sqrt(bound));
	assert_true(fc <= bound + 4 * sqrt(bound));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crafted_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
