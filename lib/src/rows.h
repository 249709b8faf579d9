/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Row geometry of the qht family (Géraud et al., "Quotient hash tables: efficiently
 * detecting duplicates in streaming data"): how many rows fit a 64-byte line, how many
 * buckets a windowed row holds, and where a packed row's lanes lie for 8-lane SIMD reads.
 * At the bottom of the library: the planners (plan.c) size filters with it and the
 * variants (qht.c, qhtlru.c, qqhtdw.c) lay their rows out by it, so neither reads it out
 * of the other.
 */
#ifndef PKTDEDUP_ROWS_H
#define PKTDEDUP_ROWS_H

#include <stdint.h>

/* Packed qht rows of b * f bits in a 64-byte line: floor(512 / (b*f)), 0 when b*f > 512
 * (or 0). */
static inline unsigned pd_qht_rows_per_line(unsigned b, unsigned f)
{
	return b * f <= 512 && b * f > 0 ? 512 / (b * f) : 0;
}

/* Windowed rows (qqhtdw.c): most buckets per row for fingerprint bits f: 14 up to 26 bits
 * (4-byte entries), 7 up to 32 (8-byte entries); 0 otherwise. */
static inline unsigned pd_rowage_max_b(unsigned f)
{
	return f >= 1 && f <= 26 ? 14 : f <= 32 ? 7 : 0;
}

/* ... and the bits of each entry's age: 32 - f (4-byte entries) or 64 - f. */
static inline unsigned pd_rowage_age_bits(unsigned f)
{
	return (f <= 26 ? 32 : 64) - f;
}

/*
 * Packed rows read 8 lanes at a time (qhtlru.c, qht.c: AVX-512): lane i of f bits at bit
 * i*f of a 512-bit row is dwords idx[i / 8][2 (i % 8)] and idx[i / 8][2 (i % 8) + 1] of it
 * (d = bit / 32 and d + 1, or d again when d is the last: the lane ends within it) shifted
 * right by sh[i / 8][i % 8] = bit % 32. Lanes past b read bit 0 (masked off by the caller).
 */
static inline void pd_lane_tables8(unsigned b, unsigned f, uint32_t idx[8][16],
				   uint64_t sh[8][8])
{
	for (unsigned i = 0; i < 64; i++) {
		const unsigned bit = i < b ? i * f : 0, d = bit >> 5;

		idx[i / 8][2 * (i % 8)] = d;
		idx[i / 8][2 * (i % 8) + 1] = d + 1 < 16 ? d + 1 : 15;
		sh[i / 8][i % 8] = bit & 31;
	}
}

#endif
