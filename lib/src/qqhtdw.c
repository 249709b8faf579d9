/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Windowed QQHTD: QQHTD (004 Alg. 2, ALGORITHMS.md §7) whose fingerprints carry a coarse
 * age, so that a copy older than the window W never matches.
 *
 * A row is one 64-byte cache line: the row's time (64 bits, in units of 2^shift ns, the
 * newest time appended to the row), then b entries, oldest first. An entry is a
 * fingerprint (f bits, 0 = empty) and its age relative to the row's time (A bits):
 *
 *     f = 16:  | time (8 B) | e0 .. e13: 32-bit entries = fp (bits 0-15) | age (16-31) |
 *     f = 32:  | time (8 B) | e0 .. e6:  64-bit entries = fp (bits 0-31) | age (32-63) |
 *
 * so b <= 14 (f = 16) or b <= 7 (f = 32). An entry written at time t has age
 * time - t; ages saturate at 2^A - 1, which means "older than anything that can match".
 * Time never wraps (64-bit units); ages cannot wrap (they saturate).
 *
 * Resolution: shift s is the smallest with (W >> s) < 2^(A-1): W below 32,768 ns (f = 16)
 * or 2.1 s (f = 32) is kept in whole nanoseconds (exact); a longer W in units of 2^s ns.
 * A copy matches iff its gap in units is at most W_units, with W_units = W when s = 0 and
 * (W >> s) - 1 otherwise: the gap of a match is then never above W (the window bound
 * holds), and a copy whose gap lies within the last 2^(s+1) ns of the window may be
 * missed (a false negative, never a false positive).
 *
 * For each key at time now (its timestamp, in units), with fwd = now - row time when the
 * key is newer than the row's newest entry, back = row time - now when it is older:
 *   DUPLICATE iff an entry holds fp with age + fwd - back <= W_units (its gap as of the
 *   key's own time is at most W; an entry newer than the key counts as within the
 *   window, as in `exact`) and its age is not saturated;
 *   then (window mode seen: always; delivered: only when DISTINCT) pop the oldest entry
 *   and append fp: a key newer than the row adds now - time to every age (saturating)
 *   and becomes the row's time with age 0; an older key is appended with age back.
 * Out of order by more than 2^A - 1 - W_units units (f = 16, s = 0: about 32 us) a copy
 * may be missed: a saturated age never matches.
 */
#include <stdlib.h>
#include <string.h>
/* SSE2 for f = 16 on x86; -DPD_NO_SIMD builds the portable path (tests/ check both) */
#if defined(__SSE2__) && !defined(PD_NO_SIMD)
#define QW_SSE2 1
#include <emmintrin.h>
#else
#define QW_SSE2 0
#endif

#include "filter_private.h"

#define QW_ROW 64

struct qw {
	struct pd_filter base;
	uint8_t *rows;   /* n rows of QW_ROW bytes */
	uint64_t n;
	uint64_t fpmax;  /* 2^f - 1 */
	unsigned b, f;
	unsigned shift;
	uint64_t w_units;
	uint64_t age_max; /* saturated age */
	enum pd_window_mode mode;
	uint64_t latest;  /* newest time seen (units), for the state figure */
};

struct qw_row16 {
	uint64_t time;
	uint32_t e[14];
};

struct qw_row32 {
	uint64_t time;
	uint64_t e[7];
};

_Static_assert(sizeof(struct qw_row16) == QW_ROW, "row16 is one cache line");
_Static_assert(sizeof(struct qw_row32) == QW_ROW, "row32 is one cache line");

/*
 * One burst for entry type ET (fingerprint FB bits, age the rest). d, when not NULL,
 * gets the delay (ns, or keys) since the youngest matching copy.
 */
#define QW_BURST(NAME, ROW, ET, FB)                                                             \
	static void NAME(struct qw *q, const uint64_t *h, const uint64_t *ts, uint8_t *v,       \
			 uint64_t *d, unsigned n)                                               \
	{                                                                                       \
		struct ROW *row[PD_BURST_MAX];                                                  \
		ET fp[PD_BURST_MAX];                                                            \
		const ET fmask = (ET)q->fpmax;                                                  \
		const unsigned b = q->b;                                                        \
		const bool far = q->base.far;                                                   \
		const unsigned ahead = pd_ahead(1, far);                                        \
		const uint64_t amax = q->age_max;                                               \
                                                                                                \
		for (unsigned i = 0; i < n; i++) {                                              \
			row[i] = (struct ROW *)(q->rows + pd_range(h[i], q->n) * QW_ROW);       \
			fp[i] = (ET)(1 + pd_range(pd_hash2(h[i]), q->fpmax));                   \
			if (i < ahead)                                                          \
				pd_prefetch_w(far, row[i]);                                     \
		}                                                                               \
		for (unsigned i = 0; i < n; i++) {                                              \
			struct ROW *r = row[i];                                                 \
			const uint64_t now = ts[i] >> q->shift, rt = r->time;                   \
			/* ages are relative to the row's time: the key is fwd units after it,  \
			 * or back units before it */                                           \
			const uint64_t back = now < rt ? rt - now : 0;                          \
			const uint64_t fwd = now > rt ? now - rt : 0;                           \
			/* a match: age + fwd - back <= W_units, unsaturated (none when         \
			 * fwd > W_units); no branch on the row's contents (see qw_burst16) */  \
			const uint64_t reach = fwd <= q->w_units;                               \
			uint64_t limit = reach ? q->w_units - fwd + back : 0;                   \
			uint64_t best = UINT64_MAX, newage, delta;                              \
			int dup;                                                                \
                                                                                                \
			if (i + ahead < n)                                                      \
				pd_prefetch_w(far, row[i + ahead]);                             \
			q->latest = now > q->latest ? now : q->latest;                          \
			limit = limit > amax - 1 ? amax - 1 : limit;                            \
			for (unsigned j = 0; j < b; j++) {                                      \
				const uint64_t age = (uint64_t)(r->e[j] >> FB);                 \
				const uint64_t hit = reach & ((r->e[j] & fmask) == fp[i]) &     \
						     (age <= limit);                            \
				const uint64_t cand = age | (hit - 1); /* UINT64_MAX unless hit */ \
                                                                                                \
				best = cand < best ? cand : best;                               \
			}                                                                       \
			dup = best != UINT64_MAX;                                               \
			v[i] = (uint8_t)dup;                                                    \
			if (d != NULL)                                                          \
				d[i] = dup && best + fwd > back ? (best + fwd - back) << q->shift : 0; \
			if (q->mode == PD_WINDOW_DELIVERED && dup)                              \
				continue;                                                       \
			/* a key not older than the row ages every entry by its lead and        \
			 * becomes the row's time with age 0; an older one goes in with age     \
			 * back */                                                              \
			delta = fwd < amax ? fwd : amax;                                        \
			for (unsigned j = 0; j < b; j++) {                                      \
				const uint64_t age = (uint64_t)(r->e[j] >> FB) + delta;         \
                                                                                                \
				r->e[j] = (ET)((r->e[j] & fmask) | (ET)(age < amax ? age : amax) << FB); \
			}                                                                       \
			r->time = now > rt ? now : rt;                                          \
			newage = now >= rt ? 0 : back < amax ? back : amax;                     \
			memmove(&r->e[0], &r->e[1], (b - 1) * sizeof(ET));                      \
			r->e[b - 1] = (ET)(fp[i] | (ET)newage << FB);                           \
		}                                                                               \
	}

#if !QW_SSE2
QW_BURST(qw_burst16, qw_row16, uint32_t, 16)
#endif
QW_BURST(qw_burst32, qw_row32, uint64_t, 32)

#if QW_SSE2
/*
 * f = 16 with SSE2: the 14 entries are 56 bytes at offset 8, read as four 16-byte
 * vectors (the last one overlapping: entries 10..13). In each 32-bit entry the low
 * 16-bit lane is the fingerprint, the high one the age: one compare finds the
 * fingerprint, one saturating subtract tests age <= limit, one saturating add ages the
 * row. Entries past b are zero and stay zero (a shift of all 14 moves zeros into them);
 * fingerprints are never 0, so they never match.
 *
 * Nothing here branches on what the row holds: the row is usually still on its way
 * from memory, and a mispredicted branch that waits for it would stop the loads of the
 * next keys' rows too. So the youngest matching age comes from a vector minimum, not a
 * loop over the matches.
 */
static inline unsigned qw16_match(const struct qw_row16 *r, uint16_t fp, uint16_t limit,
				  unsigned b, uint64_t *youngest)
{
	const __m128i hi = _mm_set1_epi32((int)0xffff0000u);
	const __m128i want = _mm_set1_epi32((int)((uint32_t)fp | 0xffff0000u));
	const __m128i lim = _mm_set1_epi32((int)((uint32_t)limit << 16));
	const __m128i ones = _mm_set1_epi32(-1);
	const __m128i bias = _mm_set1_epi32(0x8000); /* unsigned 16-bit order as signed */
	__m128i best = _mm_set1_epi32(0xffff ^ 0x8000);
	unsigned m = 0;

	for (unsigned v = 0; v < 4; v++) {
		unsigned first = v < 3 ? 4 * v : 10;
		__m128i e = _mm_loadu_si128((const __m128i *)&r->e[first]);
		/* fp lanes: e == fp; age lanes: (age -sat limit) == 0, i.e. age <= limit */
		__m128i fpeq = _mm_cmpeq_epi16(_mm_or_si128(e, hi), want);
		__m128i agele = _mm_cmpeq_epi16(_mm_subs_epu16(_mm_and_si128(e, hi), lim),
						_mm_setzero_si128());
		/* an entry matches iff both of its lanes do */
		__m128i match = _mm_cmpeq_epi32(_mm_and_si128(fpeq, agele), ones);
		/* ages of the matches, 0xffff elsewhere, biased for the signed minimum */
		__m128i age = _mm_or_si128(_mm_srli_epi32(e, 16), _mm_andnot_si128(match,
						_mm_set1_epi32(0xffff)));

		best = _mm_min_epi16(best, _mm_xor_si128(age, bias));
		m |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(match)) << first;
	}
	best = _mm_min_epi16(best, _mm_shuffle_epi32(best, _MM_SHUFFLE(1, 0, 3, 2)));
	best = _mm_min_epi16(best, _mm_shuffle_epi32(best, _MM_SHUFFLE(2, 3, 0, 1)));
	*youngest = (uint64_t)((uint32_t)_mm_cvtsi128_si32(best) ^ 0x8000u) & 0xffffu;
	return m & ((1u << b) - 1);
}

static void qw_burst16(struct qw *q, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		       uint64_t *d, unsigned n)
{
	struct qw_row16 *row[PD_BURST_MAX];
	uint16_t fp[PD_BURST_MAX];
	const unsigned b = q->b;
	const bool far = q->base.far;
	const unsigned ahead = pd_ahead(1, far);
	const uint64_t amax = q->age_max;
	const int delivered = q->mode == PD_WINDOW_DELIVERED;

	for (unsigned i = 0; i < n; i++) {
		row[i] = (struct qw_row16 *)(q->rows + pd_range(h[i], q->n) * QW_ROW);
		fp[i] = (uint16_t)(1 + pd_range(pd_hash2(h[i]), q->fpmax));
		if (i < ahead)
			pd_prefetch_w(far, row[i]);
	}
	for (unsigned i = 0; i < n; i++) {
		struct qw_row16 *r = row[i];
		const uint64_t now = ts[i] >> q->shift, rt = r->time;
		const uint64_t back = now < rt ? rt - now : 0;
		const uint64_t fwd = now > rt ? now - rt : 0;
		/* a match: age + fwd - back <= W_units (none when fwd > W_units) */
		const int reach = fwd <= q->w_units;
		uint64_t limit = reach ? q->w_units - fwd + back : 0, best;
		unsigned m;

		if (i + ahead < n)
			pd_prefetch_w(far, row[i + ahead]);
		q->latest = now > q->latest ? now : q->latest;
		limit = limit > amax - 1 ? amax - 1 : limit;
		m = qw16_match(r, fp[i], (uint16_t)limit, b, &best) & (reach ? ~0u : 0u);
		v[i] = m != 0;
		if (d != NULL)
			d[i] = m != 0 && best + fwd > back ? (best + fwd - back) << q->shift : 0;
		if (delivered && m != 0)
			continue; /* delivered mode: a duplicate leaves the row as it was */
		{
			/* a key newer than the row ages every entry by fwd and becomes the
			 * row's time with age 0; an older one goes in with age back */
			const uint16_t dl = (uint16_t)(fwd < amax ? fwd : amax);
			const __m128i add = _mm_set1_epi32((int)((uint32_t)dl << 16));
			__m128i e0 = _mm_adds_epu16(_mm_loadu_si128((const __m128i *)&r->e[1]), add);
			__m128i e1 = _mm_adds_epu16(_mm_loadu_si128((const __m128i *)&r->e[5]), add);
			__m128i e2 = _mm_adds_epu16(_mm_loadu_si128((const __m128i *)&r->e[9]), add);
			__m128i e3 = _mm_adds_epu16(_mm_loadu_si128((const __m128i *)&r->e[10]), add);
			const uint64_t newage = fwd > 0 ? 0 : back < amax ? back : amax;

			r->time = fwd > 0 ? now : rt;
			/* e[j] = e[j + 1] for j = 0..12 (e3 covers 9..12 <- 10..13) */
			_mm_storeu_si128((__m128i *)&r->e[0], e0);
			_mm_storeu_si128((__m128i *)&r->e[4], e1);
			_mm_storeu_si128((__m128i *)&r->e[8], e2);
			_mm_storeu_si128((__m128i *)&r->e[9], e3);
			/* the saturating add aged the zero entries past b too: clear them */
			for (unsigned j = b - 1; j < 13; j++)
				r->e[j] = 0;
			r->e[13] = 0;
			r->e[b - 1] = (uint32_t)fp[i] | (uint32_t)newage << 16;
		}
	}
}
#endif

static void qw_burst_delay(struct pd_filter *f, const uint64_t *h, const uint64_t *ts,
			   uint8_t *v, uint64_t *d, unsigned n)
{
	struct qw *q = (struct qw *)f;

	if (q->f == 16)
		qw_burst16(q, h, ts, v, d, n);
	else
		qw_burst32(q, h, ts, v, d, n);
}

static void qw_burst(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		     unsigned n)
{
	qw_burst_delay(f, h, ts, v, NULL, n);
}

static void qw_reset(struct pd_filter *f)
{
	struct qw *q = (struct qw *)f;

	memset(q->rows, 0, q->n * QW_ROW);
	q->latest = 0;
}

static void qw_destroy(struct pd_filter *f)
{
	struct qw *q = (struct qw *)f;

	pd_free(q->rows, q->n * QW_ROW);
	free(q);
}

/* Fingerprint and age of entry j of a row. */
static void qw_entry(const struct qw *q, const uint8_t *row, unsigned j, uint64_t *fp,
		     uint64_t *age)
{
	if (q->f == 16) {
		const struct qw_row16 *r = (const struct qw_row16 *)row;

		*fp = r->e[j] & 0xffff;
		*age = r->e[j] >> 16;
	} else {
		const struct qw_row32 *r = (const struct qw_row32 *)row;

		*fp = r->e[j] & 0xffffffffULL;
		*age = r->e[j] >> 32;
	}
}

/* Fraction of buckets that could still match a key at the newest time seen. */
static double qw_state(const struct pd_filter *f)
{
	const struct qw *q = (const struct qw *)f;
	uint64_t live = 0;

	for (uint64_t i = 0; i < q->n; i++) {
		const uint8_t *row = q->rows + i * QW_ROW;
		uint64_t time;

		memcpy(&time, row, 8);
		for (unsigned j = 0; j < q->b; j++) {
			uint64_t fp, age;

			qw_entry(q, row, j, &fp, &age);
			live += fp != 0 && age < q->age_max && age + (q->latest - time) <= q->w_units;
		}
	}
	return (double)live / ((double)q->n * q->b);
}

static void qw_prefetch(const struct pd_filter *f, uint64_t h)
{
	const struct qw *q = (const struct qw *)f;

	pd_prefetch_w(f->far, q->rows + pd_range(h, q->n) * QW_ROW);
}

static unsigned qw_sections(struct pd_filter *f, struct pd_section *sec)
{
	struct qw *q = (struct qw *)f;

	sec[0] = (struct pd_section){q->rows, q->n * QW_ROW};
	sec[1] = (struct pd_section){&q->latest, sizeof(q->latest)};
	return 2;
}

/* A loaded table: entries past b cleared (a FIFO shift never moves them in, but they
 * must not hold garbage either). */
static void qw_post_load(struct pd_filter *f)
{
	struct qw *q = (struct qw *)f;
	const unsigned cap = q->f == 16 ? 14 : 7, esz = q->f == 16 ? 4 : 8;

	for (uint64_t i = 0; i < q->n; i++)
		memset(q->rows + i * QW_ROW + 8 + q->b * esz, 0, (cap - q->b) * esz);
}

static const struct pd_filter_ops qw_ops = {
	.sections = qw_sections,
	.post_load = qw_post_load,
	.burst = qw_burst,
	.burst_delay = qw_burst_delay,
	.prefetch = qw_prefetch,
	.reset = qw_reset,
	.destroy = qw_destroy,
	.state = qw_state,
	.state_name = "fraction of live buckets",
};

unsigned pd_qqhtdw_max_b(unsigned f)
{
	return f == 16 ? 14 : f == 32 ? 7 : 0;
}

struct pd_filter *pd_qqhtdw_create(const struct pd_filter_params *p, struct pd_error *err)
{
	struct qw *q = calloc(1, sizeof(*q));
	unsigned abits = p->qht_f == 16 ? 16 : 32;

	if (q == NULL) {
		pd_err(err, PD_ENOMEM, "qqhtd: out of memory");
		return NULL;
	}
	q->base.ops = &qw_ops;
	q->b = p->qht_b;
	q->f = p->qht_f;
	q->fpmax = (1ULL << q->f) - 1;
	q->age_max = (1ULL << abits) - 1;
	q->shift = pd_window_shift(p->window, abits);
	q->w_units = pd_window_units(p->window, q->shift);
	q->mode = p->window_mode;
	q->n = p->memory_bytes / QW_ROW;
	q->rows = pd_alloc_zero(q->n * QW_ROW);
	if (q->rows == NULL) {
		free(q);
		pd_err(err, PD_ENOMEM, "qqhtd: cannot allocate %llu bytes",
		       (unsigned long long)p->memory_bytes);
		return NULL;
	}
	q->base.memory_bits = q->n * QW_ROW * 8;
	q->base.footprint_bytes = q->n * QW_ROW;
	return &q->base;
}
