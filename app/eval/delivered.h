/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The truth of delivered mode (Koloniari, Ntarmos, Pitoura and Souravlias, "One is enough:
 * distributed filtering for duplicate elimination", seed 002, Definition 4; ALGORITHMS.md
 * §9): a key is a duplicate iff the filter under test delivered it (reported it DISTINCT)
 * at most W keys before. The truth depends on the filter's own verdicts, so it is scored
 * after them. An oracle that delivers by its own ideal verdicts instead would turn every
 * copy the filter let through into a later "false positive" (timerbf with --equal-timers 6:
 * FPR 8.8% where Definition 4 gives 0).
 */
#ifndef PKTDEDUP_EVAL_DELIVERED_H
#define PKTDEDUP_EVAL_DELIVERED_H

#include <stddef.h>
#include <stdint.h>

struct delivered;

/* A map for a window of W keys; NULL when out of memory. */
struct delivered *delivered_new(uint64_t window);
void delivered_free(struct delivered *d);

/*
 * Keys k[0..n) at the next n times (one per key, from 1), with the filter's verdicts v
 * (1 = DUPLICATE): truth[j] = 1 iff k[j] was delivered within W keys before it; then every
 * key the filter delivered is recorded at its time. -1 when out of memory.
 */
int delivered_score(struct delivered *d, const uint64_t *k, const uint8_t *v, uint8_t *truth,
		    size_t n);

#endif
