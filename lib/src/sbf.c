/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stable Bloom Filter (Deng & Rafiei, SIGMOD 2006; seed 001, ALGORITHMS.md §1).
 *
 * m cells of d bits, Max <= 2^d - 1. Per key: DUPLICATE iff none of the K probed cells is
 * 0; then decrement P consecutive cells j..j+P-1 (mod m) from a uniformly random j (the
 * paper's implementation); then set the K cells to Max. Steps 2-3 run for every key.
 *
 * Layout: cells never straddle a 64-bit word. A word holds cpw = floor(64/d) cells
 * (d = 3: 21 cells, bit 63 unused), so m = nwords * cpw and M = m * d bits.
 *
 *   word w:  | unused | cell cpw-1 | ... | cell 1 | cell 0 |      cell i of word w is
 *            63                               d-1        0      global cell w*cpw + i
 *
 * A position comes from one 128-bit multiply: g * nwords = (word, fraction); the slot is
 * fraction * cpw >> 64, so no division is needed for any d.
 *
 * Decrements are SWAR: in a word, the cells that are nonzero are found by OR-folding the
 * d bits of each cell onto its low bit; subtracting that mask decrements exactly those
 * cells with no borrow between cells. P consecutive cells touch ceil(P/cpw)+1 words.
 *
 * Prefetch: the K probed lines and the line where the decrement run starts; for state
 * far beyond the L2 (pd_very_far), also the line where the run ends. The run crosses
 * into the next line for about one key in 50 with the planner's P = 11 bit cells; left
 * out, that line was a full memory miss and cost 1.3 ns/key at 64 MiB, 9 with Max = 3
 * (docs/speed.md). For state that the L3 mostly holds, it costs less than the extra
 * prefetch. Lines strictly inside a run longer than a line are not prefetched.
 */
#include <stdlib.h>

#include "filter_private.h"

struct sbf {
	struct pd_filter base;
	uint64_t *w;
	uint64_t nwords;
	uint64_t m;         /* cells */
	uint64_t lowmask;   /* bit 0 of every cell of a word */
	uint64_t cellmask;  /* (1 << d) - 1 */
	unsigned d;         /* bits per cell */
	unsigned cpw;       /* cells per word */
	unsigned K;
	unsigned P;
	uint64_t max;
	/* words from a run's first word to its last, by the slot it starts at */
	uint64_t span[64];
};

struct sbf_pos {
	uint64_t word;
	unsigned shift; /* slot * d */
};

static inline struct sbf_pos sbf_locate(const struct sbf *s, uint64_t g)
{
	pd_u128 wide = (pd_u128)g * s->nwords;
	struct sbf_pos p;

	p.word = (uint64_t)(wide >> 64);
	p.shift = (unsigned)(((pd_u128)(uint64_t)wide * s->cpw) >> 64) * s->d;
	return p;
}

/* Low bit of each cell that is nonzero. */
static inline uint64_t sbf_nonzero(const struct sbf *s, uint64_t x)
{
	uint64_t t = x;

	for (unsigned b = 1; b < s->d; b++)
		t |= x >> b;
	return t & s->lowmask;
}

/* Decrement P consecutive cells from position start (wrapping at m). */
static inline void sbf_decrement(struct sbf *s, struct sbf_pos start)
{
	uint64_t word = start.word;
	unsigned slot = start.shift / s->d;
	unsigned left = s->P;

	while (left > 0) {
		unsigned cnt = s->cpw - slot < left ? s->cpw - slot : left;
		unsigned bits = cnt * s->d;
		uint64_t range = (bits >= 64 ? ~0ULL : ((1ULL << bits) - 1)) << (slot * s->d);
		uint64_t x = s->w[word];

		s->w[word] = x - (sbf_nonzero(s, x) & range);
		left -= cnt;
		slot = 0;
		if (++word == s->nwords)
			word = 0;
	}
}

static inline void sbf_prefetch(const struct sbf *s, const struct sbf_pos *pos,
				struct sbf_pos dec)
{
	for (unsigned j = 0; j < s->K; j++)
		pd_prefetch_w(s->base.far, &s->w[pos[j].word]);
	pd_prefetch_w(s->base.far, &s->w[dec.word]);
	if (pd_very_far(&s->base)) {
		uint64_t last = dec.word + s->span[dec.shift / s->d];

		pd_prefetch_w(true, &s->w[last >= s->nwords ? last - s->nwords : last]);
	}
}

/* Bit cells: the last bit of the run of P from b (b itself when P is 0). */
static inline uint64_t sbf1_last(uint64_t b, uint64_t pm1, uint64_t m)
{
	uint64_t e = b + pm1;

	return e >= m ? e - m : e;
}

/*
 * Max = 1 (d = 1, the planner's choice): a cell is a bit and mulhi(g, 64 * nwords) is
 * exactly the word * 64 + slot that sbf_locate computes, with one multiply. Decrementing a
 * 1-bit cell clears it. Fields are copied to locals: the stores into w would otherwise
 * force the compiler to reload them for every key.
 */
static void sbf1_burst(struct sbf *s, const uint64_t *h, uint8_t *v, unsigned n)
{
	uint64_t bit[PD_BURST_MAX][PD_MAX_HASHES];
	uint64_t dec[PD_BURST_MAX];
	uint64_t *const w = s->w;
	const uint64_t m = s->m;
	const uint64_t nwords = s->nwords;
	const unsigned K = s->K;
	const unsigned P = s->P;
	const uint64_t pm1 = P > 0 ? P - 1 : 0;
	const bool far = s->base.far;
	const bool very_far = pd_very_far(&s->base);
	const unsigned ahead = pd_ahead(K + 1, far);
	struct pd_prng prng = s->base.prng;

	for (unsigned i = 0; i < n; i++) {
		uint64_t h1 = h[i], h2 = pd_hash2(h[i]);

		for (unsigned j = 0; j < K; j++)
			bit[i][j] = (uint64_t)(((pd_u128)(h1 + j * h2) * m) >> 64);
		dec[i] = (uint64_t)(((pd_u128)pd_prng_next(&prng) * m) >> 64);
		if (i < ahead) {
			for (unsigned j = 0; j < K; j++)
				pd_prefetch_w(far, &w[bit[i][j] >> 6]);
			pd_prefetch_w(far, &w[dec[i] >> 6]);
			if (very_far)
				pd_prefetch_w(true, &w[sbf1_last(dec[i], pm1, m) >> 6]);
		}
	}
	s->base.prng = prng;
	for (unsigned i = 0; i < n; i++) {
		unsigned dup = 1;

		if (i + ahead < n) {
			for (unsigned j = 0; j < K; j++)
				pd_prefetch_w(far, &w[bit[i + ahead][j] >> 6]);
			pd_prefetch_w(far, &w[dec[i + ahead] >> 6]);
			if (very_far)
				pd_prefetch_w(true, &w[sbf1_last(dec[i + ahead], pm1, m) >> 6]);
		}
		for (unsigned j = 0; j < K; j++)
			dup &= (unsigned)(w[bit[i][j] >> 6] >> (bit[i][j] & 63));
		v[i] = (uint8_t)(dup & 1);
		/* Clear P bits from dec[i], wrapping at m. */
		for (uint64_t b = dec[i], left = P; left > 0;) {
			unsigned sh = (unsigned)(b & 63);
			uint64_t cnt = 64 - sh < left ? 64 - sh : left;
			uint64_t mask = (cnt == 64 ? ~0ULL : (1ULL << cnt) - 1) << sh;
			uint64_t word = b >> 6;

			w[word] &= ~mask;
			left -= cnt;
			b = word + 1 == nwords ? 0 : (word + 1) * 64;
		}
		for (unsigned j = 0; j < K; j++)
			w[bit[i][j] >> 6] |= 1ULL << (bit[i][j] & 63);
	}
}

static void sbf_burst(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		      unsigned n)
{
	struct sbf *s = (struct sbf *)f;
	struct sbf_pos pos[PD_BURST_MAX][PD_MAX_HASHES];
	struct sbf_pos dec[PD_BURST_MAX];
	const unsigned K = s->K;
	const unsigned ahead = pd_ahead(K + 1, s->base.far);

	(void)ts;
	if (s->d == 1) {
		sbf1_burst(s, h, v, n);
		return;
	}
	/* Pass 1: positions and the random decrement start of every key. */
	for (unsigned i = 0; i < n; i++) {
		uint64_t h1 = h[i], h2 = pd_hash2(h[i]);

		for (unsigned j = 0; j < K; j++)
			pos[i][j] = sbf_locate(s, h1 + j * h2);
		dec[i] = sbf_locate(s, pd_prng_next(&f->prng));
		if (i < ahead)
			sbf_prefetch(s, pos[i], dec[i]);
	}
	/* Pass 2: probe, decrement, set; in key order, lines of key i + ahead in flight. */
	for (unsigned i = 0; i < n; i++) {
		unsigned dup = 1;

		if (i + ahead < n)
			sbf_prefetch(s, pos[i + ahead], dec[i + ahead]);

		for (unsigned j = 0; j < K; j++)
			dup &= ((s->w[pos[i][j].word] >> pos[i][j].shift) & s->cellmask) != 0;
		v[i] = (uint8_t)dup;
		if (s->P > 0)
			sbf_decrement(s, dec[i]);
		for (unsigned j = 0; j < K; j++) {
			uint64_t *w = &s->w[pos[i][j].word];

			*w = (*w & ~(s->cellmask << pos[i][j].shift)) | (s->max << pos[i][j].shift);
		}
	}
}

static void sbf_reset(struct pd_filter *f)
{
	struct sbf *s = (struct sbf *)f;

	for (uint64_t i = 0; i < s->nwords; i++)
		s->w[i] = 0;
}

static void sbf_destroy(struct pd_filter *f)
{
	struct sbf *s = (struct sbf *)f;

	pd_free(s->w, s->nwords * sizeof(uint64_t));
	free(s);
}

static double sbf_state(const struct pd_filter *f)
{
	const struct sbf *s = (const struct sbf *)f;
	uint64_t zeros = 0;

	for (uint64_t i = 0; i < s->nwords; i++)
		zeros += (uint64_t)__builtin_popcountll(~sbf_nonzero(s, s->w[i]) & s->lowmask);
	return (double)zeros / (double)s->m;
}

static unsigned sbf_sections(struct pd_filter *f, struct pd_section *sec)
{
	struct sbf *s = (struct sbf *)f;

	sec[0] = (struct pd_section){s->w, s->nwords * sizeof(uint64_t)};
	return 1;
}

/* A loaded table: bits outside the cells cleared, cells above Max set to Max. */
static void sbf_post_load(struct pd_filter *f)
{
	struct sbf *s = (struct sbf *)f;
	const uint64_t used = s->lowmask * s->cellmask;

	for (uint64_t i = 0; i < s->nwords; i++) {
		uint64_t x = s->w[i] & used;

		if (s->max != s->cellmask)
			for (unsigned c = 0; c < s->cpw; c++) {
				unsigned sh = c * s->d;

				if (((x >> sh) & s->cellmask) > s->max)
					x = (x & ~(s->cellmask << sh)) | (s->max << sh);
			}
		s->w[i] = x;
	}
}

static const struct pd_filter_ops sbf_ops = {
	.timeless = true,
	.sections = sbf_sections,
	.post_load = sbf_post_load,
	.burst = sbf_burst,
	.reset = sbf_reset,
	.destroy = sbf_destroy,
	.state = sbf_state,
	.state_name = "fraction of 0 cells",
};

struct pd_filter *pd_sbf_create(const struct pd_filter_params *p, struct pd_error *err)
{
	struct sbf *s = PD_VARIANT_NEW(struct sbf, &sbf_ops, err);

	if (s == NULL)
		return NULL;
	s->max = p->sbf_max;
	s->d = 0;
	while ((1ULL << s->d) - 1 < s->max)
		s->d++;
	s->cpw = 64 / s->d;
	s->cellmask = (1ULL << s->d) - 1;
	for (unsigned i = 0; i < s->cpw; i++)
		s->lowmask |= 1ULL << (i * s->d);
	s->nwords = p->memory_bytes / sizeof(uint64_t);
	s->m = s->nwords * s->cpw;
	s->K = p->k;
	s->P = p->sbf_p;
	for (unsigned i = 0; i < s->cpw; i++)
		s->span[i] = (i + (s->P > 0 ? s->P - 1ULL : 0)) / s->cpw;
	s->w = pd_variant_table(s->nwords * sizeof(uint64_t), err);
	if (s->w == NULL) {
		free(s);
		return NULL;
	}
	s->base.memory_bits = s->m * s->d;
	s->base.footprint_bytes = s->nwords * sizeof(uint64_t);
	return &s->base;
}
