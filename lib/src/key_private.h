/* SPDX-License-Identifier: BSD-3-Clause */
/* Inside the library (and its tests) only. */
#ifndef PKTDEDUP_KEY_PRIVATE_H
#define PKTDEDUP_KEY_PRIVATE_H

#include <pktdedup/pd_key.h>

/* pd_key_extract() without its fast path for common flow keys: every frame through the
 * general parse. Same contract and results; tests compare the two. */
__attribute__((visibility("hidden"))) enum pd_key_reason
pd_key_extract_general(const struct pd_key_config *c, const uint8_t *frame, size_t len,
		       uint8_t *key, size_t cap, size_t *key_len);
/* The same with where the IP header is (pd_key_extract_ip). */
__attribute__((visibility("hidden"))) enum pd_key_reason
pd_key_extract_general_ip(const struct pd_key_config *c, const uint8_t *frame, size_t len,
			  uint8_t *key, size_t cap, size_t *key_len, struct pd_key_ip *ip);
/* And of a frame cut short (pd_key_extract_cut). */
__attribute__((visibility("hidden"))) enum pd_key_reason
pd_key_extract_general_cut(const struct pd_key_config *c, const uint8_t *frame, size_t len,
			   size_t wire_len, uint8_t *key, size_t cap, size_t *key_len,
			   struct pd_key_ip *ip);

/* A tunnel's payload (decap.c): where it starts in the frame's bytes, what it is
 * (0x6558 Ethernet; 0x0800, 0x86dd or 0 IP, by its first nibble; 0x8847 or 0x8848 an
 * MPLS stack), and the tunnel's enum pd_key_decap flag (0: no tunnel to open). */
struct pd_tunnel {
	size_t inner;
	uint16_t ethertype;
	uint8_t kind;
};

/* The tunnel at an IP packet's L4 header (protocol proto at l4, the packet's bytes
 * ending at end) that c->decap opens: PD_KEY_OK with t->kind set, or 0 when there is
 * none; `cut` when a header runs past end; PD_KEY_BAD_TUNNEL or PD_KEY_TOO_DEEP. */
__attribute__((visibility("hidden"))) enum pd_key_reason
pd_decap_l4(const struct pd_key_config *c, const uint8_t *p, size_t l4, size_t end,
	    uint8_t proto, enum pd_key_reason cut, struct pd_tunnel *t);
/* The MPLS label stack at off, to the bottom of the stack: what follows it. */
__attribute__((visibility("hidden"))) enum pd_key_reason
pd_decap_mpls(const uint8_t *p, size_t off, size_t end, enum pd_key_reason cut,
	      struct pd_tunnel *t);

#endif
