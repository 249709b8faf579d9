/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live error estimate over the workers (docs/estimate.md): each worker's shadow
 * (lib's pd_estimate) counts its sampled keys per level; the workers' counts are added
 * at the highest sampling level any of them reached, so that every worker contributes
 * the same share of its keys. Written into the periodic line and the JSON summary, and
 * read by telemetry's /pktdedup/stats (pd_estimate_view); read while the workers run
 * (counters may be one burst apart, as the others).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../common/json.h"
#include "pktdedup.h"

int pd_estimate_view(struct pd_est_view *v)
{
	const struct pd_estimate *est[PD_APP_MAX_WORKERS];

	if (pd_app.cfg.estimate_level < 0 || pd_app.nworkers == 0 || pd_app.w[0]->est == NULL)
		return 0;
	memset(v, 0, sizeof(*v));
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		est[i] = pd_app.w[i]->est;
		v->bytes += pd_estimate_footprint(est[i]);
	}
	pd_estimate_combine(est, pd_app.nworkers, &v->c);
	v->level = v->c.level;
	v->keys = v->c.keys;
	v->unique = v->c.tn + v->c.fp;
	v->copies = v->c.fn + v->c.tp;
	pd_estimate_rates(&v->c, &v->r);
	return 1;
}

void pd_estimate_line(FILE *out)
{
	struct pd_est_view v;

	if (pd_estimate_view(&v))
		fprintf(out, " est_fpr %.3g [%.3g,%.3g] est_fnr %.3g [%.3g,%.3g]", v.r.fpr,
			v.r.fpr_lo, v.r.fpr_hi, v.r.fnr, v.r.fnr_lo, v.r.fnr_hi);
}

/*
 * Packets of a kind (unique, copies) checked before the summary gives that rate's
 * interval: below 100, even with no error seen the 95% interval reaches past 3% (the
 * rule of three), which says nothing about a loss budget; the summary says so instead.
 * The periodic line, the JSON and telemetry give the numbers whatever the count.
 */
#define EST_MIN_CHECKED 100

/* "FPR 0 (95%: 0-0.0026)", or why there is none. */
static void rate_text(char *buf, size_t len, const char *name, const char *what,
		      uint64_t checked, double r, double lo, double hi)
{
	if (checked >= EST_MIN_CHECKED)
		snprintf(buf, len, "%s %.3g (95%%: %.3g-%.3g)", name, r, lo, hi);
	else
		snprintf(buf, len, "%s: too few %s checked for an interval (%" PRIu64 " of %u)",
			 name, what, checked, EST_MIN_CHECKED);
}

/*
 * The estimate puts the false-positive rate above the loss budget: the lower end of its
 * interval is, from at least EST_MIN_CHECKED unique packets. The plan's prediction then
 * does not hold for this traffic (a filter that does not forget past its capacity, an
 * --expected-n the traffic outgrew): unique packets are being taken for copies at that
 * rate, which must not pass unsaid.
 */
static int over_budget(const struct pd_est_view *v)
{
	return v->unique >= EST_MIN_CHECKED && v->r.fpr_lo > pd_app.cfg.filter.target_fpr;
}

static void over_budget_text(char *buf, size_t len, const struct pd_est_view *v)
{
	snprintf(buf, len, "the live estimate puts the false-positive rate at %.3g (95%%: %.3g-%.3g),"
		" above the loss budget --fpr %g: about that share of unique packets are taken"
		" for copies, not the %.3g the plan predicted. More --memory, a filter that"
		" forgets (qhtlru), or an --expected-n or --window that fit this traffic would"
		" keep it (docs/estimate.md)", v->r.fpr, v->r.fpr_lo, v->r.fpr_hi,
		pd_app.cfg.filter.target_fpr, pd_app.plan.predicted_fpr);
}

/* From the main lcore's tick (or a replay's reader), every few seconds: the warning as
 * soon as the estimate shows it, once, where the summary would come only at the stop. */
void pd_estimate_watch(void)
{
	static int warned;
	struct pd_est_view v;
	char why[512];

	if (warned || !pd_estimate_view(&v) || !over_budget(&v))
		return;
	warned = 1;
	over_budget_text(why, sizeof(why), &v);
	PD_LOG(WARNING, "warning: %s\n", why);
}

void pd_estimate_summary(FILE *out)
{
	struct pd_est_view v;
	char fpr[128], fnr[128];

	if (!pd_estimate_view(&v))
		return;
	rate_text(fpr, sizeof(fpr), "FPR", "unique packets", v.unique, v.r.fpr, v.r.fpr_lo,
		  v.r.fpr_hi);
	rate_text(fnr, sizeof(fnr), "FNR", "copies", v.copies, v.r.fnr, v.r.fnr_lo, v.r.fnr_hi);
	fprintf(out, "pktdedup: estimate from 1/%" PRIu64 " of the keys (%" PRIu64 " unique, %"
		PRIu64 " copies checked): %s, %s%s\n", (uint64_t)1 << v.level, v.unique, v.copies,
		fpr, fnr, v.unique >= EST_MIN_CHECKED && v.copies >= EST_MIN_CHECKED ? "" :
		v.level > 0 ? "; --estimate-rate 1 checks every key" : "");
	if (over_budget(&v)) {
		char why[512];

		over_budget_text(why, sizeof(why), &v);
		fprintf(out, "pktdedup: warning: %s\n", why);
	}
}

void pd_estimate_json(struct json *j)
{
	struct pd_est_view v;

	if (!pd_estimate_view(&v)) {
		json_null(j, "estimate");
		return;
	}
	json_open(j, "estimate", '{', 0);
	json_f64(j, "fpr", "%.6g", v.r.fpr);
	json_open(j, "fpr_ci", '[', 1);
	json_f64(j, NULL, "%.6g", v.r.fpr_lo);
	json_f64(j, NULL, "%.6g", v.r.fpr_hi);
	json_close(j);
	json_f64(j, "fnr", "%.6g", v.r.fnr);
	json_open(j, "fnr_ci", '[', 1);
	json_f64(j, NULL, "%.6g", v.r.fnr_lo);
	json_f64(j, NULL, "%.6g", v.r.fnr_hi);
	json_close(j);
	json_bool(j, "fpr_above_budget", over_budget(&v));
	json_open(j, "sampled", '{', 1);
	json_u64(j, "rate_log2", v.level);
	json_u64(j, "unique", v.unique);
	json_u64(j, "copies", v.copies);
	json_u64(j, "false_positives", v.c.fp);
	json_u64(j, "false_negatives", v.c.fn);
	json_u64(j, "keys_held", v.keys);
	json_u64(j, "memory_bytes", v.bytes);
	json_close(j);
	json_close(j);
}
