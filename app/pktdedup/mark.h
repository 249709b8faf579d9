/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --action mark: the DSCP written into a duplicate's IP header, at the offset the key
 * parse found it (pd_key_extract_ip), whatever the link type: Ethernet, Linux cooked
 * (SLL, SLL2) or raw IP. No DPDK here: replay, inline and the tests use it alike.
 */
#ifndef PKTDEDUP_APP_MARK_H
#define PKTDEDUP_APP_MARK_H

#include <stddef.h>
#include <stdint.h>

#include <pktdedup/pd_key.h>

/*
 * Set the DSCP (the 6 high bits of the IPv4 TOS byte or of the IPv6 traffic class; the
 * ECN bits kept) of the IP header at @p ip in @p frame, and fix the IPv4 header
 * checksum. Touches nothing at or past @p len.
 * @return 0 when marked; -1 when there is no IP header there whole within @p len (or
 *         @p dscp > 63), the frame then left as it was.
 */
int pd_mark_dscp(uint8_t *frame, size_t len, struct pd_key_ip ip, unsigned dscp);

#endif
