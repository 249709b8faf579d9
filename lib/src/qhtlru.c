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
 * Lane i holds bits [i*f, i*f + f) of the row read as a 512-bit little-endian number
 * (bit k is bit k % 64 of word k / 64). The lookup compares fp against every lane at
 * once: AVX-512 with VBMI (16 lanes per byte permute, shift, compare; f <= 25), AVX-512F
 * (8 lanes per permute), AVX2 (4 lanes), or the portable scalar loop; the variant is
 * chosen once at create by the CPU, and every variant gives the same lane
 * (tests/test_qhtlru.c runs each the CPU has on the same rows).
 */
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && !defined(PD_NO_SIMD)
#include <immintrin.h>
#define QL_X86 1
#endif

#include "filter_private.h"
#include "rows.h"
#include "qhtlru_private.h"

#define QL_ROW 64
#define QL_WORDS 8
#define QL_GROUPS8 8  /* groups of 8 lanes: b <= 64 */
#define QL_GROUPS4 16 /* groups of 4 lanes */
#define QL_GROUPS16 4 /* groups of 16 lanes: b <= 64 */
#define QL_VBMI_MAX_F 25 /* a lane within 4 bytes whatever its bit offset: f + 7 <= 32 */

struct qhtlru {
	struct pd_filter base;
	uint64_t *rows;  /* n rows of 8 words */
	uint64_t n;
	uint64_t fpmax;  /* 2^f - 1 */
	unsigned b, f;
	enum pd_qhtlru_variant variant;
	/* all ones: a hit moves its lane (LRU); 0: it does not, every key pops lane 0 and
	 * appends (qqhtd's FIFO, for its rows of a whole line: qht.c) */
	uint64_t movable;
	unsigned log2n;  /* n = 2^log2n, when prep_simd */
	bool prep_simd;  /* ql_prep_avx512: n a power of two and the CPU has AVX-512 DQ */
	int (*find)(const struct qhtlru *q, const uint64_t *row, uint64_t fp);
	/* a burst's second pass: every key's step (find, then move) in key order, with
	 * the step inlined into each variant's loop (a call per key cost more than the
	 * step's compares) */
	void (*probe)(const struct qhtlru *q, uint64_t *const *row, const uint64_t *fp,
		      uint8_t *v, unsigned n, unsigned ahead, bool far);
	/* AVX-512: for lane 8g + t, the row's dwords d, d + 1 (d = lane bit / 32) into
	 * qword t of group g, then a right shift by lane bit % 32 */
	uint32_t idx8[QL_GROUPS8][16] PD_ALIGNED;
	uint64_t sh8[QL_GROUPS8][8] PD_ALIGNED;
	/* AVX2: the same for 4 lanes a group, from the row's low or high 32 bytes */
	uint32_t idx4[QL_GROUPS4][8] PD_ALIGNED;
	uint32_t hi4[QL_GROUPS4][8] PD_ALIGNED; /* all ones: that dword comes from the high half */
	uint64_t sh4[QL_GROUPS4][4] PD_ALIGNED;
	/* AVX-512 VBMI (f <= 25): for lane 16g + t, the 4 row bytes from the lane's first
	 * into dword t of group g (one vpermb a group), compared at bit % 8 */
	uint8_t idxb[QL_GROUPS16][64] PD_ALIGNED;
	uint32_t shb[QL_GROUPS16][16] PD_ALIGNED;
	uint32_t mskb[QL_GROUPS16][16] PD_ALIGNED; /* 2^f - 1 << shb: the lane's bits */
	uint64_t valid; /* bit i: lane i exists (b lanes) */
	/* the update's masks for removing lane j: the lanes below it (kept in place) and
	 * lanes j .. b-2 (filled from the row shifted down one lane); 8 KiB, in L1 */
	uint64_t keep[64][QL_WORDS] PD_ALIGNED;
	uint64_t mid[64][QL_WORDS] PD_ALIGNED;
	/* AVX-512 step: fp's bits go to word (b-1)*f / 64 by a left shift, and into the
	 * next word by a right shift when lane b-1 straddles; 64: no bits in that word */
	uint64_t topl[QL_WORDS] PD_ALIGNED;
	uint64_t topr[QL_WORDS] PD_ALIGNED;
};

static inline void ql_move(const struct qhtlru *q, uint64_t *row, unsigned j, uint64_t fp);

/* ---- the lookup: lane of fp, or -1 ------------------------------------------------- */

/* Lane i of a row (scalar). */
static inline uint64_t ql_lane(const struct qhtlru *q, const uint64_t *row, unsigned i)
{
	unsigned bit = i * q->f, w = bit >> 6, s = bit & 63;
	uint64_t v = row[w] >> s;

	if (s != 0 && s + q->f > 64)
		v |= row[w + 1] << (64 - s);
	return v & q->fpmax;
}

static int ql_find_scalar(const struct qhtlru *q, const uint64_t *row, uint64_t fp)
{
	for (unsigned i = 0; i < q->b; i++)
		if (ql_lane(q, row, i) == fp)
			return (int)i;
	return -1;
}

static inline int ql_step_scalar(const struct qhtlru *q, uint64_t *row, uint64_t fp)
{
	int j = ql_find_scalar(q, row, fp);

	ql_move(q, row, j >= 0 ? (unsigned)j & (unsigned)q->movable : 0, fp);
	return j >= 0;
}

#ifdef QL_X86
/* The AVX-512 lookup's tables in registers: loaded once a burst, not once a key. */
struct ql_regs_avx512 {
	__m512i idx[QL_GROUPS8], sh[QL_GROUPS8], mask, topl, topr, base, below_top;
};

#define QL_AVX512 __attribute__((target("avx512f"), always_inline)) static inline

QL_AVX512 void ql_regs_avx512_load(const struct qhtlru *q, struct ql_regs_avx512 *k,
				   unsigned groups)
{
	for (unsigned g = 0; g < groups; g++) {
		k->idx[g] = _mm512_load_si512((const void *)q->idx8[g]);
		k->sh[g] = _mm512_load_si512((const void *)q->sh8[g]);
	}
	k->mask = _mm512_set1_epi64((long long)q->fpmax);
	k->topl = _mm512_load_si512((const void *)q->topl);
	k->topr = _mm512_load_si512((const void *)q->topr);
	k->base = _mm512_set_epi64(448, 384, 320, 256, 192, 128, 64, 0);
	k->below_top = _mm512_load_si512((const void *)q->keep[q->b - 1]);
}

/* Bit i set: lane i of row r equals fp (8 lanes a permute, shift, compare). */
QL_AVX512 uint64_t ql_hits_avx512(const struct qhtlru *q, const struct ql_regs_avx512 *k,
				  unsigned groups, __m512i r, __m512i fpv)
{
	uint64_t hits = 0;

	for (unsigned g = 0; g < groups; g++) {
		__m512i v = _mm512_permutexvar_epi32(k->idx[g], r);

		v = _mm512_and_si512(_mm512_srlv_epi64(v, k->sh[g]), k->mask);
		hits |= (uint64_t)_mm512_cmpeq_epi64_mask(v, fpv) << (8 * g);
	}
	return hits & q->valid;
}

__attribute__((target("avx512f"))) static int ql_find_avx512(const struct qhtlru *q,
							     const uint64_t *row, uint64_t fp)
{
	const unsigned groups = (q->b + 7) / 8;
	struct ql_regs_avx512 k;
	uint64_t hits;

	ql_regs_avx512_load(q, &k, groups);
	hits = ql_hits_avx512(q, &k, groups, _mm512_loadu_si512((const void *)row),
			      _mm512_set1_epi64((long long)fp));

	return hits != 0 ? __builtin_ctzll(hits) : -1;
}

__attribute__((target("avx2"))) static int ql_find_avx2(const struct qhtlru *q,
							const uint64_t *row, uint64_t fp)
{
	const __m256i lo = _mm256_loadu_si256((const __m256i *)row);
	const __m256i hi = _mm256_loadu_si256((const __m256i *)(row + 4));
	const __m256i want = _mm256_set1_epi64x((long long)fp);
	const __m256i mask = _mm256_set1_epi64x((long long)q->fpmax);
	const unsigned groups = (q->b + 3) / 4;
	uint64_t hits = 0;

	for (unsigned g = 0; g < groups; g++) {
		const __m256i idx = _mm256_load_si256((const __m256i *)q->idx4[g]);
		__m256i v = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, idx),
					       _mm256_permutevar8x32_epi32(hi, idx),
					       _mm256_load_si256((const __m256i *)q->hi4[g]));

		v = _mm256_srlv_epi64(v, _mm256_load_si256((const __m256i *)q->sh4[g]));
		v = _mm256_and_si256(v, mask);
		hits |= (uint64_t)_mm256_movemask_pd(_mm256_castsi256_pd(
				_mm256_cmpeq_epi64(v, want))) << (4 * g);
	}
	hits &= q->valid;
	return hits != 0 ? __builtin_ctzll(hits) : -1;
}
#endif

/*
 * The lane a step removes: the lowest hit, or 0 (the oldest) when none, without a
 * branch: ctz(x | 1) is 0 when x is 0. A branch on hit or miss is mispredicted for each
 * random miss among hits, and at 64 MiB it resolves only when the row arrives from
 * memory, discarding the next keys' work: 15%-distinct stream, 64 MiB (bench_member.sh),
 * 12.9 ns/key with the branch, 11.2 without.
 */
static inline unsigned ql_lane_moved(uint64_t x)
{
	return (unsigned)__builtin_ctzll(x | (uint64_t)(x == 0));
}

/* Bits [a, c) of word w of a 512-bit mask. */
static inline uint64_t ql_mask(unsigned a, unsigned c, unsigned w)
{
	unsigned lo = a > 64 * w ? a - 64 * w : 0, hi = c > 64 * w ? c - 64 * w : 0;

	if (lo >= 64 || hi <= lo)
		return 0;
	return (hi >= 64 ? ~0ULL : (1ULL << hi) - 1) & ~((1ULL << lo) - 1);
}

#ifdef QL_X86
__attribute__((target("avx2"))) static inline int ql_step_avx2(const struct qhtlru *q,
							       uint64_t *row, uint64_t fp)
{
	int j = ql_find_avx2(q, row, fp);

	ql_move(q, row, j >= 0 ? (unsigned)j & (unsigned)q->movable : 0, fp);
	return j >= 0;
}

/*
 * The whole step in one register: the lookup as ql_find_avx512, then the move as
 * ql_move (the row shifted down one lane is the row shifted right by f bits, each word
 * taking the next one's low bits), one 64-byte store. Measured in docs/filters.md.
 */
QL_AVX512 int ql_step_avx512(const struct qhtlru *q, const struct ql_regs_avx512 *k,
			    unsigned groups, bool lru, uint64_t *row, uint64_t fp)
{
	const __m512i r = _mm512_loadu_si512((const void *)row);
	const __m512i fpv = _mm512_set1_epi64((long long)fp);
	const uint64_t hits = ql_hits_avx512(q, k, groups, r, fpv);
	const unsigned j = lru ? ql_lane_moved(hits) : 0;
	const __m512i next = _mm512_alignr_epi64(_mm512_setzero_si512(), r, 1); /* r[w + 1] */
	const __m512i down = _mm512_or_si512(_mm512_srl_epi64(r, _mm_cvtsi32_si128((int)q->f)),
					     _mm512_sll_epi64(next,
							      _mm_cvtsi32_si128(64 - (int)q->f)));
	__m512i out;

	/* bits below lane j, per word: j*f - 64w clamped to [0, 64] low bits set */
	const __m512i cnt = _mm512_min_epi64(_mm512_max_epi64(_mm512_sub_epi64(
		_mm512_set1_epi64((long long)(j * q->f)), k->base), _mm512_setzero_si512()),
		_mm512_set1_epi64(64));
	const __m512i keep = _mm512_andnot_si512(_mm512_sllv_epi64(_mm512_set1_epi64(-1), cnt),
						 _mm512_set1_epi64(-1));

	out = _mm512_or_si512(_mm512_and_si512(r, keep),
			      _mm512_and_si512(down, _mm512_andnot_si512(keep, k->below_top)));
	out = _mm512_or_si512(out, _mm512_or_si512(_mm512_sllv_epi64(fpv, k->topl),
						   _mm512_srlv_epi64(fpv, k->topr)));
	_mm512_storeu_si512((void *)row, out);
	return hits != 0;
}

/* One probe loop per SIMD variant (var: avx512 or vbmi, with its target, register tables
 * and step), group count G and row order (lru: a hit moves its lane; fifo: qqhtd's rows,
 * every key pops lane 0): the compiler unrolls the lookup and keeps its tables in
 * registers (b = 20: 3 groups of 8 lanes, 2 of 16), and a FIFO loop loads the lane-0
 * masks once. */
#define QL_PROBE_SIMD(var, target_, G, order, lru)                                          \
	__attribute__((target(target_))) static void ql_probe_##var##_##G##_##order(        \
		const struct qhtlru *q, uint64_t *const *row, const uint64_t *fp, uint8_t *v, \
		unsigned n, unsigned ahead, bool far)                                       \
	{                                                                                   \
		struct ql_regs_##var k;                                                     \
                                                                                            \
		ql_regs_##var##_load(q, &k, G);                                             \
		for (unsigned i = 0; i < n; i++) {                                          \
			if (i + ahead < n)                                                  \
				pd_prefetch_w(far, row[i + ahead]);                         \
			v[i] = (uint8_t)ql_step_##var(q, &k, G, lru, row[i], fp[i]);        \
		}                                                                           \
	}
#define QL_PROBE512(G)                                 \
	QL_PROBE_SIMD(avx512, "avx512f", G, lru, true) \
	QL_PROBE_SIMD(avx512, "avx512f", G, fifo, false)
QL_PROBE512(1)
QL_PROBE512(2)
QL_PROBE512(3)
QL_PROBE512(4)
QL_PROBE512(5)
QL_PROBE512(6)
QL_PROBE512(7)
QL_PROBE512(8)

typedef void (*ql_probe_fn)(const struct qhtlru *, uint64_t *const *, const uint64_t *,
			    uint8_t *, unsigned, unsigned, bool);

static const ql_probe_fn ql_probes512[2][QL_GROUPS8] = {
	{ql_probe_avx512_1_fifo, ql_probe_avx512_2_fifo, ql_probe_avx512_3_fifo,
	 ql_probe_avx512_4_fifo, ql_probe_avx512_5_fifo, ql_probe_avx512_6_fifo,
	 ql_probe_avx512_7_fifo, ql_probe_avx512_8_fifo},
	{ql_probe_avx512_1_lru, ql_probe_avx512_2_lru, ql_probe_avx512_3_lru,
	 ql_probe_avx512_4_lru, ql_probe_avx512_5_lru, ql_probe_avx512_6_lru,
	 ql_probe_avx512_7_lru, ql_probe_avx512_8_lru},
};

/*
 * AVX-512 with VBMI and VBMI2 (Ice Lake, Zen 4), for f <= 25: 16 lanes a group, each
 * gathered as a dword by one byte permute (vpermb), so b = 20 takes 2 groups where the
 * AVX-512F lookup takes 3 of 8 lanes. A lane's dword holds it at bit bit % 8: it is
 * compared with fp shifted there (off the row's chain) under the lane's mask, one XOR
 * and one test. The move takes its masks from the keep/mid tables (an L1 load indexed
 * by the lane) and the row shifted down one lane from one concatenating shift
 * (vpshrdvq); the new fingerprint's bits are made from fp alone, off the row's chain.
 * Measured in docs/filters.md ("qhtlru's cost").
 */
#define QL_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2"), \
				always_inline)) static inline
struct ql_regs_vbmi {
	__m512i idx[QL_GROUPS16], sh[QL_GROUPS16], msk[QL_GROUPS16], topl, topr, fcnt;
	__mmask16 valid[QL_GROUPS16];
};

QL_VBMI void ql_regs_vbmi_load(const struct qhtlru *q, struct ql_regs_vbmi *k, unsigned groups)
{
	for (unsigned g = 0; g < groups; g++) {
		k->idx[g] = _mm512_load_si512((const void *)q->idxb[g]);
		k->sh[g] = _mm512_load_si512((const void *)q->shb[g]);
		k->msk[g] = _mm512_load_si512((const void *)q->mskb[g]);
		k->valid[g] = (__mmask16)(q->valid >> (16 * g));
	}
	k->topl = _mm512_load_si512((const void *)q->topl);
	k->topr = _mm512_load_si512((const void *)q->topr);
	k->fcnt = _mm512_set1_epi64((long long)q->f);
}

/* Bit i set: lane i of row r equals fp (fpd: fp in every dword). */
QL_VBMI uint64_t ql_hits_vbmi(const struct ql_regs_vbmi *k, unsigned groups, __m512i r,
			      __m512i fpd)
{
	__mmask16 m[QL_GROUPS16];
	__mmask32 lo, hi = 0;

	for (unsigned g = 0; g < groups; g++) {
		const __m512i want = _mm512_sllv_epi32(fpd, k->sh[g]);

		m[g] = _mm512_mask_testn_epi32_mask(k->valid[g], _mm512_xor_si512(
			_mm512_permutexvar_epi8(k->idx[g], r), want), k->msk[g]);
	}
	lo = groups > 1 ? _mm512_kunpackw(m[1], m[0]) : m[0];
	if (groups > 2)
		hi = groups > 3 ? _mm512_kunpackw(m[3], m[2]) : m[2];
	return groups > 2 ? (uint64_t)_mm512_kunpackd(hi, lo) : (uint64_t)lo;
}

__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2"))) static int
ql_find_vbmi(const struct qhtlru *q, const uint64_t *row, uint64_t fp)
{
	const unsigned groups = (q->b + 15) / 16;
	struct ql_regs_vbmi k;
	uint64_t hits;

	ql_regs_vbmi_load(q, &k, groups);
	hits = ql_hits_vbmi(&k, groups, _mm512_loadu_si512((const void *)row),
			    _mm512_set1_epi32((int)fp));
	return hits != 0 ? __builtin_ctzll(hits) : -1;
}

QL_VBMI int ql_step_vbmi(const struct qhtlru *q, const struct ql_regs_vbmi *k, unsigned groups,
			 bool lru, uint64_t *row, uint64_t fp)
{
	const __m512i fpq = _mm512_set1_epi64((long long)fp);
	const __m512i top = _mm512_or_si512(_mm512_sllv_epi64(fpq, k->topl),
					    _mm512_srlv_epi64(fpq, k->topr));
	const __m512i r = _mm512_loadu_si512((const void *)row);
	const uint64_t hits = ql_hits_vbmi(k, groups, r, _mm512_set1_epi32((int)fp));
	const unsigned j = lru ? ql_lane_moved(hits) : 0;
	const __m512i next = _mm512_alignr_epi64(_mm512_setzero_si512(), r, 1); /* r[w + 1] */
	const __m512i down = _mm512_shrdv_epi64(r, next, k->fcnt);
	/* (down & mid) | top, then (r & keep) | that */
	const __m512i hi = _mm512_ternarylogic_epi64(down, _mm512_load_si512(
		(const void *)q->mid[j]), top, 0xEA);

	_mm512_storeu_si512((void *)row, _mm512_ternarylogic_epi64(
		r, _mm512_load_si512((const void *)q->keep[j]), hi, 0xEA));
	return hits != 0;
}

#define QL_PROBEB(G)                                                                       \
	QL_PROBE_SIMD(vbmi, "avx512f,avx512bw,avx512vbmi,avx512vbmi2", G, lru, true)      \
	QL_PROBE_SIMD(vbmi, "avx512f,avx512bw,avx512vbmi,avx512vbmi2", G, fifo, false)
QL_PROBEB(1)
QL_PROBEB(2)
QL_PROBEB(3)
QL_PROBEB(4)

static const ql_probe_fn ql_probesb[2][QL_GROUPS16] = {
	{ql_probe_vbmi_1_fifo, ql_probe_vbmi_2_fifo, ql_probe_vbmi_3_fifo, ql_probe_vbmi_4_fifo},
	{ql_probe_vbmi_1_lru, ql_probe_vbmi_2_lru, ql_probe_vbmi_3_lru, ql_probe_vbmi_4_lru},
};
#endif

/* The second pass of a burst, one loop per variant with its step inlined. */
#define QL_PROBE(name, step, attr)                                                          \
	attr static void name(const struct qhtlru *q, uint64_t *const *row, const uint64_t *fp, \
			      uint8_t *v, unsigned n, unsigned ahead, bool far)                \
	{                                                                                   \
		for (unsigned i = 0; i < n; i++) {                                          \
			if (i + ahead < n)                                                  \
				pd_prefetch_w(far, row[i + ahead]);                         \
			v[i] = (uint8_t)step(q, row[i], fp[i]);                             \
		}                                                                           \
	}
QL_PROBE(ql_probe_scalar, ql_step_scalar, )
#ifdef QL_X86
QL_PROBE(ql_probe_avx2, ql_step_avx2, __attribute__((target("avx2"))))
#endif

/* The permute and shift tables of the SIMD lookups, and the update's masks, for (b, f). */
static void ql_tables(struct qhtlru *q)
{
	pd_lane_tables8(q->b, q->f, q->idx8, q->sh8);
	for (unsigned i = 0; i < 64; i++) {
		unsigned bit = i < q->b ? i * q->f : 0;
		unsigned d = bit >> 5, d1 = d + 1 < 16 ? d + 1 : 15; /* d = 15: the lane ends
								      * within it */

		q->idx4[i / 4][2 * (i % 4)] = d & 7;
		q->idx4[i / 4][2 * (i % 4) + 1] = d1 & 7;
		q->hi4[i / 4][2 * (i % 4)] = d >= 8 ? ~0u : 0;
		q->hi4[i / 4][2 * (i % 4) + 1] = d1 >= 8 ? ~0u : 0;
		q->sh4[i / 4][i % 4] = bit & 31;
		for (unsigned k = 0; k < 4; k++) {
			unsigned byte = (bit >> 3) + k;

			q->idxb[i / 16][4 * (i % 16) + k] = (uint8_t)(byte < 64 ? byte : 63);
		}
		q->shb[i / 16][i % 16] = bit & 7;
		q->mskb[i / 16][i % 16] = (uint32_t)(q->fpmax << (bit & 7)); /* f <= 25 here */
	}
	q->valid = q->b == 64 ? ~0ULL : (1ULL << q->b) - 1;
	for (unsigned w = 0; w < QL_WORDS; w++) {
		const unsigned top = (q->b - 1) * q->f, tw = top >> 6, ts = top & 63;

		q->topl[w] = w == tw ? ts : 64;
		q->topr[w] = w == tw + 1 && ts + q->f > 64 ? 64 - ts : 64;
	}
	for (unsigned j = 0; j < q->b; j++)
		for (unsigned w = 0; w < QL_WORDS; w++) {
			q->keep[j][w] = ql_mask(0, j * q->f, w);
			q->mid[j][w] = ql_mask(j * q->f, (q->b - 1) * q->f, w);
		}
}

int pd_qhtlru_variant_supported(enum pd_qhtlru_variant v)
{
	switch (v) {
	case PD_QHTLRU_SCALAR:
		return 1;
#ifdef QL_X86
	case PD_QHTLRU_AVX2:
		return __builtin_cpu_supports("avx2");
	case PD_QHTLRU_AVX512:
		return __builtin_cpu_supports("avx512f");
	case PD_QHTLRU_VBMI:
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vbmi") &&
		       __builtin_cpu_supports("avx512vbmi2");
#endif
	default:
		return 0;
	}
}

int pd_qhtlru_set_variant(struct pd_filter *f, enum pd_qhtlru_variant v)
{
	struct qhtlru *q = (struct qhtlru *)f;

	if (!pd_qhtlru_variant_supported(v))
		return -1;
	q->variant = v;
	switch (v) {
#ifdef QL_X86
	case PD_QHTLRU_VBMI:
		if (q->f <= QL_VBMI_MAX_F) {
			q->find = ql_find_vbmi;
			q->probe = ql_probesb[q->movable != 0][(q->b + 15) / 16 - 1];
			break;
		}
		/* wider lanes straddle 4 bytes: AVX-512F's lookup (VBMI implies it) */
		/* fall through */
	case PD_QHTLRU_AVX512:
		q->find = ql_find_avx512;
		q->probe = ql_probes512[q->movable != 0][(q->b + 7) / 8 - 1];
		break;
	case PD_QHTLRU_AVX2:
		q->find = ql_find_avx2;
		q->probe = ql_probe_avx2;
		break;
#endif
	default:
		q->find = ql_find_scalar;
		q->probe = ql_probe_scalar;
		break;
	}
	return 0;
}

enum pd_qhtlru_variant pd_qhtlru_variant(const struct pd_filter *f)
{
	return ((const struct qhtlru *)f)->variant;
}

int pd_qhtlru_find(const struct pd_filter *f, const uint64_t *row, uint64_t fp)
{
	const struct qhtlru *q = (const struct qhtlru *)f;

	return q->find(q, row, fp);
}

/* ---- the update: remove lane j, append fp -------------------------------------------- */

/*
 * Lanes below j stay; lanes j+1 .. b-1 move down one lane (the row shifted right by f
 * bits, kept in [j*f, (b-1)*f)); fp goes to lane b-1. The masks come from tables made
 * at create: no branch, no mask arithmetic per key (computing them per word per key
 * made this step 3.6 times the lookup's cost).
 */
static inline void ql_move(const struct qhtlru *q, uint64_t *row, unsigned j, uint64_t fp)
{
	const unsigned f = q->f, top = (q->b - 1) * f;
	const uint64_t *keep = q->keep[j], *mid = q->mid[j];
	uint64_t out[QL_WORDS];

	for (unsigned w = 0; w < QL_WORDS; w++) {
		uint64_t down = (row[w] >> f) | (w + 1 < QL_WORDS ? row[w + 1] << (64 - f) : 0);

		out[w] = (row[w] & keep[w]) | (down & mid[w]);
	}
	out[top >> 6] |= fp << (top & 63);
	if ((top & 63) + f > 64)
		out[(top >> 6) + 1] |= fp >> (64 - (top & 63));
	memcpy(row, out, sizeof(out));
}

void pd_qhtlru_move(const struct pd_filter *f, uint64_t *row, unsigned j, uint64_t fp)
{
	ql_move((const struct qhtlru *)f, row, j, fp);
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
	const __m512i fsh = _mm512_set1_epi64((long long)(64 - q->f));
	const __m512i fl = _mm512_set1_epi64((long long)q->f);
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
		for (unsigned i = 0; i < n && i < ahead; i++)
			pd_prefetch_w(f->far, row[i]);
		q->probe(q, row, fp, v, n, ahead, f->far);
		return;
	}
#endif
	for (unsigned i = 0; i < n; i++) {
		row[i] = q->rows + pd_range(h[i], q->n) * QL_WORDS;
		fp[i] = 1 + pd_range(pd_hash2(h[i]), q->fpmax);
		if (i < ahead)
			pd_prefetch_w(f->far, row[i]);
	}
	q->probe(q, row, fp, v, n, ahead, f->far);
}

static void ql_prefetch(const struct pd_filter *f, uint64_t h)
{
	const struct qhtlru *q = (const struct qhtlru *)f;

	pd_prefetch_w(f->far, q->rows + pd_range(h, q->n) * QL_WORDS);
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
		for (unsigned i = 0; i < q->b; i++)
			empty += ql_lane(q, q->rows + r * QL_WORDS, i) == 0;
	return (double)empty / ((double)q->n * q->b);
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
	const unsigned used = q->b * q->f;

	for (uint64_t r = 0; r < q->n; r++) {
		uint64_t *row = q->rows + r * QL_WORDS;

		for (unsigned w = 0; w < QL_WORDS; w++)
			row[w] &= ql_mask(0, used, w);
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
	q->movable = lru ? ~0ULL : 0;
	q->b = p->qht_b;
	q->f = p->qht_f;
	q->fpmax = (1ULL << q->f) - 1;
	q->n = p->memory_bytes / QL_ROW;
	q->rows = pd_variant_table(q->n * QL_ROW, err);
	if (q->rows == NULL) {
		free(q);
		return NULL;
	}
	ql_tables(q);
#ifdef QL_X86
	q->log2n = (unsigned)__builtin_ctzll(q->n);
	q->prep_simd = (q->n & (q->n - 1)) == 0 && __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512dq");
#endif
	/* the widest the CPU has: each gives the same lanes (tests/test_qhtlru.c) */
	if (pd_qhtlru_set_variant(&q->base, PD_QHTLRU_VBMI) != 0 &&
	    pd_qhtlru_set_variant(&q->base, PD_QHTLRU_AVX512) != 0 &&
	    pd_qhtlru_set_variant(&q->base, PD_QHTLRU_AVX2) != 0)
		(void)pd_qhtlru_set_variant(&q->base, PD_QHTLRU_SCALAR);
	q->base.memory_bits = q->n * q->b * q->f;
	q->base.footprint_bytes = q->n * QL_ROW;
	return &q->base;
}
