/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay: --pcap-in FILE deduplicated offline and written to --pcap-out in input order
 * (the copies to --dup-out), from one source to its sinks (replay_io.h: pcap or pcapng).
 *
 * The capture is read once, with libpcap, in batches of frames copied into one arena;
 * there are no ports and no mbufs. (An mbuf is a receive buffer: a file's frames are
 * already whole in memory, so offline runs need neither net_pcap, whose 16-bit lengths
 * cut frames over 64 KiB, nor a pool sized for the largest frame, nor a second reader
 * for the timestamps. No EAL starts: the workers are plain threads, threads.c, unless
 * --telemetry asks for EAL's socket.) Every frame libpcap reads is keyed and
 * deduplicated, unless --bpf leaves it out (then it passes as it came, bypassed); the
 * batch's records keep their timestamps (64-bit ns), original lengths and, from pcapng,
 * their blocks for the output.
 *
 * With several workers each batch goes through three phases, a barrier after each:
 *   1. worker i keys and hashes frames i, i + n, i + 2n, ... of the batch;
 *   2. each worker runs its own filter over the frames whose key it owns
 *      (pd_owner_of, as software dispatch inline), in input order;
 *   3. worker 0 writes the batch in input order, then reads the next one.
 * No frame waits in a ring, so none can be lost to a full one, and the output is the
 * same bytes whatever the worker count when the filters' verdicts are (always with
 * --filter exact; approximate filters differ only by their own errors, each worker's
 * filter seeing its share of the keys).
 *
 * A signal (SIGINT, SIGTERM) stops the reading: the batch in hand is finished and
 * written, the output holds exactly the frames read, and the exit status is 128 + the
 * signal (a write waiting on a pipe whose reader stopped reading is broken instead, and
 * fails as below). A damaged file stops at the damage: the frames before it are written,
 * status 1.
 * A write to --pcap-out or --dup-out that fails stops the reading after the batch in
 * hand; a file is cut back to its last whole frame, and the frames it does not hold
 * (nor a pipe's reader took) whole count as tx_failed, not forwarded. When it
 * failed with EPIPE (the reader of a pipe went away: `| head`) the status is 141, as a
 * shell reports a command SIGPIPE stopped, else 1; either way the summary, the JSON and
 * the snapshot are written as at any stop.
 */
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/link.h"
#include "disposition.h"
#include "pktdedup.h"
#include "replay_io.h"

#define BATCH_FRAMES 1024
#define BATCH_BYTES (4u << 20) /* a batch ends at this many bytes of frames (or more, once) */
#define PROGRESS_EVERY_S 0.5

/* A frame of the batch: the record as the source wrote it and the sinks read it, its
 * bytes (and a pcapng packet's options) moved into the arena, where rf points once the
 * batch is whole (the arena may grow while it is read); then its key's hash, where the
 * key parse found its IP header, and its class (disposition.h). */
struct frame {
	struct rio_frame rf;
	uint64_t off, opts_off; /* rf.data and rf.opts in the arena */
	uint64_t pre_off;       /* pcapng: the blocks before it, in the arena */
	uint64_t out_end, dup_end; /* where it ends in --pcap-out, --dup-out (0: not there) */
	uint32_t pre_len;
	uint32_t l3;            /* the IP header's offset (a mark) */
	uint64_t hash;
	uint64_t time_ns;       /* its time for the filter: rf.ts_ns, or for a pcapng simple
				 * packet block (no time: libpcap says 0, which would be a
				 * clock stepped back to 1970) the last frame's that had one */
	uint8_t ipver;          /* the IP header's version (0: none) */
	uint8_t link;           /* its link type (enum pd_key_link): R.key's index */
	uint8_t cls;            /* PD_CLASS_BYPASS (outside --bpf), PD_CLASS_KEYLESS or
				 * PD_CLASS_UNJUDGED, or the verdict of a keyed frame
				 * (PD_DISTINCT until phase 2) */
};

static struct {
	struct rio_in_info info;
	struct rio_sink *out;  /* NULL: no --pcap-out */
	struct rio_sink *dups; /* NULL: no --dup-out */
	const char *in_name;
	struct frame f[BATCH_FRAMES];
	unsigned n;            /* frames in the batch */
	uint8_t *arena;
	size_t used, cap;
	const uint8_t *trailer; /* pcapng: the blocks after the last packet */
	size_t ntrailer;
	pthread_barrier_t bar;
	int bar_made;          /* bar is initialised (several workers) */
	int end;               /* nothing more to read */
	int damaged;           /* the input stopped at damage: where, in why */
	int stopped_by;        /* the signal that stopped the reading */
	int write_err;         /* errno of the first failed write to --pcap-out/--dup-out */
	const char *write_opt; /* which of them */
	char write_why[256];   /* what failed, as said */
	uint64_t write_frames; /* frames read when it failed */
	int cut_err;           /* errno of a failed cut (rio_sink_cut) */
	const char *cut_opt;   /* the sink it failed on */
	uint64_t dups_kept;    /* frames --dup-out holds */
	uint64_t out_whole, dups_whole; /* bytes of each sink known to hold whole frames */
	uint64_t out_head, dups_head;   /* bytes of each sink's header (pcap, pcapng) */
	char why[PCAP_ERRBUF_SIZE + 128];
	uint64_t frames;       /* frames read */
	uint64_t last_ns;      /* the last timestamp read (frame.time_ns) */
	int progress;          /* a progress line on stderr (a terminal) */
	int stream;            /* the input is no regular file: its reads may wait */
	double t0, shown;      /* when the reading started, when progress was last shown */
	/* the key options for each link type (pcapng: a frame's is its interface's) */
	struct pd_key_config key[PD_LINK_COUNT];
	int first_link;        /* the first interface's enum pd_key_link; -1: not keyable */
	uint64_t other_link;   /* frames of a link type the keys do not take: bypassed */
	int other_dlt;         /* the first such link type */
	int other_several;     /* and others */
	uint64_t snapped;      /* frames keyed shorter than their packets (a snap length) */
	uint32_t snap_caplen, snap_len; /* the first of them: bytes held, and on the wire */
	uint64_t snap_unkeyed; /* those of them without a key for want of the bytes cut */
} R;

/* The input, opened before any filter is made (and EAL, with --telemetry), so that a bad
 * file costs nothing; --bpf compiled for its link type. */
int pd_replay_open(void)
{
	const struct pd_app_config *c = &pd_app.cfg;
	struct stat st;

	R.in_name = c->pcap_in;
	R.cap = BATCH_BYTES + (1u << 20);
	R.arena = malloc(R.cap);
	if (R.arena == NULL) {
		PD_LOG(ERR, "replay: out of memory\n");
		return -1;
	}
	/* opening a FIFO waits for its writer: said, or a forgotten writer looks like a hang */
	if (strcmp(c->pcap_in, "-") != 0 && stat(c->pcap_in, &st) == 0 &&
	    S_ISFIFO(st.st_mode) && !c->quiet)
		PD_LOG(INFO, "--pcap-in %s is a FIFO: the replay starts when a writer opens it\n",
		       c->pcap_in);
	if (rio_in_open(c->pcap_in, &R.info) != 0) {
		PD_LOG(ERR, "--pcap-in %s: %s\n", c->pcap_in, rio_in_error());
		return -1;
	}
	R.first_link = cli_link_from_dlt(R.info.linktype, &pd_app.cfg.key.link) == 0 ?
		(int)pd_app.cfg.key.link : -1;
	if (R.first_link < 0 && !R.info.pcapng) { /* nothing in it could be keyed */
		PD_LOG(ERR, "--pcap-in %s: link type %s; the keys take "
			CLI_LINK_TYPES "\n", c->pcap_in, cli_dlt_name(R.info.linktype));
		return -1;
	}
	if (R.first_link < 0) /* pcapng: its other interfaces may be keyed */
		PD_LOG(WARNING, "--pcap-in %s: its first interface is of link type %s, which"
		       " the keys do not take: its frames pass without a verdict; the keys"
		       " take " CLI_LINK_TYPES "\n", c->pcap_in, cli_dlt_name(R.info.linktype));
	for (unsigned l = 0; l < sizeof(R.key) / sizeof(R.key[0]); l++) {
		R.key[l] = pd_app.cfg.key;
		R.key[l].link = (enum pd_key_link)l;
	}
	R.other_link = 0;
	if (c->bpf != NULL && rio_in_bpf(c->bpf) != 0) {
		PD_LOG(ERR, "--bpf '%s': %s\n", c->bpf, rio_in_error());
		return -2;
	}
	R.progress = !c->quiet && isatty(STDERR_FILENO);
	R.stream = rio_in_size() == 0;
	return 0;
}

/* The outputs are opened (an existing file truncated) only once everything else has
 * started: a run that fails before it leaves the files as they were. */
int pd_replay_open_output(void)
{
	const struct pd_app_config *c = &pd_app.cfg;
	enum rio_format fmt = (enum rio_format)c->out_format;

	if (c->pcap_out != NULL &&
	    (R.out = rio_sink_open("--pcap-out", c->pcap_out, fmt, &R.info)) == NULL)
		return -1;
	if (c->dup_out != NULL &&
	    (R.dups = rio_sink_open("--dup-out", c->dup_out, fmt, &R.info)) == NULL)
		return -1;
	R.out_head = R.out != NULL ? rio_sink_pos(R.out) : 0;
	R.dups_head = R.dups != NULL ? rio_sink_pos(R.dups) : 0;
	return 0;
}

/* ---- the three phases ---- */

/* n bytes into the arena at R.used (it grows when they do not fit): their offset, or -1. */
static int64_t arena_put(const void *p, size_t n)
{
	uint64_t off = R.used;

	if (R.used + n > R.cap) {
		/* one frame larger than the room left: the arena grows (a batch of ordinary
		 * frames never gets here) */
		size_t cap = R.used + n + (1u << 20);
		uint8_t *a = realloc(R.arena, cap);

		if (a == NULL)
			return -1;
		R.arena = a;
		R.cap = cap;
	}
	if (n != 0)
		memcpy(R.arena + R.used, p, n);
	R.used += n;
	return (int64_t)off;
}

/* Progress on a terminal: frames, how far into the file, the rate and the time left. */
static void progress_show(int last)
{
	const double now = pd_now_s(), secs = now - R.t0;
	const uint64_t off = rio_in_offset(), size = rio_in_size();
	char where[96] = "";
	double rate;

	if (!R.progress || (!last && now - R.shown < PROGRESS_EVERY_S))
		return;
	R.shown = now;
	if (last) {
		fputs("\r\033[K", stderr); /* the summary follows on a clean line */
		R.progress = 0;
		return;
	}
	if (size != 0 && off <= size && off > 0) {
		const double eta = secs * (double)(size - off) / (double)off;

		snprintf(where, sizeof(where), ", %.1f%% of %s, %d:%02d left",
			 100.0 * (double)off / (double)size, R.in_name, (int)(eta / 60),
			 (int)eta % 60);
	} else {
		snprintf(where, sizeof(where), ", %.1f MB of %s", (double)off / 1e6, R.in_name);
	}
	rate = secs > 0 ? (double)R.frames / secs : 0.0;
	fprintf(stderr, "\rpktdedup: %" PRIu64 " frames%s, %.*f %sframes/s\033[K", R.frames,
		where, rate >= 1e6 ? 2 : 0, rate >= 1e6 ? rate / 1e6 : rate,
		rate >= 1e6 ? "M" : "");
	fflush(stderr);
}

/* A frame's class before its key: bypassed outside --bpf, or on a pcapng interface of a
 * link type the keys do not take (counted, and said in the summary); else to be keyed. */
static uint8_t frame_class(struct frame *f, const struct pd_app_config *c)
{
	enum pd_key_link link;

	if (likely(f->rf.dlt == R.info.linktype) && R.first_link >= 0) {
		link = (enum pd_key_link)R.first_link;
	} else if (cli_link_from_dlt(f->rf.dlt, &link) != 0) {
		if (R.other_link++ == 0)
			R.other_dlt = f->rf.dlt;
		R.other_several |= f->rf.dlt != R.other_dlt;
		return PD_CLASS_BYPASS;
	}
	f->link = (uint8_t)link;
	return c->bpf != NULL && !rio_in_bpf_match(&f->rf) ? PD_CLASS_BYPASS : PD_CLASS_KEYLESS;
}

/* Worker 0: the next batch into the arena (R.n frames; 0 at the end). */
static void read_batch(void)
{
	const struct pd_app_config *c = &pd_app.cfg;

	R.n = 0;
	R.used = 0;
	while (!R.end && R.n < BATCH_FRAMES && R.used < BATCH_BYTES) {
		struct frame *f = &R.f[R.n];
		const uint8_t *pre;
		size_t npre;
		int64_t off, pre_off, opts_off;
		int rc;

		if (pd_force_quit) {
			R.stopped_by = pd_force_quit;
			R.end = 1;
			break;
		}
		/* a pipe with nothing more yet: the frames in hand go on now, not when a
		 * full batch has trickled in (their output, and a snapshot, hold them) */
		if (R.stream && R.n > 0 && rio_in_would_wait())
			break;
		rc = rio_in_next(&f->rf, &pre, &npre);
		if (rc != 1) {
			R.end = 1;
			R.trailer = pre;
			R.ntrailer = npre;
			if (pd_force_quit) /* a signal broke a read that was waiting */
				R.stopped_by = pd_force_quit;
			else if (rc < 0) {
				R.damaged = 1;
				snprintf(R.why, sizeof(R.why), "%s", rio_in_error());
			}
			break;
		}
		pre_off = npre != 0 ? arena_put(pre, npre) : 0;
		opts_off = f->rf.opts_len != 0 ? arena_put(f->rf.opts, f->rf.opts_len) : 0;
		off = arena_put(f->rf.data, f->rf.caplen);
		if (off < 0 || pre_off < 0 || opts_off < 0) {
			R.end = 1;
			R.damaged = 1;
			snprintf(R.why, sizeof(R.why), "out of memory for a frame of %u bytes",
				 f->rf.caplen);
			break;
		}
		f->off = (uint64_t)off;
		f->opts_off = (uint64_t)opts_off;
		f->pre_off = (uint64_t)pre_off;
		f->pre_len = (uint32_t)npre;
		f->ipver = 0;
		f->time_ns = f->rf.spb ? R.last_ns : (R.last_ns = f->rf.ts_ns);
		f->cls = frame_class(f, c);
		if (unlikely(f->rf.caplen < f->rf.len) && f->cls != PD_CLASS_BYPASS &&
		    R.snapped++ == 0) {
			R.snap_caplen = f->rf.caplen;
			R.snap_len = f->rf.len;
		}
		R.n++;
		R.frames++;
	}
	for (unsigned i = 0; i < R.n; i++) { /* the arena no longer moves */
		R.f[i].rf.data = R.arena + R.f[i].off;
		R.f[i].rf.opts = R.arena + R.f[i].opts_off;
	}
	pd_app.w[0]->c.rx += R.n;
	progress_show(0);
}

/* Phase 1: keys and hashes of frames idx, idx + step, ... */
static void key_batch(struct pd_worker *w, unsigned step)
{
	const int prefetch = step == 1; /* one worker: the frame's owner loads its row */

	for (unsigned i = w->idx; i < R.n; i += step) {
		struct frame *f = &R.f[i];
		size_t need = PD_KEY_BUF_LEN(f->rf.caplen), klen;
		struct pd_key_ip ip;
		int nokey;

		if (f->cls == PD_CLASS_BYPASS)
			continue;
		if (need > w->replay_keycap) {
			uint8_t *b = realloc(w->replay_key, need);

			if (b == NULL) { /* keyless, and forwarded as such: counted, not lost */
				pd_disp_oversize(w);
				continue;
			}
			w->replay_key = b;
			w->replay_keycap = need;
		}
		nokey = pd_disp_key(w, &R.key[f->link], f->rf.data, f->rf.caplen, f->rf.len,
				    w->replay_key, w->replay_keycap, &klen, &ip);
		if (nokey != 0) {
			f->cls = (uint8_t)nokey;
			continue;
		}
		f->l3 = ip.offset;
		f->ipver = ip.version;
		f->hash = pd_filter_hash(w->filter, w->replay_key, klen);
		f->cls = PD_DISTINCT; /* keyed: its verdict comes in phase 2 */
		if (prefetch)
			pd_filter_prefetch(w->filter, f->hash);
	}
}

/* Phase 2: the frames this worker owns, through its filter in input order. */
static void filter_batch(struct pd_worker *w, unsigned nworkers)
{
	uint64_t h[PD_APP_BURST], ts[PD_APP_BURST];
	unsigned idx[PD_APP_BURST], k = 0;

	for (unsigned i = 0; i <= R.n; i++) {
		if (i < R.n) {
			const struct frame *f = &R.f[i];

			if (f->cls > PD_ALLOWED ||
			    (nworkers > 1 && pd_owner_of(f->hash, nworkers) != w->idx))
				continue;
			h[k] = f->hash;
			ts[k] = f->time_ns;
			idx[k++] = i;
		}
		if (k == PD_APP_BURST || (i == R.n && k > 0)) {
			uint8_t v[PD_APP_BURST];

			pd_disp_filter(w, h, ts, v, k);
			for (unsigned j = 0; j < k; j++)
				R.f[idx[j]].cls = v[j];
			k = 0;
		}
	}
}

/* A sink's write failed: the reading stops after this batch (the header's rule). */
static void write_failed(const char *opt, const struct rio_sink *s)
{
	const int err = rio_sink_error(s);

	if (R.write_err != 0)
		return;
	R.write_err = err;
	snprintf(R.write_why, sizeof(R.write_why), "%s", err == EPIPE ?
		 "the reader closed the pipe" : rio_sink_why(s));
	R.write_opt = opt;
	if (err == EINTR && pd_force_quit) /* a stop signal broke a write waiting on a pipe */
		R.stopped_by = pd_force_quit;
	R.write_frames = R.frames;
	R.end = 1;
}

/* A sink that failed cut to its first @p keep bytes (a regular file; a pipe keeps what
 * its reader took); a cut that fails is reported in the summary. */
static void cut(struct rio_sink *s, uint64_t keep, const char *opt)
{
	if (rio_sink_cut(s, keep) < 0 && R.cut_err == 0) {
		R.cut_err = errno;
		R.cut_opt = opt;
	}
}

/* The bytes of a sink that failed known whole: what earlier batches or closing wrote
 * (whole), or at least its header when the system took it. */
static uint64_t whole_part(const struct rio_sink *s, uint64_t whole, uint64_t head)
{
	return whole < head && head <= rio_sink_done(s) ? head : whole;
}

/* A sink whose write failed in this batch (every earlier batch was taken whole: the
 * reading stops at a failure): the frames the system did not take all of are not in the
 * file; a --pcap-out frame counted tx becomes tx_failed. The file is cut to its last
 * whole frame, so that it holds exactly the frames counted (a pipe's reader has what it
 * took). tests/e2e_io.sh fills a file with `ulimit -f`. */
static void settle(struct pd_worker *w, struct rio_sink *s, uint64_t whole, uint64_t head,
		   int out)
{
	const uint64_t done = rio_sink_done(s);
	uint64_t keep = whole_part(s, whole, head);

	for (unsigned i = 0; i < R.n; i++) {
		const uint64_t end = out ? R.f[i].out_end : R.f[i].dup_end;

		if (end == 0)
			continue;
		if (end <= done) {
			keep = end;
			R.dups_kept += !out;
		} else if (out) {
			w->c.tx--;
			w->c.tx_failed++;
		}
	}
	cut(s, keep, out ? "--pcap-out" : "--dup-out");
}

/* The batch handed to the system: all of it taken, or the sink settled. */
static void batch_taken(struct pd_worker *w, struct rio_sink *s, const char *opt,
			uint64_t *whole, uint64_t head, int out)
{
	if (s == NULL)
		return;
	rio_sink_flush(s);
	if (unlikely(rio_sink_error(s) != 0)) {
		write_failed(opt, s);
		settle(w, s, *whole, head, out);
		return;
	}
	*whole = rio_sink_done(s);
	for (unsigned i = 0; i < R.n && !out; i++)
		R.dups_kept += R.f[i].dup_end != 0;
}

/* Phase 3 (worker 0): every frame of the batch in input order, the disposition step's
 * decision carried out on the files (--dup-out's copy as the frame came, before a mark);
 * then the batch handed to the system (a pipe's reader sees it now) and, if a write
 * failed, the counts and files settled. */
static void write_batch(struct pd_worker *w)
{
	for (unsigned i = 0; i < R.n; i++) {
		struct frame *f = &R.f[i];
		const unsigned next = pd_disp_next(w, f->cls);

		R.snap_unkeyed += f->cls == PD_CLASS_UNJUDGED && f->rf.caplen < f->rf.len;
		f->out_end = f->dup_end = 0;
		if (unlikely(f->pre_len != 0)) { /* pcapng: the blocks before this frame */
			rio_sink_blocks(R.out, R.arena + f->pre_off, f->pre_len);
			rio_sink_blocks(R.dups, R.arena + f->pre_off, f->pre_len);
		}
		if (next & PD_NEXT_COPY) {
			if (unlikely(rio_sink_frame(R.dups, &f->rf) != 0))
				write_failed("--dup-out", R.dups);
			else
				f->dup_end = rio_sink_pos(R.dups);
		}
		if (next & PD_NEXT_MARK)
			pd_disp_mark(w, R.arena + f->off, f->rf.caplen,
				     (struct pd_key_ip){.offset = f->l3, .version = f->ipver});
		if (!(next & PD_NEXT_OUT))
			continue;
		if (unlikely(rio_sink_frame(R.out, &f->rf) != 0)) {
			write_failed("--pcap-out", R.out);
			w->c.tx_failed++;
			continue;
		}
		f->out_end = rio_sink_pos(R.out);
		w->c.tx++;
	}
	batch_taken(w, R.out, "--pcap-out", &R.out_whole, R.out_head, 1);
	batch_taken(w, R.dups, "--dup-out", &R.dups_whole, R.dups_head, 0);
}

static void barrier(unsigned nworkers)
{
	if (nworkers > 1)
		pthread_barrier_wait(&R.bar);
}

int pd_replay_main(void *arg)
{
	struct pd_worker *w = arg;
	const unsigned nw = pd_app.nworkers;

	for (;;) {
		if (w->idx == 0) {
			if (R.n != 0)
				write_batch(w);
			/* every worker is past phase 2 (the barrier): none touches its filter
			 * until the next barrier, so a snapshot may be copied while this waits */
			pd_snap_idle_begin();
			read_batch();
			pd_snap_idle_end();
			pd_stats_tick();
		}
		barrier(nw);
		if (R.n == 0)
			break;
		key_batch(w, nw);
		barrier(nw);
		filter_batch(w, nw);
		if (unlikely(atomic_load_explicit(&w->snap.state, memory_order_acquire) ==
			     PD_SNAP_REQUESTED)) {
			pd_snap_step(w, UINT64_MAX); /* offline: a periodic snapshot's whole copy */
		}
		barrier(nw);
	}
	atomic_store_explicit(&w->snap.stopped, 1, memory_order_release);
	return 0;
}

/* Before the workers start: the barrier for their count. */
int pd_replay_start(void)
{
	R.t0 = R.shown = pd_now_s();
	if (pd_app.nworkers > 1) {
		if (pthread_barrier_init(&R.bar, NULL, pd_app.nworkers) != 0) {
			PD_LOG(ERR, "replay: cannot make the workers' barrier\n");
			return -1;
		}
		R.bar_made = 1;
	}
	return 0;
}

/* pcapng: the blocks after the last packet; a file they do not fit in is cut back to
 * its frames. */
static void trailer(struct rio_sink *s, uint64_t whole, uint64_t head, const char *opt)
{
	if (s == NULL || rio_sink_error(s) != 0)
		return;
	rio_sink_blocks(s, R.trailer, R.ntrailer);
	rio_sink_flush(s);
	if (rio_sink_error(s) != 0) {
		write_failed(opt, s);
		cut(s, whole_part(s, whole, head), opt);
	}
}

int pd_replay_close(void)
{
	int rc = 0;

	progress_show(1);
	trailer(R.out, R.out_whole, R.out_head, "--pcap-out");
	trailer(R.dups, R.dups_whole, R.dups_head, "--dup-out");
	R.ntrailer = 0;
	rc |= rio_sink_close(R.out);
	rc |= rio_sink_close(R.dups);
	R.out = R.dups = NULL;
	rio_in_close();
	free(R.arena);
	R.arena = NULL;
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		free(pd_app.w[i]->replay_key);
		pd_app.w[i]->replay_key = NULL;
	}
	if (R.bar_made)
		pthread_barrier_destroy(&R.bar);
	R.bar_made = 0;
	return rc;
}

/* Frames a snap length cut: the keys that need the bytes cut (packet, click) gave them
 * none, and they passed unchecked (pd_key_extract_cut, PD_CLASS_UNJUDGED); said with
 * what keys them. */
static void snap_note(FILE *out)
{
	if (R.snap_unkeyed == 0)
		return;
	fprintf(out, "pktdedup: warning: --pcap-in %s: %" PRIu64 " frame%s shorter than"
		" %s packets (a snap length cut them; the first holds %" PRIu32 " of %" PRIu32
		" bytes), and the %s key needs bytes cut from %" PRIu64 ": those passed"
		" unchecked (unparseable truncated)%s\n", R.in_name, R.snapped,
		R.snapped == 1 ? " is" : "s are", R.snapped == 1 ? "its" : "their",
		R.snap_caplen, R.snap_len, pd_key_mode_name(pd_app.cfg.key.mode),
		R.snap_unkeyed, pd_app.cfg.key.mode == PD_KEY_PACKET ? "; --compare-bytes N"
		" compares only the first N bytes, which such frames may hold; --key flow keys"
		" headers alone" : "");
}

void pd_replay_summary(FILE *out)
{
	const uint64_t off = rio_in_offset(), size = rio_in_size();
	uint64_t bytes;
	const uint64_t left_out = rio_in_left_out(&bytes);
	char where[96] = "";

	if (size != 0)
		snprintf(where, sizeof(where), ", byte %" PRIu64 " of %" PRIu64 " (%.1f%%)",
			 off, size, 100.0 * (double)off / (double)size);
	if (R.stopped_by != 0) {
		fprintf(out, "pktdedup: interrupted by %s after %" PRIu64 " frames of %s%s:"
			" the input was not read to its end", strsignal(R.stopped_by), R.frames,
			R.in_name, where);
		if (R.write_err == 0) /* else a write it broke: said below */
			fprintf(out, "; %s holds the frames read", pd_app.cfg.pcap_out != NULL ?
				pd_app.cfg.pcap_out : "the summary");
		fputc('\n', out);
	}
	if (R.write_err != 0) {
		const int kept = strcmp(R.write_opt, "--pcap-out") == 0;
		char holds[96];

		if (kept)
			snprintf(holds, sizeof(holds), "the frames counted as forwarded are those"
				 " it took whole, the others count as tx_failed");
		else
			snprintf(holds, sizeof(holds), "it took %" PRIu64 " of the copies whole",
				 R.dups_kept);
		fprintf(out, "pktdedup: %s %s: %s after %" PRIu64 " frames were read: stopped"
			" there; %s%s\n", R.write_opt, kept ? pd_app.cfg.pcap_out :
			pd_app.cfg.dup_out, R.write_why, R.write_frames, holds,
			R.write_err == EPIPE ? " (status 141, as for SIGPIPE)" : "");
	}
	if (R.cut_err != 0)
		fprintf(out, "pktdedup: error: %s %s: cannot cut the file back to its last whole"
			" frame: %s; it ends in part of a frame\n", R.cut_opt,
			strcmp(R.cut_opt, "--pcap-out") == 0 ? pd_app.cfg.pcap_out :
			pd_app.cfg.dup_out, strerror(R.cut_err));
	if (left_out != 0)
		fprintf(out, "pktdedup: warning: --pcap-in %s: %" PRIu64 " non-packet pcapng"
			" block%s (%" PRIu64 " bytes) left out of the outputs: more than 64 MiB"
			" of such blocks came between two packets; every packet is kept\n",
			R.in_name, left_out, left_out == 1 ? "" : "s", bytes);
	if (R.other_link != 0)
		fprintf(out, "pktdedup: warning: --pcap-in %s: %" PRIu64 " frame%s of pcapng"
			" interfaces whose link type the keys do not take (%s%s) forwarded"
			" without a verdict (bypassed); the keys take " CLI_LINK_TYPES "\n",
			R.in_name, R.other_link,
			R.other_link == 1 ? "" : "s", cli_dlt_name(R.other_dlt),
			R.other_several ? " and others" : "");
	snap_note(out);
	if (rio_in_bpf_note()[0] != '\0')
		fprintf(out, "pktdedup: warning: --bpf '%s' %s: the frames of that link type"
			" passed unchecked (bypassed)\n", pd_app.cfg.bpf, rio_in_bpf_note());
	if (R.damaged && R.frames == 0)
		fprintf(out, "pktdedup: error: --pcap-in %s: %s before its first frame: no"
			" frame was read\n", R.in_name, R.why);
	else if (R.damaged)
		fprintf(out, "pktdedup: error: --pcap-in %s: %s after %" PRIu64 " frames; those"
			" frames are processed and written, the rest of the file is not\n",
			R.in_name, R.why, R.frames);
}

int pd_replay_status(void)
{
	if (R.stopped_by != 0)
		return 128 + R.stopped_by;
	if (R.write_err == EPIPE)
		return 128 + SIGPIPE;
	return R.damaged || R.write_err != 0 ? 1 : 0;
}

const char *pd_replay_tx_to(void)
{
	return pd_app.cfg.pcap_out != NULL ? "pcap-out" : "none";
}
