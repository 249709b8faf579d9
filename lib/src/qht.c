/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Quotient Hash Tables (Geraud et al., "Quotient hash tables: efficiently detecting
 * duplicates in streaming data"; ALGORITHMS.md §6-7): QHT, QHTD, QQHTD.
 *
 * n rows x b buckets x f-bit fingerprints; 0 means an empty bucket. A key maps to row
 * (line, slot) below and fingerprint fp = 1 + range(h2, 2^f - 1): uniform on [1, 2^f - 1]
 * (so the "raw value 0" case of the paper never arises and no value is favoured).
 *
 *   qht    DUPLICATE iff fp is in the row (nothing changes). Else store fp in the first
 *          empty bucket, or if none in a uniformly random bucket; DISTINCT.
 *   qhtd   as qht, but the fingerprint is stored even when reported DUPLICATE.
 *   qqhtd  the row is a FIFO of b fingerprints: DUPLICATE iff fp is in the row; then always
 *          pop the oldest (bucket 0) and append fp at the tail (bucket b-1).
 *
 * Layout: packed rows. A row is b * f bits (at most 512), bucket j at bits [j*f, j*f + f)
 * of the row read as a little-endian number. A 64-byte cache line holds
 * rpl = floor(512 / (b*f)) rows end to end from bit 0 (bit k of a line is bit k % 64 of
 * its word k / 64); the bits past rpl * b * f stay 0. A row never crosses a line: one
 * line per key, and at most b*f - 1 bits of a line unused (b = 2, f = 21: 12 rows of 42
 * bits in 504 of 512 bits; whole 64-bit words per row would hold 8).
 *
 *   b = 2, f = 21, line words 0-1:  | r1 b0 (bits 42-62) | r0 b1 | r0 b0 (bits 0-20) |
 *                                     r1 b1 = bits 63-83: straddles words 0 and 1
 *
 * The row of h: line = range(h, lines) and slot = range(low 64 bits of h * lines, rpl)
 * (the fraction multiply-shift leaves behind, uniform too), so no division. M = n*b*f
 * bits as the paper counts, n = lines * rpl; the footprint is lines * 64 bytes.
 *
 * Lookup is SWAR on the row read as one number x (one word when b*f <= 64, else up to 8
 * words with borrows carried between them): with lo = one 1 per lane and
 * hi = lo << (f-1), x has a lane equal to fp iff ((y - lo) & ~y & hi) != 0 for
 * y = x ^ (fp * lo) (the classic has-zero test; its lowest set bit is exact, so it also
 * finds the first empty bucket).
 *
 * Rows wider than a word take AVX-512 where the CPU has it (chosen once at create; the
 * SWAR path stays for other CPUs and -DPD_NO_SIMD builds, and tests/test_qhtlru.c runs
 * both on the same keys): the line is shifted in one register so the row starts at bit
 * 0, every lane is taken out at once (a dword permute and a shift per 8 lanes, as
 * qhtlru's lookup) and compared with fp and with 0; a qht/qhtd store writes one lane
 * back, a qqhtd step shifts the row down one lane and merges it into the line.
 */
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && !defined(PD_NO_SIMD)
#include <immintrin.h>
#define QHT_X86 1
#endif

#include "filter_private.h"
#include "rows.h"
#include "qhtlru_private.h"

#define QHT_LINE_WORDS 8

struct qht {
	struct pd_filter base;
	uint64_t *lines;   /* 8 words each */
	uint64_t nlines;
	uint64_t fpmax;    /* 2^f - 1 */
	unsigned b, f;
	unsigned bf;       /* bits per row */
	unsigned rpl;      /* rows per line */
	unsigned u;        /* words of a row read as a number: ceil(bf / 64) */
	enum pd_filter_type type;
	uint64_t lo[QHT_LINE_WORDS]; /* bit j*f of the row number for each bucket j */
	uint64_t hi[QHT_LINE_WORDS]; /* lo << (f - 1) */
	uint64_t top[QHT_LINE_WORDS]; /* ones over the row's bf bits */
	bool simd;         /* rows of u >= 2 words take the AVX-512 burst */
	uint64_t valid;    /* bit j: bucket j exists */
	/* AVX-512: bucket 8g + t of a row at bit 0 is dwords idx8[g][2t], idx8[g][2t + 1]
	 * of the row shifted right by sh8[g][t] (as qhtlru's lookup) */
	uint32_t idx8[QHT_LINE_WORDS][16] PD_ALIGNED;
	uint64_t sh8[QHT_LINE_WORDS][8] PD_ALIGNED;
};

/* Line and bit offset of the row of h. */
static inline uint64_t *qht_row(const struct qht *q, uint64_t h, unsigned *off)
{
	pd_u128 wide = (pd_u128)h * q->nlines;

	*off = (unsigned)pd_range((uint64_t)wide, q->rpl) * q->bf;
	return &q->lines[(uint64_t)(wide >> 64) * QHT_LINE_WORDS];
}

static inline uint64_t qht_haszero(uint64_t y, uint64_t lo, uint64_t hi)
{
	return (y - lo) & ~y & hi;
}

/*
 * Rows of one word (b*f <= 64): the row at bit s of word w, read and written without a
 * branch. Its high part, if any, is in word w + 1; when the row does not straddle, the
 * bits taken from (or put into) the next word are none (shifts by 64 - s done as two
 * shifts so that s = 0 is defined), and the next word of word 7 is word 0 of the line,
 * left as it was.
 */
static inline uint64_t qht_get1(const uint64_t *line, unsigned off, uint64_t mask)
{
	const unsigned w = off >> 6, s = off & 63;

	return ((line[w] >> s) | ((line[(w + 1) & 7] << 1) << (63 - s))) & mask;
}

static inline void qht_put1(uint64_t *line, unsigned off, uint64_t mask, uint64_t x)
{
	const unsigned w = off >> 6, s = off & 63, w1 = (w + 1) & 7;

	line[w] = (line[w] & ~(mask << s)) | (x << s);
	line[w1] = (line[w1] & ~((mask >> 1) >> (63 - s))) | ((x >> 1) >> (63 - s));
}

/*
 * Rows of u words (u = ceil(b*f / 64), a constant in each inlined copy: the loops
 * unroll): the row as the number x[0..u-1], read and written as qht_get1/qht_put1 do
 * word by word (word 7's next word is word 0 of the line, never touched: the row ends
 * in word 7 then).
 */
#define QHT_INLINE static inline __attribute__((always_inline))

QHT_INLINE void qht_get(const struct qht *q, const uint64_t *line, unsigned off, uint64_t *x,
			const unsigned u)
{
	const unsigned w = off >> 6, s = off & 63;

	for (unsigned k = 0; k < u; k++)
		x[k] = ((line[(w + k) & 7] >> s) | ((line[(w + k + 1) & 7] << 1) << (63 - s))) &
		       q->top[k];
}

QHT_INLINE void qht_put(const struct qht *q, uint64_t *line, unsigned off, const uint64_t *x,
			const unsigned u)
{
	const unsigned w = off >> 6, s = off & 63;

	for (unsigned k = 0; k < u; k++) {
		const unsigned w0 = (w + k) & 7, w1 = (w + k + 1) & 7;

		line[w0] = (line[w0] & ~(q->top[k] << s)) | (x[k] << s);
		line[w1] = (line[w1] & ~((q->top[k] >> 1) >> (63 - s))) | ((x[k] >> 1) >> (63 - s));
	}
}

/* z = has-zero of x ^ (fp * lo) over the row number (fp == 0: empty buckets); returns
 * whether any bit of z is set. */
QHT_INLINE int qht_haszero_n(const struct qht *q, const uint64_t *x, uint64_t fp, uint64_t *z,
			     const unsigned u)
{
	uint64_t borrow = 0, carry = 0, any = 0;

	for (unsigned k = 0; k < u; k++) {
		pd_u128 rep = (pd_u128)q->lo[k] * fp + carry; /* fp * lo: lanes never overlap */
		uint64_t y = x[k] ^ (uint64_t)rep, d = y - q->lo[k] - borrow;

		carry = (uint64_t)(rep >> 64);
		borrow = y < q->lo[k] || (y == q->lo[k] && borrow);
		z[k] = d & ~y & q->hi[k];
		any |= z[k];
	}
	return any != 0;
}

/* Bucket fp goes to: the first empty one, else the one of the random draw. */
QHT_INLINE unsigned qht_slot_for(const struct qht *q, const uint64_t *x, uint64_t rnd,
				 const unsigned u)
{
	uint64_t z[QHT_LINE_WORDS] = {0};

	if (qht_haszero_n(q, x, 0, z, u))
		for (unsigned k = 0;; k++)
			if (z[k] != 0)
				return (64 * k + (unsigned)__builtin_ctzll(z[k])) / q->f;
	return (unsigned)pd_range(rnd, q->b);
}

/* Bucket j of the row number := fp. */
static inline void qht_set(const struct qht *q, uint64_t *x, unsigned j, uint64_t fp)
{
	const unsigned bit = j * q->f, k = bit >> 6, s = bit & 63;

	x[k] = (x[k] & ~(q->fpmax << s)) | (fp << s);
	if (s + q->f > 64)
		x[k + 1] = (x[k + 1] & ~(q->fpmax >> (64 - s))) | (fp >> (64 - s));
}

/* FIFO step: drop bucket 0, move every bucket down one, fp into bucket b-1. */
QHT_INLINE void qht_push(const struct qht *q, uint64_t *x, uint64_t fp, const unsigned u)
{
	for (unsigned k = 0; k + 1 < u; k++)
		x[k] = (x[k] >> q->f) | (x[k + 1] << (64 - q->f));
	x[u - 1] >>= q->f;
	qht_set(q, x, q->b - 1, fp);
}

/*
 * Rows of one word (b * f <= 64, as the planner's smallest shapes are): the row in a
 * register, lane positions as bit shifts (the lowest flagged lane's top bit is at
 * lane * f + f - 1).
 */
static void qht_burst1(struct qht *q, const uint64_t *h, uint8_t *v, unsigned n)
{
	uint64_t *line[PD_BURST_MAX];
	unsigned off[PD_BURST_MAX];
	uint64_t fp[PD_BURST_MAX];
	uint64_t rnd[PD_BURST_MAX];
	const uint64_t lo = q->lo[0], hi = q->hi[0], fpmax = q->fpmax, mask = q->top[0];
	const unsigned fb = q->f, tail = (q->b - 1) * q->f;
	const bool far = q->base.far;
	const unsigned ahead = pd_ahead(1, far);

	for (unsigned i = 0; i < n; i++) {
		line[i] = qht_row(q, h[i], &off[i]);
		fp[i] = 1 + pd_range(pd_hash2(h[i]), fpmax);
		if (i < ahead)
			pd_prefetch_w(far, line[i]);
	}
	if (q->type == PD_FILTER_QQHTD) {
		for (unsigned i = 0; i < n; i++) {
			uint64_t x;

			if (i + ahead < n)
				pd_prefetch_w(far, line[i + ahead]);
			x = qht_get1(line[i], off[i], mask);
			v[i] = qht_haszero(x ^ (fp[i] * lo), lo, hi) != 0;
			qht_put1(line[i], off[i], mask, (x >> fb) | (fp[i] << tail));
		}
		return;
	}
	for (unsigned i = 0; i < n; i++)
		rnd[i] = pd_prng_next(&q->base.prng);
	for (unsigned i = 0; i < n; i++) {
		uint64_t x, z;
		unsigned sh;
		int dup;

		if (i + ahead < n)
			pd_prefetch_w(far, line[i + ahead]);
		x = qht_get1(line[i], off[i], mask);
		dup = qht_haszero(x ^ (fp[i] * lo), lo, hi) != 0;
		v[i] = (uint8_t)dup;
		if (dup && q->type == PD_FILTER_QHT)
			continue;
		z = qht_haszero(x, lo, hi);
		sh = z != 0 ? (unsigned)__builtin_ctzll(z) - (fb - 1) :
			      (unsigned)pd_range(rnd[i], q->b) * fb;
		qht_put1(line[i], off[i], mask, (x & ~(fpmax << sh)) | (fp[i] << sh));
	}
}

/* Rows of u >= 2 words. */
QHT_INLINE void qht_burst_n(struct qht *q, const uint64_t *h, uint8_t *v, unsigned n,
			    const unsigned u)
{
	uint64_t *line[PD_BURST_MAX];
	unsigned off[PD_BURST_MAX];
	uint64_t fp[PD_BURST_MAX];
	uint64_t rnd[PD_BURST_MAX];
	const int queued = q->type == PD_FILTER_QQHTD;
	const bool far = q->base.far;
	const unsigned ahead = pd_ahead(1, far);

	for (unsigned i = 0; i < n; i++) {
		line[i] = qht_row(q, h[i], &off[i]);
		fp[i] = 1 + pd_range(pd_hash2(h[i]), q->fpmax);
		if (i < ahead)
			pd_prefetch_w(far, line[i]);
		if (!queued)
			rnd[i] = pd_prng_next(&q->base.prng);
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t x[QHT_LINE_WORDS], z[QHT_LINE_WORDS];
		int dup;

		if (i + ahead < n)
			pd_prefetch_w(far, line[i + ahead]);
		qht_get(q, line[i], off[i], x, u);
		dup = qht_haszero_n(q, x, fp[i], z, u);
		v[i] = (uint8_t)dup;
		if (queued)
			qht_push(q, x, fp[i], u);
		else if (dup && q->type == PD_FILTER_QHT)
			continue;
		else
			qht_set(q, x, qht_slot_for(q, x, rnd[i], u), fp[i]);
		qht_put(q, line[i], off[i], x, u);
	}
}

#ifdef QHT_X86
/*
 * ---- AVX-512, rows of u >= 2 words ----------------------------------------------------
 *
 * The line in one register, read as a 512-bit number: shr512 moves bit n to bit 0,
 * shl512 bit 0 to bit n (a qword permute for n / 64, then the funnel of n % 64 between
 * neighbouring qwords; shifts by 64 give 0).
 */
#define QHT_AVX512 __attribute__((target("avx512f"), always_inline)) static inline

QHT_AVX512 __m512i qht_shr512(__m512i x, unsigned n)
{
	const unsigned w = n >> 6;
	const __m512i at = _mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
					    _mm512_set1_epi64(w));
	const __m512i lo = _mm512_maskz_permutexvar_epi64((__mmask8)(0xff >> w), at, x);
	const __m512i hi = _mm512_maskz_permutexvar_epi64(
		(__mmask8)(0xff >> (w + 1)), _mm512_add_epi64(at, _mm512_set1_epi64(1)), x);

	return _mm512_or_si512(_mm512_srl_epi64(lo, _mm_cvtsi32_si128((int)(n & 63))),
			       _mm512_sll_epi64(hi, _mm_cvtsi32_si128(64 - (int)(n & 63))));
}

QHT_AVX512 __m512i qht_shl512(__m512i x, unsigned n)
{
	const unsigned w = n >> 6;
	const __m512i at = _mm512_sub_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
					    _mm512_set1_epi64(w));
	const __m512i lo = _mm512_maskz_permutexvar_epi64((__mmask8)(0xff << w), at, x);
	const __m512i hi = _mm512_maskz_permutexvar_epi64(
		(__mmask8)(0xff << (w + 1)), _mm512_sub_epi64(at, _mm512_set1_epi64(1)), x);

	return _mm512_or_si512(_mm512_sll_epi64(lo, _mm_cvtsi32_si128((int)(n & 63))),
			       _mm512_srl_epi64(hi, _mm_cvtsi32_si128(64 - (int)(n & 63))));
}

/* The step's tables in registers, loaded once a burst. */
struct qht_regs512 {
	__m512i idx[QHT_LINE_WORDS], sh[QHT_LINE_WORDS], lanemask, rowmask, topl, topr;
};

QHT_AVX512 void qht_regs512_load(const struct qht *q, struct qht_regs512 *k, unsigned groups)
{
	const unsigned top = (q->b - 1) * q->f, ts = top & 63;
	uint64_t tl[QHT_LINE_WORDS], tr[QHT_LINE_WORDS];

	for (unsigned g = 0; g < groups; g++) {
		k->idx[g] = _mm512_load_si512((const void *)q->idx8[g]);
		k->sh[g] = _mm512_load_si512((const void *)q->sh8[g]);
	}
	k->lanemask = _mm512_set1_epi64((long long)q->fpmax);
	k->rowmask = _mm512_loadu_si512((const void *)q->top); /* words past u are 0 */
	/* fp into bucket b - 1: a left shift into its word, a right shift into the next
	 * when it straddles; 64 (nothing) elsewhere */
	for (unsigned w = 0; w < QHT_LINE_WORDS; w++) {
		tl[w] = w == top >> 6 ? ts : 64;
		tr[w] = w == (top >> 6) + 1 && ts + q->f > 64 ? 64 - ts : 64;
	}
	k->topl = _mm512_loadu_si512((const void *)tl);
	k->topr = _mm512_loadu_si512((const void *)tr);
}

/*
 * One key: the verdict, and the row's update. qht and qhtd write fp into one bucket (the
 * first empty, else the random one) with scalar stores; qqhtd's row, shifted down one
 * bucket with fp on top, is merged back into the line with one 64-byte store.
 *
 * Measured against the SWAR path (pktdedup-eval --n 5000000 --distinct 0.15, one core,
 * medians of 5 alternating runs, ns/key): qht b=20 f=25 (the 1e-6 plan) 26.0 against 45.9
 * at 1 MiB, 18.0 against 32.8 at 64 MiB; qht b=5 f=27 20.9/26.2 and 16.1/23.8; qhtd
 * b=4 f=22 14.6/22.9 and 21.8/25.2; qqhtd b=5 f=27 11.9/19.4 and 13.0/23.2. The one loss:
 * qht rows of two words at 1 MiB (b=4 f=22: 22.3 against 20.0; equal at 64 MiB).
 */
QHT_AVX512 int qht_step512(const struct qht *q, const struct qht_regs512 *k,
			   const unsigned groups, const enum pd_filter_type type, uint64_t *line,
			   unsigned off, uint64_t fp, uint64_t rnd)
{
	const __m512i l = _mm512_load_si512((const void *)line);
	const __m512i row = _mm512_and_si512(qht_shr512(l, off), k->rowmask);
	const __m512i fpv = _mm512_set1_epi64((long long)fp);
	__m512i lane[QHT_LINE_WORDS];
	uint64_t hits = 0, empty = 0;
	int dup;

	for (unsigned g = 0; g < groups; g++) {
		lane[g] = _mm512_permutexvar_epi32(k->idx[g], row);
		lane[g] = _mm512_and_si512(_mm512_srlv_epi64(lane[g], k->sh[g]), k->lanemask);
		hits |= (uint64_t)_mm512_cmpeq_epi64_mask(lane[g], fpv) << (8 * g);
	}
	dup = (hits & q->valid) != 0;
	if (type == PD_FILTER_QQHTD) {
		__m512i out = _mm512_srl_epi64(row, _mm_cvtsi32_si128((int)q->f));

		out = _mm512_or_si512(out, _mm512_sll_epi64(
			_mm512_alignr_epi64(_mm512_setzero_si512(), row, 1),
			_mm_cvtsi32_si128(64 - (int)q->f)));
		out = _mm512_and_si512(out, k->rowmask);
		out = _mm512_or_si512(out, _mm512_or_si512(_mm512_sllv_epi64(fpv, k->topl),
							   _mm512_srlv_epi64(fpv, k->topr)));
		out = _mm512_or_si512(_mm512_andnot_si512(qht_shl512(k->rowmask, off), l),
				      qht_shl512(out, off));
		_mm512_store_si512((void *)line, out);
	} else if (!(dup && type == PD_FILTER_QHT)) {
		unsigned j, bit, w, s;

		/* the empty buckets, only for a store (qht's hits need none) */
		for (unsigned g = 0; g < groups; g++)
			empty |= (uint64_t)_mm512_testn_epi64_mask(lane[g], lane[g]) << (8 * g);
		empty &= q->valid;
		j = empty != 0 ? (unsigned)__builtin_ctzll(empty) : (unsigned)pd_range(rnd, q->b);
		bit = off + j * q->f;
		w = bit >> 6;
		s = bit & 63;

		line[w] = (line[w] & ~(q->fpmax << s)) | (fp << s);
		if (s + q->f > 64)
			line[w + 1] = (line[w + 1] & ~(q->fpmax >> (64 - s))) | (fp >> (64 - s));
	}
	return dup;
}

/* One burst loop per group count and filter type: the step unrolls, its tables stay in
 * registers. */
QHT_AVX512 void qht_probe512(const struct qht *q, uint64_t *const *line, const unsigned *off,
			     const uint64_t *fp, const uint64_t *rnd, uint8_t *v, unsigned n,
			     unsigned ahead, const unsigned groups, const enum pd_filter_type type)
{
	struct qht_regs512 k;

	qht_regs512_load(q, &k, groups);
	for (unsigned i = 0; i < n; i++) {
		if (i + ahead < n)
			pd_prefetch_w(q->base.far, line[i + ahead]);
		v[i] = (uint8_t)qht_step512(q, &k, groups, type, line[i], off[i], fp[i], rnd[i]);
	}
}

#define QHT_PROBE512(G)                                                                     \
	__attribute__((target("avx512f"))) static void qht_probe512_##G(                    \
		const struct qht *q, uint64_t *const *line, const unsigned *off,             \
		const uint64_t *fp, const uint64_t *rnd, uint8_t *v, unsigned n, unsigned ahead) \
	{                                                                                   \
		switch (q->type) {                                                          \
		case PD_FILTER_QQHTD:                                                       \
			qht_probe512(q, line, off, fp, rnd, v, n, ahead, G, PD_FILTER_QQHTD); \
			break;                                                              \
		case PD_FILTER_QHTD:                                                        \
			qht_probe512(q, line, off, fp, rnd, v, n, ahead, G, PD_FILTER_QHTD); \
			break;                                                              \
		default:                                                                    \
			qht_probe512(q, line, off, fp, rnd, v, n, ahead, G, PD_FILTER_QHT);  \
			break;                                                              \
		}                                                                           \
	}
QHT_PROBE512(1)
QHT_PROBE512(2)
QHT_PROBE512(3)
QHT_PROBE512(4)
QHT_PROBE512(5)
QHT_PROBE512(6)
QHT_PROBE512(7)
QHT_PROBE512(8)

static void (*const qht_probes512[QHT_LINE_WORDS])(const struct qht *, uint64_t *const *,
						  const unsigned *, const uint64_t *,
						  const uint64_t *, uint8_t *, unsigned, unsigned) = {
	qht_probe512_1, qht_probe512_2, qht_probe512_3, qht_probe512_4,
	qht_probe512_5, qht_probe512_6, qht_probe512_7, qht_probe512_8,
};

static void qht_burst512(struct qht *q, const uint64_t *h, uint8_t *v, unsigned n)
{
	uint64_t *line[PD_BURST_MAX];
	unsigned off[PD_BURST_MAX];
	uint64_t fp[PD_BURST_MAX];
	uint64_t rnd[PD_BURST_MAX];
	const int queued = q->type == PD_FILTER_QQHTD;
	const unsigned ahead = pd_ahead(1, q->base.far);

	for (unsigned i = 0; i < n; i++) {
		line[i] = qht_row(q, h[i], &off[i]);
		fp[i] = 1 + pd_range(pd_hash2(h[i]), q->fpmax);
		if (i < ahead)
			pd_prefetch_w(q->base.far, line[i]);
		rnd[i] = queued ? 0 : pd_prng_next(&q->base.prng);
	}
	qht_probes512[(q->b + 7) / 8 - 1](q, line, off, fp, rnd, v, n, ahead);
}
#endif

static void qht_burst(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		      unsigned n)
{
	struct qht *q = (struct qht *)f;

	(void)ts;
#ifdef QHT_X86
	if (q->simd) {
		qht_burst512(q, h, v, n);
		return;
	}
#endif
	switch (q->u) {
	case 1: qht_burst1(q, h, v, n); break;
	case 2: qht_burst_n(q, h, v, n, 2); break;
	case 3: qht_burst_n(q, h, v, n, 3); break;
	case 4: qht_burst_n(q, h, v, n, 4); break;
	case 5: qht_burst_n(q, h, v, n, 5); break;
	case 6: qht_burst_n(q, h, v, n, 6); break;
	case 7: qht_burst_n(q, h, v, n, 7); break;
	default: qht_burst_n(q, h, v, n, 8); break;
	}
}

static void qht_reset(struct pd_filter *f)
{
	struct qht *q = (struct qht *)f;

	memset(q->lines, 0, q->nlines * PD_CACHE_LINE);
}

static void qht_destroy(struct pd_filter *f)
{
	struct qht *q = (struct qht *)f;

	pd_free(q->lines, q->nlines * PD_CACHE_LINE);
	free(q);
}

static double qht_state(const struct pd_filter *f)
{
	const struct qht *q = (const struct qht *)f;
	uint64_t empty = 0;

	for (uint64_t l = 0; l < q->nlines; l++)
		for (unsigned r = 0; r < q->rpl; r++) {
			uint64_t x[QHT_LINE_WORDS];

			qht_get(q, &q->lines[l * QHT_LINE_WORDS], r * q->bf, x, q->u);
			for (unsigned j = 0; j < q->b; j++) {
				const unsigned bit = j * q->f, k = bit >> 6, s = bit & 63;
				uint64_t lane = x[k] >> s;

				if (s + q->f > 64)
					lane |= x[k + 1] << (64 - s);
				empty += (lane & q->fpmax) == 0;
			}
		}
	return (double)empty / ((double)q->nlines * q->rpl * q->b);
}

/* The line of h, for a burst to come (the application hashes a packet, prefetches its
 * line, and calls the burst once the whole RX burst is hashed). */
static void qht_prefetch(const struct pd_filter *f, uint64_t h)
{
	const struct qht *q = (const struct qht *)f;
	unsigned off;

	pd_prefetch_w(f->far, qht_row(q, h, &off));
}

static unsigned qht_sections(struct pd_filter *f, struct pd_section *sec)
{
	struct qht *q = (struct qht *)f;

	sec[0] = (struct pd_section){q->lines, q->nlines * PD_CACHE_LINE};
	return 1;
}

/* A loaded table: the bits past the last row of each line cleared (a FIFO shift never
 * reads them, but they must not hold garbage either). */
static void qht_post_load(struct pd_filter *f)
{
	struct qht *q = (struct qht *)f;
	const unsigned used = q->rpl * q->bf;

	for (uint64_t l = 0; l < q->nlines; l++)
		for (unsigned w = 0; w < QHT_LINE_WORDS; w++) {
			unsigned keep = used > 64 * w ? used - 64 * w : 0;

			if (keep < 64)
				q->lines[l * QHT_LINE_WORDS + w] &= keep ? ~0ULL >> (64 - keep) : 0;
		}
}

static const struct pd_filter_ops qht_ops = {
	.timeless = true,
	.sections = qht_sections,
	.post_load = qht_post_load,
	.burst = qht_burst,
	.prefetch = qht_prefetch,
	.reset = qht_reset,
	.destroy = qht_destroy,
	.state = qht_state,
	.state_name = "fraction of empty buckets",
};

/* The AVX-512 lookup's tables. */
static void qht_tables(struct qht *q)
{
	pd_lane_tables8(q->b, q->f, q->idx8, q->sh8);
	q->valid = q->b >= 64 ? ~0ULL : (1ULL << q->b) - 1;
}

int pd_qht_set_simd(struct pd_filter *f, bool on)
{
	struct qht *q = (struct qht *)f;

	if (f->ops != &qht_ops)
		return -1;
	q->simd = false;
	if (!on)
		return 0;
#ifdef QHT_X86
	if (q->u >= 2 && q->b <= 64 && q->f <= 32 && __builtin_cpu_supports("avx512f")) {
		q->simd = true;
		return 0;
	}
#endif
	return -1;
}

struct pd_filter *pd_qht_create(const struct pd_filter_params *p, struct pd_error *err)
{
	struct qht *q;

	q = PD_VARIANT_NEW(struct qht, &qht_ops, err);
	if (q == NULL)
		return NULL;
	q->type = p->type;
	q->b = p->qht_b;
	q->f = p->qht_f;
	q->fpmax = (1ULL << q->f) - 1;
	q->bf = q->b * q->f;
	q->rpl = pd_qht_rows_per_line(q->b, q->f);
	q->u = (q->bf + 63) / 64;
	for (unsigned k = 0; k < q->u; k++) {
		unsigned bits = q->bf - 64 * k;

		q->top[k] = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
	}
	for (unsigned j = 0; j < q->b; j++) {
		unsigned bit = j * q->f, hb = bit + q->f - 1;

		q->lo[bit >> 6] |= 1ULL << (bit & 63);
		q->hi[hb >> 6] |= 1ULL << (hb & 63);
	}
	qht_tables(q);
	(void)pd_qht_set_simd(&q->base, true); /* where the CPU has it */
	q->nlines = p->memory_bytes / PD_CACHE_LINE;
	q->lines = pd_variant_table(q->nlines * PD_CACHE_LINE, err);
	if (q->lines == NULL) {
		free(q);
		return NULL;
	}
	q->base.memory_bits = q->nlines * q->rpl * q->bf;
	q->base.footprint_bytes = q->nlines * PD_CACHE_LINE;
	return &q->base;
}
