/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every rte_telemetry endpoint of pktdedup: /pktdedup/stats (the counters summed, the
 * ports' losses, the live estimate), per worker, per port, the resolved configuration,
 * the delay histogram and the window advice (docs/app.md, "Telemetry";
 * scripts/pktdedup-prometheus.py turns them into Prometheus text). Called from
 * telemetry's own thread while the workers run: the counters are read as they are
 * (each 64-bit read whole; values may be a burst apart).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_telemetry.h>

#include "pktdedup.h"

/* A real number as a string: DPDK 22.11's telemetry has no floating-point value. */
static void tel_real(struct rte_tel_data *d, const char *name, double v)
{
	char s[32];

	snprintf(s, sizeof(s), "%g", v);
	rte_tel_data_add_dict_string(d, name, s);
}

/* {"0": {"lcore": .., "rx": .., ...}, "1": ...}: every counter of PD_COUNTERS. */
static int tel_workers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		const struct pd_worker *w = pd_app.w[i];
		struct rte_tel_data *c = rte_tel_data_alloc();
		char name[16];

		if (c == NULL)
			return -1;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "lcore", w->lcore);
		for (unsigned k = 0; k < pd_counter_count; k++)
			rte_tel_data_add_dict_u64(c, pd_counter_table[k].name,
						  pd_counter_value(&w->c, k));
		snprintf(name, sizeof(name), "%u", i);
		if (rte_tel_data_add_dict_container(d, name, c, 0) != 0)
			rte_tel_data_free(c);
	}
	return 0;
}

/* {"0": {"name": "net_pcap0", "rx": .., "ipackets": .., "imissed": .., ...}}: pktdedup's
 * own counts per input port beside the port's, including what the port lost. */
static int tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct pd_counters t;

	(void)cmd;
	(void)params;
	pd_counters_sum(&t);
	rte_tel_data_start_dict(d);
	for (unsigned p = 0; p < pd_app.nports; p++) {
		const uint16_t id = pd_app.port_id[p];
		struct rte_tel_data *c = rte_tel_data_alloc();
		struct pd_port_loss l = pd_app.port_loss[p];
		char name[RTE_ETH_NAME_MAX_LEN];

		if (c == NULL)
			return -1;
		if (!pd_app.port_loss_final)
			pd_port_loss_read(id, &l);
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_string(c, "name", rte_eth_dev_get_name_by_port(id, name) == 0 ?
						     name : pd_app.port_name[id]);
		rte_tel_data_add_dict_u64(c, "rx", t.port_rx[id]);
		rte_tel_data_add_dict_u64(c, "duplicate", t.port_dup[id]);
		rte_tel_data_add_dict_u64(c, "ipackets", l.ipackets);
		rte_tel_data_add_dict_u64(c, "ibytes", l.ibytes);
		rte_tel_data_add_dict_u64(c, "opackets", l.opackets);
		rte_tel_data_add_dict_u64(c, "imissed", l.imissed);
		rte_tel_data_add_dict_u64(c, "rx_nombuf", l.rx_nombuf);
		rte_tel_data_add_dict_u64(c, "ierrors", l.ierrors);
		rte_tel_data_add_dict_u64(c, "kernel_drops", l.kernel_drops);
		rte_tel_data_add_dict_u64(c, "lost", l.lost);
		rte_tel_data_add_dict_u64(c, "oerrors", l.oerrors);
		snprintf(name, sizeof(name), "%u", id);
		if (rte_tel_data_add_dict_container(d, name, c, 0) != 0)
			rte_tel_data_free(c);
	}
	return 0;
}

/* The resolved plan and the run's settings (rates as strings: tel_real). */
static int tel_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct pd_app_config *c = &pd_app.cfg;
	const struct pd_plan *p = &pd_app.plan;
	char desc[96];

	(void)cmd;
	(void)params;
	pd_filter_params_describe(&p->params, desc, sizeof(desc));
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "filter", pd_filter_type_name(p->params.type));
	rte_tel_data_add_dict_string(d, "parameters", desc);
	rte_tel_data_add_dict_u64(d, "memory_per_worker", p->params.memory_bytes);
	tel_real(d, "loss_budget", c->filter.target_fpr);
	tel_real(d, "predicted_fpr", p->predicted_fpr);
	tel_real(d, "predicted_fnr", p->predicted_fnr);
	rte_tel_data_add_dict_u64(d, "remembers", p->remembers);
	rte_tel_data_add_dict_string(d, "key", pd_key_mode_name(c->key.mode));
	rte_tel_data_add_dict_string(d, "action", c->action == PD_ACTION_DROP ? "drop" :
					  c->action == PD_ACTION_MARK ? "mark" : "count");
	rte_tel_data_add_dict_u64(d, "window_ns", c->filter.window);
	rte_tel_data_add_dict_string(d, "window_mode", c->filter.window == 0 ? "none" :
					  c->filter.window_mode == PD_WINDOW_SEEN ? "seen" :
					  "delivered");
	rte_tel_data_add_dict_u64(d, "workers", pd_app.nworkers);
	rte_tel_data_add_dict_string(d, "dispatch", pd_app.dispatching ? "software" :
					  pd_app.nworkers > 1 ? "rss" : "none");
	rte_tel_data_add_dict_u64(d, "dispatch_ring", pd_app.ring_size);
	rte_tel_data_add_dict_int(d, "estimate_rate_log2", c->estimate_level);
	return 0;
}

/* Duplicates by delay since their copy: {"lt_1us": n, "1us_2us": n, ..., "ge_10s": n}
 * (bucket bounds as names: telemetry's names are letters, digits and _). Empty when the
 * filter keeps no times. */
static int tel_delays(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct pd_counters t;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	if (!pd_app.want_delay)
		return 0;
	pd_counters_sum(&t);
	for (int b = 0; b < PD_DELAY_BUCKETS; b++) {
		char lo[16], hi[16], name[40];

		pd_fmt_ns(lo, sizeof(lo), b == 0 ? 0 : pd_delay_bound_ns[b - 1]);
		if (b == 0)
			snprintf(name, sizeof(name), "lt_1us");
		else if (b + 1 == PD_DELAY_BUCKETS)
			snprintf(name, sizeof(name), "ge_%s", lo);
		else {
			pd_fmt_ns(hi, sizeof(hi), pd_delay_bound_ns[b]);
			snprintf(name, sizeof(name), "%s_%s", lo, hi);
		}
		rte_tel_data_add_dict_u64(d, name, t.delay[b]);
	}
	return 0;
}

/* The est_* fields of /pktdedup/stats (none when the estimate is off). */
static void add_estimate(struct rte_tel_data *d)
{
	struct pd_est_view v;

	if (!pd_estimate_view(&v))
		return;
	tel_real(d, "est_fpr", v.r.fpr);
	tel_real(d, "est_fpr_lo", v.r.fpr_lo);
	tel_real(d, "est_fpr_hi", v.r.fpr_hi);
	tel_real(d, "est_fnr", v.r.fnr);
	tel_real(d, "est_fnr_lo", v.r.fnr_lo);
	tel_real(d, "est_fnr_hi", v.r.fnr_hi);
	rte_tel_data_add_dict_u64(d, "est_unique", v.unique);
	rte_tel_data_add_dict_u64(d, "est_copies", v.copies);
	rte_tel_data_add_dict_u64(d, "est_rate_log2", v.level);
}

/* A 128-bit count as a decimal string (telemetry's integers have 64 bits). */
__extension__ typedef unsigned __int128 tel_u128_t;
static void tel_u128(struct rte_tel_data *d, const char *name, tel_u128_t v)
{
	char s[48], *p = s + sizeof(s) - 1;

	*p = '\0';
	do {
		*--p = (char)('0' + (unsigned)(v % 10));
		v /= 10;
	} while (v != 0);
	rte_tel_data_add_dict_string(d, name, p);
}

/* {"rx": .., ...}: every counter of PD_COUNTERS summed, the reasons frames had no key,
 * what the ports lost, the estimate and the delay histogram. */
static int tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct pd_counters t;

	(void)cmd;
	(void)params;
	pd_counters_sum(&t);
	rte_tel_data_start_dict(d);
	for (unsigned i = 0; i < pd_counter_count; i++)
		rte_tel_data_add_dict_u64(d, pd_counter_table[i].name, pd_counter_value(&t, i));
	for (int r = 1; r < PD_KEY_REASON_COUNT; r++) { /* as the JSON's unparseable_reasons, */
		char name[64]; /* with '_' for '-': telemetry names are letters, digits, _ and / */

		snprintf(name, sizeof(name), "%s", pd_key_reason_name((enum pd_key_reason)r));
		for (char *p = name; *p != '\0'; p++)
			*p = *p == '-' ? '_' : *p;
		rte_tel_data_add_dict_u64(d, name, t.reasons[r]);
	}
	rte_tel_data_add_dict_u64(d, "oversize", t.oversize);
	for (unsigned k = 0; k < PD_DECAP_KINDS && pd_app.cfg.key.decap != 0; k++) {
		char name[32];

		snprintf(name, sizeof(name), "decap_%s", pd_key_decap_name(k));
		rte_tel_data_add_dict_u64(d, name, t.decap[k]);
	}
	{
		uint64_t bytes;

		rte_tel_data_add_dict_u64(d, "lost_at_ports", pd_ports_lost_now(&bytes));
		rte_tel_data_add_dict_u64(d, "rx_bytes_at_ports", bytes);
	}
	rte_tel_data_add_dict_u64(d, "workers", pd_app.nworkers);
	rte_tel_data_add_dict_u64(d, "window_ns", pd_app.cfg.filter.window);
	add_estimate(d);
	if (pd_app.want_delay) {
		/* counts per bucket: [0,1us), [1us,2us), ... [5s,10s), >= 10s, and the sum of
		 * the delays (a Prometheus histogram's _sum) */
		struct rte_tel_data *h = rte_tel_data_alloc();

		tel_u128(d, "delay_sum_ns", t.delay_sum_ns);
		if (h != NULL) {
			rte_tel_data_start_array(h, RTE_TEL_U64_VAL);
			for (int b = 0; b < PD_DELAY_BUCKETS; b++)
				rte_tel_data_add_array_u64(h, t.delay[b]);
			if (rte_tel_data_add_dict_container(d, "delay_histogram", h, 0) != 0)
				rte_tel_data_free(h);
		}
	}
	return 0;
}

/* /pktdedup/window_advice, on demand while running: {"99": {"window_ns": .., ...}, ...}
 * (empty without delays). */
static int tel_advice(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct pd_advice adv[PD_ADVICE_SHARES];
	double kpn;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	if (!pd_app.want_delay || pd_advice_all(adv, &kpn) == 0)
		return 0;
	for (unsigned i = 0; i < PD_ADVICE_SHARES; i++) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		const struct pd_advice a = adv[i];
		char name[32];

		if (c == NULL)
			return -1;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "window_ns", a.window_ns);
		rte_tel_data_add_dict_u64(c, "keys_per_window_per_worker", a.keys);
		rte_tel_data_add_dict_u64(c, "memory_per_worker", a.memory);
		snprintf(name, sizeof(name), "share_%g", a.share * 100); /* share_99.9 */
		for (char *q = name; *q != '\0'; q++)
			*q = *q == '.' ? '_' : *q; /* telemetry's names: letters, digits, _ */
		if (rte_tel_data_add_dict_container(d, name, c, 0) != 0)
			rte_tel_data_free(c);
	}
	return 0;
}

void pd_telemetry_register(void)
{
	rte_telemetry_register_cmd("/pktdedup/stats", tel_stats,
				   "pktdedup counters: rx, tx, unique, duplicate, dropped, ...");
	rte_telemetry_register_cmd("/pktdedup/workers", tel_workers,
				   "pktdedup counters per worker");
	rte_telemetry_register_cmd("/pktdedup/ports", tel_ports,
				   "per port: pktdedup's counts and the port's own, with its losses");
	rte_telemetry_register_cmd("/pktdedup/config", tel_config,
				   "the resolved plan: filter, parameters, predicted FPR, key, window");
	rte_telemetry_register_cmd("/pktdedup/delays", tel_delays,
				   "duplicates by delay since their copy, by bucket");
	rte_telemetry_register_cmd("/pktdedup/window_advice", tel_advice,
				   "windows catching 99%, 99.9% and all copies, with their memory");
}
