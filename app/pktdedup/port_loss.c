/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the ports lost before pktdedup saw a packet: the ethdev counters (imissed: RX
 * ring full; rx_nombuf: no mbuf; ierrors) and, for net_af_packet, the kernel's own count
 * of frames its socket ring had no room for. DPDK 22.11's af_packet PMD does not read
 * that count (its imissed stays 0 while the kernel drops: 7,820 of 200,000 frames at
 * tcpreplay --topspeed here), so pktdedup reads it from the PMD's sockets in this
 * process: AF_PACKET sockets bound to the port's interface, PACKET_STATISTICS. The
 * kernel clears those counters on each read; nothing else reads them, so the sum kept
 * here is the whole count.
 */
#include <dirent.h>
#include <linux/if_packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pktdedup.h"

static uint64_t kernel_drops[RTE_MAX_ETHPORTS];

/* Drops counted by the kernel on this process's AF_PACKET sockets bound to ifindex. */
static uint64_t read_socket_drops(int ifindex)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	uint64_t drops = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		struct sockaddr_ll sll;
		struct tpacket_stats_v3 st;
		socklen_t len = sizeof(int);
		int fd = atoi(e->d_name), domain = 0;
		struct stat sb;

		if (fd <= 2 || fd == dirfd(d) || fstat(fd, &sb) != 0 || !S_ISSOCK(sb.st_mode))
			continue;
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 ||
		    domain != AF_PACKET)
			continue;
		len = sizeof(sll);
		if (getsockname(fd, (struct sockaddr *)&sll, &len) != 0 || sll.sll_ifindex != ifindex)
			continue;
		len = sizeof(st);
		memset(&st, 0, sizeof(st));
		if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0)
			drops += st.tp_drops;
	}
	closedir(d);
	return drops;
}

void pd_port_loss_read(uint16_t port, struct pd_port_loss *l)
{
	struct rte_eth_stats st;
	struct rte_eth_dev_info info;

	memset(l, 0, sizeof(*l));
	if (rte_eth_stats_get(port, &st) == 0) {
		l->imissed = st.imissed;
		l->rx_nombuf = st.rx_nombuf;
		l->ierrors = st.ierrors;
		l->ipackets = st.ipackets;
		l->ibytes = st.ibytes;
		l->opackets = st.opackets;
		l->oerrors = st.oerrors;
	}
	if (rte_eth_dev_info_get(port, &info) == 0 && info.driver_name != NULL &&
	    strstr(info.driver_name, "af_packet") != NULL && info.if_index != 0)
		__atomic_fetch_add(&kernel_drops[port], read_socket_drops((int)info.if_index),
				   __ATOMIC_RELAXED);
	l->kernel_drops = __atomic_load_n(&kernel_drops[port], __ATOMIC_RELAXED);
	l->lost = l->imissed + l->rx_nombuf + l->ierrors + l->kernel_drops;
}

/* Packets the ports lost before pktdedup saw them, over every port, read now (or as read
 * at the stop, once the ports may be closed: the last periodic line); *ibytes: the bytes
 * they received. */
uint64_t pd_ports_lost_now(uint64_t *ibytes)
{
	uint64_t lost = 0;

	*ibytes = 0;
	for (unsigned p = 0; p < pd_app.nports; p++) {
		struct pd_port_loss l = pd_app.port_loss[p];

		if (!pd_app.port_loss_final)
			pd_port_loss_read(pd_app.port_id[p], &l);
		lost += l.lost;
		*ibytes += l.ibytes;
	}
	return lost;
}
