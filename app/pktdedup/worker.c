/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker loop, shaped like DPDK's l2fwd: receive a burst, extract every key, hash
 * them, one filter burst call, then act on each packet in arrival order and send. While
 * packets keep coming, a keyed burst waits for its filter call until the next burst is
 * received and keyed (struct staged).
 *
 * With software dispatch each key has an owner worker (a function of its hash). A
 * worker looks up the keys it owns itself; for the others it hands the lookup (the hash,
 * and the time when timed: pktdedup.h) to the owner through a single-producer, single-
 * consumer ring, keeps the packet in its list for that owner, and acts on it when the
 * owner's verdict comes back on a second ring. Each worker also decides the lookups
 * handed to it. Only ring slots cross between cores: the mbuf stays with its receiver,
 * which sends or frees it into its own mempool cache (docs/speed.md, "Workers": where
 * the mbufs are freed). Frames without a key never wait: the receiver acts on them at
 * once.
 *
 * With --action count (pd_app.forward_all) every packet goes on whatever its verdict, so
 * none waits: the receiver sends each burst as it came (send_received) and the verdicts
 * are only counted, against the port each packet came from. With one port the owner
 * counts them itself and no verdict ring is used (pd_app.verdicts_back = 0): a worker
 * serves half the rings and holds no mbuf. 2 workers, net_pcap, 65,536 flows, qhtlru 64
 * MiB: 1.06 times the packets a second of waiting for verdicts (14 alternating rounds);
 * the rings alone (tests/bench/bench_fanout, policy nov) cost 0.83-0.89 as much with
 * 15 workers (docs/speed.md).
 *
 * Time (docs/windows.md): with a window, or a filter that reports delays, every packet
 * gets a time in ns, the TSC read once per received burst.
 *
 * What happens to a packet once it has a key, or has none, is the disposition step
 * (disposition.h), the same as replay's: this file receives, keys, dispatches and sends,
 * and carries the step's decisions out on mbufs.
 *
 * Accounting, per worker: rx = tx + dropped + tx_failed, every packet acted on by the
 * worker that received it; summed over workers, lookups handed over (dispatched_out)
 * equal lookups decided for others (dispatched_in). A packet whose owner's ring is full
 * is not lost: its receiver forwards it unchecked (dispatch_full, bypassed), so at worst
 * a copy passes.
 */
#include <stddef.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_prefetch.h>

#include "disposition.h"
#include "pktdedup.h"

/* The TSC now, as ns since the epoch (inline time; the offset is set once at start). */
static inline uint64_t tsc_ns(const struct pd_app *app)
{
	__extension__ typedef unsigned __int128 u128;

	return (uint64_t)(((u128)rte_rdtsc() * app->tsc_ns_mult) >> 32) + app->tsc_ns_offset;
}

/* The times of a received burst (inline): the TSC now, once per burst. */
static inline void burst_times(const struct pd_app *app, unsigned n, uint64_t *t)
{
	uint64_t now = tsc_ns(app);

	for (unsigned i = 0; i < n; i++)
		t[i] = now;
}

void pd_worker_tx_unsent(struct rte_mbuf **pkts, uint16_t unsent, void *userdata)
{
	const struct pd_tx_retry *r = userdata;
	struct pd_worker *w = r->w;
	uint16_t sent = 0;

	for (unsigned tries = 1; sent < unsent && tries < PD_APP_TX_RETRIES; tries++)
		sent += rte_eth_tx_burst(r->port, w->txq, pkts + sent, (uint16_t)(unsent - sent));
	w->c.tx += sent;
	if (sent < unsent) {
		w->c.tx_failed += (uint64_t)(unsent - sent);
		rte_pktmbuf_free_bulk(pkts + sent, (unsigned)(unsent - sent));
	}
}

/* Buffered: DPDK sends the buffer when it holds PD_APP_TX_BUFFER packets. */
static inline void tx_one(struct pd_worker *w, uint16_t port, struct rte_mbuf *m)
{
	w->c.tx += rte_eth_tx_buffer(port, w->txq, w->tx[port], m);
}

/* The ports pktdedup uses, not every port: this runs after every received burst. */
static void tx_flush_all(struct pd_worker *w)
{
	for (unsigned i = 0; i < w->app->ntx; i++) {
		const uint16_t port = w->app->tx_port[i];

		w->c.tx += rte_eth_tx_buffer_flush(port, w->txq, w->tx[port]);
	}
}

/* Bytes of a frame, linearised into scratch if it spans segments; NULL if too long. */
static inline const uint8_t *frame_bytes(struct pd_worker *w, struct rte_mbuf *m)
{
	if (m->pkt_len > PD_APP_SCRATCH_LEN)
		return NULL;
	return rte_pktmbuf_read(m, 0, m->pkt_len, w->scratch);
}

/* Key of one packet into buf, its length in *klen; 0 when it has a key, else its class
 * (pd_disp_key). Unparseable frames are counted. With @p marking (--action mark), where the parse found the IP
 * header rides in the mbuf's own fields for the mark, wherever the packet is acted on (a
 * dispatched one too): l2_len, 7 bits, the header's offset (46 at most: Ethernet and 8
 * VLAN tags), and packet_type's L3 type its version. Nothing here sets a TX offload
 * flag, the only reader of l2_len. Without a mark nothing reads them, and leaving them
 * alone gave 2.2% more packets a second (net_pcap, --no-huge, flow key, qhtlru 64 MiB,
 * --action count, 8 alternating rounds; 3.1% on hugepages). */
static inline int key_of(struct pd_worker *w, struct rte_mbuf *m, uint8_t *buf, size_t *klen,
			 int marking)
{
	const uint8_t *p = frame_bytes(w, m);
	struct pd_key_ip ip;
	int rc;

	if (p == NULL) {
		pd_disp_oversize(w);
		return PD_CLASS_KEYLESS;
	}
	rc = pd_disp_key(w, &w->app->cfg.key, p, m->pkt_len, m->pkt_len, buf, PD_APP_KEYBUF_LEN,
			 klen, &ip);
	if (!marking) /* nothing reads it */
		return rc;
	m->l2_len = ip.offset < 128 ? ip.offset : 0;
	m->packet_type = ip.offset >= 128 ? 0 : ip.version == 4 ? RTE_PTYPE_L3_IPV4_EXT_UNKNOWN :
			 ip.version == 6 ? RTE_PTYPE_L3_IPV6_EXT_UNKNOWN : 0;
	return rc;
}

/* The IP header key_of found (version 0: none). */
static inline struct pd_key_ip ip_of(const struct rte_mbuf *m)
{
	const uint32_t l3 = m->packet_type & RTE_PTYPE_L3_MASK;

	return (struct pd_key_ip){.offset = m->l2_len,
				  .version = l3 == RTE_PTYPE_L3_IPV4_EXT_UNKNOWN ? 4 :
					     l3 == RTE_PTYPE_L3_IPV6_EXT_UNKNOWN ? 6 : 0};
}

/*
 * Keys and hashes of a burst: nokey[i] is 0 when packet i has a key, h[i] then its
 * hash; else the packet's class (PD_CLASS_KEYLESS, PD_CLASS_UNJUDGED). No row is prefetched here: the callers prefetch a burst's rows once all its
 * keys are hashed (stage_burst says why). With dispatch, dispatch_burst prefetches the
 * far rows of its own keys once it has sorted them by owner: a branch on the owner
 * here is a coin toss for the predictor, and taking it out gave 12% more packets a
 * second (2 workers, net_pcap, 65,536 flows; 15% with 1,024; 3 alternating rounds). A
 * key is hashed after the next packet's key is extracted, into the other of two
 * buffers: hashing a key just copied stalls on loads that span two of the copy's
 * stores (no store-to-load forwarding from the overlapping halves of a short memcpy).
 * With --key packet this raised the rate by 9-22% (docs/speed.md).
 */
static inline unsigned keys_burst(struct pd_worker *w, struct rte_mbuf **pkts, unsigned n,
				  uint64_t *h, uint8_t *nokey)
{
	const int marking = w->app->marking;
	size_t len[2];
	unsigned keyless = 0; /* nonzero when a packet has no key */

	for (unsigned i = 0; i <= n; i++) {
		if (i < n) {
			if (i + 4 < n)
				rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
			nokey[i] = (uint8_t)key_of(w, pkts[i],
						   w->keybuf + (i & 1) * PD_APP_KEYBUF_LEN,
						   &len[i & 1], marking);
			keyless |= nokey[i];
		}
		if (i > 0 && !nokey[i - 1]) {
			unsigned j = i - 1;

			h[j] = pd_filter_hash(w->filter, w->keybuf + (j & 1) * PD_APP_KEYBUF_LEN,
					      len[j & 1]);
		}
	}
	return keyless;
}

/* A packet of class @p cls: the disposition step's decision carried out on its mbuf
 * (PD_NEXT_COPY is replay's --dup-out: never set inline). */
static inline void act(struct pd_worker *w, struct rte_mbuf *m, unsigned cls)
{
	const unsigned next = pd_disp_next(w, cls);

	if (next & PD_NEXT_MARK) /* the headers are in the first segment of any frame a NIC
				  * or vdev delivers */
		pd_disp_mark(w, rte_pktmbuf_mtod(m, uint8_t *), m->data_len, ip_of(m));
	if (next & PD_NEXT_OUT)
		tx_one(w, (uint16_t)w->app->peer[m->port], m);
	else if (next & PD_NEXT_DUP)
		tx_one(w, (uint16_t)w->app->cfg.dup_port, m);
	else
		rte_pktmbuf_free(m);
}

/* A keyed packet by its verdict: PD_DISTINCT, PD_DUPLICATE or PD_ALLOWED. */
static inline void act_keyed(struct pd_worker *w, struct rte_mbuf *m, uint8_t v)
{
	if (v != PD_DISTINCT)
		w->c.port_dup[m->port]++;
	act(w, m, v);
}

/* Verdicts of packets sent already (forward_all), counted by the port each came from. */
static inline void count_verdicts(struct pd_worker *w, const uint8_t *v, const uint16_t *port,
				  unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		w->c.port_dup[port[i]] += v[i] != PD_DISTINCT;
}

/* n packets to the peer port as they are, after what its buffer already holds. */
static inline void send_whole(struct pd_worker *w, struct rte_mbuf **pkts, unsigned n,
			      uint16_t peer)
{
	uint16_t sent;

	w->c.tx += rte_eth_tx_buffer_flush(peer, w->txq, w->tx[peer]);
	sent = rte_eth_tx_burst(peer, w->txq, pkts, (uint16_t)n);
	w->c.tx += sent;
	if (sent < n)
		pd_worker_tx_unsent(pkts + sent, (uint16_t)(n - sent), &w->tx_retry[peer]);
}

/*
 * A burst whose packets all have a key and all go to the peer port and nowhere else (no
 * duplicate, or --action count): the received array sent as it is, after what the
 * peer's buffer already holds (empty unless this worker's other queue sent there in
 * this round, as with --dup-port one of the pair). 1 when it was, 0 when each packet
 * must be acted on. net_pcap, hugepages, flow keys, qhtlru 64 MiB, --action count: 14
 * alternating 5-second runs against the per-packet path, median ratio 1.09 (15.4 to
 * 17.3 Mpps in the quieter set of 7).
 */
static inline int whole_burst(struct pd_worker *w, struct rte_mbuf **pkts, unsigned n,
			      const uint8_t *v, int one_port)
{
	const uint16_t port = pkts[0]->port; /* one RX queue: one port */
	unsigned other = 0, dups = 0;

	for (unsigned i = 0; i < n; i++) {
		other |= w->app->next[v[i]] ^ PD_NEXT_OUT; /* pd_disp_next counts nothing then */
		dups += v[i] != PD_DISTINCT;
		if (!one_port) /* packets from several queues */
			other |= pkts[i]->port ^ port;
	}
	if (other != 0)
		return 0;
	w->c.port_dup[port] += dups;
	send_whole(w, pkts, n, (uint16_t)w->app->peer[port]);
	return 1;
}

/* Filter burst over packets this worker owns, then act in order: sent whole when every
 * one goes on, as act_decided sends the packets whose verdicts came back (with
 * software dispatch, 2 workers, net_pcap, 65,536 flows: 5-8% more packets a second
 * than acting on each, 5 and 3 alternating rounds). */
static void process_owned(struct pd_worker *w, struct rte_mbuf **m, const uint64_t *h,
			  const uint64_t *ts, unsigned n)
{
	uint8_t v[PD_APP_BURST];

	if (n == 0)
		return;
	pd_disp_filter(w, h, ts, v, n);
	if (whole_burst(w, m, n, v, 1)) /* m: of one received burst */
		return;
	for (unsigned i = 0; i < n; i++)
		act_keyed(w, m[i], v[i]);
}

/*
 * A received burst between its two halves (without dispatch): its keys hashed and
 * their rows loading, its verdicts not yet asked for. The loop keeps one such burst
 * back while it receives and keys the next, so the rows of a burst load for the time
 * of a whole burst's work before they are probed (pipelined bursts), when the filter is
 * far from the core (pd_filter_is_far). net_pcap, 65,536 flows, qhtlru 64 MiB,
 * hugepages, 8 alternating rounds against deciding each burst as it comes: count 1.081,
 * drop 1.038 (docs/speed.md); without hugepages within noise.
 */
struct staged {
	struct rte_mbuf *pkts[PD_APP_BURST];
	uint64_t h[PD_APP_BURST], ts[PD_APP_BURST]; /* of the keyed packets, in order */
	uint8_t nokey[PD_APP_BURST];                /* keys_burst's */
	unsigned n, nk;
};

/*
 * The first half: keys and hashes for all, then, with a far filter, every row
 * prefetched in one tight loop (hash all, prefetch all; the probe comes a burst
 * later). Against prefetching each row as its key was hashed, between the parses,
 * the loop gave 6% more packets a second without hugepages and 12-13% on them
 * (scripts/bench_inline.sh: net_pcap, 65,536 flows, qhtlru 64 MiB, 6 alternating
 * rounds; count and drop, flow and packet keys; docs/speed.md). A near filter's rows
 * (the filter within twice the L2 cache) are left to the filter's own burst, which
 * prefetches them just ahead of each probe: prefetching them here as well gave 6-8%
 * fewer packets a second on hugepages at 32 KiB, 1 MiB and 2 MiB, and 1.4% fewer
 * without hugepages at 32 KiB (flow key, 6 alternating rounds each).
 */
static void stage_burst(struct pd_worker *w, struct staged *s, const uint64_t *rxt, int far)
{
	const int timed = w->app->time_src != PD_TIME_NONE; /* rxt is set only then */

	/* The hashes in place, moved up past the keyless packets only when there are
	 * some: compacting every burst took 12 instructions a packet (the hashes and the
	 * times copied, timed or not; scripts/bench_instr.sh) */
	s->nk = s->n;
	if (likely(keys_burst(w, s->pkts, s->n, s->h, s->nokey) == 0)) {
		if (timed)
			memcpy(s->ts, rxt, s->n * sizeof(*rxt));
	} else {
		s->nk = 0;
		for (unsigned i = 0; i < s->n; i++) {
			if (!s->nokey[i]) {
				s->h[s->nk] = s->h[i];
				s->ts[s->nk++] = timed ? rxt[i] : 0;
			}
		}
	}
	if (far)
		pd_filter_prefetch_burst(w->filter, s->h, s->nk);
}

/* The second half: one filter call for the keyed packets, then every packet in
 * arrival order (so the output keeps the input order). */
static void decide_burst(struct pd_worker *w, struct staged *s)
{
	uint8_t v[PD_APP_BURST];

	pd_disp_filter(w, s->h, s->ts, v, s->nk);
	if (s->nk == s->n && whole_burst(w, s->pkts, s->n, v, 1))
		return;
	for (unsigned i = 0, k = 0; i < s->n; i++) {
		if (!s->nokey[i])
			act_keyed(w, s->pkts[i], v[k++]);
		else
			act(w, s->pkts[i], s->nokey[i]);
	}
}

/*
 * Lookups other workers handed to this one: up to a burst from their rings, each in turn
 * from a start that moves on every call (no receiver waits behind another), no more from
 * a ring than its verdict ring has room for; a far filter's rows start loading as the
 * hashes are taken, one filter call, the verdicts back in the order taken. Returns the
 * lookups decided.
 */
static unsigned decide_handed(struct pd_worker *w)
{
	uint64_t h[PD_APP_BURST], ts[PD_APP_BURST]; /* ts: read only when timed */
	uint8_t v[PD_APP_BURST];
	unsigned n = 0, took[PD_APP_MAX_WORKERS], r = w->from_next;
	const int back = w->app->verdicts_back;
	const unsigned wd = w->app->handoff_words;

	if (w->nfrom == 0)
		return 0;
	for (unsigned k = 0; k < w->nfrom; k++, r = r + 1 == w->nfrom ? 0 : r + 1) {
		const unsigned room = back ? pd_spsc_room(w->reply[r], PD_APP_BURST - n)
					   : PD_APP_BURST - n;
		const unsigned want = PD_APP_BURST - n < room ? PD_APP_BURST - n : room;

		/* read in place (spsc.h): no copy out of the ring, no call per ring */
		took[k] = pd_spsc_peek(w->from[r], want);
		for (unsigned i = 0; i < took[k]; i++) {
			const uint64_t *l = pd_spsc_peek_slot(w->from[r], i, wd * sizeof(h[0]));

			h[n + i] = l[0];
			if (wd == 2) /* timed: the packet's time follows its hash */
				ts[n + i] = l[1];
		}
		if (w->far) /* a near filter's own burst prefetches (stage_burst) */
			pd_filter_prefetch_burst(w->filter, h + n, took[k]);
		pd_spsc_release(w->from[r], took[k]);
		n += took[k];
	}
	if (n == 0)
		return 0;
	pd_disp_filter(w, h, ts, v, n);
	r = w->from_next;
	for (unsigned k = 0, i = 0; k < w->nfrom && back; k++, r = r + 1 == w->nfrom ? 0 : r + 1) {
		/* room was checked: the receiver only ever frees slots */
		pd_spsc_put(w->reply[r], v + i, took[k], 1);
		i += took[k];
	}
	if (!back) { /* sent already, from the one port there is: counted here */
		unsigned dups = 0;

		for (unsigned i = 0; i < n; i++)
			dups += v[i] != PD_DISTINCT;
		w->c.port_dup[w->app->port_id[0]] += dups;
	}
	w->from_next = w->from_next + 1 == w->nfrom ? 0 : w->from_next + 1;
	w->c.dispatched_in += n;
	return n;
}

/* This worker's packets whose verdicts have come back, acted on in the order handed
 * over, up to PD_APP_DISPATCH_DRAIN bursts from each owner. Returns how many. */
static unsigned act_decided(struct pd_worker *w)
{
	unsigned total = 0;

	if (!w->app->verdicts_back)
		return 0;
	for (unsigned k = 0; k < w->nowner; k++) {
		const unsigned o = w->owner[k];
		struct pd_pending *p = w->pending[o];
		unsigned n = PD_APP_BURST;

		for (unsigned b = 0; b < PD_APP_DISPATCH_DRAIN && n == PD_APP_BURST; b++) {
			struct rte_mbuf *m[PD_APP_BURST];
			uint8_t v[PD_APP_BURST];

			n = pd_spsc_get(w->back[o], v, PD_APP_BURST, 1);
			total += n;
			if (w->app->forward_all) { /* sent already: only counted */
				uint16_t port[PD_APP_BURST];

				for (unsigned i = 0; i < n; i++)
					port[i] = p->port[p->head++ & p->mask];
				count_verdicts(w, v, port, n);
				continue;
			}
			for (unsigned i = 0; i < n; i++)
				m[i] = p->m[p->head++ & p->mask];
			if (n == 0 || whole_burst(w, m, n, v, 0)) /* m: perhaps of several queues */
				continue;
			for (unsigned i = 0; i < n; i++)
				act_keyed(w, m[i], v[i]);
		}
	}
	return total;
}

/*
 * What software dispatch does between received bursts: decide the lookups handed to
 * this worker and act on the verdicts come back, each up to PD_APP_DISPATCH_DRAIN
 * bursts while full ones come. It runs once a round (and again when a ring is full).
 * One burst each, what one queue brings, was all it took: with a pair of ports (two
 * bursts a round) the other worker's share equalled it, one key's traffic passed it,
 * and a ring whose backlog grew filled and passed packets unchecked (with 15 workers
 * the owners' share is 30 of each 32 packets received). 2 workers, net_pcap pair,
 * 65,536 flows, count, 5 alternating rounds: unchecked 1.1-2.6% of packets before,
 * 0.20-0.36% after (a port alone: 0.25-0.28%), and 1.065 times the packets with a
 * verdict (median; a build against itself spreads 0.965-1.020 there); one key on
 * net_null: 32.3-33.4 to 42.0-42.4 Mpps with a verdict; one port: 0.999 (count) and
 * 1.011 (drop), 6 rounds each. Returns 0 when there was nothing.
 */
static unsigned dispatch_poll(struct pd_worker *w)
{
	unsigned decided = 0, n = PD_APP_BURST;

	for (unsigned b = 0; b < PD_APP_DISPATCH_DRAIN && n == PD_APP_BURST; b++) {
		n = decide_handed(w);
		decided += n;
	}
	return decided + act_decided(w);
}

/* How much of what a worker put in its rings dispatch_flush publishes (spsc.h). */
enum flush {
	FLUSH_ALL,   /* everything */
	FLUSH_LINES, /* what fills whole lines */
	FLUSH_STALE, /* everything, in rings that published nothing since the last time */
};

static void flush_ring(struct pd_spsc *r, enum flush how)
{
	if (how == FLUSH_LINES)
		pd_spsc_flush_lines(r);
	else if (how == FLUSH_STALE)
		pd_spsc_flush_stale(r);
	else
		pd_spsc_flush(r);
}

/* What this worker put in its rings since the last flush (lookups handed over,
 * verdicts decided), made visible to the workers that read them. */
static void dispatch_flush(struct pd_worker *w, enum flush how)
{
	for (unsigned k = 0; k < w->nowner; k++)
		flush_ring(w->to[w->owner[k]], how);
	for (unsigned k = 0; k < w->nfrom; k++)
		flush_ring(w->reply[k], how);
}

/* Whether lookups handed to this worker wait in its rings: a ring whose verdict ring
 * is full gives none to decide_handed, so a round that decided nothing does not say
 * they are all done. */
static int handed_waiting(const struct pd_worker *w)
{
	for (unsigned k = 0; k < w->nfrom; k++)
		if (!pd_spsc_empty(w->from[k]))
			return 1;
	return 0;
}

/* This worker's packets waiting for a verdict. */
static unsigned waiting(const struct pd_worker *w)
{
	unsigned n = 0;

	for (unsigned k = 0; k < w->nowner; k++)
		n += w->pending[w->owner[k]]->tail - w->pending[w->owner[k]]->head;
	return n;
}

/*
 * The lookups of a received burst for owner o that its ring had no room for when the
 * burst was sorted (dispatch_burst_as writes the others in place; hand_over_rest), their
 * hashes h and their times t when timed, else NULL: handed over and their packets kept
 * in order, after those written in place. A full ring means
 * the owner is behind: this worker does its share of the waiting work first, then
 * tries once more; a packet that still finds no room is forwarded unchecked
 * (dispatch_full, bypassed), never lost. With forward_all the packets were sent
 * already: m is NULL, and port gives where each came from.
 */
static void hand_over(struct pd_worker *w, unsigned o, const uint64_t *h, const uint64_t *t,
		      struct rte_mbuf **m, const uint16_t *port, unsigned n)
{
	struct pd_pending *p = w->pending[o];
	const int sent = w->app->forward_all; /* the packets are on their way already */
	const int back = w->app->verdicts_back;
	const unsigned wd = w->app->handoff_words;
	uint64_t both[PD_APP_BURST * PD_HANDOFF_MAX_WORDS];
	const uint64_t *out = h; /* untimed: the hashes as they are */
	unsigned q = 0;

	if (t != NULL) { /* timed: each hash and its time (pktdedup.h) */
		for (unsigned i = 0; i < n; i++) {
			both[2 * i] = h[i];
			both[2 * i + 1] = t[i];
		}
		out = both;
	}

	for (int tries = 0; tries < 2 && q < n; tries++) {
		const unsigned free = back ? p->mask + 1 - (p->tail - p->head) : n - q;
		const unsigned want = n - q < free ? n - q : free;
		const unsigned e = pd_spsc_put(w->to[o], out + (size_t)q * wd, want,
					       wd * sizeof(out[0])); /* wd 2: timed */

		/* without verdicts back nothing is kept: the owner counts them */
		if (back && sent)
			for (unsigned i = q; i < q + e; i++)
				p->port[p->tail++ & p->mask] = port[i];
		else if (back)
			for (unsigned i = q; i < q + e; i++)
				p->m[p->tail++ & p->mask] = m[i];
		q += e;
		if (q < n && tries == 0)
			dispatch_poll(w);
	}
	w->c.dispatched_out += q;
	w->c.dispatch_full += n - q;
	if (sent) /* pd_disp_next's count, the packet gone as it says */
		w->c.bypassed += n - q;
	else
		for (unsigned i = q; i < n; i++)
			act(w, m[i], PD_CLASS_BYPASS);
}

/*
 * The packets of a received burst whose keys this worker owns, their rows loading,
 * decided after the next burst is received and sorted (or when a round receives
 * nothing), when the filter is far from the core, as without dispatch (struct
 * staged): deciding them at once, their rows just asked for, left the probe waiting.
 * 2 workers, net_pcap, qhtlru 64 MiB: 4% more packets a second with 65,536 flows
 * (36.5 to 38.2 Mpps, medians of 3 alternating rounds), 1% with 1,024.
 */
struct owned {
	struct rte_mbuf *m[PD_APP_BURST]; /* sent already with forward_all: not kept */
	/* each packet's lookup as a ring holds it (pd_app.handoff_words: the hash, then the
	 * time when timed), written in place as the lookups for other owners are */
	uint64_t ht[PD_APP_BURST * PD_HANDOFF_MAX_WORDS];
	uint16_t port[PD_APP_BURST];      /* with forward_all, where each came from */
	unsigned n;
};

static void decide_owned(struct pd_worker *w, struct owned *o)
{
	uint64_t h[PD_APP_BURST], ts[PD_APP_BURST];
	const uint64_t *hp = o->ht; /* untimed: the hashes as they are */

	if (w->app->handoff_words == 2) { /* timed: hash and time, in turn */
		for (unsigned i = 0; i < o->n; i++) {
			h[i] = o->ht[2 * i];
			ts[i] = o->ht[2 * i + 1];
		}
		hp = h;
	}
	if (w->app->forward_all && o->n != 0) {
		uint8_t v[PD_APP_BURST];

		pd_disp_filter(w, hp, ts, v, o->n);
		count_verdicts(w, v, o->port, o->n);
	} else {
		process_owned(w, o->m, hp, ts, o->n);
	}
	o->n = 0;
}

/*
 * A received burst sent on at once, before any verdict (forward_all: --action count,
 * where every keyed packet goes to the peer whatever its verdict); keyless ones as the
 * options say. Its verdicts, when they come back, are only counted (count_verdicts).
 */
static void send_received(struct pd_worker *w, struct rte_mbuf **pkts, unsigned n,
			  const uint8_t *nokey, unsigned keyless)
{
	if (keyless == 0) { /* one RX queue: one port */
		send_whole(w, pkts, n, (uint16_t)w->app->peer[pkts[0]->port]);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		if (!nokey[i])
			tx_one(w, (uint16_t)w->app->peer[pkts[i]->port], pkts[i]);
		else
			act(w, pkts[i], nokey[i]);
	}
}

/*
 * Where a received burst's lookups for one owner go, written in place as the burst is
 * sorted (spsc.h's writer): the owner's ring, or, for this worker itself, its own list
 * (struct owned), which has the same shape, so that no packet takes a branch on its
 * owner. keep holds, at the same index, what the receiver keeps of each packet until
 * its verdict comes back: its mbuf, or with forward_all its port; nothing is kept for
 * a ring without verdicts back (a scratch array then).
 */
struct dest {
	struct pd_spsc_writer wr;
	void *keep;           /* struct rte_mbuf *[], or uint16_t [] with forward_all */
	unsigned kbias, kmask; /* a slot's keep index: (its ring index + kbias) & kmask */
};

/*
 * The packets of a burst whose owner's ring had no room (over[0..n), in order, with
 * their hashes, times and ports as they were): handed over as before the in-place
 * puts, owner by owner, so that this worker first does its share of the waiting work
 * and tries again once (hand_over); what still finds no room passes unchecked.
 */
static void hand_over_rest(struct pd_worker *w, struct rte_mbuf **pkts, const unsigned *over,
			   const uint64_t *h, const uint64_t *t, const uint16_t *port,
			   unsigned n, const int fwd)
{
	const int timed = w->app->time_src != PD_TIME_NONE;

	for (unsigned k = 0; k < w->nowner; k++) {
		const unsigned o = w->owner[k];
		struct rte_mbuf *m[PD_APP_BURST];
		uint64_t oh[PD_APP_BURST], ot[PD_APP_BURST];
		uint16_t op[PD_APP_BURST];
		unsigned c = 0;

		for (unsigned j = 0; j < n; j++) {
			if (pd_owner_of(h[j], w->app->nworkers) != o)
				continue;
			oh[c] = h[j];
			ot[c] = t[j];
			op[c] = port[j];
			m[c++] = fwd ? NULL : pkts[over[j]];
		}
		if (c != 0)
			hand_over(w, o, oh, timed ? ot : NULL, fwd ? NULL : m, op, c);
	}
}

/*
 * One received burst with software dispatch: each keyed packet's lookup written in its
 * owner's ring in place, or in this worker's own list, as it is sorted: no list per
 * owner copied into its ring afterwards, no call per ring (no branch on the owner
 * either, which is random: one taken branch in two mispredicted cost 10% of this
 * function's samples, perf). The rings' new slots are put (and published in batches)
 * once the burst is sorted. Its own packets wait in own[*cur] while those of the burst
 * before, in the other, are decided. The rings alone with their puts and gets in place
 * against the lists copied in and out (tests/bench/bench_fanout, zc, 64 MiB tables,
 * 3 runs each; docs/speed.md): with --action count's lookups on one port
 * (nov,h8,rounds=16) 0.75-0.77 of their cost at 15 workers, 0.80-0.87 at 8 and
 * 0.91-0.95 at 2; with verdicts back (h8) 0.86-0.87 at 15 and 0.94-0.95 at 2.
 */
static inline __attribute__((always_inline)) void
dispatch_burst_as(struct pd_worker *w, struct rte_mbuf **pkts, unsigned n, const uint64_t *rxt,
		  struct owned *own, unsigned *cur, const int fwd, const int back)
{
	struct dest dst[PD_APP_MAX_WORKERS];
	uint16_t scratch[PD_APP_BURST]; /* what nobody keeps: no verdict comes back */
	unsigned over[PD_APP_BURST], nover = 0; /* packets whose owner's ring was full */
	uint64_t oh[PD_APP_BURST], ot[PD_APP_BURST];
	uint16_t oport[PD_APP_BURST];
	uint64_t hp[PD_APP_BURST];
	uint8_t nokey[PD_APP_BURST];
	const unsigned me = w->idx, wd = w->app->handoff_words;
	const size_t esize = wd * sizeof(uint64_t);
	struct owned *now = &own[*cur];
	const int timed = wd == 2;
	unsigned keyless = 0;

	keys_burst(w, pkts, n, hp, nokey);
	/* this worker's own list: never full (a burst at most), never wraps */
	dst[me] = (struct dest){.wr = {.slot = (unsigned char *)now->ht, .at = 0,
				       .end = PD_APP_BURST, .mask = ~0u},
				.keep = fwd ? (void *)now->port : (void *)now->m, .kmask = ~0u};
	for (unsigned k = 0; k < w->nowner; k++) {
		const unsigned o = w->owner[k];
		struct pd_spsc *r = w->to[o];
		struct pd_pending *p = w->pending[o];
		/* the packets kept for their verdicts: the ring's slots and the list advance
		 * together, and the list holds every lookup in both rings (ports.c) */
		const unsigned room = back ? p->mask + 1 - (p->tail - p->head) : PD_APP_BURST;

		pd_spsc_writer_begin(r, &dst[o].wr, room < PD_APP_BURST ? room : PD_APP_BURST);
		dst[o].keep = !back ? (void *)scratch : fwd ? (void *)p->port : (void *)p->m;
		dst[o].kbias = back ? p->tail - dst[o].wr.at : 0;
		dst[o].kmask = back ? p->mask : PD_APP_BURST - 1;
	}
	for (unsigned i = 0; i < n; i++) {
		struct dest *d;
		uint64_t *l;
		unsigned at;

		if (nokey[i]) { /* rare and predicted: hp[i] is not set then */
			if (!fwd)
				act(w, pkts[i], nokey[i]);
			keyless++;
			continue;
		}
		d = &dst[pd_owner_of(hp[i], w->app->nworkers)];
		l = pd_spsc_writer_next(&d->wr, esize);
		if (unlikely(l == NULL)) { /* its owner is behind: hand_over_rest */
			oh[nover] = hp[i];
			ot[nover] = timed ? rxt[i] : 0; /* rxt is set only when timed */
			oport[nover] = pkts[i]->port;
			over[nover++] = i;
			continue;
		}
		l[0] = hp[i];
		if (timed) /* constant for the run: predicted */
			l[1] = rxt[i];
		at = (d->wr.at - 1 + d->kbias) & d->kmask;
		if (fwd) /* the packet is sent below: only its port is kept */
			((uint16_t *)d->keep)[at] = pkts[i]->port;
		else
			((struct rte_mbuf **)d->keep)[at] = pkts[i];
	}
	if (fwd)
		send_received(w, pkts, n, nokey, keyless);
	for (unsigned k = 0; k < w->nowner; k++) {
		const unsigned o = w->owner[k];
		const unsigned put = pd_spsc_writer_end(w->to[o], &dst[o].wr);

		if (back)
			w->pending[o]->tail += put;
		w->c.dispatched_out += put;
	}
	if (unlikely(nover != 0))
		hand_over_rest(w, pkts, over, oh, ot, oport, nover, fwd);
	now->n = dst[me].wr.at;
	if (w->far && wd == 1) /* near: left to the filter's burst, 3.6% more packets a
				* second with --action count, 32 KiB, 2 workers (docs/speed.md) */
		pd_filter_prefetch_burst(w->filter, now->ht, now->n);
	else if (w->far) /* timed: each hash's time follows it */
		for (unsigned i = 0; i < now->n; i++)
			pd_filter_prefetch(w->filter, now->ht[i * wd]);
	*cur ^= 1;
	decide_owned(w, &own[*cur]);
}

/* One received burst with software dispatch, in a copy of its own for each way the
 * run keeps its packets: --action count (forward_all) on one port (only the owner
 * counts: nothing kept) or on several (each packet's port kept for its verdict), and
 * the actions that wait for verdicts (each mbuf kept). */
static void dispatch_burst(struct pd_worker *w, struct rte_mbuf **pkts, unsigned n,
			   const uint64_t *rxt, struct owned *own, unsigned *cur)
{
	if (w->app->forward_all && !w->app->verdicts_back) /* one port: counted by the owner */
		dispatch_burst_as(w, pkts, n, rxt, own, cur, 1, 0);
	else if (w->app->forward_all)
		dispatch_burst_as(w, pkts, n, rxt, own, cur, 1, 1);
	else
		dispatch_burst_as(w, pkts, n, rxt, own, cur, 0, 1);
}

/* Workers past their receive loop (software dispatch's stop). */
static atomic_uint stopped_receiving;

int pd_worker_main(void *arg)
{
	struct pd_worker *w = arg;
	struct staged st[2]; /* without dispatch: the burst received, the one kept back */
	struct owned own[2]; /* software dispatch: the last burst's own packets waiting
				* (own[own_cur ^ 1]), and room for the next burst's */
	unsigned cur = 0, held = 0, own_cur = 0;
	/* a burst is kept back only when its rows come from far (L3, memory): with a
	 * filter near the core (32 KiB) keeping it back gained nothing (median ratio
	 * 1.005 in 6 alternating rounds) and would only add a burst of latency */
	const int pipelined = w->far = pd_filter_is_far(w->filter);
	/* the main lcore prints the counter lines: every --stats-interval, and on SIGUSR1;
	 * and with the live estimate on it looks at the loss budget (pd_estimate_watch) */
	const int main_lcore = w->lcore == rte_get_main_lcore();
	const int ticks = main_lcore && (w->app->cfg.stats_interval > 0 ||
					 w->app->cfg.estimate_level >= 0);
	const unsigned full = w->n_rxq * PD_APP_BURST; /* a round of full bursts */
	unsigned busy = 0; /* rounds of full bursts since dispatch_flush(FLUSH_ALL) */
	/* publish every this many busy rounds: with no verdict back nothing waits for
	 * the lookups, and publishing less often costs the owners fewer lines */
	const unsigned flush_mask = (w->app->verdicts_back ? PD_APP_DISPATCH_ROUNDS
							    : PD_APP_DISPATCH_ROUNDS_NOV) - 1;
	unsigned rounds = 0;
	uint64_t next_tick = 0;

	own[0].n = own[1].n = 0;
	/* a far filter's rows are prefetched here once their burst is hashed (stage_burst,
	 * dispatch_burst, decide_handed): its burst need not ask for them again */
	pd_filter_hint_prefetched(w->filter, pipelined);
	while (!pd_force_quit) {
		uint64_t rxt[PD_APP_BURST]; /* times of the received burst (when timed) */
		unsigned got = 0;

		/* about 1000 checks a second, never a branch per packet; the TSC is read
		 * every 16th round only: a read takes 9 ns on the development VM, and
		 * reading it every round cost 2.5% of one worker's packet rate (net_pcap,
		 * --no-huge, 8 alternating rounds) */
		if (unlikely(main_lcore) && (ticks || pd_stats_asked) && (++rounds & 15) == 0 &&
		    rte_rdtsc() >= next_tick) {
			next_tick = rte_rdtsc() + rte_get_tsc_hz() / 1000;
			pd_stats_tick();
		}

		for (unsigned q = 0; q < w->n_rxq; q++) {
			struct rte_mbuf **pkts = st[cur].pkts;
			uint16_t n = rte_eth_rx_burst(w->rxq[q].port, w->rxq[q].queue, pkts,
						      PD_APP_BURST);

			if (n == 0)
				continue;
			got += n;
			w->c.rx += n;
			w->c.port_rx[w->rxq[q].port] += n;
			if (w->app->time_src == PD_TIME_TSC)
				burst_times(w->app, n, rxt);
			if (w->app->dispatching) {
				dispatch_burst(w, pkts, n, rxt, own, &own_cur);
				if (!pipelined) /* rows near the core: nothing to wait for */
					decide_owned(w, &own[own_cur ^ 1]);
				continue;
			}
			st[cur].n = n;
			stage_burst(w, &st[cur], rxt, pipelined);
			if (!pipelined) { /* rows near the core: nothing to wait for */
				decide_burst(w, &st[cur]);
				continue;
			}
			if (held)
				decide_burst(w, &st[cur ^ 1]);
			held = 1;
			cur ^= 1;
		}
		if (held && got == 0) { /* the link is quiet: nothing waits behind it */
			decide_burst(w, &st[cur ^ 1]);
			held = 0;
		}
		if (w->app->dispatching) {
			if (got == 0) /* the link is quiet: nothing waits behind them */
				decide_owned(w, &own[own_cur ^ 1]);
			dispatch_poll(w);
			/* busy (full bursts): publish in batches of whole lines (spsc.h).
			 * Each publication costs the reader lines from this core: with a
			 * 560 ns round trip between the VM's cores, batches gave 5.6% more
			 * packets a second at 65,536 flows and 8.7% at 1,024; at 110 ns,
			 * 1%. Slots left in a line that no longer fills (a ring that
			 * publishes nothing more) wait two PD_APP_DISPATCH_STALE rounds at
			 * most. Publishing everything every 16 or every 256 rounds instead
			 * gave 4% fewer packets a second (2 workers, 65,536 flows, drop,
			 * 8 alternating rounds at a 110 ns round trip). With no verdict
			 * back (count, one port), every 16 rounds against every 4, median
			 * of alternating rounds on a 16-core VM (310-410 ns round trip):
			 * 15 workers 1.10 times the packets a second (8 rounds), 8 workers
			 * 1.04 (5). 2 workers publish at the batch of 64 (spsc.h) either
			 * way, 16 lookups a round going to the one peer: 0.96-1.09 on the
			 * 2-core VM (5 runs of 3 to 12 rounds, median 0.98) */
			if (got < full) {
				dispatch_flush(w, FLUSH_ALL);
				busy = 0;
			} else if ((++busy & flush_mask) == 0) { /* a mask: no division */
				dispatch_flush(w, busy % PD_APP_DISPATCH_STALE == 0
							  ? FLUSH_STALE : FLUSH_LINES);
			}
		}
		tx_flush_all(w);
		if (unlikely(atomic_load_explicit(&w->snap.state, memory_order_acquire) ==
			     PD_SNAP_REQUESTED)) {
			pd_snap_step(w, PD_SNAP_STEP); /* one bounded step of a periodic snapshot */
		}
	}
	if (held)
		decide_burst(w, &st[cur ^ 1]);
	if (w->app->dispatching) {
		decide_owned(w, &own[own_cur ^ 1]);
		/* A peer may still be handing over its last burst: decide and act until
		 * every worker has left its receive loop, nothing was left to do after that,
		 * no packet of this worker waits for a verdict and no lookup for this worker
		 * waits in its rings. Every lookup this worker handed over is published
		 * before it counts itself out, so a peer that sees every worker out and
		 * finds its rings empty has nothing left to decide; the verdicts decided
		 * here are published at each turn. */
		dispatch_flush(w, FLUSH_ALL);
		atomic_fetch_add_explicit(&stopped_receiving, 1, memory_order_acq_rel);
		for (;;) {
			const unsigned done = atomic_load_explicit(&stopped_receiving,
								   memory_order_acquire);
			const unsigned did = dispatch_poll(w);

			dispatch_flush(w, FLUSH_ALL);
			if (did == 0 && done == w->app->nworkers && waiting(w) == 0 &&
			    !handed_waiting(w))
				break;
		}
	}
	tx_flush_all(w);
	atomic_store_explicit(&w->snap.stopped, 1, memory_order_release);
	return 0;
}
