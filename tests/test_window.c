/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Time windows: windowed qqhtd, timerbf and exact against a brute-force window oracle on
 * the raw keys (this file's own code), and windowed qqhtd's error rates against formulas.
 *
 * Window semantics (docs/windows.md): a key at time t has a reference time T, the time of
 * its newest copy (seen) or of its last copy reported DISTINCT (delivered); it is a
 * duplicate iff a copy exists and t <= T + W (a copy newer than the key counts).
 */
#include <math.h>
#include <stdio.h>

#include "testutil.h"

/* Brute-force window truth: verdicts t[] and delays d[] (t - T, or 0 when t <= T). */
struct oracle {
	uint64_t *key, *time;
	uint8_t *used;
	size_t mask;
};

static void window_truth(const uint64_t *k, const uint64_t *ts, size_t n, uint64_t w,
			 enum pd_window_mode mode, uint8_t *t, uint64_t *d)
{
	struct oracle o;
	size_t size = 16;

	while (size < 2 * n)
		size <<= 1;
	o.key = calloc(size, sizeof(uint64_t));
	o.time = calloc(size, sizeof(uint64_t));
	o.used = calloc(size, 1);
	o.mask = size - 1;
	assert_true(o.key && o.time && o.used);
	for (size_t i = 0; i < n; i++) {
		size_t j = (size_t)((k[i] * 0x9e3779b97f4a7c15ULL) >> 20) & o.mask;
		uint64_t now = ts != NULL ? ts[i] : i + 1;

		while (o.used[j] && o.key[j] != k[i])
			j = (j + 1) & o.mask;
		if (!o.used[j]) {
			o.used[j] = 1;
			o.key[j] = k[i];
			o.time[j] = now;
			t[i] = 0;
			if (d != NULL)
				d[i] = PD_DELAY_NONE;
			continue;
		}
		t[i] = now <= o.time[j] || now - o.time[j] <= w;
		if (d != NULL)
			d[i] = !t[i] ? PD_DELAY_NONE : now > o.time[j] ? now - o.time[j] : 0;
		if (mode == PD_WINDOW_SEEN ? now > o.time[j] : !t[i])
			o.time[j] = now;
	}
	free(o.key);
	free(o.time);
	free(o.used);
}

static struct pd_filter_params qw(uint64_t mem, unsigned b, unsigned f, uint64_t w,
				  enum pd_window_mode mode)
{
	return (struct pd_filter_params){.type = PD_FILTER_QQHTD, .memory_bytes = mem,
					 .seed = 11, .qht_b = b, .qht_f = f, .window = w,
					 .window_mode = mode};
}

/* The edges, by hand. */
static void test_qqhtdw_edges(void **state)
{
	struct pd_filter *f = tu_create(qw(1 << 16, 7, 32, 1000, PD_WINDOW_SEEN));

	(void)state;
	assert_int_equal(tu_one(f, 1, 10000), PD_DISTINCT);
	assert_int_equal(tu_one(f, 1, 11000), PD_DUPLICATE); /* gap W: within */
	assert_int_equal(tu_one(f, 1, 12001), PD_DISTINCT);  /* W + 1 after the last copy */
	assert_int_equal(tu_one(f, 1, 11500), PD_DUPLICATE); /* older than the newest copy */
	assert_int_equal(tu_one(f, 2, 20000), PD_DISTINCT);
	assert_int_equal(tu_one(f, 3, 19500), PD_DISTINCT);  /* out of order, never seen */
	assert_int_equal(tu_one(f, 3, 20400), PD_DUPLICATE);
	assert_int_equal(tu_one(f, 2, 1ULL << 62), PD_DISTINCT); /* a jump of 2^62 ns */
	assert_int_equal(tu_one(f, 2, (1ULL << 62) + 1000), PD_DUPLICATE);
	assert_int_equal(tu_one(f, 2, (1ULL << 62) + 2001), PD_DISTINCT);
	pd_filter_destroy(f);

	/* delivered: a key repeating every W/2 passes once per W */
	f = tu_create(qw(1 << 16, 14, 16, 1000, PD_WINDOW_DELIVERED));
	assert_int_equal(tu_one(f, 5, 0), PD_DISTINCT);
	assert_int_equal(tu_one(f, 5, 500), PD_DUPLICATE);
	assert_int_equal(tu_one(f, 5, 1000), PD_DUPLICATE);
	assert_int_equal(tu_one(f, 5, 1500), PD_DISTINCT);
	assert_int_equal(tu_one(f, 5, 2000), PD_DUPLICATE);
	pd_filter_destroy(f);

	/* a window only where the filter has one; f and b within a 64-byte row */
	{
		struct pd_error err;
		struct pd_filter_params p = qw(1 << 16, 0, 24, 1000, PD_WINDOW_SEEN);

		assert_null(pd_filter_create(&p, &err));
		assert_non_null(strstr(err.msg, "qht_f"));
		p = qw(1 << 16, 8, 32, 1000, PD_WINDOW_SEEN);
		assert_null(pd_filter_create(&p, &err));
		assert_non_null(strstr(err.msg, "qht_b"));
		p = qw(1 << 16, 0, 0, 1000, PD_WINDOW_SEEN);
		p.type = PD_FILTER_QHT;
		assert_null(pd_filter_create(&p, &err));
		assert_int_equal(err.code, PD_ENOTSUP);
		assert_non_null(strstr(err.msg, "qqhtd, timerbf, exact, qhtlru"));
	}
}

/*
 * Windowed qhtlru's plan: the most lanes meeting the budget, with the smallest f (the
 * ages keep the most bits); given shapes checked against a windowed row; the edges of
 * the window by hand at the planner's coarse resolution (f = 24, 8-bit ages).
 */
static void test_qhtlruw_plan(void **state)
{
	struct pd_plan plan;
	struct pd_error err;
	struct pd_filter_params p = {.type = PD_FILTER_QHTLRU, .memory_bytes = 1 << 20,
				     .target_fpr = 1e-6, .window = 1000000};
	struct pd_filter *f;

	(void)state;
	assert_int_equal(pd_plan(&p, &plan, &err), 0);
	/* 14 lanes of 24 bits: 1-(1-1/(2^24-1))^14 = 8.3e-7; of 23 bits 1.7e-6 */
	assert_int_equal(plan.params.qht_b, 14);
	assert_int_equal(plan.params.qht_f, 24);
	assert_true(plan.predicted_fpr > 8.2e-7 && plan.predicted_fpr < 8.4e-7);
	p.target_fpr = 1e-8; /* 26 bits: 14 lanes give 2.1e-7; 7 lanes of 30 bits 6.5e-9 */
	assert_int_equal(pd_plan(&p, &plan, &err), 0);
	assert_int_equal(plan.params.qht_b, 7);
	assert_int_equal(plan.params.qht_f, 30);
	p.target_fpr = 1e-6;
	p.qht_b = 10; /* the smallest f meeting the budget: 24 */
	assert_int_equal(pd_plan(&p, &plan, &err), 0);
	assert_int_equal(plan.params.qht_f, 24);
	p.qht_b = 14;
	p.qht_f = 27; /* 8-byte entries hold 7 */
	assert_int_equal(pd_plan(&p, &plan, &err), -1);
	assert_non_null(strstr(err.msg, "windowed 64-byte row"));
	p.qht_b = 0;
	assert_int_equal(pd_plan(&p, &plan, &err), 0);
	assert_int_equal(plan.params.qht_b, 7);
	p.qht_b = 20;
	p.qht_f = 0; /* wider than any windowed row */
	assert_int_equal(pd_plan(&p, &plan, &err), -1);

	/* W = 1000 ns at f = 24: units of 2^3 ns, W_units = 124 (992 ns) */
	p = (struct pd_filter_params){.type = PD_FILTER_QHTLRU, .memory_bytes = 1 << 16,
				      .seed = 5, .window = 1000, .target_fpr = 1e-6};
	f = tu_create(p);
	assert_int_equal(pd_filter_params(f)->qht_f, 24);
	assert_int_equal(tu_one(f, 1, 80000), PD_DISTINCT);
	assert_int_equal(tu_one(f, 1, 80000 + 992), PD_DUPLICATE); /* 124 units */
	assert_int_equal(tu_one(f, 1, 80000 + 992 + 1000), PD_DISTINCT); /* 125 units */
	assert_int_equal(tu_one(f, 1, 81000), PD_DUPLICATE); /* older than the newest copy */
	assert_int_equal(tu_one(f, 1, 81992 + 992), PD_DUPLICATE); /* the window still runs
								      * from the newest copy */
	pd_filter_destroy(f);
	p.window_mode = PD_WINDOW_DELIVERED;
	f = tu_create(p);
	assert_int_equal(tu_one(f, 7, 0), PD_DISTINCT);
	assert_int_equal(tu_one(f, 7, 600), PD_DUPLICATE);
	assert_int_equal(tu_one(f, 7, 992), PD_DUPLICATE);
	assert_int_equal(tu_one(f, 7, 1000), PD_DISTINCT); /* 125 units after the delivered one */
	assert_int_equal(tu_one(f, 7, 1600), PD_DUPLICATE);
	pd_filter_destroy(f);
}

/*
 * Saturated ages in one row (64 bytes of memory): a copy whose original was pushed past
 * the ages' reach (2^A - 1 units) by a newer key never matches, however the row ages
 * after that (an age that wrapped around instead would make it young again).
 */
static void test_rowage_saturation(void **state)
{
	static const struct {
		enum pd_filter_type type;
		unsigned b, f;
	} c[] = {{PD_FILTER_QHTLRU, 14, 24}, {PD_FILTER_QHTLRU, 14, 1}, {PD_FILTER_QHTLRU, 7, 30},
		 {PD_FILTER_QQHTD, 14, 16},  {PD_FILTER_QQHTD, 7, 32}};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const unsigned abits = (c[i].f <= 26 ? 32 : 64) - c[i].f;
		const uint64_t amax = (1ULL << abits) - 1, t0 = 1000;
		struct pd_filter *f = tu_create((struct pd_filter_params){
			.type = c[i].type, .memory_bytes = 64, .seed = 9, .qht_b = c[i].b,
			.qht_f = c[i].f, .window = 100, .target_fpr = 0.99});

		assert_int_equal(tu_one(f, 1, t0), PD_DISTINCT);
		assert_int_equal(tu_one(f, 1, t0 + 60), PD_DUPLICATE);
		/* key 1's entries saturate; then the row ages by 10 and 10 */
		assert_int_equal(tu_one(f, 2, t0 + 60 + amax), PD_DISTINCT);
		if (c[i].f > 1) { /* f = 1: every key has fingerprint 1 */
			assert_int_equal(tu_one(f, 3, t0 + 70 + amax), PD_DISTINCT);
			assert_int_equal(tu_one(f, 1, t0 + 80 + amax), PD_DISTINCT);
			assert_int_equal(tu_one(f, 1, t0 + 90 + amax), PD_DUPLICATE);
		}
		pd_filter_destroy(f);
	}
}

/*
 * With rows far from full (no copy pushed out within W) and whole-nanosecond resolution,
 * windowed qqhtd and windowed qhtlru give the oracle's verdicts and delays, in both modes, for a stream with
 * timestamps out of order (by up to 300 us for f = 32, 40 us for f = 16: within the
 * 16-bit ages' reach). So does exact. Fingerprint collisions: with f = 32 about 1e-3
 * expected over the run; with f = 16 about 0.2 (tolerated: <= 3).
 */
static void test_rowage_vs_oracle(void **state)
{
	const size_t n = 400000;
	uint64_t *k = tu_keys(n, 50000, 5);
	uint64_t *ts = malloc(n * sizeof(*ts));
	uint64_t *d = malloc(n * sizeof(*d)), *td = malloc(n * sizeof(*td));
	uint8_t *v = malloc(n), *t = malloc(n);
	uint64_t seed = 9;
	const struct {
		enum pd_filter_type type;
		unsigned f;
		uint64_t w;
		enum pd_window_mode mode;
		unsigned tolerated;
		uint64_t jitter;
	} c[] = {{PD_FILTER_QQHTD, 32, 1000000, PD_WINDOW_SEEN, 0, 300000},
		 {PD_FILTER_QQHTD, 32, 1000000, PD_WINDOW_DELIVERED, 0, 300000},
		 {PD_FILTER_QQHTD, 16, 20000, PD_WINDOW_SEEN, 3, 40000},
		 {PD_FILTER_QQHTD, 16, 20000, PD_WINDOW_DELIVERED, 3, 40000},
		 {PD_FILTER_QHTLRU, 32, 1000000, PD_WINDOW_SEEN, 0, 300000},
		 {PD_FILTER_QHTLRU, 32, 1000000, PD_WINDOW_DELIVERED, 0, 300000},
		 {PD_FILTER_QHTLRU, 16, 20000, PD_WINDOW_SEEN, 3, 40000},
		 {PD_FILTER_QHTLRU, 16, 20000, PD_WINDOW_DELIVERED, 3, 40000}};

	(void)state;
	for (unsigned ci = 0; ci < sizeof(c) / sizeof(c[0]); ci++) {
		struct pd_filter_params p = qw(64 << 20, 0, c[ci].f, c[ci].w, c[ci].mode);
		struct pd_filter *f = (p.type = c[ci].type, tu_create(p));
		struct pd_filter *e = tu_create((struct pd_filter_params){
			.type = PD_FILTER_EXACT, .seed = 3, .window = c[ci].w,
			.window_mode = c[ci].mode});
		size_t diff = 0;

		for (size_t i = 0; i < n; i++) /* 1 key per 250 ns on average, plus jitter */
			ts[i] = 1700000000000000000ULL + i * 250 + tu_splitmix(&seed) % c[ci].jitter;
		window_truth(k, ts, n, c[ci].w, c[ci].mode, t, td);
		assert_int_equal(pd_filter_params(f)->qht_f, c[ci].f);
		pd_filter_burst_u64(e, k, ts, v, n); /* verdicts only */
		assert_memory_equal(v, t, n);
		pd_filter_reset(e);
		{
			uint64_t *h = malloc(n * sizeof(*h));

			for (size_t i = 0; i < n; i++)
				h[i] = pd_filter_hash(e, &k[i], 8);
			pd_filter_burst_hashed_delay(e, h, ts, v, d, n);
			assert_memory_equal(v, t, n);
			assert_memory_equal(d, td, n * sizeof(*d));
			for (size_t i = 0; i < n; i++)
				h[i] = pd_filter_hash(f, &k[i], 8);
			pd_filter_burst_hashed_delay(f, h, ts, v, d, n);
			free(h);
		}
		for (size_t i = 0; i < n; i++) {
			if (v[i] != t[i]) {
				diff++;
				assert_true(v[i] && !t[i]); /* only a collision, never a miss */
				continue;
			}
			assert_int_equal(d[i], td[i]);
		}
		printf("%s f=%u W=%llu %s: %zu collisions\n", pd_filter_type_name(c[ci].type), c[ci].f,
		       (unsigned long long)c[ci].w, c[ci].mode ? "delivered" : "seen", diff);
		assert_true(diff <= c[ci].tolerated);
		pd_filter_destroy(f);
		pd_filter_destroy(e);
	}
	free(k);
	free(ts);
	free(d);
	free(td);
	free(v);
	free(t);
}

/*
 * Coarse resolution (W = 1 s; qqhtd f = 16: units of 2^15 ns; qhtlru f = 24, 8-bit ages:
 * units of 2^23 ns): no match is ever older than W, and every copy within W - 2 units is
 * found. Timerbf (units of 2^10 ns) likewise, with
 * its false positives checked against the oracle with an infinite window (a Bloom false
 * positive is another key, not an old copy of this one... so only on keys never seen).
 */
static void test_window_bound(void **state)
{
	const size_t n = 300000;
	const uint64_t W = 1000000000ULL;
	uint64_t *k = tu_keys(n, 20000, 17);
	uint64_t *ts = malloc(n * sizeof(*ts));
	uint64_t *d = malloc(n * sizeof(*d)), *h = malloc(n * sizeof(*h));
	uint8_t *v = malloc(n), *t = malloc(n), *near = malloc(n);
	uint64_t seed = 3, now = 5000000000ULL;
	const struct {
		enum pd_filter_type type;
		unsigned f, shift;
	} c[] = {{PD_FILTER_QQHTD, 16, 15}, {PD_FILTER_QHTLRU, 24, 23}};

	(void)state;
	for (size_t i = 0; i < n; i++) { /* gaps 0..20 us: copies span 0..~3 W */
		now += tu_splitmix(&seed) % 20000;
		ts[i] = now;
	}
	window_truth(k, ts, n, W, PD_WINDOW_SEEN, t, NULL);
	for (size_t ci = 0; ci < 2; ci++) {
		struct pd_filter_params p = qw(64 << 20, 0, c[ci].f, W, PD_WINDOW_SEEN);
		struct pd_filter *f;
		size_t dups = 0, edge = 0;

		p.type = c[ci].type;
		f = tu_create(p);
		window_truth(k, ts, n, W - (2ULL << c[ci].shift), PD_WINDOW_SEEN, near, NULL);
		for (size_t i = 0; i < n; i++)
			h[i] = pd_filter_hash(f, &k[i], 8);
		pd_filter_burst_hashed_delay(f, h, ts, v, d, n);
		for (size_t i = 0; i < n; i++) {
			dups += v[i];
			if (v[i])
				assert_true(d[i] <= W);
			if (v[i] && !t[i])
				fail_msg("%s: key %zu matched a copy older than W",
					 pd_filter_type_name(c[ci].type), i);
			if (near[i] && !v[i])
				fail_msg("%s: key %zu missed a copy within W - 2 units",
					 pd_filter_type_name(c[ci].type), i);
			edge += t[i] && !v[i];
		}
		printf("%s W=1s: %zu duplicates, %zu copies missed in the last 2 units\n",
		       pd_filter_type_name(c[ci].type), dups, edge);
		assert_true(dups > n / 4); /* the stream does repeat within W */
		pd_filter_destroy(f);
	}

	for (unsigned m = 0; m < 2; m++) {
		struct pd_filter *tb = tu_create((struct pd_filter_params){
			.type = PD_FILTER_TIMERBF, .memory_bytes = 16 << 20, .seed = 4, .k = 8,
			.window = W, .window_mode = (enum pd_window_mode)m});
		size_t fp = 0;

		window_truth(k, ts, n, W, (enum pd_window_mode)m, t, NULL);
		window_truth(k, ts, n, W - (2ULL << 10), (enum pd_window_mode)m, near, NULL);
		for (size_t i = 0; i < n; i++)
			h[i] = pd_filter_hash(tb, &k[i], 8);
		pd_filter_burst_hashed_delay(tb, h, ts, v, d, n);
		for (size_t i = 0; i < n; i++) {
			fp += v[i] && !t[i];
			if (near[i] && !v[i])
				fail_msg("timerbf: key %zu missed a copy within W - 2 units", i);
			if (v[i] && t[i])
				assert_true(d[i] <= W);
		}
		/* 20,000 keys in 16 MiB with k = 8: (1 - e^(-kn/m))^k is about 1e-24 */
		printf("timerbf %s: %zu false positives\n", m ? "delivered" : "seen", fp);
		assert_int_equal(fp, 0);
		pd_filter_destroy(tb);
	}
	free(k);
	free(ts);
	free(d);
	free(h);
	free(v);
	free(t);
	free(near);
}

/* P(Binomial(m, p) >= b). */
static double binom_tail(uint64_t m, double p, unsigned b)
{
	double below = 0.0;

	if (m < b)
		return 0.0;
	for (unsigned x = 0; x < b; x++)
		below += exp(lgamma((double)m + 1) - lgamma((double)x + 1) -
			     lgamma((double)(m - x) + 1) + x * log(p) + (double)(m - x) * log1p(-p));
	return below >= 1.0 ? 0.0 : 1.0 - below;
}

/*
 * Error rates against formulas (windows in keys: no timestamps).
 * FPR: n rows, W keys per window: a new key meets X ~ Binomial(W, 1/n) live entries of
 * other keys in its row (at most b), each equal to its fingerprint w.p. 1/S:
 * E[FP] = sum over distinct keys of E[1 - (1 - 1/S)^min(X, b)].
 * FNR: a true duplicate whose previous copy is g keys back is missed iff at least b of
 * the g - 1 keys between them went to its row: P(Binomial(g - 1, 1/n) >= b) when those
 * are g - 1 different keys.
 */
static void test_qqhtdw_formulas(void **state)
{
	(void)state;
	{ /* FPR: all keys distinct, f = 16, b = 14, 1024 rows, W = 4096 keys */
		const size_t n = 4000000;
		const unsigned b = 14;
		const double rows = 1024, S = 65535, W = 4096;
		uint64_t *k = tu_keys(n, 0, 23);
		uint8_t *v = malloc(n);
		struct pd_filter *f = tu_create(qw(1024 * 64, b, 16, 4096, PD_WINDOW_SEEN));
		double pe = 0.0, expect, fp = 0;

		/* X ~ Binomial(W, 1/rows) */
		for (unsigned x = 0; x <= 4096; x++) {
			double lp = lgamma(W + 1) - lgamma(x + 1.0) - lgamma(W - x + 1) +
				    x * log(1 / rows) + (W - x) * log1p(-1 / rows);

			pe += exp(lp) * -expm1((x < b ? x : b) * log1p(-1 / S));
		}
		pd_filter_burst_u64(f, k, NULL, v, n);
		for (size_t i = 4096; i < n; i++)
			fp += v[i];
		expect = pe * (double)(n - 4096);
		printf("qqhtd windowed FPR: %.0f false positives, formula %.1f\n", fp, expect);
		assert_true(fabs(fp - expect) < 5 * sqrt(expect));
		pd_filter_destroy(f);
		free(k);
		free(v);
	}
	{
		/*
		 * FNR: blocks of g distinct keys, each followed by the same g keys again, for
		 * g in 300..3000. A copy's previous occurrence is g keys back and the g - 1 keys
		 * in between are all different keys (no pair nests inside another), so the
		 * appends to its row in between are exactly Binomial(g - 1, 1/rows).
		 * f = 32 (no collisions), b = 7, 256 rows, W = 4000 keys (every copy is a
		 * true duplicate).
		 */
		const unsigned gaps[] = {300, 700, 1100, 1500, 1900, 2300, 3000};
		const size_t n = 1000000;
		uint64_t *k = malloc(n * sizeof(*k));
		uint8_t *v = malloc(n), *t = malloc(n);
		struct pd_filter *f = tu_create(qw(256 * 64, 7, 32, 4000, PD_WINDOW_SEEN));
		double expect = 0.0, var = 0.0, fn = 0, fp = 0, dups = 0;
		uint64_t seed = 31;
		size_t i = 0;

		for (unsigned blk = 0; i < n; blk++) {
			unsigned g = gaps[blk % 7];

			for (unsigned j = 0; j < g && i < n; j++)
				k[i++] = tu_splitmix(&seed);
			for (unsigned j = 0; j < g && i < n; j++, i++)
				k[i] = k[i - g];
		}
		window_truth(k, NULL, n, 4000, PD_WINDOW_SEEN, t, NULL);
		pd_filter_burst_u64(f, k, NULL, v, n);
		i = 0;
		for (unsigned blk = 0; i < n; blk++) {
			unsigned g = gaps[blk % 7];
			double q = binom_tail(g - 1, 1.0 / 256, 7);

			for (unsigned j = 0; j < 2 * g && i < n; j++, i++) {
				if (j < g) {
					assert_int_equal(t[i], 0);
					fp += v[i];
					continue;
				}
				assert_int_equal(t[i], 1);
				dups++;
				expect += q;
				var += q * (1 - q);
				fn += !v[i];
			}
		}
		printf("qqhtd windowed FNR: %.0f of %.0f copies missed, formula %.1f (sd %.1f); "
		       "%.0f FP\n", fn, dups, expect, sqrt(var), fp);
		assert_true(expect > 10000); /* the test does exercise evictions */
		assert_true(fabs(fn - expect) < 5 * sqrt(var));
		assert_true(fp <= 1);
		pd_filter_destroy(f);
		free(k);
		free(v);
		free(t);
	}
}

/* Filters without times report no delays; a windowed snapshot keeps the window. */
static void test_delay_api(void **state)
{
	struct pd_filter *q = tu_create((struct pd_filter_params){
		.type = PD_FILTER_QQHTD, .memory_bytes = 1 << 16, .seed = 1});
	struct pd_filter *e = tu_create((struct pd_filter_params){.type = PD_FILTER_EXACT,
								  .seed = 1});
	uint64_t h[3], ts[3] = {100, 250, 400}, d[3];
	uint8_t v[3];

	(void)state;
	assert_false(pd_filter_reports_delay(q));
	assert_true(pd_filter_reports_delay(e));
	for (int i = 0; i < 3; i++)
		h[i] = pd_filter_hash(q, "same", 4);
	pd_filter_burst_hashed_delay(q, h, ts, v, d, 3);
	assert_int_equal(v[1], PD_DUPLICATE);
	assert_true(d[0] == PD_DELAY_NONE && d[1] == PD_DELAY_NONE && d[2] == PD_DELAY_NONE);
	for (int i = 0; i < 3; i++)
		h[i] = pd_filter_hash(e, "same", 4);
	pd_filter_burst_hashed_delay(e, h, ts, v, d, 3);
	/* no window: every copy is a duplicate; the delay is from the newest copy */
	assert_true(d[0] == PD_DELAY_NONE && d[1] == 150 && d[2] == 150);
	pd_filter_destroy(q);
	pd_filter_destroy(e);
}

/*
 * A clock stepped back (an NTP step inside a capture, captures joined out of order, a
 * snapshot restored on a host whose clock is behind it): a key stamped far before the
 * newest time the filter has seen. Windowed rows then compared it as of its own time,
 * so every remembered key repeated after the step was a copy however long after
 * (made up), and keys appended to rows whose time lay ahead by more than the ages reach
 * saturated, so their copies passed until the clock caught up (an hour after a step of
 * an hour). The filter forgets instead, once, and counts it (pd_filter_stats.forgotten);
 * a key out of order within the window's reach is still compared as of its own time.
 * One 64-byte row (every key in it) for the qht family; timerbf re-anchored already.
 */
static void test_clock_step(void **state)
{
	static const struct {
		enum pd_filter_type type;
		unsigned b, f;
	} c[] = {{PD_FILTER_QHTLRU, 7, 27}, {PD_FILTER_QHTLRU, 14, 24}, {PD_FILTER_QHTLRU, 7, 30},
		 {PD_FILTER_QQHTD, 14, 16},  {PD_FILTER_QQHTD, 7, 32},   {PD_FILTER_TIMERBF, 0, 0}};
	const uint64_t W = 100000000, t0 = 1700000000000000000ULL, hour = 3600000000000ULL;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct pd_filter *f = tu_create((struct pd_filter_params){
			.type = c[i].type, .memory_bytes = c[i].b ? 64 : 4096, .seed = 9,
			.qht_b = c[i].b, .qht_f = c[i].f, .window = W, .target_fpr = 0.99});
		const uint64_t t1 = t0 - hour;
		struct pd_filter_stats st;

		for (uint64_t k = 1; k <= 5; k++)
			assert_int_equal(tu_one(f, k, t0 + k * 1000), PD_DISTINCT);
		/* out of order within reach: compared as of its own time, nothing forgotten */
		assert_int_equal(tu_one(f, 3, t0 - W / 2), PD_DUPLICATE);
		assert_int_equal(tu_one(f, 6, t0 - W / 2), PD_DISTINCT);
		assert_int_equal(tu_one(f, 6, t0 - W / 2 + 10), PD_DUPLICATE);
		pd_filter_stats(f, &st);
		assert_int_equal(st.forgotten, 0);
		/* an hour back: key 1 (seen an hour "later") is new again, and so is the
		 * first of key 7, whose copy 10 us later is caught */
		assert_int_equal(tu_one(f, 1, t1), PD_DISTINCT);
		assert_int_equal(tu_one(f, 7, t1 + 1000), PD_DISTINCT);
		assert_int_equal(tu_one(f, 7, t1 + 11000), PD_DUPLICATE);
		assert_int_equal(tu_one(f, 1, t1 + 20000), PD_DUPLICATE);
		pd_filter_stats(f, &st);
		assert_int_equal(st.forgotten, 1);
		/* the clock back where it was: the old keys' times are gone for good */
		assert_int_equal(tu_one(f, 2, t0 + 100000), PD_DISTINCT);
		pd_filter_reset(f);
		pd_filter_stats(f, &st);
		assert_int_equal(st.forgotten, 0);
		pd_filter_destroy(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qqhtdw_edges),
		cmocka_unit_test(test_rowage_vs_oracle),
		cmocka_unit_test(test_qhtlruw_plan),
		cmocka_unit_test(test_rowage_saturation),
		cmocka_unit_test(test_window_bound),
		cmocka_unit_test(test_qqhtdw_formulas),
		cmocka_unit_test(test_delay_api),
		cmocka_unit_test(test_clock_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
