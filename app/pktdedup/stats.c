/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Statistics: the workers' counters summed (counters.c) written as the plan lines, the
 * periodic line, the text summary and the JSON summary (telemetry.c serves them while
 * running). It reads the workers' counters and the ports' own; nothing here is called by
 * the packet path except pd_stats_tick, from the main lcore's loop.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../common/cli.h"
#include "../common/json.h"
#include "pktdedup.h"

static double stats_t0, stats_last;
static struct timespec start_wall; /* the run's start, for the JSON's start_time */

/* The JSON summary's layout version: raised when a field changes meaning or goes. */
#define PD_JSON_SCHEMA 1

/* Packets the ports lost before pktdedup saw them, as read at the stop. */
static uint64_t ports_lost(void)
{
	uint64_t lost = 0;

	for (unsigned p = 0; p < pd_app.nports; p++)
		lost += pd_app.port_loss[p].lost;
	return lost;
}

void pd_stats_line(FILE *out, double secs)
{
	static double prev_s;
	static uint64_t prev_rx, prev_dup, prev_bytes;
	struct pd_counters t;
	uint64_t bytes, lost;
	const double dt = secs - prev_s;

	pd_counters_sum(&t);
	lost = pd_ports_lost_now(&bytes);
	fprintf(out, "pktdedup: %.1fs", secs);
	for (unsigned i = 0; i < pd_counter_count; i++)
		if (pd_counter_table[i].in_line)
			fprintf(out, " %s %" PRIu64, pd_counter_table[i].name, pd_counter_value(&t, i));
	fprintf(out, " lost_at_ports %" PRIu64, lost);
	if (dt > 0) { /* over the interval since the last line */
		const uint64_t rx = t.rx - prev_rx, dup = t.duplicate - prev_dup;

		fprintf(out, " rx_mpps %.3f dup_pct %.1f", (double)rx / dt / 1e6,
			rx != 0 ? 100.0 * (double)dup / (double)rx : 0.0);
		if (pd_app.nports != 0) /* frame bytes as the ports count them */
			fprintf(out, " rx_gbps %.3f", (double)(bytes - prev_bytes) * 8 / dt / 1e9);
	}
	prev_s = secs;
	prev_rx = t.rx;
	prev_dup = t.duplicate;
	prev_bytes = bytes;
	pd_estimate_line(out);
	fprintf(out, "\n");
	fflush(out);
}

/* Called by the main lcore (from its worker loop, or its wait loop; a replay's reader
 * after each batch): the periodic line, and one whenever SIGUSR1 asks. */
void pd_stats_tick(void)
{
	const int asked = atomic_exchange_explicit(&pd_stats_asked, 0, memory_order_relaxed);
	const double now = pd_now_s(); /* vDSO: about 20 ns, once a millisecond inline */
	static double watched;

	/* the loss budget, whatever the interval; SIGUSR1 has it looked at now */
	if (asked || now - watched >= PD_APP_WATCH_S) {
		watched = now;
		pd_estimate_watch();
	}
	if (pd_app.cfg.stats_interval <= 0 && !asked)
		return;
	if (asked || now - stats_last >= pd_app.cfg.stats_interval) {
		stats_last = now;
		pd_stats_line(stderr, now - stats_t0);
	}
}


/* The plan line: the filter's parameters, what it remembers and what it may lose. */
void pd_stats_plan(FILE *out)
{
	const struct pd_plan *p = &pd_app.plan;
	char desc[96], mem[64];

	pd_filter_params_describe(&p->params, desc, sizeof(desc));
	if (p->params.type == PD_FILTER_BLOOM) /* never forgets: its FPR grows instead */
		snprintf(mem, sizeof(mem), "every key (its false-positive rate grows with them)");
	else if (p->remembers == 0)
		snprintf(mem, sizeof(mem), "every key (unbounded memory)");
	else
		snprintf(mem, sizeof(mem), "about the last %" PRIu64 " distinct keys",
			 p->remembers);
	fprintf(out, "pktdedup: plan: %s %s; remembers %s per worker; predicted"
		" false-positive rate %.3g (%s), loss budget %g\n",
		pd_filter_type_name(p->params.type), desc, mem, p->predicted_fpr, p->basis,
		pd_app.cfg.filter.target_fpr);
	if (pd_app.cfg.gap_from_window && p->params.type == PD_FILTER_TIMERBF)
		fprintf(out, "pktdedup: plan: n = %" PRIu64 " distinct keys a window (assumed:"
			" one --window at 14.88 Mpps, 10GbE line rate, set --expected-n)\n",
			p->params.expected_n);
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
static void json_plan(struct json *j)
{
	const struct pd_plan *p = &pd_app.plan;
	const struct pd_filter_params *fp = &p->params;
	char desc[96];

	pd_filter_params_describe(fp, desc, sizeof(desc));
	json_open(j, "plan", '{', 1);
	json_str(j, "filter", pd_filter_type_name(fp->type));
	json_str(j, "parameters", desc);
	json_u64(j, "k", fp->k);
	json_u64(j, "sbf_max", fp->sbf_max);
	json_u64(j, "sbf_p", fp->sbf_p);
	json_f64(j, "rsbf_pstar", "%g", fp->rsbf_pstar);
	json_u64(j, "qht_b", fp->qht_b);
	json_u64(j, "qht_f", fp->qht_f);
	json_f64(j, "fpbuf_q", "%g", fp->fpbuf_q);
	json_u64(j, "expected_n", fp->expected_n);
	json_f64(j, "loss_budget", "%g", pd_app.cfg.filter.target_fpr);
	json_f64(j, "predicted_fpr", "%g", p->predicted_fpr);
	json_str(j, "basis", p->basis);
	json_u64(j, "remembers", p->remembers);
	json_u64(j, "capacity", p->capacity);
	json_u64(j, "assumed_gap", p->assumed_gap);
	json_f64(j, "predicted_fnr", "%g", p->predicted_fnr);
	json_close(j);
}

/* A worker's counters, or the total, as members of the open object. */
static void json_counters(struct json *j, const struct pd_counters *c)
{
	for (unsigned i = 0; i < pd_counter_count; i++)
		json_u64(j, pd_counter_table[i].name, pd_counter_value(c, i));
	json_open(j, "unparseable_reasons", '{', 1);
	for (int r = 1; r < PD_KEY_REASON_COUNT; r++)
		json_u64(j, pd_key_reason_name((enum pd_key_reason)r), c->reasons[r]);
	json_u64(j, "oversize", c->oversize);
	json_close(j);
	if (pd_app.cfg.key.decap != 0) { /* frames by the tunnels their parse opened */
		json_open(j, "decapsulated", '{', 1);
		for (unsigned k = 0; k < PD_DECAP_KINDS; k++)
			json_u64(j, pd_key_decap_name(k), c->decap[k]);
		json_close(j);
	}
}

/* "1us", "20ms", "5s": a bucket bound for people. */
static const char *time_src_name(void)
{
	return pd_app.time_src == PD_TIME_PCAP ? "pcap" :
	       pd_app.time_src == PD_TIME_TSC ? "rx-tsc" : "none";
}

/* The delay histogram as JSON (null when the filter keeps no times). */
static void json_delays(struct json *j, const struct pd_counters *t)
{
	uint64_t n = 0;

	if (!pd_app.want_delay) {
		json_null(j, "delay_histogram");
		return;
	}
	for (int b = 0; b < PD_DELAY_BUCKETS; b++)
		n += t->delay[b];
	json_open(j, "delay_histogram", '{', 0);
	json_u64(j, "measured", n);
	json_open(j, "buckets", '[', 0);
	for (int b = 0; b < PD_DELAY_BUCKETS; b++) {
		json_open(j, NULL, '{', 1);
		json_u64(j, "from_ns", b == 0 ? 0 : pd_delay_bound_ns[b - 1]);
		if (b + 1 < PD_DELAY_BUCKETS)
			json_u64(j, "to_ns", pd_delay_bound_ns[b]);
		else
			json_null(j, "to_ns");
		json_u64(j, "count", t->delay[b]);
		json_close(j);
	}
	json_close(j);
	json_close(j);
}

/* "input" and "output": the files of a replay, or the ports' device names (as read at
 * the stop, before the ports closed). */
static void json_endpoints(struct json *j)
{
	const struct pd_app_config *c = &pd_app.cfg;
	int out[RTE_MAX_ETHPORTS] = {0};

	json_open(j, "input", '[', 1);
	if (pd_app.replay)
		json_str(j, NULL, c->pcap_in);
	for (unsigned p = 0; !pd_app.replay && p < (unsigned)c->nports; p++) {
		const uint16_t id = pd_app.port_id[p];

		json_str(j, NULL, pd_app.port_name[id]);
		out[pd_app.peer[id]] = 1;
	}
	json_close(j);
	if (c->dup_port >= 0)
		out[c->dup_port] = 1;
	json_open(j, "output", '[', 1);
	if (pd_app.replay && c->pcap_out != NULL)
		json_str(j, NULL, c->pcap_out);
	if (pd_app.replay && c->dup_out != NULL)
		json_str(j, NULL, c->dup_out);
	for (unsigned p = 0; !pd_app.replay && p < RTE_MAX_ETHPORTS; p++)
		if (out[p])
			json_str(j, NULL, pd_app.port_name[p]);
	json_close(j);
}

/* The workers' filters' stats added up: the bytes they hold (exact grows with its keys),
 * the new keys they could not remember (exact, out of memory to grow) and the times
 * they forgot every key at a clock stepped back (windows). */
static struct pd_filter_stats filters_stats(void)
{
	struct pd_filter_stats sum = {0};

	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		struct pd_filter_stats st;

		pd_filter_stats(pd_app.w[i]->filter, &st);
		sum.footprint_bytes += st.footprint_bytes;
		sum.unstored += st.unstored;
		sum.forgotten += st.forgotten;
	}
	return sum;
}

/* rx = tx + dropped + tx_failed (every packet accounted for). */
static int identity_holds(const struct pd_counters *t)
{
	return t->rx == t->tx + t->dropped + t->tx_failed;
}

int pd_stats_json(const char *path, double secs, unsigned mbufs_in_use, const char *tx_to)
{
	struct pd_counters t;
	const struct pd_filter_params *fp = pd_filter_params(pd_app.w[0]->filter);
	const struct pd_app_config *c = &pd_app.cfg;
	struct pd_replace r; /* the old file stays whole until the new one is */
	FILE *o = strcmp(path, "-") == 0 ? stdout : pd_replace_open(&r, "--stats-json", path);
	struct json j;
	int rc, err;

	if (o == NULL) {
		if (errno != 0) /* else said */
			PD_LOG(ERR, "--stats-json %s: %s\n", path, strerror(errno));
		return -1;
	}
	pd_counters_sum(&t);
	json_begin(&j, o);
	json_open(&j, NULL, '{', 0);
	json_u64(&j, "schema_version", PD_JSON_SCHEMA);
	{
		char when[40];
		struct tm tm;

		gmtime_r(&start_wall.tv_sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03ldZ",
			 start_wall.tv_nsec / 1000000);
		json_str(&j, "start_time", when);
	}
	json_endpoints(&j);
	json_str(&j, "filter", pd_filter_type_name(fp->type));
	json_u64(&j, "memory_per_worker", fp->memory_bytes);
	{
		const struct pd_filter_stats fs = filters_stats();

		json_u64(&j, "filters_footprint_bytes", fs.footprint_bytes);
		json_u64(&j, "filters_unstored", fs.unstored);
		json_u64(&j, "filters_forgotten", fs.forgotten);
	}
	json_str(&j, "key", pd_key_mode_name(c->key.mode));
	json_str(&j, "action", c->action == PD_ACTION_DROP ? "drop" :
			       c->action == PD_ACTION_MARK ? "mark" : "count");
	json_u64(&j, "workers", pd_app.nworkers);
	json_str(&j, "dispatch", pd_app.dispatching ? "software" :
				 pd_app.nworkers > 1 ? "rss" : "none");
	json_u64(&j, "dispatch_ring", pd_app.ring_size); /* 0: no rings (RSS, replay) */
	json_f64(&j, "seconds", "%.6f", secs);
	pd_snap_json(&j);
	json_plan(&j);
	json_u64(&j, "window_ns", fp->window);
	json_str(&j, "window_mode", fp->window == 0 ? "none" :
				    fp->window_mode == PD_WINDOW_SEEN ? "seen" : "delivered");
	json_str(&j, "time", time_src_name());
	json_delays(&j, &t);
	pd_advice_json(&j);
	pd_estimate_json(&j);
	/* with --pcap-out the forwarded frames go to the file, not through the port's TX */
	json_str(&j, "tx_to", tx_to);
	json_u64(&j, "mbufs_in_use", mbufs_in_use);
	json_bool(&j, "accounted", identity_holds(&t));
	json_u64(&j, "lost_at_ports", ports_lost());
	json_open(&j, "total", '{', 0);
	json_counters(&j, &t);
	json_close(&j);
	json_open(&j, "workers_detail", '[', 0);
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		json_open(&j, NULL, '{', 1);
		json_u64(&j, "worker", i);
		json_u64(&j, "lcore", pd_app.w[i]->lcore);
		json_counters(&j, &pd_app.w[i]->c);
		json_close(&j);
	}
	json_close(&j);
	json_open(&j, "ports", '[', 0);
	for (unsigned p = 0; p < pd_app.nports; p++) {
		const struct pd_port_loss *ps = &pd_app.port_loss[p];
		const uint16_t id = pd_app.port_id[p];

		json_open(&j, NULL, '{', 1);
		json_u64(&j, "port", id);
		json_u64(&j, "rx", t.port_rx[id]);
		json_u64(&j, "duplicate", t.port_dup[id]);
		json_u64(&j, "ipackets", ps->ipackets);
		json_u64(&j, "opackets", ps->opackets);
		json_u64(&j, "rx_nombuf", ps->rx_nombuf);
		json_u64(&j, "imissed", ps->imissed);
		json_u64(&j, "ierrors", ps->ierrors);
		json_u64(&j, "kernel_drops", ps->kernel_drops);
		json_u64(&j, "lost", ps->lost);
		json_u64(&j, "oerrors", ps->oerrors);
		json_close(&j);
	}
	json_close(&j);
	json_close(&j);
	rc = json_end(&j);
	err = errno;
	if (o != stdout && pd_replace_close(&r, rc == 0) != 0 && rc == 0) {
		rc = -1;
		err = errno;
	}
	if (rc != 0)
		PD_LOG(ERR, "--stats-json %s: writing failed: %s%s\n", path, strerror(err),
		       o != stdout && r.tmp[0] != '\0' ? "; the file is as it was" : "");
	return rc;
}

void pd_stats_summary(double secs)
{
	struct pd_counters t;
	/* with --stats-json -, --pcap-out - or --dup-out - standard output carries that
	 * data alone */
	const struct pd_app_config *c = &pd_app.cfg;
	FILE *out = (c->stats_json != NULL && strcmp(c->stats_json, "-") == 0) ||
		    (c->pcap_out != NULL && strcmp(c->pcap_out, "-") == 0) ||
		    (c->dup_out != NULL && strcmp(c->dup_out, "-") == 0) ? stderr : stdout;
	const struct pd_filter_stats fs = filters_stats();

	pd_counters_sum(&t);
	fprintf(out, "pktdedup: %" PRIu64 " packets in %.6f s: %" PRIu64 " unique, %" PRIu64
	       " duplicate, %" PRIu64 " unparseable", t.rx, secs, t.unique, t.duplicate,
	       t.unparseable);
	if (t.bypassed != 0) /* outside --bpf, or the owner's ring was full */
		fprintf(out, ", %" PRIu64 " bypassed (no verdict)", t.bypassed);
	if (pd_app.cfg.allow != 0)
		fprintf(out, "; %" PRIu64 " copies allowed (--allow %u)", t.allowed,
			pd_app.cfg.allow);
	fprintf(out, "\n");
	fprintf(out, "pktdedup: forwarded %" PRIu64 ", dropped %" PRIu64 ", marked %" PRIu64
	       ", tx failed %" PRIu64 ", passed unchecked %" PRIu64
	       "; accounted: %s", t.tx, t.dropped, t.marked, t.tx_failed, t.dispatch_full,
	       identity_holds(&t) ? "yes" : "NO");
	if (!pd_app.replay) /* what the ports received is rx + what they lost */
		fprintf(out, "; lost at the ports: %" PRIu64, ports_lost());
	fprintf(out, "\n");
	for (int r = 1; r < PD_KEY_REASON_COUNT; r++)
		if (t.reasons[r] != 0)
			fprintf(out, "pktdedup:   unparseable %-22s %" PRIu64 "\n",
			       pd_key_reason_name((enum pd_key_reason)r), t.reasons[r]);
	if (pd_app.cfg.key.decap != 0) {
		fprintf(out, "pktdedup: tunnels opened (frames):");
		for (unsigned k = 0; k < PD_DECAP_KINDS; k++)
			fprintf(out, " %s %" PRIu64, pd_key_decap_name(k), t.decap[k]);
		fprintf(out, "\n");
	}
	if (pd_app.cfg.filter.window != 0)
		fprintf(out, "pktdedup: window %" PRIu64 " ns (%s), time from %s\n",
			pd_app.cfg.filter.window,
			pd_app.cfg.filter.window_mode == PD_WINDOW_SEEN ? "seen" : "delivered",
			pd_app.time_src == PD_TIME_PCAP ? "pcap timestamps" : "the RX TSC");
	if (fs.unstored != 0)
		fprintf(out, "pktdedup: warning: the %s filter could not grow (no memory): %" PRIu64
			" new keys were not remembered, so their copies passed as new"
			" (filters_unstored)\n", pd_filter_type_name(pd_app.plan.params.type),
			fs.unstored);
	if (fs.forgotten != 0) {
		const char *what = pd_app.replay ? "frame" : "packet";

		fprintf(out, "pktdedup: warning: time went back: the %s filter forgot every key"
			" it held (%" PRIu64 " time%s, summed over workers) when a %s came stamped"
			" far (64 windows or more) before the newest; copies of %ss before that"
			" may have passed, none was made up (filters_forgotten; docs/windows.md,"
			" \"A clock stepped back\")\n",
			pd_filter_type_name(pd_app.plan.params.type), fs.forgotten,
			fs.forgotten == 1 ? "" : "s", what, what);
	}
	pd_estimate_summary(out);
	pd_advice_print(out);
	if (pd_app.want_delay) {
		uint64_t n = 0;

		for (int b = 0; b < PD_DELAY_BUCKETS; b++)
			n += t.delay[b];
		fprintf(out, "pktdedup: delay from copy to duplicate (%" PRIu64 " measured):", n);
		for (int b = 0; b < PD_DELAY_BUCKETS; b++) {
			char lo[16], hi[16];

			if (t.delay[b] == 0)
				continue;
			pd_fmt_ns(lo, sizeof(lo), b == 0 ? 0 : pd_delay_bound_ns[b - 1]);
			if (b + 1 < PD_DELAY_BUCKETS)
				pd_fmt_ns(hi, sizeof(hi), pd_delay_bound_ns[b]);
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
	if (fflush(out) != 0 && pd_app.summary_errno == 0) /* main says it, status 1 */
		pd_app.summary_errno = errno;
}

int pd_stats_accounted(void)
{
	struct pd_counters t;

	pd_counters_sum(&t);
	return identity_holds(&t);
}

void pd_stats_start(void)
{
	clock_gettime(CLOCK_REALTIME, &start_wall);
	stats_t0 = stats_last = pd_now_s();
}
