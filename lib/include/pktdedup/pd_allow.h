/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Allowing a few repeats: pass the first N copies of a key after each verdict that found
 * it new, drop the rest (docs/app.md, "Allowing repeats"). Ad-tech's "filter out
 * successive identical accesses" often tolerates a few (Bera et al., "Advanced Bloom
 * filter based algorithms for efficient approximate data de-duplication in streams", §1;
 * Koloniari et al., "One is enough", §1).
 *
 * The filter still decides whether a key is new (with its window); this table counts the
 * copies since then. A key's 64-bit hash picks a 64-byte bucket of 12 entries, each a
 * 32-bit tag (other bits of the hash) and an 8-bit count; a full bucket overwrites its
 * entries in turn.
 *
 * Errors, beside the filter's own:
 *  - an evicted count restarts at 0: more copies of that key pass (never fewer);
 *  - two keys of one bucket with the same tag share a count, so a copy may be dropped
 *    that the policy would pass: at most 12 * 2^-32 (2.8e-9) per lookup;
 *  - a unique packet the filter takes for a copy (its false positive) finds no count and
 *    passes as the first allowed copy: with N >= 1 the filter's false positives are
 *    forwarded, except after such a tag collision.
 */
#ifndef PD_ALLOW_H
#define PD_ALLOW_H

#include <stdint.h>

#include "pd_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The verdict of a copy that --allow passes (beside PD_DISTINCT and PD_DUPLICATE). */
#define PD_ALLOWED 2

/** The largest N: counts are 8 bits and saturate. */
#define PD_ALLOW_MAX 254

struct pd_allow;

/**
 * @param n      copies passed after each new verdict, 1..PD_ALLOW_MAX
 * @param bytes  the table's size, rounded down to whole 64-byte buckets (at least one)
 * @return NULL on a bad argument or no memory
 */
PD_API
struct pd_allow *pd_allow_create(unsigned n, uint64_t bytes);
PD_API
void pd_allow_free(struct pd_allow *a);
/** Entries the table holds (12 per 64-byte bucket). */
PD_API
uint64_t pd_allow_entries(const struct pd_allow *a);

/**
 * Apply the policy to n filter verdicts v of the keys hashed h, in order: a DISTINCT key
 * restarts its count at 0; a DUPLICATE whose count is below N becomes PD_ALLOWED and
 * counts one more; the others stay DUPLICATE.
 */
PD_API
void pd_allow_apply(struct pd_allow *a, const uint64_t *h, uint8_t *v, unsigned n);

#ifdef __cplusplus
}
#endif

#endif
