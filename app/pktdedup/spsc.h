/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A single-producer, single-consumer ring of fixed-size slots, for software dispatch's
 * lookups and verdicts (worker.c). Each side keeps a private copy of the other side's
 * index and reads the shared one only when its copy says the ring is full (producer) or
 * has too little (consumer), as in Lee, Bu and Chandranmenon, "A lock-free, cache-
 * efficient multi-core synchronization mechanism for line-rate network traffic
 * monitoring" (IPDPS 2010), whose MCRingBuffer caches the indices this way. The two
 * published indices sit on lines of their own, each written by one core only.
 *
 * The producer also publishes its index in batches, MCRingBuffer's other idea: a put
 * makes its slots visible once a batch of them waits, and pd_spsc_flush makes visible
 * whatever waits (the worker flushes when it is not busy, and every few rounds when it
 * is). Each publication costs the consumer a cache miss on the index and on the
 * slots' lines, a line from the other core (100-560 ns a round trip on the 2-core VM,
 * scripts/pingpong.c); fewer, larger publications pay it less often
 * (docs/speed.md, "Workers").
 *
 * A batch's publication stops at the last whole line of slots (pd_spsc_flush_lines):
 * a line published half full is read by the consumer and then written again by the
 * producer, so it crosses between the cores twice more. 2 workers, net_pcap, 65,536
 * flows, at a 540 ns round trip: 2.5-3.3% more packets a second with --action count,
 * 1.5% with drop; at 115 ns, drop 0.2% (alternating rounds, docs/speed.md).
 *
 * Why not rte_ring: its enqueue reads the consumer's index, and its dequeue the
 * producer's, on every call; at one call per burst in both directions those reads were
 * the hottest loads of the dispatch path (perf, 2 workers, net_pcap, flow keys: 21% of
 * the receiver's burst function and 35% of the owner's, each on a line the other core
 * had just written). docs/speed.md has the rates before and after.
 *
 * Indices run free (unsigned, wrapping); the ring holds size slots, a power of two.
 * Header-only and without DPDK, so that tests/test_spsc.c checks it with threads.
 */
#ifndef PD_SPSC_H
#define PD_SPSC_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PD_SPSC_LINE 64

struct pd_spsc {
	_Alignas(PD_SPSC_LINE) _Atomic unsigned tail; /* published by the producer */
	_Alignas(PD_SPSC_LINE) _Atomic unsigned head; /* published by the consumer */
	_Alignas(PD_SPSC_LINE) unsigned p_tail;       /* the producer's own */
	unsigned p_head;                              /* its copy of head */
	unsigned p_mask;
	unsigned p_pub;                               /* the tail it last published */
	unsigned p_batch;                             /* publish once this many wait */
	unsigned p_line;                              /* slots a line (power of two) */
	unsigned p_seen;                              /* p_pub at pd_spsc_flush_stale */
	_Alignas(PD_SPSC_LINE) unsigned c_head;       /* the consumer's own */
	unsigned c_tail;                              /* its copy of tail */
	unsigned c_mask;
	_Alignas(PD_SPSC_LINE) unsigned char slot[];  /* size * esize bytes */
};

/* Bytes a ring of size slots (a power of two) of esize bytes needs. */
static inline size_t pd_spsc_bytes(unsigned size, size_t esize)
{
	return sizeof(struct pd_spsc) + (size_t)size * esize;
}

/* An empty ring of size slots (a power of two) of esize bytes in mem (pd_spsc_bytes,
 * aligned to PD_SPSC_LINE) whose puts publish their slots up to a whole line once
 * @p batch of them wait (1: every put), or all of them at pd_spsc_flush. Slots are
 * counted in lines of the most that fit a line, rounded down to a power of two and to
 * no more than a batch or the ring. */
static inline struct pd_spsc *pd_spsc_init(void *mem, unsigned size, size_t esize,
					   unsigned batch)
{
	struct pd_spsc *r = mem;
	unsigned line = esize < PD_SPSC_LINE ? (unsigned)(PD_SPSC_LINE / esize) : 1;

	memset(r, 0, sizeof(*r));
	r->p_mask = r->c_mask = size - 1;
	r->p_batch = batch > 0 ? batch : 1;
	while ((line & (line - 1)) != 0 || line > r->p_batch || line > size)
		line--; /* esize 3 (tests): 21 slots a line, counted as 16 */
	r->p_line = line;
	return r;
}

/* The slots put so far, visible to the consumer. */
static inline void pd_spsc_flush(struct pd_spsc *r)
{
	if (r->p_tail != r->p_pub) { /* a store, even of the same value, would take the line */
		r->p_pub = r->p_tail;
		atomic_store_explicit(&r->tail, r->p_tail, memory_order_release);
	}
}

/* The slots put so far that fill whole lines, visible to the consumer (a line partly
 * put stays with the producer until it is full or pd_spsc_flush). */
static inline void pd_spsc_flush_lines(struct pd_spsc *r)
{
	const unsigned t = r->p_tail & ~(r->p_line - 1);

	if ((int)(t - r->p_pub) > 0) { /* after pd_spsc_flush, p_pub may be past t */
		r->p_pub = t;
		atomic_store_explicit(&r->tail, t, memory_order_release);
	}
}

/* Everything put, visible to the consumer, if nothing was published since the last
 * call: a slot left in a line that is not filling waits two calls at most, and a ring
 * that keeps publishing whole lines never publishes half of one. */
static inline void pd_spsc_flush_stale(struct pd_spsc *r)
{
	if (r->p_pub == r->p_seen)
		pd_spsc_flush(r);
	r->p_seen = r->p_pub;
}

/* Room for the producer, at least @p want when there is (reads head only if short). */
static inline unsigned pd_spsc_room(struct pd_spsc *r, unsigned want)
{
	unsigned room = r->p_mask + 1 - (r->p_tail - r->p_head);

	if (room < want) {
		r->p_head = atomic_load_explicit(&r->head, memory_order_acquire);
		room = r->p_mask + 1 - (r->p_tail - r->p_head);
	}
	return room;
}

/* n more slots put (written already), published as pd_spsc_put publishes them. */
static inline void pd_spsc_commit(struct pd_spsc *r, unsigned n)
{
	r->p_tail += n;
	if (r->p_tail - r->p_pub >= r->p_batch)
		pd_spsc_flush_lines(r);
}

/*
 * Puts written in place: where a caller sorts items among many rings one at a time (a
 * burst's lookups among their owners), each is written straight into its ring's next
 * slot instead of into an array copied in by pd_spsc_put. pd_spsc_writer_begin takes
 * room for up to @p want slots (reading the consumer's index only if short), then each
 * pd_spsc_writer_next gives the next slot to write, or NULL once that room is used;
 * pd_spsc_writer_end puts what was written (pd_spsc_commit). Between begin and end the
 * writer is the producer: no other put on the ring. The ring's own lines are read at
 * begin and written at end only, so a burst sorted among 14 rings touches each ring's
 * state twice and its slots, with no copy and no call per ring: 0.54-0.58 of the
 * rings' cost at 15 workers and 0.86-0.88 at 2 with the reads in place too
 * (pd_spsc_peek), both workers' rounds on one CPU without their tables
 * (tests/bench/bench_fanout -t 1 -m 0, policy zc; docs/speed.md).
 */
struct pd_spsc_writer {
	unsigned char *slot; /* the ring's slots */
	unsigned at, end;    /* the next slot to write (a free-running index), the first not */
	unsigned mask;
};

static inline void pd_spsc_writer_begin(struct pd_spsc *r, struct pd_spsc_writer *wr,
					unsigned want)
{
	const unsigned room = pd_spsc_room(r, want);

	wr->slot = r->slot;
	wr->mask = r->p_mask;
	wr->at = r->p_tail;
	wr->end = r->p_tail + (room < want ? room : want);
}

/* The next slot of esize bytes to write, or NULL when the room taken is used up. */
static inline void *pd_spsc_writer_next(struct pd_spsc_writer *wr, size_t esize)
{
	if (wr->at == wr->end)
		return NULL;
	return wr->slot + (size_t)(wr->at++ & wr->mask) * esize;
}

/* The slots written since pd_spsc_writer_begin, put; returns how many. */
static inline unsigned pd_spsc_writer_end(struct pd_spsc *r, const struct pd_spsc_writer *wr)
{
	const unsigned n = wr->at - r->p_tail;

	if (n != 0) /* a store, even of the same value, would take the line */
		pd_spsc_commit(r, n);
	return n;
}

/* Up to n slots of esize bytes from src, in order; returns how many went in. They are
 * published (the consumer sees them) up to a whole line once a batch waits, or at the
 * next pd_spsc_flush_lines (whole lines) or pd_spsc_flush (all). */
static inline unsigned pd_spsc_put(struct pd_spsc *r, const void *src, unsigned n,
				   size_t esize)
{
	const unsigned room = pd_spsc_room(r, n);
	unsigned at, first;

	if (n > room)
		n = room;
	if (n == 0) /* a store, even of the same value, would take the line */
		return 0;
	at = r->p_tail & r->p_mask;
	first = r->p_mask + 1 - at < n ? r->p_mask + 1 - at : n;
	memcpy(r->slot + (size_t)at * esize, src, (size_t)first * esize);
	/* The slots past the ring's end, rarely any: libc's memcpy of 0 bytes is a call
	 * all the same. Skipped, a ring visited (a put of 2 slots and a get, 14 rings, one
	 * CPU) took 10.9 ns instead of 12.4, and 19.5 instead of 22.5 with one ring of 16
	 * a put (tests/bench/bench_spsc.c, the two builds in turn, 10 and 6 times). */
	if (n > first)
		memcpy(r->slot, (const unsigned char *)src + (size_t)first * esize,
		       (size_t)(n - first) * esize);
	pd_spsc_commit(r, n);
	return n;
}

/*
 * Gets read in place, for the consumer: pd_spsc_peek says how many published slots
 * (at most n) may be read where they lie, reading the published tail only if fewer are
 * known; slot i of them is at pd_spsc_peek_slot; pd_spsc_release gives the first n
 * back to the producer, after which they must not be read. pd_spsc_get is a peek, a
 * copy out and a release.
 */
static inline unsigned pd_spsc_peek(struct pd_spsc *r, unsigned n)
{
	unsigned have = r->c_tail - r->c_head;

	if (have < n) {
		r->c_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
		have = r->c_tail - r->c_head;
	}
	return n < have ? n : have;
}

static inline const void *pd_spsc_peek_slot(const struct pd_spsc *r, unsigned i, size_t esize)
{
	return r->slot + (size_t)((r->c_head + i) & r->c_mask) * esize;
}

static inline void pd_spsc_release(struct pd_spsc *r, unsigned n)
{
	if (n == 0) /* a store, even of the same value, would take the line */
		return;
	r->c_head += n;
	atomic_store_explicit(&r->head, r->c_head, memory_order_release);
}

/* Up to n slots into dst, in order; returns how many came (reads tail only if short). */
static inline unsigned pd_spsc_get(struct pd_spsc *r, void *dst, unsigned n, size_t esize)
{
	const unsigned at = r->c_head & r->c_mask;
	unsigned first;

	n = pd_spsc_peek(r, n);
	if (n == 0)
		return 0;
	first = r->c_mask + 1 - at < n ? r->c_mask + 1 - at : n;
	memcpy(dst, r->slot + (size_t)at * esize, (size_t)first * esize);
	if (n > first) /* as in pd_spsc_put */
		memcpy((unsigned char *)dst + (size_t)first * esize, r->slot,
		       (size_t)(n - first) * esize);
	pd_spsc_release(r, n);
	return n;
}

/* For the consumer: nothing published is left to get (reads the published tail). */
static inline int pd_spsc_empty(struct pd_spsc *r)
{
	r->c_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	return r->c_tail == r->c_head;
}

#endif
