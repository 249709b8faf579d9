/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Quotient Hash Tables (Geraud et al.; seed 004, ALGORITHMS.md §6-7): QHT, QHTD, QQHTD.
 *
 * n rows x b buckets x f-bit fingerprints; 0 means an empty bucket. A key maps to row
 * q = range(h, n) and fingerprint fp = 1 + range(h2, 2^f - 1): uniform on [1, 2^f - 1]
 * (so the "raw value 0" case of the paper never arises and no value is favoured).
 *
 *   qht    DUPLICATE iff fp is in row q (nothing changes). Else store fp in the first
 *          empty bucket, or if none in a uniformly random bucket; DISTINCT.
 *   qhtd   as qht, but the fingerprint is stored even when reported DUPLICATE.
 *   qqhtd  the row is a FIFO of b fingerprints: DUPLICATE iff fp is in the row; then always
 *          pop the oldest (bucket 0) and append fp at the tail (bucket b-1).
 *
 * Layout: a row is rw = 1, 2, 4 or 8 words (8, 16, 32 or 64 bytes, aligned to its size,
 * so a row never crosses a cache line: one line per key). A word holds fpw = floor(64/f)
 * fingerprints, lane l at bits [l*f, l*f + f); bucket j is lane j % fpw of word j / fpw.
 * Lanes past b in the last used word, words past ceil(b/fpw), and bits above fpw*f stay 0.
 * M = n*b*f bits as the paper counts; the footprint is n*rw*8 bytes.
 *
 *   f = 16, b = 4:   word 0 = | fp3 | fp2 | fp1 | fp0 |        (fp0 oldest for qqhtd)
 *
 * Lookup is SWAR: with lo = one 1 per lane and hi = lo << (f-1), a word x has a lane equal
 * to fp iff ((y - lo) & ~y & hi) != 0 for y = x ^ (fp * lo) (the classic has-zero test;
 * its lowest set bit is exact, so it also finds the first empty bucket).
 */
#include <stdlib.h>

#include "filter_private.h"

#define QHT_MAX_WORDS 8

struct qht {
	struct pd_filter base;
	uint64_t *rows;
	uint64_t n;        /* rows */
	uint64_t fpmax;    /* 2^f - 1 */
	unsigned b, f;
	unsigned fpw;      /* fingerprints per word */
	unsigned rw;       /* words per row, power of two */
	unsigned used;     /* words that hold buckets: ceil(b / fpw) */
	enum pd_filter_type type;
	uint64_t lo[QHT_MAX_WORDS]; /* lane low bits of valid lanes, per word of a row */
	uint64_t hi[QHT_MAX_WORDS];
};

static inline uint64_t qht_haszero(uint64_t y, uint64_t lo, uint64_t hi)
{
	return (y - lo) & ~y & hi;
}

/* Bucket index of the lowest lane flagged in mask z (a has-zero result) of word w. */
static inline unsigned qht_lane_bucket(const struct qht *q, unsigned w, uint64_t z)
{
	return w * q->fpw + (unsigned)__builtin_ctzll(z) / q->f;
}

static inline void qht_store(struct qht *q, uint64_t *row, unsigned bucket, uint64_t fp)
{
	unsigned w = bucket / q->fpw;
	unsigned sh = (bucket % q->fpw) * q->f;

	row[w] = (row[w] & ~(q->fpmax << sh)) | (fp << sh);
}

static inline int qht_find(const struct qht *q, const uint64_t *row, uint64_t fp)
{
	uint64_t any = 0;

	for (unsigned w = 0; w < q->used; w++)
		any |= qht_haszero(row[w] ^ (fp * q->lo[w]), q->lo[w], q->hi[w]);
	return any != 0;
}

/* First empty bucket, or -1 when the row is full. */
static inline int qht_first_empty(const struct qht *q, const uint64_t *row)
{
	for (unsigned w = 0; w < q->used; w++) {
		uint64_t z = qht_haszero(row[w], q->lo[w], q->hi[w]);

		if (z != 0)
			return (int)qht_lane_bucket(q, w, z);
	}
	return -1;
}

/* FIFO step: drop bucket 0, move every bucket down by one, put fp in bucket b-1. */
static inline void qht_push(const struct qht *q, uint64_t *row, uint64_t fp)
{
	const unsigned last = q->used - 1;
	const unsigned top = (q->fpw - 1) * q->f;

	for (unsigned w = 0; w < last; w++)
		row[w] = (row[w] >> q->f) | ((row[w + 1] & q->fpmax) << top);
	row[last] = (row[last] >> q->f) | (fp << (((q->b - 1) % q->fpw) * q->f));
}

/*
 * Rows of one word (b * f <= 64, as the planner's shapes are): the steps of qht_burst
 * with the row in a register, no loop over words, and lane positions as bit shifts (the
 * lowest flagged lane's top bit is at lane * f + f - 1).
 */
static void qht_burst1(struct qht *q, const uint64_t *h, uint8_t *v, unsigned n)
{
	uint64_t *row[PD_BURST_MAX];
	uint64_t fp[PD_BURST_MAX];
	uint64_t rnd[PD_BURST_MAX];
	const uint64_t lo = q->lo[0], hi = q->hi[0], fpmax = q->fpmax;
	const unsigned fb = q->f, tail = (q->b - 1) * q->f;
	const bool far = q->base.far;
	const unsigned ahead = pd_ahead(1, far);

	for (unsigned i = 0; i < n; i++) {
		row[i] = &q->rows[pd_range(h[i], q->n) * q->rw];
		fp[i] = 1 + pd_range(pd_hash2(h[i]), fpmax);
		if (i < ahead)
			pd_prefetch_w(far, row[i]);
	}
	if (q->type == PD_FILTER_QQHTD) {
		for (unsigned i = 0; i < n; i++) {
			uint64_t x;

			if (i + ahead < n)
				pd_prefetch_w(far, row[i + ahead]);
			x = *row[i];
			v[i] = qht_haszero(x ^ (fp[i] * lo), lo, hi) != 0;
			*row[i] = (x >> fb) | (fp[i] << tail);
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
			pd_prefetch_w(far, row[i + ahead]);
		x = *row[i];
		dup = qht_haszero(x ^ (fp[i] * lo), lo, hi) != 0;
		v[i] = (uint8_t)dup;
		if (dup && q->type == PD_FILTER_QHT)
			continue;
		z = qht_haszero(x, lo, hi);
		sh = z != 0 ? (unsigned)__builtin_ctzll(z) - (fb - 1) :
			      (unsigned)pd_range(rnd[i], q->b) * fb;
		*row[i] = (x & ~(fpmax << sh)) | (fp[i] << sh);
	}
}

static void qht_burst(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		      unsigned n)
{
	struct qht *q = (struct qht *)f;
	uint64_t *row[PD_BURST_MAX];
	uint64_t fp[PD_BURST_MAX];
	uint64_t rnd[PD_BURST_MAX];
	const int queued = q->type == PD_FILTER_QQHTD;
	const bool far = f->far;
	const unsigned ahead = pd_ahead(1, far);

	(void)ts;
	if (q->used == 1) {
		qht_burst1(q, h, v, n);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		row[i] = &q->rows[pd_range(h[i], q->n) * q->rw];
		fp[i] = 1 + pd_range(pd_hash2(h[i]), q->fpmax);
		if (i < ahead)
			pd_prefetch_w(far, row[i]);
		if (!queued)
			rnd[i] = pd_prng_next(&f->prng);
	}
	for (unsigned i = 0; i < n; i++) {
		int dup;
		int e;

		if (i + ahead < n)
			pd_prefetch_w(far, row[i + ahead]);
		dup = qht_find(q, row[i], fp[i]);

		v[i] = (uint8_t)dup;
		if (queued) {
			qht_push(q, row[i], fp[i]);
			continue;
		}
		if (dup && q->type == PD_FILTER_QHT)
			continue;
		e = qht_first_empty(q, row[i]);
		if (e < 0)
			e = (int)pd_range(rnd[i], q->b);
		qht_store(q, row[i], (unsigned)e, fp[i]);
	}
}

static void qht_reset(struct pd_filter *f)
{
	struct qht *q = (struct qht *)f;

	for (uint64_t i = 0; i < q->n * q->rw; i++)
		q->rows[i] = 0;
}

static void qht_destroy(struct pd_filter *f)
{
	struct qht *q = (struct qht *)f;

	pd_free(q->rows, q->n * q->rw * sizeof(uint64_t));
	free(q);
}

static double qht_state(const struct pd_filter *f)
{
	const struct qht *q = (const struct qht *)f;
	uint64_t empty = 0;

	for (uint64_t r = 0; r < q->n; r++) {
		const uint64_t *row = &q->rows[r * q->rw];

		for (unsigned w = 0; w < q->used; w++) {
			/* exact per-lane nonzero test (no borrow between lanes) */
			uint64_t low = q->hi[w] - q->lo[w];
			uint64_t nz = (((row[w] & low) + low) | row[w]) & q->hi[w];

			empty += (uint64_t)__builtin_popcountll(~nz & q->hi[w]);
		}
	}
	return (double)empty / ((double)q->n * q->b);
}

/* The row of h, for a burst to come (the application hashes a packet, prefetches its
 * row, and calls the burst once the whole RX burst is hashed). */
static void qht_prefetch(const struct pd_filter *f, uint64_t h)
{
	const struct qht *q = (const struct qht *)f;

	pd_prefetch_w(f->far, &q->rows[pd_range(h, q->n) * q->rw]);
}

static unsigned qht_sections(struct pd_filter *f, struct pd_section *sec)
{
	struct qht *q = (struct qht *)f;

	sec[0] = (struct pd_section){q->rows, q->n * q->rw * sizeof(uint64_t)};
	return 1;
}

/* A loaded table: bits outside the buckets cleared (a FIFO shift would move them in). */
static void qht_post_load(struct pd_filter *f)
{
	struct qht *q = (struct qht *)f;

	for (uint64_t r = 0; r < q->n; r++)
		for (unsigned w = 0; w < q->rw; w++)
			q->rows[r * q->rw + w] &= w < q->used ? q->lo[w] * q->fpmax : 0;
}

static const struct pd_filter_ops qht_ops = {
	.sections = qht_sections,
	.post_load = qht_post_load,
	.burst = qht_burst,
	.prefetch = qht_prefetch,
	.reset = qht_reset,
	.destroy = qht_destroy,
	.state = qht_state,
	.state_name = "fraction of empty buckets",
};

/* Words per row for (b, f): ceil(b / floor(64/f)) rounded up to a power of two. */
unsigned pd_qht_row_words(unsigned b, unsigned f)
{
	unsigned fpw = 64 / f;
	unsigned used = (b + fpw - 1) / fpw;
	unsigned rw = 1;

	while (rw < used)
		rw <<= 1;
	return rw;
}

struct pd_filter *pd_qht_create(const struct pd_filter_params *p, struct pd_error *err)
{
	struct qht *q = calloc(1, sizeof(*q));

	if (q == NULL) {
		pd_err(err, PD_ENOMEM, "%s: out of memory", pd_filter_type_name(p->type));
		return NULL;
	}
	q->base.ops = &qht_ops;
	q->type = p->type;
	q->b = p->qht_b;
	q->f = p->qht_f;
	q->fpmax = (1ULL << q->f) - 1;
	q->fpw = 64 / q->f;
	q->used = (q->b + q->fpw - 1) / q->fpw;
	q->rw = pd_qht_row_words(q->b, q->f);
	for (unsigned w = 0; w < q->used; w++) {
		unsigned lanes = q->b - w * q->fpw < q->fpw ? q->b - w * q->fpw : q->fpw;

		for (unsigned l = 0; l < lanes; l++)
			q->lo[w] |= 1ULL << (l * q->f);
		q->hi[w] = q->lo[w] << (q->f - 1);
	}
	q->n = p->memory_bytes / (q->rw * sizeof(uint64_t));
	q->rows = pd_alloc_zero(q->n * q->rw * sizeof(uint64_t));
	if (q->rows == NULL) {
		free(q);
		pd_err(err, PD_ENOMEM, "%s: cannot allocate %llu bytes",
		       pd_filter_type_name(p->type), (unsigned long long)p->memory_bytes);
		return NULL;
	}
	q->base.memory_bits = q->n * q->b * q->f;
	q->base.footprint_bytes = q->n * q->rw * sizeof(uint64_t);
	return &q->base;
}
