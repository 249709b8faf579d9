/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture link types the key parser takes (enum pd_key_link), from libpcap's DLT.
 */
#ifndef PKTDEDUP_APP_LINK_H
#define PKTDEDUP_APP_LINK_H

#include <pcap/dlt.h>

#include <pktdedup/pd_key.h>

#define CLI_LINK_TYPES "Ethernet, Linux cooked (SLL, SLL2) or raw IP"

/* 0 and *link set for a link type the parser takes, else -1. */
static inline int cli_link_from_dlt(int dlt, enum pd_key_link *link)
{
	switch (dlt) {
	case DLT_EN10MB: *link = PD_LINK_ETHERNET; return 0;
	case DLT_LINUX_SLL: *link = PD_LINK_SLL; return 0;
	case DLT_LINUX_SLL2: *link = PD_LINK_SLL2; return 0;
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6: *link = PD_LINK_RAW; return 0;
	default: return -1;
	}
}

#endif
