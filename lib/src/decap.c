/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tunnels (pd_key.h, enum pd_key_decap): where a tunnel's payload starts and what it is,
 * from the outer packet's L4 header or an MPLS label stack. key.c then parses the
 * payload as a frame of its own. Every read is checked against `end`, the outer packet's
 * last byte; a header that runs past it gives `cut` (what key.c's need() would say:
 * BAD_LENGTH when the frame holds the whole outer packet, TRUNCATED when it was cut).
 *
 * Headers, by their RFCs: VXLAN (RFC 7348), Geneve (RFC 8926), GRE (RFC 2784, 2890),
 * ERSPAN (draft-foschiano-erspan-03: type I, II, III), MPLS (RFC 3032) with the
 * pseudowire control word (RFC 4385), GTP-U (3GPP TS 29.281).
 */
#include <pktdedup/pd_key.h>

#include "key_private.h"

#define IPPROTO_UDP_ 17
#define IPPROTO_GRE_ 47
#define ET_IPV4 0x0800
#define ET_IPV6 0x86dd
#define ET_TEB 0x6558 /* transparent Ethernet bridging: an Ethernet frame */
#define ET_ERSPAN2 0x88be
#define ET_ERSPAN3 0x22eb
#define ET_MPLS 0x8847
#define ET_MPLS_MC 0x8848

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline enum pd_key_reason tunnel(struct pd_tunnel *t, size_t inner, uint16_t et,
					unsigned kind)
{
	*t = (struct pd_tunnel){inner, et, (uint8_t)kind};
	return PD_KEY_OK;
}

/* The UDP tunnels: VXLAN, Geneve, GTP-U, by destination port. */
static enum pd_key_reason udp_tunnel(const struct pd_key_config *c, const uint8_t *p, size_t l4,
				     size_t end, enum pd_key_reason cut, struct pd_tunnel *t)
{
	const size_t h = l4 + 8; /* the tunnel header, after UDP's */
	const uint16_t dport = rd16(p + l4 + 2);

	if (dport == c->vxlan_port && (c->decap & PD_DECAP_VXLAN)) {
		if (h + 8 > end)
			return cut;
		if (!(p[h] & 0x08)) /* I flag: a valid VNI */
			return PD_KEY_BAD_TUNNEL;
		return tunnel(t, h + 8, ET_TEB, PD_DECAP_VXLAN);
	}
	if (dport == PD_KEY_GENEVE_PORT && (c->decap & PD_DECAP_GENEVE)) {
		size_t inner;
		uint16_t et;

		if (h + 8 > end)
			return cut;
		if (p[h] >> 6 != 0) /* version */
			return PD_KEY_BAD_TUNNEL;
		inner = h + 8 + (size_t)(p[h] & 0x3f) * 4; /* options, 4-byte units */
		et = rd16(p + h + 2);
		if (et != ET_TEB && et != ET_IPV4 && et != ET_IPV6)
			return PD_KEY_BAD_TUNNEL;
		if (inner > end)
			return cut;
		return tunnel(t, inner, et, PD_DECAP_GENEVE);
	}
	if (dport == PD_KEY_GTPU_PORT && (c->decap & PD_DECAP_GTPU)) {
		size_t inner = h + 8;

		if (h + 8 > end)
			return cut;
		if (p[h] >> 5 != 1 || !(p[h] & 0x10)) /* version 1, protocol type GTP */
			return PD_KEY_BAD_TUNNEL;
		if (p[h + 1] != 255) /* not a G-PDU: signalling, not a user packet */
			return tunnel(t, 0, 0, 0);
		if (p[h] & 0x07) { /* E, S or PN: sequence, N-PDU, next extension type */
			uint8_t next;

			if (inner + 4 > end)
				return cut;
			next = (p[h] & 0x04) ? p[inner + 3] : 0;
			inner += 4;
			for (unsigned n = 0; next != 0; n++) {
				size_t len;

				if (n == PD_KEY_MAX_LABELS)
					return PD_KEY_TOO_DEEP;
				if (inner + 1 > end)
					return cut;
				len = (size_t)p[inner] * 4; /* 4-byte units, this byte included */
				if (len == 0)
					return PD_KEY_BAD_TUNNEL;
				if (inner + len > end)
					return cut;
				next = p[inner + len - 1];
				inner += len;
			}
		}
		return tunnel(t, inner, 0, PD_DECAP_GTPU);
	}
	return tunnel(t, 0, 0, 0);
}

/* GRE and what it carries: IP, Ethernet, ERSPAN, MPLS. */
static enum pd_key_reason gre_tunnel(const struct pd_key_config *c, const uint8_t *p, size_t l4,
				     size_t end, enum pd_key_reason cut, struct pd_tunnel *t)
{
	uint16_t flags, et;
	size_t h;

	if (l4 + 4 > end)
		return cut;
	flags = rd16(p + l4);
	et = rd16(p + l4 + 2);
	if ((flags & 0x7) != 0) /* version 1 is PPTP's enhanced GRE: not a tunnel here */
		return tunnel(t, 0, 0, 0);
	if (flags & 0x4000) /* routing present (RFC 1701, deprecated) */
		return PD_KEY_BAD_TUNNEL;
	h = l4 + 4 + ((flags & 0x8000) ? 4 : 0) + ((flags & 0x2000) ? 4 : 0) +
	    ((flags & 0x1000) ? 4 : 0); /* checksum, key, sequence number */
	if (h > end)
		return cut;
	switch (et) {
	case ET_IPV4:
	case ET_IPV6:
	case ET_TEB:
		return (c->decap & PD_DECAP_GRE) ? tunnel(t, h, et, PD_DECAP_GRE) : tunnel(t, 0, 0, 0);
	case ET_MPLS:
	case ET_MPLS_MC:
		return (c->decap & PD_DECAP_GRE) && (c->decap & PD_DECAP_MPLS) ?
			tunnel(t, h, et, PD_DECAP_GRE) : tunnel(t, 0, 0, 0);
	case ET_ERSPAN2:
		if (!(c->decap & PD_DECAP_ERSPAN))
			return tunnel(t, 0, 0, 0);
		if (!(flags & 0x1000)) /* type I: no sequence number, no ERSPAN header */
			return tunnel(t, h, ET_TEB, PD_DECAP_ERSPAN);
		if (h + 8 > end)
			return cut;
		if (p[h] >> 4 != 1) /* type II is version 1 */
			return PD_KEY_BAD_TUNNEL;
		return tunnel(t, h + 8, ET_TEB, PD_DECAP_ERSPAN);
	case ET_ERSPAN3:
		if (!(c->decap & PD_DECAP_ERSPAN))
			return tunnel(t, 0, 0, 0);
		if (h + 12 > end)
			return cut;
		if (p[h] >> 4 != 2) /* type III is version 2 */
			return PD_KEY_BAD_TUNNEL;
		h += 12 + ((p[h + 11] & 0x01) ? 8 : 0); /* O: the platform sub-header */
		if (h > end)
			return cut;
		return tunnel(t, h, ET_TEB, PD_DECAP_ERSPAN);
	default:
		return tunnel(t, 0, 0, 0);
	}
}

enum pd_key_reason pd_decap_l4(const struct pd_key_config *c, const uint8_t *p, size_t l4,
			       size_t end, uint8_t proto, enum pd_key_reason cut,
			       struct pd_tunnel *t)
{
	if (proto == IPPROTO_UDP_ && (c->decap & (PD_DECAP_VXLAN | PD_DECAP_GENEVE |
						  PD_DECAP_GTPU))) {
		/* Not even UDP: cut short, it may be a tunnel (a key of the outer packet would
		 * not be the inner one's); whole, the key's parse says why where it needs L4 */
		if (l4 + 8 > end)
			return cut == PD_KEY_TRUNCATED ? cut : tunnel(t, 0, 0, 0);
		return udp_tunnel(c, p, l4, end, cut, t);
	}
	if (proto == IPPROTO_GRE_ && (c->decap & (PD_DECAP_GRE | PD_DECAP_ERSPAN)))
		return gre_tunnel(c, p, l4, end, cut, t);
	return tunnel(t, 0, 0, 0);
}

enum pd_key_reason pd_decap_mpls(const uint8_t *p, size_t off, size_t end,
				 enum pd_key_reason cut, struct pd_tunnel *t)
{
	for (unsigned n = 0;; n++) {
		if (n == PD_KEY_MAX_LABELS)
			return PD_KEY_TOO_DEEP;
		if (off + 4 > end)
			return cut;
		off += 4;
		if (p[off - 2] & 0x01) /* bottom of stack */
			break;
	}
	if (off + 1 > end)
		return cut;
	switch (p[off] >> 4) {
	case 4:
		return tunnel(t, off, ET_IPV4, PD_DECAP_MPLS);
	case 6:
		return tunnel(t, off, ET_IPV6, PD_DECAP_MPLS);
	case 0: /* the pseudowire control word, then an Ethernet frame */
		if (off + 4 > end)
			return cut;
		return tunnel(t, off + 4, ET_TEB, PD_DECAP_MPLS);
	default:
		return PD_KEY_BAD_TUNNEL;
	}
}

static const char *const decap_names[PD_DECAP_KINDS] = {
	"vxlan", "geneve", "gre", "erspan", "mpls", "gtpu",
};

const char *pd_key_decap_name(unsigned i)
{
	return i < PD_DECAP_KINDS ? decap_names[i] : 0;
}
