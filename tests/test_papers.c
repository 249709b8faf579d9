/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Paper-pinned accuracy: seed cells reproduced at a small scale, each under a second.
 *
 * Seed 000 (Bera, Dutta, Narang and Bhattacherjee, "Advanced Bloom filter based
 * algorithms for efficient approximate data de-duplication in streams"), Tables 7-9,
 * 64 MB: a uniform stream of 1e9 keys with 15%, 60% or 90% distinct (ALGORITHMS.md §11:
 * keys drawn from a universe U with U (1 - e^(-N/U)) = delta N), k = 2, p* = 0.03, here at
 * 1/1000 scale with the same bits per key (1e6 keys, 67,108 bytes). The stream is the
 * evaluator's generator (app/eval/streams.c); the truth is the plain oracle of
 * testutil.h, which shares no code with the library.
 *
 * Tolerance, 5% of the paper's value for both FPR and FNR: over 6 stream and filter
 * seeds at this scale the largest deviation from the paper in these 12 cells was 3.1%
 * (rsbf's FPR at 15%, 4.16 against 4.29) and 2.5% for FNR (rlbsbf at 60%, 25.1 against
 * 25.75); the seed-to-seed spread is under 3% for FPR and 1% for FNR. A filter with
 * another filter's deletion rule misses by 30% or more in every column.
 */
#include <math.h>

#include "testutil.h"
#include "../app/eval/streams.h"

struct cell {
	enum pd_filter_type type;
	double distinct, fpr, fnr; /* the paper's, in % */
};

/* Seed 000, 1B keys, 64 MB (Tables 7, 8, 9). */
static const struct cell table789[] = {
	{PD_FILTER_RSBF, 0.15, 4.2891, 43.1705},   {PD_FILTER_BSBF, 0.15, 5.5775, 13.7096},
	{PD_FILTER_BSBFSD, 0.15, 6.3441, 4.6175},  {PD_FILTER_RLBSBF, 0.15, 6.6755, 2.5795},
	{PD_FILTER_RSBF, 0.60, 15.0561, 58.6734},  {PD_FILTER_BSBF, 0.60, 20.7283, 44.9042},
	{PD_FILTER_BSBFSD, 0.60, 31.3858, 21.0835}, {PD_FILTER_RLBSBF, 0.60, 30.0440, 25.7526},
	{PD_FILTER_RSBF, 0.90, 18.6342, 60.3738},  {PD_FILTER_BSBF, 0.90, 25.0083, 49.2073},
	{PD_FILTER_BSBFSD, 0.90, 40.5501, 23.8819}, {PD_FILTER_RLBSBF, 0.90, 36.7959, 31.0134},
};

static void run_cell(const struct cell *c, uint64_t n, uint64_t memory)
{
	struct stream s;
	uint64_t *k = malloc(n * sizeof(*k));
	uint8_t *v = malloc(n), *truth;
	uint64_t fp = 0, fn = 0, distinct = 0;
	struct pd_filter *f = tu_create((struct pd_filter_params){
		.type = c->type, .memory_bytes = memory, .seed = 1, .k = 2,
		.rsbf_pstar = c->type == PD_FILTER_RSBF ? 0.03 : 0});
	double fpr, fnr;

	assert_non_null(k);
	assert_non_null(v);
	assert_int_equal(stream_open_uniform(&s, n, c->distinct, 42), 0);
	assert_int_equal(stream_next(&s, k, n), (long)n);
	stream_close(&s);
	truth = tu_truth(k, n);
	pd_filter_burst_u64(f, k, NULL, v, n);
	for (uint64_t i = 0; i < n; i++) {
		distinct += truth[i] == 0;
		fp += truth[i] == 0 && v[i];
		fn += truth[i] && !v[i];
	}
	fpr = 100.0 * (double)fp / (double)distinct;
	fnr = 100.0 * (double)fn / (double)(n - distinct);
	if (fabs(fpr / c->fpr - 1) > 0.05 || fabs(fnr / c->fnr - 1) > 0.05)
		fail_msg("%s, %.0f%% distinct: FPR %.4f%% FNR %.4f%%, the paper %.4f%% %.4f%%",
			 pd_filter_type_name(c->type), 100 * c->distinct, fpr, fnr, c->fpr,
			 c->fnr);
	print_message("%-7s %2.0f%% distinct: FPR %7.4f%% (paper %7.4f%%), FNR %7.4f%% "
		      "(paper %7.4f%%)\n", pd_filter_type_name(c->type), 100 * c->distinct,
		      fpr, c->fpr, fnr, c->fnr);
	pd_filter_destroy(f);
	free(truth);
	free(v);
	free(k);
}

static void test_seed000_64mb(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(table789) / sizeof(table789[0]); i++)
		run_cell(&table789[i], 1000000, 64ULL * 1048576 / 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed000_64mb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
