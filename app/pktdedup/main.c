/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktdedup: the program's outline (main, at the end): options and checks, EAL (inline,
 * or a replay with --telemetry), the workers (threads.c: where they run) and where their
 * packets come from (ports.c inline, replay.c offline), the filters (and a snapshot's
 * state: snapshot.c), the run (worker.c, replay.c), then the summary (stats.c) and an
 * orderly stop. Files that call each other form no circle
 * (scripts/check_layers.py, the 'layers' test): main calls the others and none calls
 * main; the run's state (pd_app, the stop flag) is app.c's, the counter model
 * counters.c's, both below every other file. The inline worker (worker.c) reads the
 * run only through the context each worker is handed (struct pd_worker's app), never
 * through the global pd_app.
 *
 *   pktdedup [EAL options] -- [pktdedup options]
 *   pktdedup --pcap-in IN.pcap [--pcap-out OUT.pcap] [pktdedup options]
 *
 * The second form (replay.c) starts no EAL: the capture is read with libpcap, the workers
 * are plain threads (threads.c). With --telemetry, whose socket is EAL's, it builds its
 * own EAL arguments: no hugepages, no shared config files and a file prefix of its own
 * (pktdedup-PID, removed at exit), so parallel runs never collide; no PCI and no
 * devices. (--in-memory cannot be used: EAL refuses it with --no-huge.)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "../common/cli.h"
#include "../common/memavail.h"
#include "disposition.h"
#include "pktdedup.h"

static void on_signal(int sig)
{
	pd_force_quit = sig;
}

static void on_stats_signal(int sig)
{
	(void)sig;
	pd_stats_asked = 1;
}

/*
 * SIGINT, SIGTERM and SIGHUP (pd_stop_signals) stop the run in order. Without
 * SA_RESTART, so that a read waiting on a pipe returns and the replay can stop too; and
 * delivered to the main thread only (the reader in a replay): they are blocked while
 * EAL makes its threads, which keep that mask, then unblocked here (stop_signals(0));
 * a replay's plain threads start with every signal blocked (threads.c).
 * Unhandled, a hangup would kill the process as it stood: no summary, the snapshot not
 * written and the output cut at its last full stdio buffer; one ignored when pktdedup
 * starts (nohup) stays ignored. SIGPIPE is ignored: a
 * reader that closes its end of an output pipe (`| head`) fails the write with EPIPE,
 * which stops a replay in order (replay.c) with its summary, JSON and snapshot written,
 * instead of killing the process with nothing written. SIGUSR1 prints the counter line
 * (stderr) and goes on, as with tcpdump and dd, where it killed the run with nothing
 * written; with SA_RESTART, as it stops nothing. It is blocked with the stop signals
 * while EAL starts.
 */
static void stop_signals(int block)
{
	struct sigaction sa;
	sigset_t set, held;

	signal(SIGPIPE, SIG_IGN);
	pd_stop_signals(&set);
	pd_stop_signals(&held);
	sigaddset(&held, SIGUSR1); /* its default action ends the process too */
	if (block) {
		pthread_sigmask(SIG_BLOCK, &held, NULL);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction was;

		if (sigismember(&set, sig) != 1)
			continue;
		/* a hangup ignored from the start stays ignored: nohup asks for it, and an
		 * inline box started so must outlive its terminal */
		if (sig == SIGHUP && sigaction(sig, NULL, &was) == 0 && was.sa_handler == SIG_IGN)
			continue;
		sigaction(sig, &sa, NULL);
	}
	sa.sa_handler = on_stats_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	/* only now: a signal that came while EAL started waits, blocked, and is delivered
	 * here to its handler (a stop in order, or a counter line). Unblocked before the
	 * handlers were set, it met the disposition pktdedup started with: ignored (SIGINT
	 * of a job a script starts with '&') it was lost and the run went on; default
	 * (SIGTERM, SIGUSR1) it killed the process with nothing written. */
	pthread_sigmask(SIG_UNBLOCK, &held, NULL);
}

/* ---- replay with --telemetry: EAL without devices ---- */

/* EAL arguments for a replay that serves telemetry. Returns argc; the strings live in a
 * static buffer. */
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
	out[n++] = "--log-level";
	out[n++] = "pktdedup:info"; /* the start-up lines */
	if (!c->telemetry) /* a replay is short: its summary is the output */
		out[n++] = "--no-telemetry";
	out[n] = NULL;
	return n;
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
	unsigned lcore[PD_APP_MAX_WORKERS], want = c->workers, n;
	int socket[PD_APP_MAX_WORKERS];

	if (pd_app.eal && want == 0 && rte_lcore_count() > PD_APP_MAX_WORKERS) {
		PD_LOG(ERR, "EAL has %u lcores and pktdedup runs at most %d workers: give"
			" --workers N, or fewer lcores (-l)\n", rte_lcore_count(), PD_APP_MAX_WORKERS);
		return -2;
	}
	/* without EAL (a replay) there are as many threads as asked for */
	n = pd_threads_lcores(lcore, want != 0 ? want : pd_app.eal ? PD_APP_MAX_WORKERS : 1,
			      socket);
	for (unsigned i = 0; i < n; i++) {
		struct pd_worker *w = pd_state_zalloc("pd_worker", sizeof(*w), socket[i]);

		if (w == NULL)
			return -1;
		pd_app.w[i] = w;
		pd_app.nworkers = i + 1; /* what teardown frees */
		w->app = &pd_app;
		w->idx = i;
		w->lcore = lcore[i];
		w->txq = (uint16_t)i;
		w->scratch = pd_state_zalloc("pd_scratch", PD_APP_SCRATCH_LEN, socket[i]);
		w->keybuf = pd_state_zalloc("pd_key", 2 * PD_APP_KEYBUF_LEN, socket[i]);
		if (w->scratch == NULL || w->keybuf == NULL)
			return -1;
	}
	if (want != 0 && n < want) {
		PD_LOG(ERR, "--workers %u: only %u lcores given to EAL (use -l)\n",
			want, n);
		return -2;
	}
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

	w->filter = pd_filter_create_planned(&pd_app.plan, &err); /* main planned it once */
	if (w->filter == NULL) {
		PD_LOG(ERR, "worker %u: %s\n", w->idx, err.msg);
		w->failed = 1;
		return 0;
	}
	if (pd_app.cfg.estimate_level >= 0) {
		const struct pd_filter_params *fp = pd_filter_params(w->filter);

		w->est = pd_estimate_create((unsigned)pd_app.cfg.estimate_level,
					    PD_ESTIMATE_ENTRIES, fp->window, fp->window_mode);
		if (w->est == NULL) {
			PD_LOG(ERR, "worker %u: no memory for the estimate's shadow\n", w->idx);
			w->failed = 1;
		}
	}
	if (pd_app.cfg.allow != 0) {
		w->allow = pd_allow_create(pd_app.cfg.allow, pd_app.cfg.allow_bytes);
		if (w->allow == NULL) {
			PD_LOG(ERR, "worker %u: no memory for --allow's table\n", w->idx);
			w->failed = 1;
		}
	}
	return 0;
}

/* The workers (0, or the exit status). */
static int workers_setup(void)
{
	int rc = make_workers();

	if (rc == -1)
		PD_LOG(ERR, "out of memory for worker state\n");
	return rc == 0 ? 0 : rc == -2 ? 2 : 1;
}

/* Replay: the workers, each owning the keys whose hash falls to it. Inline: the ports,
 * the workers, then dispatch, mbufs and queues. 0, or the exit status. */
static int setup(void)
{
	int status;

	if (pd_app.replay) {
		pd_disp_init(&pd_app);
		status = workers_setup();
		pd_app.dispatching = pd_app.nworkers > 1; /* by key hash, as software dispatch */
		return status != 0 ? status : pd_replay_start() != 0 ? 1 : 0;
	}
	status = pd_ports_choose();
	if (status == 0) {
		pd_disp_init(&pd_app); /* its table says whether packets wait for verdicts */
		status = workers_setup();
	}
	return status != 0 ? status : pd_ports_setup();
}

/* EAL would not start: what it said, and what to do about the usual causes. */
static void eal_failed(void)
{
	int e = rte_errno;

	if (e == EACCES || e == EPERM)
		PD_LOG(ERR, "EAL: %s: inline runs need root (hugepages,"
			" /var/run/dpdk, devices); without root, give EAL --no-huge --no-shconf"
			" with virtual devices (--vdev), or deduplicate a capture with --pcap-in"
			" (no root needed)\n", rte_strerror(e));
	else if (e == 0 || e == EALREADY || e == EBUSY || e == EEXIST)
		/* "Cannot init config": the file prefix's lock is held */
		PD_LOG(ERR, "EAL could not start (%s): most often another DPDK"
			" process uses the same file prefix; give each instance its own with the"
			" EAL option --file-prefix NAME (docs/app.md)\n",
			e == 0 ? "no reason given" : rte_strerror(e));
	else
		PD_LOG(ERR, "EAL: %s (see the EAL lines above; docs/app.md)\n",
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
			PD_LOG(ERR, "--pcap-in sets up EAL itself: give no EAL options"
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
		PD_LOG(ERR, "--pcap-in sets up EAL itself: give no EAL options"
			" (and no '--')\n");
		return 2;
	}
	if (c->pcap_in == NULL && *sep < 0) {
		PD_LOG(ERR, "give EAL options and '--' before pktdedup's options,"
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

	/* the hash key first: it is part of the plan every worker's filter is made from */
	if (!c->seed_given && seed_from_getrandom(&c->filter.seed) != 0) {
		PD_LOG(ERR, "getrandom: %s\n", strerror(errno));
		return 1;
	}
	if (pd_plan(&c->filter, plan, &err) != 0) {
		PD_LOG(ERR, "%s: filter %s: %s\n", cli_param_option(err.msg),
			pd_filter_type_name(c->filter.type), err.msg);
		return 2;
	}
	/* a Bloom filter never forgets: past its capacity its FPR climbs toward 1 (1 MiB,
	 * 3 million unique frames: 1,254,298 dropped as copies, its plan said 1e-6), so
	 * the budget holds only for a run of at most --expected-n distinct keys */
	if (c->filter.type == PD_FILTER_BLOOM && c->filter.expected_n == 0) {
		PD_LOG(ERR, "--filter bloom never forgets a key: past %" PRIu64 " distinct keys"
			" (its capacity at --fpr %g) its false-positive rate climbs toward 1."
			" Give --expected-n N, the distinct keys the whole run will see, or use a"
			" filter that forgets (qhtlru, the default)\n", plan->capacity,
			c->filter.target_fpr);
		return 2;
	}
	if (plan->predicted_fpr > c->filter.target_fpr * (1.0 + 1e-9)) {
		char desc[96], any[160], n[200] = "";

		pd_filter_params_describe(&plan->params, desc, sizeof(desc));
		/* timerbf: its FPR grows with the keys a window holds, taken at line rate */
		if (c->gap_from_window && c->filter.type == PD_FILTER_TIMERBF)
			snprintf(n, sizeof(n), " (n = %" PRIu64 ": one --window at 14.88 Mpps,"
				 " 10GbE line rate; --expected-n N says how many distinct keys a"
				 " window holds at yours)", c->filter.expected_n);
		PD_LOG(ERR, "--filter %s (%s): predicted false-positive rate %.3g"
			" (%s)%s is above the loss budget --fpr %g: that share of unique packets"
			" would be dropped as copies. Give --fpr %.3g to accept it, change the"
			" filter's parameters, or use %s\n", pd_filter_type_name(c->filter.type),
			desc, plan->predicted_fpr, plan->basis, n, c->filter.target_fpr,
			plan->predicted_fpr * 1.001,
			cli_filter_list(PD_FILTER_CAN_ANY_FPR, any, sizeof(any)));
		return 2;
	}
	if (pd_app_check_outputs(c) != 0 || pd_snap_lock() != 0)
		return 1;
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

/*
 * The workers' filters (and --allow's tables, and the estimate's shadows) together,
 * against the memory the machine has available: each is zeroed as it is made, and a
 * total the machine lacks gets the run killed by the kernel's OOM killer partway, with no
 * message (2 workers of --memory 14G with 23 GiB available: status 137). lru and
 * fpbuffering take 4 times --memory (pd_plan_footprint); with --snapshot each filter's
 * image is copied to a buffer a quarter larger before it is written (snapshot.c, grow);
 * the exact filter grows as it goes and counts for nothing here. 0, or the exit status.
 */
static int memory_check(void)
{
	const struct pd_app_config *c = &pd_app.cfg;
	const char *whose;
	const uint64_t avail = cli_mem_available(&whose);
	uint64_t each = c->allow != 0 ? c->allow_bytes : 0, all;
	int lru;

	each += pd_plan_footprint(&pd_app.plan);
	if (c->snapshot != NULL) /* each filter's image is copied out to be written */
		each += pd_plan_footprint(&pd_app.plan) * 5 / 4 + (1u << 20);
	if (c->estimate_level >= 0)
		each += PD_ESTIMATE_ENTRIES * 16u;
	all = each * pd_app.nworkers;
	if (avail == 0 || all <= avail)
		return 0;
	lru = pd_app.plan.params.type == PD_FILTER_LRU ||
	      pd_app.plan.params.type == PD_FILTER_FPBUFFERING;
	PD_LOG(ERR, "the filters need %.1f GiB (%u worker%s of %.1f GiB: --memory%s%s%s), more"
		" than the %.1f GiB this machine has available (%s): lower --memory or"
		" --workers\n", (double)all / (1 << 30), pd_app.nworkers,
		pd_app.nworkers == 1 ? "" : "s", (double)each / (1 << 30),
		lru ? " 4 times over, for lru's nodes and index" : "",
		c->allow != 0 ? ", --allow-memory" : "",
		c->snapshot != NULL ? ", and as much again for --snapshot's copy" : "",
		(double)avail / (1 << 30), whose);
	return 1;
}

/* The filters, each made on its worker's lcore, then the snapshot's state loaded. */
static int filters_setup(void)
{
	int main_ran, rc;

	if (memory_check() != 0)
		return 1;
	if (pd_snap_prepare() != 0)
		return PD_APP_STATUS_SNAPSHOT;
	rc = pd_threads_launch(create_filter, &main_ran);
	pd_threads_wait();
	for (unsigned i = 0; i < pd_app.nworkers; i++)
		rc |= pd_app.w[i]->failed ? -1 : 0;
	if (rc != 0)
		return 1;
	if (pd_snap_load() != 0)
		return PD_APP_STATUS_SNAPSHOT;
	pd_delay_buckets_init();
	pd_app.want_delay = pd_app.time_src != PD_TIME_NONE &&
			    pd_filter_reports_delay(pd_app.w[0]->filter);
	if (pd_app.cfg.suggest_window && !pd_app.want_delay) {
		PD_LOG(ERR, "--suggest-window needs the delays of the copies: use --filter exact"
			" (every copy), or a --window with qhtlru, qqhtd or timerbf\n");
		return 2;
	}
	return 0;
}

/* The workers' mbufs (ports.c: a pool each that receives): all of them, or those in use. */
static unsigned mbufs(int in_use)
{
	unsigned n = 0;

	for (unsigned i = 0; i < pd_app.nworkers; i++)
		if (pd_app.w[i]->pool != NULL)
			n += in_use ? rte_mempool_in_use_count(pd_app.w[i]->pool)
				    : pd_app.w[i]->pool->size;
	return n;
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
	PD_LOG(INFO, "%s, %u worker%s, dispatch %s; filter %s, %" PRIu64
		" bytes per worker; key %s%s; action %s\n", from, pd_app.nworkers,
		pd_app.nworkers > 1 ? "s" : "",
		pd_app.nworkers == 1 ? "none (one worker)" :
		pd_app.replay ? "by key hash, output in input order" :
		!pd_app.dispatching ? "RSS" :
		pd_app.rx_spread ? "software (rings), every worker receives" :
		"software (rings), worker 0 receives",
		pd_filter_type_name(fp->type), fp->memory_bytes, pd_key_mode_name(c->key.mode),
		c->key.decap != 0 ? " of the innermost packet (--decap)" : "",
		c->action == PD_ACTION_DROP ? "drop" : c->action == PD_ACTION_MARK ? "mark" : "count");
	if (c->window_default)
		PD_LOG(INFO, "window %llums, the default with --key packet: the same bytes more"
			" than that after the last copy are kept (a retransmission, a retry);"
			" --window T or none sets it\n", PD_APP_DEFAULT_WINDOW_NS / 1000000);
	else if (c->key.mode == PD_KEY_PACKET && c->filter.window == 0 && !c->suggest_window)
		PD_LOG(INFO, "no window (%s): the same bytes sent again later (a"
			" retransmission, a retry) count as a copy while the first is remembered\n",
			c->window_none ? "--window none" :
			"this filter takes none; qhtlru, qqhtd, timerbf and exact do");
	/* inline, a restart takes seconds: keys restored from a snapshot are then out of a
	 * shorter window for good (a replay's next file follows its last frame in time) */
	if (c->snapshot != NULL && !pd_app.replay && c->filter.window != 0 &&
	    c->filter.window < PD_APP_SNAPSHOT_MIN_WINDOW_NS)
		PD_LOG(WARNING, "--snapshot with a %.3g s window: a restart takes longer, so the"
			" keys it restores match no copy after one; it carries the live"
			" estimate and nothing the filter can use (useful with --window none,"
			" a window of %u s or more, or another --key)\n",
			(double)c->filter.window * 1e-9,
			(unsigned)(PD_APP_SNAPSHOT_MIN_WINDOW_NS / 1000000000ULL));
	if (pd_app.dispatching && !pd_app.replay)
		PD_LOG(INFO, "software dispatch: %u lookups a ring (receiver to owner), %u mbufs\n",
		       pd_app.ring_size, mbufs(0));
	if (rte_log_can_log(pd_logtype, RTE_LOG_INFO))
		pd_stats_plan(stderr);
}

/* Run the workers until the input ends (replay) or a signal; 0 or 1. */
static int run(void)
{
	int (*loop)(void *) = pd_app.replay ? pd_replay_main : pd_worker_main;
	int main_ran, status = 0;

	if (pd_snap_start() != 0)
		return 1;
	/* the main lcore either works (its loop prints the periodic line) or waits here */
	if (pd_threads_launch(loop, &main_ran) != 0)
		status = 1;
	else if (!main_ran)
		while (pd_threads_running()) {
			rte_delay_us_sleep(10000);
			pd_stats_tick();
		}
	pd_threads_wait();
	return status;
}

/* After the workers stopped: the final snapshot, the ports' own counters, the files,
 * the summary and the JSON. Returns the exit status. */
static int finish(double secs_from)
{
	const struct pd_app_config *c = &pd_app.cfg;
	unsigned in_use = 0;
	double secs;
	int status = 0;

	if (pd_snap_finish() != 0)
		status = 1;
	for (unsigned p = 0; p < pd_app.nports; p++) {
		pd_port_loss_read(pd_app.port_id[p], &pd_app.port_loss[p]);
		if (rte_eth_dev_get_name_by_port(pd_app.port_id[p],
						 pd_app.port_name[pd_app.port_id[p]]) != 0)
			strcpy(pd_app.port_name[pd_app.port_id[p]], "?");
	}
	pd_app.port_loss_final = 1;
	pd_ports_close(pd_app.port_id, pd_app.nports); /* the PMDs give back the mbufs they hold */
	if (pd_app.replay && pd_replay_close() != 0)
		status = 1;
	secs = pd_now_s() - secs_from - pd_snap_final_write_s(); /* the run, not the file I/O */
	in_use = mbufs(1);
	if (c->stats_interval > 0)
		pd_stats_line(stderr, secs);
	if (!c->quiet)
		pd_stats_summary(secs);
	if (pd_app.replay)
		pd_replay_summary(stderr);
	if (in_use != 0) {
		PD_LOG(ERR, "error: %u mbufs still in use after the ports"
			" closed: a leak (or a PMD that keeps what it was sent, such as"
			" net_ring with nobody reading its ring)\n", in_use);
		status = 1;
	}
	if (c->stats_json != NULL &&
	    pd_stats_json(c->stats_json, secs, in_use,
			  pd_app.replay ? pd_replay_tx_to() : "ports") != 0)
		status = 1;
	if (!pd_stats_accounted()) {
		PD_LOG(ERR, "internal error: packets unaccounted for\n");
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

	pd_ports_close(pd_app.port_id, pd_app.nports);
	if (pd_app.replay)
		(void)pd_replay_close();
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		pd_filter_destroy(pd_app.w[i]->filter);
		pd_estimate_free(pd_app.w[i]->est);
		pd_allow_free(pd_app.w[i]->allow);
		for (unsigned o = 0; o < pd_app.nworkers; o++) { /* inline: ports.c's, EAL's */
			rte_free(pd_app.w[i]->to[o]);
			rte_free(pd_app.w[i]->back[o]);
			rte_free(pd_app.w[i]->pending[o]);
		}
		pd_state_free(pd_app.w[i]->scratch);
		pd_state_free(pd_app.w[i]->keybuf);
		for (unsigned p = 0; p < RTE_MAX_ETHPORTS; p++)
			rte_free(pd_app.w[i]->tx[p]);
		rte_mempool_free(pd_app.w[i]->pool); /* the ports are closed: all back */
		pd_state_free(pd_app.w[i]);
	}
	if (!pd_app.eal)
		return;
	/* replay: the runtime directory is this process's own (unique prefix) */
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (c->pcap_in != NULL) {
		char sock[PATH_MAX + 32];

		snprintf(sock, sizeof(sock), "%s/dpdk_telemetry.v2", rundir); /* --telemetry */
		(void)unlink(sock);
		(void)rmdir(rundir);
	}
}

/*
 * Under systemd (the unit in app/service) standard error goes to the journal, and EAL's
 * log stream writes each line to standard error and to syslog, which the journal keeps
 * too: every line of EAL and every warning and error of an instance was in `journalctl
 * -u` twice. systemd names the journal's stream in JOURNAL_STREAM ("device:inode"); when
 * that is standard error, the lines go there alone, EAL's from its start. Elsewhere
 * EAL's stream stays as it is, except in a replay (its lines to stderr alone).
 */
static int stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	int n = 0;

	return js != NULL && sscanf(js, "%llu:%llu%n", &dev, &ino, &n) == 2 &&
	       js[n] == '\0' && fstat(STDERR_FILENO, &st) == 0 &&
	       (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/*
 * Standard input, output and error hold their numbers before any file is opened: run
 * with one closed (`>&-`), the first file opened takes its number, and what is printed
 * to "standard output" goes into that file (`--pcap-in - --pcap-out F >&-` had F on
 * descriptor 1). A closed one gets /dev/null opened the wrong way round (read-only for
 * output), so that using it still fails as on a closed one (EBADF), and is said.
 */
static void std_fds_hold(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY) != fd)
			_exit(1); /* cannot happen: the lowest free number is fd */
}

/* The summary and --stats-json - go to standard output: a write there that failed (a
 * full disk, an I/O error) loses them, which is said and gives status 1, as coreutils
 * do (`pktdedup ... > /dev/full` said nothing and gave 0). The summary's own flush keeps
 * the reason (pd_app.summary_errno). */
static int stdout_status(int status)
{
	int err = pd_app.summary_errno;

	if (fflush(stdout) != 0 && err == 0)
		err = errno;
	if (!ferror(stdout) || (err == 0 && status != 0)) /* else said: --stats-json - */
		return status;
	fprintf(stderr, "pktdedup: error: standard output: %s: the summary is not whole\n",
		err != 0 ? strerror(err) : "a write failed");
	return status != 0 ? status : 1;
}

int main(int argc, char **argv)
{
	char *eal_argv[32];
	int sep, rc, status;
	double t0;

	std_fds_hold();
	status = parse_args(argc, argv, &sep);
	if (status == 0)
		status = preflight();
	if (status == 0 && pd_app.replay) { /* before the filters: a bad file costs nothing */
		rc = pd_replay_open();
		status = rc == 0 ? 0 : rc == -2 ? 2 : 1; /* -2: a bad --bpf */
	}
	if (status == 0 && !pd_app.replay) /* files net_pcap would empty */
		status = pd_app_check_vdev_files(sep, argv, &pd_app.cfg) == 0 ? 0 : 2;
	if (status == 0 && !pd_app.replay) /* lcores and hugepages, named with their fix */
		status = pd_eal_check(sep, argv);
	if (status != 0)
		return status;
	pd_app.eal = !pd_app.replay || pd_app.cfg.telemetry; /* threads.c says why */
	if (pd_app.replay || stderr_is_journal()) /* EAL's lines too: stderr, not syslog */
		rte_openlog_stream(stderr);
	if (pd_app.eal) {
		stop_signals(1);
		rc = pd_app.replay ? rte_eal_init(replay_eal_args(&pd_app.cfg, argv[0], eal_argv),
						  eal_argv) :
				     rte_eal_init(sep, argv);
		if (rc < 0) {
			eal_failed();
			return 1;
		}
		clock_setup();
	}
	stop_signals(0);
	if (pd_app.cfg.quiet) /* errors and warnings only, whatever --log-level said */
		rte_log_set_level(pd_logtype, RTE_LOG_WARNING);
	status = setup();
	if (status == 0)
		status = filters_setup();
	if (status == 0 && pd_app.replay && pd_replay_open_output() != 0)
		status = pd_force_quit ? 128 + pd_force_quit : 1; /* a wait for a FIFO's reader */
	if (status == 0) {
		print_start();
		if (pd_app.replay && pd_app.cfg.telemetry) /* asked for: said even with --quiet */
			fprintf(stderr, "pktdedup: telemetry: %s/dpdk_telemetry.v2\n",
				rte_eal_get_runtime_dir());
		if (pd_app.eal)
			pd_telemetry_register();
		pd_stats_start();
		t0 = pd_now_s();
		status = run();
		rc = finish(t0);
		status = rc != 0 ? rc : status;
	}
	teardown();
	return stdout_status(status);
}
