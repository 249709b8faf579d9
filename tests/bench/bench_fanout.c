/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software dispatch's ring traffic alone, at any number of workers: what the rings of
 * app/pktdedup/spsc.h cost a packet as the workers, and so the rings each worker serves,
 * grow (docs/speed.md, "Sixteen cores").
 *
 * Each thread is a worker as app/pktdedup/worker.c runs one, less DPDK: a round
 * "receives" 32 packets (a random hash each and a 128-byte stand-in for its mbuf,
 * written, from a stack of free ones as a mempool cache), spins WORK ns (the receive,
 * key and hash of a real round), keeps the packets it owns and hands the others'
 * lookups (16 bytes: hash and time) to their owners, one ring per owner; decides the
 * lookups handed to it and its own packets (a row of its table read and written per
 * packet, prefetched a round or a poll ahead as the filter's are; the verdict is the
 * hash's low bit) and sends the verdicts back, one ring per receiver; and acts on the
 * verdicts come back (the stand-in read, the verdict checked against it, the stand-in
 * freed). The rings are sized, published and polled as worker.c and ports.c do: rings
 * of --dispatch-ring's default (or -r's) split among the receivers, whole lines
 * published every 4 busy rounds, stale rings every 64, up to 4 bursts a poll. worker.c
 * publishes every 16 busy rounds when no verdict comes back: its nov is nov,rounds=16
 * here.
 *
 * Three ways to run W workers:
 *  - on W threads, one a CPU (-t W): the rings' lines cross between W cores, as with W
 *    workers; on a 16-core machine, -w 15 -t 15 measures 15 workers' rings without
 *    DPDK or a packet source;
 *  - on 2 threads (-t 2, the default): each thread is a worker whose W - 1 peers are all
 *    played by the other thread. Each ring then carries what it carries with W workers
 *    (with 15, about 2 lookups a round) and its lines cross as often per packet, but
 *    between two cores only: how the cost grows with W on a 2-core machine;
 *  - on 1 thread (-t 1): the two workers of -t 2 take turns on one CPU, so nothing
 *    crosses between cores: what the rings cost in instructions and cache footprint.
 *
 * Policies, A against B: plain (lists by owner copied into and out of the rings, as
 * worker.c did before its puts and gets in place), ahead (a poll first reads every
 * ring's published index and asks for its new lines, then takes from the rings), early
 * (at a round's start every ring's index and next line to read asked for), pfw (at a
 * round's start every ring's next line to write asked for, to write), vall (verdict
 * rings publish everything, not whole lines), count (--action count with several
 * ports: a packet handed over is sent at once, its stand-in freed, and its verdict only
 * checked when it comes back, against a byte kept for it), nov (--action count on one
 * port: sent at once and no verdict comes back; the owner counts it), h8 (a lookup is
 * its hash alone, 8 bytes, as the app hands over when untimed; rings of their own, so
 * that A and B may differ: two h8 policies must agree on nov; not with stage=N),
 * rounds=N (publish every N busy rounds), stage=N (a worker holds each owner's lookups
 * and hands them over every N rounds, so a round writes to about 1/N of its rings, and
 * publishes them at once), zc (with h8, not count: each lookup written in its owner's
 * ring in place as the round is sorted, spsc.h's writer, and read in place by its
 * owner, pd_spsc_peek, as worker.c does), zcv (with zc: the verdicts written and read
 * in place too, which worker.c does not do), dp and dc (with zc: each whole line of
 * lookups moved towards the shared last-level cache with CLDEMOTE, a hint, by its
 * producer once published (dp) and by its consumer once read (dc), so that the other
 * core finds it there instead of asking this one for it; worker.c does not do it, and
 * where the CPU lacks it, as the 2-core EPYC does, it runs as a NOP). -M runs one ring
 * each way between a pair instead of two (round_merged says how). The run alternates A
 * and B in slices of 100 ms (ABBA): the development VM's core-to-core round trip
 * switches between about 110 and 550 ns within seconds, so runs seconds apart do not
 * compare, slices 0.1 s apart mostly do.
 * Prints the medians of ns a packet received beyond WORK, per policy, and of the
 * pairs' ratios B/A, the share of packets that found a ring full (forwarded unchecked
 * in the app), and verdicts that did not match their packet (a wrong ring protocol;
 * exit status 1).
 *
 *   bench_fanout [-w WORKERS] [-t THREADS] [-c FIRST_CPU] [-s SECS] [-n WORK_NS]
 *                [-m TABLE_MIB] [-r RING_LOOKUPS] [-M] [A [B]]
 *
 * A benchmark, not a test: scripts/bench_fanout.sh runs a sweep.
 */
#ifndef _GNU_SOURCE /* meson.build sets it */
#define _GNU_SOURCE
#endif
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../app/pktdedup/spsc.h"

#define BURST 32           /* PD_APP_BURST */
#define MAXW 64            /* PD_APP_MAX_WORKERS */
#define DRAIN 4            /* PD_APP_DISPATCH_DRAIN */
#define ROUNDS 4           /* PD_APP_DISPATCH_ROUNDS */
#define STALE 64           /* PD_APP_DISPATCH_STALE */
#define RING_LOOKUPS 2048u /* PD_APP_RING_DEFAULT */
#define BATCH 64u          /* PD_APP_DISPATCH_BATCH */
#define POOL 65536u        /* stand-ins a worker has */
#define SLICE_MS 100

static unsigned ring_lookups = RING_LOOKUPS; /* -r: --dispatch-ring */

struct lookup { /* struct pd_handoff */
	uint64_t hash, time;
};

struct mb { /* a packet's stand-in: an mbuf's header line and its data's first line */
	_Alignas(64) uint64_t hash;
	uint64_t hdr[7];
	uint8_t data[64];
};

struct pending {
	unsigned head, tail, mask;
	struct mb **m;  /* NULL for a packet sent at once (count) */
	uint8_t *bit;   /* count: the verdict the packet's hash says */
};

struct policy {
	int ahead, early, pfw, vall, count, nov, h8, zc, zcv, dp, dc;
	unsigned rounds, stage;
};

/* The rings between a worker and its peers, and its packets waiting for their verdicts:
 * a set for 16-byte lookups, one for 8-byte ones (h8), so that A and B may differ. */
struct rings {
	struct pd_spsc *to[MAXW], *back[MAXW];    /* as receiver, by owner */
	struct pd_spsc *from[MAXW], *reply[MAXW]; /* as owner, by receiver */
	struct pending pend[MAXW];
};

#define STAGE_MAX 8 /* rounds a lookup may be staged */

struct worker { /* a line of its own: w[t + 1] shares none with w[t] */
	_Alignas(64) int cpu;
	unsigned peers, me; /* peer k is worker k < me ? k : k + 1 (-t 2: the other thread) */
	struct policy pol;
	struct rings set[2]; /* by pol.h8 (RS) */
	unsigned from_next;
	struct mb *pool, **free, *own[2][BURST];  /* own[cur ^ 1]: last round's, waiting */
	unsigned nfree, nown[2], cur;
	uint8_t *table;
	/* -M: one ring each way between a pair, lookups and verdicts in it */
	struct pd_spsc *mout[MAXW], *min[MAXW];
	uint8_t pack[MAXW][8];   /* verdicts for receiver k not yet in its ring */
	unsigned npack[MAXW], limit; /* lookups a receiver may have waiting, per owner */
	/* stage=R: lookups for owner k held here, handed over every R rounds */
	struct lookup *stg;      /* [peers][STAGE_MAX * BURST] */
	struct mb **stgm;
	unsigned nstg[MAXW];
	struct pd_spsc_writer wr[MAXW]; /* zc: a round's room in each owner's ring */
	uint64_t rows, rng, busy, full, wrong;
	_Atomic uint64_t rounds; /* read by the main thread */
};

/* The rings of the policy of the moment, and the bytes of its lookups in them. */
#define RS(w) (&(w)->set[(w)->pol.h8])
#define LSIZE(w) ((w)->pol.h8 ? sizeof(uint64_t) : sizeof(struct lookup))

static _Atomic int go, stop, which; /* which: the policy now, 0 (A) or 1 (B) */
static struct policy pols[2];
static unsigned work_ns = 2000;
static int merged;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned owner_of(uint64_t h, unsigned n) /* pd_owner_of */
{
	return (unsigned)(((h * 0x9e3779b97f4a7c15ULL) >> 32) * n >> 32);
}

static void *alloc(size_t n)
{
	void *p = aligned_alloc(64, (n + 63) & ~(size_t)63);

	if (p == NULL) {
		fprintf(stderr, "bench_fanout: out of memory\n");
		exit(2);
	}
	memset(p, 0, n);
	return p;
}

static struct pd_spsc *ring(unsigned size, size_t esize)
{
	return pd_spsc_init(alloc(pd_spsc_bytes(size, esize)), size, esize,
			    BATCH < size / 4 ? BATCH : size / 4);
}

/* The row a hash decides (the filter's line); none without a table. */
static inline uint8_t *row(const struct worker *w, uint64_t h)
{
	__extension__ typedef unsigned __int128 u128;

	return w->table + (uint64_t)(((u128)(h * 0xff51afd7ed558ccdULL) * w->rows) >> 64) * 64;
}

/* Inlined, as every function here of prefetches alone: GCC 12 at -O2 takes such a
 * function for one without effects and drops its calls (-fipa-modref). */
static inline __attribute__((always_inline)) void prefetch_row(const struct worker *w,
							       uint64_t h)
{
	if (w->rows != 0)
		__builtin_prefetch(row(w, h));
}

static inline uint8_t decide(const struct worker *w, uint64_t h)
{
	if (w->rows != 0) {
		uint8_t *r = row(w, h);

		r[0] = (uint8_t)(r[0] + 1);
	}
	return (uint8_t)(h & 1);
}

/* ahead: every ring's new lines asked for before any is taken */
static inline __attribute__((always_inline)) void look_ahead(struct worker *w)
{
	for (unsigned k = 0; k < w->peers; k++) {
		struct pd_spsc *f = RS(w)->from[k], *b = RS(w)->back[k];
		unsigned t;

		t = f->c_tail = atomic_load_explicit(&f->tail, memory_order_acquire);
		for (unsigned i = f->c_head & ~3u; (int)(i - t) < 0; i += 4)
			__builtin_prefetch(f->slot + (size_t)(i & f->c_mask) * LSIZE(w));
		t = b->c_tail = atomic_load_explicit(&b->tail, memory_order_acquire);
		if (t != b->c_head)
			__builtin_prefetch(b->slot + (b->c_head & b->c_mask));
	}
}

/* early: every ring's index and next line to read asked for (a line not yet written
 * comes back stale) */
static inline __attribute__((always_inline)) void read_early(struct worker *w)
{
	for (unsigned k = 0; k < w->peers; k++) {
		struct pd_spsc *f = RS(w)->from[k], *b = RS(w)->back[k];

		__builtin_prefetch(&f->tail);
		__builtin_prefetch(f->slot + (size_t)(f->c_head & f->c_mask) * LSIZE(w));
		__builtin_prefetch(&b->tail);
		__builtin_prefetch(b->slot + (b->c_head & b->c_mask));
	}
}

/* A line asked for to write: prefetchw, which -march=x86-64-v2 does not let GCC emit
 * for __builtin_prefetch(p, 1) (it emits a read prefetch); where the CPU lacks it the
 * instruction is a no-op. */
static inline void prefetch_write(const void *p)
{
#if defined(__x86_64__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1);
#endif
}

/* The line holding p moved from this core's caches towards the shared last-level
 * cache (CLDEMOTE, a hint), so that the next core to want it finds it there instead of
 * asking this one. Its encoding lies among the hint NOPs: a CPU without it (the 2-core
 * EPYC) runs it as a NOP. */
static inline void demote(const void *p)
{
#if defined(__x86_64__)
	__asm__ volatile(".byte 0x0f, 0x1c, 0x06" : : "S"(p), "m"(*(const char *)p));
#else
	(void)p;
#endif
}

/* dp: the whole lines of lookups published since the ring's tail was @p pub, and the
 * tail's own line, demoted by their producer */
static inline void demote_published(const struct worker *w, const struct pd_spsc *r,
				    unsigned pub)
{
	const unsigned line = (unsigned)(PD_SPSC_LINE / LSIZE(w));

	if (r->p_pub == pub)
		return;
	for (unsigned i = pub & ~(line - 1); (int)(i - r->p_pub) < 0; i += line)
		demote(r->slot + (size_t)(i & r->p_mask) * LSIZE(w));
	demote(&r->tail);
}

/* pfw: every ring's next line to write asked for, to write */
static inline __attribute__((always_inline)) void write_early(struct worker *w)
{
	for (unsigned k = 0; k < w->peers; k++) {
		struct pd_spsc *t = RS(w)->to[k], *v = RS(w)->reply[k];

		prefetch_write(t->slot + (size_t)(t->p_tail & t->p_mask) * LSIZE(w));
		prefetch_write(v->slot + (v->p_tail & v->p_mask));
	}
}

/* worker.c's decide_handed: a lookup is its hash and, in 16 bytes, a word that says
 * whether its verdict goes back (nov: 1); in 8 bytes (h8) the hash alone, its verdict
 * back unless nov */
static unsigned decide_handed(struct worker *w)
{
	uint64_t in[2 * BURST], h[BURST];
	uint8_t v[BURST], back[BURST];
	const unsigned wd = (unsigned)(LSIZE(w) / sizeof(uint64_t));
	unsigned n = 0, took[MAXW], k = w->from_next;

	if (w->pol.zc) { /* read in place (h8), as worker.c's decide_handed */
		for (unsigned j = 0; j < w->peers; j++, k = k + 1 == w->peers ? 0 : k + 1) {
			struct pd_spsc *r = RS(w)->from[k];
			const unsigned room = w->pol.nov ? BURST - n
							 : pd_spsc_room(RS(w)->reply[k], BURST - n);

			took[j] = pd_spsc_peek(r, BURST - n < room ? BURST - n : room);
			for (unsigned i = 0; i < took[j]; i++) {
				h[n + i] = *(const uint64_t *)pd_spsc_peek_slot(r, i, sizeof(h[0]));
				prefetch_row(w, h[n + i]);
				if (w->pol.dc && ((r->c_head + i + 1) & 7) == 0) /* a line read */
					demote(pd_spsc_peek_slot(r, i, sizeof(h[0])));
			}
			pd_spsc_release(r, took[j]);
			n += took[j];
		}
		if (n == 0)
			return 0;
		for (unsigned i = 0; i < n && i < BURST; i++)
			v[i] = decide(w, h[i]);
		k = w->from_next;
		for (unsigned j = 0, i = 0; j < w->peers && !w->pol.nov;
		     j++, k = k + 1 == w->peers ? 0 : k + 1) {
			if (took[j] != 0 && w->pol.zcv) { /* verdicts written in place too */
				struct pd_spsc_writer vw;
				uint8_t *l;

				pd_spsc_writer_begin(RS(w)->reply[k], &vw, took[j]);
				for (unsigned x = i; (l = pd_spsc_writer_next(&vw, 1)) != NULL; x++)
					*l = v[x];
				pd_spsc_writer_end(RS(w)->reply[k], &vw);
			} else if (took[j] != 0) {
				pd_spsc_put(RS(w)->reply[k], v + i, took[j], 1);
			}
			i += took[j];
		}
		w->from_next = w->from_next + 1 == w->peers ? 0 : w->from_next + 1;
		return n;
	}
	for (unsigned j = 0; j < w->peers; j++, k = k + 1 == w->peers ? 0 : k + 1) {
		const unsigned room = pd_spsc_room(RS(w)->reply[k], BURST - n);
		const unsigned want = BURST - n < room ? BURST - n : room;

		took[j] = pd_spsc_get(RS(w)->from[k], in + n * wd, want, LSIZE(w));
		for (unsigned i = n; i < n + took[j] && i < BURST; i++) {
			h[i] = in[i * wd];
			back[i] = wd == 2 ? in[i * wd + 1] == 0 : !w->pol.nov;
			prefetch_row(w, h[i]);
		}
		n += took[j];
	}
	if (n == 0)
		return 0;
	for (unsigned i = 0; i < n && i < BURST; i++) /* (never more: for GCC's warning) */
		v[i] = decide(w, h[i]);
	k = w->from_next;
	for (unsigned j = 0, i = 0; j < w->peers; j++, k = k + 1 == w->peers ? 0 : k + 1) {
		unsigned nv = 0;

		for (unsigned x = i; x < i + took[j] && x < BURST; x++) /* nov: counted here */
			if (back[x])
				v[i + nv++] = v[x];
		if (nv != 0)
			pd_spsc_put(RS(w)->reply[k], v + i, nv, 1);
		i += took[j];
	}
	w->from_next = w->from_next + 1 == w->peers ? 0 : w->from_next + 1;
	return n;
}

static void act(struct worker *w, struct mb *m, uint8_t v)
{
	w->wrong += (m->hash & 1) != v;
	w->free[w->nfree++] = m;
}

/* worker.c's act_decided (count: the packet was sent at once, its verdict counted) */
static void act_decided(struct worker *w)
{
	for (unsigned k = 0; k < w->peers; k++) {
		struct pending *p = &RS(w)->pend[k];
		unsigned n = BURST;

		if (w->pol.nov && p->tail == p->head) /* nothing waits: the ring not read */
			continue;
		for (unsigned b = 0; b < DRAIN && n == BURST; b++) {
			uint8_t v[BURST];

			if (w->pol.zcv) { /* read in place */
				struct pd_spsc *r = RS(w)->back[k];

				n = pd_spsc_peek(r, BURST);
				for (unsigned i = 0; i < n; i++)
					v[i] = *(const uint8_t *)pd_spsc_peek_slot(r, i, 1);
				pd_spsc_release(r, n);
			} else {
				n = pd_spsc_get(RS(w)->back[k], v, BURST, 1);
			}
			for (unsigned i = 0; i < n; i++) {
				const unsigned at = p->head++ & p->mask;

				if (p->m[at] != NULL)
					act(w, p->m[at], v[i]);
				else
					w->wrong += p->bit[at] != v[i];
			}
		}
	}
}

static void flush_ring(struct pd_spsc *r, int how) /* 0 all, 1 whole lines, 2 stale */
{
	if (how == 1)
		pd_spsc_flush_lines(r);
	else if (how == 2)
		pd_spsc_flush_stale(r);
	else
		pd_spsc_flush(r);
}

static void flush_all(struct worker *w, int how)
{
	for (unsigned k = 0; k < w->peers; k++) {
		const unsigned pub = RS(w)->to[k]->p_pub;

		flush_ring(RS(w)->to[k], how);
		if (w->pol.dp)
			demote_published(w, RS(w)->to[k], pub);
		flush_ring(RS(w)->reply[k], w->pol.vall ? 0 : how);
	}
}

static void spin(unsigned ns)
{
	const uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

/* A burst received, keyed and sorted: this worker's own packets in own[cur], their rows
 * asked for; the others' lookups and packets in out[k] and kept[k] by owner. */
static void receive(struct worker *w, struct lookup out[][BURST], struct mb *kept[][BURST],
		    unsigned *nout)
{
	unsigned mine = 0;

	for (unsigned i = 0; i < BURST; i++) {
		struct mb *m = w->free[--w->nfree]; /* fewer wait than POOL - BURST */
		unsigned o;

		m->hash = xorshift(&w->rng);
		m->hdr[0] = i;
		m->data[0] = (uint8_t)i;
		o = owner_of(m->hash, w->peers + 1);
		if (o == w->me) {
			w->own[w->cur][mine++] = m;
			prefetch_row(w, m->hash);
			continue;
		}
		o = o < w->me ? o : o - 1;
		if (w->pol.zc) { /* the hash written in its slot, in place (h8) */
			struct pd_spsc_writer *wr = &w->wr[o];
			struct pending *p = &RS(w)->pend[o];
			uint64_t *l = pd_spsc_writer_next(wr, sizeof(uint64_t));

			if (l == NULL) {
				w->full++;
				w->free[w->nfree++] = m;
			} else if (*l = m->hash, w->pol.nov) {
				w->free[w->nfree++] = m; /* sent at once */
			} else {
				p->m[p->tail++ & p->mask] = m; /* the list advances with the ring */
			}
			continue;
		}
		kept[o][nout[o]] = m;
		if (w->pol.h8) /* the hashes alone, packed, as the app writes them */
			((uint64_t *)out[o])[nout[o]++] = m->hash;
		else /* time 1: no verdict (nov) */
			out[o][nout[o]++] = (struct lookup){m->hash, (uint64_t)w->pol.nov};
	}
	w->nown[w->cur] = mine;
}

static void hand_over(struct worker *w, unsigned k, const struct lookup *out,
		      struct mb **kept, unsigned n)
{
	struct pending *p = &RS(w)->pend[k];
	const unsigned free = p->mask + 1 - (p->tail - p->head);
	const unsigned want = n < free ? n : free;
	unsigned e;

	if (n == 0)
		return;
	e = pd_spsc_put(RS(w)->to[k], out, want, LSIZE(w)); /* h8: packed hashes (receive) */
	if (w->pol.nov) { /* sent at once, no verdict comes back: the owner counts it */
		for (unsigned i = 0; i < e; i++)
			w->free[w->nfree++] = kept[i];
	} else if (w->pol.count) { /* sent at once: the stand-in freed, the verdict it wants kept */
		for (unsigned i = 0; i < e; i++) {
			p->bit[p->tail & p->mask] = (uint8_t)(kept[i]->hash & 1);
			p->m[p->tail++ & p->mask] = NULL;
			w->free[w->nfree++] = kept[i];
		}
	} else {
		for (unsigned i = 0; i < e; i++)
			p->m[p->tail++ & p->mask] = kept[i];
	}
	for (unsigned i = e; i < n; i++) /* forwarded unchecked */
		w->free[w->nfree++] = kept[i];
	w->full += n - e;
}

/* stage=R: owner k's staged lookups handed over and published */
static void stage_out(struct worker *w, unsigned k)
{
	const size_t at = (size_t)k * STAGE_MAX * BURST;

	hand_over(w, k, w->stg + at, w->stgm + at, w->nstg[k]);
	w->nstg[k] = 0;
	pd_spsc_flush(RS(w)->to[k]);
}

static void round_once(struct worker *w)
{
	struct lookup out[MAXW][BURST];
	struct mb *kept[MAXW][BURST];
	unsigned nout[MAXW] = {0}, n = BURST;

	if (w->pol.early)
		read_early(w);
	if (w->pol.pfw)
		write_early(w);
	if (w->pol.zc) /* room in each owner's ring, as dispatch_burst_as takes it */
		for (unsigned k = 0; k < w->peers; k++) {
			const struct pending *p = &RS(w)->pend[k];
			const unsigned room = w->pol.nov ? BURST : p->mask + 1 - (p->tail - p->head);

			pd_spsc_writer_begin(RS(w)->to[k], &w->wr[k], room < BURST ? room : BURST);
		}
	receive(w, out, kept, nout);
	spin(work_ns);
	if (w->pol.stage > 1) {
		for (unsigned k = 0; k < w->peers; k++) {
			const size_t at = (size_t)k * STAGE_MAX * BURST + w->nstg[k];

			memcpy(w->stg + at, out[k], nout[k] * sizeof(out[0][0]));
			memcpy(w->stgm + at, kept[k], nout[k] * sizeof(kept[0][0]));
			w->nstg[k] += nout[k];
			if ((w->busy + k) % w->pol.stage == 0)
				stage_out(w, k);
		}
	} else if (w->pol.zc) { /* written in place (receive): put, published in batches */
		for (unsigned k = 0; k < w->peers; k++) {
			const unsigned pub = RS(w)->to[k]->p_pub;

			pd_spsc_writer_end(RS(w)->to[k], &w->wr[k]);
			if (w->pol.dp)
				demote_published(w, RS(w)->to[k], pub);
		}
	} else {
		for (unsigned k = 0; k < w->peers; k++) /* worker.c's hand_over, one try */
			hand_over(w, k, out[k], kept[k], nout[k]);
	}
	w->cur ^= 1; /* the last round's own packets, their rows loaded meanwhile */
	for (unsigned i = 0; i < w->nown[w->cur]; i++)
		act(w, w->own[w->cur][i], decide(w, w->own[w->cur][i]->hash));
	if (w->pol.ahead)
		look_ahead(w);
	for (unsigned b = 0; b < DRAIN && n == BURST; b++)
		n = decide_handed(w);
	act_decided(w);
	if (++w->busy % w->pol.rounds == 0)
		flush_all(w, w->busy % STALE == 0 ? 2 : 1);
	atomic_store_explicit(&w->rounds, w->rounds + 1, memory_order_relaxed);
}

/*
 * -M: between each pair one ring each way (16-byte slots), carrying both the lookups
 * one hands the other and the verdicts it sends back for the other's lookups, packed 8
 * to a slot (the second word's top bit says which: a time never has it). Verdicts wait
 * in a pack until it is full or the ring is published, so they ride in the lines the
 * lookups cross in, published with them. A receiver keeps at most limit (half the
 * ring) lookups waiting per owner, so a ring always has room for the verdicts it owes
 * (each at most a slot): no worker waits for another to make room.
 */
#define VPACK (1ull << 63)

static void pack_flush(struct worker *w, unsigned k)
{
	struct lookup sl = {0, VPACK | w->npack[k]};

	if (w->npack[k] == 0)
		return;
	memcpy(&sl.hash, w->pack[k], 8);
	if (pd_spsc_put(w->mout[k], &sl, 1, sizeof(sl)) != 1)
		abort(); /* the limit leaves room */
	w->npack[k] = 0;
}

static void merged_flush(struct worker *w, int how)
{
	for (unsigned k = 0; k < w->peers; k++) {
		pack_flush(w, k);
		flush_ring(w->mout[k], how);
	}
}

/* The lookups handed to this worker, and the verdicts come back, from every ring. */
static unsigned merged_poll(struct worker *w)
{
	struct lookup in[BURST];
	uint64_t h[BURST];
	unsigned from[BURST], n = 0, k = w->from_next;

	for (unsigned j = 0; j < w->peers; j++, k = k + 1 == w->peers ? 0 : k + 1) {
		const unsigned got = pd_spsc_get(w->min[k], in, BURST - n, sizeof(in[0]));
		struct pending *p = &w->set[0].pend[k];

		for (unsigned i = 0; i < got; i++) {
			if (in[i].time & VPACK) { /* verdicts for this worker's packets */
				const unsigned nv = (unsigned)(in[i].time & 15);
				uint8_t v[8];

				memcpy(v, &in[i].hash, 8);
				for (unsigned x = 0; x < nv; x++)
					act(w, p->m[p->head++ & p->mask], v[x]);
				continue;
			}
			prefetch_row(w, in[i].hash);
			h[n] = in[i].hash;
			from[n++] = k;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		const unsigned r = from[i];

		w->pack[r][w->npack[r]++] = decide(w, h[i]);
		if (w->npack[r] == 8)
			pack_flush(w, r);
	}
	w->from_next = w->from_next + 1 == w->peers ? 0 : w->from_next + 1;
	return n;
}

static void round_merged(struct worker *w)
{
	struct lookup out[MAXW][BURST];
	struct mb *kept[MAXW][BURST];
	unsigned nout[MAXW] = {0}, n = BURST;

	receive(w, out, kept, nout);
	spin(work_ns);
	for (unsigned k = 0; k < w->peers; k++) {
		struct pending *p = &w->set[0].pend[k];
		const unsigned free = w->limit - (p->tail - p->head);
		const unsigned want = nout[k] < free ? nout[k] : free;
		unsigned e;

		if (nout[k] == 0)
			continue;
		e = pd_spsc_put(w->mout[k], out[k], want, sizeof(out[0][0]));
		for (unsigned i = 0; i < e; i++)
			p->m[p->tail++ & p->mask] = kept[k][i];
		for (unsigned i = e; i < nout[k]; i++)
			w->free[w->nfree++] = kept[k][i];
		w->full += nout[k] - e;
	}
	w->cur ^= 1;
	for (unsigned i = 0; i < w->nown[w->cur]; i++)
		act(w, w->own[w->cur][i], decide(w, w->own[w->cur][i]->hash));
	for (unsigned b = 0; b < DRAIN && n == BURST; b++)
		n = merged_poll(w);
	if (++w->busy % w->pol.rounds == 0)
		merged_flush(w, w->busy % STALE == 0 ? 2 : 1);
	atomic_store_explicit(&w->rounds, w->rounds + 1, memory_order_relaxed);
}

/* One round of worker w under the policy of the moment. */
static void step(struct worker *w)
{
	const int p = atomic_load_explicit(&which, memory_order_relaxed);

	if (w->pol.stage != pols[p].stage) /* hand over what is staged */
		for (unsigned k = 0; k < w->peers; k++)
			stage_out(w, k);
	if (w->pol.rounds != pols[p].rounds || w->pol.h8 != pols[p].h8) /* publish what waits */
		merged ? merged_flush(w, 0) : flush_all(w, 0);
	if (memcmp(&w->pol, &pols[p], sizeof(w->pol)) != 0) /* no store when unchanged */
		w->pol = pols[p];
	merged ? round_merged(w) : round_once(w);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0) {
		fprintf(stderr, "bench_fanout: cannot run on CPU %d\n", cpu);
		exit(2);
	}
	while (!atomic_load(&go))
		;
}

static void *run(void *arg)
{
	struct worker *w = arg;

	pin(w->cpu);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		step(w);
	return NULL;
}

/* -t 1: both workers' rounds in turn on one CPU, so no line crosses between cores */
static void *run_solo(void *arg)
{
	struct worker *w = arg;

	pin(w[0].cpu);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		step(&w[0]);
		step(&w[1]);
	}
	return NULL;
}

/* The policies that are a switch: each name and the flag it sets. */
static const struct {
	const char *name;
	size_t at; /* offsetof(struct policy, the flag) */
} switches[] = {
	{"ahead", offsetof(struct policy, ahead)}, {"early", offsetof(struct policy, early)},
	{"pfw", offsetof(struct policy, pfw)},     {"vall", offsetof(struct policy, vall)},
	{"count", offsetof(struct policy, count)}, {"nov", offsetof(struct policy, nov)},
	{"h8", offsetof(struct policy, h8)},       {"zc", offsetof(struct policy, zc)},
	{"zcv", offsetof(struct policy, zcv)},     {"dp", offsetof(struct policy, dp)},
	{"dc", offsetof(struct policy, dc)},
};

static int parse_one(const char *a, struct policy *p)
{
	if (strcmp(a, "plain") == 0)
		return 0;
	for (size_t i = 0; i < sizeof(switches) / sizeof(switches[0]); i++)
		if (strcmp(a, switches[i].name) == 0)
			return *(int *)((char *)p + switches[i].at) = 1, 0;
	if (strncmp(a, "stage=", 6) == 0 && atoi(a + 6) > 1 && atoi(a + 6) <= STAGE_MAX)
		return p->stage = (unsigned)atoi(a + 6), 0;
	if (strncmp(a, "rounds=", 7) == 0 && atoi(a + 7) > 0 && atoi(a + 7) <= STALE &&
	    STALE % atoi(a + 7) == 0)
		return p->rounds = (unsigned)atoi(a + 7), 0;
	return -1;
}

/* A policy: its parts joined by commas ("count,rounds=16"). */
static int parse_policy(const char *a, struct policy *p)
{
	char buf[64], *save = NULL;

	*p = (struct policy){.rounds = ROUNDS};
	if (strlen(a) >= sizeof(buf))
		return -1;
	strcpy(buf, a);
	for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save))
		if (parse_one(t, p) != 0)
			return -1;
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(v[0]), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: bench_fanout [-w WORKERS] [-t THREADS] [-c FIRST_CPU] [-s SECS]\n"
		"                    [-n WORK_NS] [-m TABLE_MIB] [-r RING_LOOKUPS] [-M] [A [B]]\n"
		"  WORKERS 2-64 (15); THREADS 1, 2 or WORKERS (2); SECS 1-100 (10); WORK_NS (2000);\n"
		"  TABLE_MIB a worker (64; 0: none); RING_LOOKUPS: --dispatch-ring, 128 to 2^20\n"
		"  (2048); -M: one ring each way between a pair\n"
		"  (policies plain and rounds=N only);\n"
		"  A, B: plain, ahead, early, pfw, vall, count, nov, h8, zc (with h8, not\n"
		"  count), zcv, dp, dc (with zc), rounds=N (N divides 64), stage=N (N 2-8); parts\n"
		"  joined by commas (count,rounds=16) (plain)\n");
	return 2;
}

/* The rings between every receiver and owner, and the workers' state. */
static void setup(struct worker *w, unsigned nw, unsigned nt, int cpu0, unsigned mib)
{
	const int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	unsigned size = 128;

	while (size * 2 <= ring_lookups / (nw - 1)) /* ports.c's dispatch_ring_size */
		size *= 2;
	for (unsigned t = 0; t < nt; t++) {
		w[t].cpu = (cpu0 + (int)t) % ncpu; /* more threads than CPUs: a check, not a rate */
		w[t].peers = nw - 1;
		w[t].me = nt == 2 && t == 1 ? nw - 1 : t;
		w[t].pol = pols[0];
		w[t].rng = 0x9e3779b97f4a7c15ULL * (t + 1);
		w[t].pool = alloc(POOL * sizeof(struct mb));
		w[t].free = alloc(POOL * sizeof(struct mb *));
		for (unsigned i = 0; i < POOL; i++)
			w[t].free[w[t].nfree++] = &w[t].pool[POOL - 1 - i];
		w[t].rows = (uint64_t)mib << 14;
		w[t].table = mib != 0 ? alloc((size_t)mib << 20) : NULL;
		for (unsigned k = 0; k < w[t].peers; k++) {
			for (unsigned s = 0; s < 2; s++) {
				struct rings *r = &w[t].set[s];

				r->to[k] = ring(size, s ? sizeof(uint64_t) : sizeof(struct lookup));
				r->back[k] = ring(size, 1);
				r->pend[k].mask = 2 * size - 1;
				r->pend[k].m = alloc(2 * size * sizeof(struct mb *));
				r->pend[k].bit = alloc(2 * size);
			}
			w[t].mout[k] = ring(size, sizeof(struct lookup));
		}
		w[t].limit = size / 2;
		w[t].stg = alloc((size_t)w[t].peers * STAGE_MAX * BURST * sizeof(struct lookup));
		w[t].stgm = alloc((size_t)w[t].peers * STAGE_MAX * BURST * sizeof(struct mb *));
	}
	for (unsigned t = 0; t < nt; t++)
		for (unsigned k = 0; k < w[t].peers; k++) {
			/* the owner's thread, and this receiver's index among its peers */
			const unsigned j = nt == 2 ? 1 - t : k < t ? k : k + 1;
			const unsigned kk = nt == 2 ? k : t < j ? t : t - 1;

			for (unsigned s = 0; s < 2; s++) {
				w[j].set[s].from[kk] = w[t].set[s].to[k];
				w[j].set[s].reply[kk] = w[t].set[s].back[k];
			}
			w[j].min[kk] = w[t].mout[k];
		}
}

int main(int argc, char **argv)
{
	static struct worker w[MAXW];
	static double ns[2][1000], ratio[1000];
	unsigned nw = 15, nt = 2, nwk, secs = 10, mib = 64, pairs;
	int cpu0 = 0, c;
	pthread_t th[MAXW];
	uint64_t full = 0, rounds = 0, wrong = 0;
	const char *names[2];

	while ((c = getopt(argc, argv, "w:t:c:s:n:m:r:M")) != -1) {
		const long v = optarg != NULL ? atol(optarg) : 0;

		switch (c) {
		case 'w': nw = (unsigned)v; break;
		case 't': nt = (unsigned)v; break;
		case 'c': cpu0 = (int)v; break;
		case 's': secs = (unsigned)v; break;
		case 'n': work_ns = (unsigned)v; break;
		case 'm': mib = (unsigned)v; break;
		case 'r': ring_lookups = v >= 128 && v <= 1 << 20 ? (unsigned)v : 0; break;
		case 'M': merged = 1; break;
		default: return usage();
		}
	}
	names[0] = optind < argc ? argv[optind] : "plain";
	names[1] = optind + 1 < argc ? argv[optind + 1] : "plain";
	if (nw < 2 || nw > MAXW || (nt > 2 && nt != nw) || nt < 1 || secs < 1 || secs > 100 ||
	    cpu0 < 0 || mib > 4096 || ring_lookups == 0 || argc - optind > 2 ||
	    parse_policy(names[0], &pols[0]) || parse_policy(names[1], &pols[1]))
		return usage();
	for (int i = 0; i < 2 && merged; i++)
		if (pols[i].ahead || pols[i].early || pols[i].pfw || pols[i].vall || pols[i].stage ||
		    pols[i].count || pols[i].nov || pols[i].h8) {
			fprintf(stderr, "bench_fanout: with -M, only plain and rounds=N\n");
			return 2;
		}
	if ((pols[0].h8 && pols[0].stage) || (pols[1].h8 && pols[1].stage)) {
		fprintf(stderr, "bench_fanout: h8 and stage=N do not go together\n");
		return 2;
	}
	for (int i = 0; i < 2; i++)
		if ((pols[i].zc && (!pols[i].h8 || pols[i].count)) ||
		    ((pols[i].zcv || pols[i].dp || pols[i].dc) && !pols[i].zc)) {
			fprintf(stderr, "bench_fanout: zc needs h8 (not count); zcv, dp and dc zc\n");
			return 2;
		}
	if (pols[0].h8 && pols[1].h8 && pols[0].nov != pols[1].nov) {
		fprintf(stderr, "bench_fanout: two h8 policies share their rings: both nov or "
			"neither\n");
		return 2;
	}
	nwk = nt == 1 ? 2 : nt; /* -t 1 runs the two workers of -t 2 on one CPU */
	setup(w, nw, nwk, cpu0, mib);
	if (nt == 1)
		pthread_create(&th[0], NULL, run_solo, w);
	else
		for (unsigned t = 0; t < nt; t++)
			pthread_create(&th[t], NULL, run, &w[t]);
	atomic_store(&go, 1);
	nanosleep(&(struct timespec){.tv_nsec = 500000000}, NULL); /* warm up */
	pairs = secs * 1000 / SLICE_MS / 2;
	for (unsigned p = 0; p < pairs; p++) {
		for (int half = 0; half < 2; half++) {
			const int b = (int)(p & 1) ^ half; /* ABBA */
			uint64_t r0 = 0, r1 = 0, t0, t1;

			atomic_store(&which, b);
			nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL); /* settle */
			for (unsigned t = 0; t < nwk; t++)
				r0 += atomic_load(&w[t].rounds);
			t0 = now_ns();
			nanosleep(&(struct timespec){.tv_nsec = SLICE_MS * 1000000L}, NULL);
			for (unsigned t = 0; t < nwk; t++)
				r1 += atomic_load(&w[t].rounds);
			t1 = now_ns();
			ns[b][p] = (double)nt * (double)(t1 - t0) / (double)((r1 - r0) * BURST) -
				   (double)work_ns / BURST;
		}
		ratio[p] = ns[1][p] / ns[0][p];
	}
	atomic_store(&stop, 1);
	for (unsigned t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	for (unsigned t = 0; t < nwk; t++) {
		full += w[t].full;
		wrong += w[t].wrong;
		rounds += atomic_load(&w[t].rounds);
	}
	printf("%u workers on %u threads (from CPU %d), rings of %u, work %u ns a round, table "
	       "%u MiB, %u pairs of %u ms; ns a packet beyond the work (medians): %s %.1f, "
	       "%s %.1f, B/A %.3f; ring full %.3f%%, wrong %llu\n",
	       nw, nt, cpu0, w[0].set[0].to[0]->p_mask + 1, work_ns, mib, pairs,
	       SLICE_MS, names[0], median(ns[0], pairs), names[1], median(ns[1], pairs),
	       median(ratio, pairs), 100.0 * (double)full / (double)(rounds * BURST),
	       (unsigned long long)wrong);
	return wrong != 0;
}
