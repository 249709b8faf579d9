/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The planner (pd_plan.h): papers' parameter rules, validation, predicted FPR.
 *
 * The papers by their seed numbers (docs/filters.md, "Papers"): 000 = Bera, Dutta, Narang
 * and Bhattacherjee, "Advanced Bloom filter based algorithms for efficient approximate data
 * de-duplication in streams"; 001 = Deng and Rafiei, "Approximately detecting duplicates
 * for streaming data using stable Bloom filters"; 004 = Geraud, Lombard-Platet and
 * Naccache, "Quotient hash tables: efficiently detecting duplicates in streaming data".
 * ALGORITHMS.md is the project's specification, which follows them.
 */
#include <math.h>

#include <pktdedup/pd_plan.h>

#include "filter_private.h"
#include "rows.h"
#include "plan_private.h"


double pd_sbf_fps(double max, double k, double p, double m)
{
	return pow(1.0 - pow(1.0 / (1.0 + 1.0 / (p * (1.0 / k - 1.0 / m))), max), k);
}

double pd_sbf_p_for_fps(double fps, double max, double k, double m)
{
	return 1.0 / ((1.0 / pow(1.0 - pow(fps, 1.0 / k), 1.0 / max) - 1.0) * (1.0 / k - 1.0 / m));
}

/* P(X >= max) for X ~ Binomial(l, p), summed from the tail (no cancellation). */
static double binom_tail(unsigned l, unsigned max, double p)
{
	double sum = 0.0;

	if (max > l)
		return 0.0;
	if (max == 1)
		return -expm1((double)l * log1p(-p));
	for (unsigned j = max; j <= l; j++)
		sum += exp(lgamma(l + 1.0) - lgamma(j + 1.0) - lgamma(l - j + 1.0) +
			   j * log(p) + (l - j) * log1p(-p));
	return sum;
}

/*
 * 001 eqs. 9-13: probability that a cell is 0 delta iterations after it was set to Max,
 * when each iteration decrements it with probability p and sets it to Max with
 * probability kcell. A_l: the last set to Max happened l iterations before (l >= Max).
 */
static double sbf_pr0(unsigned max, double p, double kcell, unsigned delta)
{
	double pr = 0.0;

	for (unsigned l = max; l < delta; l++)
		pr += binom_tail(l, max, p) * pow(1.0 - kcell, l) * kcell; /* eqs. 10-11 */
	pr += binom_tail(delta, max, p) * pow(1.0 - kcell, delta);   /* eqs. 12-13 */
	return pr;
}

double pd_sbf_fnr(unsigned max, unsigned k, double p, double kcell, unsigned delta)
{
	/* eq. 16, 1 - (1 - PR0)^K, in a form that keeps tiny PR0 (large m) accurate */
	return -expm1(k * log1p(-sbf_pr0(max, p, kcell, delta)));
}

unsigned pd_sbf_best_k(unsigned max, double fps, double m)
{
	/* 001 §4.1: "set phi, delta and f/N to some testing values (e.g. 0, 200, 0.00001)" */
	const double f_n = 1e-5;
	const unsigned delta = 200;
	unsigned best = 1;
	double best_fnr = INFINITY;

	for (unsigned k = 1; k <= 10; k++) {
		double P = pd_sbf_p_for_fps(fps, max, k, m);
		double kcell = f_n + (k / m) * (1.0 - f_n); /* mean of k_i, eq. 18 with phi = 0 */
		double fnr;

		if (!(P > 0) || !isfinite(P) || P > m)
			continue;
		fnr = pd_sbf_fnr(max, k, P / m, kcell, delta);
		if (fnr < best_fnr) {
			best_fnr = fnr;
			best = k;
		}
	}
	return best;
}

static double qht_fpr(enum pd_filter_type type, unsigned b, unsigned f)
{
	double S = ldexp(1.0, (int)f) - 1.0;

	if (type == PD_FILTER_QHT)
		return b / S; /* 004 §4.3 */
	return -expm1(b * log1p(-1.0 / S)); /* 1 - (1 - 1/S)^b, 004 §5 */
}

static unsigned qht_min_f(enum pd_filter_type type, unsigned b, double target)
{
	for (unsigned f = 1; f <= 32; f++)
		if (qht_fpr(type, b, f) <= target)
			return f;
	return 0;
}

/*
 * Windowed qqhtd (qqhtdw.c): f is 16 or 32 with at most 14 or 7 buckets in a 64-byte row.
 * Unset fields: f = 16 when some b meets the target, else 32; b the most that meet it (a
 * row then remembers the most copies within the window). The predicted FPR is the
 * unwindowed one, 1-(1-1/S)^b: the value with every bucket live; expired buckets only
 * lower it.
 */
static int qqhtdw_plan(struct pd_filter_params *p, double target, struct pd_error *err)
{
	if (p->qht_f != 0 && p->qht_f != 16 && p->qht_f != 32)
		return pd_err(err, PD_EINVAL,
			      "qht_f: %u; a windowed qqhtd stores 16- or 32-bit fingerprints",
			      p->qht_f);
	if (p->qht_b > 14 || (p->qht_f == 32 && p->qht_b > 7))
		return pd_err(err, PD_EINVAL,
			      "qht_b: %u; a windowed qqhtd row holds at most 14 buckets of 16 "
			      "bits or 7 of 32 bits", p->qht_b);
	if (p->qht_f == 0) /* b above 7 fits only 16-bit entries */
		p->qht_f = p->qht_b > 7 ||
			   qht_fpr(PD_FILTER_QQHTD, p->qht_b ? p->qht_b : 1, 16) <= target ? 16 : 32;
	if (p->qht_b == 0) {
		p->qht_b = 1;
		while (p->qht_b < pd_rowage_max_b(p->qht_f) &&
		       qht_fpr(PD_FILTER_QQHTD, p->qht_b + 1, p->qht_f) <= target)
			p->qht_b++;
	}
	if (p->qht_b < 1)
		return pd_err(err, PD_EINVAL, "qht_b: 0 buckets");
	if (p->memory_bytes < 64)
		return pd_err(err, PD_EINVAL, "memory_bytes: %llu holds no row of 64 bytes",
			      (unsigned long long)p->memory_bytes);
	return 0;
}

/* P(X >= b) for X ~ Poisson(lam): from the tail when it is small (no cancellation). */
static double pois_tail(double lam, unsigned b)
{
	double term, sum = 0.0;

	if (b == 0)
		return 1.0;
	if (lam <= 0.0)
		return 0.0;
	if (lam >= b) {
		term = exp(-lam);
		for (unsigned j = 0; j < b; j++) {
			sum += term;
			term *= lam / (j + 1);
		}
		return sum >= 1.0 ? 0.0 : 1.0 - sum;
	}
	term = exp(-lam + b * log(lam) - lgamma(b + 1.0));
	for (unsigned j = b; term > 1e-300 && term > sum * 1e-17; j++) {
		sum += term;
		term *= lam / (j + 1);
	}
	return sum;
}

/*
 * Miss rates (docs/filters.md, "The planner's miss model"). A copy comes g keys after
 * its original; the rows are n, so each of those keys lands in the original's row with
 * probability 1/n: X ~ Poisson(lam), lam = g / n, of them do.
 *   FIFO rows (qqhtd): every key pushes one fingerprint out: missed iff X >= b.
 *   LRU rows (qhtlru): every other key touched moves above it (a hit moves its key to the
 *     newest place, a miss inserts): missed iff X >= b, with g counting a key once.
 *   Random replacement (qht, qhtd) in full rows (a long-running filter): a key that
 *     inserts evicts the original with probability 1/b. qhtd inserts every key; qht only
 *     a key it does not find: new keys, assumed half of the g, and keys seen before whose
 *     fingerprint was evicted, about 1/b of the other half (the original's own insertion
 *     evicted one of the row's b). Missed: 1 - exp(-lam * i / b) with i = 1 (qhtd) or
 *     (1 + 1/b) / 2 (qht).
 */
double pd_qht_fnr(enum pd_filter_type type, unsigned b, double lam)
{
	if (type == PD_FILTER_QQHTD || type == PD_FILTER_QHTLRU)
		return pois_tail(lam, b);
	double miss = 0.0;

	if (type == PD_FILTER_QHTD)
		return -expm1(-lam / b);
	/* qht: the fixed point of miss = 1 - exp(-lam (1 + miss) / (2b)), a contraction
	 * (slope at most 1/e): 30 steps leave less than 1e-13 */
	for (int i = 0; i < 30; i++)
		miss = -expm1(-lam * (1.0 + miss) / (2.0 * b));
	return miss;
}

/* Half the buckets of the densest packed shape meeting the target with qqhtd's FPR (the
 * planner's gap when none is given, the same for every qht-family filter). */
static uint64_t qht_default_gap(double target, uint64_t lines)
{
	uint64_t most = 0;

	for (unsigned b = 1; b <= 64; b++) {
		unsigned f = qht_min_f(PD_FILTER_QQHTD, b, target);
		uint64_t slots = f != 0 ? lines * pd_qht_rows_per_line(b, f) * b : 0;

		most = slots > most ? slots : most;
	}
	return most / 2 > 0 ? most / 2 : 1;
}

/*
 * SBF's PR0 (001 eqs. 9-13, sbf_pr0 above) at a gap of delta keys, for the planner's
 * --expected-n: the binomial tails in their Poisson form (p = P/m is small), and above
 * 4096 keys the sum over l taken at 4096 midpoints, each standing for its share of the
 * span (its terms change on scales of 1/p and 1/kcell keys, the cells' lifetime, far
 * above a step when the memory holds the gap).
 */
static double sbf_pr0_gap(unsigned max, double p, double kcell, uint64_t delta)
{
	const uint64_t span = delta > max ? delta - max : 0;
	const uint64_t steps = span < 4096 ? span : 4096;
	const double step = steps != 0 ? (double)span / (double)steps : 0.0;
	double pr = 0.0;

	for (uint64_t j = 0; j < steps; j++) {
		const double l = max + (span <= 4096 ? (double)j : (j + 0.5) * step);

		pr += pois_tail(l * p, max) * exp(l * log1p(-kcell)) * kcell * (span <= 4096 ? 1 : step);
	}
	return pr + pois_tail((double)delta * p, max) * exp((double)delta * log1p(-kcell));
}

/* SBF's miss rate at a gap (eq. 16): every cell of the copy must still be above 0. Each
 * key decrements a cell with probability P/m and sets it to Max with K/m. */
static double sbf_fnr_gap(unsigned max, unsigned k, unsigned P, double m, uint64_t gap)
{
	return -expm1(k * log1p(-sbf_pr0_gap(max, P / m, k / m, gap)));
}

/* Cells of an SBF with counters up to max in memory bytes: d-bit cells, floor(64/d) per
 * word (sbf.c). */
static double sbf_cells(uint64_t memory, unsigned max)
{
	unsigned d = 0;

	while ((1u << d) - 1 < max)
		d++;
	return (double)(memory / 8) * (64 / d);
}

/* The smallest whole P keeping eq. 8 at or below the target (ceil of eq. 17: a whole P
 * at or above it keeps FPS at or below the target), or 0 when that is more than m. */
static unsigned sbf_p_for(double target, unsigned max, unsigned k, double m)
{
	double P = ceil(pd_sbf_p_for_fps(target, max, k, m) - 1e-9);

	if (!(P >= 1.0))
		P = 1.0;
	return P > m || !isfinite(P) ? 0 : (unsigned)P;
}

/*
 * SBF with a gap (--expected-n): the unset of Max (1..15) and K (1..10), each with its P
 * from the target unless P is given, with the lowest miss rate at the gap (ties: the
 * smaller Max, then K: the paper's choices).
 */
static void sbf_choose(struct pd_filter_params *p, double target, uint64_t gap)
{
	double best = 2.0;
	unsigned bmax = p->sbf_max, bk = p->k;

	/* 64-bit counters: a given value of UINT32_MAX (a hostile snapshot) ends the loop
	 * instead of wrapping it around to 0 */
	for (uint64_t mx = p->sbf_max ? p->sbf_max : 1; mx <= (p->sbf_max ? p->sbf_max : 15); mx++)
		for (uint64_t kk = p->k ? p->k : 1; kk <= (p->k ? p->k : 10); kk++) {
			const unsigned max = (unsigned)mx, k = (unsigned)kk;
			const double m = sbf_cells(p->memory_bytes, max);
			const unsigned P = p->sbf_p ? p->sbf_p : sbf_p_for(target, max, k, m);
			double miss;

			if (P == 0 || P > m || pd_sbf_fps(max, k, P, m) > target * (1 + 1e-9))
				continue;
			miss = sbf_fnr_gap(max, k, P, m, gap);
			if (miss < best) {
				best = miss;
				bmax = max;
				bk = k;
			}
		}
	p->sbf_max = bmax;
	p->k = bk;
}

/*
 * Windowed rows (qqhtdw.c) keep ages of A bits in units of 2^s ns and match a gap of at
 * most W_units units (pd_window_units): a copy whose gap lies in the last unit or two of
 * the window may be missed. With gaps spread evenly over the window, the fraction missed
 * is about 1 - (W_units + 1/2) * 2^s / W (0 when s = 0: whole ns, exact).
 */
static double rowage_edge(uint64_t window, unsigned f)
{
	const unsigned s = pd_window_shift(window, pd_rowage_age_bits(f));
	double kept;

	if (window == 0 || s == 0)
		return 0.0;
	kept = ((double)pd_window_units(window, s) + 0.5) * ldexp(1.0, (int)s) / (double)window;
	return kept >= 1.0 ? 0.0 : 1.0 - kept;
}

/* A row filter's predicted miss rate at lam = gap / rows: the rows' (pd_qht_fnr), and for
 * windowed rows also the window's edge (rowage_edge), independent of each other. */
static double rows_fnr(enum pd_filter_type type, unsigned b, unsigned f, double lam,
		       uint64_t window)
{
	const double edge = window != 0 ? rowage_edge(window, f) : 0.0;

	return 1.0 - (1.0 - pd_qht_fnr(type, b, lam)) * (1.0 - edge);
}

/*
 * qhtlru: how many lanes of f bits a 64-byte row holds. Unwindowed (qhtlru.c): b * f <= 512,
 * b <= 64. Windowed (qqhtdw.c, each lane with an age): 14 of up to 26 bits, 7 of up to 32.
 */
static unsigned qhtlru_lanes(unsigned f, bool windowed)
{
	if (f < 1 || f > 32)
		return 0;
	if (windowed)
		return pd_rowage_max_b(f);
	return 512 / f < 64 ? 512 / f : 64;
}

/*
 * qhtlru. Unset fields: for each f the most lanes a row holds with 1-(1-1/(2^f-1))^b <=
 * target, and of those the shape with the lowest predicted miss rate at the gap (rows_fnr:
 * unwindowed, the most lanes; ties: the smaller f); a given f takes the most lanes that
 * meet the target, a given b the smallest f that does.
 */
static int qhtlru_plan(struct pd_filter_params *p, double target, uint64_t gap,
		       struct pd_error *err)
{
	const bool w = p->window != 0;
	const double lam = (double)gap / (double)(p->memory_bytes / 64 ? p->memory_bytes / 64 : 1);
	double best = 2.0;

	if (p->qht_f > 32)
		return pd_err(err, PD_EINVAL, "qht_f: %u is out of range 1..32", p->qht_f);
	if (p->qht_b > (w ? 14u : 64u) && p->qht_f == 0) /* no f to name yet */
		return pd_err(err, PD_EINVAL, "qht_b: %u is out of range 1..%u%s", p->qht_b,
			      w ? 14u : 64u, w ? " (a windowed row)" : "");
	if (p->qht_b > 64 || (p->qht_f != 0 && p->qht_b > qhtlru_lanes(p->qht_f, w)))
		return pd_err(err, PD_EINVAL, w ? "qht_b: %u lanes of %u bits do not fit in a "
			      "windowed 64-byte row (at most 14 of up to 26 bits or 7 of up to 32)" :
			      "qht_b: %u lanes of %u bits do not fit in a 64-byte row (b * f <= "
			      "512, b <= 64)", p->qht_b, p->qht_f);
	if (p->qht_b == 0 && p->qht_f == 0) {
		for (unsigned f = 1; f <= 32; f++) {
			unsigned b = qhtlru_lanes(f, w);
			double miss;

			while (b > 0 && qht_fpr(PD_FILTER_QQHTD, b, f) > target)
				b--;
			miss = b > 0 ? rows_fnr(PD_FILTER_QHTLRU, b, f, lam, p->window) : 2.0;
			if (miss < best || (miss == best && b > p->qht_b)) {
				best = miss;
				p->qht_b = b;
				p->qht_f = f;
			}
		}
	} else if (p->qht_b == 0) {
		p->qht_b = qhtlru_lanes(p->qht_f, w);
		while (p->qht_b > 1 && qht_fpr(PD_FILTER_QQHTD, p->qht_b, p->qht_f) > target)
			p->qht_b--;
	} else if (p->qht_f == 0) {
		p->qht_f = qht_min_f(PD_FILTER_QQHTD, p->qht_b, target);
		if (p->qht_f == 0 || p->qht_b > qhtlru_lanes(p->qht_f, w)) /* the widest that fits */
			for (p->qht_f = 32; p->qht_f > 0 && p->qht_b > qhtlru_lanes(p->qht_f, w);)
				p->qht_f--;
	}
	if (p->qht_b == 0 || p->qht_f == 0)
		return pd_err(err, PD_EINVAL, w ? "qht_b, qht_f: no windowed row of 64 bytes meets "
			      "the target %g" : "qht_b, qht_f: no row of 64 bytes meets the target %g",
			      target);
	if (p->memory_bytes < 64)
		return pd_err(err, PD_EINVAL, "memory_bytes: %llu holds no row of 64 bytes",
			      (unsigned long long)p->memory_bytes);
	return 0;
}

/*
 * The shape (b, f) for the qht family with both unset: for each b the smallest f meeting
 * the target, then the b whose predicted miss rate at the gap is lowest (ties: more
 * buckets per line).
 */
static void qht_choose(enum pd_filter_type type, double target, uint64_t lines, uint64_t gap,
		       unsigned *bp, unsigned *fp)
{
	double best = 2.0;
	unsigned best_slots = 0;

	*bp = 1;
	*fp = 32;
	for (unsigned b = 1; b <= 64; b++) {
		unsigned f = qht_min_f(type, b, target);
		unsigned rpl = f != 0 ? pd_qht_rows_per_line(b, f) : 0;
		double miss;

		if (rpl == 0)
			continue;
		miss = pd_qht_fnr(type, b, (double)gap / ((double)lines * rpl));
		if (miss < best * (1.0 - 1e-9) || (miss <= best && rpl * b > best_slots)) {
			best = miss;
			best_slots = rpl * b;
			*bp = b;
			*fp = f;
		}
	}
}

static unsigned bloom_k(uint64_t m, uint64_t n, double target)
{
	double k = n != 0 ? round((double)m / (double)n * M_LN2) : ceil(-log2(target));

	if (k < 1)
		k = 1;
	if (k > PD_MAX_HASHES)
		k = PD_MAX_HASHES;
	return (unsigned)k;
}

/* Keys a Bloom filter of m bits and k hashes holds before its FPR reaches target. */
static uint64_t bloom_capacity(uint64_t m, unsigned k, double target)
{
	double n = -(double)m / k * log1p(-pow(target, 1.0 / k));

	return n < 1 ? 1 : (uint64_t)n;
}

static double bloom_fpr(uint64_t m, unsigned k, uint64_t n)
{
	return pow(-expm1(-(double)k * (double)n / (double)m), k);
}

static int check_k(const struct pd_filter_params *p, struct pd_error *err)
{
	if (p->k < 1 || p->k > PD_MAX_HASHES)
		return pd_err(err, PD_EINVAL, "k: %u is out of range 1..%u for %s", p->k,
			      PD_MAX_HASHES, pd_filter_type_name(p->type));
	return 0;
}

/* SBF: Max and K for the gap when given (001 eqs. 9-16), P from eq. 17. */
int pd_plan_sbf(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err)
{
	const double target = p->target_fpr;
	double m;

	if (p->expected_n != 0 && (p->sbf_max == 0 || p->k == 0) && p->sbf_max <= 255)
		sbf_choose(p, target, p->expected_n);
	if (p->sbf_max == 0)
		p->sbf_max = 1; /* 001 §4.1: without knowledge of the gaps, Max = 1 */
	if (p->sbf_max > 255)
		return pd_err(err, PD_EINVAL, "sbf_max: %u is out of range 1..255",
			      p->sbf_max);
	m = sbf_cells(p->memory_bytes, p->sbf_max);
	if (p->k == 0)
		p->k = pd_sbf_best_k(p->sbf_max, target, m);
	if (check_k(p, err) != 0)
		return -1;
	if (p->sbf_p == 0) {
		p->sbf_p = sbf_p_for(target, p->sbf_max, p->k, m);
		if (p->sbf_p == 0)
			return pd_err(err, PD_EINVAL,
				      "sbf_p: eq. 17 asks for P = %.0f, more than the %.0f "
				      "cells; give more memory or a higher target_fpr",
				      ceil(pd_sbf_p_for_fps(target, p->sbf_max, p->k, m) - 1e-9),
				      m);
	}
	if (p->sbf_p > m)
		return pd_err(err, PD_EINVAL, "sbf_p: %u exceeds the %.0f cells", p->sbf_p,
			      m);
	out->predicted_fpr = pd_sbf_fps(p->sbf_max, p->k, p->sbf_p, m);
	out->basis = "stable point, 001 eq. 8";
	out->remembers = (uint64_t)(p->sbf_max * m / p->sbf_p);
	if (p->expected_n != 0) {
		out->assumed_gap = p->expected_n;
		out->predicted_fnr = sbf_fnr_gap(p->sbf_max, p->k, p->sbf_p, m, p->expected_n);
	}
	return 0;
}

/* Bit-array filters need one word per array. */
static int check_arrays(const struct pd_filter_params *p, struct pd_error *err)
{
	if (p->memory_bytes / 8 < p->k)
		return pd_err(err, PD_EINVAL, "memory_bytes: %llu is too small for k = %u arrays",
			      (unsigned long long)p->memory_bytes, p->k);
	return 0;
}

/* RSBF: k for the target at load 1 - 1/e (000 §6.1), p* 0.03. */
int pd_plan_rsbf(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err)
{
	const double target = p->target_fpr;

	if (p->k == 0) {
		double k = round((1.0 + log(target) / log(1.0 - exp(-1.0))) / 2.0);

		p->k = k < 1 ? 1 : k > PD_MAX_HASHES ? PD_MAX_HASHES : (uint32_t)k;
	}
	if (p->rsbf_pstar == 0.0)
		p->rsbf_pstar = 0.03;
	if (!(p->rsbf_pstar > 0.0 && p->rsbf_pstar <= 1.0))
		return pd_err(err, PD_EINVAL, "rsbf_pstar: %g is not in (0, 1]",
			      p->rsbf_pstar);
	if (check_k(p, err) != 0)
		return -1;
	out->predicted_fpr = pow(1.0 - exp(-1.0), p->k);
	out->basis = "load 1-1/e per array at i = s, 000 eq. 6.1";
	out->remembers = p->memory_bytes / 8 / p->k * 64;
	return check_arrays(p, err);
}

/* BSBF, BSBFSD, RLBSBF: k = 2 (000 §6), the saturated load's FPR. */
int pd_plan_bitarrays(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err)
{
	double x;

	if (p->k == 0)
		p->k = 2; /* 000 §6 */
	if (check_k(p, err) != 0)
		return -1;
	if (p->type == PD_FILTER_BSBF)
		x = 0.5;
	else if (p->type == PD_FILTER_BSBFSD)
		x = (double)p->k / (p->k + 1.0);
	else
		x = (sqrt(5.0) - 1.0) / 2.0;
	out->predicted_fpr = pow(x, p->k);
	out->basis = "saturated load (unbounded distinct stream)";
	/* a set bit lives s keys when every key resets one bit of its array; bsbfsd
	 * resets in one array of k */
	out->remembers = p->memory_bytes / 8 / p->k * 64 *
			 (p->type == PD_FILTER_BSBFSD ? p->k : 1);
	return check_arrays(p, err);
}

/* qht, qhtd, qqhtd: (b, f) with the fewest predicted misses within the target (004). */
int pd_plan_qht(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err)
{
	const double target = p->target_fpr;
	uint64_t gap, rows;

	if (p->type == PD_FILTER_QQHTD && p->window != 0) {
		if (qqhtdw_plan(p, target, err) != 0)
			return -1;
		out->predicted_fpr = qht_fpr(p->type, p->qht_b, p->qht_f);
		out->basis = "every bucket live: 1-(1-1/(2^f-1))^b, 004 §5";
		out->remembers = p->memory_bytes / 64 * p->qht_b; /* one line a row */
		out->assumed_gap = p->expected_n != 0 ? p->expected_n :
			qht_default_gap(target, p->memory_bytes / 64);
		out->predicted_fnr = rows_fnr(p->type, p->qht_b, p->qht_f,
					      (double)out->assumed_gap /
					      (double)(p->memory_bytes / 64), p->window);
		return 0;
	}
	gap = p->expected_n != 0 ? p->expected_n :
				  qht_default_gap(target, p->memory_bytes / 64);
	if (p->qht_b == 0 && p->qht_f == 0) {
		qht_choose(p->type, target, p->memory_bytes / 64, gap, &p->qht_b, &p->qht_f);
	} else if (p->qht_f == 0) {
		if (p->qht_b > 64)
			return pd_err(err, PD_EINVAL, "qht_b: %u is out of range 1..64",
				      p->qht_b);
		p->qht_f = qht_min_f(p->type, p->qht_b, target);
		if (p->qht_f == 0)
			p->qht_f = 32;
	} else if (p->qht_b == 0) {
		if (p->qht_f > 32)
			return pd_err(err, PD_EINVAL, "qht_f: %u is out of range 1..32",
				      p->qht_f);
		p->qht_b = 1;
		while (p->qht_b < 64 && qht_fpr(p->type, p->qht_b + 1, p->qht_f) <= target &&
		       pd_qht_rows_per_line(p->qht_b + 1, p->qht_f) != 0)
			p->qht_b++;
	}
	if (p->qht_b < 1 || p->qht_b > 64)
		return pd_err(err, PD_EINVAL, "qht_b: %u is out of range 1..64", p->qht_b);
	if (p->qht_f < 1 || p->qht_f > 32)
		return pd_err(err, PD_EINVAL, "qht_f: %u is out of range 1..32", p->qht_f);
	if (pd_qht_rows_per_line(p->qht_b, p->qht_f) == 0)
		return pd_err(err, PD_EINVAL,
			      "qht_b, qht_f: a row of %u buckets of %u bits needs more than "
			      "one 64-byte cache line (b * f <= 512: at most %u buckets of %u "
			      "bits)", p->qht_b, p->qht_f, 512 / p->qht_f, p->qht_f);
	rows = p->memory_bytes / 64 * pd_qht_rows_per_line(p->qht_b, p->qht_f);
	out->predicted_fpr = qht_fpr(p->type, p->qht_b, p->qht_f);
	out->basis = p->type == PD_FILTER_QHT ? "asymptotic b/(2^f-1), 004 §4.3" :
					       "asymptotic 1-(1-1/(2^f-1))^b, 004 §5";
	out->remembers = rows * p->qht_b;
	out->assumed_gap = gap;
	out->predicted_fnr = pd_qht_fnr(p->type, p->qht_b, (double)gap / (double)rows);
	return 0;
}

/* Bloom and timing Bloom filters: k for the expected keys, the capacity at the target. */
int pd_plan_bloom(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err)
{
	const double target = p->target_fpr;
	const uint64_t m = p->type == PD_FILTER_BLOOM ? p->memory_bytes / 8 * 64 : p->memory_bytes / 4;

	if (p->k == 0)
		p->k = bloom_k(m, p->expected_n, target);
	if (check_k(p, err) != 0)
		return -1;
	out->capacity = bloom_capacity(m, p->k, target);
	out->remembers = out->capacity;
	if (p->type == PD_FILTER_TIMERBF) {
		if (p->window == 0)
			p->window = out->capacity; /* keys: fills the filter to the target */
		if (p->equal_timers > p->k)
			return pd_err(err, PD_EINVAL, "equal_timers: %u exceeds k = %u",
				      p->equal_timers, p->k);
	}
	if (p->expected_n != 0) {
		out->predicted_fpr = bloom_fpr(m, p->k, p->expected_n);
		out->basis = "(1-e^(-kn/m))^k at n = expected_n";
	} else {
		out->predicted_fpr = bloom_fpr(m, p->k, out->capacity);
		out->basis = "(1-e^(-kn/m))^k at n = capacity";
	}
	return 0;
}

/* LRU buffer and FP-buffering: exact up to their keys; fpbuffering q = target. */
int pd_plan_lru(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err)
{
	const double target = p->target_fpr;

	if (p->memory_bytes / 8 > (1ULL << 31)) /* its index has at most 2^32 slots */
		return pd_err(err, PD_EINVAL,
			      "memory_bytes: %llu is above the most for %s, 16 GiB "
			      "(2^31 keys of 8 bytes)", (unsigned long long)p->memory_bytes,
			      pd_filter_type_name(p->type));
	out->remembers = p->memory_bytes / 8;
	if (p->type == PD_FILTER_FPBUFFERING) {
		if (p->fpbuf_q == 0.0)
			p->fpbuf_q = target;
		if (!(p->fpbuf_q >= 0.0 && p->fpbuf_q <= 1.0))
			return pd_err(err, PD_EINVAL, "fpbuf_q: %g is not in [0, 1]",
				      p->fpbuf_q);
		out->predicted_fpr = p->fpbuf_q;
		out->basis = "q";
	} else {
		out->predicted_fpr = 0.0;
		out->basis = "exact buffer: no false positives";
	}
	return 0;
}

/* Exact: no false positives. */
int pd_plan_exact(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err)
{
	(void)p, (void)err;
	out->predicted_fpr = 0.0;
	out->basis = "exact";
	return 0;
}

/* qhtlru: (b, f) and lanes with the fewest predicted misses within the target. */
int pd_plan_qhtlru(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err)
{
	const double target = p->target_fpr;

	out->assumed_gap = p->expected_n != 0 ? p->expected_n :
		qht_default_gap(target, p->memory_bytes / 64);
	if (qhtlru_plan(p, target, out->assumed_gap, err) != 0)
		return -1;
	out->predicted_fpr = qht_fpr(PD_FILTER_QQHTD, p->qht_b, p->qht_f);
	out->basis = "every lane live: 1-(1-1/(2^f-1))^b";
	out->remembers = p->memory_bytes / 64 * p->qht_b;
	out->predicted_fnr = rows_fnr(p->type, p->qht_b, p->qht_f, (double)out->assumed_gap /
				      (double)(p->memory_bytes / 64), p->window);
	return 0;
}
