/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live error estimate (pd_estimate.h): an exact shadow of a hash-chosen sample of
 * the keys, beside the filter.
 *
 * Truth for a sampled key, as the exact filter defines it (exact.c), except that with
 * window_mode delivered the reference time is refreshed by the filter under test's
 * DISTINCT verdicts (seed 002's Definition 4: a copy is a duplicate iff that filter
 * delivered the key within W), not by the shadow's own.
 *
 * The set: buckets of 4 entries {hash, time, the key's counts} (two 64-byte lines); a
 * key may sit in either of two buckets chosen by its hash, so that the set fills well
 * before a bucket overflows (test_estimate's first stream, 1,024 entries: the level
 * ends at 6 with 487 keys held; with one bucket per key it ends at 7 with 230). A new
 * key takes an empty entry of the emptier bucket, or with a window one whose time is
 * more than W before the key's (a later copy of that key is unique anyway); when both
 * have neither, the sampling level goes up until they have (keys of the lower levels
 * leave). The hash 0 is taken as 1 (0 marks an empty entry): a 2^-64 collision.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && !defined(PD_NO_SIMD)
#include <immintrin.h>
#define EST_AVX2 1
#endif

#include "pktdedup/pd_estimate.h"
#include "estimate_private.h"
#include "filter_private.h"

#define WAYS 4

struct entry {
	uint64_t h; /* 0: empty */
	uint64_t t; /* the reference time: last copy (seen) or last delivered copy */
	uint32_t u, y; /* unique packets of the key, and how many the filter called copies */
	uint32_t c, x; /* copies of the key, and how many the filter let through */
};


struct pd_estimate {
	unsigned s;
	uint64_t limit;  /* pd_estimate_limit(s) */
	uint64_t window;
	enum pd_window_mode mode;
	uint64_t mask;   /* buckets - 1 */
	uint64_t keys;   /* entries in use */
	struct entry *set;
	size_t set_bytes;
	int avx2;        /* scan unsampled keys 4 at a time */
	struct pd_estimate_counts lv[PD_ESTIMATE_LEVELS]; /* per level (keys, level unused) */
};

static inline unsigned level_of(uint64_t h)
{
	uint64_t x = pd_estimate_mix(h);

	return x == 0 ? PD_ESTIMATE_LEVELS - 1 : (unsigned)__builtin_clzll(x);
}

static inline struct entry *bucket_a(const struct pd_estimate *e, uint64_t key)
{
	return &e->set[((key ^ (key >> 32)) & e->mask) * WAYS];
}

static inline struct entry *bucket_b(const struct pd_estimate *e, uint64_t key)
{
	return &e->set[((pd_estimate_mix(key) >> 8) & e->mask) * WAYS];
}

static inline unsigned empties(const struct entry *l)
{
	unsigned n = 0;

	for (unsigned j = 0; j < WAYS; j++)
		n += l[j].h == 0;
	return n;
}

struct pd_estimate *pd_estimate_create(unsigned level, uint64_t entries, uint64_t window,
				       enum pd_window_mode mode)
{
	struct pd_estimate *e;
	uint64_t buckets = 1;

	if (level >= PD_ESTIMATE_LEVELS || entries < WAYS || entries > (UINT64_C(1) << 40))
		return NULL;
	while (buckets * WAYS < entries)
		buckets <<= 1;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return NULL;
	e->set_bytes = buckets * WAYS * sizeof(struct entry);
	e->set = pd_alloc_zero(e->set_bytes);
	if (e->set == NULL) {
		free(e);
		return NULL;
	}
	e->s = level;
	e->limit = pd_estimate_limit(level);
	e->window = window;
	e->mode = mode;
	e->mask = buckets - 1;
#ifdef EST_AVX2
	e->avx2 = __builtin_cpu_supports("avx2");
#endif
	return e;
}

void pd_estimate_force_scalar(struct pd_estimate *e, int scalar)
{
#ifdef EST_AVX2
	e->avx2 = !scalar && __builtin_cpu_supports("avx2");
#else
	(void)scalar;
	e->avx2 = 0;
#endif
}

void pd_estimate_free(struct pd_estimate *e)
{
	if (e == NULL)
		return;
	pd_free(e->set, e->set_bytes);
	free(e);
}

uint64_t pd_estimate_footprint(const struct pd_estimate *e)
{
	return e->set_bytes + sizeof(*e);
}

unsigned pd_estimate_level(const struct pd_estimate *e)
{
	return e->s;
}

/* One level up: the keys below it leave the set. */
static void raise_level(struct pd_estimate *e)
{
	const uint64_t n = (e->mask + 1) * WAYS;

	e->s++;
	e->limit = pd_estimate_limit(e->s);
	for (uint64_t i = 0; i < n; i++) {
		if (e->set[i].h != 0 && level_of(e->set[i].h) < e->s) {
			e->set[i].h = 0;
			e->keys--;
		}
	}
}

/* A free entry of the key's line for a key at time t, raising the level until there is
 * one; NULL when the key itself is no longer sampled. */
static struct entry *room_for(struct pd_estimate *e, uint64_t key, uint64_t t)
{
	for (;;) {
		struct entry *a = bucket_a(e, key), *b = bucket_b(e, key);
		struct entry *l = empties(b) > empties(a) ? b : a;

		for (unsigned j = 0; j < WAYS; j++)
			if (l[j].h == 0)
				return &l[j];
		for (unsigned j = 0; j < 2 * WAYS && e->window != 0; j++) {
			struct entry *x = j < WAYS ? &a[j] : &b[j - WAYS];

			if (t > x->t && t - x->t > e->window) {
				x->h = 0; /* expired: a later copy of it is unique anyway */
				e->keys--;
				return x;
			}
		}
		if (e->s + 1 >= PD_ESTIMATE_LEVELS)
			return NULL;
		raise_level(e);
		if (pd_estimate_mix(key) > e->limit)
			return NULL;
	}
}

/* One more trial of a key's cluster: n trials with x errors before, err this one. */
static inline void cluster_add(uint64_t *k, double *nn, double *xx, double *xn, uint32_t *n,
			       uint32_t *x, int err)
{
	*k += *n == 0;
	*nn += 2.0 * *n + 1;
	*xx += err ? 2.0 * *x + 1 : 0;
	*xn += err ? (double)*n + *x + 1 : (double)*x;
	(*n)++;
	*x += (uint32_t)err;
}

static void observe_one(struct pd_estimate *e, uint64_t key, uint64_t t, uint8_t v)
{
	struct entry *a = bucket_a(e, key), *b = bucket_b(e, key), *found = NULL, none = {0};
	struct pd_estimate_counts *lv = &e->lv[level_of(key)];
	const int dup = v != PD_DISTINCT;
	int truth = 0;

	for (unsigned j = 0; j < WAYS; j++) {
		if (a[j].h == key)
			found = &a[j];
		if (b[j].h == key)
			found = &b[j];
	}
	if (found != NULL)
		truth = e->window == 0 || t <= found->t || t - found->t <= e->window;
	if (truth)
		dup ? lv->tp++ : lv->fn++;
	else
		dup ? lv->fp++ : lv->tn++;
	/* the reference time: every copy (seen, no window) or every delivered one */
	if (found == NULL && !(e->window != 0 && e->mode == PD_WINDOW_DELIVERED && dup)) {
		found = room_for(e, key, t);
		if (found != NULL) {
			*found = none;
			found->h = key;
			found->t = t;
			e->keys++;
		}
	} else if (found != NULL && (e->window == 0 || e->mode == PD_WINDOW_SEEN || !dup)) {
		if (t > found->t)
			found->t = t;
	}
	if (found == NULL) /* not kept: a cluster of this one packet */
		found = &none;
	if (truth)
		cluster_add(&lv->copy_keys, &lv->cc, &lv->xx, &lv->xc, &found->c, &found->x, !dup);
	else
		cluster_add(&lv->unique_keys, &lv->uu, &lv->yy, &lv->yu, &found->u, &found->y, dup);
}

static inline void observe_if_sampled(struct pd_estimate *e, const uint64_t *h,
				      const uint64_t *ts, const uint8_t *v, unsigned i)
{
	const uint64_t key = h[i] | (h[i] == 0);

	if (__builtin_expect(pd_estimate_mix(key) <= e->limit, 0))
		observe_one(e, key, ts != NULL ? ts[i] : 0, v[i]);
}

#ifdef EST_AVX2
/* The keys 4 at a time: a lane is a candidate when its mix is <= the limit (unsigned
 * compare: both sides with the sign bit flipped; the hash 0, mixed to 0, always is);
 * candidates are checked one by one. Returns how many keys it covered. */
__attribute__((target("avx2"))) static unsigned scan_avx2(struct pd_estimate *e,
							   const uint64_t *h,
							   const uint64_t *ts,
							   const uint8_t *v, unsigned n)
{
	const __m256i sign = _mm256_set1_epi64x((long long)(UINT64_C(1) << 63));
	const __m256i lim = _mm256_xor_si256(_mm256_set1_epi64x((long long)e->limit), sign);
	unsigned i = 0;

	for (; i + 4 <= n; i += 4) {
		const __m256i x = _mm256_loadu_si256((const __m256i *)(h + i));
		const __m256i m = _mm256_or_si256(_mm256_slli_epi64(x, 44), _mm256_srli_epi64(x, 20));
		const __m256i over = _mm256_cmpgt_epi64(_mm256_xor_si256(m, sign), lim);
		unsigned cand = ~(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(over)) & 15;

		while (__builtin_expect(cand != 0, 0)) {
			observe_if_sampled(e, h, ts, v, i + (unsigned)__builtin_ctz(cand));
			cand &= cand - 1;
		}
	}
	return i;
}
#endif

/* Measured with bench_isolated (flow keys, qhtlru 64 MiB, 1/256 sampled, after each
 * burst's filter call as in the app): 0.2 ns a packet (5 runs: -0.2 to 0.4, the
 * difference of two timed loops). */
void pd_estimate_observe(struct pd_estimate *e, const uint64_t *h, const uint64_t *ts,
			 const uint8_t *v, unsigned n)
{
	unsigned i = 0;

#ifdef EST_AVX2
	if (e->avx2)
		i = scan_avx2(e, h, ts, v, n);
#endif
	for (; i < n; i++)
		observe_if_sampled(e, h, ts, v, i);
}

void pd_estimate_counts(const struct pd_estimate *e, unsigned level,
			struct pd_estimate_counts *out)
{
	memset(out, 0, sizeof(*out));
	out->level = level > e->s ? level : e->s;
	for (unsigned l = out->level; l < PD_ESTIMATE_LEVELS; l++)
		pd_estimate_counts_add(out, &e->lv[l]);
	out->keys = e->keys;
}

void pd_estimate_counts_add(struct pd_estimate_counts *sum, const struct pd_estimate_counts *c)
{
	sum->tn += c->tn;
	sum->fp += c->fp;
	sum->fn += c->fn;
	sum->tp += c->tp;
	sum->keys += c->keys;
	sum->uu += c->uu;
	sum->yy += c->yy;
	sum->yu += c->yu;
	sum->cc += c->cc;
	sum->xx += c->xx;
	sum->xc += c->xc;
	sum->unique_keys += c->unique_keys;
	sum->copy_keys += c->copy_keys;
}

void pd_estimate_combine(const struct pd_estimate *const *e, unsigned n,
			 struct pd_estimate_counts *out)
{
	struct pd_estimate_counts c;
	unsigned level = 0;

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < n; i++)
		level = e[i]->s > level ? e[i]->s : level;
	for (unsigned i = 0; i < n; i++) {
		pd_estimate_counts(e[i], level, &c);
		pd_estimate_counts_add(out, &c);
	}
	out->level = level;
}

void pd_estimate_interval(double x, double n, double *rate, double *lo, double *hi)
{
	const double z = 1.959963984540054, z2 = z * z;
	double p, d, c, w;

	if (n <= 0) {
		*rate = 0;
		*lo = 0;
		*hi = 1;
		return;
	}
	p = x / n;
	d = 1 + z2 / n;
	c = (p + z2 / (2 * n)) / d;
	w = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / d;
	*rate = p;
	*lo = x <= 0 ? 0 : fmax(0, c - w);
	*hi = x >= n ? 1 : fmin(1, c + w);
}

void pd_estimate_interval_clustered(uint64_t x, uint64_t n, uint64_t k, double nn,
				    double xx, double xn, double *rate, double *lo, double *hi)
{
	const double dn = (double)n, p = n ? (double)x / dn : 0;
	double deff = 1, r;

	if (x != 0 && x != n) { /* cluster-robust variance of the ratio over the binomial */
		const double robust = (xx - 2 * p * xn + p * p * nn) / (dn * dn);

		deff = robust / (p * (1 - p) / dn);
	} else if (n != 0 && k != 0) { /* no variation seen: a key counts as one trial */
		deff = dn / (double)k;
	}
	if (!(deff >= 1))
		deff = 1;
	pd_estimate_interval(p * dn / deff, dn / deff, &r, lo, hi);
	*rate = p;
}

void pd_estimate_rates(const struct pd_estimate_counts *c, struct pd_estimate_rates *r)
{
	pd_estimate_interval_clustered(c->fp, c->tn + c->fp, c->unique_keys, c->uu, c->yy, c->yu,
				       &r->fpr, &r->fpr_lo, &r->fpr_hi);
	pd_estimate_interval_clustered(c->fn, c->fn + c->tp, c->copy_keys, c->cc, c->xx, c->xc,
				       &r->fnr, &r->fnr_lo, &r->fnr_hi);
}

/*
 * State image (little-endian host order, as filter images):
 *
 *     offset  size  field
 *     0       8     magic "PDESTIM1"
 *     8       4     sampling level s
 *     12      4     window mode
 *     16      8     window
 *     24      8     buckets (the set holds 4 entries each)
 *     32      8     entries in use
 *     40      L*104 per level: tn, fp, fn, tp, keys, then the sums uu, yy, yu, cc, xx, xc
 *                   (IEEE doubles), unique_keys, copy_keys; L = PD_ESTIMATE_LEVELS
 *     ...     32 per entry: hash, time, u, y, c, x (u..x 32-bit)
 */
#define IMG_MAGIC PD_ESTIMATE_STATE_MAGIC
#define IMG_HEAD 40
#define IMG_LEVEL 104
#define IMG_ENTRY 32

uint64_t pd_estimate_state_size(const struct pd_estimate *e)
{
	return IMG_HEAD + PD_ESTIMATE_LEVELS * IMG_LEVEL + (e->mask + 1) * WAYS * IMG_ENTRY;
}

static uint8_t *put(uint8_t *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

int64_t pd_estimate_save_state(const struct pd_estimate *e, void *buf, uint64_t cap)
{
	const uint64_t size = pd_estimate_state_size(e), buckets = e->mask + 1;
	const uint32_t mode = (uint32_t)e->mode;
	uint8_t *p = buf;

	if (cap < size)
		return -1;
	p = put(p, IMG_MAGIC, 8);
	p = put(p, &e->s, 4);
	p = put(p, &mode, 4);
	p = put(p, &e->window, 8);
	p = put(p, &buckets, 8);
	p = put(p, &e->keys, 8);
	for (unsigned l = 0; l < PD_ESTIMATE_LEVELS; l++) {
		const struct pd_estimate_counts *c = &e->lv[l];

		p = put(p, &c->tn, 8);
		p = put(p, &c->fp, 8);
		p = put(p, &c->fn, 8);
		p = put(p, &c->tp, 8);
		p = put(p, &c->keys, 8);
		p = put(p, &c->uu, 8);
		p = put(p, &c->yy, 8);
		p = put(p, &c->yu, 8);
		p = put(p, &c->cc, 8);
		p = put(p, &c->xx, 8);
		p = put(p, &c->xc, 8);
		p = put(p, &c->unique_keys, 8);
		p = put(p, &c->copy_keys, 8);
	}
	for (uint64_t i = 0; i < buckets * WAYS; i++) {
		const struct entry *x = &e->set[i];

		p = put(p, &x->h, 8);
		p = put(p, &x->t, 8);
		p = put(p, &x->u, 4);
		p = put(p, &x->y, 4);
		p = put(p, &x->c, 4);
		p = put(p, &x->x, 4);
	}
	return (int64_t)size;
}

static const uint8_t *get(const uint8_t *p, void *v, size_t n)
{
	memcpy(v, p, n);
	return p + n;
}

/* Nothing from the image is trusted: sizes, level, window and the sums are checked
 * before anything changes; entries of a level below the new s are left out. */
int pd_estimate_load_state(struct pd_estimate *e, const void *buf, uint64_t len,
			   struct pd_error *err)
{
	const uint64_t buckets = e->mask + 1;
	struct pd_estimate_counts lv[PD_ESTIMATE_LEVELS];
	const uint8_t *p = buf;
	uint64_t window, nb, keys;
	uint32_t s, mode;

	if (len != pd_estimate_state_size(e) || memcmp(p, IMG_MAGIC, 8) != 0)
		return pd_err(err, PD_ECORRUPT, "estimate state: %s",
			      len < 8 || memcmp(p, IMG_MAGIC, 8) != 0 ? "not an estimate image" :
			      "another size of set");
	p = get(p + 8, &s, 4);
	p = get(p, &mode, 4);
	p = get(p, &window, 8);
	p = get(p, &nb, 8);
	p = get(p, &keys, 8);
	if (nb != buckets || s >= PD_ESTIMATE_LEVELS)
		return pd_err(err, PD_ECORRUPT, "estimate state: bad set size or level");
	if (window != e->window || (window != 0 && mode != (uint32_t)e->mode))
		return pd_err(err, PD_EMISMATCH, "estimate state: made with another window");
	memset(lv, 0, sizeof(lv));
	for (unsigned l = 0; l < PD_ESTIMATE_LEVELS; l++) {
		struct pd_estimate_counts *c = &lv[l];
		const double *sum[] = {&c->uu, &c->yy, &c->yu, &c->cc, &c->xx, &c->xc};

		p = get(p, &c->tn, 8);
		p = get(p, &c->fp, 8);
		p = get(p, &c->fn, 8);
		p = get(p, &c->tp, 8);
		p = get(p, &c->keys, 8);
		p = get(p, &c->uu, 8);
		p = get(p, &c->yy, 8);
		p = get(p, &c->yu, 8);
		p = get(p, &c->cc, 8);
		p = get(p, &c->xx, 8);
		p = get(p, &c->xc, 8);
		p = get(p, &c->unique_keys, 8);
		p = get(p, &c->copy_keys, 8);
		for (unsigned i = 0; i < 6; i++)
			if (!(*sum[i] >= 0 && *sum[i] < 1e300))
				return pd_err(err, PD_ECORRUPT, "estimate state: bad sums");
	}
	/* from here on the image is taken */
	if (s > e->s) {
		e->s = s;
		e->limit = pd_estimate_limit(s);
	}
	memcpy(e->lv, lv, sizeof(lv));
	e->keys = 0;
	for (uint64_t i = 0; i < buckets * WAYS; i++) {
		struct entry *x = &e->set[i];

		p = get(p, &x->h, 8);
		p = get(p, &x->t, 8);
		p = get(p, &x->u, 4);
		p = get(p, &x->y, 4);
		p = get(p, &x->c, 4);
		p = get(p, &x->x, 4);
		if (x->h != 0 && level_of(x->h) < e->s)
			x->h = 0;
		e->keys += x->h != 0;
	}
	return 0;
}
