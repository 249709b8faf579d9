/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapng input (replay_in_formats.h): a block follower over the bytes libpcap reads. It
 * queues every non-packet block verbatim and, for each packet block, its interface, raw
 * timestamp and options, leaving out the packet's data (libpcap has it). libpcap reads a
 * whole block before it returns its packet, so the queue is always ahead of libpcap's
 * packets and holds no more than its read-ahead (one stdio buffer).
 *
 * Interfaces of several link types and snap lengths: libpcap stops at an interface whose
 * link type or snap length differs from the first's ("an interface has a type 101
 * different from the type of the first interface"), so that a capture of eth0 and a
 * tunnel, or two captures merged (mergecap) with different -s, could not be read past it.
 * The follower keeps each interface's own link type and snap length and, in the bytes
 * libpcap is about to read, writes every interface block's as Ethernet with no limit (0),
 * so libpcap reads them all alike; each frame then carries its interface's link type
 * (struct rio_frame's dlt). A simple packet block's length is written as its block's data
 * (libpcap would cut it at the first interface's snap length, now none) and the frame's
 * lengths are set back from the block. Each patch is a constant or comes from the block's
 * first 8 bytes, so a block split across two reads is patched byte by byte all the same.
 * The outputs get the blocks as they were.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/link.h"
#include "replay_in_formats.h"

#define NG_SHB 0x0A0D0D0Au
#define NG_IDB 1u
#define NG_PB 2u
#define NG_SPB 3u
#define NG_EPB 6u
#define NG_CUSTOM_NOCOPY 0x40000BADu /* "must not be copied" (pcapng spec) */
#define NG_MAX_BLOCK (1u << 28)      /* longer: not a block we can follow */
/* Non-packet blocks kept between two packets (to be written before the second): past
 * this, blocks other than section and interface headers are left out of the outputs,
 * counted and reported, so that memory stays bounded whatever comes between packets
 * (kept bytes are held up to three times: queue, hand-out, batch arena). Section and
 * interface headers are needed to read the packets after them: past NG_MAX_HEADERS of
 * those between two packets the input is refused as damaged. */
#define NG_MAX_META (64u << 20)
#define NG_MAX_HEADERS (256u << 20)
#define NG_LINKTYPE_ETHERNET 1u
#define NG_MAX_SNAPLEN 262144u /* libpcap's for every link type the keys take */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

/* An item of the follower's queue: a non-packet block (len bytes follow), or a packet's
 * block fields (its options, len bytes, follow). */
struct item {
	uint32_t packet;
	uint32_t len;
	uint32_t iface, ts_hi, ts_lo;
	int32_t dlt;          /* its interface's link type (libpcap's DLT_), -1: no interface */
	uint32_t spb_caplen, spb_len; /* a simple packet block's lengths, from the block */
	uint8_t spb, swap;
};

/* An interface of the current section, as its block describes it. */
struct iface {
	int32_t dlt;
	uint32_t snaplen; /* as libpcap takes it: 0 or over NG_MAX_SNAPLEN is NG_MAX_SNAPLEN */
};

/* The follower's state (one input at a time). */
static struct {
	uint64_t offset;     /* the stream's offset (for messages) */
	char why[160];
	int lost;            /* the blocks could not be followed */
	int swap;            /* the current section's byte order is not ours */
	uint8_t hdr[28];
	unsigned hlen, need; /* a block's first bytes: have, want before deciding */
	int known;           /* the block's type and length are known */
	uint32_t type, total;
	uint64_t pos;        /* bytes of the block consumed */
	uint64_t skip_a, skip_b; /* block offsets not kept: the packet's data */
	struct buf blk;      /* the block's kept bytes */
	struct buf q;        /* queued items */
	size_t qhead;
	struct buf pre;      /* the blocks handed out with the next frame */
	uint64_t meta;       /* non-packet bytes queued since the last packet block */
	int drop;            /* the current block is not kept (NG_MAX_META, or do-not-copy) */
	uint64_t dropped, dropped_bytes; /* blocks left out of the outputs */
	struct buf ifs;      /* the section's interfaces (struct iface) */
	struct iface first;  /* the file's first interface */
	int have_first;
} I;

static int buf_put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *np;

		while (cap < b->len + n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (np == NULL)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	if (n != 0)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static uint32_t rd32(const uint8_t *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static uint16_t rd16(const uint8_t *p, int swap)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

static void ng_lost(const char *what)
{
	if (!I.lost)
		snprintf(I.why, sizeof(I.why), "pcapng: %s at byte %llu", what,
			 (unsigned long long)(I.offset));
	I.lost = 1;
}

static void ng_queue(const struct item *it, const uint8_t *p, size_t n)
{
	if (buf_put(&I.q, it, sizeof(*it)) != 0 || buf_put(&I.q, p, n) != 0 ||
	    buf_put(&I.q, "\0\0\0\0\0\0\0", (8 - n % 8) % 8) != 0)
		ng_lost("out of memory");
}

/* The link type of interface @p i of the current section, -1 without one (libpcap
 * refuses the packet). */
static int32_t ng_iface_dlt(uint32_t i)
{
	const struct iface *f = (const struct iface *)I.ifs.p;

	return i < I.ifs.len / sizeof(*f) ? f[i].dlt : -1;
}

/* A whole block has gone by: queue what a pcapng sink writes back. */
static void ng_block_done(void)
{
	const uint8_t *b = I.blk.p;
	const size_t n = I.blk.len;
	struct item it = {0};

	switch (I.type) {
	case NG_SHB:
		/* the section's length changes with what is dropped: "not given" (-1) */
		memset(I.blk.p + 16, 0xff, 8);
		I.ifs.len = 0; /* a section numbers its interfaces anew */
		break;
	case NG_IDB:
		if (n >= 20) { /* shorter: libpcap refuses it */
			const uint32_t snap = rd32(b + 12, I.swap);
			const struct iface f = {
				.dlt = cli_dlt_of_linktype(rd16(b + 8, I.swap)),
				.snaplen = snap == 0 || snap > NG_MAX_SNAPLEN ? NG_MAX_SNAPLEN : snap,
			};

			if (buf_put(&I.ifs, &f, sizeof(f)) != 0)
				ng_lost("out of memory");
			if (!I.have_first)
				I.first = f;
			I.have_first = 1;
		}
		break;
	case NG_EPB:
	case NG_PB:
		I.meta = 0;
		it.packet = 1;
		it.iface = I.type == NG_EPB ? rd32(b + 8, I.swap) : rd16(b + 8, I.swap);
		it.ts_hi = rd32(b + 12, I.swap);
		it.ts_lo = rd32(b + 16, I.swap);
		it.swap = (uint8_t)I.swap;
		it.dlt = ng_iface_dlt(it.iface);
		it.len = (uint32_t)(n - 28 - 4); /* options: after the data, before the length */
		ng_queue(&it, b + 28, it.len);
		return;
	case NG_SPB:
		I.meta = 0;
		it.packet = 1;
		it.spb = 1;
		it.swap = (uint8_t)I.swap;
		it.dlt = ng_iface_dlt(0); /* the section's first interface, by the spec */
		if (n >= 16) { /* shorter: libpcap refuses it */
			it.spb_len = rd32(b + 8, I.swap);
			it.spb_caplen = it.spb_len;
			if (I.ifs.len != 0 && it.spb_caplen > ((const struct iface *)I.ifs.p)->snaplen)
				it.spb_caplen = ((const struct iface *)I.ifs.p)->snaplen;
		}
		ng_queue(&it, NULL, 0);
		return;
	}
	if (I.drop) {
		if (I.type != NG_CUSTOM_NOCOPY) { /* that one is never copied, by the spec */
			I.dropped++;
			I.dropped_bytes += I.total;
		}
		return;
	}
	I.meta += n;
	it.len = (uint32_t)n;
	ng_queue(&it, b, n);
}

/* The block's first bytes are in: its length, and which bytes to keep. 0: wait for more. */
static int ng_block_start(void)
{
	uint64_t data;

	I.type = rd32(I.hdr, I.swap);
	if (I.type == NG_SHB) {
		uint32_t bom;

		if (I.hlen < 12) {
			I.need = 12;
			return 0;
		}
		memcpy(&bom, I.hdr + 8, 4);
		if (bom != 0x1A2B3C4Du && bom != 0x4D3C2B1Au) {
			ng_lost("a section header with no byte-order magic");
			return 1;
		}
		I.swap = bom == 0x4D3C2B1Au;
	}
	I.total = rd32(I.hdr + 4, I.swap);
	if (I.total < 12 || I.total % 4 != 0 || I.total > NG_MAX_BLOCK ||
	    (I.type == NG_SHB && I.total < 28)) {
		ng_lost("a block of impossible length");
		return 1;
	}
	I.skip_a = I.skip_b = 0;
	if (I.type == NG_EPB || I.type == NG_PB) {
		if (I.total < 32) {
			ng_lost("a packet block too short");
			return 1;
		}
		if (I.hlen < 28) {
			I.need = 28;
			return 0;
		}
		data = (rd32(I.hdr + 20, I.swap) + 3ull) & ~3ull;
		if (28 + data + 4 > I.total) {
			ng_lost("a packet longer than its block");
			return 1;
		}
		I.skip_a = 28;
		I.skip_b = 28 + data;
	} else if (I.type == NG_SPB) {
		I.skip_a = 12;
		I.skip_b = I.total - 4;
	} else if (I.type == NG_SHB || I.type == NG_IDB) {
		if (I.meta + I.total > NG_MAX_HEADERS) {
			ng_lost("over 256 MiB of section and interface blocks between two packets");
			return 1;
		}
	}
	/* a block not kept is not buffered either: its bytes go by */
	I.drop = I.type == NG_CUSTOM_NOCOPY ||
		 (I.type != NG_SHB && I.type != NG_IDB && I.type != NG_EPB && I.type != NG_PB &&
		  I.type != NG_SPB && I.meta + I.total > NG_MAX_META);
	if (I.drop) {
		I.skip_a = 0;
		I.skip_b = I.total;
	}
	I.blk.len = 0;
	if (!I.drop && buf_put(&I.blk, I.hdr, I.hlen) != 0) {
		ng_lost("out of memory");
		return 1;
	}
	I.pos = I.hlen;
	I.known = 1;
	return 1;
}

/* Block bytes [a, b), at p, made what libpcap is to read (the header comment): an
 * interface block's link type (offsets 8-9) Ethernet and its snap length (12-15) none, a
 * simple packet block's length (8-11) its block's data. In the section's byte order. */
static void ng_patch(uint8_t *p, uint64_t a, uint64_t b)
{
	uint8_t v[8] = {0};
	uint64_t lo = 8, hi;

	if (I.type == NG_IDB && I.total >= 20) {
		const uint16_t lt = (uint16_t)NG_LINKTYPE_ETHERNET;
		const uint16_t x = I.swap ? __builtin_bswap16(lt) : lt;

		memcpy(v, &x, 2); /* then 2 reserved bytes (not written), the snap length 0 */
		hi = 16;
	} else if (I.type == NG_SPB && I.total >= 16) {
		const uint32_t x = I.swap ? __builtin_bswap32(I.total - 16) : I.total - 16;

		memcpy(v, &x, 4);
		hi = 12;
	} else {
		return;
	}
	for (uint64_t o = a > lo ? a : lo; o < b && o < hi; o++)
		if (I.type != NG_IDB || o < 10 || o >= 12) /* an IDB's 10-11: reserved */
			p[o - a] = v[o - 8];
}

/* Bytes of the input as libpcap is to get them (patched there: ng_patch). */
static void ng_feed(uint8_t *p, size_t n, uint64_t offset)
{
	I.offset = offset;
	while (n > 0 && !I.lost) {
		if (!I.known) {
			size_t take = I.need - I.hlen < n ? I.need - I.hlen : n;

			memcpy(I.hdr + I.hlen, p, take);
			I.hlen += (unsigned)take;
			p += take;
			n -= take;
			if (I.hlen == I.need && ng_block_start() == 0)
				continue;
			if (!I.known)
				continue;
		} else {
			uint64_t take = I.total - I.pos < n ? I.total - I.pos : n;
			uint64_t a = I.pos, b = I.pos + take; /* keep [a, b) less [skip_a, skip_b) */

			if (a < I.skip_a && buf_put(&I.blk, p, (b < I.skip_a ? b : I.skip_a) - a))
				ng_lost("out of memory");
			if (b > I.skip_b) {
				uint64_t from = a > I.skip_b ? a : I.skip_b;

				if (buf_put(&I.blk, p + (from - a), b - from) != 0)
					ng_lost("out of memory");
			}
			ng_patch(p, a, b); /* after the copy: the outputs get the block as it was */
			I.pos = b;
			p += take;
			n -= take;
		}
		if (I.known && I.pos == I.total) {
			ng_block_done();
			I.known = 0;
			I.hlen = 0;
			I.need = 8;
		}
	}
}

/* Queued blocks into I.pre up to the next packet item (taken into *f): 1, or 0 when
 * the queue ends first. */
static int ng_take(struct rio_frame *f)
{
	int found = 0;

	if (I.qhead * 2 > I.q.len) { /* what is left to the front: the item taken below
				      * stays where it is until the next call */
		memmove(I.q.p, I.q.p + I.qhead, I.q.len - I.qhead);
		I.q.len -= I.qhead;
		I.qhead = 0;
	}
	I.pre.len = 0;
	while (I.qhead < I.q.len) {
		struct item it;
		const uint8_t *p;

		memcpy(&it, I.q.p + I.qhead, sizeof(it));
		p = I.q.p + I.qhead + sizeof(it);
		I.qhead += sizeof(it) + it.len + (8 - it.len % 8) % 8;
		if (!it.packet) {
			if (buf_put(&I.pre, p, it.len) != 0) {
				ng_lost("out of memory");
				return 0;
			}
			continue;
		}
		if (f == NULL) /* at the end, nothing but blocks is left */
			continue;
		f->iface = it.iface;
		f->ts_hi = it.ts_hi;
		f->ts_lo = it.ts_lo;
		f->opts = p;
		f->opts_len = it.len;
		f->spb = it.spb;
		f->swap = it.swap;
		f->dlt = it.dlt;
		if (it.spb) { /* libpcap's lengths are the patched ones (ng_patch) */
			f->len = it.spb_len;
			if (f->caplen > it.spb_caplen)
				f->caplen = it.spb_caplen;
		}
		found = 1;
		break;
	}
	return found;
}

/* What the follower holds, freed; its counters stay for the summary. */
static void ng_close(void)
{
	free(I.blk.p);
	free(I.q.p);
	free(I.pre.p);
	free(I.ifs.p);
	memset(&I.ifs, 0, sizeof(I.ifs));
	memset(&I.blk, 0, sizeof(I.blk));
	memset(&I.q, 0, sizeof(I.q));
	memset(&I.pre, 0, sizeof(I.pre));
}

static int is(uint32_t magic)
{
	return magic == NG_SHB;
}

static void start(uint32_t magic, struct rio_in_info *info)
{
	(void)magic;
	ng_close();
	memset(&I, 0, sizeof(I));
	I.need = 8;
	info->pcapng = 1;
	info->nano = 1; /* libpcap gives every pcapng time in ns, opened so */
}

/* libpcap has read the first interface block: its link type and snap length are the
 * file's, as libpcap would have given them unpatched. */
static void opened(struct rio_in_info *info)
{
	info->linktype = I.have_first ? I.first.dlt : -1;
	info->snaplen = I.have_first ? I.first.snaplen : NG_MAX_SNAPLEN;
}

static int take(struct rio_frame *f, const uint8_t **pre, size_t *npre)
{
	if (!ng_take(f)) {
		ng_lost("a packet whose block was not seen");
		return -1;
	}
	*pre = I.pre.p;
	*npre = I.pre.len;
	return 1;
}

static int end(const uint8_t **pre, size_t *npre)
{
	*pre = NULL;
	*npre = 0;
	if (I.lost)
		return -1;
	ng_take(NULL);
	*pre = I.pre.p;
	*npre = I.pre.len;
	return 0;
}

static const char *error(void)
{
	return I.why;
}

static uint64_t left_out(uint64_t *bytes)
{
	*bytes = I.dropped_bytes;
	return I.dropped;
}

const struct rio_in_format rio_in_pcapng = {
	.name = "pcapng", .is = is, .start = start, .feed = ng_feed, .opened = opened,
	.take = take, .end = end, .error = error, .left_out = left_out, .close = ng_close,
};
