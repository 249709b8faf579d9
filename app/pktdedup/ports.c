/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inline: the ports (the pair, one port or the default, and --dup-port), how packets of
 * one key reach one worker (RSS or software rings), a pool of mbufs for each worker that
 * receives, the queues, and the ports' stop.
 */
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "pktdedup.h"

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

/* Ports started (pd_ports_close stops only those: ethdev says "already stopped" of the
 * others, a port whose setup failed). */
static uint8_t started[RTE_MAX_ETHPORTS];

/* A port with nrxq RX queues, queue q receiving into pools[q], and ntxq TX queues. */
static int port_setup(uint16_t port, unsigned nrxq, struct rte_mempool *const *pools,
		      unsigned ntxq, int rss, uint64_t rss_hf)
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
					    NULL, pools[q]);
		if (rc != 0) { /* net_pcap's infinite_rx keeps a file's every frame in the pool */
			PD_LOG(ERR, "port %u: RX queue %u: %s (its pool holds %u mbufs: --mbufs N"
				" gives each worker's pool N / workers)\n", port, q,
				rte_strerror(-rc), pools[q]->size);
			return rc;
		}
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
	started[port] = 1;
	/* vdevs such as net_pcap do not support it; that is not an error */
	(void)rte_eth_promiscuous_enable(port);
	return 0;
}

void pd_ports_close(const uint16_t *ports, unsigned n)
{
	static int closed;

	if (closed)
		return;
	closed = 1;
	for (unsigned p = 0; p < n; p++) {
		if (started[ports[p]])
			rte_eth_dev_stop(ports[p]);
		rte_eth_dev_close(ports[p]);
	}
}

/* Inline: the ports, the pair, one port or the default, and the duplicate port. 0, or
 * the exit status. */
int pd_ports_choose(void)
{
	struct pd_app_config *c = &pd_app.cfg;
	uint16_t nb_ports, *ports = pd_app.port_id;
	unsigned nports = 0;

	/* ports: the pair, one port, or the default */
	nb_ports = rte_eth_dev_count_avail();
	if (nb_ports == 0) {
		PD_LOG(ERR, "no ports: bind a NIC to DPDK (dpdk-devbind.py --status lists them;"
			" bash scripts/setup-inline.sh shows them too), or give EAL a virtual"
			" device: --vdev net_null0, --vdev net_pcap0,rx_pcap=IN.pcap, or"
			" --vdev net_af_packet0,iface=eth0 (docs/app.md)\n");
		return 1;
	}
	if (c->nports == 0) {
		c->ports[0] = 0;
		c->ports[1] = nb_ports >= 2 ? 1 : -1;
		c->nports = c->ports[1] >= 0 ? 2 : 1;
	}
	for (int i = 0; i < c->nports; i++) {
		if (!rte_eth_dev_is_valid_port((uint16_t)c->ports[i])) {
			PD_LOG(ERR, "--ports: port %d does not exist (%u ports)\n",
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
			PD_LOG(ERR, "--dup-port %d: no such port\n", c->dup_port);
			return 2;
		}
		/* a port the kept packets leave by: the copies would go out with them, so that
		 * --action drop removed nothing, without a word */
		if (c->dup_port == c->ports[0] || c->dup_port == c->ports[1]) {
			PD_LOG(ERR, "--dup-port %d: %s\n", c->dup_port, PD_DUP_PORT_WHY);
			return 2;
		}
		ports[nports++] = (uint16_t)c->dup_port;
	}
	pd_app.nports = nports;
	pd_app.ntx = nports; /* the ports a worker may send on */
	memcpy(pd_app.tx_port, ports, nports * sizeof(ports[0]));

	return 0;
}

/*
 * Software dispatch's rings (spsc.h): for each (receiver, owner) pair one ring of
 * lookups on the owner's socket and one of verdicts on the receiver's, each with one
 * producer and one consumer (no compare-and-swap, no line written by two receivers),
 * and the receiver's list of the packets waiting, which can hold every lookup in both
 * rings. About --dispatch-ring lookups (default 2048) wait for an owner in all, split
 * among the workers that hand it lookups (every other worker, or worker 0 alone), at
 * least 128 per ring (4 bursts); the pool holds an mbuf for every packet that can wait.
 */
static unsigned dispatch_ring_size(unsigned lookups, unsigned receivers)
{
	const unsigned want = lookups / (receivers > 1 ? receivers : 1);

	return rte_align32prevpow2(want < 128 ? 128 : want);
}

/* A dispatch ring of esize-byte slots on the socket of its consumer, lcore, publishing
 * in batches of PD_APP_DISPATCH_BATCH slots (a quarter of the ring at most). */
static struct pd_spsc *dispatch_ring(size_t esize, unsigned lcore)
{
	const unsigned size = pd_app.ring_size;
	void *mem = rte_malloc_socket("pd_spsc", pd_spsc_bytes(size, esize), PD_SPSC_LINE,
				      (int)rte_lcore_to_socket_id(lcore));

	return mem != NULL ? pd_spsc_init(mem, size, esize,
					  RTE_MIN(PD_APP_DISPATCH_BATCH, size / 4))
			   : NULL;
}

static int dispatch_rings(void)
{
	const unsigned n = pd_app.nworkers, slots = 2 * pd_app.ring_size;

	/* a lookup: its hash, and its time when timed (pktdedup.h, PD_HANDOFF_MAX_WORDS) */
	pd_app.handoff_words = pd_app.time_src != PD_TIME_NONE ? 2 : 1;
	for (unsigned r = 0; r < n; r++) {
		struct pd_worker *recv = pd_app.w[r];

		if (!pd_app.rx_spread && r != 0) /* only worker 0 receives */
			continue;
		for (unsigned o = 0; o < n; o++) {
			struct pd_worker *owner = pd_app.w[o];
			struct pd_pending *p;

			if (o == r)
				continue;
			recv->to[o] = dispatch_ring(pd_app.handoff_words * sizeof(uint64_t),
						    owner->lcore);
			recv->back[o] = dispatch_ring(1, recv->lcore); /* a verdict a byte */
			p = rte_zmalloc_socket("pd_pending", sizeof(*p) + slots * sizeof(p->m[0]) +
						       slots * sizeof(p->port[0]),
					       RTE_CACHE_LINE_SIZE,
					       (int)rte_lcore_to_socket_id(recv->lcore));
			if (recv->to[o] == NULL || recv->back[o] == NULL || p == NULL) {
				PD_LOG(ERR, "dispatch: no memory for the rings of %u workers\n",
					n);
				rte_free(p);
				return 1;
			}
			p->mask = slots - 1;
			p->port = (uint16_t *)&p->m[slots];
			recv->pending[o] = p;
			recv->owner[recv->nowner++] = o;
			owner->reply[owner->nfrom] = recv->back[o];
			owner->from[owner->nfrom++] = recv->to[o];
		}
	}
	return 0;
}

/*
 * The mbufs: a pool for each worker that receives (the first @p receivers), on its
 * socket. A packet's mbuf never leaves the worker that received it (software dispatch
 * hands over the lookup only), so each pool is taken from and given back to by one
 * lcore: no ring of free mbufs that every worker writes.
 *
 * Each lcore's cache of its pool holds 512 mbufs, the most DPDK allows, not 256. With
 * software dispatch a worker frees its packets when their verdicts come back, in lumps
 * of a line of verdicts, while it takes mbufs a burst at a time; a cache that
 * overflows or runs dry goes to the pool's ring, which gives back the mbufs freed
 * longest ago, whose lines have left the caches. The more workers, the longer a line
 * of verdicts takes to fill (about 16 rounds of the loop with 8 or 15, 4 with 2).
 * Emulated with 2 workers by holding verdicts about 32 rounds (net_pcap, 65,536 flows,
 * --action count, 12 alternating rounds of 3 s, 2026-11-27): with caches of 256 that
 * gave 0.81 of the packets a second of the build that does not hold them (0.74 to
 * 0.86 in three sweeps, one pool or a pool each), with 512 0.98 and 1.01. Without
 * holding, a pool each with 512 against one with 256: count 1.071 and 1.023, drop
 * 0.925 and 1.062 (12 and 20 rounds). Each pool covers its worker's RX and TX rings
 * full, bursts in flight and every packet it may keep waiting for a verdict (none with
 * --action count, whose packets go on at once); --mbufs N gives each an equal share
 * of N.
 */
static int mbuf_pools(unsigned receivers)
{
	const struct pd_app_config *c = &pd_app.cfg;
	unsigned n = c->mbufs / receivers;

	if (c->mbufs == 0)
		n = pd_app.nports * (c->rx_desc + c->tx_desc) + 4 * PD_APP_BURST +
		    (pd_app.dispatching && !pd_app.forward_all ? /* packets waiting for verdicts */
			     (pd_app.nworkers - 1) * 2 * pd_app.ring_size : 0) +
		    4096;
	for (unsigned i = 0; i < receivers; i++) {
		struct pd_worker *w = pd_app.w[i];
		char name[RTE_MEMPOOL_NAMESIZE];

		snprintf(name, sizeof(name), "pd_mbufs_%u", i);
		w->pool = rte_pktmbuf_pool_create(name, n, RTE_MIN(512u, n / 4), 0,
						  RTE_MBUF_DEFAULT_BUF_SIZE,
						  (int)rte_lcore_to_socket_id(w->lcore));
		if (w->pool == NULL) {
			PD_LOG(ERR, "cannot create %u mbufs for worker %u: %s\n", n, i,
				rte_strerror(rte_errno));
			return 1;
		}
	}
	return 0;
}

/*
 * Inline, once the workers exist: dispatch (RSS when every port hashes on the key's
 * fields, else software rings), the mbuf pools, the rings and the queues. 0, or the exit
 * status.
 */
int pd_ports_setup(void)
{
	struct pd_app_config *c = &pd_app.cfg;
	uint16_t *ports = pd_app.port_id;
	const unsigned nports = pd_app.nports;
	uint64_t rss_hf = 0;
	int rss = 0, rc;

	/* each worker sends on a TX queue of its own on every port: say so before the
	 * port's own configure refuses it with EINVAL */
	for (unsigned p = 0; p < nports; p++) {
		struct rte_eth_dev_info info;
		char name[RTE_ETH_NAME_MAX_LEN] = "";

		if (rte_eth_dev_info_get(ports[p], &info) != 0 ||
		    info.max_tx_queues >= pd_app.nworkers)
			continue;
		(void)rte_eth_dev_get_name_by_port(ports[p], name);
		PD_LOG(ERR, "port %u (%s) has %u TX queue%s, and each of the %u workers sends"
			" on one of its own: use --workers %u (or fewer lcores with -l), or give"
			" the port a TX queue per worker (net_pcap: tx_pcap= once a queue, or"
			" without tx_pcap rx_pcap= once a queue; docs/app.md, \"Workers and"
			" dispatch\")\n", ports[p], name, info.max_tx_queues,
			info.max_tx_queues == 1 ? "" : "s", pd_app.nworkers,
			info.max_tx_queues > 0 ? info.max_tx_queues : 1);
		return 2;
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
			PD_LOG(ERR, "--dispatch rss: the ports cannot hash on the %s"
				" key's fields with %u queues; use --dispatch software\n",
				pd_key_mode_name(c->key.mode), pd_app.nworkers);
			return 2;
		}
		rss = rss_ok && c->dispatch != PD_DISPATCH_SOFTWARE;
		pd_app.dispatching = !rss;
		pd_app.rx_spread = !rss;
		for (unsigned i = 0; i < (unsigned)c->nports && pd_app.rx_spread; i++) {
			struct rte_eth_dev_info info;

			pd_app.rx_spread = rte_eth_dev_info_get(ports[i], &info) == 0 &&
					   info.max_rx_queues >= pd_app.nworkers;
		}
	}

	if (pd_app.dispatching)
		pd_app.ring_size = dispatch_ring_size(c->dispatch_ring,
						      pd_app.rx_spread ? pd_app.nworkers - 1 : 1);
	else if (c->dispatch_ring != PD_APP_RING_DEFAULT)
		PD_LOG(WARNING, "--dispatch-ring %u: not used, %s\n", c->dispatch_ring,
		       pd_app.nworkers == 1 ? "one worker" : "the ports hash (RSS)");
	if (mbuf_pools(rss || pd_app.rx_spread ? pd_app.nworkers : 1) != 0)
		return 1;
	if (pd_app.dispatching && dispatch_rings() != 0)
		return 1;

	/* TX: each worker buffers for each port it may send on */
	for (unsigned i = 0; i < pd_app.nworkers; i++) {
		struct pd_worker *w = pd_app.w[i];

		for (unsigned p = 0; p < nports; p++) {
			const uint16_t port = ports[p];

			w->tx[port] = rte_zmalloc_socket("pd_tx", RTE_ETH_TX_BUFFER_SIZE(
				PD_APP_TX_BUFFER), RTE_CACHE_LINE_SIZE,
				(int)rte_lcore_to_socket_id(w->lcore));
			if (w->tx[port] == NULL ||
			    rte_eth_tx_buffer_init(w->tx[port], PD_APP_TX_BUFFER) != 0) {
				PD_LOG(ERR, "TX buffer: out of memory\n");
				return 1;
			}
			w->tx_retry[port].w = w;
			w->tx_retry[port].port = port;
			if (rte_eth_tx_buffer_set_err_callback(w->tx[port], pd_worker_tx_unsent,
							       &w->tx_retry[port]) != 0) {
				PD_LOG(ERR, "TX buffer: cannot set its callback\n");
				return 1;
			}
		}
	}

	/*
	 * RX queues: with RSS, queue q of each port goes to worker q. With software
	 * dispatch the same when every port has a queue per worker (the port spreads the
	 * load by whatever hash it has, the rings bring each key to its owner: a NIC that
	 * hashes on other fields, net_null, net_ring, net_af_packet's fanout); otherwise
	 * one queue per port, on worker 0. TX: one queue per worker.
	 */
	for (unsigned p = 0; p < nports; p++) {
		int is_rx = p < (unsigned)c->nports;
		unsigned nrxq = is_rx ? (rss || pd_app.rx_spread ? pd_app.nworkers : 1) : 0;
		struct rte_mempool *pools[PD_APP_MAX_WORKERS];
		struct rte_eth_dev_info info;
		uint64_t hf = rss_hf;
		int port_rss = rss;

		if (rte_eth_dev_info_get(ports[p], &info) != 0)
			memset(&info, 0, sizeof(info));
		if (!is_rx && info.max_rx_queues > 0)
			nrxq = 1; /* some PMDs need one RX queue; the dup port's is never polled */
		if (is_rx && pd_app.rx_spread) { /* any hash the port has, for the load only */
			hf = info.flow_type_rss_offloads & (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP |
							    RTE_ETH_RSS_UDP);
			port_rss = hf != 0;
		}
		for (unsigned q = 0; q < nrxq; q++) /* the dup port's queue: worker 0's */
			pools[q] = pd_app.w[nrxq > 1 ? q : 0]->pool;
		rc = port_setup(ports[p], nrxq, pools, pd_app.nworkers, port_rss, hf);
		if (rc != 0) {
			PD_LOG(ERR, "port %u: setup failed: %s\n", ports[p],
				rte_strerror(-rc));
			return 1;
		}
		for (unsigned q = 0; is_rx && q < nrxq; q++) {
			struct pd_worker *w = pd_app.w[nrxq > 1 ? q : 0];

			w->rxq[w->n_rxq].port = ports[p];
			w->rxq[w->n_rxq].queue = (uint16_t)q;
			w->n_rxq++;
		}
	}

	return 0;
}
