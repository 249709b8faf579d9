/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The counter model: the list of counters (PD_COUNTERS, pktdedup.h) as a table, their sum
 * over the workers, and the delay histogram's buckets. Below the workers, which count,
 * and the reporters (stats.c, advice.c, telemetry.c, estimate.c), which read.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pktdedup.h"

const struct pd_counter_desc pd_counter_table[] = {
#define PD_COUNTER_DESC(name, in_line) {#name, offsetof(struct pd_counters, name), in_line},
	PD_COUNTERS(PD_COUNTER_DESC)
#undef PD_COUNTER_DESC
};
const unsigned pd_counter_count = sizeof(pd_counter_table) / sizeof(pd_counter_table[0]);

void pd_counters_sum(struct pd_counters *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		const struct pd_counters *c = &pd_app.w[i]->c;

#define PD_COUNTER_ADD(name, in_line) t->name += c->name;
		PD_COUNTERS(PD_COUNTER_ADD)
#undef PD_COUNTER_ADD
		t->oversize += c->oversize;
		for (int r = 0; r < PD_KEY_REASON_COUNT; r++)
			t->reasons[r] += c->reasons[r];
		for (int k = 0; k < PD_DECAP_KINDS; k++)
			t->decap[k] += c->decap[k];
		for (int b = 0; b < PD_DELAY_BUCKETS; b++)
			t->delay[b] += c->delay[b];
		t->delay_sum_ns += c->delay_sum_ns;
		for (int p = 0; p < RTE_MAX_ETHPORTS; p++) {
			t->port_rx[p] += c->port_rx[p];
			t->port_dup[p] += c->port_dup[p];
		}
	}
}

/* 1-2-5 steps from 1 us to 10 s: the lower bound of buckets 1..22. */
const uint64_t pd_delay_bound_ns[PD_DELAY_BUCKETS - 1] = {
	1000ULL, 2000ULL, 5000ULL, 10000ULL, 20000ULL, 50000ULL, 100000ULL, 200000ULL,
	500000ULL, 1000000ULL, 2000000ULL, 5000000ULL, 10000000ULL, 20000000ULL,
	50000000ULL, 100000000ULL, 200000000ULL, 500000000ULL, 1000000000ULL,
	2000000000ULL, 5000000000ULL, 10000000000ULL,
};

void pd_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns >= 1000000000ULL)
		snprintf(buf, len, "%" PRIu64 "s", ns / (uint64_t)1000000000);
	else if (ns >= 1000000ULL)
		snprintf(buf, len, "%" PRIu64 "ms", ns / (uint64_t)1000000);
	else
		snprintf(buf, len, "%" PRIu64 "us", ns / (uint64_t)1000);
}
