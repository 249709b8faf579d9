/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet keys (pd_key.h): a bounds-checked parse of one Ethernet frame, then the key of
 * the requested mode.
 *
 * Every read goes through an explicit check against `len` (the captured bytes) before it
 * happens; header fields only ever shrink the region that is trusted:
 *
 *     0          l3                 l4              end      claimed        len
 *     | L2, tags | IP header (+ext) | L4 header ... |        |  (IP length)  |
 *
 * `claimed` is where the IP length says the packet ends; `end` = min(claimed, len) is
 * where its bytes actually end. A header that needs bytes past `end` is BAD_LENGTH when
 * the frame holds the whole packet (the packet is shorter than its own headers, or the
 * bytes are Ethernet padding), TRUNCATED when the frame was cut before the IP length.
 * `cut` says that the bytes in hand stop before the packet does: the IP length says so,
 * or for a frame without one (not IP, an IPv6 jumbogram) the capture's original length
 * (pd_key_extract_cut). A key that would need the bytes cut is TRUNCATED: two packets
 * that differ only past a capture's snap length must not share a key.
 *
 * Policies (documented in docs/keys.md):
 * - flow: non-first fragments are PD_KEY_FRAGMENT, or with PD_FRAG_L3 keyed on addresses
 *   and protocol with ports 0. srcip and packet keys do not need L4 and take fragments.
 * - click: only TCP payloads that start with an HTTP method and a space give a key; other
 *   packets are PD_KEY_NOT_HTTP, requests without the click parameter PD_KEY_NO_PARAM.
 *   Callers count them and forward them (a handshake or an ACK is not a click).
 * - packet: non-IP frames are keyed on their ethertype and bytes; IP packets end at their
 *   IP length so that Ethernet padding and trailers never enter the key.
 * - decap (pd_key.h, enum pd_key_decap): each tunnel asked for is opened (decap.c finds
 *   its payload) and the payload parsed as a frame of its own, bounded by the outer
 *   packet's end, up to PD_KEY_MAX_DECAP deep; every mode keys the innermost packet. The
 *   IP header reported for a mark is the outermost.
 */
#include <string.h>

#include <pktdedup/pd_key.h>

#include "key_private.h"

#define ETH_HDR 14
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define IPPROTO_ICMP_ 1
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17
#define IPPROTO_ICMPV6_ 58
#define IPPROTO_SCTP_ 132

struct frame {
	const uint8_t *p;
	size_t len;      /* captured bytes */
	enum pd_key_link link;
	size_t l2hdr;    /* the link header's length: the first VLAN tag, if any, is here */
	size_t l3;       /* IP header, or first byte after the ethertype */
	uint16_t ethertype;
	unsigned version; /* 4, 6; 0 for non-IP */
	size_t claimed;   /* end of the IP packet by its length field */
	size_t end;       /* min(claimed, len) */
	int cut;          /* the packet goes on past len (see the top of the file) */
	uint8_t proto;    /* IPv4 protocol or IPv6 next header after the extensions */
	size_t l4;        /* L4 header (after IPv6 extensions) */
	int nonfirst;     /* non-first fragment: no L4 header here */
	int fragment;     /* any fragment (IPv4 MF or offset, an IPv6 fragment header) */
};

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Are bytes [off, off + n) inside the IP packet? If not, the packet either lies about
 * its headers (they run past its own IP length, which the frame holds: BAD_LENGTH) or
 * was cut short (the frame ends before the IP length: TRUNCATED). */
static inline enum pd_key_reason need(const struct frame *f, size_t off, size_t n)
{
	if (off + n <= f->end)
		return PD_KEY_OK;
	return f->cut ? PD_KEY_TRUNCATED : PD_KEY_BAD_LENGTH;
}

/* The link header and VLAN tags: sets l2hdr, l3 and ethertype. Raw IP has no ethertype:
 * the version nibble gives it. */
static enum pd_key_reason parse_l2(struct frame *f, enum pd_key_link link)
{
	size_t off, et_at;
	uint16_t et;

	f->link = link;
	switch (link) {
	case PD_LINK_RAW:
	case PD_LINK_NULL: /* its address family's values differ between systems: unused */
		f->l2hdr = f->l3 = link == PD_LINK_NULL ? 4 : 0;
		if (f->len < f->l3 + 1)
			return PD_KEY_TRUNCATED;
		f->ethertype = f->p[f->l3] >> 4 == 4 ? ETHERTYPE_IPV4 :
			       f->p[f->l3] >> 4 == 6 ? ETHERTYPE_IPV6 : 0;
		return PD_KEY_OK;
	case PD_LINK_SLL:
		off = 16, et_at = 14;
		break;
	case PD_LINK_SLL2:
		off = 20, et_at = 0;
		break;
	default:
		off = ETH_HDR, et_at = 12;
		break;
	}
	f->l2hdr = off;
	if (f->len < off)
		return PD_KEY_TRUNCATED;
	et = rd16(f->p + et_at);
	for (unsigned tags = 0; et == 0x8100 || et == 0x88a8 || et == 0x9100; tags++) {
		if (tags == PD_KEY_MAX_TAGS)
			return PD_KEY_TOO_MANY_TAGS;
		if (off + 4 > f->len)
			return PD_KEY_TRUNCATED;
		et = rd16(f->p + off + 2);
		off += 4;
	}
	f->l3 = off;
	f->ethertype = et;
	return PD_KEY_OK;
}

/* The fixed IP header: version, lengths, protocol (IPv4), fragment offset (IPv4). */
static enum pd_key_reason parse_ip(struct frame *f)
{
	const uint8_t *ip = f->p + f->l3;

	if (f->ethertype == ETHERTYPE_IPV4) {
		size_t ihl, tot;

		if (f->l3 + 20 > f->len)
			return PD_KEY_TRUNCATED;
		if (ip[0] >> 4 != 4)
			return PD_KEY_BAD_VERSION;
		ihl = (size_t)(ip[0] & 15) * 4;
		if (ihl < 20)
			return PD_KEY_BAD_IHL;
		if (f->l3 + ihl > f->len)
			return PD_KEY_TRUNCATED;
		tot = rd16(ip + 2);
		if (tot < ihl)
			return PD_KEY_BAD_LENGTH;
		f->version = 4;
		f->claimed = f->l3 + tot;
		f->cut = f->claimed > f->len;
		f->proto = ip[9];
		f->l4 = f->l3 + ihl;
		f->nonfirst = (rd16(ip + 6) & 0x1fff) != 0;
		f->fragment = (rd16(ip + 6) & 0x3fff) != 0;
	} else if (f->ethertype == ETHERTYPE_IPV6) {
		size_t plen;

		if (f->l3 + 40 > f->len)
			return PD_KEY_TRUNCATED;
		if (ip[0] >> 4 != 6)
			return PD_KEY_BAD_VERSION;
		plen = rd16(ip + 4);
		f->version = 6;
		/* Payload length 0 is a jumbogram (RFC 2675) or an offloaded capture: the
		 * packet then ends with the frame. */
		f->claimed = plen != 0 ? f->l3 + 40 + plen : f->len;
		if (plen != 0) /* else the capture's length says */
			f->cut = f->claimed > f->len;
		f->proto = ip[6];
		f->l4 = f->l3 + 40;
		f->nonfirst = 0;
	} else {
		return PD_KEY_UNSUPPORTED_ETHERTYPE;
	}
	f->end = f->claimed < f->len ? f->claimed : f->len;
	return PD_KEY_OK;
}

/* IPv6 extension headers up to the upper-layer header: sets proto, l4, nonfirst. */
static enum pd_key_reason parse_ext(struct frame *f)
{
	size_t p = f->l4;
	uint8_t nh = f->proto;
	enum pd_key_reason r;

	for (unsigned n = 0;; n++) {
		size_t hl;

		if (nh != 0 && nh != 43 && nh != 44 && nh != 51 && nh != 60)
			break;
		if (n == PD_KEY_MAX_EXT)
			return PD_KEY_EXT_HEADERS;
		r = need(f, p, 8);
		if (r != PD_KEY_OK)
			return r;
		if (nh == 44) { /* fragment: fixed 8 bytes, offset in bits 15..3 */
			hl = 8;
			f->fragment = 1;
			if (rd16(f->p + p + 2) >> 3 != 0) {
				f->nonfirst = 1;
				nh = f->p[p];
				p += hl;
				break; /* what follows is payload, not a header */
			}
		} else if (nh == 51) { /* AH: length in 4-octet units, minus 2 */
			hl = ((size_t)f->p[p + 1] + 2) * 4;
		} else { /* hop-by-hop, routing, destination options: 8-octet units, minus 1 */
			hl = ((size_t)f->p[p + 1] + 1) * 8;
		}
		nh = f->p[p];
		p += hl;
	}
	f->proto = nh;
	f->l4 = p;
	return need(f, p, 0); /* the last extension header ends inside the packet */
}

/* The source address (4 or 16 bytes) at src. */
static inline void put_src(const struct frame *f, uint8_t *src)
{
	const uint8_t *ip = f->p + f->l3;

	if (f->version == 4)
		memcpy(src, ip + 12, 4);
	else
		memcpy(src, ip + 8, 16);
}

/*
 * The flow key is written as 8-byte words, never byte by byte: the hash reads it back
 * in 8-byte words right away, and a load that spans several smaller stores cannot be
 * forwarded from the store buffer (it waits for them to retire). Byte stores here cost
 * about 9 ns per key in XXH3 (scripts/bench_keys.sh: 16.9 ns for key + hash against
 * 6.7 ns for the key alone). IPv4 keys are 16 bytes, not 40 with padded addresses: XXH3
 * takes its 9-16-byte path (key + hash 7.0 against 9.1-10.0 ns; the app forwards 10-15%
 * more packets a second, docs/speed.md).
 */
static inline uint64_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The flow key's addresses after its first 8 bytes, from the IP header at ip; returns the
 * key's length. IPv4's source and destination are one 8-byte copy, as in the header. */
static inline size_t put_flow_addrs(uint8_t *key, const uint8_t *ip, unsigned version)
{
	if (version == 4) {
		memcpy(key + 8, ip + 12, 8);
		return PD_KEY_FLOW4_LEN;
	}
	memcpy(key + 8, ip + 8, 16);
	memcpy(key + 24, ip + 24, 16);
	return PD_KEY_FLOW_LEN;
}

static inline size_t put_flow(uint8_t *key, const struct frame *f, const uint8_t ports[4])
{
	const uint8_t *ip = f->p + f->l3;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* one 8-byte store per word: a wider copy through a stack array would itself load
	 * across two stores */
	uint64_t w0 = (uint64_t)f->version | (uint64_t)f->proto << 8 | ld32(ports) << 32;

	memcpy(key, &w0, 8);
#else
	key[0] = (uint8_t)f->version;
	key[1] = f->proto;
	key[2] = key[3] = 0;
	memcpy(key + 4, ports, 4);
#endif
	return put_flow_addrs(key, ip, f->version);
}

static enum pd_key_reason key_flow(const struct pd_key_config *c, struct frame *f,
				   uint8_t *key, size_t *key_len)
{
	enum pd_key_reason r = PD_KEY_OK;
	uint8_t ports[4] = {0, 0, 0, 0}; /* as on the wire: source port, destination port */

	if (f->version == 6) {
		r = parse_ext(f);
		if (r != PD_KEY_OK)
			return r;
	}
	if (f->nonfirst) {
		if (c->frag != PD_FRAG_L3)
			return PD_KEY_FRAGMENT;
	} else {
		const uint8_t *l4 = f->p + f->l4;

		switch (f->proto) {
		case IPPROTO_TCP_:
			r = need(f, f->l4, 20);
			break;
		case IPPROTO_UDP_:
		case IPPROTO_ICMP_:
		case IPPROTO_ICMPV6_:
			r = need(f, f->l4, 8);
			break;
		case IPPROTO_SCTP_:
			r = need(f, f->l4, 12);
			break;
		default:
			break;
		}
		if (r != PD_KEY_OK)
			return r;
		switch (f->proto) {
		case IPPROTO_TCP_:
		case IPPROTO_UDP_:
		case IPPROTO_SCTP_:
			memcpy(ports, l4, 4);
			break;
		case IPPROTO_ICMP_:
		case IPPROTO_ICMPV6_:
			ports[0] = l4[0]; /* type */
			ports[1] = l4[1]; /* code */
			if ((f->proto == IPPROTO_ICMP_ && (l4[0] == 0 || l4[0] == 8)) ||
			    (f->proto == IPPROTO_ICMPV6_ && (l4[0] == 128 || l4[0] == 129))) {
				ports[2] = l4[4]; /* echo identifier */
				ports[3] = l4[5];
			}
			break;
		default:
			break;
		}
	}
	*key_len = put_flow(key, f, ports);
	return PD_KEY_OK;
}

static void put_srcip(const struct frame *f, uint8_t *key)
{
	memset(key, 0, PD_KEY_SRCIP_LEN);
	key[0] = (uint8_t)f->version;
	put_src(f, key + 4);
}

static const struct {
	const char *s;
	size_t n;
} http_methods[] = {
	{"GET ", 4},    {"POST ", 5},    {"HEAD ", 5},     {"PUT ", 4},   {"DELETE ", 7},
	{"OPTIONS ", 8}, {"PATCH ", 6}, {"CONNECT ", 8}, {"TRACE ", 6},
};

/* Value of query parameter `name` in target t[0..n): sets *v, *vn; 0 if absent. */
static int query_param(const uint8_t *t, size_t n, const char *name, const uint8_t **v,
		       size_t *vn)
{
	size_t nl = strlen(name);
	const uint8_t *q = memchr(t, '?', n);

	if (q == NULL)
		return 0;
	for (size_t i = (size_t)(q - t) + 1; i <= n;) {
		size_t j = i;

		while (j < n && t[j] != '&')
			j++;
		/* segment t[i..j): "name=value" or a bare "name" */
		if (j - i >= nl && memcmp(t + i, name, nl) == 0 &&
		    (j - i == nl || t[i + nl] == '=')) {
			*v = j - i == nl ? t + j : t + i + nl + 1;
			*vn = (size_t)(t + j - *v);
			return 1;
		}
		i = j + 1;
	}
	return 0;
}

/* Header @p name (lower case) in line l[0..n)? Its value, after the colon and blanks. */
static int header_is(const uint8_t *l, size_t n, const char *name, const uint8_t **v,
		     size_t *vn)
{
	size_t k = strlen(name), i;

	if (n <= k || l[k] != ':')
		return 0;
	for (i = 0; i < k; i++)
		if ((l[i] >= 'A' && l[i] <= 'Z' ? l[i] + 32 : l[i]) != (uint8_t)name[i])
			return 0;
	for (i = k + 1; i < n && (l[i] == ' ' || l[i] == '\t'); i++)
		;
	*v = l + i;
	*vn = n - i;
	return 1;
}

/*
 * How many requests a click's segment holds: its payload pl, `held` bytes of `n` (n >
 * held: a capture cut it; SIZE_MAX: cut, and how much it held not known). A request's
 * header block ends at its first empty line (CRLF or LF); its body is what its
 * Content-Length says (none without). 1: one request, its header block or body going on
 * past the segment or ending with it. 2: bytes past it (a second request, pipelined or
 * coalesced in a retransmission, whose click a key of the first would drop as a copy),
 * or past a header block whose body's end cannot be told (Transfer-Encoding, a bad
 * Content-Length). 0: the cut ends inside the header block, before what would tell.
 */
static int requests(const uint8_t *pl, size_t held, size_t n)
{
	size_t i = 0;
	uint64_t body = 0; /* past 2^40 it stops growing: it is past any segment */
	int first = 1, bad = 0;

	for (;;) {
		const uint8_t *nl = memchr(pl + i, '\n', held - i), *v;
		size_t end, len, vn;

		if (nl == NULL)
			return held < n ? 0 : 1; /* the header block goes on */
		end = (size_t)(nl - pl);
		len = end - i - (end > i && pl[end - 1] == '\r');
		if (!first && len == 0) {
			i = end + 1;
			break;
		}
		if (!first && header_is(pl + i, len, "transfer-encoding", &v, &vn)) {
			bad = 1;
		} else if (!first && header_is(pl + i, len, "content-length", &v, &vn)) {
			size_t d = 0;

			body = 0;
			for (; d < vn && v[d] >= '0' && v[d] <= '9'; d++)
				if (body < (1ull << 40))
					body = body * 10 + (uint64_t)(v[d] - '0');
			bad |= d == 0; /* no digits */
			while (d < vn && (v[d] == ' ' || v[d] == '\t'))
				d++;
			bad |= d != vn; /* not digits alone */
		}
		first = 0;
		i = end + 1;
	}
	if (i == n)
		return 1;
	return bad || n == SIZE_MAX || body < (uint64_t)(n - i) ? 2 : 1;
}

static enum pd_key_reason key_click(const struct pd_key_config *c, struct frame *f,
				    uint8_t *key, size_t *key_len)
{
	enum pd_key_reason r;
	const uint8_t *pl, *t;
	size_t doff, plen, m, tn = 0;
	int whole;

	if (f->version == 6) {
		r = parse_ext(f);
		if (r != PD_KEY_OK)
			return r;
	}
	if (f->nonfirst)
		return PD_KEY_FRAGMENT;
	if (f->proto != IPPROTO_TCP_)
		return PD_KEY_NOT_HTTP;
	r = need(f, f->l4, 20);
	if (r != PD_KEY_OK)
		return r;
	doff = (size_t)(f->p[f->l4 + 12] >> 4) * 4;
	if (doff < 20)
		return PD_KEY_BAD_TCP_OFFSET;
	r = need(f, f->l4, doff);
	if (r != PD_KEY_OK)
		return r;
	pl = f->p + f->l4 + doff;
	plen = f->end - (f->l4 + doff);
	for (m = 0; m < sizeof(http_methods) / sizeof(http_methods[0]); m++)
		if (plen >= http_methods[m].n && memcmp(pl, http_methods[m].s, http_methods[m].n) == 0)
			break;
	if (m == sizeof(http_methods) / sizeof(http_methods[0]))
		return PD_KEY_NOT_HTTP;
	t = pl + http_methods[m].n;
	while (tn < plen - http_methods[m].n && t[tn] != ' ' && t[tn] != '\r' && t[tn] != '\n')
		tn++;
	if (tn == 0)
		return PD_KEY_NOT_HTTP;
	/* A target that runs to the packet's end may go on past it: in the capture's cut
	 * bytes, or in the next TCP segment. Its key (or the parameter's value, unless an
	 * '&' ends it) could then stand for other clicks: no key. */
	whole = tn < plen - http_methods[m].n;
	/* one request's click in the segment, or the key would drop the others with it;
	 * the payload's length is its IP packet's (SIZE_MAX: cut, the length not told) */
	switch (requests(pl, plen, !f->cut ? plen : f->claimed > f->len ?
				   f->claimed - (f->l4 + doff) : SIZE_MAX)) {
	case 0:
		return PD_KEY_TRUNCATED;
	case 2:
		return PD_KEY_SEVERAL_REQUESTS;
	default:
		break;
	}
	put_srcip(f, key);
	if (c->click_param[0] != '\0') {
		const uint8_t *v;
		size_t vn;

		if (!query_param(t, tn, c->click_param, &v, &vn))
			return PD_KEY_NO_PARAM;
		if (!whole && v + vn == t + tn)
			return f->cut ? PD_KEY_TRUNCATED : PD_KEY_SPLIT_REQUEST;
		memcpy(key + PD_KEY_SRCIP_LEN, v, vn);
		*key_len = PD_KEY_SRCIP_LEN + vn;
	} else {
		if (!whole)
			return f->cut ? PD_KEY_TRUNCATED : PD_KEY_SPLIT_REQUEST;
		memcpy(key + PD_KEY_SRCIP_LEN, pl, http_methods[m].n + tn);
		*key_len = PD_KEY_SRCIP_LEN + http_methods[m].n + tn;
	}
	return PD_KEY_OK;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
typedef uint64_t pd_u64x2 __attribute__((vector_size(16)));

/* The mask of the IP header's first 16 bytes that zeroes its ignored fields (LE lanes). */
static inline pd_u64x2 header_mask(unsigned version, uint32_t ignore)
{
	uint64_t lo = ~0ULL, hi = ~0ULL;

	if (version == 4) {
		if (ignore & PD_IGNORE_DSCP)
			lo &= ~(0xffULL << 8); /* byte 1: DSCP, ECN */
		if (ignore & PD_IGNORE_IPID)
			lo &= ~(0xffffULL << 32); /* bytes 4-5: identification */
		if (ignore & PD_IGNORE_TTL)
			hi &= ~0xffULL; /* byte 8: TTL */
		if (ignore & PD_IGNORE_CHECKSUM)
			hi &= ~(0xffffULL << 16); /* bytes 10-11: header checksum */
	} else {
		if (ignore & PD_IGNORE_DSCP)
			lo &= ~(0x0fULL | 0xf0ULL << 8); /* traffic class: bits 4..11 */
		if (ignore & PD_IGNORE_TTL)
			lo &= ~(0xffULL << 56); /* byte 7: hop limit */
	}
	return (pd_u64x2){lo, hi};
}

/* Zero the ignored fields of the IP header at h (bytes 0..15). */
static inline void mask_header(uint8_t *h, unsigned version, uint32_t ignore)
{
	pd_u64x2 v;

	memcpy(&v, h, 16);
	v &= header_mask(version, ignore);
	memcpy(h, &v, 16);
}

/*
 * The n bytes of the IP packet at ip into key with the header's ignored fields zeroed,
 * for 20 <= n <= 64 (a short packet: a 64-byte frame's IP packet is 50 bytes): 16-byte
 * copies, the last ones overlapping, and the header's first 16 bytes masked on their
 * way, written last so that the hash's load of them finds one store to forward from.
 * Against libc's memcpy (11 instructions a packet) and a masking pass after it: 10.0
 * fewer instructions a packet, 782.7 against 792.7 with --key packet --filter qhtlru
 * --memory 64M (scripts/bench_instr.sh 10, 2026-12-02, the 2-core Zen 3 EPYC).
 */
static inline void put_short_packet(uint8_t *key, const uint8_t *ip, size_t n,
				    unsigned version, uint32_t ignore)
{
	pd_u64x2 v;

	memcpy(key + n - 16, ip + n - 16, 16);
	if (n > 32) {
		memcpy(key + n - 32, ip + n - 32, 16);
		memcpy(key + 16, ip + 16, 16);
	}
	memcpy(&v, ip, 16);
	v &= header_mask(version, ignore);
	memcpy(key, &v, 16);
}
#define PD_SHORT_PACKET 64
#else
static inline void mask_header(uint8_t *h, unsigned version, uint32_t ignore)
{
	if (version == 4) {
		if (ignore & PD_IGNORE_DSCP)
			h[1] = 0;
		if (ignore & PD_IGNORE_IPID)
			h[4] = h[5] = 0;
		if (ignore & PD_IGNORE_TTL)
			h[8] = 0;
		if (ignore & PD_IGNORE_CHECKSUM)
			h[10] = h[11] = 0;
	} else {
		if (ignore & PD_IGNORE_DSCP) {
			h[0] &= 0xf0;
			h[1] &= 0x0f;
		}
		if (ignore & PD_IGNORE_TTL)
			h[7] = 0;
	}
}
#define PD_SHORT_PACKET 0 /* put_short_packet: none */
static inline void put_short_packet(uint8_t *key, const uint8_t *ip, size_t n,
				    unsigned version, uint32_t ignore)
{
	memcpy(key, ip, n);
	mask_header(key, version, ignore);
}
#endif

/* Tags are compared in `packet` keys from L2 unless VLANs are ignored. */
static inline int tags_in_bytes(const struct pd_key_config *c)
{
	return c->vlan == PD_VLAN_SEPARATE ||
	       (c->vlan == PD_VLAN_DEFAULT && !(c->ignore & PD_IGNORE_VLAN));
}

/* The VLAN IDs of the tag stack, 2 bytes each, outer first; returns the bytes written. */
static size_t put_vids(const struct frame *f, uint8_t *out)
{
	size_t n = 0;

	for (size_t off = f->l2hdr; off < f->l3; off += 4, n += 2) {
		uint16_t vid = rd16(f->p + off) & 0x0fff; /* TCI of the tag whose TPID is at off-2 */

		out[n] = (uint8_t)(vid >> 8);
		out[n + 1] = (uint8_t)vid;
	}
	return n;
}

/* Zero the TCP sequence, acknowledgement and checksum of the segment at l4 (copied to
 * key offset at), when its fixed header lies inside the packet. */
static void mask_tcp_seq(const struct frame *f, uint8_t *at)
{
	if (f->proto != IPPROTO_TCP_ || f->nonfirst || need(f, f->l4, 20) != PD_KEY_OK)
		return;
	memset(at + 4, 0, 8);  /* sequence, acknowledgement */
	memset(at + 16, 0, 2); /* checksum */
}

static enum pd_key_reason key_packet(const struct pd_key_config *c, struct frame *f,
				     enum pd_key_reason ip, uint8_t *key, size_t *key_len)
{
	size_t k = 0, start;
	uint8_t *h;

	if (ip != PD_KEY_OK && ip != PD_KEY_UNSUPPORTED_ETHERTYPE)
		return ip; /* before any byte: a tunnel's payload may end inside its L2 header */
	if (c->from == PD_FROM_L2 && f->link != PD_LINK_ETHERNET) {
		/* the link header as captured, tags and protocol included */
		memcpy(key, f->p, f->l3);
		k = f->l3;
	} else if (c->from == PD_FROM_L2) {
		/* MACs, tags (unless ignored), ethertype */
		size_t tags = f->l3 - ETH_HDR;

		if (c->ignore & PD_IGNORE_MAC)
			memset(key, 0, 12);
		else
			memcpy(key, f->p, 12);
		k = 12;
		if (tags_in_bytes(c)) {
			memcpy(key + k, f->p + 12, tags);
			k += tags;
		}
		key[k] = f->p[f->l3 - 2];
		key[k + 1] = f->p[f->l3 - 1];
		k += 2;
	}
	if (ip == PD_KEY_UNSUPPORTED_ETHERTYPE) {
		/* From L3 the key is the ethertype and the bytes after it, which is where
		 * the frame has them: one copy, so that the hash's loads are forwarded from
		 * the copy's stores (a 2-byte store before it costs more than the hash). */
		if (c->from != PD_FROM_L2 && f->l3 >= 2 && rd16(f->p + f->l3 - 2) == f->ethertype) {
			memcpy(key, f->p + f->l3 - 2, f->len - f->l3 + 2);
			k = f->len - f->l3 + 2;
		} else if (c->from != PD_FROM_L2) { /* SLL2, raw IP: not before the payload */
			key[0] = (uint8_t)(f->ethertype >> 8);
			key[1] = (uint8_t)f->ethertype;
			memcpy(key + 2, f->p + f->l3, f->len - f->l3);
			k = f->len - f->l3 + 2;
		} else {
			memcpy(key + k, f->p + f->l3, f->len - f->l3);
			k += f->len - f->l3;
		}
	} else {
		if (f->version == 6 && (c->from == PD_FROM_L4 || (c->ignore & PD_IGNORE_TCP_SEQ))) {
			enum pd_key_reason r = parse_ext(f);

			if (r != PD_KEY_OK)
				return r;
		}
		start = c->from == PD_FROM_L4 ? f->l4 : f->l3;
		h = key + k;
		memcpy(h, f->p + start, f->end - start);
		k += f->end - start;
		/* The fixed header lies inside [l3, end): parse_ip checked 20 (IPv4) or 40
		 * (IPv6) bytes against len, and the IP length is at least the header length.
		 * Every masked field is in the first 16 bytes; they are rewritten with one
		 * 16-byte store so that the hash's 16-byte loads are forwarded from a single
		 * store (byte stores here cost about 5 ns per key in XXH3). */
		if (start == f->l3)
			mask_header(h, f->version, c->ignore);
		if (c->ignore & PD_IGNORE_TCP_SEQ) {
			/* the fields to zero past a cut: the whole packet's key would have
			 * them zeroed, this one cannot */
			if (f->cut && f->proto == IPPROTO_TCP_ && !f->nonfirst &&
			    f->l4 + 20 > f->end)
				return PD_KEY_TRUNCATED;
			mask_tcp_seq(f, h + (f->l4 - start));
		}
	}
	/* The key ends where the bytes in hand do: of a packet cut short it would stand for
	 * every packet that differs only past the cut, unless the bytes compared end before */
	if (f->cut && (c->compare_bytes == 0 || k < c->compare_bytes))
		return PD_KEY_TRUNCATED;
	if (c->compare_bytes != 0 && k > c->compare_bytes)
		k = c->compare_bytes;
	if (c->vlan == PD_VLAN_SEPARATE && c->from != PD_FROM_L2)
		k += put_vids(f, key + k);
	*key_len = k;
	return PD_KEY_OK;
}

/*
 * The link layer of the fast paths below: Ethernet with no VLAN tag or one, unless the
 * VLAN IDs are part of the key. Sets *l3 and returns the ethertype, or 0 when the frame
 * is not for a fast path (it is then shorter than a tag and an IPv4 header).
 */
static inline uint16_t fast_l2(const struct pd_key_config *c, const uint8_t *p, size_t len,
			       size_t *l3)
{
	uint16_t et;
	size_t tag;

	*l3 = ETH_HDR;
	if (len < ETH_HDR + 4 + 20)
		return 0;
	et = rd16(p + 12);
	tag = et == 0x8100 || et == 0x88a8 || et == 0x9100;
	if (tag && c->vlan == PD_VLAN_SEPARATE)
		return 0;
	/* the tag's 4 bytes added, not branched on (nothing branches on the tag where
	 * --vlan separate is ruled out first, as extract_flow does): a branch let the
	 * compiler keep each of the fast path's offsets twice, one for each case, in
	 * registers a call preserves */
	*l3 += 4 * tag;
	return rd16(p + 12 + 4 * tag);
}

/* With tunnels to open: is UDP to port dport one (then the general parse opens it)? */
static inline int tunnel_port(const struct pd_key_config *c, uint16_t dport)
{
	return (dport == c->vxlan_port && (c->decap & PD_DECAP_VXLAN)) ||
	       (dport == PD_KEY_GENEVE_PORT && (c->decap & PD_DECAP_GENEVE)) ||
	       (dport == PD_KEY_GTPU_PORT && (c->decap & PD_DECAP_GTPU));
}

/*
 * The flow key of the most common frames, without the general parse: Ethernet with no
 * VLAN tag or one (unless the VLAN IDs are part of the key); IPv4 without options and
 * not a non-first fragment, or IPv6 without extension headers; TCP or UDP with its
 * header inside the packet. These are the checks that parse_l2, parse_ip, key_flow and
 * need() make for such frames, and the key put_flow writes. Returns the key's length
 * with the key written, 0 for every other frame (the general parse then decides). The
 * rest of the configuration does not matter here: the fragment policies concern
 * non-first fragments only. test_keys compares this with the general parse on every
 * frame it extracts, prefixes and corrupted copies included.
 */
static inline __attribute__((always_inline)) size_t
flow_fast(const struct pd_key_config *c, const uint8_t *p, size_t len, uint8_t *key,
	  struct pd_key_ip *at, const int decap)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	size_t l3, l4, end;
	const uint8_t *ip;
	uint64_t w0;
	const uint16_t et = fast_l2(c, p, len, &l3);
	uint8_t proto;

	ip = p + l3;
	if (et == ETHERTYPE_IPV4) {
		if (ip[0] != 0x45 || (rd16(ip + 6) & 0x1fff) != 0)
			return 0;
		proto = ip[9];
		l4 = l3 + 20;
		end = l3 + (size_t)rd16(ip + 2);
		w0 = 4;
	} else if (et == ETHERTYPE_IPV6 && len >= l3 + 40 && ip[0] >> 4 == 6) {
		size_t plen = rd16(ip + 4);

		proto = ip[6];
		l4 = l3 + 40;
		end = plen != 0 ? l4 + plen : len; /* 0: a jumbogram, to the frame's end */
		w0 = 6;
	} else {
		return 0;
	}
	if (end > len)
		end = len;
	if (!(proto == IPPROTO_UDP_ && l4 + 8 <= end) && !(proto == IPPROTO_TCP_ && l4 + 20 <= end))
		return 0;
	if (decap && proto == IPPROTO_UDP_ && tunnel_port(c, rd16(p + l4 + 2)))
		return 0;
	w0 |= (uint64_t)proto << 8 | ld32(p + l4) << 32;
	*at = (struct pd_key_ip){(uint32_t)l3, (uint8_t)w0, 0, 0};
	/* 8- and 16-byte stores, as put_flow (a copy through an array would load across
	 * them) */
	memcpy(key, &w0, 8);
	return put_flow_addrs(key, ip, (unsigned)(w0 & 0xff));
#else
	(void)c;
	(void)p;
	(void)len;
	(void)key;
	(void)at;
	(void)decap;
	return 0;
#endif
}

/*
 * The packet key from L3 of the most common frames, without the general parse: Ethernet
 * with no VLAN tag or one (unless the VLAN IDs are part of the key), IPv4 without options
 * or IPv6, and the default TCP handling (sequence numbers compared). The key is the IP
 * packet up to its IP length with the header's ignored fields zeroed: what key_packet
 * writes for such frames after parse_l2 and parse_ip. Returns the key's length with the
 * key written, 0 for every other frame. test_keys compares it with the general parse as
 * it does flow_fast. 64-byte UDP/IPv4 frames (taskset -c 1 build/tests/bench_keys
 * 20000000 5, 3 runs alternating with the build before): the key 12.1-15.5 ns through the
 * general parse, 7.7 here; with its hash, pipelined as the worker, 16.6-16.7 -> 12.1.
 */
static inline __attribute__((always_inline)) size_t
packet_fast(const struct pd_key_config *c, const uint8_t *p, size_t len, uint8_t *key,
	    struct pd_key_ip *at, const int decap)
{
	size_t l3, end;
	const uint8_t *ip;
	unsigned version;
	const uint16_t et = fast_l2(c, p, len, &l3);

	ip = p + l3;
	if (et == ETHERTYPE_IPV4 && ip[0] == 0x45 && rd16(ip + 2) >= 20) {
		end = l3 + rd16(ip + 2);
		version = 4;
	} else if (et == ETHERTYPE_IPV6 && len >= l3 + 40 && ip[0] >> 4 == 6) {
		size_t plen = rd16(ip + 4);

		end = plen != 0 ? l3 + 40 + plen : len; /* 0: a jumbogram, to the frame's end */
		version = 6;
	} else {
		return 0;
	}
	if (end > len) /* cut short: the general parse says whether the key may be had */
		return 0;
	if (decap) { /* GRE, UDP to a tunnel's port, IPv6 extension headers: general */
		const uint8_t proto = version == 4 ? ip[9] : ip[6];
		const size_t l4 = l3 + (version == 4 ? 20 : 40);

		if (proto != IPPROTO_TCP_ && proto != IPPROTO_ICMP_ && proto != IPPROTO_ICMPV6_ &&
		    (proto != IPPROTO_UDP_ || l4 + 8 > end || tunnel_port(c, rd16(p + l4 + 2))))
			return 0;
	}
	*at = (struct pd_key_ip){(uint32_t)l3, (uint8_t)version, 0, 0};
	if (end - l3 <= PD_SHORT_PACKET) { /* 20 at least: an IPv4 header */
		put_short_packet(key, ip, end - l3, version, c->ignore);
	} else {
		memcpy(key, ip, end - l3);
		mask_header(key, version, c->ignore);
	}
	if (c->compare_bytes != 0 && end - l3 > c->compare_bytes)
		return c->compare_bytes;
	return end - l3;
}

static enum pd_key_reason general(const struct pd_key_config *c, const uint8_t *frame,
				  size_t len, int cut, uint8_t *key, size_t cap, size_t *key_len,
				  struct pd_key_ip *ip);

/* The entry points, inlined into each: a call from one exported function to the other
 * cost 0.6 ns a flow key (bench_keys, 3.9 -> 4.5 ns), the shared library's entry points
 * being interposable. @p cut (a constant but in pd_key_extract_cut): the frame is the
 * start of a longer packet. */
static inline __attribute__((always_inline)) enum pd_key_reason
extract(const struct pd_key_config *c, const uint8_t *frame, size_t len, int cut,
	uint8_t *key, size_t cap, size_t *key_len, struct pd_key_ip *ip)
{
	size_t n;

	if (cap < PD_KEY_BUF_LEN(len)) {
		*ip = (struct pd_key_ip){0, 0, 0, 0};
		return PD_KEY_BUFFER;
	}
	/* packet_fast cannot tell a jumbogram cut short: every packet key of a cut frame
	 * (the flow key's headers are either in hand or said missing alike) */
	if (cut && c->mode == PD_KEY_PACKET)
		return general(c, frame, len, cut, key, cap, key_len, ip);
	/* each fast path twice, with and without --decap's check (a constant): inline, the
	 * check's load and branch cost the packet key 0.27 ns without --decap (bench_keys) */
	if (c->mode == PD_KEY_FLOW && c->link == PD_LINK_ETHERNET)
		n = c->decap == 0 ? flow_fast(c, frame, len, key, ip, 0) :
				    flow_fast(c, frame, len, key, ip, 1);
	else if (c->mode == PD_KEY_PACKET && c->link == PD_LINK_ETHERNET &&
		 c->from == PD_FROM_L3 && !(c->ignore & PD_IGNORE_TCP_SEQ))
		n = c->decap == 0 ? packet_fast(c, frame, len, key, ip, 0) :
				    packet_fast(c, frame, len, key, ip, 1);
	else
		return general(c, frame, len, cut, key, cap, key_len, ip);
	if (n == 0)
		return general(c, frame, len, cut, key, cap, key_len, ip);
	*key_len = n;
	return PD_KEY_OK;
}

/*
 * pd_key_extract_ip and pd_key_extract send the flow key to a function of its own whose
 * body is the fast path (extract_flow; a frame it does not take goes to the general
 * parse once), and every other mode and configuration to extract() out of line. With the
 * general parse's call and four copies of the fast paths in one body, each key saved and
 * restored six registers. The flow key of a
 * 64-byte UDP/IPv4 frame, counted by callgrind in the application: 87 instructions
 * instead of 93, 5 of them the test of the mode and the jump, which the packet key pays
 * too (scripts/bench_instr.sh; docs/speed.md, "Instructions a packet").
 */
static __attribute__((noinline)) enum pd_key_reason
extract_rest(const struct pd_key_config *c, const uint8_t *frame, size_t len, uint8_t *key,
	     size_t cap, size_t *key_len, struct pd_key_ip *ip)
{
	return extract(c, frame, len, 0, key, cap, key_len, ip);
}

/* A frame that flow_fast did not take, its configuration one it may take: the general
 * parse, as extract() would call it after flow_fast (without trying flow_fast again). */
static __attribute__((noinline)) enum pd_key_reason
flow_general(const struct pd_key_config *c, const uint8_t *frame, size_t len, uint8_t *key,
	     size_t cap, size_t *key_len, struct pd_key_ip *ip)
{
	return general(c, frame, len, 0, key, cap, key_len, ip);
}

/* A flow key (c->mode PD_KEY_FLOW): flow_fast without --decap's check, else extract(). */
static __attribute__((noinline)) enum pd_key_reason
extract_flow(const struct pd_key_config *c, const uint8_t *frame, size_t len, uint8_t *key,
	     size_t cap, size_t *key_len, struct pd_key_ip *ip)
{
	size_t n;

	if (c->link != PD_LINK_ETHERNET || c->decap != 0 || c->vlan == PD_VLAN_SEPARATE ||
	    cap < PD_KEY_BUF_LEN(len))
		return extract_rest(c, frame, len, key, cap, key_len, ip);
	n = flow_fast(c, frame, len, key, ip, 0);
	if (n == 0)
		return flow_general(c, frame, len, key, cap, key_len, ip);
	*key_len = n;
	return PD_KEY_OK;
}

enum pd_key_reason pd_key_extract_ip(const struct pd_key_config *c, const uint8_t *frame,
				     size_t len, uint8_t *key, size_t cap, size_t *key_len,
				     struct pd_key_ip *ip)
{
	if (c->mode == PD_KEY_FLOW)
		return extract_flow(c, frame, len, key, cap, key_len, ip);
	return extract_rest(c, frame, len, key, cap, key_len, ip);
}

enum pd_key_reason pd_key_extract(const struct pd_key_config *c, const uint8_t *frame,
				  size_t len, uint8_t *key, size_t cap, size_t *key_len)
{
	struct pd_key_ip ip;

	if (c->mode == PD_KEY_FLOW)
		return extract_flow(c, frame, len, key, cap, key_len, &ip);
	return extract_rest(c, frame, len, key, cap, key_len, &ip);
}

enum pd_key_reason pd_key_extract_cut(const struct pd_key_config *c, const uint8_t *frame,
				      size_t len, size_t wire_len, uint8_t *key, size_t cap,
				      size_t *key_len, struct pd_key_ip *ip)
{
	return extract(c, frame, len, wire_len > len, key, cap, key_len, ip);
}

enum pd_key_reason pd_key_extract_general(const struct pd_key_config *c, const uint8_t *frame,
					  size_t len, uint8_t *key, size_t cap, size_t *key_len)
{
	struct pd_key_ip ip;

	return general(c, frame, len, 0, key, cap, key_len, &ip);
}

enum pd_key_reason pd_key_extract_general_ip(const struct pd_key_config *c,
					     const uint8_t *frame, size_t len, uint8_t *key,
					     size_t cap, size_t *key_len, struct pd_key_ip *ip)
{
	return general(c, frame, len, 0, key, cap, key_len, ip);
}

enum pd_key_reason pd_key_extract_general_cut(const struct pd_key_config *c,
					      const uint8_t *frame, size_t len, size_t wire_len,
					      uint8_t *key, size_t cap, size_t *key_len,
					      struct pd_key_ip *ip)
{
	return general(c, frame, len, wire_len > len, key, cap, key_len, ip);
}

/* What need() says of a header that runs past the packet's end. */
static inline enum pd_key_reason cut_reason(const struct frame *f)
{
	return f->cut ? PD_KEY_TRUNCATED : PD_KEY_BAD_LENGTH;
}

/* One more tunnel opened, of flag kind: in ip's list; PD_KEY_TOO_DEEP past the last. */
static inline enum pd_key_reason walked(struct pd_key_ip *ip, unsigned kind)
{
	unsigned n = 0;

	while (n < PD_KEY_MAX_DECAP && ((ip->walk >> (4 * n)) & 0xf) != 0)
		n++;
	if (n == PD_KEY_MAX_DECAP)
		return PD_KEY_TOO_DEEP;
	ip->walk |= (uint16_t)((__builtin_ctz(kind) + 1) << (4 * n));
	ip->encaps |= (uint8_t)kind;
	return PD_KEY_OK;
}

/*
 * Open the tunnels c->decap asks for, innermost last: while the packet parsed (its IP
 * header's result r) carries one, the frame becomes the tunnel's payload, bounded by the
 * packet's end, and is parsed again. Returns the innermost parse's result, or why a
 * tunnel could not be opened; ip gets the tunnels opened, and the outermost IP header
 * when the outer frame had none (MPLS).
 */
static enum pd_key_reason decap(const struct pd_key_config *c, struct frame *f,
				enum pd_key_reason r, struct pd_key_ip *ip)
{
	size_t base = 0; /* f->p's offset in the frame */

	for (;;) {
		struct pd_tunnel t;
		enum pd_key_reason d;

		if (r == PD_KEY_OK) {
			/* An extension chain that fails: the key's parse says why where it
			 * needs L4. Cut short, what follows may be a tunnel: no key of the
			 * outer packet then (as pd_decap_l4 for a UDP header cut short). */
			if (f->version == 6 && (d = parse_ext(f)) != PD_KEY_OK)
				return d == PD_KEY_TRUNCATED ? d : r;
			if (f->fragment)
				return r; /* a fragment's payload is incomplete: keyed as is */
			d = pd_decap_l4(c, f->p, f->l4, f->end, f->proto, cut_reason(f), &t);
		} else if (r == PD_KEY_UNSUPPORTED_ETHERTYPE && (c->decap & PD_DECAP_MPLS) &&
			   (f->ethertype == 0x8847 || f->ethertype == 0x8848)) {
			/* no IP packet around it: the frame bounds the stack */
			f->end = f->len;
			f->claimed = f->len;
			t = (struct pd_tunnel){f->l3, f->ethertype, PD_DECAP_MPLS};
			d = PD_KEY_OK;
		} else {
			return r;
		}
		if (d != PD_KEY_OK || t.kind == 0)
			return d;
		if (walked(ip, t.kind) != PD_KEY_OK)
			return PD_KEY_TOO_DEEP;
		if (t.ethertype == 0x8847 || t.ethertype == 0x8848) { /* MPLS in GRE */
			if (t.kind != PD_DECAP_MPLS && walked(ip, PD_DECAP_MPLS) != PD_KEY_OK)
				return PD_KEY_TOO_DEEP;
			d = pd_decap_mpls(f->p, t.inner, f->end, cut_reason(f), &t);
			if (d != PD_KEY_OK)
				return d;
		}
		base += t.inner;
		f->len = f->end - t.inner;
		f->p += t.inner;
		f->version = 0;
		f->nonfirst = 0;
		f->fragment = 0;
		r = parse_l2(f, t.ethertype == 0x6558 ? PD_LINK_ETHERNET : PD_LINK_RAW);
		if (r != PD_KEY_OK)
			return r;
		r = parse_ip(f);
		if (r == PD_KEY_OK && ip->version == 0) {
			ip->offset = (uint32_t)(base + f->l3);
			ip->version = (uint8_t)f->version;
		}
	}
}

/* The parse of every frame (the fast paths' fallback) */
static enum pd_key_reason general(const struct pd_key_config *c, const uint8_t *frame,
				  size_t len, int cut, uint8_t *key, size_t cap, size_t *key_len,
				  struct pd_key_ip *ip)
{
	struct frame f;
	enum pd_key_reason r;

	*ip = (struct pd_key_ip){0, 0, 0, 0};
	if (cap < PD_KEY_BUF_LEN(len))
		return PD_KEY_BUFFER;
	f.p = frame;
	f.len = len;
	f.cut = cut;
	f.version = 0;
	f.nonfirst = 0;
	f.fragment = 0;
	r = parse_l2(&f, c->link);
	if (r != PD_KEY_OK)
		return r;
	r = parse_ip(&f);
	if (r == PD_KEY_OK) {
		ip->offset = (uint32_t)f.l3;
		ip->version = (uint8_t)f.version;
	}
	if (c->decap != 0)
		r = decap(c, &f, r, ip);
	switch (c->mode) {
	case PD_KEY_FLOW:
		if (r == PD_KEY_OK)
			r = key_flow(c, &f, key, key_len);
		break;
	case PD_KEY_SRCIP:
		if (r != PD_KEY_OK)
			return r;
		put_srcip(&f, key);
		*key_len = PD_KEY_SRCIP_LEN;
		break;
	case PD_KEY_CLICK:
		if (r == PD_KEY_OK)
			r = key_click(c, &f, key, key_len);
		break;
	case PD_KEY_PACKET:
		return key_packet(c, &f, r, key, key_len);
	default:
		return PD_KEY_UNSUPPORTED_ETHERTYPE;
	}
	if (r == PD_KEY_OK && c->vlan == PD_VLAN_SEPARATE)
		*key_len += put_vids(&f, key + *key_len);
	return r;
}

void pd_key_config_init(struct pd_key_config *c, enum pd_key_mode mode)
{
	memset(c, 0, sizeof(*c));
	c->mode = mode;
	c->vxlan_port = PD_KEY_VXLAN_PORT;
	c->ignore = PD_IGNORE_DEFAULT;
	c->from = PD_FROM_L3;
	c->frag = PD_FRAG_UNPARSEABLE;
}

static const char *const mode_names[PD_KEY_MODE_COUNT] = {"flow", "srcip", "click", "packet"};

const char *pd_key_mode_name(enum pd_key_mode m)
{
	return (unsigned)m < PD_KEY_MODE_COUNT ? mode_names[m] : NULL;
}

int pd_key_mode_from_name(const char *name)
{
	for (unsigned i = 0; i < PD_KEY_MODE_COUNT; i++)
		if (strcmp(name, mode_names[i]) == 0)
			return (int)i;
	return -1;
}

static const char *const reason_names[PD_KEY_REASON_COUNT] = {
#define PD_KEY_REASON_NAME(id, name, msg) name,
	PD_KEY_REASONS(PD_KEY_REASON_NAME)
#undef PD_KEY_REASON_NAME
};

static const char *const reason_messages[PD_KEY_REASON_COUNT] = {
#define PD_KEY_REASON_MSG(id, name, msg) msg,
	PD_KEY_REASONS(PD_KEY_REASON_MSG)
#undef PD_KEY_REASON_MSG
};

const char *pd_key_reason_name(enum pd_key_reason r)
{
	return (unsigned)r < PD_KEY_REASON_COUNT ? reason_names[r] : "invalid";
}

const char *pd_key_reason_message(enum pd_key_reason r)
{
	return (unsigned)r < PD_KEY_REASON_COUNT ? reason_messages[r] : "invalid reason";
}
