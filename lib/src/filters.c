/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The filters, one line each: number in a state image, tunables, capabilities, planner,
 * constructor and how the parameters are shown (their names are below every variant, in
 * names.c, so that a variant's message may name its filter). Everything else that
 * dispatches on a filter (the planner's front, the library's front, snapshots, the
 * tools' help) reads this table.
 */
#include <stdio.h>

#include <pktdedup/pd_plan.h>

#include "filter_private.h"
#include "rows.h"

/* qht, qhtd and qqhtd; with a window, rows of fingerprints with ages (qqhtdw.c) */
/*
 * The qht family's rows: windowed ones (qqhtdw.c); qqhtd rows of a whole line (b*f >
 * 256) where qhtlru's sit, in FIFO order (qhtlru.c: the 512-bit row kernels' step with
 * the hit's move turned off is qqhtd's step, 3-4 times faster than qht.c's multi-word
 * SWAR; b = 20, f = 25, 64 MiB: 15 against 45-66 ns/key); the others packed (qht.c).
 */
static struct pd_filter *create_qht(const struct pd_filter_params *p, struct pd_error *err)
{
	if (p->window != 0)
		return pd_qqhtdw_create(p, err);
	if (p->type == PD_FILTER_QQHTD && pd_qht_rows_per_line(p->qht_b, p->qht_f) == 1)
		return pd_qhtlru_create_rows(p, false, err);
	return pd_qht_create(p, err);
}

static struct pd_filter *create_qhtlru(const struct pd_filter_params *p, struct pd_error *err)
{
	return p->window != 0 ? pd_qqhtdw_create(p, err) : pd_qhtlru_create(p, err);
}

static void show_sbf(const struct pd_filter_params *p, char *buf, size_t len)
{
	snprintf(buf, len, "Max=%u K=%u P=%u", p->sbf_max, p->k, p->sbf_p);
}

static void show_rsbf(const struct pd_filter_params *p, char *buf, size_t len)
{
	snprintf(buf, len, "k=%u p*=%g", p->k, p->rsbf_pstar);
}

static void show_k(const struct pd_filter_params *p, char *buf, size_t len)
{
	snprintf(buf, len, "k=%u", p->k);
}

static void show_bf(const struct pd_filter_params *p, char *buf, size_t len)
{
	snprintf(buf, len, "b=%u f=%u", p->qht_b, p->qht_f);
}

static void show_q(const struct pd_filter_params *p, char *buf, size_t len)
{
	snprintf(buf, len, "q=%g", p->fpbuf_q);
}

static void show_none(const struct pd_filter_params *p, char *buf, size_t len)
{
	(void)p;
	snprintf(buf, len, "-");
}

static void show_timerbf(const struct pd_filter_params *p, char *buf, size_t len)
{
	snprintf(buf, len, "k=%u W=%llu k'=%u", p->k, (unsigned long long)p->window,
		 p->equal_timers);
}

static void show_exact(const struct pd_filter_params *p, char *buf, size_t len)
{
	if (p->window)
		snprintf(buf, len, "W=%llu %s", (unsigned long long)p->window,
			 p->window_mode == PD_WINDOW_SEEN ? "seen" : "delivered");
	else
		snprintf(buf, len, "-");
}

enum { W = PD_FILTER_CAN_WINDOW, ANY = PD_FILTER_CAN_ANY_FPR };

/* Indexed by enum pd_filter_type; snapshot_id is what a state image stores. */
static const struct pd_filter_desc filters[PD_FILTER_COUNT] = {
	[PD_FILTER_SBF] = {0, PD_P_K | PD_P_MAX | PD_P_P | PD_P_EXPN, ANY,
			   pd_plan_sbf, pd_sbf_create, show_sbf},
	[PD_FILTER_RSBF] = {1, PD_P_K | PD_P_PSTAR, 0,
			    pd_plan_rsbf, pd_bitarrays_create, show_rsbf},
	[PD_FILTER_BSBF] = {2, PD_P_K, 0,
			    pd_plan_bitarrays, pd_bitarrays_create, show_k},
	[PD_FILTER_BSBFSD] = {3, PD_P_K, 0,
			      pd_plan_bitarrays, pd_bitarrays_create, show_k},
	[PD_FILTER_RLBSBF] = {4, PD_P_K, 0,
			      pd_plan_bitarrays, pd_bitarrays_create, show_k},
	[PD_FILTER_QHT] = {5, PD_P_B | PD_P_F | PD_P_EXPN, ANY,
			   pd_plan_qht, create_qht, show_bf},
	[PD_FILTER_QHTD] = {6, PD_P_B | PD_P_F | PD_P_EXPN, ANY,
			    pd_plan_qht, create_qht, show_bf},
	[PD_FILTER_QQHTD] = {7, PD_P_B | PD_P_F | PD_P_EXPN | PD_P_WINDOW, W | ANY,
			     pd_plan_qht, create_qht, show_bf},
	[PD_FILTER_BLOOM] = {8, PD_P_K | PD_P_EXPN, ANY,
			     pd_plan_bloom, pd_bloom_create, show_k},
	[PD_FILTER_LRU] = {9, 0, ANY,
			   pd_plan_lru, pd_lru_create, show_none},
	[PD_FILTER_FPBUFFERING] = {10, PD_P_Q, ANY,
				   pd_plan_lru, pd_lru_create, show_q},
	[PD_FILTER_TIMERBF] = {11, PD_P_K | PD_P_EXPN | PD_P_WINDOW | PD_P_EQT,
			       W | ANY, pd_plan_bloom, pd_timerbf_create, show_timerbf},
	[PD_FILTER_EXACT] = {12, PD_P_WINDOW, W | ANY,
			     pd_plan_exact, pd_exact_create, show_exact},
	[PD_FILTER_QHTLRU] = {13, PD_P_B | PD_P_F | PD_P_EXPN | PD_P_WINDOW, W | ANY,
			      pd_plan_qhtlru, create_qhtlru, show_bf},
};

const struct pd_filter_desc *pd_filter_desc(enum pd_filter_type type)
{
	return (unsigned)type < PD_FILTER_COUNT ? &filters[type] : NULL;
}

const struct pd_filter_desc *pd_filter_desc_of_id(uint32_t snapshot_id,
						  enum pd_filter_type *type)
{
	for (unsigned i = 0; i < PD_FILTER_COUNT; i++)
		if (filters[i].snapshot_id == snapshot_id) {
			*type = (enum pd_filter_type)i;
			return &filters[i];
		}
	return NULL;
}

unsigned pd_filter_type_caps(enum pd_filter_type type)
{
	const struct pd_filter_desc *d = pd_filter_desc(type);

	return d != NULL ? d->caps : 0;
}

void pd_filter_params_describe(const struct pd_filter_params *p, char *buf, size_t len)
{
	const struct pd_filter_desc *d = pd_filter_desc(p->type);

	if (d != NULL)
		d->describe(p, buf, len);
	else
		snprintf(buf, len, "-");
}
