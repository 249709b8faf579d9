/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture link types the key parser takes (enum pd_key_link), from libpcap's DLT.
 */
#ifndef PKTDEDUP_APP_LINK_H
#define PKTDEDUP_APP_LINK_H

#include <pcap/pcap.h>

#include <pktdedup/pd_key.h>

#define CLI_LINK_TYPES "Ethernet, Linux cooked (SLL, SLL2), raw IP or BSD loopback (NULL, LOOP)"

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
	case DLT_NULL:
	case DLT_LOOP: *link = PD_LINK_NULL; return 0;
	default: return -1;
	}
}

/*
 * The LINKTYPE_ value a capture file records (pcapng's interface block) for libpcap's
 * DLT_ value: the same number, except for the few DLT_ values that differ between
 * platforms, which the file formats number apart (tcpdump.org's list of link-layer
 * header types; libpcap maps them so when it writes a pcap file). DLT_RAW, 12 on Linux,
 * is LINKTYPE_RAW 101.
 */
static inline int cli_linktype_of_dlt(int dlt)
{
	switch (dlt) {
	case DLT_ATM_RFC1483: return 100;
	case DLT_RAW: return 101;
	case DLT_SLIP_BSDOS: return 102;
	case DLT_PPP_BSDOS: return 103;
	default: return dlt;
	}
}

/* libpcap's name of a DLT_ value, or "unknown". */
static inline const char *cli_dlt_name(int dlt)
{
	const char *name = pcap_datalink_val_to_name(dlt);

	return name != NULL ? name : "unknown";
}

/* libpcap's DLT_ value for a LINKTYPE_ a capture file records (the inverse of
 * cli_linktype_of_dlt). */
static inline int cli_dlt_of_linktype(int linktype)
{
	switch (linktype) {
	case 100: return DLT_ATM_RFC1483;
	case 101: return DLT_RAW;
	case 102: return DLT_SLIP_BSDOS;
	case 103: return DLT_PPP_BSDOS;
	default: return linktype;
	}
}

#endif
