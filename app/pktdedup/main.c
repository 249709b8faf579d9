/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktdedup: EAL and port setup, worker launch, statistics, orderly stop.
 *
 *   pktdedup [EAL options] -- [pktdedup options]
 *   pktdedup --pcap-in IN.pcap [--pcap-out OUT.pcap] [pktdedup options]
 *
 * The second form (replay.c) builds its own EAL arguments: no hugepages, no shared
 * config files and a file prefix of its own (pktdedup-PID, removed at exit), so parallel
 * runs never collide; no PCI and no devices: the capture is read with libpcap.
 * (--in-memory cannot be used: EAL refuses it with --no-huge.)
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>
#include <rte_telemetry.h>

#include "../common/cli.h"
#include "pktdedup.h"

struct pd_app pd_app;
volatile int pd_force_quit;

static void on_signal(int sig)
{
	pd_force_quit = sig;
}

/*
 * SIGINT and SIGTERM stop the run in order. Without SA_RESTART, so that a read waiting
 * on a pipe returns and the replay can stop too; and delivered to the main thread only
 * (the reader in a replay): they are blocked while EAL makes its threads, which keep
 * that mask, then unblocked here (stop_signals(0)).
 */
static void stop_signals(int block)
{
	struct sigaction sa;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
	if (block)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* ---- replay: EAL without devices ---- */

/* EAL arguments for replay. Returns argc; the strings live in a static buffer. */
static int replay_eal_args(const struct pd_app_config *c, char *prog, char **out)
{
	static char lcores[64], prefix[64];
	unsigned workers = c->workers ? c->workers : 1;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int n = 0;

	if (ncpu < 1)
		ncpu = 1;
	/* worker lcores 0..workers-1 on the CPUs there are (several lcores may share one) */
	if (workers == 1)
		snprintf(lcores, sizeof(lcores), "0@(0-%ld)", ncpu - 1);
	else
		snprintf(lcores, sizeof(lcores), "(0-%u)@(0-%ld)", workers - 1, ncpu - 1);
	snprintf(prefix, sizeof(prefix), "pktdedup-%ld", (long)getpid());
	out[n++] = prog;
	out[n++] = "--lcores";
	out[n++] = lcores;
	out[n++] = "--no-huge";
	out[n++] = "-m";
	out[n++] = "64"; /* worker state only: frames and filters live outside EAL's heap */
	out[n++] = "--no-shconf";
	out[n++] = "--file-prefix";
	out[n++] = prefix;
	out[n++] = "--no-pci";
	out[n++] = "--log-level";
	out[n++] = "*:warning";
	out[n++] = "--no-telemetry"; /* a replay is short: its summary is the output */
	out[n] = NULL;
	return n;
}

/* ---- ports ---- */

/*
 * The RSS hash types whose fields every key of this configuration contains (copies of
 * one key must reach one worker), or -1 when there are none: `packet` keys from L4 or
 * cut to N bytes may leave addresses or ports out.
 */
static int rss_fields(const struct pd_key_config *k, uint64_t *hf)
{
	if (k->mode == PD_KEY_PACKET && (k->from == PD_FROM_L4 || k->compare_bytes != 0))
		return -1;
	switch (k->mode) {
	case PD_KEY_FLOW:
	case PD_KEY_PACKET: /* addresses and ports are fields of both keys */
		*hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_SCTP;
		return 0;
	case PD_KEY_SRCIP:
	case PD_KEY_CLICK: /* only the source address is common to every key */
		*hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_L3_SRC_ONLY;
		return 0;
	default:
		return -1;
	}
}

static int port_setup(uint16_t port, unsigned nrxq, unsigned ntxq, int rss, uint64_t rss_hf)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t rxd = (uint16_t)pd_app.cfg.rx_desc, txd = (uint16_t)pd_app.cfg.tx_desc;
	int socket = rte_eth_dev_socket_id(port), rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_info_get(port, &info);
	if (rc != 0)
		return rc;
	if (rss) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = rss_hf;
	}
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	rc = rte_eth_dev_configure(port, (uint16_t)nrxq, (uint16_t)ntxq, &conf);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &rxd, &txd);
	if (rc != 0)
		return rc;
	for (unsigned q = 0; q < nrxq; q++) {
		rc = rte_eth_rx_queue_setup(port, (uint16_t)q, rxd, socket < 0 ? 0 : (unsigned)socket,
					    NULL, pd_app.pool);
		if (rc != 0)
			return rc;
	}
	for (unsigned q = 0; q < ntxq; q++) {
		struct rte_eth_txconf txc = info.default_txconf;

		txc.offloads = conf.txmode.offloads;
		rc = rte_eth_tx_queue_setup(port, (uint16_t)q, txd, socket < 0 ? 0 : (unsigned)socket,
					    &txc);
		if (rc != 0)
			return rc;
	}
	rc = rte_eth_dev_start(port);
	if (rc != 0)
		return rc;
	/* vdevs such as net_pcap do not support it; that is not an error */
	(void)rte_eth_promiscuous_enable(port);
	return 0;
}

/* ---- statistics ---- */

double pd_now_s(void)
{
	return (double)rte_get_tsc_cycles() / (double)rte_get_tsc_hz();
}

static double stats_t0, stats_last;

/* Packets the ports lost before pktdedup saw them, as read at the stop. */
static uint64_t ports_lost(void)
{
	uint64_t lost = 0;

	for (unsigned p = 0; p < pd_app.nports; p++)
		lost += pd_app.port_loss[p].lost;
	return lost;
}

/* Packets the ports lost before pktdedup saw them, over every port, read now. */
static uint64_t ports_lost_now(void)
{
	uint64_t lost = 0;

	for (unsigned p = 0; p < pd_app.nports; p++) {
		struct pd_port_loss l;

		pd_port_loss_read(pd_app.port_id[p], &l);
		lost += l.lost;
	}
	return lost;
}

static void print_line(FILE *out, double secs)
{
	struct pd_counters t;

	pd_counters_sum(&t);
	fprintf(out, "pktdedup: %.1fs", secs);
	for (unsigned i = 0; i < pd_counter_count; i++)
		if (pd_counter_table[i].in_line)
			fprintf(out, " %s %" PRIu64, pd_counter_table[i].name, pd_counter_value(&t, i));
	fprintf(out, " lost_at_ports %" PRIu64 "\n", ports_lost_now());
	fflush(out);
}

/* Called by the main lcore (from its worker loop, or its wait loop). */
void pd_stats_tick(void)
{
	double now;

	if (pd_app.cfg.stats_interval <= 0)
		return;
	now = pd_now_s();
	if (now - stats_last >= pd_app.cfg.stats_interval) {
		stats_last = now;
		print_line(stderr, now - stats_t0);
	}
}


/* The plan line: the filter's parameters, what it remembers and what it may lose. */
static void print_plan(FILE *out)
{
	const struct pd_plan *p = &pd_app.plan;
	char desc[96], mem[64];

	cli_params_describe(&p->params, desc, sizeof(desc));
	if (p->remembers == 0)
		snprintf(mem, sizeof(mem), "every key (unbounded memory)");
	else
		snprintf(mem, sizeof(mem), "about the last %" PRIu64 " distinct keys",
			 p->remembers);
	fprintf(out, "pktdedup: plan: %s %s; remembers %s per worker; predicted"
		" false-positive rate %.3g (%s), loss budget %g\n",
		pd_filter_type_name(p->params.type), desc, mem, p->predicted_fpr, p->basis,
		pd_app.cfg.filter.target_fpr);
	if (p->assumed_gap != 0)
		fprintf(out, "pktdedup: plan: a copy %" PRIu64 " %s after its original"
			" is missed with predicted probability %.3g (%s; docs/filters.md)\n",
			p->assumed_gap, p->params.type == PD_FILTER_QQHTD ||
			p->params.type == PD_FILTER_SBF ? "keys (repeats too)" :
			"distinct keys", p->predicted_fnr,
			pd_app.cfg.gap_from_window ? "assumed: one --window at 14.88 Mpps, 10GbE line "
						     "rate, set --expected-n" :
			p->params.expected_n != 0 ? "--expected-n" :
			"assumed: half what the memory holds at best, set --expected-n");
}

/* The "plan" object of the JSON summary. */
static void json_plan(FILE *o)
{
	const struct pd_plan *p = &pd_app.plan;
	const struct pd_filter_params *fp = &p->params;
	char desc[96];

	cli_params_describe(fp, desc, sizeof(desc));
	fprintf(o, "  \"plan\": {\"filter\": \"%s\", \"parameters\": \"%s\", \"k\": %u,"
		" \"sbf_max\": %u, \"sbf_p\": %u, \"rsbf_pstar\": %g, \"qht_b\": %u,"
		" \"qht_f\": %u, \"fpbuf_q\": %g, \"expected_n\": %" PRIu64 ",\n"
		"    \"loss_budget\": %g, \"predicted_fpr\": %g, \"basis\": \"%s\","
		" \"remembers\": %" PRIu64 ", \"capacity\": %" PRIu64 ",\n"
		"    \"assumed_gap\": %" PRIu64 ", \"predicted_fnr\": %g},\n",
		pd_filter_type_name(fp->type), desc, fp->k, fp->sbf_max, fp->sbf_p,
		fp->rsbf_pstar, fp->qht_b, fp->qht_f, fp->fpbuf_q, fp->expected_n,
		pd_app.cfg.filter.target_fpr, p->predicted_fpr, p->basis, p->remembers,
		p->capacity, p->assumed_gap, p->predicted_fnr);
}

static void json_counters(FILE *o, const struct pd_counters *c, const char *indent)
{
	fprintf(o, "%s", indent);
	for (unsigned i = 0; i < pd_counter_count; i++)
		fprintf(o, "\"%s\": %" PRIu64 ",%s", pd_counter_table[i].name,
			pd_counter_value(c, i), i + 1 < pd_counter_count ? " " : "");
	fprintf(o, "\n%s\"unparseable_reasons\": {", indent);
	for (int r = 1; r < PD_KEY_REASON_COUNT; r++)
		fprintf(o, "\"%s\": %" PRIu64 ", ", pd_key_reason_name((enum pd_key_reason)r),
			c->reasons[r]);
	fprintf(o, "\"oversize\": %" PRIu64 "}", c->oversize);
}

/* "1us", "20ms", "5s": a bucket bound for people. */
static void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns >= 1000000000ULL)
		snprintf(buf, len, "%" PRIu64 "s", ns / (uint64_t)1000000000);
	else if (ns >= 1000000ULL)
		snprintf(buf, len, "%" PRIu64 "ms", ns / (uint64_t)1000000);
	else
		snprintf(buf, len, "%" PRIu64 "us", ns / (uint64_t)1000);
}

static const char *time_src_name(void)
{
	return pd_app.time_src == PD_TIME_PCAP ? "pcap" :
	       pd_app.time_src == PD_TIME_TSC ? "rx-tsc" : "none";
}

/* The delay histogram as JSON (null when the filter keeps no times). */
static void json_delays(FILE *o, const struct pd_counters *t)
{
	uint64_t n = 0;

	if (!pd_app.want_delay) {
		fprintf(o, "  \"delay_histogram\": null,\n");
		return;
	}
	for (int b = 0; b < PD_DELAY_BUCKETS; b++)
		n += t->delay[b];
	fprintf(o, "  \"delay_histogram\": {\"measured\": %" PRIu64 ", \"buckets\": [", n);
	for (int b = 0; b < PD_DELAY_BUCKETS; b++) {
		uint64_t from = b == 0 ? 0 : pd_delay_bound_ns[b - 1];

		fprintf(o, "%s\n    {\"from_ns\": %" PRIu64 ", \"to_ns\": ", b ? "," : "", from);
		if (b + 1 < PD_DELAY_BUCKETS)
			fprintf(o, "%" PRIu64, pd_delay_bound_ns[b]);
		else
			fprintf(o, "null");
		fprintf(o, ", \"count\": %" PRIu64 "}", t->delay[b]);
	}
	fprintf(o, "]},\n");
}

/* rx = tx + dropped + tx_failed + dispatch_failed (every packet accounted for). */
static int identity_holds(const struct pd_counters *t)
{
	return t->rx == t->tx + t->dropped + t->tx_failed + t->dispatch_failed;
}

static int write_json(const char *path, double secs, unsigned mbufs_in_use)
{
	struct pd_counters t;
	const struct pd_filter_params *fp = pd_filter_params(pd_app.w[0]->filter);
	FILE *o = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");

	if (o == NULL) {
		fprintf(stderr, "pktdedup: --stats-json %s: %s\n", path, strerror(errno));
		return -1;
	}
	pd_counters_sum(&t);
	fprintf(o, "{\n  \"filter\": \"%s\", \"memory_per_worker\": %" PRIu64 ", \"key\": \"%s\","
		" \"action\": \"%s\", \"workers\": %u, \"dispatch\": \"%s\", \"seconds\": %.6f,\n",
		pd_filter_type_name(fp->type), fp->memory_bytes,
		pd_key_mode_name(pd_app.cfg.key.mode),
		pd_app.cfg.action == PD_ACTION_DROP ? "drop" :
		pd_app.cfg.action == PD_ACTION_MARK ? "mark" : "count",
		pd_app.nworkers, pd_app.dispatching ? "software" :
		pd_app.nworkers > 1 ? "rss" : "none", secs);
	pd_snap_json(o);
	json_plan(o);
	fprintf(o, "  \"window_ns\": %" PRIu64 ", \"window_mode\": \"%s\", \"time\": \"%s\",\n",
		fp->window, fp->window == 0 ? "none" :
		fp->window_mode == PD_WINDOW_SEEN ? "seen" : "delivered", time_src_name());
	json_delays(o, &t);
	/* with --pcap-out the forwarded frames go to the file, not through the port's TX */
	fprintf(o, "  \"tx_to\": \"%s\",\n", pd_app.replay ? pd_replay_tx_to() : "ports");
	fprintf(o, "  \"mbufs_in_use\": %u,\n", mbufs_in_use);
	fprintf(o, "  \"accounted\": %s,\n  \"lost_at_ports\": %" PRIu64 ",\n  \"total\": {\n",
		identity_holds(&t) ? "true" : "false", ports_lost());
	json_counters(o, &t, "    ");
	fprintf(o, "\n  },\n  \"workers_detail\": [\n");
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		fprintf(o, "    {\"worker\": %u, \"lcore\": %u,\n", i, pd_app.w[i]->lcore);
		json_counters(o, &pd_app.w[i]->c, "     ");
		fprintf(o, "}%s\n", i + 1 < pd_app.nworkers ? "," : "");
	}
	fprintf(o, "  ],\n  \"ports\": [\n");
	for (unsigned p = 0; p < pd_app.nports; p++) {
		const struct pd_port_loss *ps = &pd_app.port_loss[p];
		uint16_t id = pd_app.port_id[p];

		fprintf(o, "    {\"port\": %u, \"rx\": %" PRIu64 ", \"duplicate\": %" PRIu64
			", \"ipackets\": %" PRIu64 ", \"opackets\": %" PRIu64
			", \"rx_nombuf\": %" PRIu64 ", \"imissed\": %" PRIu64 ", \"ierrors\": %"
			PRIu64 ", \"kernel_drops\": %" PRIu64 ", \"lost\": %" PRIu64
			", \"oerrors\": %" PRIu64 "}%s\n", id, t.port_rx[id], t.port_dup[id],
			ps->ipackets, ps->opackets, ps->rx_nombuf, ps->imissed, ps->ierrors,
			ps->kernel_drops, ps->lost, ps->oerrors, p + 1 < pd_app.nports ? "," : "");
	}
	fprintf(o, "  ]\n}\n");
	if (o != stdout && fclose(o) != 0) {
		fprintf(stderr, "pktdedup: --stats-json %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void print_summary(double secs)
{
	struct pd_counters t;
	/* with --stats-json -, --pcap-out - or --dup-out - standard output carries that
	 * data alone */
	const struct pd_app_config *c = &pd_app.cfg;
	FILE *out = (c->stats_json != NULL && strcmp(c->stats_json, "-") == 0) ||
		    (c->pcap_out != NULL && strcmp(c->pcap_out, "-") == 0) ||
		    (c->dup_out != NULL && strcmp(c->dup_out, "-") == 0) ? stderr : stdout;

	pd_counters_sum(&t);
	fprintf(out, "pktdedup: %" PRIu64 " packets in %.6f s: %" PRIu64 " unique, %" PRIu64
	       " duplicate, %" PRIu64 " unparseable\n", t.rx, secs, t.unique, t.duplicate,
	       t.unparseable);
	fprintf(out, "pktdedup: forwarded %" PRIu64 ", dropped %" PRIu64 ", marked %" PRIu64
	       ", tx failed %" PRIu64 ", dispatch failed %" PRIu64 "; accounted: %s",
	       t.tx, t.dropped, t.marked, t.tx_failed, t.dispatch_failed,
	       identity_holds(&t) ? "yes" : "NO");
	if (!pd_app.replay) /* what the ports received is rx + what they lost */
		fprintf(out, "; lost at the ports: %" PRIu64, ports_lost());
	fprintf(out, "\n");
	for (int r = 1; r < PD_KEY_REASON_COUNT; r++)
		if (t.reasons[r] != 0)
			fprintf(out, "pktdedup:   unparseable %-22s %" PRIu64 "\n",
			       pd_key_reason_name((enum pd_key_reason)r), t.reasons[r]);
	if (pd_app.cfg.filter.window != 0)
		fprintf(out, "pktdedup: window %" PRIu64 " ns (%s), time from %s\n",
			pd_app.cfg.filter.window,
			pd_app.cfg.filter.window_mode == PD_WINDOW_SEEN ? "seen" : "delivered",
			pd_app.time_src == PD_TIME_PCAP ? "pcap timestamps" : "the RX TSC");
	if (pd_app.want_delay) {
		uint64_t n = 0;

		for (int b = 0; b < PD_DELAY_BUCKETS; b++)
			n += t.delay[b];
		fprintf(out, "pktdedup: delay from copy to duplicate (%" PRIu64 " measured):", n);
		for (int b = 0; b < PD_DELAY_BUCKETS; b++) {
			char lo[16], hi[16];

			if (t.delay[b] == 0)
				continue;
			fmt_ns(lo, sizeof(lo), b == 0 ? 0 : pd_delay_bound_ns[b - 1]);
			if (b + 1 < PD_DELAY_BUCKETS)
				fmt_ns(hi, sizeof(hi), pd_delay_bound_ns[b]);
			fprintf(out, b + 1 < PD_DELAY_BUCKETS ? " [%s,%s) %" PRIu64 : " >=%s%s %" PRIu64,
				b == 0 ? "0" : lo, b + 1 < PD_DELAY_BUCKETS ? hi : "", t.delay[b]);
		}
		fprintf(out, "\n");
	}
	for (unsigned p = 0; p < pd_app.nports; p++) {
		const struct pd_port_loss *ps = &pd_app.port_loss[p];

		if (ps->lost | ps->oerrors)
			fprintf(out, "pktdedup: port %u LOST %" PRIu64 " packets before pktdedup saw"
				" them: RX ring full %" PRIu64 ", no mbuf %" PRIu64 ", RX errors %"
				PRIu64 ", kernel socket ring full %" PRIu64 "; TX errors %" PRIu64
				" (docs/app.md: sizing the rings)\n", pd_app.port_id[p], ps->lost,
				ps->imissed, ps->rx_nombuf, ps->ierrors, ps->kernel_drops, ps->oerrors);
	}
	fflush(out);
}

static int telemetry_stats(const char *cmd, const char *params, struct rte_tel_data *d)
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
	rte_tel_data_add_dict_u64(d, "lost_at_ports", ports_lost_now());
	rte_tel_data_add_dict_u64(d, "workers", pd_app.nworkers);
	rte_tel_data_add_dict_u64(d, "window_ns", pd_app.cfg.filter.window);
	if (pd_app.want_delay) {
		/* counts per bucket: [0,1us), [1us,2us), ... [5s,10s), >= 10s */
		struct rte_tel_data *h = rte_tel_data_alloc();

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

/* ---- workers ---- */

static int seed_from_getrandom(uint64_t *seed)
{
	ssize_t n = getrandom(seed, sizeof(*seed), 0);

	return n == (ssize_t)sizeof(*seed) ? 0 : -1;
}

static int make_workers(void)
{
	const struct pd_app_config *c = &pd_app.cfg;
	unsigned lcore, want = c->workers, i = 0;

	RTE_LCORE_FOREACH(lcore) {
		struct pd_worker *w;
		int socket = (int)rte_lcore_to_socket_id(lcore);

		if (want != 0 && i == want)
			break;
		w = rte_zmalloc_socket("pd_worker", sizeof(*w), RTE_CACHE_LINE_SIZE, socket);
		if (w == NULL)
			return -1;
		w->idx = i;
		w->lcore = lcore;
		w->txq = (uint16_t)i;
		w->scratch = rte_malloc_socket("pd_scratch", PD_APP_SCRATCH_LEN,
					       RTE_CACHE_LINE_SIZE, socket);
		w->keybuf = rte_malloc_socket("pd_key", 2 * PD_APP_KEYBUF_LEN,
					      RTE_CACHE_LINE_SIZE, socket);
		if (w->scratch == NULL || w->keybuf == NULL)
			return -1;
		pd_app.w[i++] = w;
	}
	if (want != 0 && i < want) {
		fprintf(stderr, "pktdedup: --workers %u: only %u lcores given to EAL (use -l)\n",
			want, i);
		return -2;
	}
	pd_app.nworkers = i;
	return 0;
}

/*
 * Filters are created by their own lcore: the library's allocation is touched first
 * there, so its pages land on that lcore's NUMA node (first-touch policy).
 */
static int create_filter(void *arg)
{
	struct pd_worker *w = arg;
	struct pd_error err;

	w->filter = pd_filter_create(&pd_app.cfg.filter, &err);
	if (w->filter == NULL) {
		fprintf(stderr, "pktdedup: worker %u: %s\n", w->idx, err.msg);
		w->failed = 1;
	}
	return 0;
}

/*
 * Run fn on every worker: the other lcores are launched, then the main lcore runs its
 * own worker, if it has one (*main_ran). A launch failure stops the launched ones
 * (pd_force_quit) and returns -1; the caller still waits for them.
 */
static int run_on_workers(int (*fn)(void *), int *main_ran)
{
	struct pd_worker *mainw = NULL;

	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		struct pd_worker *w = pd_app.w[i];

		if (w->lcore == rte_get_main_lcore()) {
			mainw = w;
		} else if (rte_eal_remote_launch(fn, w, w->lcore) != 0) {
			fprintf(stderr, "pktdedup: cannot launch lcore %u\n", w->lcore);
			pd_force_quit = 1;
			return -1;
		}
	}
	if (mainw != NULL)
		fn(mainw);
	*main_ran = mainw != NULL;
	return 0;
}

static void close_ports(const uint16_t *ports, unsigned n)
{
	static int closed;

	if (closed)
		return;
	closed = 1;
	for (unsigned p = 0; p < n; p++) {
		rte_eth_dev_stop(ports[p]);
		rte_eth_dev_close(ports[p]);
	}
}

/*
 * Inline: the ports (the pair, one port, or the default), the workers, dispatch (RSS
 * when every port hashes on the key's fields, else software rings), the mbuf pool and
 * the queues. 0, or the exit status.
 */
static int inline_setup(void)
{
	struct pd_app_config *c = &pd_app.cfg;
	uint16_t nb_ports, *ports = pd_app.port_id;
	unsigned nports = 0;
	uint64_t rss_hf = 0;
	int rss = 0, rc;

	/* ports: the pair, one port, or the default */
	nb_ports = rte_eth_dev_count_avail();
	if (nb_ports == 0) {
		fprintf(stderr, "pktdedup: no ports (bind a NIC to DPDK, or give --vdev)\n");
		return 1;
	}
	if (c->nports == 0) {
		c->ports[0] = 0;
		c->ports[1] = nb_ports >= 2 ? 1 : -1;
		c->nports = c->ports[1] >= 0 ? 2 : 1;
	}
	for (int i = 0; i < c->nports; i++) {
		if (!rte_eth_dev_is_valid_port((uint16_t)c->ports[i])) {
			fprintf(stderr, "pktdedup: --ports: port %d does not exist (%u ports)\n",
				c->ports[i], nb_ports);
			return 2;
		}
		ports[nports++] = (uint16_t)c->ports[i];
	}
	for (int i = 0; i < RTE_MAX_ETHPORTS; i++)
		pd_app.peer[i] = i;
	if (c->nports == 2) {
		pd_app.peer[c->ports[0]] = c->ports[1];
		pd_app.peer[c->ports[1]] = c->ports[0];
	}
	if (c->dup_port >= 0) {
		if (!rte_eth_dev_is_valid_port((uint16_t)c->dup_port)) {
			fprintf(stderr, "pktdedup: --dup-port %d: no such port\n", c->dup_port);
			return 2;
		}
		if (c->dup_port != c->ports[0] && c->dup_port != c->ports[1])
			ports[nports++] = (uint16_t)c->dup_port;
	}
	pd_app.nports = nports;
	pd_app.ntx = nports; /* the ports a worker may send on */
	memcpy(pd_app.tx_port, ports, nports * sizeof(ports[0]));

	rc = make_workers();
	if (rc != 0) {
		if (rc == -1)
			fprintf(stderr, "pktdedup: out of memory for worker state\n");
		return rc == -2 ? 2 : 1;
	}

	/* dispatch: RSS when several workers and every port hashes on the key's fields */
	if (pd_app.nworkers > 1) {
		int rss_ok = rss_fields(&c->key, &rss_hf) == 0;

		for (unsigned i = 0; i < (unsigned)c->nports && rss_ok; i++) {
			struct rte_eth_dev_info info;

			/* every field, and the L3_SRC_ONLY modifier when asked for, is a bit
			 * of flow_type_rss_offloads */
			rss_ok = rte_eth_dev_info_get(ports[i], &info) == 0 &&
				 (info.flow_type_rss_offloads & rss_hf) == rss_hf &&
				 info.max_rx_queues >= pd_app.nworkers;
		}
		if (c->dispatch == PD_DISPATCH_RSS && !rss_ok) {
			fprintf(stderr, "pktdedup: --dispatch rss: the ports cannot hash on the %s"
				" key's fields with %u queues; use --dispatch software\n",
				pd_key_mode_name(c->key.mode), pd_app.nworkers);
			return 2;
		}
		rss = rss_ok && c->dispatch != PD_DISPATCH_SOFTWARE;
		pd_app.dispatching = !rss;
	}

	/* mbufs: every RX and TX ring full, plus bursts in flight and dispatch rings */
	{
		unsigned n = c->mbufs;

		if (n == 0)
			n = nports * pd_app.nworkers * (c->rx_desc + c->tx_desc) +
			    pd_app.nworkers * (4 * PD_APP_BURST + 2 * 1024) + 4096;
		pd_app.pool = rte_pktmbuf_pool_create("pd_mbufs", n, 256, 0,
						      RTE_MBUF_DEFAULT_BUF_SIZE,
						      (int)rte_socket_id());
		if (pd_app.pool == NULL) {
			fprintf(stderr, "pktdedup: cannot create %u mbufs: %s\n", n,
				rte_strerror(rte_errno));
			return 1;
		}
	}
	if (pd_app.dispatching) {
		static const struct rte_mbuf_dynfield hf = {
			.name = "pktdedup_key_hash", .size = sizeof(uint64_t),
			.align = __alignof__(uint64_t),
		};

		static const struct rte_mbuf_dynfield tf = {
			.name = "pktdedup_rx_time", .size = sizeof(uint64_t),
			.align = __alignof__(uint64_t),
		};

		pd_app.hash_dynfield = rte_mbuf_dynfield_register(&hf);
		pd_app.time_dynfield = pd_app.time_src != PD_TIME_NONE ?
			rte_mbuf_dynfield_register(&tf) : 0;
		if (pd_app.hash_dynfield < 0 || pd_app.time_dynfield < 0) {
			fprintf(stderr, "pktdedup: mbuf field: %s\n", rte_strerror(rte_errno));
			return 1;
		}
		for (unsigned i = 0; i < pd_app.nworkers; i++) {
			char name[32];

			snprintf(name, sizeof(name), "pd_ring_%u", i);
			pd_app.w[i]->ring = rte_ring_create(name, 1024,
				(int)rte_lcore_to_socket_id(pd_app.w[i]->lcore), RING_F_SC_DEQ);
			if (pd_app.w[i]->ring == NULL) {
				fprintf(stderr, "pktdedup: ring: %s\n", rte_strerror(rte_errno));
				return 1;
			}
		}
	}

	/* RX queues: with RSS, queue q of each port goes to worker q; otherwise one queue
	 * per port, on worker 0 (software dispatch spreads the keys). TX: one per worker. */
	for (unsigned p = 0; p < nports; p++) {
		int is_rx = p < (unsigned)c->nports;
		unsigned nrxq = is_rx ? (rss ? pd_app.nworkers : 1) : 0;
		struct rte_eth_dev_info info;

		if (rte_eth_dev_info_get(ports[p], &info) == 0 && !is_rx && info.max_rx_queues > 0)
			nrxq = 1; /* some PMDs need one RX queue; the dup port's is never polled */
		rc = port_setup(ports[p], nrxq, pd_app.nworkers, rss, rss_hf);
		if (rc != 0) {
			fprintf(stderr, "pktdedup: port %u: setup failed: %s\n", ports[p],
				rte_strerror(-rc));
			return 1;
		}
		for (unsigned q = 0; is_rx && q < nrxq; q++) {
			struct pd_worker *w = pd_app.w[rss ? q : 0];

			w->rxq[w->n_rxq].port = ports[p];
			w->rxq[w->n_rxq].queue = (uint16_t)q;
			w->n_rxq++;
		}
	}

	return 0;
}

/* Replay: the workers, each owning the keys whose hash falls to it, and the files. */
static int replay_setup(void)
{
	int rc = make_workers();

	if (rc != 0) {
		if (rc == -1)
			fprintf(stderr, "pktdedup: out of memory for worker state\n");
		return rc == -2 ? 2 : 1;
	}
	pd_app.dispatching = pd_app.nworkers > 1; /* by key hash, as software dispatch */
	return pd_replay_start() != 0 ? 1 : 0;
}

/* EAL would not start: what it said, and what to do about the usual causes. */
static void eal_failed(void)
{
	int e = rte_errno;

	if (e == EACCES || e == EPERM)
		fprintf(stderr, "pktdedup: EAL: %s: inline runs need root (hugepages,"
			" /var/run/dpdk, devices); without root, give EAL --no-huge --no-shconf"
			" with virtual devices (--vdev), or deduplicate a capture with --pcap-in"
			" (no root needed)\n", rte_strerror(e));
	else if (e == 0 || e == EALREADY || e == EBUSY || e == EEXIST)
		/* "Cannot init config": the file prefix's lock is held */
		fprintf(stderr, "pktdedup: EAL could not start (%s): most often another DPDK"
			" process uses the same file prefix; give each instance its own with the"
			" EAL option --file-prefix NAME (docs/app.md)\n",
			e == 0 ? "no reason given" : rte_strerror(e));
	else
		fprintf(stderr, "pktdedup: EAL: %s (see the EAL lines above; docs/app.md)\n",
			rte_strerror(e));
}

/* Split argv at "--" and parse pktdedup's options: 0, or the exit status (2). */
static int parse_args(int argc, char **argv, int *sep)
{
	struct pd_app_config *c = &pd_app.cfg;
	int pargc;
	char **pargv;

	*sep = -1;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			*sep = i;
			break;
		}
	for (int i = 1; i < *sep; i++)
		if (strcmp(argv[i], "--pcap-in") == 0 || strncmp(argv[i], "--pcap-in=", 10) == 0) {
			fprintf(stderr, "pktdedup: --pcap-in sets up EAL itself: give no EAL options"
				" (and no '--')\n");
			return 2;
		}
	/* pktdedup options: after "--", or all of them when there is no "--" */
	pargc = *sep < 0 ? argc : argc - *sep;
	pargv = *sep < 0 ? argv : argv + *sep;
	if (*sep >= 0)
		pargv[0] = argv[0];
	if (pd_app_parse(pargc, pargv, c) != 0)
		return 2;
	if (c->pcap_in != NULL && *sep >= 0) {
		fprintf(stderr, "pktdedup: --pcap-in sets up EAL itself: give no EAL options"
			" (and no '--')\n");
		return 2;
	}
	if (c->pcap_in == NULL && *sep < 0) {
		fprintf(stderr, "pktdedup: give EAL options and '--' before pktdedup's options,"
			" or --pcap-in FILE\ntry: pktdedup --help\n");
		return 2;
	}
	return 0;
}

/*
 * Checks before anything starts: the filter's plan, which must keep the loss budget
 * (--fpr: a false positive drops a unique packet), the output files, the seed.
 */
static int preflight(void)
{
	struct pd_app_config *c = &pd_app.cfg;
	struct pd_plan *plan = &pd_app.plan;
	struct pd_error err;

	if (pd_plan(&c->filter, plan, &err) != 0) {
		fprintf(stderr, "pktdedup: %s: filter %s: %s\n", cli_param_option(err.msg),
			pd_filter_type_name(c->filter.type), err.msg);
		return 2;
	}
	if (plan->predicted_fpr > c->filter.target_fpr * (1.0 + 1e-9)) {
		char desc[96];

		cli_params_describe(&plan->params, desc, sizeof(desc));
		fprintf(stderr, "pktdedup: --filter %s (%s): predicted false-positive rate %.3g"
			" (%s) is above the loss budget --fpr %g: that share of unique packets"
			" would be dropped as copies. Give --fpr %.3g to accept it, change the"
			" filter's parameters, or use qhtlru, qqhtd, qht, sbf, bloom, timerbf, lru or"
			" exact\n", pd_filter_type_name(c->filter.type), desc, plan->predicted_fpr,
			plan->basis, c->filter.target_fpr, plan->predicted_fpr * 1.001);
		return 2;
	}
	if (pd_app_check_outputs(c) != 0 || pd_snap_lock() != 0)
		return 1;
	if (!c->seed_given && seed_from_getrandom(&c->filter.seed) != 0) {
		fprintf(stderr, "pktdedup: getrandom: %s\n", strerror(errno));
		return 1;
	}
	/* time: for a window, and for the exact filter's delays (its histogram) */
	if (c->filter.window != 0 || c->filter.type == PD_FILTER_EXACT)
		pd_app.time_src = c->pcap_in != NULL ? PD_TIME_PCAP : PD_TIME_TSC;
	pd_app.replay = c->pcap_in != NULL;
	return 0;
}

/* The TSC clock, as ns since the epoch: inline packet times, so that the times a
 * --snapshot carries stay in the past after a restart or a reboot. */
static void clock_setup(void)
{
	__extension__ typedef unsigned __int128 u128;
	struct timespec now;
	uint64_t tsc;

	pd_app.tsc_ns_mult = (1000000000ULL << 32) / rte_get_tsc_hz();
	tsc = (uint64_t)(((u128)rte_rdtsc() * pd_app.tsc_ns_mult) >> 32);
	clock_gettime(CLOCK_REALTIME, &now);
	pd_app.tsc_ns_offset = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec - tsc;
}

/* The filters, each made on its worker's lcore, then the snapshot's state loaded. */
static int filters_setup(void)
{
	int main_ran, rc;

	if (pd_snap_prepare() != 0)
		return 1;
	rc = run_on_workers(create_filter, &main_ran);
	rte_eal_mp_wait_lcore();
	for (unsigned i = 0; i < pd_app.nworkers; i++)
		rc |= pd_app.w[i]->failed ? -1 : 0;
	if (rc != 0 || pd_snap_load() != 0)
		return 1;
	pd_delay_buckets_init();
	pd_app.want_delay = pd_app.time_src != PD_TIME_NONE &&
			    pd_filter_reports_delay(pd_app.w[0]->filter);
	return 0;
}

/* The start-up line: where packets come from, the workers, the filter and the key. */
static void print_start(void)
{
	const struct pd_app_config *c = &pd_app.cfg;
	const struct pd_filter_params *fp = pd_filter_params(pd_app.w[0]->filter);
	char from[64];

	if (pd_app.replay)
		snprintf(from, sizeof(from), "replay of %s", c->pcap_in);
	else if (c->nports == 2)
		snprintf(from, sizeof(from), "ports %d <-> %d", c->ports[0], c->ports[1]);
	else
		snprintf(from, sizeof(from), "port %d (single)", c->ports[0]);
	fprintf(stderr, "pktdedup: %s, %u worker%s, dispatch %s; filter %s, %" PRIu64
		" bytes per worker; key %s; action %s\n", from, pd_app.nworkers,
		pd_app.nworkers > 1 ? "s" : "",
		pd_app.nworkers == 1 ? "none (one worker)" :
		pd_app.replay ? "by key hash, output in input order" :
		pd_app.dispatching ? "software (rings)" : "RSS",
		pd_filter_type_name(fp->type), fp->memory_bytes, pd_key_mode_name(c->key.mode),
		c->action == PD_ACTION_DROP ? "drop" : c->action == PD_ACTION_MARK ? "mark" : "count");
	print_plan(stderr);
	if (PD_BENCH_STAGE)
		fprintf(stderr, "pktdedup: BENCHMARK BUILD (-Dbench_stage=%s): no filter probe,"
			" nothing is deduplicated\n", PD_BENCH_STAGE_NAME(PD_BENCH_STAGE));
}

/* Run the workers until the input ends (replay) or a signal; 0 or 1. */
static int run(void)
{
	int (*loop)(void *) = pd_app.replay ? pd_replay_main : pd_worker_main;
	int main_ran, status = 0;

	if (pd_snap_start() != 0)
		return 1;
	/* the main lcore either works (its loop prints the periodic line) or waits here */
	if (run_on_workers(loop, &main_ran) != 0)
		status = 1;
	else if (!main_ran)
		for (;;) {
			int running = 0;
			unsigned l;

			RTE_LCORE_FOREACH_WORKER(l)
				running |= rte_eal_get_lcore_state(l) == RUNNING;
			if (!running)
				break;
			rte_delay_ms(10);
			pd_stats_tick();
		}
	rte_eal_mp_wait_lcore();
	return status;
}

/* After the workers stopped: the final snapshot, the ports' own counters, the files,
 * the summary and the JSON. Returns the exit status. */
static int finish(double secs_from)
{
	const struct pd_app_config *c = &pd_app.cfg;
	struct pd_counters t;
	unsigned in_use = 0;
	double secs;
	int status = 0;

	if (pd_snap_finish() != 0)
		status = 1;
	for (unsigned p = 0; p < pd_app.nports; p++)
		pd_port_loss_read(pd_app.port_id[p], &pd_app.port_loss[p]);
	close_ports(pd_app.port_id, pd_app.nports); /* the PMDs give back the mbufs they hold */
	if (pd_app.replay && pd_replay_close() != 0)
		status = 1;
	secs = pd_now_s() - secs_from;
	if (pd_app.pool != NULL)
		in_use = rte_mempool_in_use_count(pd_app.pool);
	if (c->stats_interval > 0)
		print_line(stderr, secs);
	if (!c->quiet)
		print_summary(secs);
	if (pd_app.replay)
		pd_replay_summary(stderr);
	if (in_use != 0) {
		fprintf(stderr, "pktdedup: error: %u mbufs still in use after the ports"
			" closed: a leak (or a PMD that keeps what it was sent, such as"
			" net_ring with nobody reading its ring)\n", in_use);
		status = 1;
	}
	if (c->stats_json != NULL && write_json(c->stats_json, secs, in_use) != 0)
		status = 1;
	pd_counters_sum(&t);
	if (!identity_holds(&t)) {
		fprintf(stderr, "pktdedup: internal error: packets unaccounted for\n");
		status = 1;
	}
	if (pd_app.replay && pd_replay_status() > status)
		status = pd_replay_status(); /* 128 + signal when stopped early, as shells do */
	return status;
}

static void teardown(void)
{
	const struct pd_app_config *c = &pd_app.cfg;
	char rundir[PATH_MAX];

	close_ports(pd_app.port_id, pd_app.nports);
	if (pd_app.replay)
		(void)pd_replay_close();
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		pd_filter_destroy(pd_app.w[i]->filter);
		rte_ring_free(pd_app.w[i]->ring);
		rte_free(pd_app.w[i]->scratch);
		rte_free(pd_app.w[i]->keybuf);
		rte_free(pd_app.w[i]);
	}
	rte_mempool_free(pd_app.pool);
	/* replay: the runtime directory is this process's own (unique prefix) */
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (c->pcap_in != NULL)
		(void)rmdir(rundir);
}

int main(int argc, char **argv)
{
	char *eal_argv[32];
	int sep, rc, status;
	double t0;

	status = parse_args(argc, argv, &sep);
	if (status == 0)
		status = preflight();
	if (status == 0 && pd_app.replay) { /* before EAL: a bad file costs nothing */
		rc = pd_replay_open();
		status = rc == 0 ? 0 : rc == -2 ? 2 : 1; /* -2: a bad --bpf */
	}
	if (status != 0)
		return status;
	stop_signals(1);
	rc = pd_app.replay ? rte_eal_init(replay_eal_args(&pd_app.cfg, argv[0], eal_argv),
					  eal_argv) :
			     rte_eal_init(sep, argv);
	if (rc < 0) {
		eal_failed();
		return 1;
	}
	stop_signals(0);
	clock_setup();
	status = pd_app.replay ? replay_setup() : inline_setup();
	if (status == 0)
		status = filters_setup();
	if (status == 0 && pd_app.replay && pd_replay_open_output() != 0)
		status = 1;
	if (status == 0) {
		if (!pd_app.cfg.quiet)
			print_start();
		rte_telemetry_register_cmd("/pktdedup/stats", telemetry_stats,
					   "pktdedup counters: rx, tx, unique, duplicate, dropped, ...");
		t0 = stats_t0 = stats_last = pd_now_s();
		status = run();
		rc = finish(t0);
		status = rc != 0 ? rc : status;
	}
	teardown();
	return status;
}
