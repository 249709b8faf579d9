/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktdedup, the DPDK application: shared configuration, per-worker state and counters.
 */
#ifndef PKTDEDUP_APP_H
#define PKTDEDUP_APP_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <pktdedup/pd_allow.h>
#include <pktdedup/pd_estimate.h>
#include <pktdedup/pd_filter.h>
#include <pktdedup/pd_key.h>
#include <pktdedup/pd_plan.h>

#include "spsc.h"

#define PD_APP_BURST 32
#define PD_APP_MAX_WORKERS 64
/* Software dispatch: a ring's slots are published to the other core in batches of this
 * many, or after PD_APP_DISPATCH_ROUNDS rounds of the worker loop (ROUNDS_NOV when no
 * verdict comes back: nothing waits for the lookups), in whole lines (spsc.h). Every
 * PD_APP_DISPATCH_STALE rounds a ring that published nothing since the last such check
 * publishes what is left; a worker that receives less than full bursts publishes
 * everything at once (worker.c, dispatch_flush). */
#define PD_APP_DISPATCH_BATCH 64u
#define PD_APP_DISPATCH_ROUNDS 4
#define PD_APP_DISPATCH_ROUNDS_NOV 16
#define PD_APP_DISPATCH_STALE 64
/* Software dispatch: bursts of lookups decided, and of verdicts acted on from each
 * owner, at most, each time a worker turns to them (worker.c, dispatch_poll) */
#define PD_APP_DISPATCH_DRAIN 4
_Static_assert(PD_APP_DISPATCH_STALE % PD_APP_DISPATCH_ROUNDS == 0 &&
		       PD_APP_DISPATCH_STALE % PD_APP_DISPATCH_ROUNDS_NOV == 0,
	       "the stale check runs at a flush round (worker.c)");
_Static_assert((PD_APP_DISPATCH_ROUNDS & (PD_APP_DISPATCH_ROUNDS - 1)) == 0 &&
		       (PD_APP_DISPATCH_ROUNDS_NOV & (PD_APP_DISPATCH_ROUNDS_NOV - 1)) == 0,
	       "the flush rounds are powers of two (worker.c masks the round count)");
/* --dispatch-ring: lookups that may wait for one owner, from all its receivers */
#define PD_APP_RING_DEFAULT 2048u
#define PD_APP_RING_MIN 128u
#define PD_APP_RING_MAX (1u << 20)
#define PD_APP_MAX_PORTS 3 /* the pair plus the duplicate port */
#define PD_APP_TX_RETRIES 8
/* Longest frame keyed: multi-segment frames are linearised into a buffer this size. */
#define PD_APP_SCRATCH_LEN 65536
/* --window with --key packet when none is given: above the skew between mirror points
 * (microseconds to milliseconds), below TCP's least retransmission timeout (200 ms) */
#define PD_APP_DEFAULT_WINDOW_NS 100000000ULL
/* Inline, a window below this with --snapshot is warned of: a restart (EAL, the filters'
 * memory, the snapshot's read) takes seconds, so restored keys fall out of the window */
#define PD_APP_SNAPSHOT_MIN_WINDOW_NS 10000000000ULL
/* The exit status of a run stopped by a --snapshot it cannot use (made with other
 * options or workers, damaged, not a snapshot): a restart would refuse the same file
 * again, so the service's unit does not restart on it (RestartPreventExitStatus) */
#define PD_APP_STATUS_SNAPSHOT 3
/* Seconds between the main lcore's looks at the live estimate against the loss budget */
#define PD_APP_WATCH_S 5.0
#define PD_APP_KEYBUF_LEN RTE_ALIGN_CEIL(PD_KEY_BUF_LEN(PD_APP_SCRATCH_LEN), 64)

enum pd_action { PD_ACTION_DROP, PD_ACTION_MARK, PD_ACTION_COUNT };
/* Where a packet's time comes from: none (the filter needs none), the pcap timestamp
 * (replay), or the TSC read once per received burst (inline). */
enum pd_time_src { PD_TIME_NONE, PD_TIME_PCAP, PD_TIME_TSC };

/*
 * Histogram of the delay between a duplicate and the copy it matched: [0, 1 us),
 * then 1-2-5 steps up to 10 s ([1, 2) us, [2, 5) us, ..., [5, 10) s), then >= 10 s.
 */
#define PD_DELAY_BUCKETS 23
extern const uint64_t pd_delay_bound_ns[PD_DELAY_BUCKETS - 1]; /* lower bounds of 1.. */
enum pd_dispatch { PD_DISPATCH_AUTO, PD_DISPATCH_RSS, PD_DISPATCH_SOFTWARE, PD_DISPATCH_NONE };

/* The gap a windowed row filter's planner assumes without --expected-n: the keys of one
 * window at 10GbE line rate with 64-byte frames (options.c). */
#define PD_LINE_RATE_PPS 14880952ULL

/* Entries of each worker's estimate shadow: 32 bytes each, 1 MiB (docs/estimate.md). */
#define PD_ESTIMATE_ENTRIES 32768

struct pd_app_config {
	struct pd_filter_params filter;
	int gap_from_window;    /* filter.expected_n was derived from --window */
	int seed_given;
	struct pd_key_config key;
	enum pd_action action;
	unsigned mark_dscp;
	int dup_port;           /* -1: none */
	int drop_unparseable;   /* 0: forward them */
	int ports[2];           /* the pair, or one port (ports[1] = -1) */
	int nports;             /* 0: choose from the ports there are */
	unsigned workers;       /* 0: one per worker lcore */
	enum pd_dispatch dispatch;
	unsigned dispatch_ring;  /* --dispatch-ring: lookups waiting for one owner, in all */
	double stats_interval;  /* seconds; 0: no periodic line */
	const char *stats_json;
	int estimate_level;     /* the live estimate samples 2^-level of the keys; -1: off */
	unsigned allow;         /* --allow N: copies passed after each new verdict; 0: off */
	uint64_t allow_bytes;   /* --allow-memory: the copy-count table per worker */
	int suggest_window;     /* --suggest-window: advice from the delay histogram */
	int window_none;        /* --window none: a copy counts however late */
	int window_default;     /* the window is the default's, not --window's */
	const char *pcap_in;
	const char *pcap_out;
	const char *dup_out;    /* replay: the copies, as they came */
	int out_format;         /* enum rio_format: auto (-1, default), same, pcap, pcapng */
	const char *bpf;        /* replay: only matching frames are deduplicated */
	int quiet;              /* no progress, start-up lines or summary text */
	int telemetry;          /* replay: serve rte_telemetry (inline: EAL's choice) */
	unsigned rx_desc, tx_desc;
	unsigned mbufs;
	const char *snapshot;      /* NULL: none */
	double snapshot_interval;  /* seconds; 0: only at stop */
	int snapshot_fresh;        /* --snapshot-policy fresh */
};

/* One worker's counters; written only by its worker, read by the stats code. */
/*
 * A worker's scalar counters, listed once: the struct, the sum over workers, the periodic
 * line, the JSON summary and telemetry are all made from this list (pd_counter_table).
 * X(name, in_line): in_line = 1 puts it in the periodic stderr line.
 */
#define PD_COUNTERS(X) \
	X(rx, 1)              /* received from a port by this worker */ \
	X(tx, 1)              /* sent (to the peer port, or to --dup-port) */ \
	X(unique, 1) \
	X(duplicate, 1)       /* copies, including those --allow passed */ \
	X(allowed, 1)         /* copies --allow N forwarded as allowed repeats */ \
	X(dropped, 1)         /* duplicates freed (drop), unparseable freed (--unparseable drop) */ \
	X(marked, 1)          /* duplicates forwarded with the DSCP mark */ \
	X(unmarkable, 1)      /* duplicates forwarded unmarked: not IP */ \
	X(unparseable, 1)     /* frames without a key (per reason below) */ \
	X(bypassed, 1)        /* forwarded without a verdict: outside --bpf, dispatch_full */ \
	X(tx_failed, 1)       /* freed after PD_APP_TX_RETRIES partial sends */ \
	X(dispatched_out, 0)  /* lookups handed to their key's owner */ \
	X(dispatched_in, 0)   /* lookups decided for the worker that received */ \
	X(dispatch_full, 1)   /* owner's ring full: forwarded unchecked (in bypassed too) */

struct pd_counters {
#define PD_COUNTER_FIELD(name, in_line) uint64_t name;
	PD_COUNTERS(PD_COUNTER_FIELD)
#undef PD_COUNTER_FIELD
	uint64_t reasons[PD_KEY_REASON_COUNT];
	uint64_t decap[PD_DECAP_KINDS]; /* frames whose parse opened each tunnel (--decap) */
	uint64_t oversize; /* frames longer than the key scratch buffer (unparseable) */
	uint64_t delay[PD_DELAY_BUCKETS]; /* duplicates by delay since their copy */
	/* the sum of those delays (a histogram's _sum): 128 bits, as 64 wrap after 584
	 * years of summed delay, months at a million copies a second a millisecond late */
	__extension__ unsigned __int128 delay_sum_ns;
	uint64_t port_rx[RTE_MAX_ETHPORTS];  /* received, by input port */
	uint64_t port_dup[RTE_MAX_ETHPORTS]; /* duplicates, by input port */
};

/*
 * Periodic snapshot of one worker's filter: the snapshot thread asks (state
 * REQUESTED), the worker copies its filter into buf in steps between bursts (each step
 * timed), then says COPIED, or TOO_SMALL with the size it needs.
 */
enum { PD_SNAP_IDLE, PD_SNAP_REQUESTED, PD_SNAP_COPIED, PD_SNAP_TOO_SMALL };

struct pd_worker_snap {
	_Atomic int state;     /* release by the writer, acquire by the reader */
	_Atomic int stopped;   /* the worker loop has returned */
	uint8_t *buf;
	uint64_t cap;
	uint8_t *est_buf;      /* the estimate's state, copied when the filter's is done */
	uint64_t est_len;
	uint64_t done;         /* bytes of the image copied so far */
	uint64_t need;         /* TOO_SMALL: the image size */
	uint64_t steps;        /* copy steps made, all snapshots */
	uint64_t step_max_ns;
	uint64_t copy_ns;      /* total over all snapshots */
};

/* What a TX buffer's error callback needs to retry its unsent packets (worker.c). */
struct pd_tx_retry {
	struct pd_worker *w;
	uint16_t port;
};
#define PD_APP_TX_BUFFER (2 * PD_APP_BURST) /* packets a TX buffer holds before it sends */

struct pd_rxq {
	uint16_t port;
	uint16_t queue;
};

struct pd_app;

/*
 * Software dispatch: a key's lookup handed to the worker that owns it, its packet kept
 * by the worker that received it. The owner sees the hash and the time only, and sends
 * back the verdict; the mbuf never leaves its receiver (docs/speed.md, "Workers":
 * where the mbufs are freed). In a ring a lookup takes pd_app.handoff_words 64-bit
 * words: the key's hash, then, when the run is timed, the packet's time in ns. Untimed
 * (no window, a filter that reports no delays: the default) the hash alone, 8 lookups
 * to a line instead of 4, so that half as many lines cross between the cores. The
 * rings alone (tests/bench/bench_fanout, policy h8): 0.97 of their cost at 8 and 15
 * workers, 0.85-0.86 when a line takes longer to cross (the 2-core VM's slow round
 * trip); 2 workers in the application: within the noise at the fast round trip, count
 * 1.033 and drop 1.018 at the slow one (docs/speed.md).
 */
#define PD_HANDOFF_MAX_WORDS 2

/* A receiver's packets waiting for one owner's verdicts, in the order handed over. */
struct pd_pending {
	unsigned head, tail, mask; /* tail - head waiting; mask + 1 slots */
	uint16_t *port;            /* with pd_app.forward_all: each one's port, not its mbuf */
	struct rte_mbuf *m[];
};

/* A worker: what it owns, and the run it belongs to (read-only while it runs). */
struct pd_worker {
	const struct pd_app *app; /* configuration, ports, the other workers' rings */
	unsigned idx;       /* 0..workers-1 */
	unsigned lcore;
	struct pd_rxq rxq[PD_APP_MAX_PORTS];
	unsigned n_rxq;
	uint16_t txq;       /* this worker's TX queue on every port */
	struct rte_mempool *pool; /* the mbufs its RX queues receive into (ports.c); NULL
				   * when it has none */
	/* software dispatch: two single-producer, single-consumer rings (spsc.h) per
	 * (receiver, owner) pair (ports.c), lookups one way and verdicts back */
	struct pd_spsc *to[PD_APP_MAX_WORKERS];    /* receiver: lookups for owner o */
	struct pd_spsc *back[PD_APP_MAX_WORKERS];  /* receiver: owner o's verdicts */
	struct pd_pending *pending[PD_APP_MAX_WORKERS]; /* receiver: packets owner o decides */
	unsigned owner[PD_APP_MAX_WORKERS], nowner; /* receiver: the owners it hands to */
	struct pd_spsc *from[PD_APP_MAX_WORKERS];  /* owner: lookups from each receiver */
	struct pd_spsc *reply[PD_APP_MAX_WORKERS]; /* owner: their verdicts' way back */
	unsigned nfrom, from_next;                  /* owner: receivers, next to serve */
	struct pd_filter *filter;
	int far;                 /* the filter is far from the core (pd_filter_is_far): the
				  * worker prefetches its rows itself (worker.c) */
	struct pd_estimate *est; /* the live error estimate's shadow; NULL: off */
	struct pd_allow *allow;  /* --allow N's copy counts; NULL: off */
	uint64_t t_first, t_last; /* the earliest and latest packet times (when timed) */
	int t_any;                /* t_first and t_last hold times */
	int failed;
	struct pd_counters c __rte_cache_aligned;
	/* DPDK TX buffers of the ports in use (ports.c), NULL elsewhere; unsent packets are
	 * retried, then counted as tx_failed (pd_worker_tx_unsent) */
	struct rte_eth_dev_tx_buffer *tx[RTE_MAX_ETHPORTS];
	struct pd_tx_retry tx_retry[RTE_MAX_ETHPORTS];
	uint8_t *scratch;   /* linearised multi-segment frames */
	uint8_t *keybuf;    /* two key buffers of PD_APP_KEYBUF_LEN bytes (see keys_burst) */
	struct pd_worker_snap snap __rte_cache_aligned;
	uint8_t *replay_key;   /* replay: the key of one frame (any length libpcap reads) */
	size_t replay_keycap;
} __rte_cache_aligned;

/* A port's own counters, and what it lost before pktdedup saw a packet (port_loss.c). */
struct pd_port_loss {
	uint64_t ipackets, opackets, oerrors;
	uint64_t ibytes;       /* bytes of the frames received */
	uint64_t imissed;      /* RX ring full */
	uint64_t rx_nombuf;    /* no mbuf to receive into */
	uint64_t ierrors;
	uint64_t kernel_drops; /* net_af_packet: the kernel's socket ring was full */
	uint64_t lost;         /* imissed + rx_nombuf + ierrors + kernel_drops */
};

struct pd_app {
	struct pd_app_config cfg;
	struct pd_plan plan;        /* the filter's resolved parameters and predictions */
	struct pd_worker *w[PD_APP_MAX_WORKERS];
	unsigned nworkers;
	int dispatching;            /* software dispatch on */
	int rx_spread;              /* software dispatch: every worker has an RX queue */
	int peer[RTE_MAX_ETHPORTS]; /* where a port's packets leave */
	char port_name[RTE_MAX_ETHPORTS][RTE_ETH_NAME_MAX_LEN]; /* read at the stop (JSON) */
	unsigned ring_size;         /* software dispatch: each ring's slots */
	unsigned handoff_words;     /* software dispatch: 64-bit words a lookup (1: the hash;
				     * 2: hash and time, when timed) */
	enum pd_time_src time_src;
	int replay;                 /* --pcap-in: replay.c's loop, no ports */
	int eal;                    /* EAL started: inline, or a replay with --telemetry
				     * (threads.c: lcores or plain threads) */
	int want_delay;             /* the filter reports delays: fill the histogram */
	uint8_t next[8];            /* a frame's way out by its class (disposition.h) */
	int marking;                /* some class is marked: keys keep the IP header's place */
	int forward_all;            /* every keyed or bypassed frame goes to the peer, whatever
				     * its verdict (--action count): with software dispatch it
				     * is sent before its verdict comes back (worker.c) */
	int verdicts_back;          /* software dispatch: verdicts go back to the receiver
				     * (0: forward_all on one port, where the owner counts
				     * the duplicates against that port itself) */
	uint64_t tsc_ns_mult;       /* ns = (tsc * mult >> 32) + offset: wall-clock ns, so */
	uint64_t tsc_ns_offset;     /* that times in a snapshot survive a reboot */
	unsigned ntx;               /* the ports in use, which workers flush after each */
	uint16_t tx_port[PD_APP_MAX_PORTS]; /* burst (the pair or one, and --dup-port) */
	/* the ports' own counters, read when the workers have stopped: packets a port
	 * lost before pktdedup saw them (no mbuf, full RX ring, errors) */
	unsigned nports;
	uint16_t port_id[PD_APP_MAX_PORTS];
	struct pd_port_loss port_loss[PD_APP_MAX_PORTS];
	int port_loss_final; /* port_loss holds the last reading; the ports may be closed */
	int summary_errno;   /* the summary's write to standard output failed: why */
};

extern struct pd_app pd_app;

/*
 * The app's messages: logtype "pktdedup" (EAL's --log-level pktdedup:debug ... :error;
 * --quiet: warning), to stderr, and inline also to syslog as EAL's own. Errors are ERR,
 * the start-up lines INFO.
 */
extern int pd_logtype;
#define PD_LOG(level, ...) rte_log(RTE_LOG_##level, pd_logtype, "pktdedup: " __VA_ARGS__)
/* The signal that asked to stop, 0 while running (set by the handler: a lock-free
 * atomic store is async-signal-safe). */
extern _Atomic int pd_force_quit;
/* SIGUSR1 asks for the counter line now (pd_stats_tick prints it), as tcpdump and dd
 * answer it, instead of being killed by it. */
extern _Atomic int pd_stats_asked;
/* The signals that stop a run in order (app.c): SIGINT, SIGTERM, and SIGHUP (a terminal
 * that closes, an ssh session that drops), each with the summary, the outputs and the
 * snapshot written. */
void pd_stop_signals(sigset_t *set);

/* options.c */
int pd_app_parse(int argc, char **argv, struct pd_app_config *cfg);
void pd_app_usage(FILE *out);
/* files.c */
/* Where @p path leads: symlinks followed to the end (dangling ones too), then the
 * canonical name of what is there, or of its directory and its name when nothing is yet.
 * 0, or -1 with errno (ELOOP, ENAMETOOLONG, or a readlink error). */
int pd_app_resolve(const char *path, char *out, size_t len);
/* That no file given is another one given too (--pcap-in, --pcap-out, --stats-json,
 * --snapshot; standard input and output included), and that no capture is read from
 * or written to a terminal as "-": 0, or -1 and a message. */
int pd_app_check_distinct(const struct pd_app_config *cfg);
/* Before EAL starts an inline run (argv[1..argc) are EAL's options): that no net_pcap
 * port's tx_pcap= file (which net_pcap empties as it starts) is a port's rx_pcap= or
 * another tx_pcap=, and that neither --stats-json nor --snapshot is any of their files.
 * 0, or -1 and a message. */
int pd_app_check_vdev_files(int argc, char **argv, const struct pd_app_config *cfg);
/* Whether the files written at the end (--snapshot, --stats-json) can be written, checked
 * at start so that a run of days does not lose its state to a typo: 0, or -1 and a message. */
int pd_app_check_outputs(const struct pd_app_config *cfg);

/* replace.c: a file written whole or not at all (--stats-json): a regular file is written
 * beside where @p path leads and renamed over it by pd_replace_close(r, 1); anything else
 * in place (a FIFO without a reader: said, and waited for; @p opt names the option in
 * messages). The stream, or NULL with errno (0: a stop signal ended the wait, said). */
struct pd_replace {
	FILE *f;
	char target[PATH_MAX];    /* where the path leads */
	char tmp[PATH_MAX + 32];  /* the file written ("": written in place) */
};
FILE *pd_replace_open(struct pd_replace *r, const char *opt, const char *path);
/* An output opened for writing with open(2) @p flags (mode 0666): a FIFO with no reader
 * waits for one, which is said under @p opt's name (else a forgotten reader looks like
 * a hang), its writes then waiting as with any file. The descriptor, or -1 with errno
 * (EINTR: a signal ended the wait). */
int pd_open_waiting(const char *opt, const char *path, int flags);
/* Flushed to the disk and renamed over the target when @p whole, else removed, the
 * target left as it was: 0, or -1 with errno. */
int pd_replace_close(struct pd_replace *r, int whole);

/* eal_check.c: before EAL starts an inline run (argv[1..argc) are EAL's options): lcores
 * this process cannot run on, no free hugepages or no hugetlbfs, each named with its
 * fix. 0, or the exit status (2: a bad lcore; 1: no hugepages). */
int pd_eal_check(int argc, char **argv);

/* Nanoseconds on the monotonic clock, for times taken once a batch or a snapshot step,
 * never a packet (a call through the vDSO: 34-71 ns on the busy 2-core EPYC, a loop of a
 * million, where rdtsc took 34 cycles). Not the TSC: a replay starts no EAL to time it
 * (threads.c). */
static inline uint64_t pd_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline double pd_now_s(void)
{
	return (double)pd_now_ns() / 1e9;
}

/* threads.c: where the workers run (EAL's lcores, or a replay's plain threads) and
 * where their state lives (EAL's heap on their socket, or malloc) */
/* the lcores (0 ... max - 1 without EAL) for at most max workers, with their sockets */
unsigned pd_threads_lcores(unsigned *lcore, unsigned max, int *socket);
void *pd_state_zalloc(const char *what, size_t size, int socket); /* zeroed, cache-aligned */
void pd_state_free(void *p);
/* fn on every worker, the main thread's own last (*main_ran); -1 (pd_force_quit set)
 * when one could not start: the caller still waits for those that did */
int pd_threads_launch(int (*fn)(void *), int *main_ran);
int pd_threads_running(void); /* a worker other than the main thread's still runs */
void pd_threads_wait(void);   /* until every launched worker returned */
/* a helper thread (the snapshot's), named, taking no signal: 0 or an errno */
int pd_thread_ctrl(pthread_t *tid, const char *name, void *(*fn)(void *));

/* stats.c: the counters summed and written (text, JSON, telemetry) */
void pd_stats_start(void);  /* the clock of the periodic line starts */
void pd_stats_tick(void);   /* the periodic line when it is due (main lcore) */
void pd_stats_line(FILE *out, double secs);
void pd_stats_plan(FILE *out);
void pd_stats_summary(double secs);
/* The JSON summary (@p tx_to: where forwarded packets went): 0, or -1 and a message. */
int pd_stats_json(const char *path, double secs, unsigned mbufs_in_use, const char *tx_to);
int pd_stats_accounted(void); /* rx = tx + dropped + tx_failed */

/* advice.c: --suggest-window, from the delay histogram and the planner */
struct json;
void pd_advice_print(FILE *out);
void pd_advice_json(struct json *j); /* "window_advice": [...] */
/* The window that catches each share of the copies measured (99%, 99.9%, all), and the
 * memory per worker it needs. */
#define PD_ADVICE_SHARES 3
struct pd_advice {
	double share;
	uint64_t window_ns;  /* 0: beyond the last bound (more than 10 s) */
	uint64_t keys;       /* new keys a window holds, per worker */
	uint64_t memory;     /* 0: none up to 64 GiB */
	double fnr, fpr;     /* the plan's predictions at that memory */
};
/* The copies measured (0: nothing to advise on, a[] untouched), the advice in a[], and
 * the run's new keys per ns per worker in *keys_per_ns. */
uint64_t pd_advice_all(struct pd_advice a[PD_ADVICE_SHARES], double *keys_per_ns);

/* telemetry.c: every /pktdedup/ endpoint of rte_telemetry */
void pd_telemetry_register(void);

/* estimate.c: the live error estimate, over the workers (nothing when off) */
struct json;
void pd_estimate_line(FILE *out);     /* the periodic line's est_fpr, est_fnr fields */
void pd_estimate_summary(FILE *out);  /* the summary's estimate line */
void pd_estimate_json(struct json *j); /* "estimate": {...} or null */
void pd_estimate_watch(void);          /* warn once when the FPR is above the budget */
/* The estimate summed over the workers, at the highest sampling level any reached. */
struct pd_est_view {
	unsigned level;
	struct pd_estimate_counts c; /* summed over the workers */
	uint64_t unique, copies, keys, bytes;
	struct pd_estimate_rates r;
};
int pd_estimate_view(struct pd_est_view *v); /* 0 when the estimate is off */

/* snapshot.c */
int pd_snap_lock(void); /* before EAL: the run's lock, stale temporary files removed */
int pd_snap_prepare(void); /* 0, or -1: the snapshot refused (PD_APP_STATUS_SNAPSHOT) */
int pd_snap_load(void);    /* the same */
int pd_snap_start(void);
int pd_snap_finish(void);
double pd_snap_final_write_s(void); /* what the final snapshot's write took */
/* One step of a requested copy, at most max_bytes (inline: PD_SNAP_STEP, so that no step
 * holds the data path for long; replay: the whole image, UINT64_MAX). */
#define PD_SNAP_STEP (128u << 10)
void pd_snap_step(struct pd_worker *w, uint64_t max_bytes);
/* Replay's reader around a read that may wait (a pipe): between the two calls no worker
 * touches its filter, and the snapshot thread may copy them itself, so that periodic
 * snapshots come on time however slowly the input arrives. */
void pd_snap_idle_begin(void);
void pd_snap_idle_end(void);
struct json;
void pd_snap_json(struct json *j); /* the "snapshot" member of the JSON summary */

/* Owner of a key among n workers: a multiply by an odd constant mixes every bit of the
 * hash into the top 32, so the owner does not depend on the bits the filters index with. */
static inline unsigned pd_owner_of(uint64_t h, unsigned n)
{
	return (unsigned)(((h * 0x9e3779b97f4a7c15ULL) >> 32) * n >> 32);
}

/* worker.c */
int pd_worker_main(void *arg);
/* A TX buffer's error callback (userdata: its struct pd_tx_retry): sends the rest in up
 * to PD_APP_TX_RETRIES - 1 more tries, then frees and counts what is left. */
void pd_worker_tx_unsent(struct rte_mbuf **pkts, uint16_t unsent, void *userdata);

/* counters.c: the scalar counters by name (PD_COUNTERS), their sum over the workers, and
 * the delay buckets' bounds (pd_delay_bound_ns, above) */
void pd_counters_sum(struct pd_counters *total);
void pd_fmt_ns(char *buf, size_t len, uint64_t ns); /* 1us, 20ms, 5s: a delay bucket's bound */
struct pd_counter_desc {
	const char *name;
	size_t offset;  /* in struct pd_counters */
	int in_line;    /* shown in the periodic line */
};
extern const struct pd_counter_desc pd_counter_table[];
extern const unsigned pd_counter_count;

static inline uint64_t pd_counter_value(const struct pd_counters *c, unsigned i)
{
	return *(const uint64_t *)((const char *)c + pd_counter_table[i].offset);
}

/* Why --dup-port may not be one of --ports (options.c, or ports.c for the default ports). */
#define PD_DUP_PORT_WHY "the kept packets leave by that port, and the copies would go out" \
	" with them: give a port of their own (or --action mark, to tell them apart there)"

/* ports.c: inline ports; each returns 0 or the exit status */
int pd_ports_choose(void); /* which ports, before the workers are made */
int pd_ports_setup(void);  /* dispatch, mbufs, rings and queues, once they are */
void pd_ports_close(const uint16_t *ports, unsigned n); /* once; the PMDs free mbufs */

/* port_loss.c: a port's counters now (any thread) */
void pd_port_loss_read(uint16_t port, struct pd_port_loss *l);
/* Packets every port lost before pktdedup saw them, read now (or as read at the stop,
 * once the ports may be closed); *ibytes: the bytes they received. */
uint64_t pd_ports_lost_now(uint64_t *ibytes);

/* replay.c: offline dedup of a capture read with libpcap, written in input order */
int pd_replay_open(void);  /* the input; 0, or -1 (-2: a bad --bpf) and a message */
int pd_replay_open_output(void); /* --pcap-out, last before the run */
int pd_replay_start(void); /* after the workers are made, before they run */
int pd_replay_main(void *arg); /* each worker's loop */
int pd_replay_close(void); /* flush the output: 0, or -1 (a write error) */
void pd_replay_summary(FILE *out); /* frames read, where it stopped and why */
int pd_replay_status(void); /* 0 the whole input; 1 damaged or failed; 128+sig stopped */
const char *pd_replay_tx_to(void);

#endif
