/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The planner: from a memory budget and a target false-positive rate, the parameters of
 * each filter by the papers' rules, and the FPR those rules predict. Papers by number
 * (000 Bera et al., 001 Deng and Rafiei, 002 Koloniari et al., 004 Géraud et al.): the
 * full references are at the top of pd_filter.h.
 *
 * | filter            | rule                                                             | predicted FPR                       |
 * |-------------------|------------------------------------------------------------------|-------------------------------------|
 * | sbf               | Max = 1 (001 §4.1, no gap knowledge); K minimising eq. 16 with    | FPS, eq. 8 (stable point, uniform   |
 * |                   | P from eq. 17 for each K in 1..10; P = ceil(eq. 17): FPS <= target| stream: Corollary 4)                |
 * |                   | with expected_n (a gap g): Max 1..15 and K 1..10, each with P of  |                                     |
 * |                   | eq. 17, minimising eq. 16 at g (plan.c sbf_choose)                |                                     |
 * | rsbf              | k = round(mean(1, ln FPR_t / ln(1 - 1/e))) (000 eq. 6.1); p*=0.03 | (1 - 1/e)^k (load at i = s)         |
 * | bsbf              | k = 2 (000 §6)                                                   | (1/2)^k, saturated load 1/2         |
 * | bsbfsd            | k = 2                                                            | (k/(k+1))^k, saturated load k/(k+1) |
 * | rlbsbf            | k = 2                                                            | x^k, x^2 = 1 - x (x = 0.618)        |
 * | qht               | b, f with b/(2^f-1) <= target, lowest predicted FNR              | b/(2^f-1) (004 §4.3)                |
 * | qhtd, qqhtd       | as qht with 1-(1-1/(2^f-1))^b <= target                           | 1-(1-1/(2^f-1))^b (004 §5)          |
 * | bloom, timerbf    | k = round(m/n ln 2) for n = expected_n, else k = ceil(log2 1/p)   | (1-e^(-kn/m))^k at n (or capacity)  |
 * | lru               | B = M / 64 bits                                                   | 0                                   |
 * | fpbuffering       | q = target                                                        | q                                   |
 * | exact             | -                                                                 | 0                                   |
 * | qhtlru            | b, f: most lanes of a 64-byte line (b * f <= 512) meeting target  | 1-(1-1/(2^f-1))^b (every lane live) |
 * | qhtlru + window   | b, f: of the most lanes per f (14 up to 26 bits, 7 up to 32), the  | 1-(1-1/(2^f-1))^b (every lane live) |
 * |                   | lowest predicted FNR: rows' and the ages' window edge              |                                     |
 *
 * The bit-array filters' saturated loads come from balancing the expected sets and
 * resets per inserted key (see docs/filters.md); they hold for an unbounded stream of
 * distinct keys, and a shorter stream sees a lower FPR.
 */
#ifndef PKTDEDUP_PD_PLAN_H
#define PKTDEDUP_PD_PLAN_H

#include <pktdedup/pd_filter.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A plan: resolved parameters and the FPR the papers predict for them. */
struct pd_plan {
	struct pd_filter_params params; /**< every tunable field filled in */
	double predicted_fpr;           /**< see the table above */
	const char *basis;              /**< where predicted_fpr comes from, e.g. "eq. 8" */
	/** bloom/timerbf: keys (in window) at which the FPR reaches the target; else 0. */
	uint64_t capacity;
	/**
	 * How many recent distinct keys the state can remember, so that a copy arriving
	 * within that many keys of its original is caught: the slots (qht family: rows * b;
	 * lru, fpbuffering: B), the capacity (bloom, timerbf), or for filters that forget by
	 * decay the mean lifetime of a key's mark in keys (sbf: Max * m / P; bsbf, rsbf,
	 * rlbsbf: s bits per array; bsbfsd: k * s). 0: unbounded (exact).
	 */
	uint64_t remembers;
	/**
	 * qht family: the gap the miss rate is predicted at, in keys between a key and its
	 * copy (expected_n when given, else half the buckets of the densest shape meeting
	 * the target), and the predicted share of copies at that gap let through
	 * (docs/filters.md, "The planner's miss model"); 0 for the other filters.
	 */
	uint64_t assumed_gap;
	double predicted_fnr;
};

/**
 * Resolve the zero fields of *in (memory_bytes must be set, except for exact), validate
 * every field, and predict the FPR.
 * @return 0, or -1 with *err naming the field at fault.
 */
PD_API
int pd_plan(const struct pd_filter_params *in, struct pd_plan *out, struct pd_error *err);

/**
 * Bytes a filter made from @p plan allocates for its state, zeroed as it is made: what
 * pd_filter_stats() then reports as footprint_bytes, or a little more. memory_bytes for
 * every filter but lru and fpbuffering, whose memory counts 64 bits a key as the paper
 * does and whose 16-byte nodes and index take 4 times that, and exact, which starts
 * small and grows with its keys (0 here). For an application that checks what it will
 * allocate against what the machine has.
 */
PD_API
uint64_t pd_plan_footprint(const struct pd_plan *plan);

/**
 * Create a filter from a plan pd_plan() made: an application that plans once (to check
 * and report the plan) hands the same plan to each of its filters. plan->params are
 * checked by planning them again, which gives back what pd_plan() made unchanged (about
 * 30 us for the qht family, less for the others), so a plan changed by its caller is
 * refused ("plan: " and the field at fault) or, for a field set to 0, filled in as
 * pd_plan() would. pd_filter_create(params) is pd_plan(params) then this.
 * @return the filter, or NULL with *err (a NULL plan, a type that is no filter, a field
 *         out of range, or what the filter's constructor refuses: memory).
 */
PD_API
struct pd_filter *pd_filter_create_planned(const struct pd_plan *plan, struct pd_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PKTDEDUP_PD_PLAN_H */
