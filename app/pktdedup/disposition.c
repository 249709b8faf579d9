/* SPDX-License-Identifier: BSD-3-Clause */
/* The disposition step (disposition.h): the table of steps, the filter call and its
 * bookkeeping. */
#include <string.h>

#include <pktdedup/pd_estimate.h>

#include "disposition.h"

_Static_assert(PD_CLASS_COUNT <= sizeof(((struct pd_app *)0)->next), "pd_app.next too short");

/*
 * The options as a table. A duplicate: --action count forwards it; drop frees it, or
 * sends it out of --dup-port; mark writes the DSCP and forwards it, or sends it out of
 * --dup-port. Replay's --dup-out is a copy beside whatever else happens, written as it
 * came (before the mark). Kept frames, allowed copies, bypassed and unjudged frames go
 * on; keyless ones too, unless --unparseable drop. (options.c refuses --dup-port with
 * --action count and with --pcap-in, where --dup-out is the copies' way out.)
 */
void pd_disp_init(struct pd_app *app)
{
	const struct pd_app_config *c = &app->cfg;
	const unsigned copy = c->dup_out != NULL ? PD_NEXT_COPY : 0;
	const unsigned away = c->dup_port >= 0 ? PD_NEXT_DUP : PD_NEXT_OUT;
	unsigned dup;

	switch (c->action) {
	case PD_ACTION_DROP:
		dup = c->dup_port >= 0 ? PD_NEXT_DUP : 0;
		break;
	case PD_ACTION_MARK:
		dup = PD_NEXT_MARK | away;
		break;
	case PD_ACTION_COUNT:
	default:
		dup = PD_NEXT_OUT;
		break;
	}
	memset(app->next, 0, sizeof(app->next));
	app->next[PD_DISTINCT] = PD_NEXT_OUT;
	app->next[PD_DUPLICATE] = (uint8_t)(dup | copy);
	app->next[PD_ALLOWED] = PD_NEXT_OUT;
	app->next[PD_CLASS_KEYLESS] = c->drop_unparseable ? 0 : PD_NEXT_OUT;
	app->next[PD_CLASS_BYPASS] = PD_NEXT_OUT;
	app->next[PD_CLASS_UNJUDGED] = PD_NEXT_OUT;
	app->marking = 0;
	app->forward_all = app->next[PD_DISTINCT] == PD_NEXT_OUT &&
			   app->next[PD_DUPLICATE] == PD_NEXT_OUT &&
			   app->next[PD_ALLOWED] == PD_NEXT_OUT &&
			   app->next[PD_CLASS_BYPASS] == PD_NEXT_OUT;
	app->verdicts_back = !app->forward_all || app->nports != 1;
	for (unsigned k = 0; k < PD_CLASS_COUNT; k++)
		app->marking |= (app->next[k] & PD_NEXT_MARK) != 0;
}

/*
 * The bucket of a delay without a search: bounds are at least a factor 2 apart, so
 * [2^k, 2^(k+1)) holds at most one of them. delay_base[k] counts the bounds <= 2^k and
 * delay_next[k] is the bound inside (2^k, 2^(k+1)), or UINT64_MAX.
 */
static uint8_t delay_base[64];
static uint64_t delay_next[64];

void pd_delay_buckets_init(void)
{
	for (unsigned k = 0; k < 64; k++) {
		uint64_t lo = 1ULL << k, hi = k < 63 ? lo << 1 : UINT64_MAX;

		delay_base[k] = 0;
		delay_next[k] = UINT64_MAX;
		for (unsigned j = 0; j < PD_DELAY_BUCKETS - 1; j++) {
			if (pd_delay_bound_ns[j] <= lo)
				delay_base[k]++;
			else if (pd_delay_bound_ns[j] < hi && delay_next[k] == UINT64_MAX)
				delay_next[k] = pd_delay_bound_ns[j];
		}
	}
}

/* The number of bounds <= ns: bucket 0 below 1 us, 22 from 10 s. */
static inline unsigned delay_bucket(uint64_t ns)
{
	unsigned k = 63u - (unsigned)__builtin_clzll(ns | 1);
	unsigned b = delay_base[k] + (ns >= delay_next[k]);

	return b < PD_DELAY_BUCKETS ? b : PD_DELAY_BUCKETS - 1; /* ns = UINT64_MAX */
}

/*
 * One filter call: with times when the filter needs them, delays into the histogram;
 * then the span of times (--suggest-window), the sampled keys' verdicts to the live
 * estimate's shadow (docs/estimate.md: its measured cost) and --allow's counts; last,
 * the verdicts counted (a copy --allow passes is a duplicate and an allowed one).
 */
void pd_disp_filter(struct pd_worker *w, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		    unsigned n)
{
	const uint64_t *t = w->app->time_src != PD_TIME_NONE ? ts : NULL;
	unsigned dups = 0, allowed = 0;

	if (n == 0)
		return;
	if (w->app->want_delay) {
		uint64_t d[PD_APP_BURST];

		pd_filter_burst_hashed_delay(w->filter, h, ts, v, d, n);
		for (unsigned i = 0; i < n; i++)
			if (v[i] && d[i] != PD_DELAY_NONE) {
				w->c.delay[delay_bucket(d[i])]++;
				w->c.delay_sum_ns += d[i];
			}
	} else {
		pd_filter_burst_hashed(w->filter, h, t, v, n);
	}
	if (t != NULL) { /* the span of times seen (--suggest-window's key rate) */
		if (!w->t_any || t[0] < w->t_first)
			w->t_first = t[0];
		if (!w->t_any || t[n - 1] > w->t_last)
			w->t_last = t[n - 1];
		w->t_any = 1;
	}
	if (w->est != NULL) /* the filter's own verdicts */
		pd_estimate_observe(w->est, h, t, v, n);
	if (w->allow != NULL) /* then --allow N turns the first copies into PD_ALLOWED */
		pd_allow_apply(w->allow, h, v, n);
	for (unsigned i = 0; i < n; i++) {
		dups += v[i] != PD_DISTINCT;
		allowed += v[i] == PD_ALLOWED;
	}
	w->c.unique += n - dups;
	w->c.duplicate += dups;
	w->c.allowed += allowed;
}
