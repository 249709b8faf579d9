/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay: --pcap-in FILE deduplicated offline and written to --pcap-out in input order.
 *
 * The capture is read once, with libpcap, in batches of frames copied into one arena;
 * there are no ports and no mbufs. (An mbuf is a receive buffer: a file's frames are
 * already whole in memory, so offline runs need neither net_pcap, whose 16-bit lengths
 * cut frames over 64 KiB, nor a pool sized for the largest frame, nor a second reader
 * for the timestamps. EAL still starts, without hugepages or devices, for the worker
 * lcores and the snapshot thread.) Every frame libpcap reads is keyed and
 * deduplicated; the batch's records keep their timestamps (64-bit ns) and original
 * lengths for the output.
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
 * signal. A damaged file stops at the damage: the frames before it are written, status 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_prefetch.h>

#include "../common/link.h"
#include "pktdedup.h"

#define BATCH_FRAMES 1024
#define BATCH_BYTES (4u << 20) /* a batch ends at this many bytes of frames (or more, once) */

struct frame {
	uint64_t off;     /* its bytes in the arena */
	uint64_t ts;      /* ns since the epoch */
	uint64_t hash;
	uint32_t caplen;  /* bytes captured (in the arena) */
	uint32_t len;     /* the record's original length */
	uint8_t keyed;
	uint8_t dup;
};

static struct {
	int fd;                /* the input (libpcap reads it through a stream that first
				* gives back the magic) */
	pcap_t *in;
	pcap_dumper_t *out;    /* NULL: no --pcap-out */
	const char *in_name, *out_name;
	int linktype;
	struct frame f[BATCH_FRAMES];
	unsigned n;            /* frames in the batch */
	uint8_t *arena;
	size_t cap;
	pthread_barrier_t bar;
	int bar_made;          /* bar is initialised (several workers) */
	int end;               /* nothing more to read */
	int damaged;           /* libpcap refused a record: where, in why */
	int stopped_by;        /* the signal that stopped the reading */
	char why[PCAP_ERRBUF_SIZE + 64];
	uint64_t frames;       /* frames read */
	uint64_t offset;       /* bytes of the input consumed */
	uint64_t size;         /* the input's size when it is a regular file, else 0 */
	unsigned char magic[4];
	unsigned magic_left;
} R;

/* ---- the input: a stream that gives back the 4 bytes read to learn the precision ---- */

/* What is there, not a full buffer: a pipe's frames reach libpcap as they come, so a
 * signal while waiting for more finds every frame written before it read. */
static ssize_t in_read(void *cookie, char *buf, size_t len)
{
	ssize_t n = 0;

	(void)cookie;
	if (R.magic_left > 0) {
		while (R.magic_left > 0 && (size_t)n < len) {
			buf[n++] = (char)R.magic[4 - R.magic_left];
			R.magic_left--;
		}
		return n;
	}
	do
		n = read(R.fd, buf, len);
	while (n < 0 && errno == EINTR && !pd_force_quit);
	if (n > 0)
		R.offset += (uint64_t)n;
	return n;
}

static int in_close(void *cookie)
{
	(void)cookie;
	return R.fd == STDIN_FILENO ? 0 : close(R.fd);
}

/* n bytes, waiting for them: 0, or -1 (errno; 0 for an early end). */
static int read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r == 0) {
			errno = 0;
			return -1;
		}
		if (r < 0 && errno != EINTR)
			return -1;
		if (r > 0)
			got += (size_t)r;
	}
	return 0;
}

/*
 * Open the input once: the magic number says whether its timestamps are nanoseconds
 * (pcap a1b23c4d, and pcapng), which the output keeps; libpcap then reads the same
 * stream (with those 4 bytes given back), so a FIFO or a pipe works as a file does.
 */
static int open_input(const char *path)
{
	static const cookie_io_functions_t io = {.read = in_read, .close = in_close};
	char errbuf[PCAP_ERRBUF_SIZE];
	struct stat st;
	FILE *s;
	uint32_t magic;

	R.fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (R.fd < 0) {
		fprintf(stderr, "pktdedup: --pcap-in %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(R.fd, &st) == 0 && S_ISREG(st.st_mode))
		R.size = (uint64_t)st.st_size;
	if (read_full(R.fd, R.magic, 4) != 0) {
		fprintf(stderr, "pktdedup: --pcap-in %s: %s\n", path,
			errno ? strerror(errno) : "shorter than a pcap file header");
		return -1;
	}
	R.offset = 4;
	R.magic_left = 4;
	memcpy(&magic, R.magic, 4);
	s = fopencookie(NULL, "rb", io);
	if (s == NULL) {
		fprintf(stderr, "pktdedup: --pcap-in %s: %s\n", path, strerror(errno));
		return -1;
	}
	R.in = pcap_fopen_offline_with_tstamp_precision(s, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (R.in == NULL) {
		fprintf(stderr, "pktdedup: --pcap-in %s: %s\n", path, errbuf);
		fclose(s);
		return -1;
	}
	R.linktype = pcap_datalink(R.in);
	if (cli_link_from_dlt(R.linktype, &pd_app.cfg.key.link) != 0) {
		fprintf(stderr, "pktdedup: --pcap-in %s: link type %s; the keys take "
			CLI_LINK_TYPES "\n", path, pcap_datalink_val_to_name(R.linktype));
		return -1;
	}
	if (pd_app.cfg.key.link != PD_LINK_ETHERNET && pd_app.cfg.action == PD_ACTION_MARK) {
		fprintf(stderr, "pktdedup: --pcap-in %s: --action mark rewrites Ethernet frames; "
			"this capture is %s\n", path, pcap_datalink_val_to_name(R.linktype));
		return -1;
	}
	pd_app.replay_nano = magic != 0xa1b2c3d4 && magic != 0xd4c3b2a1;
	return 0;
}

/* --pcap-out: a pcap file with the input's link type, snap length and precision. */
static int open_output(const char *path)
{
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(R.linktype, pcap_snapshot(R.in),
		pd_app.replay_nano ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);

	if (dead == NULL) {
		fprintf(stderr, "pktdedup: --pcap-out: out of memory\n");
		return -1;
	}
	R.out = pcap_dump_open(dead, path);
	if (R.out == NULL)
		fprintf(stderr, "pktdedup: --pcap-out %s: %s\n", path, pcap_geterr(dead));
	pcap_close(dead); /* the dumper keeps what it needs */
	return R.out == NULL ? -1 : 0;
}

int pd_replay_open(void)
{
	const struct pd_app_config *c = &pd_app.cfg;

	R.in_name = c->pcap_in;
	R.out_name = c->pcap_out;
	R.cap = BATCH_BYTES + (1u << 20);
	R.arena = malloc(R.cap);
	if (R.arena == NULL) {
		fprintf(stderr, "pktdedup: replay: out of memory\n");
		return -1;
	}
	return open_input(c->pcap_in);
}

/* The output is opened (an existing file truncated) only once everything else has
 * started: a run that fails before it leaves the file as it was. */
int pd_replay_open_output(void)
{
	return R.out_name != NULL ? open_output(R.out_name) : 0;
}

/* ---- the three phases ---- */

/* Seconds of a record: the pcap format's are unsigned 32-bit (libpcap gives them back
 * signed), so a time after 2038 stays after 2038. */
static uint64_t record_ns(const struct pcap_pkthdr *h)
{
	int64_t s = (int64_t)h->ts.tv_sec;
	uint64_t sec = s < 0 ? (uint64_t)(uint32_t)s : (uint64_t)s;

	return sec * 1000000000ULL + (uint64_t)h->ts.tv_usec; /* opened in ns precision */
}

/* Worker 0: the next batch into the arena (R.n frames; 0 at the end). */
static void read_batch(void)
{
	size_t used = 0;

	R.n = 0;
	while (!R.end && R.n < BATCH_FRAMES && used < BATCH_BYTES) {
		struct pcap_pkthdr *h;
		const u_char *d;
		struct frame *f;
		int rc;

		if (pd_force_quit) {
			R.stopped_by = pd_force_quit;
			R.end = 1;
			break;
		}
		rc = pcap_next_ex(R.in, &h, &d);
		if (rc != 1) {
			R.end = 1;
			if (pd_force_quit) /* a signal broke a read that was waiting */
				R.stopped_by = pd_force_quit;
			else if (rc != PCAP_ERROR_BREAK) {
				R.damaged = 1;
				snprintf(R.why, sizeof(R.why), "%s", pcap_geterr(R.in));
			}
			break;
		}
		if (used + h->caplen > R.cap) {
			/* one frame larger than the room left: the arena grows (a batch of
			 * ordinary frames never gets here) */
			size_t cap = used + h->caplen + (1u << 20);
			uint8_t *a = realloc(R.arena, cap);

			if (a == NULL) {
				R.end = 1;
				R.damaged = 1;
				snprintf(R.why, sizeof(R.why), "out of memory for a frame of %u"
					 " bytes", h->caplen);
				break;
			}
			R.arena = a;
			R.cap = cap;
		}
		f = &R.f[R.n++];
		f->off = used;
		f->ts = record_ns(h);
		f->caplen = h->caplen;
		f->len = h->len;
		f->keyed = 0;
		f->dup = 0;
		memcpy(R.arena + used, d, h->caplen);
		used += h->caplen;
		R.frames++;
	}
	pd_app.w[0]->c.rx += R.n;
}

/* Phase 1: keys and hashes of frames idx, idx + step, ... */
static void key_batch(struct pd_worker *w, unsigned step)
{
	const int prefetch = step == 1; /* one worker: the frame's owner loads its row */

	for (unsigned i = w->idx; i < R.n; i += step) {
		struct frame *f = &R.f[i];
		size_t need = PD_KEY_BUF_LEN(f->caplen), klen;

		if (need > w->replay_keycap) {
			uint8_t *b = realloc(w->replay_key, need);

			if (b == NULL) { /* keyless, and forwarded as such: counted, not lost */
				w->c.oversize++;
				w->c.unparseable++;
				continue;
			}
			w->replay_key = b;
			w->replay_keycap = need;
		}
		if (pd_key_of_bytes(w, R.arena + f->off, f->caplen, w->replay_key,
				    w->replay_keycap, &klen) != 0)
			continue;
		f->hash = pd_filter_hash(w->filter, w->replay_key, klen);
		f->keyed = 1;
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

			if (!f->keyed || (nworkers > 1 && pd_owner_of(f->hash, nworkers) != w->idx))
				continue;
			h[k] = f->hash;
			ts[k] = f->ts;
			idx[k++] = i;
		}
		if (k == PD_APP_BURST || (i == R.n && k > 0)) {
			uint8_t v[PD_APP_BURST];

			pd_run_filter(w, h, ts, v, k);
			for (unsigned j = 0; j < k; j++) {
				R.f[idx[j]].dup = v[j];
				if (v[j])
					w->c.duplicate++;
				else
					w->c.unique++;
			}
			k = 0;
		}
	}
}

/* Phase 3 (worker 0): every frame of the batch in input order, by its verdict. */
static void write_batch(struct pd_worker *w)
{
	const struct pd_app_config *c = &pd_app.cfg;

	for (unsigned i = 0; i < R.n; i++) {
		struct frame *f = &R.f[i];
		uint8_t *p = R.arena + f->off;

		if (!f->keyed ? c->drop_unparseable : f->dup && c->action == PD_ACTION_DROP) {
			w->c.dropped++;
			continue;
		}
		if (f->keyed && f->dup && c->action == PD_ACTION_MARK) {
			if (pd_frame_set_dscp(p, f->caplen, c->mark_dscp) == 0)
				w->c.marked++;
			else
				w->c.unmarkable++;
		}
		if (R.out != NULL) {
			struct pcap_pkthdr hd;

			hd.ts.tv_sec = (time_t)(f->ts / 1000000000ULL);
			hd.ts.tv_usec = (suseconds_t)(pd_app.replay_nano ? f->ts % 1000000000ULL :
						      f->ts % 1000000000ULL / 1000);
			hd.caplen = f->caplen;
			hd.len = f->len;
			pcap_dump((u_char *)R.out, &hd, p);
		}
		w->c.tx++;
	}
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
			read_batch();
			pd_stats_tick();
		}
		barrier(nw);
		if (R.n == 0)
			break;
		key_batch(w, nw);
		barrier(nw);
		filter_batch(w, nw);
		if (unlikely(w->snap.state == PD_SNAP_REQUESTED)) {
			rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
			pd_snap_step(w); /* one bounded step of a periodic snapshot's copy */
		}
		barrier(nw);
	}
	w->snap.stopped = 1;
	return 0;
}

/* Before the workers start: the barrier for their count. */
int pd_replay_start(void)
{
	if (pd_app.nworkers > 1) {
		if (pthread_barrier_init(&R.bar, NULL, pd_app.nworkers) != 0) {
			fprintf(stderr, "pktdedup: replay: cannot make the workers' barrier\n");
			return -1;
		}
		R.bar_made = 1;
	}
	return 0;
}

int pd_replay_close(void)
{
	int rc = 0;

	if (R.out != NULL) {
		FILE *f = pcap_dump_file(R.out);
		int bad = pcap_dump_flush(R.out) != 0 || ferror(f);
		int err = errno;

		/* pcap_dump_close closes the stream: a write it makes then is not checked by
		 * libpcap, so the flush above is what says the file is whole */
		pcap_dump_close(R.out);
		R.out = NULL;
		if (bad) {
			fprintf(stderr, "pktdedup: error: --pcap-out %s: writing failed: %s\n",
				R.out_name, strerror(err));
			rc = -1;
		}
	}
	if (R.in != NULL)
		pcap_close(R.in);
	R.in = NULL;
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

void pd_replay_summary(FILE *out)
{
	char where[96] = "";

	if (R.size != 0)
		snprintf(where, sizeof(where), ", byte %" PRIu64 " of %" PRIu64 " (%.1f%%)",
			 R.offset, R.size, 100.0 * (double)R.offset / (double)R.size);
	if (R.stopped_by != 0)
		fprintf(out, "pktdedup: interrupted by %s after %" PRIu64 " frames of %s%s:"
			" the input was not read to its end; %s holds the frames read\n",
			strsignal(R.stopped_by), R.frames, R.in_name, where,
			R.out_name != NULL ? R.out_name : "the summary");
	if (R.damaged)
		fprintf(out, "pktdedup: error: --pcap-in %s: %s after %" PRIu64 " frames; those"
			" frames are processed and written, the rest of the file is not\n",
			R.in_name, R.why, R.frames);
}

int pd_replay_status(void)
{
	if (R.stopped_by != 0)
		return 128 + R.stopped_by;
	return R.damaged ? 1 : 0;
}

const char *pd_replay_tx_to(void)
{
	return R.out_name != NULL ? "pcap-out" : "none";
}
