/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The planner's formulas, for the tests (not installed): miss models and SBF's stable
 * point (Deng and Rafiei, "Approximately detecting duplicates for streaming data using
 * stable Bloom filters", eqs. 8, 16, 17).
 */
#ifndef PKTDEDUP_PLAN_PRIVATE_H
#define PKTDEDUP_PLAN_PRIVATE_H

#include <pktdedup/pd_filter.h>

/**
 * Predicted miss rate of a qht-family filter for a copy that comes gap keys after its
 * original, lam = gap / rows: FIFO and LRU rows (qqhtd, qhtlru) P(Poisson(lam) >= b);
 * random replacement in full rows 1 - exp(-lam / b) (qhtd) and
 * 1 - exp(-lam (1 + 1/b) / (2b)) (qht: half the keys new). docs/filters.md derives them.
 */
double pd_qht_fnr(enum pd_filter_type type, unsigned b, double lam);

/** SBF stable-point FP rate, 001 eq. 8: (1 - (1/(1 + 1/(P(1/K - 1/m))))^Max)^K. */
double pd_sbf_fps(double max, double k, double p, double m);

/** SBF P for a target FPS, 001 eq. 17 (real valued; the planner rounds it). */
double pd_sbf_p_for_fps(double fps, double max, double k, double m);

/**
 * SBF average FN rate f(delta, k) of 001 eq. 16 with PR0 from eqs. 9-13, for a cell set
 * probability kcell per iteration, decrement probability p = P/m, gap delta.
 */
double pd_sbf_fnr(unsigned max, unsigned k, double p, double kcell, unsigned delta);

/**
 * The K in 1..10 minimising the SBF FN rate for (Max, FPS) on m cells, with P from
 * eq. 17 and the paper's testing values (phi = 0, delta = 200, f/N = 1e-5, 001 §4.1).
 */
unsigned pd_sbf_best_k(unsigned max, double fps, double m);

#endif
