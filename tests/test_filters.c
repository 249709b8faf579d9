/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Behaviour common to every filter, checked against an exact oracle on the raw keys:
 * burst == one by one, seeds, invalid parameters, the error-free filters, timerbf windows.
 */
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <pktdedup/pd_plan.h>

#include "testutil.h"

#define N_ALL PD_FILTER_COUNT

static struct pd_filter_params small(enum pd_filter_type t, uint64_t seed)
{
	struct pd_filter_params p = {.type = t, .memory_bytes = 4096, .seed = seed,
				     .target_fpr = 0.05};

	if (t == PD_FILTER_TIMERBF)
		p.window = 3000;
	return p;
}

/* Every filter: one call on n keys == n calls of one key == calls of random sizes ==
 * hashed bursts with pd_filter_prefetch() hints in between (hints change nothing) ==
 * bursts of random sizes staged one burst ahead (pd_filter_stage_u64, pd_filter_stage:
 * the hashes of pd_filter_hash, the same verdicts). */
static void test_burst_equals_single(void **state)
{
	const size_t n = 20000;
	uint64_t *k = tu_keys(n, 6000, 1);
	uint8_t *a = malloc(n), *b = malloc(n), *c = malloc(n), *d = malloc(n);
	uint8_t *e = malloc(n), *g8 = malloc(n);
	uint64_t *hk = malloc(n * sizeof(*hk)), *hs = malloc(n * sizeof(*hs));
	uint64_t *hb = malloc(n * sizeof(*hb));
	const void **kp = malloc(n * sizeof(*kp));
	uint32_t *kl = malloc(n * sizeof(*kl));
	uint64_t r = 5;

	(void)state;
	for (unsigned t = 0; t < N_ALL; t++) {
		struct pd_filter *f = tu_create(small((enum pd_filter_type)t, 42));
		struct pd_filter *g = tu_create(small((enum pd_filter_type)t, 42));
		struct pd_filter *h = tu_create(small((enum pd_filter_type)t, 42));
		struct pd_filter *p = tu_create(small((enum pd_filter_type)t, 42));
		struct pd_filter *st = tu_create(small((enum pd_filter_type)t, 42));
		struct pd_filter *sb = tu_create(small((enum pd_filter_type)t, 42));
		struct pd_filter_stats sf, sg;
		size_t prev = 0, plen = 0;

		pd_filter_burst_u64(f, k, NULL, a, n);
		for (size_t i = 0; i < n; i++)
			pd_filter_burst_u64(g, &k[i], NULL, &b[i], 1);
		for (size_t i = 0; i < n;) {
			size_t len = 1 + tu_splitmix(&r) % 150;

			if (len > n - i)
				len = n - i;
			pd_filter_burst_u64(h, &k[i], NULL, &c[i], len);
			i += len;
		}
		for (size_t i = 0; i < n; i++)
			hk[i] = pd_filter_hash(p, &k[i], sizeof(k[i])); /* little-endian host */
		for (size_t i = 0; i < n; i += 32) {
			size_t len = n - i < 32 ? n - i : 32;

			for (size_t j = i; j < i + len && j + 64 < n; j++)
				pd_filter_prefetch(p, hk[j + 64]); /* a later burst's keys */
			pd_filter_burst_hashed(p, &hk[i], NULL, &d[i], len);
		}
		/* staged: burst [i, i + len) hashed, then the previous burst probed */
		for (size_t i = 0; i < n; i++) {
			kp[i] = &k[i];
			kl[i] = sizeof(k[i]);
		}
		for (size_t i = 0; i <= n;) {
			size_t len = i < n ? 1 + tu_splitmix(&r) % 150 : 0;

			if (len > n - i)
				len = n - i;
			pd_filter_stage_u64(st, &k[i], &hs[i], len);
			pd_filter_stage(sb, &kp[i], &kl[i], &hb[i], len);
			if (plen > 0) {
				pd_filter_burst_hashed(st, &hs[prev], NULL, &e[prev], plen);
				pd_filter_burst_hashed(sb, &hb[prev], NULL, &g8[prev], plen);
			}
			prev = i;
			plen = len;
			if (i == n)
				break;
			i += len;
		}
		assert_memory_equal(hk, hs, n * sizeof(*hk));
		assert_memory_equal(hk, hb, n * sizeof(*hk));
		assert_memory_equal(a, b, n);
		assert_memory_equal(a, c, n);
		assert_memory_equal(a, d, n);
		assert_memory_equal(a, e, n);
		assert_memory_equal(a, g8, n);
		pd_filter_stats(f, &sf);
		pd_filter_stats(g, &sg);
		assert_int_equal(sf.keys, n);
		assert_int_equal(sf.duplicates, sg.duplicates);
		/* reset gives a filter that behaves as new */
		pd_filter_reset(f);
		pd_filter_burst_u64(f, k, NULL, b, n);
		assert_memory_equal(a, b, n);
		pd_filter_destroy(f);
		pd_filter_destroy(g);
		pd_filter_destroy(h);
		pd_filter_destroy(p);
		pd_filter_destroy(st);
		pd_filter_destroy(sb);
	}
	free(k);
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
	free(g8);
	free(hk);
	free(hs);
	free(hb);
	free(kp);
	free(kl);
}

/* Same seed, same verdicts; another seed, other verdicts (filters that make errors). */
static void test_seeds(void **state)
{
	const size_t n = 50000;
	uint64_t *k = tu_keys(n, 20000, 2);
	uint8_t *a = malloc(n), *b = malloc(n), *c = malloc(n);

	(void)state;
	for (unsigned t = 0; t < N_ALL; t++) {
		struct pd_filter *f, *g, *h;

		if (t == PD_FILTER_EXACT || t == PD_FILTER_LRU)
			continue; /* exact verdicts do not depend on the seed */
		f = tu_create(small((enum pd_filter_type)t, 100));
		g = tu_create(small((enum pd_filter_type)t, 100));
		h = tu_create(small((enum pd_filter_type)t, 101));
		pd_filter_burst_u64(f, k, NULL, a, n);
		pd_filter_burst_u64(g, k, NULL, b, n);
		pd_filter_burst_u64(h, k, NULL, c, n);
		assert_memory_equal(a, b, n);
		if (memcmp(a, c, n) == 0)
			fail_msg("%s: seed 101 gave the verdicts of seed 100", pd_filter_type_name(t));
		pd_filter_destroy(f);
		pd_filter_destroy(g);
		pd_filter_destroy(h);
	}
	free(k);
	free(a);
	free(b);
	free(c);
}

/*
 * A filter made from a plan (pd_filter_create_planned) is the filter pd_filter_create
 * makes from the plan's input, and holds the plan's parameters as they are: the seed of
 * the plan, changed after planning, is the one used (nothing is planned again).
 */
static void test_planned(void **state)
{
	const size_t n = 20000;
	uint64_t *k = tu_keys(n, 8000, 7);
	uint8_t *a = malloc(n), *b = malloc(n), *c = malloc(n);
	struct pd_error err = {0};
	struct pd_plan plan;

	(void)state;
	for (unsigned t = 0; t < N_ALL; t++) {
		struct pd_filter_params p = small((enum pd_filter_type)t, 100);
		struct pd_filter *f, *g, *h;

		assert_int_equal(pd_plan(&p, &plan, &err), 0);
		f = pd_filter_create_planned(&plan, &err);
		g = tu_create(p);
		assert_non_null(f);
		assert_memory_equal(pd_filter_params(f), &plan.params, sizeof(plan.params));
		assert_memory_equal(pd_filter_params(g), &plan.params, sizeof(plan.params));
		pd_filter_burst_u64(f, k, NULL, a, n);
		pd_filter_burst_u64(g, k, NULL, b, n);
		assert_memory_equal(a, b, n);
		plan.params.seed = 101;
		h = pd_filter_create_planned(&plan, &err);
		assert_non_null(h);
		assert_int_equal(pd_filter_params(h)->seed, 101);
		pd_filter_burst_u64(h, k, NULL, c, n);
		if (t != PD_FILTER_EXACT && t != PD_FILTER_LRU && memcmp(a, c, n) == 0)
			fail_msg("%s: the plan's seed was not used", pd_filter_type_name(t));
		pd_filter_destroy(f);
		pd_filter_destroy(g);
		pd_filter_destroy(h);
	}
	assert_null(pd_filter_create_planned(NULL, &err));
	assert_int_equal(err.code, PD_EINVAL);
	plan.params.type = PD_FILTER_COUNT;
	assert_null(pd_filter_create_planned(&plan, &err));
	assert_int_equal(err.code, PD_EINVAL);
	free(k);
	free(a);
	free(b);
	free(c);
}

static void expect_invalid(struct pd_filter_params p, const char *what)
{
	struct pd_error err = {0};
	struct pd_filter *f = pd_filter_create(&p, &err);

	if (f != NULL)
		fail_msg("accepted invalid parameters: %s", what);
	assert_int_not_equal(err.code, PD_OK);
	assert_true(strlen(err.msg) > 0);
}

static void test_invalid_params(void **state)
{
	struct pd_error err = {0};

	(void)state;
	expect_invalid((struct pd_filter_params){.type = PD_FILTER_COUNT, .memory_bytes = 4096},
		       "unknown type");
	expect_invalid((struct pd_filter_params){.type = (enum pd_filter_type)-1,
						 .memory_bytes = 4096}, "negative type");
	for (unsigned t = 0; t < PD_FILTER_EXACT; t++) {
		struct pd_filter_params p = small((enum pd_filter_type)t, 1);

		p.memory_bytes = 0;
		expect_invalid(p, "zero memory");
		p.memory_bytes = 63;
		expect_invalid(p, "memory below 64 bytes");
		p.memory_bytes = 1ULL << 50;
		expect_invalid(p, "memory above 1 TiB");
		p = small((enum pd_filter_type)t, 1);
		p.target_fpr = 1.5;
		expect_invalid(p, "target_fpr >= 1");
		p.target_fpr = -0.1;
		expect_invalid(p, "target_fpr < 0");
		if (t != PD_FILTER_TIMERBF) {
			p = small((enum pd_filter_type)t, 1);
			p.window = 100;
			if (t != PD_FILTER_QQHTD && t != PD_FILTER_EXACT)
				expect_invalid(p, "window on a filter without one");
			p.window = 0;
			p.equal_timers = 1;
			expect_invalid(p, "equal_timers on a filter without timers");
		}
	}
	{
		struct pd_filter_params p = small(PD_FILTER_SBF, 1);

		p.sbf_max = 256;
		expect_invalid(p, "sbf Max 256");
		p.sbf_max = 1;
		p.k = PD_MAX_HASHES + 1;
		expect_invalid(p, "sbf K too large");
		p.k = 2;
		p.sbf_p = 1000000;
		expect_invalid(p, "sbf P above m");
	}
	{
		struct pd_filter_params p = small(PD_FILTER_QHT, 1);

		p.qht_b = 65;
		p.qht_f = 8;
		expect_invalid(p, "qht b 65");
		p.qht_b = 4;
		p.qht_f = 33;
		expect_invalid(p, "qht f 33");
		p.qht_b = 18; /* 540 bits; 17 x 30 = 510 fits */
		p.qht_f = 30;
		expect_invalid(p, "qht row beyond a cache line");
	}
	{
		struct pd_filter_params p = small(PD_FILTER_RSBF, 1);

		p.rsbf_pstar = 1.5;
		expect_invalid(p, "rsbf p* > 1");
		p = small(PD_FILTER_BSBF, 1);
		p.k = 0;
		p.memory_bytes = 64;
		p.k = 9;
		expect_invalid(p, "bsbf: arrays of less than one word");
		p = small(PD_FILTER_FPBUFFERING, 1);
		p.fpbuf_q = 2.0;
		expect_invalid(p, "fpbuffering q > 1");
		p = small(PD_FILTER_LRU, 1);
		p.memory_bytes = (16ULL << 30) + 8;
		expect_invalid(p, "lru: more than 2^31 keys");
		p = small(PD_FILTER_TIMERBF, 1);
		p.k = 4;
		p.equal_timers = 5;
		expect_invalid(p, "equal timers > k");
		p = small(PD_FILTER_EXACT, 1);
		p.window = 10;
		p.window_mode = (enum pd_window_mode)7;
		expect_invalid(p, "bad window mode");
		p = small(PD_FILTER_BLOOM, 1);
		p.k = 17;
		expect_invalid(p, "bloom k 17");
	}
	assert_null(pd_filter_create(NULL, &err));
	assert_int_equal(err.code, PD_EINVAL);
}

/*
 * A tunable set for a filter that has no such parameter is refused (PD_ENOTSUP, naming
 * the field), not silently ignored; one the filter has is accepted. The table is the
 * papers' parameters (ALGORITHMS.md), written out here, not taken from the planner.
 */
static void test_unused_params(void **state)
{
	enum { K, MAX, P, PSTAR, B, F, Q, EXPN, NPARAM };
	static const char *const field[NPARAM] = {"k", "sbf_max", "sbf_p", "rsbf_pstar",
						  "qht_b", "qht_f", "fpbuf_q", "expected_n"};
	static const unsigned char has[PD_FILTER_COUNT][NPARAM] = {
		[PD_FILTER_SBF] = {[K] = 1, [MAX] = 1, [P] = 1, [EXPN] = 1},
		[PD_FILTER_RSBF] = {[K] = 1, [PSTAR] = 1},
		[PD_FILTER_BSBF] = {[K] = 1},
		[PD_FILTER_BSBFSD] = {[K] = 1},
		[PD_FILTER_RLBSBF] = {[K] = 1},
		[PD_FILTER_QHT] = {[B] = 1, [F] = 1, [EXPN] = 1},
		[PD_FILTER_QHTD] = {[B] = 1, [F] = 1, [EXPN] = 1},
		[PD_FILTER_QQHTD] = {[B] = 1, [F] = 1, [EXPN] = 1},
		[PD_FILTER_BLOOM] = {[K] = 1, [EXPN] = 1},
		[PD_FILTER_LRU] = {0},
		[PD_FILTER_FPBUFFERING] = {[Q] = 1},
		[PD_FILTER_TIMERBF] = {[K] = 1, [EXPN] = 1},
		[PD_FILTER_EXACT] = {0},
		[PD_FILTER_QHTLRU] = {[B] = 1, [F] = 1, [EXPN] = 1},
	};

	(void)state;
	for (unsigned t = 0; t < PD_FILTER_COUNT; t++) {
		for (unsigned i = 0; i < NPARAM; i++) {
			struct pd_filter_params p = small((enum pd_filter_type)t, 1);
			struct pd_error err = {0};
			struct pd_filter *f;

			switch (i) {
			case K: p.k = 2; break;
			case MAX: p.sbf_max = 1; break;
			case P: p.sbf_p = 3; break;
			case PSTAR: p.rsbf_pstar = 0.05; break;
			case B: p.qht_b = 4; break;
			case F: p.qht_f = 8; break;
			case Q: p.fpbuf_q = 0.02; break;
			case EXPN: p.expected_n = 1000; break;
			}
			f = pd_filter_create(&p, &err);
			if (has[t][i]) {
				if (f == NULL)
					fail_msg("%s refused its own %s: %s", pd_filter_type_name(t),
						 field[i], err.msg);
				pd_filter_destroy(f);
				continue;
			}
			if (f != NULL)
				fail_msg("%s accepted %s, which it does not have",
					 pd_filter_type_name(t), field[i]);
			assert_int_equal(err.code, PD_ENOTSUP);
			assert_int_equal(strncmp(err.msg, field[i], strlen(field[i])), 0);
			assert_int_equal(err.msg[strlen(field[i])], ':');
		}
	}
}

/* exact: zero errors; lru: zero FP; bloom: zero FN; against the raw-key oracle. */
static void test_error_free(void **state)
{
	const size_t n = 300000;
	uint64_t *k = tu_keys(n, 100000, 3);
	uint8_t *truth = tu_truth(k, n), *v = malloc(n);
	struct tu_score s;
	struct pd_filter *f;

	(void)state;
	k[17] = 0; /* the zero key and its repeat */
	k[18] = 0;
	free(truth);
	truth = tu_truth(k, n);

	f = tu_create((struct pd_filter_params){.type = PD_FILTER_EXACT, .seed = 4});
	pd_filter_burst_u64(f, k, NULL, v, n);
	assert_memory_equal(v, truth, n);
	pd_filter_destroy(f);

	f = tu_create((struct pd_filter_params){.type = PD_FILTER_LRU, .memory_bytes = 64 << 10,
						.seed = 4});
	pd_filter_burst_u64(f, k, NULL, v, n);
	s = tu_score(truth, v, 0, n);
	assert_int_equal(s.fp, 0);
	assert_true(s.fn > 0); /* 8192 slots for 100000 keys: it must forget */
	pd_filter_destroy(f);

	f = tu_create((struct pd_filter_params){.type = PD_FILTER_BLOOM, .memory_bytes = 16 << 10,
						.seed = 4, .k = 3});
	pd_filter_burst_u64(f, k, NULL, v, n);
	s = tu_score(truth, v, 0, n);
	assert_int_equal(s.fn, 0);
	assert_true(s.fp > 0);
	pd_filter_destroy(f);
	free(k);
	free(truth);
	free(v);
}

/* lru with room for everything is exact; fpbuffering's FP rate is q. */
static void test_buffering(void **state)
{
	const size_t n = 200000;
	uint64_t *k = tu_keys(n, 50000, 8);
	uint8_t *truth = tu_truth(k, n), *v = malloc(n);
	struct tu_score s;
	struct pd_filter *f;
	double fpr;

	(void)state;
	f = tu_create((struct pd_filter_params){.type = PD_FILTER_LRU, .memory_bytes = 1 << 20,
						.seed = 4});
	pd_filter_burst_u64(f, k, NULL, v, n);
	assert_memory_equal(v, truth, n);
	pd_filter_destroy(f);

	f = tu_create((struct pd_filter_params){.type = PD_FILTER_FPBUFFERING,
						.memory_bytes = 1 << 20, .seed = 4,
						.fpbuf_q = 0.1});
	pd_filter_burst_u64(f, k, NULL, v, n);
	s = tu_score(truth, v, 0, n);
	fpr = (double)s.fp / s.distinct;
	assert_int_equal(s.fn, 0);
	assert_true(fpr > 0.09 && fpr < 0.11);
	pd_filter_destroy(f);
	free(k);
	free(truth);
	free(v);
}

/*
 * An lru of B <= 64 keys runs n keys k (raw keys, or with hashed set the hashes it
 * indexes, given directly) and every verdict is checked against a reference LRU buffer
 * of B keys: a list scanned in full, the least recent evicted. Frees k.
 */
static void lru_check(uint64_t *k, size_t n, unsigned B, bool hashed)
{
	uint64_t buf[64], last[64], used = 0;
	uint8_t *v = malloc(n);
	struct pd_filter *f;

	assert_true(B <= 64);
	assert_non_null(v);
	f = tu_create((struct pd_filter_params){.type = PD_FILTER_LRU, .memory_bytes = B * 8,
						.seed = 9});
	if (hashed)
		pd_filter_burst_hashed(f, k, NULL, v, n);
	else
		pd_filter_burst_u64(f, k, NULL, v, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t j, oldest = 0;

		for (j = 0; j < used && buf[j] != k[i]; j++)
			;
		if (j < used) {
			assert_int_equal(v[i], PD_DUPLICATE);
			last[j] = i;
			continue;
		}
		assert_int_equal(v[i], PD_DISTINCT);
		if (used < B) {
			j = used++;
		} else {
			for (j = 1; j < B; j++)
				if (last[j] < last[oldest])
					oldest = j;
			j = oldest;
		}
		buf[j] = k[i];
		last[j] = i;
	}
	pd_filter_destroy(f);
	free(k);
	free(v);
}

/*
 * lru against the reference LRU buffer: the same verdict for every key, through
 * evictions, a table full of clusters (B = 64 keys in 128 slots) and every burst
 * boundary.
 */
static void test_lru_oracle(void **state)
{
	(void)state;
	lru_check(tu_keys(40000, 200, 21), 40000, 64, false);
}

/*
 * lru's index keeps the top 32 bits of each hash as a tag and reads a key only where its
 * tag matches. Hashes that share a few tags, and so their home slots, but differ below:
 * equal tags with different keys must not match, through probing, eviction and
 * backward-shift deletion in long clusters that wrap around the table.
 */
static void test_lru_tag_collisions(void **state)
{
	const size_t n = 40000;
	uint64_t *h = tu_keys(n, 0, 33);

	(void)state;
	/* tags 0, 2^31 and 2^32-1 (home slots first, middle, last), 40 low values each */
	for (size_t i = 0; i < n; i++)
		h[i] = (uint64_t)(h[i] % 3 == 0 ? 0 : h[i] % 3 == 1 ? 1U << 31 : UINT32_MAX) << 32 |
		       (h[i] >> 8) % 40;
	lru_check(h, n, 48, true);
}

static void test_timerbf_window(void **state)
{
	struct pd_filter_params p = {.type = PD_FILTER_TIMERBF, .memory_bytes = 1 << 20,
				     .seed = 6, .k = 4, .window = 1000,
				     .window_mode = PD_WINDOW_DELIVERED};
	struct pd_filter *f = tu_create(p);

	(void)state;
	assert_int_equal(tu_one(f, 1, 10000), PD_DISTINCT);
	assert_int_equal(tu_one(f, 1, 10001), PD_DUPLICATE);
	assert_int_equal(tu_one(f, 1, 11000), PD_DUPLICATE); /* gap W: within the window */
	assert_int_equal(tu_one(f, 1, 11001), PD_DISTINCT);  /* gap W + 1 from the delivered copy */
	assert_int_equal(tu_one(f, 1, 11500), PD_DUPLICATE);
	assert_int_equal(tu_one(f, 2, 11500), PD_DISTINCT);
	assert_int_equal(tu_one(f, 1, 12001), PD_DUPLICATE);
	assert_int_equal(tu_one(f, 1, 1ULL << 40), PD_DISTINCT); /* a jump past the 32-bit wrap */
	assert_int_equal(tu_one(f, 1, (1ULL << 40) + 999), PD_DUPLICATE);
	pd_filter_destroy(f);

	/* seen: every copy refreshes, so a key repeating within W never passes again */
	p.window_mode = PD_WINDOW_SEEN;
	f = tu_create(p);
	assert_int_equal(tu_one(f, 1, 10000), PD_DISTINCT);
	assert_int_equal(tu_one(f, 1, 10900), PD_DUPLICATE);
	assert_int_equal(tu_one(f, 1, 11800), PD_DUPLICATE); /* 1800 after the first copy */
	assert_int_equal(tu_one(f, 1, 12801), PD_DISTINCT);  /* W + 1 after the last one */
	/* an older copy (merged feeds out of order) does not shorten the newest expiry */
	assert_int_equal(tu_one(f, 1, 12000), PD_DUPLICATE);
	assert_int_equal(tu_one(f, 1, 13700), PD_DUPLICATE); /* 899 after 12801 */
	assert_int_equal(tu_one(f, 1, 14701), PD_DISTINCT);
	pd_filter_destroy(f);
	p.window_mode = PD_WINDOW_DELIVERED;

	/* Long windows are kept in coarse units: verdicts far from the edge are unchanged. */
	p.window = 1000000000ULL; /* 1 s in ns */
	f = tu_create(p);
	assert_int_equal(tu_one(f, 9, 5), PD_DISTINCT);
	assert_int_equal(tu_one(f, 9, 900000000ULL), PD_DUPLICATE);
	assert_int_equal(tu_one(f, 9, 1000000005ULL), PD_DISTINCT); /* never past W */
	pd_filter_destroy(f);

	/* Without timestamps a window counts keys. */
	p.window = 5;
	f = tu_create(p);
	{
		uint64_t keys[] = {7, 1, 2, 3, 7, 4, 5, 6, 8, 9, 7};
		uint8_t v[11], expect[11] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};

		/* key 7 at times 1 and 5: gap 4 <= 5; then at 11: gap 10 from its last
		 * delivered copy (time 1) */
		pd_filter_burst_u64(f, keys, NULL, v, 11);
		assert_memory_equal(v, expect, 11);
	}
	pd_filter_destroy(f);
}

/* Windowed timerbf against a brute-force delivered-window oracle on the raw keys. */
static void test_timerbf_vs_oracle(void **state)
{
	const size_t n = 100000;
	const uint64_t W = 2000;
	uint64_t *k = tu_keys(n, 20000, 12);
	uint8_t *v = malloc(n), *t = malloc(n);
	uint64_t *last = calloc(20000, sizeof(uint64_t)); /* delivered time + 1, 0 = never */
	struct pd_filter_params p = {.type = PD_FILTER_TIMERBF, .memory_bytes = 256 << 10,
				     .seed = 6, .k = 6, .window = W,
				     .window_mode = PD_WINDOW_DELIVERED};
	struct pd_filter *f = tu_create(p);
	struct pd_filter *e = tu_create((struct pd_filter_params){
		.type = PD_FILTER_EXACT, .seed = 3, .window = W,
		.window_mode = PD_WINDOW_DELIVERED});
	struct tu_score s;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		uint64_t now = i + 1;

		t[i] = last[k[i]] != 0 && now - (last[k[i]] - 1) <= W;
		if (!t[i])
			last[k[i]] = now + 1;
	}
	pd_filter_burst_u64(f, k, NULL, v, n);
	s = tu_score(t, v, 0, n);
	printf("timerbf: FP %llu / %llu, FN %llu / %llu\n", (unsigned long long)s.fp,
	       (unsigned long long)s.distinct, (unsigned long long)s.fn,
	       (unsigned long long)s.dups);
	assert_true((double)s.fp / s.distinct < 0.01);
	/* a delivered key's timers stay live for W; FNs only follow an FP (a key the filter
	 * did not deliver, so its timers were not written) */
	assert_true(s.fn <= s.fp);
	/* the windowed exact filter is the oracle itself */
	pd_filter_burst_u64(e, k, NULL, v, n);
	assert_memory_equal(v, t, n);
	pd_filter_destroy(f);
	pd_filter_destroy(e);
	free(k);
	free(v);
	free(t);
	free(last);
}

/* Windowed exact in seen mode against a brute-force oracle, with byte-string keys. */
/*
 * exact with no memory to grow (a child process whose address space is capped 64 MiB
 * above what it uses): new keys past 7/8 of the table are not stored, counted as
 * unstored, and every probe still ends. Before, the table filled every slot and the next
 * new key's probe never ended. The first pass of N distinct keys is all DISTINCT (never
 * a false positive); on the second, exactly the stored ones are DUPLICATE, and the
 * unstored count doubles. Skipped under AddressSanitizer, whose shadow memory needs an
 * address space no cap allows.
 */
static void test_exact_cannot_grow(void **state)
{
	(void)state;
#if defined(__SANITIZE_ADDRESS__)
	skip();
#else
	pid_t child = fork();
	int status;

	assert_true(child >= 0);
	if (child == 0) {
		struct pd_filter *f = tu_create((struct pd_filter_params){.type = PD_FILTER_EXACT,
									   .seed = 4});
		const uint64_t n = 8000000;
		uint64_t k[64], first = 0, second = 0;
		struct pd_filter_stats st;
		unsigned long pages = 0;
		struct rlimit rl;
		uint8_t v[64];
		FILE *statm = fopen("/proc/self/statm", "r");

		alarm(20); /* a probe that never ends fails the test (SIGALRM) */
		if (statm == NULL || fscanf(statm, "%lu", &pages) != 1)
			_exit(3);
		fclose(statm);
		rl.rlim_cur = rl.rlim_max = pages * (rlim_t)sysconf(_SC_PAGESIZE) + (64u << 20);
		if (setrlimit(RLIMIT_AS, &rl) != 0)
			_exit(4);
		for (unsigned pass = 0; pass < 2; pass++)
			for (uint64_t i = 0; i < n; i += 64) {
				for (unsigned j = 0; j < 64; j++)
					k[j] = i + j + 1;
				pd_filter_burst_u64(f, k, NULL, v, 64);
				for (unsigned j = 0; j < 64; j++)
					*(pass == 0 ? &first : &second) += v[j] == PD_DUPLICATE;
			}
		pd_filter_stats(f, &st);
		/* the table stopped growing (unstored), nothing was a false positive, and
		 * what was stored was found again */
		_exit(st.unstored == 0 ? 5 : first != 0 ? 6 :
		      second + st.unstored / 2 != n || st.unstored % 2 != 0 ? 7 : 0);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	if (!WIFEXITED(status))
		fail_msg("exact, no memory to grow: killed by signal %d", WTERMSIG(status));
	assert_int_equal(WEXITSTATUS(status), 0);
#endif
}

static void test_exact_seen_bytes(void **state)
{
	const size_t n = 50000;
	const uint64_t W = 500;
	uint64_t *k = tu_keys(n, 3000, 21);
	uint64_t *last = calloc(3000, sizeof(uint64_t));
	char (*buf)[16] = malloc(n * 16);
	const void **ptr = malloc(n * sizeof(*ptr));
	uint32_t *len = malloc(n * sizeof(*len));
	uint64_t *ts = malloc(n * sizeof(*ts));
	uint8_t *v = malloc(n), *t = malloc(n);
	struct pd_filter *e = tu_create((struct pd_filter_params){
		.type = PD_FILTER_EXACT, .seed = 3, .window = W, .window_mode = PD_WINDOW_SEEN});

	(void)state;
	for (size_t i = 0; i < n; i++) {
		ts[i] = 1000 + i * 3;
		len[i] = (uint32_t)snprintf(buf[i], 16, "key-%llu", (unsigned long long)k[i]);
		ptr[i] = buf[i];
		t[i] = last[k[i]] != 0 && ts[i] - last[k[i]] <= W;
		last[k[i]] = ts[i];
	}
	pd_filter_burst(e, ptr, len, ts, v, n);
	assert_memory_equal(v, t, n);
	pd_filter_destroy(e);
	free(k);
	free(last);
	free(buf);
	free(ptr);
	free(len);
	free(ts);
	free(v);
	free(t);
}

/*
 * The documented hash is keyed XXH3 (XXH3_64bits_withSeed, called here in the system
 * libxxhash as the reference) for every key length: short keys inline, keys over 240
 * bytes with the seed's secret made once and the library's SIMD dispatch. Both entry
 * points that hash key bytes (pd_filter_hash, pd_filter_burst) agree with it.
 */
static void test_hash_is_xxh3(void **state)
{
	const uint64_t seeds[] = {0, 1, 42, 0x8000000000000005ULL};
	const size_t max = 2100;
	uint8_t *buf = malloc(max), *v = malloc(max + 1), *w = malloc(max + 1);
	const void **ptr = malloc((max + 1) * sizeof(*ptr));
	uint32_t *len = malloc((max + 1) * sizeof(*len));
	uint64_t *h = malloc((max + 1) * sizeof(*h)), r = 77;

	(void)state;
	for (size_t i = 0; i < max; i++)
		buf[i] = (uint8_t)tu_splitmix(&r);
	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		struct pd_filter *f = tu_create((struct pd_filter_params){
			.type = PD_FILTER_EXACT, .seed = seeds[s]});

		/* every length up to 2100 (XXH3's short, mid-size and long paths), at
		 * offsets that move the key across alignments */
		for (size_t n = 0; n <= max; n++) {
			const uint8_t *k = buf + (n * 7) % (max - n + 1);

			h[n] = XXH3_64bits_withSeed(k, n, seeds[s]);
			if (pd_filter_hash(f, k, n) != h[n])
				fail_msg("seed %llu, length %zu: pd_filter_hash differs from XXH3",
					 (unsigned long long)seeds[s], n);
			ptr[n] = k;
			len[n] = (uint32_t)n;
		}
		/* the burst of key bytes hashes the same way: after the reference hashes,
		 * every key is a duplicate of its own hash (the exact filter keeps hashes) */
		pd_filter_burst_hashed(f, h, NULL, w, max + 1);
		pd_filter_burst(f, ptr, len, NULL, v, max + 1);
		for (size_t n = 0; n <= max; n++)
			if (!v[n])
				fail_msg("seed %llu, length %zu: pd_filter_burst hashed otherwise",
					 (unsigned long long)seeds[s], n);
		pd_filter_destroy(f);
	}
	free(buf);
	free(v);
	free(w);
	free(ptr);
	free(len);
	free(h);
}

static void test_names(void **state)
{
	(void)state;
	for (unsigned t = 0; t < N_ALL; t++) {
		enum pd_filter_type back;

		assert_non_null(pd_filter_type_name((enum pd_filter_type)t));
		assert_int_equal(pd_filter_type_parse(pd_filter_type_name(t), &back), 0);
		assert_int_equal(back, t);
	}
	assert_null(pd_filter_type_name(PD_FILTER_COUNT));
	assert_int_equal(pd_filter_type_parse("nope", &(enum pd_filter_type){0}), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_burst_equals_single),
		cmocka_unit_test(test_seeds),
		cmocka_unit_test(test_planned),
		cmocka_unit_test(test_invalid_params),
		cmocka_unit_test(test_unused_params),
		cmocka_unit_test(test_error_free),
		cmocka_unit_test(test_buffering),
		cmocka_unit_test(test_lru_oracle),
		cmocka_unit_test(test_lru_tag_collisions),
		cmocka_unit_test(test_timerbf_window),
		cmocka_unit_test(test_timerbf_vs_oracle),
		cmocka_unit_test(test_exact_seen_bytes),
		cmocka_unit_test(test_exact_cannot_grow),
		cmocka_unit_test(test_hash_is_xxh3),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
