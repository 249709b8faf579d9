/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A live estimate of a filter's error rates: an exact shadow of a hash-chosen sample of
 * the keys (docs/estimate.md).
 *
 * A key is sampled when its level, the number of leading zero bits of its 64-bit hash
 * rotated left by 44 (bits 19, 18, ... of the hash: bits the filters' row and position
 * choices, taken from the top bits, do not use), is at least s: a fraction 2^-s of the
 * keys, every copy of a sampled key sampled too. For sampled keys an exact set of hashes and times, with the
 * filter's window semantics, gives the true verdict; comparing it with the filter's
 * verdict counts, per level, true and false DISTINCT and DUPLICATE verdicts.
 *
 * The set has a fixed number of entries. When a key finds no room, s goes up by one and
 * the keys of the levels below it leave the set: the keys still sampled were sampled
 * from their first copy, so their counts stay exact, and the counts of the levels that
 * left are no longer reported. The sample is thus unbiased at every moment, at a rate
 * that halves whenever the distinct sampled keys outgrow the set.
 *
 * FPR = FP / (FP + TN) (unique packets dropped as copies), FNR = FN / (FN + TP) (copies
 * let through), with 95% intervals (pd_estimate_rates). The verdicts on the copies of
 * one key are not independent (a key whose row was lost misses all its later copies),
 * so each sampled key also keeps its own counts, and the interval is the Wilson score
 * interval at an effective sample size: the count divided by the design effect, the
 * ratio of the cluster-robust variance (keys as clusters) to the binomial one. With no
 * error or only errors seen, the effective size is the number of keys (all copies of a
 * key count as one trial).
 */
#ifndef PD_ESTIMATE_H
#define PD_ESTIMATE_H

#include <stdint.h>

#include "pd_export.h"
#include "pd_filter.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PD_ESTIMATE_LEVELS 64

struct pd_estimate;

/** The counts over the levels reported, and the sampling level they come from. */
struct pd_estimate_counts {
	unsigned level;   /**< keys of level >= this one: a share 2^-level of all keys */
	uint64_t tn;      /**< unique, DISTINCT */
	uint64_t fp;      /**< unique, DUPLICATE: a unique packet the filter would drop */
	uint64_t fn;      /**< copy, DISTINCT: a copy the filter lets through */
	uint64_t tp;      /**< copy, DUPLICATE */
	uint64_t keys;    /**< distinct sampled keys in the set now */
	/** Per-key sums for the intervals, over the keys' clusters: u unique packets and y
	 * of them FP, c copies and x of them FN: sums of u^2, y^2, y*u, c^2, x^2, x*c. */
	double uu, yy, yu, cc, xx, xc;
	uint64_t unique_keys, copy_keys; /**< keys with a unique packet, with a copy */
};

/** The rates and their 95% intervals. */
struct pd_estimate_rates {
	double fpr, fpr_lo, fpr_hi;
	double fnr, fnr_lo, fnr_hi;
};

/**
 * @param level    initial s: a share 2^-level of the keys is sampled (0: all)
 * @param entries  the set's size, rounded up to a multiple of 4 (a 64-byte line holds
 *                 4 entries of 16 bytes); at least 4
 * @param window   the filter's window in its time unit (0: none)
 * @param mode     its window mode
 * @return NULL on a bad argument or no memory
 */
PD_API
struct pd_estimate *pd_estimate_create(unsigned level, uint64_t entries, uint64_t window,
	enum pd_window_mode mode);
PD_API
void pd_estimate_free(struct pd_estimate *e);
/** Bytes the set and counters take. */
PD_API
uint64_t pd_estimate_footprint(const struct pd_estimate *e);

/** The bijection whose leading zeros are a key's level. */
static inline uint64_t pd_estimate_mix(uint64_t h)
{
	return (h << 44) | (h >> 20);
}

/** The largest mixed value still sampled at level s. */
static inline uint64_t pd_estimate_limit(unsigned s)
{
	return s == 0 ? UINT64_MAX : s >= 64 ? 0 : (UINT64_C(1) << (64 - s)) - 1;
}

/**
 * Compare n verdicts v of the filter with the truth for the sampled keys among hashes h
 * (times ts, NULL without a window). Unsampled keys are skipped 4 at a time with AVX2
 * where the CPU has it (chosen at create time), one at a time otherwise.
 */
PD_API
void pd_estimate_observe(struct pd_estimate *e, const uint64_t *h, const uint64_t *ts,
	const uint8_t *v, unsigned n);

/** The current sampling level s. */
PD_API
unsigned pd_estimate_level(const struct pd_estimate *e);

/**
 * Counts of the keys of level >= max(level, s): pass 0 for this estimator's own, or the
 * highest s over several estimators (workers) to add them up at one rate.
 */
PD_API
void pd_estimate_counts(const struct pd_estimate *e, unsigned level,
	struct pd_estimate_counts *out);

/** Adds the counts of c into sum (several workers' counts at one level). */
PD_API
void pd_estimate_counts_add(struct pd_estimate_counts *sum, const struct pd_estimate_counts *c);

/**
 * The counts of n estimators (one per worker, each with its share of the keys) added at
 * the highest sampling level any of them reached, so that every one contributes the
 * same share 2^-level of its keys; out->level says which.
 */
PD_API
void pd_estimate_combine(const struct pd_estimate *const *e, unsigned n,
	struct pd_estimate_counts *out);

/** x of n as a rate with its 95% Wilson score interval; 0, 0, 1 when n = 0. x and n
 * may be effective (not whole) counts. */
PD_API
void pd_estimate_interval(double x, double n, double *rate, double *lo, double *hi);

/** x of n, from k clusters whose sums are nn, xx, xn: the Wilson interval at the
 * effective size n / deff, or k when x is 0 or n (see the file comment). */
PD_API
void pd_estimate_interval_clustered(uint64_t x, uint64_t n, uint64_t k, double nn,
	double xx, double xn, double *rate, double *lo, double *hi);

/**
 * The estimator's state (its sampling level, per-level counts and the set) as an image,
 * so that it survives a restart beside its filter's: without it, the first copy after
 * a restart of every key the restored filter remembers would count as a false positive.
 * pd_estimate_save_state writes pd_estimate_state_size() bytes (-1 if cap is smaller);
 * pd_estimate_load_state takes an image into an estimator made with the same number of
 * entries and window: 0, or -1 and err (PD_ECORRUPT, PD_EMISMATCH) with the estimator
 * unchanged. The level becomes the higher of the two; entries below it are left out.
 */
#define PD_ESTIMATE_STATE_MAGIC "PDESTIM1" /**< an estimate image's first 8 bytes */
PD_API
uint64_t pd_estimate_state_size(const struct pd_estimate *e);
PD_API
int64_t pd_estimate_save_state(const struct pd_estimate *e, void *buf, uint64_t cap);
PD_API
int pd_estimate_load_state(struct pd_estimate *e, const void *buf, uint64_t len,
	struct pd_error *err);

/** FPR and FNR of counts, with their intervals. */
PD_API
void pd_estimate_rates(const struct pd_estimate_counts *c, struct pd_estimate_rates *r);

#ifdef __cplusplus
}
#endif

#endif
