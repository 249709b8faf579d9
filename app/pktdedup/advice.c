/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --suggest-window (docs/windows.md, "Choosing W"): from the delay histogram of a run,
 * the smallest window that catches 99%, 99.9% and all of the copies measured, and the
 * memory per worker the default filter (qhtlru) needs for that window at the run's loss
 * budget, from the planner: the smallest power of two from 64 KiB whose plan meets the
 * budget and predicts at most PD_ADVICE_FNR of the copies within the window missed, for
 * the new keys a window holds at the rate the run saw.
 *
 * A window is a bucket's upper bound: the histogram's resolution (1-2-5 steps) rounds
 * it up, never down.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common/json.h"
#include "pktdedup.h"

#define PD_ADVICE_FNR 1e-4

static const double shares[PD_ADVICE_SHARES] = {0.99, 0.999, 1.0};
#define NSHARES PD_ADVICE_SHARES

/* The run's times and counts: 0 when there is nothing to advise on. */
static int measure(uint64_t *copies, double *keys_per_ns, uint64_t counts[PD_DELAY_BUCKETS])
{
	struct pd_counters t;
	uint64_t first = UINT64_MAX, last = 0;

	pd_counters_sum(&t);
	memcpy(counts, t.delay, sizeof(t.delay));
	*copies = 0;
	for (int b = 0; b < PD_DELAY_BUCKETS; b++)
		*copies += counts[b];
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		if (pd_app.w[i]->t_any && pd_app.w[i]->t_first < first)
			first = pd_app.w[i]->t_first;
		if (pd_app.w[i]->t_any && pd_app.w[i]->t_last > last)
			last = pd_app.w[i]->t_last;
	}
	*keys_per_ns = last > first ? (double)t.unique / (double)(last - first) : 0;
	return *copies != 0 && *keys_per_ns > 0;
}

static void advise(struct pd_advice *a, double share, const uint64_t *counts, uint64_t copies,
		   double keys_per_ns)
{
	uint64_t cum = 0;
	int b = 0;

	memset(a, 0, sizeof(*a));
	a->share = share;
	for (; b < PD_DELAY_BUCKETS; b++) {
		cum += counts[b];
		if ((double)cum >= share * (double)copies)
			break;
	}
	if (b >= PD_DELAY_BUCKETS - 1)
		return; /* in the last bucket: more than its lower bound, no upper one */
	a->window_ns = pd_delay_bound_ns[b];
	a->keys = (uint64_t)ceil(keys_per_ns * (double)a->window_ns / pd_app.nworkers);
	for (uint64_t m = UINT64_C(64) << 10; m <= UINT64_C(64) << 30; m <<= 1) {
		struct pd_filter_params p;
		struct pd_plan plan;
		struct pd_error err;

		memset(&p, 0, sizeof(p));
		p.type = PD_FILTER_QHTLRU;
		p.memory_bytes = m;
		p.target_fpr = pd_app.cfg.filter.target_fpr;
		p.window = a->window_ns;
		p.window_mode = pd_app.cfg.filter.window_mode;
		p.expected_n = a->keys > 0 ? a->keys : 1;
		if (pd_plan(&p, &plan, &err) == 0 && plan.predicted_fpr <= p.target_fpr &&
		    plan.predicted_fnr <= PD_ADVICE_FNR) {
			a->memory = m;
			a->fnr = plan.predicted_fnr;
			a->fpr = plan.predicted_fpr;
			return;
		}
	}
}

/* The advice for every share; returns the copies measured (0: nothing to advise on). */
uint64_t pd_advice_all(struct pd_advice a[PD_ADVICE_SHARES], double *keys_per_ns)
{
	uint64_t counts[PD_DELAY_BUCKETS], copies;

	if (!measure(&copies, keys_per_ns, counts))
		return 0;
	for (unsigned i = 0; i < NSHARES; i++)
		advise(&a[i], shares[i], counts, copies, *keys_per_ns);
	return copies;
}

static void fmt_bytes(char *s, size_t n, uint64_t b)
{
	if (b >= UINT64_C(1) << 30)
		snprintf(s, n, "%" PRIu64 "G", b >> 30);
	else if (b >= UINT64_C(1) << 20)
		snprintf(s, n, "%" PRIu64 "M", b >> 20);
	else
		snprintf(s, n, "%" PRIu64 "K", b >> 10);
}

void pd_advice_print(FILE *out)
{
	struct pd_advice adv[NSHARES];
	uint64_t copies;
	double kpn;

	if (!pd_app.cfg.suggest_window)
		return;
	copies = pd_advice_all(adv, &kpn);
	if (copies == 0) {
		fprintf(out, "pktdedup: window advice: no copy's delay was measured\n");
		return;
	}
	fprintf(out, "pktdedup: window advice from %" PRIu64 " copies' delays, %.0f new keys a"
		" second; memory for qhtlru at the loss budget %g, at most %g of the copies"
		" within the window missed:\n", copies, kpn * 1e9, pd_app.cfg.filter.target_fpr,
		PD_ADVICE_FNR);
	for (unsigned i = 0; i < NSHARES; i++) {
		const struct pd_advice a = adv[i];
		char w[16], m[16];

		if (a.window_ns == 0) {
			fprintf(out, "pktdedup:   %g%% of the copies: more than 10 s apart\n",
				shares[i] * 100);
			continue;
		}
		pd_fmt_ns(w, sizeof(w), a.window_ns);
		if (a.memory == 0) {
			fprintf(out, "pktdedup:   %g%% of the copies within %s: --window %s"
				" (%" PRIu64 " keys a worker; more than 64G)\n", shares[i] * 100, w,
				w, a.keys);
			continue;
		}
		fmt_bytes(m, sizeof(m), a.memory);
		fprintf(out, "pktdedup:   %g%% of the copies within %s: --window %s --memory %s"
			" (%" PRIu64 " keys a worker; predicted miss %.2g, FPR %.2g)\n",
			shares[i] * 100, w, w, m, a.keys, a.fnr, a.fpr);
	}
}

void pd_advice_json(struct json *j)
{
	struct pd_advice adv[NSHARES];
	double kpn;

	if (!pd_app.cfg.suggest_window)
		return;
	if (pd_advice_all(adv, &kpn) == 0) {
		json_null(j, "window_advice");
		return;
	}
	json_open(j, "window_advice", '[', 0);
	for (unsigned i = 0; i < NSHARES; i++) {
		const struct pd_advice a = adv[i];

		json_open(j, NULL, '{', 1);
		json_f64(j, "share", "%g", a.share);
		json_u64(j, "window_ns", a.window_ns);
		json_u64(j, "keys_per_window_per_worker", a.keys);
		json_u64(j, "memory_per_worker", a.memory);
		json_f64(j, "predicted_fnr", "%.3g", a.fnr);
		json_f64(j, "predicted_fpr", "%.3g", a.fpr);
		json_close(j);
	}
	json_close(j);
}
