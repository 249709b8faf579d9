/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live error estimate (pd_estimate.h) against a plain model: an unbounded list of
 * every sampled key at a fixed level with its reference time, written from the header's
 * definition (truth as the exact filter's: no window, or within W of the key's last copy
 * (seen) or of its last copy the filter under test delivered (delivered)).
 *
 * The estimator's set is small, so it raises its level during the run; the model runs
 * at the level it ends at, with unbounded memory: the counts must be equal, since the
 * keys still sampled were sampled from their first copy. Also the Wilson interval
 * against published values, and the counts of several estimators added at one level.
 */
#include <math.h>
#include <stdio.h>

#include <pktdedup/pd_estimate.h>
#include <pktdedup/pd_snapshot.h>

#include "estimate_private.h"
#include "testutil.h"

struct model_key {
	uint64_t h, t;
	uint64_t u, y, c, x; /* unique packets, FP among them; copies, FN among them */
};

struct model {
	unsigned level;
	uint64_t window;
	enum pd_window_mode mode;
	struct model_key *k;
	size_t n, cap;
	uint64_t tn, fp, fn, tp;
};

/* The per-key sums of the header, from the keys' final counts (no window: no key ever
 * leaves the set, so its counts are whole; ku, kc: keys with a unique packet, a copy). */
static void model_sums(const struct model *m, double s[6], uint64_t *ku, uint64_t *kc)
{
	memset(s, 0, 6 * sizeof(double));
	*ku = *kc = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct model_key *k = &m->k[i];

		s[0] += (double)(k->u * k->u);
		s[1] += (double)(k->y * k->y);
		s[2] += (double)(k->y * k->u);
		s[3] += (double)(k->c * k->c);
		s[4] += (double)(k->x * k->x);
		s[5] += (double)(k->x * k->c);
		*ku += k->u != 0;
		*kc += k->c != 0;
	}
}

static unsigned model_level(uint64_t h)
{
	uint64_t x = (h << 44) | (h >> 20); /* the header's mix, written out */
	unsigned l = 0;

	while (l < 63 && !(x & (1ULL << 63))) {
		x <<= 1;
		l++;
	}
	return l;
}

static void model_step(struct model *m, uint64_t h, uint64_t t, uint8_t v)
{
	struct model_key *k = NULL;
	int truth = 0;

	if (model_level(h) < m->level)
		return;
	for (size_t i = 0; i < m->n; i++)
		if (m->k[i].h == h)
			k = &m->k[i];
	if (k != NULL)
		truth = m->window == 0 || t <= k->t || t - k->t <= m->window;
	if (truth)
		v ? m->tp++ : m->fn++;
	else
		v ? m->fp++ : m->tn++;
	if (m->window != 0 && m->mode == PD_WINDOW_DELIVERED && v) {
		if (k == NULL)
			return; /* not delivered, not kept */
	} else if (k == NULL) {
		if (m->n == m->cap) {
			m->cap = m->cap ? 2 * m->cap : 1024;
			m->k = realloc(m->k, m->cap * sizeof(*m->k));
			assert_non_null(m->k);
		}
		k = &m->k[m->n++];
		memset(k, 0, sizeof(*k));
		k->h = h;
		k->t = t;
	} else if (t > k->t) {
		k->t = t;
	}
	if (truth) {
		k->c++;
		k->x += !v;
	} else {
		k->u++;
		k->y += v;
	}
}

/* A stream of n hashes from a pool of `distinct`, copies at random gaps, times rising
 * by 0-3 units; verdicts random (the bookkeeping does not depend on their quality). */
static void run_pool(uint64_t window, enum pd_window_mode mode, unsigned level0,
		     uint64_t entries, uint64_t seed, size_t distinct)
{
	const size_t n = 200000;
	uint64_t *pool = tu_keys(distinct, 0, seed), x = seed * 7 + 1, t = 0;
	struct pd_estimate *e = pd_estimate_create(level0, entries, window, mode);
	struct pd_estimate *s = pd_estimate_create(level0, entries, window, mode);
	struct model m = {.window = window, .mode = mode};
	uint64_t *h = malloc(n * sizeof(*h)), *ts = malloc(n * sizeof(*ts));
	uint8_t *v = malloc(n);
	struct pd_estimate_counts c, cs;

	assert_non_null(e);
	assert_non_null(s);
	pd_estimate_force_scalar(s, 1); /* the portable scan beside the CPU's */
	for (size_t i = 0; i < n; i++) {
		h[i] = pool[tu_splitmix(&x) % distinct];
		if (i % 9000 == 0)
			h[i] = 0; /* the hash 0 is a key like another */
		t += tu_splitmix(&x) % 4;
		ts[i] = t;
		v[i] = (uint8_t)(tu_splitmix(&x) & 1);
	}
	for (size_t i = 0; i < n; i += 32) {
		pd_estimate_observe(e, h + i, window ? ts + i : NULL, v + i,
				    (unsigned)(n - i < 32 ? n - i : 32));
		pd_estimate_observe(s, h + i, window ? ts + i : NULL, v + i,
				    (unsigned)(n - i < 32 ? n - i : 32));
	}
	pd_estimate_counts(s, 0, &cs);
	m.level = pd_estimate_level(e);
	assert_true(m.level > level0); /* the small set made it raise the level */
	for (size_t i = 0; i < n; i++)
		model_step(&m, h[i] != 0 ? h[i] : 1, window ? ts[i] : 0, v[i]);
	pd_estimate_counts(e, 0, &c);
	printf("window %llu mode %d: level %u -> %u, %zu keys sampled; TN %llu FP %llu FN %llu"
	       " TP %llu\n", (unsigned long long)window, (int)mode, level0, m.level, m.n,
	       (unsigned long long)c.tn, (unsigned long long)c.fp, (unsigned long long)c.fn,
	       (unsigned long long)c.tp);
	assert_true(memcmp(&c, &cs, sizeof(c)) == 0);
	assert_int_equal(c.level, m.level);
	assert_int_equal(c.tn, m.tn);
	assert_int_equal(c.fp, m.fp);
	assert_int_equal(c.fn, m.fn);
	assert_int_equal(c.tp, m.tp);
	assert_true(c.tn + c.fp + c.fn + c.tp > 1000);
	if (window == 0) { /* the per-key sums (with a window an expired key's entry may be
			     * reused by another: its next copies start a new cluster) */
		double s[6];
		uint64_t ku, kc;

		assert_int_equal(c.keys, m.n);
		model_sums(&m, s, &ku, &kc);
		assert_true(c.uu == s[0] && c.yy == s[1] && c.yu == s[2]);
		assert_true(c.cc == s[3] && c.xx == s[4] && c.xc == s[5]);
		assert_int_equal(c.unique_keys, ku);
		assert_int_equal(c.copy_keys, kc);
	}
	pd_estimate_free(e);
	pd_estimate_free(s);
	free(pool);
	free(h);
	free(ts);
	free(v);
	free(m.k);
}

static void run_case(uint64_t window, enum pd_window_mode mode, unsigned level0,
		     uint64_t entries, uint64_t seed)
{
	run_pool(window, mode, level0, entries, seed, 30000);
}

static void test_no_window(void **state)
{
	(void)state;
	run_case(0, PD_WINDOW_SEEN, 0, 1024, 1);
	run_case(0, PD_WINDOW_SEEN, 2, 512, 2);
}

static void test_window_seen(void **state)
{
	(void)state;
	run_case(2000, PD_WINDOW_SEEN, 0, 512, 3);
	run_case(100000, PD_WINDOW_SEEN, 1, 512, 4);
	/* gaps near W (1,500 keys, 1.5 units a key): the window's edge decides often */
	for (uint64_t w = 2248; w <= 2252; w++)
		run_pool(w, PD_WINDOW_SEEN, 0, 256, 10 + w, 1500);
}

static void test_window_delivered(void **state)
{
	(void)state;
	run_case(2000, PD_WINDOW_DELIVERED, 0, 512, 5);
	run_case(100000, PD_WINDOW_DELIVERED, 1, 512, 6);
	for (uint64_t w = 2248; w <= 2252; w++)
		run_pool(w, PD_WINDOW_DELIVERED, 0, 256, 20 + w, 1500);
}

/* Without raising: the counts of every level, and the level filter of the counts. */
static void test_levels_added(void **state)
{
	struct pd_estimate *a = pd_estimate_create(0, 1 << 20, 0, PD_WINDOW_SEEN);
	struct pd_estimate *b = pd_estimate_create(3, 1 << 20, 0, PD_WINDOW_SEEN);
	uint64_t *k = tu_keys(100000, 50000, 9);
	uint8_t v[32] = {0};
	struct pd_estimate_counts ca, cb, ca3;
	struct model m = {.level = 3};

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < 100000; i++) { /* keys 0..49999 to 64-bit hashes */
		uint64_t x = k[i];

		k[i] = tu_splitmix(&x);
	}
	for (size_t i = 0; i < 100000; i += 32) {
		pd_estimate_observe(a, k + i, NULL, v, 32);
		pd_estimate_observe(b, k + i, NULL, v, 32);
	}
	for (size_t i = 0; i < 100000; i++)
		model_step(&m, k[i] != 0 ? k[i] : 1, 0, 0);
	pd_estimate_counts(a, 0, &ca);
	pd_estimate_counts(a, 3, &ca3);
	pd_estimate_counts(b, 0, &cb);
	assert_int_equal(ca.level, 0);
	assert_int_equal(ca.tn + ca.fn, 100000); /* every key sampled at level 0 */
	assert_int_equal(ca3.level, 3);
	assert_int_equal(ca3.tn, cb.tn);
	assert_int_equal(ca3.fn, cb.fn);
	assert_int_equal(cb.tn, m.tn);
	assert_int_equal(cb.fn, m.fn);
	/* roughly 1/8 of the keys at level 3 */
	assert_true(cb.tn > 43000 / 8 * 0.8 && cb.tn < 43000 / 8 * 1.2);
	pd_estimate_free(a);
	pd_estimate_free(b);
	free(k);
	free(m.k);
}

/* Wilson 95% intervals: 0/100 has upper z^2/(n+z^2) = 0.03699; 5/100 is (0.02154,
 * 0.11175) and 50/100 (0.40383, 0.59617) (Newcombe 1998, method 3, as tabulated). */
static void test_interval(void **state)
{
	double r, lo, hi;

	(void)state;
	pd_estimate_interval(0, 100, &r, &lo, &hi);
	assert_true(r == 0 && lo == 0 && fabs(hi - 0.03699) < 1e-4);
	pd_estimate_interval(5, 100, &r, &lo, &hi);
	assert_true(fabs(r - 0.05) < 1e-12 && fabs(lo - 0.02154) < 1e-4 && fabs(hi - 0.11175) < 1e-4);
	pd_estimate_interval(50, 100, &r, &lo, &hi);
	assert_true(fabs(lo - 0.40383) < 1e-4 && fabs(hi - 0.59617) < 1e-4);
	pd_estimate_interval(0, 0, &r, &lo, &hi);
	assert_true(r == 0 && lo == 0 && hi == 1);
	pd_estimate_interval(7, 7, &r, &lo, &hi);
	assert_true(r == 1 && hi == 1 && lo > 0.5 && lo < 0.7);
	/* clusters: 10 keys of 10 copies, 5 keys missed whole, 5 never: design effect 10,
	 * so 5 of 10: Wilson (0.23659, 0.76341) */
	pd_estimate_interval_clustered(50, 100, 10, 1000, 500, 500, &r, &lo, &hi);
	assert_true(fabs(r - 0.5) < 1e-12 && fabs(lo - 0.23659) < 1e-4 && fabs(hi - 0.76341) < 1e-4);
	/* the same errors spread evenly (one per key): no design effect, 50 of 100 */
	pd_estimate_interval_clustered(50, 100, 10, 1000, 250, 500, &r, &lo, &hi);
	assert_true(fabs(lo - 0.40383) < 1e-4 && fabs(hi - 0.59617) < 1e-4);
	/* no error in 100 copies of 10 keys: 0 of 10, upper z^2/(10+z^2) = 0.27753 */
	pd_estimate_interval_clustered(0, 100, 10, 1000, 0, 0, &r, &lo, &hi);
	assert_true(r == 0 && lo == 0 && fabs(hi - 0.27753) < 1e-4);
}

/* Workers at different sampling levels: their counts are added at the highest level
 * any reached (each one's keys of that level and above), as a model at that level over
 * all their keys counts them. */
static void test_combine(void **state)
{
	const unsigned levels[3] = {0, 2, 4};
	struct pd_estimate *e[3];
	struct model m = {.level = 4};
	struct pd_estimate_counts c, one;
	uint64_t x = 77;

	(void)state;
	for (unsigned w = 0; w < 3; w++) {
		uint64_t *pool = tu_keys(20000, 0, 100 + w), h[32];
		uint8_t v[32];

		e[w] = pd_estimate_create(levels[w], 1 << 20, 0, PD_WINDOW_SEEN);
		assert_non_null(e[w]);
		for (size_t i = 0; i < 60000; i += 32) {
			for (unsigned j = 0; j < 32; j++) {
				h[j] = pool[tu_splitmix(&x) % 20000];
				v[j] = (uint8_t)(tu_splitmix(&x) & 1);
				model_step(&m, h[j], 0, v[j]);
			}
			pd_estimate_observe(e[w], h, NULL, v, 32);
		}
		assert_int_equal(pd_estimate_level(e[w]), levels[w]); /* the set never filled */
		free(pool);
	}
	pd_estimate_combine((const struct pd_estimate *const *)e, 3, &c);
	assert_int_equal(c.level, 4);
	assert_int_equal(c.tn, m.tn);
	assert_int_equal(c.fp, m.fp);
	assert_int_equal(c.fn, m.fn);
	assert_int_equal(c.tp, m.tp);
	pd_estimate_counts(e[0], 0, &one); /* worker 0 alone at its own level: 16x more */
	assert_true(one.tn + one.fp > 8 * (m.tn + m.fp) / 3);
	for (unsigned w = 0; w < 3; w++)
		pd_estimate_free(e[w]);
	free(m.k);
}

static void *state_of(const struct pd_estimate *e, uint64_t *len)
{
	void *img;

	*len = pd_estimate_state_size(e);
	img = malloc(*len);
	assert_non_null(img);
	assert_int_equal(pd_estimate_save_state(e, img, *len), (int64_t)*len);
	assert_int_equal(pd_estimate_save_state(e, img, *len - 1), -1);
	return img;
}

/* Saved halfway and loaded into a new estimator, the counts go on as if never stopped:
 * after the rest of the stream, equal to the bytes, level included (a set small enough
 * that the level rises before and after the save), with and without a window. */
static void test_state_roundtrip(void **state)
{
	(void)state;
	for (int win = 0; win <= 1; win++) {
		const uint64_t window = win ? 3000 : 0, n = 100000;
		struct pd_estimate *a = pd_estimate_create(0, 256, window, PD_WINDOW_SEEN);
		struct pd_estimate *b = pd_estimate_create(0, 256, window, PD_WINDOW_SEEN);
		uint64_t *pool = tu_keys(40000, 0, 5 + win), *h = malloc(n * 8), *ts = malloc(n * 8);
		uint64_t x = 3, t = 0, len;
		uint8_t *v = malloc(n);
		struct pd_estimate_counts ca, cb;
		struct pd_error err;
		unsigned mid;
		void *img;

		assert_non_null(a);
		assert_non_null(b);
		for (size_t i = 0; i < n; i++) {
			/* more keys in the second half: the level rises again */
			h[i] = pool[tu_splitmix(&x) % (i < n / 2 ? 4000 : 40000)];
			ts[i] = t += tu_splitmix(&x) % 4;
			v[i] = (uint8_t)(tu_splitmix(&x) & 1);
		}
		for (size_t i = 0; i < n / 2; i += 25)
			pd_estimate_observe(a, h + i, win ? ts + i : NULL, v + i, 25);
		mid = pd_estimate_level(a);
		img = state_of(a, &len);
		assert_int_equal(pd_estimate_load_state(b, img, len, &err), 0);
		assert_int_equal(pd_estimate_level(b), mid);
		for (size_t i = n / 2; i < n; i += 25) {
			pd_estimate_observe(a, h + i, win ? ts + i : NULL, v + i, 25);
			pd_estimate_observe(b, h + i, win ? ts + i : NULL, v + i, 25);
		}
		assert_true(pd_estimate_level(a) > mid && mid > 0);
		pd_estimate_counts(a, 0, &ca);
		pd_estimate_counts(b, 0, &cb);
		assert_memory_equal(&ca, &cb, sizeof(ca));
		free(img);
		img = state_of(a, &len);
		{
			void *img2;
			uint64_t len2;

			img2 = state_of(b, &len2);
			assert_int_equal(len, len2);
			assert_memory_equal(img, img2, len);
			free(img2);
		}
		pd_estimate_free(a);
		pd_estimate_free(b);
		free(img);
		free(pool);
		free(h);
		free(ts);
		free(v);
	}
}

/*
 * A restart through a snapshot (issue 38 E1): an exact filter and its estimate see every
 * key once, then everything is saved and loaded into a new filter, and the same keys come
 * again, each now a true copy. With the estimate's state loaded too it counts no false
 * positive; a new estimate without it would count every key's first copy as one (the
 * defect: "FPR 1" after a restart).
 */
static void test_restart(void **state)
{
	const unsigned n = 4096;
	struct pd_filter_params p = {.type = PD_FILTER_EXACT, .memory_bytes = 1 << 20, .seed = 9};
	struct pd_filter *f = tu_create(p), *g = tu_create(p);
	struct pd_estimate *e = pd_estimate_create(0, 1 << 14, 0, PD_WINDOW_SEEN);
	struct pd_estimate *fresh = pd_estimate_create(0, 1 << 14, 0, PD_WINDOW_SEEN);
	struct pd_estimate *carried = pd_estimate_create(0, 1 << 14, 0, PD_WINDOW_SEEN);
	uint64_t *k = tu_keys(n, 0, 12), h[32], len, flen;
	struct pd_estimate_counts cf, cc;
	struct pd_error err;
	uint8_t v[32];
	void *img, *fimg;

	(void)state;
	for (unsigned i = 0; i < n; i += 32) {
		pd_filter_stage_u64(f, k + i, h, 32);
		pd_filter_burst_hashed(f, h, NULL, v, 32);
		pd_estimate_observe(e, h, NULL, v, 32);
	}
	flen = pd_filter_state_size(f);
	fimg = malloc(flen);
	assert_non_null(fimg);
	assert_int_equal(pd_filter_save_state(f, fimg, flen, &flen, &err), 0);
	assert_int_equal(pd_filter_load_state(g, fimg, flen, &err), 0);
	img = state_of(e, &len);
	assert_int_equal(pd_estimate_load_state(carried, img, len, &err), 0);
	for (unsigned i = 0; i < n; i += 32) {
		pd_filter_stage_u64(g, k + i, h, 32);
		pd_filter_burst_hashed(g, h, NULL, v, 32);
		for (unsigned j = 0; j < 32; j++)
			assert_int_equal(v[j], PD_DUPLICATE);
		pd_estimate_observe(carried, h, NULL, v, 32);
		pd_estimate_observe(fresh, h, NULL, v, 32);
	}
	pd_estimate_counts(carried, 0, &cc);
	pd_estimate_counts(fresh, 0, &cf);
	assert_int_equal(cc.fp, 0);
	assert_int_equal(cc.tp, n);
	assert_int_equal(cc.tn, n); /* the first run's, carried */
	assert_int_equal(cf.fp, n); /* without the state: every key a false positive */
	pd_filter_destroy(f);
	pd_filter_destroy(g);
	pd_estimate_free(e);
	pd_estimate_free(fresh);
	pd_estimate_free(carried);
	free(k);
	free(img);
	free(fimg);
}

/* A damaged or foreign image is refused and the estimator stays as it was. */
static void test_state_refused(void **state)
{
	struct pd_estimate *e = pd_estimate_create(0, 256, 0, PD_WINDOW_SEEN);
	struct pd_estimate *w = pd_estimate_create(0, 256, 100, PD_WINDOW_SEEN);
	struct pd_estimate *big = pd_estimate_create(0, 512, 0, PD_WINDOW_SEEN);
	uint64_t *k = tu_keys(2000, 0, 1), len;
	uint8_t v[40] = {0}, *img, *bad;
	struct pd_estimate_counts before, after;
	struct pd_error err;
	const double nan = NAN;

	(void)state;
	for (unsigned i = 0; i < 2000; i += 40)
		pd_estimate_observe(e, k + i, NULL, v, 40);
	img = state_of(e, &len);
	pd_estimate_observe(w, k, NULL, v, 40);
	pd_estimate_counts(w, 0, &before);
	bad = malloc(len);
	assert_non_null(bad);
	/* another window; another set size; short; not an image; a NaN sum; a bad level */
	assert_int_equal(pd_estimate_load_state(w, img, len, &err), -1);
	assert_int_equal(err.code, PD_EMISMATCH);
	assert_int_equal(pd_estimate_load_state(big, img, len, &err), -1);
	assert_int_equal(pd_estimate_load_state(e, img, len - 1, &err), -1);
	memcpy(bad, img, len);
	bad[0] ^= 1;
	assert_int_equal(pd_estimate_load_state(e, bad, len, &err), -1);
	memcpy(bad, img, len);
	memcpy(bad + 40 + 5 * 8, &nan, 8); /* level 0's uu */
	assert_int_equal(pd_estimate_load_state(e, bad, len, &err), -1);
	assert_int_equal(err.code, PD_ECORRUPT);
	memcpy(bad, img, len);
	bad[8] = 64;
	assert_int_equal(pd_estimate_load_state(e, bad, len, &err), -1);
	pd_estimate_counts(w, 0, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	pd_estimate_free(e);
	pd_estimate_free(w);
	pd_estimate_free(big);
	free(k);
	free(img);
	free(bad);
}

static void test_refusals(void **state)
{
	(void)state;
	assert_null(pd_estimate_create(64, 1024, 0, PD_WINDOW_SEEN));
	assert_null(pd_estimate_create(0, 3, 0, PD_WINDOW_SEEN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_window),
		cmocka_unit_test(test_window_seen),
		cmocka_unit_test(test_window_delivered),
		cmocka_unit_test(test_levels_added),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_combine),
		cmocka_unit_test(test_state_roundtrip),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_state_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
