/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Packet keys: parse one frame safely and extract the bytes that decide "same packet".
 *
 * The filters compare keys; this module decides what a key is for a frame. It takes a
 * pointer and a length (no DPDK), so the DPDK app, the pcap tools and the tests share one
 * implementation.
 *
 * | mode     | key bytes                                             | size        |
 * |----------|-------------------------------------------------------|-------------|
 * | `flow`   | IP version, L4 protocol, ports, source, destination   | 16 (IPv4),  |
 * |          |                                                       | 40 (IPv6)   |
 * | `srcip`  | IP version, source address                            | 20, fixed   |
 * | `click`  | srcip key + HTTP method and request target (or one     | 20 + target |
 * |          | query parameter's value)                              |             |
 * | `packet` | the frame from L3 (or L2) on, mutable fields zeroed   | up to frame |
 *
 * Layouts (multi-byte fields in network byte order, as on the wire):
 *
 *     flow:   0 version (4|6)  1 protocol  2-3 zero  4-5 src port  6-7 dst port, then
 *             the source and destination addresses: IPv4 8-11 and 12-15 (16 bytes in
 *             all), IPv6 8-23 and 24-39 (40 bytes)
 *     srcip:  0 version  1-3 zero  4-19 source address
 *     click:  the 20 srcip bytes, then "METHOD TARGET" (e.g. "GET /ad?id=7"), or with a
 *             click parameter only that parameter's value. A target (or the value
 *             ending it) that runs to the packet's end may go on in the next segment:
 *             no key (PD_KEY_SPLIT_REQUEST; PD_KEY_TRUNCATED when the capture cut it).
 *             Nor has a segment with bytes past its first request's header block and
 *             Content-Length body (PD_KEY_SEVERAL_REQUESTS): a second request's click
 *             would go with the first's
 *     packet: from L3, the IP packet up to its IP length (Ethernet padding excluded) with
 *             the ignored fields zeroed; from L2, the MAC addresses (zero with
 *             PD_IGNORE_MAC), the tags (unless VLANs are ignored), the ethertype, then
 *             the same; from L4, the IP payload (after IPv6 extension headers) up to
 *             the IP length. Non-IP frames: from L3 or L4, the 2-byte ethertype then the
 *             rest of the frame; from L2, the L2 header as above then the rest.
 *             PD_IGNORE_TCP_SEQ zeroes the TCP sequence and acknowledgement numbers and
 *             the TCP checksum (which changes with them). compare_bytes keeps the first
 *             N bytes. A packet whose bytes end before it does (its IP length, or the
 *             capture's original length: pd_key_extract_cut) has no key
 *             (PD_KEY_TRUNCATED) unless the compare_bytes are in hand.
 *     any:    with PD_VLAN_SEPARATE (and not packet from L2, where the tags are in the
 *             bytes) the 12-bit VLAN IDs of the tag stack follow, 2 bytes each, outer
 *             first
 *
 * Ports in `flow`: TCP, UDP and SCTP source and destination port; ICMP and ICMPv6
 * type << 8 | code and, for echo request/reply, the identifier; other protocols 0.
 *
 * Parsing: Ethernet II, Linux cooked capture (SLL, SLL2), raw IP or BSD loopback (enum
 * pd_key_link);
 * up to PD_KEY_MAX_TAGS VLAN tags (TPID 0x8100, 0x88a8, 0x9100);
 * IPv4 with options and fragments; IPv6 with hop-by-hop, routing, fragment,
 * destination-options and AH extension headers (at most PD_KEY_MAX_EXT); TCP, UDP,
 * SCTP, ICMP, ICMPv6. With `decap` set, tunnels are opened and every mode keys the
 * innermost packet (see enum pd_key_decap). A parse never reads at or past `len`,
 * whatever the headers claim; a
 * frame that cannot yield a key in the requested mode gets a reason (enum pd_key_reason)
 * for the caller to count. Every reason other than PD_KEY_OK means "no key": the caller
 * applies its policy for unparseable frames.
 */
#ifndef PKTDEDUP_PD_KEY_H
#define PKTDEDUP_PD_KEY_H

#include <stddef.h>
#include <stdint.h>

#include <pktdedup/pd_export.h>

#ifdef __cplusplus
extern "C" {
#endif

/** VLAN tags skipped before the ethertype; a deeper stack is PD_KEY_TOO_MANY_TAGS. */
#define PD_KEY_MAX_TAGS 8
/** IPv6 extension headers followed; a longer chain is PD_KEY_EXT_HEADERS. */
#define PD_KEY_MAX_EXT 8
/** Longest click parameter name, excluding the terminating NUL. */
#define PD_KEY_PARAM_MAX 63
/** Tunnels opened one inside another; a deeper nest is PD_KEY_TOO_DEEP. */
#define PD_KEY_MAX_DECAP 4
/** MPLS labels followed to the bottom of a stack; a deeper stack is PD_KEY_TOO_DEEP. */
#define PD_KEY_MAX_LABELS 8
/** UDP destination ports that mark VXLAN, Geneve and GTP-U (IANA); vxlan_port can
 * change the first. */
#define PD_KEY_VXLAN_PORT 4789
#define PD_KEY_GENEVE_PORT 6081
#define PD_KEY_GTPU_PORT 2152

/** Key sizes: IPv4 flow keys, the longest (IPv6) flow keys, srcip keys. */
#define PD_KEY_FLOW4_LEN 16
#define PD_KEY_FLOW_LEN 40
#define PD_KEY_SRCIP_LEN 20
/**
 * The version of the key layouts above: it changes whenever a mode's bytes for a frame
 * change, which changes every hash (filter state saved under one version is useless
 * under another; pktdedup's snapshots record it). 2: IPv4 flow keys packed to 16 bytes.
 */
#define PD_KEY_LAYOUT_VERSION 2
/** A key buffer of PD_KEY_BUF_LEN(frame length) bytes is large enough for every mode. */
#define PD_KEY_BUF_LEN(frame_len) ((size_t)(frame_len) + 32)

enum pd_key_mode {
	PD_KEY_FLOW = 0,
	PD_KEY_SRCIP,
	PD_KEY_CLICK,
	PD_KEY_PACKET,
	PD_KEY_MODE_COUNT
};

/** Fields zeroed in `packet` keys (bit flags). TTL and checksum are the default. */
enum pd_key_ignore {
	PD_IGNORE_TTL = 1u << 0,      /**< IPv4 TTL, IPv6 hop limit */
	PD_IGNORE_CHECKSUM = 1u << 1, /**< IPv4 header checksum */
	PD_IGNORE_DSCP = 1u << 2,     /**< IPv4 DSCP+ECN byte, IPv6 traffic class */
	PD_IGNORE_IPID = 1u << 3,     /**< IPv4 identification */
	PD_IGNORE_MAC = 1u << 4,      /**< destination and source MAC (compare from L2) */
	PD_IGNORE_VLAN = 1u << 5,     /**< VLAN tags: the same as vlan = PD_VLAN_IGNORE */
	PD_IGNORE_TCP_SEQ = 1u << 6,  /**< TCP sequence, acknowledgement numbers, checksum */
};
#define PD_IGNORE_DEFAULT (PD_IGNORE_TTL | PD_IGNORE_CHECKSUM)

/** Where a `packet` key starts. */
enum pd_key_from {
	PD_FROM_L3 = 0, /**< the IP header (L2 header and VLAN tags left out); default */
	PD_FROM_L2,     /**< the whole frame: MAC addresses and tags included */
	PD_FROM_L4,     /**< the IP payload: L4 header and data (addresses left out) */
};

/** Are copies on different VLANs the same packet? */
enum pd_key_vlan {
	PD_VLAN_DEFAULT = 0, /**< ignore, except `packet` from L2: the tags are frame bytes */
	PD_VLAN_IGNORE,      /**< VLAN tags are not part of any key */
	PD_VLAN_SEPARATE,    /**< the VLAN IDs are part of every key */
};

/**
 * What a frame starts with (a capture's link type). Keys from L3 and L4 are the same
 * whatever the link; keys from L2 start with the link header as captured (Ethernet:
 * MAC addresses, which PD_IGNORE_MAC zeroes, tags and ethertype).
 */
enum pd_key_link {
	PD_LINK_ETHERNET = 0, /**< Ethernet II (pcap LINKTYPE_ETHERNET); default */
	PD_LINK_SLL,          /**< Linux cooked capture v1: 16-byte header, protocol at 14 */
	PD_LINK_SLL2,         /**< Linux cooked capture v2: 20-byte header, protocol at 0 */
	PD_LINK_RAW,          /**< the IP header first (LINKTYPE_RAW, IPV4, IPV6) */
	PD_LINK_NULL,         /**< BSD loopback (LINKTYPE_NULL, LOOP: macOS lo0 and utun):
			       *   a 4-byte address family, then the IP header */
	PD_LINK_COUNT         /**< the number of link types */
};

/** Non-first IPv4/IPv6 fragments in `flow` mode (they carry no L4 header). */
enum pd_key_frag {
	PD_FRAG_UNPARSEABLE = 0, /**< reason PD_KEY_FRAGMENT; default */
	PD_FRAG_L3,              /**< key from addresses and protocol, ports 0 */
};

/**
 * Tunnels to open before keying (bit flags; 0 keys the outermost packet, the default).
 * Each is recognised as follows, and the key of every mode comes from the innermost
 * packet (with PD_FROM_L2, its Ethernet header when it has one):
 * - VXLAN: UDP to vxlan_port (4789), 8-byte header with the I flag, inner Ethernet;
 * - Geneve: UDP to 6081, version 0, its options skipped, inner Ethernet, IPv4 or IPv6;
 * - GTP-U: UDP to 2152, version 1, a G-PDU (message 255), its optional fields and
 *   extension headers skipped, inner IPv4 or IPv6 (other messages are not tunnels);
 * - GRE: IP protocol 47, version 0 without routing, its checksum, key and sequence
 *   fields skipped; inner IPv4, IPv6, Ethernet (0x6558) or, with MPLS, an MPLS stack;
 * - ERSPAN: GRE 0x88be (type I without a sequence number, type II with it: 8-byte
 *   header, version 1) and 0x22eb (type III: 12-byte header, version 2, and the 8-byte
 *   platform sub-header when its O flag is set), inner Ethernet;
 * - MPLS: ethertype 0x8847 or 0x8848 (and GRE carrying them), labels to the bottom of
 *   the stack, then IPv4 or IPv6 by the first nibble, or a pseudowire control word
 *   (first nibble 0, 4 bytes) and Ethernet.
 * An outer IP fragment is never opened (its payload is incomplete): it is keyed as is.
 */
enum pd_key_decap {
	PD_DECAP_VXLAN = 1u << 0,
	PD_DECAP_GENEVE = 1u << 1,
	PD_DECAP_GRE = 1u << 2,
	PD_DECAP_ERSPAN = 1u << 3,
	PD_DECAP_MPLS = 1u << 4,
	PD_DECAP_GTPU = 1u << 5,
	PD_DECAP_KINDS = 6,
	PD_DECAP_ALL = (1u << 6) - 1, /**< "auto" */
};

/** "vxlan", "geneve", "gre", "erspan", "mpls", "gtpu" for bit i of enum pd_key_decap;
 * NULL past the last. */
PD_API
const char *pd_key_decap_name(unsigned i);

/** Why a frame gave no key. X-macro: enum suffix, short name, message. */
#define PD_KEY_REASONS(X)                                                                       \
	X(OK, "ok", "ok")                                                                       \
	X(TRUNCATED, "truncated", "truncated: the key needs bytes past the end of the frame")   \
	X(BAD_VERSION, "bad-version", "IP version does not match the ethertype")                \
	X(BAD_IHL, "bad-ihl", "IPv4 header length below 20 bytes")                              \
	X(BAD_LENGTH, "bad-length", "IP length shorter than its headers")                       \
	X(BAD_TCP_OFFSET, "bad-tcp-offset", "TCP data offset below 20 bytes")                   \
	X(UNSUPPORTED_ETHERTYPE, "unsupported-ethertype", "not IPv4 or IPv6")                   \
	X(TOO_MANY_TAGS, "too-many-tags", "more VLAN tags than PD_KEY_MAX_TAGS")                \
	X(EXT_HEADERS, "ext-headers", "more IPv6 extension headers than PD_KEY_MAX_EXT")        \
	X(FRAGMENT, "fragment", "non-first fragment: no L4 header")                             \
	X(NOT_HTTP, "not-http", "not an HTTP request")                                          \
	X(NO_PARAM, "no-param", "HTTP request without the click parameter")                     \
	X(BUFFER, "buffer", "key buffer smaller than PD_KEY_BUF_LEN(len)")                      \
	X(BAD_TUNNEL, "bad-tunnel", "a tunnel header to open is malformed or its payload unknown") \
	X(TOO_DEEP, "too-deep", "tunnels nested deeper than PD_KEY_MAX_DECAP, or MPLS labels"    \
	  " beyond PD_KEY_MAX_LABELS")                                                          \
	X(SPLIT_REQUEST, "split-request", "the HTTP request target runs past the packet's end") \
	X(SEVERAL_REQUESTS, "several-requests", "the segment holds more than one HTTP request"  \
	  " (or a body whose end it does not tell)")

enum pd_key_reason {
#define PD_KEY_REASON_ENUM(id, name, msg) PD_KEY_##id,
	PD_KEY_REASONS(PD_KEY_REASON_ENUM)
#undef PD_KEY_REASON_ENUM
	PD_KEY_REASON_COUNT
};

/** What to extract. Fill with pd_key_config_init(), then adjust. */
struct pd_key_config {
	enum pd_key_mode mode;
	uint32_t ignore;          /**< packet mode: enum pd_key_ignore flags */
	enum pd_key_from from;    /**< packet mode: L3 (default) or L2 */
	enum pd_key_frag frag;    /**< flow mode: non-first fragments */
	enum pd_key_vlan vlan;    /**< every mode: VLAN IDs in the key or not */
	/** packet mode: compare at most this many bytes from `from` on (0: all). */
	uint32_t compare_bytes;
	/** click mode: when not empty, key on this query parameter's value instead of the
	 * method and target. NUL-terminated, at most PD_KEY_PARAM_MAX bytes. */
	char click_param[PD_KEY_PARAM_MAX + 1];
	/** what frames start with (default Ethernet) */
	enum pd_key_link link;
	/** every mode: tunnels to open (enum pd_key_decap flags; 0: none, the default) */
	uint32_t decap;
	/** UDP destination port of VXLAN (default PD_KEY_VXLAN_PORT) */
	uint16_t vxlan_port;
};

/** Defaults for @p mode: ignore TTL and checksum, from L3, fragments unparseable, no
 * tunnel opened. */
PD_API
void pd_key_config_init(struct pd_key_config *c, enum pd_key_mode mode);

/**
 * Extract the key of one frame.
 *
 * @param c        what to extract
 * @param frame    the frame, starting with its link header (c->link)
 * @param len      bytes available at @p frame (the captured length)
 * @param key      output buffer
 * @param cap      its size: at least PD_KEY_BUF_LEN(len), or the result is PD_KEY_BUFFER
 * @param key_len  set to the key's length when the result is PD_KEY_OK
 * @return PD_KEY_OK, or why there is no key. Never reads frame[len] or beyond, never
 *         writes key[cap] or beyond.
 */
PD_API
enum pd_key_reason pd_key_extract(const struct pd_key_config *c, const uint8_t *frame,
				  size_t len, uint8_t *key, size_t cap, size_t *key_len);

/** Where the parse found the IP header: what an action on the packet (a mark) needs. */
struct pd_key_ip {
	uint32_t offset;  /**< of the outermost IP header from the frame's start */
	uint8_t version;  /**< 4 or 6; 0 when the frame has no well-formed IP header */
	uint8_t encaps;   /**< the tunnels opened (enum pd_key_decap flags); 0: none */
	/** the tunnels opened in order, outermost first, 4 bits each from the lowest: bit
	 * index + 1 of enum pd_key_decap (pd_key_decap_name(n - 1)); 0 ends the list */
	uint16_t walk;
};

/**
 * pd_key_extract(), and where the IP header is, as the parse found it (for every result:
 * a frame without a key may still have one, and one with a key may have none, such as
 * an ARP frame keyed from L2). Costs two stores on top of pd_key_extract().
 */
PD_API
enum pd_key_reason pd_key_extract_ip(const struct pd_key_config *c, const uint8_t *frame,
				     size_t len, uint8_t *key, size_t cap, size_t *key_len,
				     struct pd_key_ip *ip);

/**
 * pd_key_extract_ip() of a frame captured in part: its first @p len bytes of @p wire_len
 * on the wire (a capture's snap length cut it; pcap's caplen and len). The flow and
 * source-IP keys need only headers. The packet key needs every byte it covers: a frame
 * cut before its packet's end is PD_KEY_TRUNCATED, unless c->compare_bytes of the key
 * are in hand (packets that differ past a cut would otherwise share a key: a copy's
 * verdict for a unique packet). So is a click whose request target the cut ends. The IP
 * length already tells an IP packet cut short; @p wire_len tells it of other frames and
 * of IPv6 jumbograms. @p wire_len <= @p len: pd_key_extract_ip().
 */
PD_API
enum pd_key_reason pd_key_extract_cut(const struct pd_key_config *c, const uint8_t *frame,
				      size_t len, size_t wire_len, uint8_t *key, size_t cap,
				      size_t *key_len, struct pd_key_ip *ip);

/** "flow", "srcip", "click", "packet"; NULL for an invalid value. */
PD_API
const char *pd_key_mode_name(enum pd_key_mode m);
/** Mode from its name; -1 when unknown. */
PD_API
int pd_key_mode_from_name(const char *name);
/** Short name of a reason ("truncated", "bad-ihl", ...), for counters and JSON. */
PD_API
const char *pd_key_reason_name(enum pd_key_reason r);
/** One-line explanation of a reason. */
PD_API
const char *pd_key_reason_message(enum pd_key_reason r);

#ifdef __cplusplus
}
#endif

#endif
