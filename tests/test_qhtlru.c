/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qhtlru against a plain reference model, and its lookup variants against each other;
 * the wide rows of qht.c on AVX-512 against their SWAR path.
 *
 * The model is written from the rules in docs/filters.md and shares no code with the
 * library: each row is an array of b fingerprints, oldest first, empty lanes (0) at the
 * bottom; a key's row is (h * n) >> 64 and its fingerprint 1 + ((h2 * (2^f - 1)) >> 64)
 * with h2 the murmur3 finaliser of h, forced odd. Every verdict of the filter, through
 * bursts of 1 to 150 keys, must equal the model's, for (b, f) shapes whose lanes sit in
 * one word, straddle words (the newest lane too), or fill the whole line, with each
 * lookup variant this CPU has (scalar, AVX2, AVX-512: checkasm-style), on small tables
 * (evictions every few keys; row counts that are and are not a power of two: the
 * AVX-512 rows and fingerprints, and the scalar ones) and on one larger than twice the
 * L2 cache (the far prefetch path).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <pktdedup/pd_filter.h>
#include <pktdedup/pd_snapshot.h>

#include "qhtlru_private.h"

/* ---- the model ---- */

struct model {
	uint64_t n;
	unsigned b, f;
	uint32_t *lanes; /* n rows of b, oldest first */
};

__extension__ typedef unsigned __int128 u128;

static uint64_t m_range(uint64_t h, uint64_t n)
{
	return (uint64_t)(((u128)h * n) >> 64);
}

static uint64_t m_fp(uint64_t h, unsigned f)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return 1 + m_range(h | 1, (1ULL << f) - 1);
}

static int model_key(struct model *m, uint64_t h)
{
	uint32_t *row = m->lanes + m_range(h, m->n) * m->b;
	uint32_t fp = (uint32_t)m_fp(h, m->f);
	unsigned hit = 0, j = 0;

	for (unsigned i = 0; i < m->b; i++)
		if (row[i] == fp) {
			hit = 1;
			j = i;
		}
	/* hit: lane j leaves; miss: the oldest, lane 0, leaves; fp is the newest */
	memmove(row + j, row + j + 1, (m->b - 1 - j) * sizeof(*row));
	row[m->b - 1] = fp;
	return (int)hit;
}

/* ---- streams ---- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Hashes of a stream with copies at several gaps: a key repeats 1, 2, 3, b - 1, b, b + 1
 * or many keys later (through its row: the universe is a few keys per lane).
 */
static void make_stream(uint64_t *h, size_t n, uint64_t universe, uint64_t seed)
{
	uint64_t s = seed;

	for (size_t i = 0; i < n; i++) {
		uint64_t r = rng_next(&s);

		if (i > 0 && r % 4 == 0) {
			static const size_t gaps[] = {1, 2, 3, 7, 19, 20, 21, 64, 500};
			size_t g = gaps[(r >> 8) % (sizeof(gaps) / sizeof(gaps[0]))];

			h[i] = h[i > g ? i - g : 0];
		} else {
			uint64_t k = rng_next(&s) % universe;

			h[i] = rng_next(&k) ^ 0x5151515151515151ULL; /* a fixed hash per key */
		}
	}
}

static const struct {
	unsigned b, f;
} shapes[] = {
	{20, 25}, /* the 1e-6 plan: lanes straddle words */
	{16, 32}, /* two lanes a word */
	{21, 24}, /* 504 bits */
	{40, 12}, /* the 0.01 plan */
	{64, 8},  /* 64 lanes, the whole line */
	{1, 32},  /* one lane */
	{3, 17},
	{30, 17}, /* 510 bits */
	{7, 2},   /* tiny fingerprints: many false matches, all must agree */
	{4, 17},  /* the newest lane straddles words 0 and 1 */
	{13, 30}, /* the newest lane straddles words 5 and 6 */
};

static void run_shape(unsigned b, unsigned f, uint64_t memory, size_t nkeys,
		      enum pd_qhtlru_variant var, int hint)
{
	struct pd_filter_params p = {.type = PD_FILTER_QHTLRU, .memory_bytes = memory,
				     .target_fpr = 0.5, .seed = 3, .qht_b = b, .qht_f = f};
	struct pd_error err;
	struct pd_filter *flt = pd_filter_create(&p, &err);
	struct model m = {.n = memory / 64, .b = b, .f = f};
	uint64_t *h = malloc(nkeys * sizeof(*h)), s = b * 1000 + f;
	uint8_t *v = malloc(nkeys);
	size_t i = 0, dups = 0;

	assert_non_null(flt);
	assert_int_equal(pd_qhtlru_set_variant(flt, var), 0);
	pd_filter_hint_prefetched(flt, hint); /* a hint only: the same verdicts */
	assert_int_equal(pd_filter_params(flt)->qht_b, b);
	assert_int_equal(pd_filter_params(flt)->qht_f, f);
	m.lanes = calloc(m.n * b, sizeof(*m.lanes));
	assert_non_null(h);
	assert_non_null(v);
	assert_non_null(m.lanes);
	make_stream(h, nkeys, m.n * b * 3, s);
	while (i < nkeys) { /* bursts of 1 to 150 keys */
		size_t c = 1 + rng_next(&s) % 150;

		if (c > nkeys - i)
			c = nkeys - i;
		pd_filter_burst_hashed(flt, h + i, NULL, v + i, c);
		i += c;
	}
	for (i = 0; i < nkeys; i++) {
		int want = model_key(&m, h[i]);

		if (v[i] != want)
			fail_msg("b=%u f=%u variant %d: key %zu: filter %d, model %d", b, f,
				 (int)var, i, v[i], want);
		dups += (size_t)want;
	}
	assert_true(dups > nkeys / 10); /* the stream has copies, some found */
	free(m.lanes);
	free(v);
	free(h);
	pd_filter_destroy(flt);
}

/* Every shape, every variant: verdicts = the model's, through evictions. */
static void test_model_small(void **state)
{
	static const char *const names[PD_QHTLRU_VARIANTS] = {"scalar", "AVX2", "AVX-512F",
								"AVX-512 VBMI"};

	(void)state;
	for (unsigned v = 0; v < PD_QHTLRU_VARIANTS; v++) {
		if (!pd_qhtlru_variant_supported((enum pd_qhtlru_variant)v)) {
			/* said, so that a run on a CPU without it does not pass for a check */
			print_message("qhtlru: the %s rows are not on this CPU: not checked\n",
				      names[v]);
			continue;
		}
		for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
			run_shape(shapes[s].b, shapes[s].f, 64 * 61, 60000,
				  (enum pd_qhtlru_variant)v, 0);
			/* a power-of-two row count: the SIMD rows and fingerprints */
			run_shape(shapes[s].b, shapes[s].f, 64 * 64, 60000,
				  (enum pd_qhtlru_variant)v, 0);
		}
	}
}

/*
 * Every shape a row can have (f = 1..32, b up to the lanes that fit: b * f <= 512, b <= 64),
 * every variant this CPU has: short streams against the model. The lookups pick their
 * path by f (the byte shuffles for f <= 25) and lay their lanes out by tables made from
 * (b, f), so the shapes above could miss one that a table gets wrong.
 */
static void test_model_every_shape(void **state)
{
	(void)state;
	for (unsigned v = 0; v < PD_QHTLRU_VARIANTS; v++) {
		unsigned shapes_run = 0;

		if (!pd_qhtlru_variant_supported((enum pd_qhtlru_variant)v))
			continue;
		for (unsigned f = 1; f <= 32; f++)
			for (unsigned b = 1; b <= 64 && b * f <= 512; b++) {
				run_shape(b, f, 64 * 61, 1500, (enum pd_qhtlru_variant)v, 0);
				shapes_run++;
			}
		assert_int_equal(shapes_run, 1188); /* sum over f of min(64, 512 / f) */
	}
}

/* A table far larger than the L2 cache: the far prefetch path, same verdicts, with and
 * without the hint that the caller prefetched (here it did not: only the time differs). */
static void test_model_far(void **state)
{
	(void)state;
	for (unsigned v = 0; v < PD_QHTLRU_VARIANTS; v++)
		if (pd_qhtlru_variant_supported((enum pd_qhtlru_variant)v))
			for (int hint = 0; hint < 2; hint++)
				run_shape(20, 25, 8u << 20, 400000, (enum pd_qhtlru_variant)v,
					  hint);
}

/*
 * Staging where it prefetches (state beyond twice the L2 cache): bursts staged one ahead
 * with pd_filter_stage_u64 carry pd_filter_hash's hashes and get pd_filter_burst_u64's
 * verdicts (tests/test_filters.c checks small filters, which stage without prefetching).
 * The staged filter has the hint that its caller prefetched, as pktdedup's worker gives.
 */
static void test_stage_far(void **state)
{
	const size_t n = 200000, burst = 32;
	struct pd_filter_params p = {.type = PD_FILTER_QHTLRU, .memory_bytes = 8u << 20,
				     .target_fpr = 1e-6, .seed = 11};
	struct pd_error err;
	struct pd_filter *a = pd_filter_create(&p, &err), *b = pd_filter_create(&p, &err);
	uint64_t *k = malloc(n * sizeof(*k)), *h = malloc(n * sizeof(*h)), s = 5;
	uint8_t *va = malloc(n), *vb = malloc(n);
	size_t dups = 0;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	pd_filter_hint_prefetched(b, 1);
	assert_true(k != NULL && h != NULL && va != NULL && vb != NULL);
	for (size_t i = 0; i < n; i++) { /* about 4 copies of each key */
		uint64_t x = rng_next(&s) % (n / 4);

		k[i] = rng_next(&x);
	}
	pd_filter_burst_u64(a, k, NULL, va, n);
	for (size_t i = 0; i <= n; i += burst) {
		if (i < n)
			pd_filter_stage_u64(b, k + i, h + i, n - i < burst ? n - i : burst);
		if (i > 0)
			pd_filter_burst_hashed(b, h + i - burst, NULL, vb + i - burst, burst);
	}
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(h[i], pd_filter_hash(a, &k[i], sizeof(k[i]))); /* little-endian */
		dups += va[i];
	}
	assert_memory_equal(va, vb, n);
	assert_true(dups > n / 2);
	free(k);
	free(h);
	free(va);
	free(vb);
	pd_filter_destroy(a);
	pd_filter_destroy(b);
}

/* Lookups on random rows: every variant finds the lane the scalar one finds. */
static void test_variants_find(void **state)
{
	uint64_t s = 99;

	(void)state;
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
		const unsigned b = shapes[sh].b, f = shapes[sh].f;
		struct pd_filter_params p = {.type = PD_FILTER_QHTLRU, .memory_bytes = 4096,
					     .target_fpr = 0.5, .qht_b = b, .qht_f = f};
		struct pd_error err;
		struct pd_filter *flt = pd_filter_create(&p, &err);

		assert_non_null(flt);
		for (int t = 0; t < 20000; t++) {
			uint64_t row[8] __attribute__((aligned(64))) = {0};
			const uint64_t fpmax = (1ULL << f) - 1;
			uint64_t fp = 1 + rng_next(&s) % fpmax;
			int want;

			/* fill lanes by the filter's own step, some with fp, some empty */
			for (unsigned i = 0; i < b; i++) {
				uint64_t r = rng_next(&s);
				uint64_t x = r % 7 == 0 ? fp : 1 + (r >> 8) % fpmax;

				pd_qhtlru_move(flt, row, 0, r % 5 == 0 && i < b / 2 ? 0 : x);
			}
			assert_int_equal(pd_qhtlru_set_variant(flt, PD_QHTLRU_SCALAR), 0);
			want = pd_qhtlru_find(flt, row, fp);
			for (unsigned v = 1; v < PD_QHTLRU_VARIANTS; v++) {
				if (pd_qhtlru_set_variant(flt, (enum pd_qhtlru_variant)v) != 0)
					continue;
				if (pd_qhtlru_find(flt, row, fp) != want)
					fail_msg("b=%u f=%u: variant %u finds %d, scalar %d", b, f,
						 v, pd_qhtlru_find(flt, row, fp), want);
			}
		}
		pd_filter_destroy(flt);
	}
}

/*
 * qht, qhtd and qqhtd rows wider than a word (qht.c): the AVX-512 burst against the SWAR
 * one on the same keys, bursts and random draws: every verdict and the final state image
 * equal. Shapes with rows straddling words at every offset, several rows a line and one,
 * every group count up to 64 buckets. (The SWAR path is checked against a plain model in
 * test_models.c, which on an AVX-512 CPU runs the AVX-512 path too.)
 */
static void test_qht_simd(void **state)
{
	static const struct {
		unsigned b, f;
	} wide[] = {{3, 22}, {4, 22}, {5, 17}, {8, 27}, {10, 13}, {7, 31}, {9, 25},
		    {16, 32}, {20, 25}, {64, 8}, {33, 9}, {13, 5}, {17, 30}, {6, 11}};
	static const enum pd_filter_type types[] = {PD_FILTER_QHT, PD_FILTER_QHTD,
						    PD_FILTER_QQHTD};
	const size_t nkeys = 40000;
	uint64_t *h = malloc(nkeys * sizeof(*h));
	uint8_t *va = malloc(nkeys), *vb = malloc(nkeys);
	unsigned ran = 0;

	(void)state;
	assert_non_null(h);
	assert_non_null(va);
	assert_non_null(vb);
	for (size_t w = 0; w < sizeof(wide) / sizeof(wide[0]); w++)
		for (size_t t = 0; t < 3; t++) {
			struct pd_filter_params p = {.type = types[t], .memory_bytes = 64 * 37,
						     .target_fpr = 0.5, .seed = 11 + w,
						     .qht_b = wide[w].b, .qht_f = wide[w].f};
			struct pd_error err;
			struct pd_filter *fa = pd_filter_create(&p, &err);
			struct pd_filter *fb = pd_filter_create(&p, &err);
			uint64_t s = 5 + w, la, lb;
			uint8_t ia[64 * 40 + 4096], ib[sizeof(ia)];
			size_t i = 0;

			assert_non_null(fa);
			assert_non_null(fb);
			if (pd_qht_set_simd(fa, true) != 0) { /* no AVX-512 here, or qqhtd rows
							       * of a line (qhtlru's step) */
				pd_filter_destroy(fa);
				pd_filter_destroy(fb);
				continue;
			}
			assert_int_equal(pd_qht_set_simd(fb, false), 0);
			make_stream(h, nkeys, 37 * 512 / (wide[w].b * wide[w].f) * wide[w].b * 3,
				    s);
			while (i < nkeys) {
				size_t c = 1 + rng_next(&s) % 150;

				if (c > nkeys - i)
					c = nkeys - i;
				pd_filter_burst_hashed(fa, h + i, NULL, va + i, c);
				pd_filter_burst_hashed(fb, h + i, NULL, vb + i, c);
				i += c;
			}
			for (i = 0; i < nkeys; i++)
				if (va[i] != vb[i])
					fail_msg("%s b=%u f=%u: key %zu: AVX-512 %d, SWAR %d",
						 pd_filter_type_name(types[t]), wide[w].b, wide[w].f,
						 i, va[i], vb[i]);
			assert_int_equal(pd_filter_save_state(fa, ia, sizeof(ia), &la, &err), 0);
			assert_int_equal(pd_filter_save_state(fb, ib, sizeof(ib), &lb, &err), 0);
			assert_int_equal(la, lb);
			assert_memory_equal(ia, ib, la);
			pd_filter_destroy(fa);
			pd_filter_destroy(fb);
			ran++;
		}
	free(vb);
	free(va);
	free(h);
	if (ran == 0)
		skip(); /* no AVX-512 on this CPU */
}

/* The planner: at a 1e-6 budget the most lanes of a line, b = 20 of f = 25 bits
 * (1-(1-1/(2^25-1))^20 = 5.96e-7; f = 24 fits 21 lanes but only 16 meet 1e-6). */
static void test_plan(void **state)
{
	struct pd_filter_params p = {.type = PD_FILTER_QHTLRU, .memory_bytes = 1 << 20,
				     .target_fpr = 1e-6};
	struct pd_filter_params r;
	struct pd_error err;

	(void)state;
	assert_int_equal(pd_filter_params_resolve(&p, &r, &err), 0);
	assert_int_equal(r.qht_b, 20);
	assert_int_equal(r.qht_f, 25);
	/* 0.01: f = 12 holds 42 lanes, 1-(1-1/4095)^42 = 0.0102 > 0.01, ^41 = 0.00996;
	 * f = 11 holds 46 lanes but only 20 meet the budget; f = 13, 39 lanes */
	p.target_fpr = 0.01;
	assert_int_equal(pd_filter_params_resolve(&p, &r, &err), 0);
	assert_int_equal(r.qht_b, 41);
	assert_int_equal(r.qht_f, 12);
	p.qht_b = 30;
	p.qht_f = 18;
	assert_int_not_equal(pd_filter_params_resolve(&p, &r, &err), 0); /* 540 bits */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_small),
		cmocka_unit_test(test_model_every_shape),
		cmocka_unit_test(test_model_far),
		cmocka_unit_test(test_stage_far),
		cmocka_unit_test(test_variants_find),
		cmocka_unit_test(test_qht_simd),
		cmocka_unit_test(test_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
