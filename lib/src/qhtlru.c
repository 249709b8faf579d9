/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qhtlru: a quotient hash table whose rows are 64-byte cache lines kept in LRU order
 * (this project's variant of the quotient hash tables of Geraud et al., "Quotient hash
 * tables: efficiently detecting duplicates in streaming data"; docs/filters.md).
 *
 * A key maps to row q = range(h, n) and fingerprint fp = 1 + range(h2, 2^f - 1), as in
 * qht. A row holds b fingerprints of f bits packed end to end (b * f <= 512), lane 0 the
 * least recently seen, lane b - 1 the most; 0 is an empty lane. For every key:
 *
 *   fp in lane j:  DUPLICATE; lanes j+1 .. b-1 move down one, fp goes to lane b-1
 *                  (it becomes the newest: no second copy, unlike qqhtd);
 *   fp absent:     DISTINCT; lane 0 (the oldest) is dropped, every lane moves down one,
 *                  fp goes to lane b-1.
 *
 * Both are "remove lane j, append fp" (j = 0 on a miss), so empty lanes stay at the
 * bottom of the row and a fingerprint is in a row at most once. One cache line per key.
 * A distinct key matches a full row with probability 1 - (1 - 1/(2^f - 1))^b ~ b/2^f.
 *
 * The rows, their lookup and their step are the 512-bit row kernels (row512.h: scalar,
 * AVX2, AVX-512F and AVX-512 VBMI, chosen at create by the CPU); this file is the
 * filter around them: rows and fingerprints from the hashes, the burst, the state and
 * its snapshot sections. The same filter in FIFO order (a hit does not move its lane)
 * holds qqhtd's rows of a whole line (pd_qhtlru_create_rows; the registry, filters.c,
 * picks it).
 */
#include <stdlib.h>
#include <string.h>

#include "filter_private.h"
#include "qhtlru_private.h"
#include "row512.h"

#ifdef QL_X86
#include <immintrin.h>
#endif

struct qhtlru {
	struct pd_filter base;
	uint64_t *rows;  /* n rows of 8 words */
	uint64_t n;
	unsigned log2n;  /* n = 2^log2n, when prep_simd */
	bool prep_simd;  /* ql_prep_avx512: n a power of two and the CPU has AVX-512 DQ */
	struct pd_row512 k; /* the rows' shape and the kernels' tables */
};

int pd_qhtlru_variant_supported(enum pd_qhtlru_variant v)
{
	return pd_row512_variant_supported(v);
}

int pd_qhtlru_set_variant(struct pd_filter *f, enum pd_qhtlru_variant v)
{
	return pd_row512_set_variant(&((struct qhtlru *)f)->k, v);
}

enum pd_qhtlru_variant pd_qhtlru_variant(const struct pd_filter *f)
{
	return ((const struct qhtlru *)f)->k.variant;
}

int pd_qhtlru_find(const struct pd_filter *f, const uint64_t *row, uint64_t fp)
{
	const struct pd_row512 *k = &((const struct qhtlru *)f)->k;

	return k->find(k, row, fp);
}

void pd_qhtlru_move(const struct pd_filter *f, uint64_t *row, unsigned j, uint64_t fp)
{
	ql_move(&((const struct qhtlru *)f)->k, row, j, fp);
}

/* ---- burst, state, ops ------------------------------------------------------------- */

#ifdef QL_X86
/*
 * A burst's rows and fingerprints, 8 keys a step, when the row count is a power of two:
 * range(h, 2^k) is h >> (64 - k), and range(x, 2^f - 1) is x >> (64 - f) less one when
 * the low word of x * 2^f - x borrows ((x << f) < x), so both equal the scalar loop's
 * (tests/test_qhtlru.c). bench_member.sh, 3 alternating runs: 1 MiB 7.3 -> 6.2 ns/key,
 * 64 MiB staged 9.4 -> 8.8 (plain bursts at 64 MiB wait on memory: unchanged).
 */
__attribute__((target("avx512f,avx512dq"))) static void ql_prep_avx512(const struct qhtlru *q,
	const uint64_t *h, uint64_t **row, uint64_t *fp, unsigned n)
{
	const __m512i rsh = _mm512_set1_epi64((long long)(64 - q->log2n));
	const __m512i base = _mm512_set1_epi64((long long)(uintptr_t)q->rows);
	const __m512i fsh = _mm512_set1_epi64((long long)(64 - q->k.f));
	const __m512i fl = _mm512_set1_epi64((long long)q->k.f);
	const __m512i one = _mm512_set1_epi64(1);

	for (unsigned i = 0; i < n; i += 8) {
		const __mmask8 m = n - i >= 8 ? 0xff : (__mmask8)((1u << (n - i)) - 1);
		const __m512i x = _mm512_maskz_loadu_epi64(m, h + i);
		__m512i y = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));

		_mm512_mask_storeu_epi64(row + i, m, _mm512_add_epi64(base, _mm512_slli_epi64(
			_mm512_srlv_epi64(x, rsh), 6)));
		y = _mm512_mullo_epi64(y, _mm512_set1_epi64((long long)0xff51afd7ed558ccdULL));
		y = _mm512_xor_si512(y, _mm512_srli_epi64(y, 33));
		y = _mm512_mullo_epi64(y, _mm512_set1_epi64((long long)0xc4ceb9fe1a85ec53ULL));
		y = _mm512_or_si512(_mm512_xor_si512(y, _mm512_srli_epi64(y, 33)), one);
		{
			const __m512i hi = _mm512_add_epi64(_mm512_srlv_epi64(y, fsh), one);
			const __mmask8 borrow = _mm512_cmplt_epu64_mask(_mm512_sllv_epi64(y, fl), y);

			_mm512_mask_storeu_epi64(fp + i, m, _mm512_mask_sub_epi64(hi, borrow, hi, one));
		}
	}
}
#endif

static void ql_burst(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		     unsigned n)
{
	struct qhtlru *q = (struct qhtlru *)f;
	uint64_t *row[PD_BURST_MAX], fp[PD_BURST_MAX];
	const unsigned ahead = pd_ahead(1, f->far);

	(void)ts;
#ifdef QL_X86
	if (q->prep_simd) {
		ql_prep_avx512(q, h, row, fp, n);
		for (unsigned i = 0; i < n && i < ahead && !f->prefetched; i++)
			pd_prefetch_w(f->far, row[i]);
		q->k.probe(&q->k, row, fp, v, n, ahead, f->far);
		return;
	}
#endif
	for (unsigned i = 0; i < n; i++) {
		row[i] = q->rows + pd_range(h[i], q->n) * QL_WORDS;
		fp[i] = 1 + pd_range(pd_hash2(h[i]), q->k.fpmax);
		if (i < ahead && !f->prefetched)
			pd_prefetch_w(f->far, row[i]);
	}
	q->k.probe(&q->k, row, fp, v, n, ahead, f->far);
}

static void ql_prefetch_burst(const struct pd_filter *f, const uint64_t *h, unsigned n)
{
	const struct qhtlru *q = (const struct qhtlru *)f;

	for (unsigned i = 0; i < n; i++)
		pd_prefetch_w(f->far, q->rows + pd_range(h[i], q->n) * QL_WORDS);
}

static void ql_prefetch(const struct pd_filter *f, uint64_t h)
{
	ql_prefetch_burst(f, &h, 1); /* inlined: one prefetch */
}

static void ql_reset(struct pd_filter *f)
{
	struct qhtlru *q = (struct qhtlru *)f;

	memset(q->rows, 0, q->n * QL_ROW);
}

static void ql_destroy(struct pd_filter *f)
{
	struct qhtlru *q = (struct qhtlru *)f;

	pd_free(q->rows, q->n * QL_ROW);
	free(q);
}

/* Fraction of empty lanes. */
static double ql_state(const struct pd_filter *f)
{
	const struct qhtlru *q = (const struct qhtlru *)f;
	uint64_t empty = 0;

	for (uint64_t r = 0; r < q->n; r++)
		for (unsigned i = 0; i < q->k.b; i++)
			empty += pd_row512_lane(&q->k, q->rows + r * QL_WORDS, i) == 0;
	return (double)empty / ((double)q->n * q->k.b);
}

static unsigned ql_sections(struct pd_filter *f, struct pd_section *s)
{
	struct qhtlru *q = (struct qhtlru *)f;

	s[0].p = q->rows;
	s[0].len = q->n * QL_ROW;
	return 1;
}

/* After a load: bits past lane b - 1 are zero, and empty lanes only below used ones (a
 * damaged image could break either; neither can then affect a verdict's correctness
 * beyond that row, but the layout's invariants are restored). */
static void ql_post_load(struct pd_filter *f)
{
	struct qhtlru *q = (struct qhtlru *)f;
	const unsigned used = q->k.b * q->k.f;

	for (uint64_t r = 0; r < q->n; r++) {
		uint64_t *row = q->rows + r * QL_WORDS;

		for (unsigned w = 0; w < QL_WORDS; w++)
			row[w] &= pd_row512_mask(0, used, w);
	}
}

static const struct pd_filter_ops ql_ops = {
	.timeless = true,
	.burst = ql_burst,
	.reset = ql_reset,
	.destroy = ql_destroy,
	.state = ql_state,
	.state_name = "fraction of empty lanes",
	.prefetch = ql_prefetch,
	.prefetch_burst = ql_prefetch_burst,
	.sections = ql_sections,
	.post_load = ql_post_load,
};

struct pd_filter *pd_qhtlru_create(const struct pd_filter_params *p, struct pd_error *err)
{
	return pd_qhtlru_create_rows(p, true, err);
}

struct pd_filter *pd_qhtlru_create_rows(const struct pd_filter_params *p, bool lru,
					struct pd_error *err)
{
	struct qhtlru *q = PD_VARIANT_NEW(struct qhtlru, &ql_ops, err);

	if (q == NULL)
		return NULL;
	q->n = p->memory_bytes / QL_ROW;
	q->rows = pd_variant_table(q->n * QL_ROW, err);
	if (q->rows == NULL) {
		free(q);
		return NULL;
	}
	pd_row512_init(&q->k, p->qht_b, p->qht_f, lru);
#ifdef QL_X86
	q->log2n = (unsigned)__builtin_ctzll(q->n);
	q->prep_simd = (q->n & (q->n - 1)) == 0 && __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512dq");
#endif
	q->base.memory_bits = q->n * q->k.b * q->k.f;
	q->base.footprint_bytes = q->n * QL_ROW;
	return &q->base;
}
