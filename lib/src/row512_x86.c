/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The 512-bit row kernels' x86 variants (row512.h): AVX2 (8 lanes a byte shuffle for
 * f <= 25, else 4 lanes a group), AVX-512F (8 lanes a permute) and AVX-512 with VBMI and
 * VBMI2 (16 lanes a byte permute, f <= 25), each function compiled for its target and
 * called only when the CPU has it (pd_row512_set_variant). The AVX-512 steps do the
 * whole step in one register, the AVX2 step in two.
 */
#include "row512.h"

#ifdef QL_X86
#include <immintrin.h>

/* The AVX-512 lookup's tables in registers: loaded once a burst, not once a key. */
struct ql_regs_avx512 {
	__m512i idx[QL_GROUPS8], sh[QL_GROUPS8], mask, topl, topr, base, below_top;
};

#define QL_AVX512 __attribute__((target("avx512f"), always_inline)) static inline

QL_AVX512 void ql_regs_avx512_load(const struct pd_row512 *q, struct ql_regs_avx512 *k,
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
QL_AVX512 uint64_t ql_hits_avx512(const struct pd_row512 *q, const struct ql_regs_avx512 *k,
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

__attribute__((target("avx512f"))) int pd_row512_find_avx512(const struct pd_row512 *q,
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

#define QL_AVX2 __attribute__((target("avx2"), always_inline)) static inline

/* Bit i set: lane i of the row (lo: its words 0-3, hi: 4-7) equals fp (fpv: fp in every
 * qword): 4 lanes a group, each lane's two dwords from lo or hi by its table. */
QL_AVX2 uint64_t ql_hits_avx2(const struct pd_row512 *q, unsigned groups, __m256i lo, __m256i hi,
			      __m256i fpv)
{
	const __m256i mask = _mm256_set1_epi64x((long long)q->fpmax);
	uint64_t hits = 0;

	for (unsigned g = 0; g < groups; g++) {
		const __m256i idx = _mm256_load_si256((const __m256i *)q->idx4[g]);
		__m256i v = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, idx),
					       _mm256_permutevar8x32_epi32(hi, idx),
					       _mm256_load_si256((const __m256i *)q->hi4[g]));

		v = _mm256_srlv_epi64(v, _mm256_load_si256((const __m256i *)q->sh4[g]));
		v = _mm256_and_si256(v, mask);
		hits |= (uint64_t)_mm256_movemask_pd(_mm256_castsi256_pd(
				_mm256_cmpeq_epi64(v, fpv))) << (4 * g);
	}
	return hits & q->valid;
}

__attribute__((target("avx2"))) int pd_row512_find_avx2(const struct pd_row512 *q,
						     const uint64_t *row, uint64_t fp)
{
	const uint64_t hits = ql_hits_avx2(q, (q->b + 3) / 4,
					   _mm256_loadu_si256((const __m256i *)row),
					   _mm256_loadu_si256((const __m256i *)(row + 4)),
					   _mm256_set1_epi64x((long long)fp));

	return hits != 0 ? __builtin_ctzll(hits) : -1;
}

/* The same for f <= 25, 8 lanes a group: two 16-byte windows of the row (in memory), a
 * byte shuffle putting each lane's 4 bytes into a dword, compared with fp shifted to the
 * lane's bit (off the row's chain) under the lane's mask. */
QL_AVX2 uint64_t ql_hits_avx2b(const struct pd_row512 *q, unsigned groups, const uint64_t *row,
			       __m256i fpd)
{
	const uint8_t *r = (const uint8_t *)row;
	const uint32_t *sh = &q->shb[0][0], *msk = &q->mskb[0][0];
	uint64_t hits = 0;

	for (unsigned g = 0; g < groups; g++) {
		const __m256i w = _mm256_loadu2_m128i((const __m128i *)(r + q->pws[g][1]),
						      (const __m128i *)(r + q->pws[g][0]));
		const __m256i v = _mm256_shuffle_epi8(w, _mm256_load_si256((const __m256i *)q->pb[g]));
		const __m256i want = _mm256_sllv_epi32(fpd, _mm256_load_si256(
			(const __m256i *)(sh + 8 * g)));
		const __m256i d = _mm256_and_si256(_mm256_xor_si256(v, want), _mm256_load_si256(
			(const __m256i *)(msk + 8 * g)));

		hits |= (uint64_t)_mm256_movemask_ps(_mm256_castsi256_ps(
				_mm256_cmpeq_epi32(d, _mm256_setzero_si256()))) << (8 * g);
	}
	return hits & q->valid;
}

__attribute__((target("avx2"))) int pd_row512_find_avx2b(const struct pd_row512 *q,
						      const uint64_t *row, uint64_t fp)
{
	const uint64_t hits = ql_hits_avx2b(q, (q->b + 7) / 8, row, _mm256_set1_epi32((int)fp));

	return hits != 0 ? __builtin_ctzll(hits) : -1;
}

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

/*
 * The whole step in one register: the lookup as pd_row512_find_avx512, then the move as
 * ql_move (the row shifted down one lane is the row shifted right by f bits, each word
 * taking the next one's low bits), one 64-byte store. Measured in docs/filters.md.
 */
QL_AVX512 int ql_step_avx512(const struct pd_row512 *q, const struct ql_regs_avx512 *k,
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
 * masks once. Each starts on a cache line of its own: placed 16 bytes past one (where
 * the code before it left it), the inline run with every packet a hit (bench_inline.sh
 * --action count, qhtlru 64 MiB) ran at 0.96 of the rate it has aligned (8 alternating
 * rounds, 0.955-0.983). */
#define QL_PROBE_SIMD(var, target_, G, order, lru)                                          \
	__attribute__((target(target_), aligned(64))) static void ql_probe_##var##_##G##_##order( \
		const struct pd_row512 *q, uint64_t *const *row, const uint64_t *fp, uint8_t *v, \
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

const pd_row512_probe_fn pd_row512_probes512[2][QL_GROUPS8] = {
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

QL_VBMI void ql_regs_vbmi_load(const struct pd_row512 *q, struct ql_regs_vbmi *k, unsigned groups)
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

__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2"))) int
pd_row512_find_vbmi(const struct pd_row512 *q, const uint64_t *row, uint64_t fp)
{
	const unsigned groups = (q->b + 15) / 16;
	struct ql_regs_vbmi k;
	uint64_t hits;

	ql_regs_vbmi_load(q, &k, groups);
	hits = ql_hits_vbmi(&k, groups, _mm512_loadu_si512((const void *)row),
			    _mm512_set1_epi32((int)fp));
	return hits != 0 ? __builtin_ctzll(hits) : -1;
}

QL_VBMI int ql_step_vbmi(const struct pd_row512 *q, const struct ql_regs_vbmi *k, unsigned groups,
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

const pd_row512_probe_fn pd_row512_probesb[2][QL_GROUPS16] = {
	{ql_probe_vbmi_1_fifo, ql_probe_vbmi_2_fifo, ql_probe_vbmi_3_fifo, ql_probe_vbmi_4_fifo},
	{ql_probe_vbmi_1_lru, ql_probe_vbmi_2_lru, ql_probe_vbmi_3_lru, ql_probe_vbmi_4_lru},
};

/*
 * The AVX2 step in two registers (the row's low and high 32 bytes): the lookup as
 * pd_row512_find_avx2, then the move as ql_move, vector for vector: the row shifted down
 * one lane (each word taking the next one's low bits, the next word's across the halves
 * by a qword permute), the keep/mid masks of lane j from their tables, the new
 * fingerprint's bits made from fp alone, two 32-byte stores. Against the 4-lane lookup
 * followed by ql_move's scalar words (and its 64-byte copy out of 8-byte stores), on a
 * Zen 3 (pktdedup-eval --filter qhtlru --fpr 1e-6, b=20 f=25, with this file's byte
 * shuffle): 36.5 to 19.0 ns/key at 32 KiB, 59.3 to 36.4 at 64 MiB; with f = 31 (the
 * 4-lane lookup kept) 35.0 to 22.4 and 53.6 to 38.7; one inline worker 1.13 times the
 * packets a second (docs/filters.md, "qhtlru's cost").
 */
QL_AVX2 int ql_step_avx2(const struct pd_row512 *q, unsigned groups, bool lru, bool bytes,
			 uint64_t *row, uint64_t fp)
{
	const __m256i fpv = _mm256_set1_epi64x((long long)fp);
	const __m256i lo = _mm256_loadu_si256((const __m256i *)row);
	const __m256i hi = _mm256_loadu_si256((const __m256i *)(row + 4));
	const uint64_t hits = bytes ? ql_hits_avx2b(q, groups, row, _mm256_set1_epi32((int)fp)) :
				      ql_hits_avx2(q, groups, lo, hi, fpv);
	const unsigned j = lru ? ql_lane_moved(hits) : 0;
	const __m128i fr = _mm_cvtsi32_si128((int)q->f), fl = _mm_cvtsi32_si128(64 - (int)q->f);
	/* words 1-4 and 5-7 then 0: r[w + 1] */
	const __m256i rlo = _mm256_permute4x64_epi64(lo, _MM_SHUFFLE(0, 3, 2, 1));
	const __m256i rhi = _mm256_permute4x64_epi64(hi, _MM_SHUFFLE(0, 3, 2, 1));
	const __m256i nlo = _mm256_blend_epi32(rlo, rhi, 0xC0);
	const __m256i nhi = _mm256_blend_epi32(rhi, _mm256_setzero_si256(), 0xC0);
	const __m256i dlo = _mm256_or_si256(_mm256_srl_epi64(lo, fr), _mm256_sll_epi64(nlo, fl));
	const __m256i dhi = _mm256_or_si256(_mm256_srl_epi64(hi, fr), _mm256_sll_epi64(nhi, fl));
	const __m256i *keep = (const __m256i *)q->keep[j], *mid = (const __m256i *)q->mid[j];
	const __m256i *topl = (const __m256i *)q->topl, *topr = (const __m256i *)q->topr;
	__m256i olo, ohi;

	olo = _mm256_or_si256(_mm256_and_si256(lo, _mm256_load_si256(keep)),
			      _mm256_and_si256(dlo, _mm256_load_si256(mid)));
	ohi = _mm256_or_si256(_mm256_and_si256(hi, _mm256_load_si256(keep + 1)),
			      _mm256_and_si256(dhi, _mm256_load_si256(mid + 1)));
	olo = _mm256_or_si256(olo, _mm256_or_si256(_mm256_sllv_epi64(fpv, _mm256_load_si256(topl)),
						   _mm256_srlv_epi64(fpv, _mm256_load_si256(topr))));
	ohi = _mm256_or_si256(ohi, _mm256_or_si256(
		_mm256_sllv_epi64(fpv, _mm256_load_si256(topl + 1)),
		_mm256_srlv_epi64(fpv, _mm256_load_si256(topr + 1))));
	_mm256_storeu_si256((__m256i *)row, olo);
	_mm256_storeu_si256((__m256i *)(row + 4), ohi);
	return hits != 0;
}

/* The AVX2 probes, by order and lookup: the byte shuffle (f <= 25) by group count G, the
 * step inlined and its lookup unrolled; the 4-lane lookup (f > 25) with its groups
 * counted at run time (G 0). */
#define QL_PROBE_AVX2(var, bytes, G, order, lru)                                           \
	__attribute__((target("avx2"), aligned(64))) static void                            \
	ql_probe_##var##_##G##_##order(const struct pd_row512 *q, uint64_t *const *row,      \
				      const uint64_t *fp, uint8_t *v, unsigned n, unsigned ahead, \
				      bool far)                                             \
	{                                                                                   \
		const unsigned groups = G != 0 ? G : (q->b + 3) / 4;                        \
                                                                                            \
		for (unsigned i = 0; i < n; i++) {                                          \
			if (i + ahead < n)                                                  \
				pd_prefetch_w(far, row[i + ahead]);                         \
			v[i] = (uint8_t)ql_step_avx2(q, groups, lru, bytes, row[i], fp[i]); \
		}                                                                           \
	}
#define QL_PROBE2B(G) QL_PROBE_AVX2(avx2b, true, G, lru, true) \
	QL_PROBE_AVX2(avx2b, true, G, fifo, false)
QL_PROBE_AVX2(avx2, false, 0, lru, true)
QL_PROBE_AVX2(avx2, false, 0, fifo, false)
QL_PROBE2B(1)
QL_PROBE2B(2)
QL_PROBE2B(3)
QL_PROBE2B(4)
QL_PROBE2B(5)
QL_PROBE2B(6)
QL_PROBE2B(7)
QL_PROBE2B(8)

const pd_row512_probe_fn pd_row512_probes2[2] = {ql_probe_avx2_0_fifo, ql_probe_avx2_0_lru};
#define QL_PROBES2B(order)                                                                 \
	{ql_probe_avx2b_1_##order, ql_probe_avx2b_2_##order, ql_probe_avx2b_3_##order,       \
	 ql_probe_avx2b_4_##order, ql_probe_avx2b_5_##order, ql_probe_avx2b_6_##order,       \
	 ql_probe_avx2b_7_##order, ql_probe_avx2b_8_##order}
const pd_row512_probe_fn pd_row512_probes2b[2][QL_GROUPS8] = {QL_PROBES2B(fifo),
							       QL_PROBES2B(lru)};

#endif
