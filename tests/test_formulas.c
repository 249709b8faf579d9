/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Filters against the papers' formulas: SBF stable FPR (001 eq. 8, Corollary 4), QHT and
 * QHTD/QQHTD asymptotic FPR (004 §4.3, §5), Bloom FPR, and the FNR ordering of 000 Tables
 * 4-9. The papers: 000 = Bera, Dutta, Narang and Bhattacherjee, "Advanced Bloom filter
 * based algorithms for efficient approximate data de-duplication in streams"; 001 = Deng
 * and Rafiei, "Approximately detecting duplicates for streaming data using stable Bloom
 * filters"; 004 = Geraud, Lombard-Platet and Naccache, "Quotient hash tables".
 */
#include <math.h>
#include <stdio.h>

#include "plan_private.h"
#include "testutil.h"

/* FPR over keys [warm, n) of an all-distinct stream (every key is truly distinct). */
static double distinct_fpr(struct pd_filter *f, size_t warm, size_t n, uint64_t seed)
{
	uint64_t *k = tu_keys(n, 0, seed);
	uint8_t *v = malloc(n);
	uint64_t fp = 0;

	assert_non_null(v);
	pd_filter_burst_u64(f, k, NULL, v, n);
	for (size_t i = warm; i < n; i++)
		fp += v[i];
	free(k);
	free(v);
	return (double)fp / (double)(n - warm);
}

static void check_sbf(unsigned max, unsigned K, unsigned P)
{
	struct pd_filter_params p = {.type = PD_FILTER_SBF, .memory_bytes = 64 << 10,
				     .seed = 7, .k = K, .sbf_max = max, .sbf_p = P};
	struct pd_filter *f = tu_create(p);
	struct pd_filter_stats st;
	double m, expect, got;

	pd_filter_stats(f, &st);
	m = (double)st.memory_bits / (double)(32 - __builtin_clz(max));
	expect = pd_sbf_fps(max, K, P, m);
	got = distinct_fpr(f, 2000000, 4000000, 99);
	printf("sbf Max=%u K=%u P=%u m=%.0f: FPR %.5f, eq. 8 %.5f (%.1f%%)\n", max, K, P, m, got,
	       expect, 100.0 * (got - expect) / expect);
	assert_true(fabs(got - expect) <= 0.15 * expect);
	pd_filter_destroy(f);
}

static void test_sbf_eq8(void **state)
{
	double m = (64 << 10) / 8 * 32.0; /* d = 2 for Max = 3: 32 cells per 64-bit word */
	unsigned P = (unsigned)ceil(pd_sbf_p_for_fps(0.01, 3, 3, m) - 1e-9);

	(void)state;
	check_sbf(1, 2, 4);
	check_sbf(3, 3, P);
	check_sbf(1, 3, 11);
}

static void check_qht(enum pd_filter_type t, unsigned b, unsigned fbits)
{
	struct pd_filter_params p = {.type = t, .memory_bytes = 8 << 10, .seed = 3,
				     .qht_b = b, .qht_f = fbits};
	struct pd_filter *f = tu_create(p);
	double S = ldexp(1.0, (int)fbits) - 1.0;
	double expect = t == PD_FILTER_QHT ? b / S : 1.0 - pow(1.0 - 1.0 / S, b);
	double got = distinct_fpr(f, 200000, 1700000, 11 + b * 100 + fbits);

	printf("%s b=%u f=%u: FPR %.5f, asymptote %.5f (%.1f%%)\n", pd_filter_type_name(t), b,
	       fbits, got, expect, 100.0 * (got - expect) / expect);
	assert_true(fabs(got - expect) <= 0.10 * expect);
	pd_filter_destroy(f);
}

static void test_qht_asymptotic(void **state)
{
	static const unsigned bf[][2] = {{1, 4}, {3, 6}, {4, 8}, {8, 10}, {2, 9}};

	(void)state;
	for (unsigned i = 0; i < sizeof(bf) / sizeof(bf[0]); i++) {
		check_qht(PD_FILTER_QHT, bf[i][0], bf[i][1]);
		check_qht(PD_FILTER_QHTD, bf[i][0], bf[i][1]);
		check_qht(PD_FILTER_QQHTD, bf[i][0], bf[i][1]);
	}
}

/*
 * Bloom: fill with n0 distinct keys, then count FPs on the next batch against the sum of
 * (1 - e^(-k n / m))^k over the n it passes through (each probe also inserts).
 */
static void test_bloom_formula(void **state)
{
	const size_t n0 = 120000, batch = 80000;
	struct pd_filter_params p = {.type = PD_FILTER_BLOOM, .memory_bytes = 128 << 10,
				     .seed = 5, .k = 5};
	struct pd_filter *f = tu_create(p);
	uint64_t *k = tu_keys(n0 + batch, 0, 1234);
	uint8_t *v = malloc(n0 + batch);
	double m = 8.0 * (128 << 10), expect = 0.0;
	uint64_t fp = 0;

	(void)state;
	pd_filter_burst_u64(f, k, NULL, v, n0 + batch);
	for (size_t i = n0; i < n0 + batch; i++) {
		fp += v[i];
		/* the FPR seen by key i depends on the i - fp keys that set bits before it */
		expect += pow(1.0 - exp(-5.0 * (double)i / m), 5);
	}
	printf("bloom: %llu FPs, formula %.1f\n", (unsigned long long)fp, expect);
	assert_true(fabs((double)fp - expect) <= 0.10 * expect);
	free(k);
	free(v);
	pd_filter_destroy(f);
}

/* 000 Tables 4-9 trend: 15% distinct, about 10 bits of state per distinct key, k = 2. */
static void test_paper_trend(void **state)
{
	const size_t n = 2000000;
	const uint64_t mem = 375000;
	uint64_t universe = 0;
	double N = (double)n, lo = 1, hi = 1e12;
	struct pd_filter_params ps[] = {
		{.type = PD_FILTER_SBF, .sbf_max = 1, .k = 2, .sbf_p = 4},
		{.type = PD_FILTER_BSBF, .k = 2},
		{.type = PD_FILTER_RLBSBF, .k = 2},
	};
	double fnr[3], fpr[3];
	uint64_t *k;
	uint8_t *truth, *v;

	(void)state;
	for (int i = 0; i < 200; i++) { /* U (1 - e^(-N/U)) = 0.15 N, 000 §6 */
		double mid = sqrt(lo * hi);

		if (mid * -expm1(-N / mid) < 0.15 * N)
			lo = mid;
		else
			hi = mid;
	}
	universe = (uint64_t)lo;
	k = tu_keys(n, universe, 77);
	truth = tu_truth(k, n);
	v = malloc(n);
	for (int i = 0; i < 3; i++) {
		struct pd_filter *f;
		struct tu_score s;

		ps[i].memory_bytes = mem;
		ps[i].seed = 9;
		f = tu_create(ps[i]);
		pd_filter_burst_u64(f, k, NULL, v, n);
		s = tu_score(truth, v, 0, n);
		fpr[i] = (double)s.fp / s.distinct;
		fnr[i] = (double)s.fn / s.dups;
		printf("%-7s distinct %.3f FPR %.5f FNR %.5f\n", pd_filter_type_name(ps[i].type),
		       (double)s.distinct / n, fpr[i], fnr[i]);
		pd_filter_destroy(f);
	}
	/* The paper's ratios at this many bits a distinct key (Table 4, 128 MB): sbf 37.8%,
	 * bsbf 3.89%, rlbsbf 0.377%, about 10x each; measured here 0.380, 0.040, 0.0039. A
	 * factor of 4 leaves room for the seed and fails a filter that behaves as its
	 * neighbour (rlbsbf as bsbf: 0.0396 against 0.0401). */
	assert_true(fnr[2] < fnr[1] / 4);
	assert_true(fnr[1] < fnr[0] / 4);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			assert_true(fpr[i] < 10.0 * fpr[j]); /* same order of magnitude */
	free(k);
	free(truth);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sbf_eq8),
		cmocka_unit_test(test_qht_asymptotic),
		cmocka_unit_test(test_bloom_formula),
		cmocka_unit_test(test_paper_trend),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
