/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rows of fingerprints with coarse ages, for the windowed filters: windowed QQHTD (QQHTD of
 * Geraud, Lombard-Platet and Naccache, "Quotient hash tables", seed 004 Alg. 2 and
 * ALGORITHMS.md §7, with FIFO rows) and windowed qhtlru (rows in LRU order),
 * so that a copy older than the window W never matches.
 *
 * A row is one 64-byte cache line: the row's time (64 bits, in units of 2^shift ns, the
 * newest time appended to the row), then b entries, oldest first. An entry is a
 * fingerprint (f bits, 0 = empty) in its low bits and its age relative to the row's time
 * in the A bits above (A = 32 - f or 64 - f):
 *
 *     f <= 26: | time (8 B) | e0 .. e13: 32-bit entries = fp (bits 0..f-1) | age (f..31) |
 *     f > 26:  | time (8 B) | e0 .. e6:  64-bit entries = fp (bits 0..f-1) | age (f..63) |
 *
 * so b <= 14 (32-bit entries) or b <= 7. Windowed qqhtd takes f = 16 or 32 (A = 16 or
 * 32); windowed qhtlru any f (the planner's at a 1e-6 budget: b = 14, f = 24, A = 8 when
 * rows overflow, b = 7, f = 27, A = 37 when they do not; plan.c, rows_fnr). An
 * entry written at time t has age time - t; ages saturate at 2^A - 1, which means "older
 * than anything that can match". Time never wraps (64-bit units); ages cannot wrap.
 *
 * Resolution: shift s is the smallest with (W >> s) < 2^(A-1): with A = 16, W below
 * 32,768 ns is kept in whole nanoseconds (exact), with A = 32 below 2.1 s; a longer W in
 * units of 2^s ns (A = 8: W / 128 to W / 64).
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
 * Out of order by more than 2^A - 1 - W_units units (A = 16, s = 0: about 32 us; A = 8:
 * about one window) a copy may be missed: a saturated age never matches.
 * A clock stepped back: a key stamped more than L = max(2^A - 1, 64 W_units) units before
 * the newest time seen empties every row first (qw_forget), so that no key is taken for
 * a copy of one stamped later than it by more than L, and new keys do not go into rows
 * whose times lie ahead of them beyond the ages' reach.
 *
 * LRU rows (windowed qhtlru) hold a fingerprint at most once. The key's entry, if any,
 * decides the verdict as above; then (seen: always; delivered: only when DISTINCT) that
 * entry, or the oldest when there is none, leaves its place and the fingerprint is
 * appended as the newest, with the entry's own age when the key is older than it (an
 * older copy does not move the reference time back). A hit costs no second slot, which
 * is QQHTD's waste.
 */
#include <stdlib.h>
#include <string.h>
/* SSE2 for FIFO rows with f = 16 and LRU rows of 4-byte entries on x86; -DPD_NO_SIMD
 * builds the portable paths (tests/ check both) */
#if defined(__SSE2__) && !defined(PD_NO_SIMD)
#define QW_SSE2 1
#include <emmintrin.h>
#else
#define QW_SSE2 0
#endif

#include "filter_private.h"
#include "rows.h"

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
	bool lru;         /* windowed qhtlru: LRU rows; else FIFO rows (windowed qqhtd) */
	unsigned esz;     /* bytes an entry: 4 (f <= 26) or 8 */
	uint64_t latest;  /* newest time seen (units): the state figure, clock steps */
	uint64_t late;    /* a key stamped more than this before latest: forget (qw_forget) */
	/* the burst for this row kind and entry size, chosen at create time */
	void (*run)(struct qw *q, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		    uint64_t *d, unsigned n);
};

/* 4-byte entries (f <= 26), 8-byte entries (f > 26) */
struct qw_row4 {
	uint64_t time;
	uint32_t e[14];
};

struct qw_row8 {
	uint64_t time;
	uint64_t e[7];
};

_Static_assert(sizeof(struct qw_row4) == QW_ROW, "row4 is one cache line");
_Static_assert(sizeof(struct qw_row8) == QW_ROW, "row8 is one cache line");

/*
 * The key's place in time relative to its row: fwd units after the row's time, or back
 * units before it. Returns whether a copy can match at all (fwd <= W_units) and sets
 * *limit, the oldest age that still matches (age + fwd - back <= W_units), below the
 * saturated age.
 */
static inline uint64_t qw_when(const struct qw *q, uint64_t now, uint64_t rt, uint64_t *fwd,
			       uint64_t *back, uint64_t *limit)
{
	const uint64_t reach = (*fwd = now > rt ? now - rt : 0) <= q->w_units;

	*back = now < rt ? rt - now : 0;
	*limit = reach ? q->w_units - *fwd + *back : 0;
	*limit = *limit > q->age_max - 1 ? q->age_max - 1 : *limit;
	return reach;
}

/* A burst of n hashes h at times ts: verdicts v, delays d (when not NULL). */
#define QW_FN(NAME)                                                                             \
	static void NAME(struct qw *q, const uint64_t *h, const uint64_t *ts, uint8_t *v,       \
			 uint64_t *d, unsigned n)

/* Rows (struct ROW *) of one burst, and the first ones prefetched. */
#define QW_ROWS(ROW, ET)                                                                         \
	struct ROW *row[PD_BURST_MAX];                                                          \
	ET fp[PD_BURST_MAX];                                                                    \
	const ET fmask = (ET)q->fpmax;                                                          \
	const unsigned b = q->b, fb = q->f;                                                     \
	const bool far = q->base.far;                                                           \
	const unsigned ahead = pd_ahead(1, far);                                                \
	const uint64_t amax = q->age_max;                                                       \
                                                                                                \
	for (unsigned i = 0; i < n; i++) {                                                      \
		row[i] = (struct ROW *)(q->rows + pd_range(h[i], q->n) * QW_ROW);               \
		fp[i] = (ET)(1 + pd_range(pd_hash2(h[i]), q->fpmax));                           \
		if (i < ahead)                                                                  \
			pd_prefetch_w(far, row[i]);                                             \
	}

/* A key stamped more than q->late before the newest time seen: a clock stepped back.
 * Rows whose time lies that far ahead would take it as older than every copy they hold
 * (a remembered key repeated after the step is a copy however late) and give the new
 * keys saturated ages (their copies pass until the clock catches up): every row is
 * emptied instead and time starts again from the key's. Once per step: a 64 MiB table
 * takes about 10 ms to clear. */
static __attribute__((noinline, cold)) void qw_forget(struct qw *q, uint64_t now)
{
	memset(q->rows, 0, q->n * QW_ROW);
	q->latest = now;
	q->base.forgotten++;
}

/* One key of the burst: its row r, its time now, its place against the row's time
 * (qw_when), the prefetch of a row ahead. The step test reads no row: a branch that is
 * never taken, on values in the cache. Measured, 7 alternating pairs on CPU 1
 * (pktdedup-eval --filter qhtlru --memory 64M --fpr 1e-6 --window 1000000 --n 20000000,
 * b=7 f=27): 34.5 ns/key against 35.4 without it (medians): nothing to see. */
#define QW_KEY(ROW)                                                                             \
	struct ROW *r = row[i];                                                                 \
	const uint64_t now = ts[i] >> q->shift;                                                 \
	if (__builtin_expect(q->latest > now && q->latest - now > q->late, 0))                  \
		qw_forget(q, now);                                                              \
	const uint64_t rt = r->time;                                                            \
	uint64_t fwd, back, limit;                                                              \
	const uint64_t reach = qw_when(q, now, rt, &fwd, &back, &limit);                        \
                                                                                                \
	if (i + ahead < n)                                                                      \
		pd_prefetch_w(far, row[i + ahead]);                                             \
	q->latest = now > q->latest ? now : q->latest

/*
 * Ages every entry of row r by delta (saturating), removes entry at (the others move one
 * place towards the oldest) and appends fp with age newage as the newest; the row's time
 * becomes the newest of its own and now.
 */
#define QW_APPEND(r, ET, at, delta, newage)                                                     \
	do {                                                                                    \
		for (unsigned j = 0; j < b; j++) {                                              \
			const uint64_t age_ = (uint64_t)(r->e[j] >> fb) + (delta);              \
                                                                                                \
			r->e[j] = (ET)((r->e[j] & fmask) | (ET)(age_ < amax ? age_ : amax) << fb); \
		}                                                                               \
		memmove(&r->e[at], &r->e[(at) + 1], (b - 1 - (at)) * sizeof(ET));              \
		r->e[b - 1] = (ET)(fp[i] | (ET)(newage) << fb);                                 \
		r->time = now > rt ? now : rt;                                                  \
	} while (0)

/*
 * FIFO rows (windowed qqhtd), one burst for entry type ET. d, when not NULL, gets the
 * delay (ns, or keys) since the youngest matching copy.
 */
#define QW_BURST(NAME, ROW, ET)                                                                 \
	QW_FN(NAME)                                                                             \
	{                                                                                       \
		QW_ROWS(ROW, ET)                                                                \
		for (unsigned i = 0; i < n; i++) {                                              \
			QW_KEY(ROW);                                                            \
			/* no branch on the row's contents (see qw_burst16) */                  \
			uint64_t best = UINT64_MAX;                                             \
			int dup;                                                                \
                                                                                                \
			for (unsigned j = 0; j < b; j++) {                                      \
				const uint64_t age = (uint64_t)(r->e[j] >> fb);                 \
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
			 * back; the oldest entry goes */                                       \
			QW_APPEND(r, ET, 0, fwd < amax ? fwd : amax,                            \
				  now >= rt ? 0 : back < amax ? back : amax);                   \
		}                                                                               \
	}

/*
 * LRU rows (windowed qhtlru): a fingerprint is in a row at most once, so its entry is
 * found by index, without a minimum over matches.
 */
#define QL_BURST(NAME, ROW, ET)                                                                 \
	QW_FN(NAME)                                                                             \
	{                                                                                       \
		QW_ROWS(ROW, ET)                                                                \
		for (unsigned i = 0; i < n; i++) {                                              \
			QW_KEY(ROW);                                                            \
			uint64_t age, newage;                                                   \
			unsigned at = 0, found = 0;                                             \
			int dup;                                                                \
                                                                                                \
			for (unsigned j = 0; j < b; j++) {                                      \
				const unsigned eq = (r->e[j] & fmask) == fp[i];                 \
                                                                                                \
				at = eq ? j : at;                                               \
				found |= eq;                                                    \
			}                                                                       \
			age = found ? (uint64_t)(r->e[at] >> fb) : amax;                        \
			dup = (int)(reach & (age <= limit));                                    \
			v[i] = (uint8_t)dup;                                                    \
			if (d != NULL)                                                          \
				d[i] = dup && age + fwd > back ? (age + fwd - back) << q->shift : 0; \
			if (q->mode == PD_WINDOW_DELIVERED && dup)                              \
				continue;                                                       \
			/* the key's entry (or the oldest) moves to the newest place; a key     \
			 * older than the row keeps its entry's age when that is younger */     \
			newage = now >= rt ? 0 : back < amax ? back : amax;                     \
			newage = age < newage ? age : newage;                                   \
			QW_APPEND(r, ET, at, fwd < amax ? fwd : amax, newage);                  \
		}                                                                               \
	}

#if !QW_SSE2
QW_BURST(qw_burst16, qw_row4, uint32_t)
#endif
QW_BURST(qw_burst_fifo8, qw_row8, uint64_t)
QL_BURST(ql_burst4_loop, qw_row4, uint32_t)
QL_BURST(ql_burst8, qw_row8, uint64_t)

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
static inline unsigned qw16_match(const struct qw_row4 *r, uint16_t fp, uint16_t limit,
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

QW_FN(qw_burst16)
{
	struct qw_row4 *row[PD_BURST_MAX];
	uint16_t fp[PD_BURST_MAX];
	const unsigned b = q->b;
	const bool far = q->base.far;
	const unsigned ahead = pd_ahead(1, far);
	const uint64_t amax = q->age_max;
	const int delivered = q->mode == PD_WINDOW_DELIVERED;

	for (unsigned i = 0; i < n; i++) {
		row[i] = (struct qw_row4 *)(q->rows + pd_range(h[i], q->n) * QW_ROW);
		fp[i] = (uint16_t)(1 + pd_range(pd_hash2(h[i]), q->fpmax));
		if (i < ahead)
			pd_prefetch_w(far, row[i]);
	}
	for (unsigned i = 0; i < n; i++) {
		QW_KEY(qw_row4);
		uint64_t best;
		unsigned m;

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

/*
 * LRU rows of 4-byte entries with SSE2 (f >= 2, so that ages plus a lead stay below 2^31
 * and compare as signed): the 14 entries as four vectors (the last overlapping, entries
 * 10..13); one compare finds the fingerprint, shifts and a signed minimum age the row,
 * and the entry that leaves is closed up by choosing, lane by lane, the entry or its
 * successor (lanes below the leaving one keep theirs). Entries past b stay zero.
 * Measured (pktdedup-eval --filter qhtlru --memory 1M --fpr 1e-6 --window 1000000 --stream
 * zipf --n 10000000 --alpha 1.0 --universe 10000000, b = 14 f = 24, three runs): 31-37
 * ns/key with the portable loops (QL_BURST), 24-28 with this; windowed qqhtd (b = 7,
 * f = 32) 24-25 in the same runs.
 */
QW_FN(ql_burst4_sse2)
{
	static const unsigned first[4] = {0, 4, 8, 10};
	QW_ROWS(qw_row4, uint32_t)
	const __m128i fm = _mm_set1_epi32((int)fmask), am = _mm_set1_epi32((int)amax);
	const __m128i cnt = _mm_cvtsi32_si128((int)fb);
	__m128i live[4], idx[4];
	uint32_t tmp[16] __attribute__((aligned(16)));

	for (unsigned k = 0; k < 4; k++) {
		idx[k] = _mm_add_epi32(_mm_set1_epi32((int)first[k]), _mm_set_epi32(3, 2, 1, 0));
		live[k] = _mm_cmplt_epi32(idx[k], _mm_set1_epi32((int)b));
	}
	for (unsigned i = 0; i < n; i++) {
		QW_KEY(qw_row4);
		const __m128i want = _mm_set1_epi32((int)fp[i]);
		__m128i e[4], sel, keep;
		uint64_t age, newage;
		unsigned m = 0, at;
		int dup;

		for (unsigned k = 0; k < 4; k++) {
			e[k] = _mm_loadu_si128((const __m128i *)&r->e[first[k]]);
			m |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(
				_mm_cmpeq_epi32(_mm_and_si128(e[k], fm), want))) << first[k];
		}
		m &= (1u << b) - 1;
		at = (unsigned)__builtin_ctz(m | 1u << 14);
		at = at < 14 ? at : 0;
		age = m != 0 ? (uint64_t)(r->e[at] >> fb) : amax;
		dup = (int)(reach & (age <= limit));
		v[i] = (uint8_t)dup;
		if (d != NULL)
			d[i] = dup && age + fwd > back ? (age + fwd - back) << q->shift : 0;
		if (q->mode == PD_WINDOW_DELIVERED && dup)
			continue;
		newage = now >= rt ? 0 : back < amax ? back : amax;
		newage = age < newage ? age : newage;
		{
			const __m128i lead = _mm_set1_epi32((int)(fwd < amax ? fwd : amax));

			for (unsigned k = 0; k < 4; k++) { /* age (saturating), then clear past b */
				__m128i a = _mm_add_epi32(_mm_srl_epi32(e[k], cnt), lead);

				keep = _mm_cmpgt_epi32(a, am);
				a = _mm_or_si128(_mm_and_si128(keep, am), _mm_andnot_si128(keep, a));
				e[k] = _mm_and_si128(live[k], _mm_or_si128(_mm_and_si128(e[k], fm),
									    _mm_sll_epi32(a, cnt)));
				_mm_storeu_si128((__m128i *)&tmp[first[k]], e[k]);
			}
			tmp[14] = 0;
			sel = _mm_set1_epi32((int)at);
			for (unsigned k = 0; k < 4; k++) { /* entry j < at stays, else j + 1 */
				const __m128i lo = _mm_loadu_si128((const __m128i *)&tmp[first[k]]);
				const __m128i hi = _mm_loadu_si128((const __m128i *)&tmp[first[k] + 1]);

				keep = _mm_cmplt_epi32(idx[k], sel);
				_mm_storeu_si128((__m128i *)&r->e[first[k]],
						 _mm_or_si128(_mm_and_si128(keep, lo),
							      _mm_andnot_si128(keep, hi)));
			}
		}
		r->e[b - 1] = fp[i] | (uint32_t)newage << fb;
		r->time = now > rt ? now : rt;
	}
}
#endif

static void qw_burst_delay(struct pd_filter *f, const uint64_t *h, const uint64_t *ts,
			   uint8_t *v, uint64_t *d, unsigned n)
{
	struct qw *q = (struct qw *)f;

	q->run(q, h, ts, v, d, n);
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
	if (q->esz == 4) {
		const struct qw_row4 *r = (const struct qw_row4 *)row;

		*fp = r->e[j] & q->fpmax;
		*age = r->e[j] >> q->f;
	} else {
		const struct qw_row8 *r = (const struct qw_row8 *)row;

		*fp = r->e[j] & q->fpmax;
		*age = r->e[j] >> q->f;
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

static void qw_prefetch_burst(const struct pd_filter *f, const uint64_t *h, unsigned n)
{
	const struct qw *q = (const struct qw *)f;

	for (unsigned i = 0; i < n; i++)
		pd_prefetch_w(f->far, q->rows + pd_range(h[i], q->n) * QW_ROW);
}

static void qw_prefetch(const struct pd_filter *f, uint64_t h)
{
	qw_prefetch_burst(f, &h, 1); /* inlined: one prefetch */
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
	const unsigned cap = pd_rowage_max_b(q->f);

	for (uint64_t i = 0; i < q->n; i++)
		memset(q->rows + i * QW_ROW + 8 + q->b * q->esz, 0, (cap - q->b) * q->esz);
}

static const struct pd_filter_ops qw_ops = {
	.sections = qw_sections,
	.post_load = qw_post_load,
	.burst = qw_burst,
	.burst_delay = qw_burst_delay,
	.prefetch = qw_prefetch,
	.prefetch_burst = qw_prefetch_burst,
	.reset = qw_reset,
	.destroy = qw_destroy,
	.state = qw_state,
	.state_name = "fraction of live buckets",
};

struct pd_filter *pd_qqhtdw_create(const struct pd_filter_params *p, struct pd_error *err)
{
	struct qw *q = PD_VARIANT_NEW(struct qw, &qw_ops, err);
	const unsigned esz = p->qht_f <= 26 ? 4 : 8, abits = pd_rowage_age_bits(p->qht_f);

	if (q == NULL)
		return NULL;
	q->b = p->qht_b;
	q->f = p->qht_f;
	q->esz = esz;
	q->lru = p->type == PD_FILTER_QHTLRU;
	/* SSE2 for 4-byte LRU rows needs f >= 2 (ages below 2^30: signed compares) */
#if QW_SSE2
	if (q->lru && esz == 4 && q->f >= 2)
		q->run = ql_burst4_sse2;
	else
#endif
		q->run = q->lru ? (esz == 4 ? ql_burst4_loop : ql_burst8) :
			 q->f == 16 ? qw_burst16 : qw_burst_fifo8;
	q->fpmax = (1ULL << q->f) - 1;
	q->age_max = (1ULL << abits) - 1;
	q->shift = pd_window_shift(p->window, abits);
	q->w_units = pd_window_units(p->window, q->shift);
	/* out of order within the ages' reach is compared exactly; a step back of 64
	 * windows is no merged feed's skew the window could still judge */
	q->late = q->age_max > 64 * q->w_units ? q->age_max : 64 * q->w_units;
	q->mode = p->window_mode;
	q->n = p->memory_bytes / QW_ROW;
	q->rows = pd_variant_table(q->n * QW_ROW, err);
	if (q->rows == NULL) {
		free(q);
		return NULL;
	}
	q->base.memory_bits = q->n * QW_ROW * 8;
	q->base.footprint_bytes = q->n * QW_ROW;
	return &q->base;
}
