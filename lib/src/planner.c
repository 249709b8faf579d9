/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pd_plan (pd_plan.h): the checks every filter's parameters pass, then the filter's own
 * planner, found in the registry (filters.c); and what a plan's filter will allocate.
 * Above the registry, which points at the planners (plan.c) below it.
 */
#include <stdio.h>
#include <string.h>

#include <pktdedup/pd_plan.h>

#include "filter_private.h"

#define MEMORY_MAX (1ULL << 40) /* 1 TiB: larger budgets are a unit mistake */

/* The tunables, in the order the messages name them (bit i of PD_P_*). */
static const char *const param_name[] = {
	"k", "sbf_max", "sbf_p", "rsbf_pstar", "qht_b", "qht_f", "fpbuf_q", "expected_n",
	"window", "equal_timers",
};

static unsigned params_of(enum pd_filter_type t)
{
	return pd_filter_desc(t)->params;
}

/* "qqhtd, timerbf, exact, qhtlru": the filters that take a window. */
static const char *windowed_names(char *names, size_t len)
{
	names[0] = '\0';
	for (unsigned i = 0; i < PD_FILTER_COUNT; i++)
		if (params_of((enum pd_filter_type)i) & PD_P_WINDOW)
			snprintf(names + strlen(names), len - strlen(names), "%s%s",
				 names[0] ? ", " : "", pd_filter_type_name((enum pd_filter_type)i));
	return names;
}

/*
 * A tunable set (non-zero) for a filter that has no such parameter: refused rather than
 * ignored, so that a mistyped filter name or a misplaced option cannot go unnoticed.
 * (window and equal_timers have their own checks and messages, in pd_plan.)
 */
static int unused_param(const struct pd_filter_params *p, struct pd_error *err)
{
	const unsigned has = params_of(p->type);
	const unsigned given = (p->k != 0 ? PD_P_K : 0) | (p->sbf_max != 0 ? PD_P_MAX : 0) |
			       (p->sbf_p != 0 ? PD_P_P : 0) | (p->rsbf_pstar != 0.0 ? PD_P_PSTAR : 0) |
			       (p->qht_b != 0 ? PD_P_B : 0) | (p->qht_f != 0 ? PD_P_F : 0) |
			       (p->fpbuf_q != 0.0 ? PD_P_Q : 0) | (p->expected_n != 0 ? PD_P_EXPN : 0);
	const unsigned bad = given & ~has;
	char list[128] = "";

	if (bad == 0)
		return 0;
	for (unsigned i = 0; i < sizeof(param_name) / sizeof(param_name[0]); i++)
		if (has & (1u << i))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 list[0] ? ", " : "", param_name[i]);
	return pd_err(err, PD_ENOTSUP, "%s: not a parameter of %s (it has: %s)",
		      param_name[__builtin_ctz(bad)], pd_filter_type_name(p->type),
		      list[0] ? list : "only memory_bytes");
}

int pd_plan(const struct pd_filter_params *in, struct pd_plan *out, struct pd_error *err)
{
	struct pd_filter_params p;
	char names[128];
	double target;

	if (in == NULL || out == NULL)
		return pd_err(err, PD_EINVAL, "params: NULL");
	memset(out, 0, sizeof(*out));
	p = *in;
	if (pd_filter_type_name(p.type) == NULL)
		return pd_err(err, PD_EINVAL, "type: unknown filter type %d", (int)p.type);
	if (p.target_fpr == 0.0)
		p.target_fpr = PD_DEFAULT_TARGET_FPR;
	target = p.target_fpr;
	if (!(target > 0.0 && target < 1.0))
		return pd_err(err, PD_EINVAL, "target_fpr: %g is not in (0, 1)", target);
	if (p.type != PD_FILTER_EXACT) {
		if (p.memory_bytes < 64)
			return pd_err(err, PD_EINVAL,
				      "memory_bytes: %llu is below the minimum of 64 bytes",
				      (unsigned long long)p.memory_bytes);
		if (p.memory_bytes > MEMORY_MAX)
			return pd_err(err, PD_EINVAL, "memory_bytes: %llu is above 1 TiB",
				      (unsigned long long)p.memory_bytes);
	}
	if (p.window != 0 && !(params_of(p.type) & PD_P_WINDOW))
		return pd_err(err, PD_ENOTSUP,
			      "window: %s has no time window; filters with one: %s",
			      pd_filter_type_name(p.type), windowed_names(names, sizeof(names)));
	if (p.window > (1ULL << 62))
		return pd_err(err, PD_EINVAL, "window: %llu is above 2^62",
			      (unsigned long long)p.window);
	if (p.equal_timers != 0 && !(params_of(p.type) & PD_P_EQT))
		return pd_err(err, PD_ENOTSUP, "equal_timers: only timerbf has timers");
	if (unused_param(&p, err) != 0)
		return -1;
	if ((unsigned)p.window_mode > PD_WINDOW_DELIVERED)
		return pd_err(err, PD_EINVAL, "window_mode: %d is not seen or delivered",
			      (int)p.window_mode);

	out->basis = "";
	if (pd_filter_desc(p.type)->plan(&p, out, err) != 0)
		return -1;
	out->params = p;
	return 0;
}

uint64_t pd_plan_footprint(const struct pd_plan *plan)
{
	const struct pd_filter_params *p = &plan->params;

	switch (p->type) {
	case PD_FILTER_LRU:
	case PD_FILTER_FPBUFFERING:
		return pd_lru_footprint(p->memory_bytes);
	case PD_FILTER_EXACT:
		return 0;
	default:
		return p->memory_bytes;
	}
}
