/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The 512-bit row kernels: a row is one 64-byte cache line holding b lanes of f bits
 * packed end to end (b * f <= 512), lane i at bits [i*f, i*f + f) of the row read as a
 * 512-bit little-endian number (bit k is bit k % 64 of word k / 64); 0 is an empty lane.
 * The qht family's rows of a whole line use them (Géraud et al., "Quotient hash tables:
 * efficiently detecting duplicates in streaming data"): qhtlru's LRU rows and qqhtd's
 * FIFO rows (qhtlru.c).
 *
 * Two operations: find (the lane holding fp, or -1) and step (find, then "remove lane j,
 * append fp": j is the hit in LRU order, 0 in FIFO order or on a miss, so empty lanes
 * stay at the bottom and a fingerprint is in a row at most once). Each comes in the
 * variants of enum pd_qhtlru_variant: the portable scalar loop (row512.c) and AVX2,
 * AVX-512F and AVX-512 VBMI (row512_x86.c, compiled for those targets and chosen at run
 * time by the CPU), as DPDK's lib/member keeps rte_member_x86.h apart from its scalar
 * code. Every variant gives the same lane for the same row and fingerprint
 * (tests/test_qhtlru.c runs each the CPU has on the same rows).
 *
 * A burst's probe runs every key's step in key order with the step inlined into one loop
 * per variant (and per lane-group count for AVX-512 and AVX2's byte shuffle): a call per
 * key cost more than the step's compares.
 */
#ifndef PKTDEDUP_ROW512_H
#define PKTDEDUP_ROW512_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "filter_private.h"

#if defined(__x86_64__) && !defined(PD_NO_SIMD)
#define QL_X86 1
#endif

#define QL_ROW 64
#define QL_WORDS 8
#define QL_GROUPS8 8  /* groups of 8 lanes: b <= 64 */
#define QL_GROUPS4 16 /* groups of 4 lanes */
#define QL_GROUPS16 4 /* groups of 16 lanes: b <= 64 */
#define QL_VBMI_MAX_F 25 /* a lane within 4 bytes whatever its bit offset: f + 7 <= 32 */

/* VBMI: AVX-512 with VBMI and VBMI2, its own lookup for f <= 25 (AVX-512F's above) */
enum pd_qhtlru_variant { PD_QHTLRU_SCALAR, PD_QHTLRU_AVX2, PD_QHTLRU_AVX512, PD_QHTLRU_VBMI,
			 PD_QHTLRU_VARIANTS };

struct pd_row512;
typedef int (*pd_row512_find_fn)(const struct pd_row512 *q, const uint64_t *row, uint64_t fp);
/* A burst's second pass: the step of keys 0..n-1 on their rows, verdicts into v, the row
 * of key i + ahead prefetched (far: into every cache level) as key i is stepped. */
typedef void (*pd_row512_probe_fn)(const struct pd_row512 *q, uint64_t *const *row,
				   const uint64_t *fp, uint8_t *v, unsigned n, unsigned ahead,
				   bool far);

/* The rows' shape (b, f, order) and every variant's tables, made once (pd_row512_init). */
struct pd_row512 {
	unsigned b, f;
	uint64_t fpmax;  /* 2^f - 1 */
	enum pd_qhtlru_variant variant;
	/* all ones: a hit moves its lane (LRU); 0: it does not, every key pops lane 0 and
	 * appends (FIFO) */
	uint64_t movable;
	pd_row512_find_fn find;
	pd_row512_probe_fn probe;
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
	/* AVX2 (f <= 25): for lanes 8g .. 8g + 7, two 16-byte windows of the row from bytes
	 * pws[g][0] and [1] (lanes 8g .. 8g + 3 in the first, the rest in the second), and
	 * the shuffle taking each lane's 4 bytes from its window into dword t (then as
	 * VBMI's: shb, mskb); 0x80: a zero byte */
	uint8_t pb[QL_GROUPS8][32] PD_ALIGNED;
	uint8_t pws[QL_GROUPS8][2];
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

/* Rows of b lanes of f bits (b * f <= 512), in LRU or FIFO order: the tables, and the
 * widest variant the CPU has (row512.c). */
void pd_row512_init(struct pd_row512 *q, unsigned b, unsigned f, bool lru);
/* Whether this CPU (and build) has the variant. */
int pd_row512_variant_supported(enum pd_qhtlru_variant v);
/* Use variant v: 0, or -1 when not supported (q unchanged). */
int pd_row512_set_variant(struct pd_row512 *q, enum pd_qhtlru_variant v);

/* Lane i of a row (scalar). */
static inline uint64_t pd_row512_lane(const struct pd_row512 *q, const uint64_t *row, unsigned i)
{
	unsigned bit = i * q->f, w = bit >> 6, s = bit & 63;
	uint64_t v = row[w] >> s;

	if (s != 0 && s + q->f > 64)
		v |= row[w + 1] << (64 - s);
	return v & q->fpmax;
}

/* Bits [a, c) of word w of a 512-bit mask. */
static inline uint64_t pd_row512_mask(unsigned a, unsigned c, unsigned w)
{
	unsigned lo = a > 64 * w ? a - 64 * w : 0, hi = c > 64 * w ? c - 64 * w : 0;

	if (lo >= 64 || hi <= lo)
		return 0;
	return (hi >= 64 ? ~0ULL : (1ULL << hi) - 1) & ~((1ULL << lo) - 1);
}

/* ---- the update: remove lane j, append fp (scalar; the AVX-512 steps do it in a
 * register) ---- */

/*
 * Lanes below j stay; lanes j+1 .. b-1 move down one lane (the row shifted right by f
 * bits, kept in [j*f, (b-1)*f)); fp goes to lane b-1. The masks come from tables made
 * at create: no branch, no mask arithmetic per key (computing them per word per key
 * made this step 3.6 times the lookup's cost).
 */
static inline void ql_move(const struct pd_row512 *q, uint64_t *row, unsigned j, uint64_t fp)
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

#ifdef QL_X86
/* The x86 variants (row512_x86.c): their lookups and their probe loops, by order (0:
 * FIFO, 1: LRU) and lane-group count (1..8 of 8 lanes, 1..4 of 16; AVX2's of 4 lanes
 * counted at run time). */
int pd_row512_find_avx2(const struct pd_row512 *q, const uint64_t *row, uint64_t fp);
int pd_row512_find_avx2b(const struct pd_row512 *q, const uint64_t *row, uint64_t fp);
int pd_row512_find_avx512(const struct pd_row512 *q, const uint64_t *row, uint64_t fp);
int pd_row512_find_vbmi(const struct pd_row512 *q, const uint64_t *row, uint64_t fp);
extern const pd_row512_probe_fn pd_row512_probes2[2];
extern const pd_row512_probe_fn pd_row512_probes2b[2][QL_GROUPS8];
extern const pd_row512_probe_fn pd_row512_probes512[2][QL_GROUPS8];
extern const pd_row512_probe_fn pd_row512_probesb[2][QL_GROUPS16];
#endif

#endif
