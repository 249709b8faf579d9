/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the planner and the filters' constructors: the input's first
 * bytes are a struct pd_filter_params, field by field (every type, any k, b, f, Max, P,
 * doubles from raw bits: NaN, infinities, negatives), with the budget kept to 16 KiB so
 * that each input runs quickly. pd_plan() either refuses it or plans it; a planned
 * filter is made, fed 64 keys (32, then each again, with times for a window) and
 * destroyed, and every verdict is DISTINCT or DUPLICATE. The plan is then changed by the
 * input's last bytes, as a caller may change it, and pd_filter_create_planned() must
 * refuse it or make a filter that works. Built and run by scripts/fuzz.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pktdedup/pd_plan.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The next 8 bytes of the input (zeros past its end). */
static uint64_t take(const uint8_t *data, size_t size, size_t *at)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++, (*at)++)
		v |= (uint64_t)(*at < size ? data[*at] : 0) << (8 * i);
	return v;
}

static double as_double(uint64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static void params_from(const uint8_t *data, size_t size, size_t *at,
			struct pd_filter_params *p)
{
	memset(p, 0, sizeof(*p));
	p->type = (enum pd_filter_type)(take(data, size, at) % (PD_FILTER_COUNT + 1));
	p->memory_bytes = take(data, size, at) % (16u << 10) + 1;
	p->seed = take(data, size, at);
	p->target_fpr = as_double(take(data, size, at));
	p->expected_n = take(data, size, at);
	p->k = (uint32_t)take(data, size, at);
	p->sbf_max = (uint32_t)take(data, size, at);
	p->sbf_p = (uint32_t)take(data, size, at);
	p->rsbf_pstar = as_double(take(data, size, at));
	p->qht_b = (uint32_t)take(data, size, at);
	p->qht_f = (uint32_t)take(data, size, at);
	p->fpbuf_q = as_double(take(data, size, at));
	p->window = take(data, size, at);
	p->equal_timers = (uint32_t)take(data, size, at);
	p->window_mode = (enum pd_window_mode)(take(data, size, at) % 3);
}

/* A planned filter made, fed 32 keys twice, destroyed; aborts on a verdict not 0 or 1. */
static void run(const struct pd_plan *plan)
{
	struct pd_error err;
	struct pd_filter *f = pd_filter_create_planned(plan, &err);
	uint64_t keys[64], ts[64];
	uint8_t v[64];

	if (f == NULL)
		return;
	for (unsigned i = 0; i < 64; i++) {
		keys[i] = (uint64_t)(i % 32) * 0x9e3779b97f4a7c15ULL + 1;
		ts[i] = 1000u * i;
	}
	pd_filter_burst_u64(f, keys, plan->params.window != 0 ? ts : NULL, v, 64);
	for (unsigned i = 0; i < 64; i++)
		if (v[i] != PD_DISTINCT && v[i] != PD_DUPLICATE)
			abort();
	pd_filter_destroy(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_filter_params p, q;
	struct pd_plan plan;
	struct pd_error err;
	size_t at = 0;

	params_from(data, size, &at, &p);
	if (pd_plan(&p, &plan, &err) != 0)
		return 0;
	/* the budget of a plan made from an input is at most 16 KiB (exact grows as it goes) */
	if (plan.params.type != PD_FILTER_EXACT && plan.params.memory_bytes > (16u << 10))
		abort();
	run(&plan);
	/* the plan changed by a caller: the input's remaining bytes, field by field */
	params_from(data, size, &at, &q);
	plan.params.k ^= q.k;
	plan.params.sbf_max ^= q.sbf_max;
	plan.params.sbf_p ^= q.sbf_p;
	plan.params.qht_b ^= q.qht_b;
	plan.params.qht_f ^= q.qht_f;
	plan.params.equal_timers ^= q.equal_timers;
	plan.params.window ^= q.window % 2 ? q.window : 0;
	if (q.seed % 2)
		plan.params.rsbf_pstar = q.rsbf_pstar, plan.params.fpbuf_q = q.fpbuf_q;
	if (plan.params.memory_bytes > (16u << 10)) /* a budget the input asked for stays small */
		plan.params.memory_bytes = 16u << 10;
	run(&plan);
	return 0;
}
