/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay's source: a capture (pcap or pcapng; a file, a FIFO or standard input) read once
 * with libpcap through a stream that also lets us see its bytes (replay_io.h).
 *
 * The first 4 bytes (the magic) are read here to learn the format and the precision, then
 * given back to libpcap. For pcapng the same bytes also go through a block follower: it
 * queues every non-packet block verbatim and, for each packet block, its interface, raw
 * timestamp and options, leaving out the packet's data (libpcap has it). libpcap reads a
 * whole block before it returns its packet, so the queue is always ahead of libpcap's
 * packets and holds no more than its read-ahead (one stdio buffer).
 */
#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pktdedup.h"
#include "replay_io.h"

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
	uint8_t spb, swap;
};

static struct {
	int fd;
	pcap_t *in;
	uint64_t offset, size;
	unsigned char magic[4];
	unsigned magic_left;
	struct bpf_program bpf;
	int bpf_on;
	char why[PCAP_ERRBUF_SIZE + 96];
	/* the pcapng block follower */
	int ng;
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
	struct buf pre;      /* the blocks rio_in_next hands out */
	uint64_t meta;       /* non-packet bytes queued since the last packet block */
	int drop;            /* the current block is not kept (NG_MAX_META, or do-not-copy) */
	uint64_t dropped, dropped_bytes; /* blocks left out of the outputs */
} I = {.fd = -1};

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
		break;
	case NG_EPB:
	case NG_PB:
		I.meta = 0;
		it.packet = 1;
		it.iface = I.type == NG_EPB ? rd32(b + 8, I.swap) : rd16(b + 8, I.swap);
		it.ts_hi = rd32(b + 12, I.swap);
		it.ts_lo = rd32(b + 16, I.swap);
		it.swap = (uint8_t)I.swap;
		it.len = (uint32_t)(n - 28 - 4); /* options: after the data, before the length */
		ng_queue(&it, b + 28, it.len);
		return;
	case NG_SPB:
		I.meta = 0;
		it.packet = 1;
		it.spb = 1;
		it.swap = (uint8_t)I.swap;
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

/* Bytes of the input as libpcap gets them. */
static void ng_feed(const uint8_t *p, size_t n)
{
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

/* ---- the stream libpcap reads: the magic given back, then the input ---- */

/* What is there, not a full buffer: a pipe's frames reach libpcap as they come, so a
 * signal while waiting for more finds every frame written before it read. */
static ssize_t in_read(void *cookie, char *buf, size_t len)
{
	ssize_t n = 0;

	(void)cookie;
	if (I.magic_left > 0) {
		while (I.magic_left > 0 && (size_t)n < len) {
			buf[n++] = (char)I.magic[4 - I.magic_left];
			I.magic_left--;
		}
	} else {
		do
			n = read(I.fd, buf, len);
		while (n < 0 && errno == EINTR && !pd_force_quit);
		if (n > 0)
			I.offset += (uint64_t)n;
	}
	if (n > 0 && I.ng)
		ng_feed((const uint8_t *)buf, (size_t)n);
	return n;
}

static int in_close(void *cookie)
{
	const int fd = I.fd;

	(void)cookie;
	I.fd = -1;
	return fd == STDIN_FILENO ? 0 : close(fd);
}

/* n bytes, waiting for them: 0, or -1 (errno; 0 for an early end). */
static int read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r == 0) {
			errno = 0;
			return -1;
		}
		if (r < 0 && errno != EINTR)
			return -1;
		if (r > 0)
			got += (size_t)r;
	}
	return 0;
}

int rio_in_open(const char *path, struct rio_in_info *info)
{
	static const cookie_io_functions_t io = {.read = in_read, .close = in_close};
	char errbuf[PCAP_ERRBUF_SIZE];
	struct stat st;
	FILE *s;
	uint32_t magic;

	memset(&I, 0, sizeof(I)); /* a reader anew (rio_in_close freed what it held) */
	I.fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (I.fd < 0) {
		PD_LOG(ERR, "--pcap-in %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(I.fd, &st) == 0 && S_ISREG(st.st_mode))
		I.size = (uint64_t)st.st_size;
	if (read_full(I.fd, I.magic, 4) != 0) {
		PD_LOG(ERR, "--pcap-in %s: %s\n", path,
			errno ? strerror(errno) : "shorter than a pcap file header");
		return -1;
	}
	I.offset = 4;
	I.magic_left = 4;
	memcpy(&magic, I.magic, 4);
	I.ng = magic == NG_SHB;
	I.need = 8;
	s = fopencookie(NULL, "rb", io);
	if (s == NULL) {
		PD_LOG(ERR, "--pcap-in %s: %s\n", path, strerror(errno));
		return -1;
	}
	I.in = pcap_fopen_offline_with_tstamp_precision(s, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (I.in == NULL) {
		PD_LOG(ERR, "--pcap-in %s: %s\n", path, errbuf);
		fclose(s);
		return -1;
	}
	info->linktype = pcap_datalink(I.in);
	info->snaplen = (unsigned)pcap_snapshot(I.in);
	info->pcapng = I.ng;
	info->nano = magic != 0xa1b2c3d4 && magic != 0xd4c3b2a1;
	return 0;
}

/* Bytes read from the input but not yet taken from the stream libpcap reads (glibc's
 * FILE; elsewhere unknown, taken as some, so a batch never ends early). */
static size_t stream_buffered(FILE *f)
{
#ifdef __GLIBC__
	return (size_t)(f->_IO_read_end - f->_IO_read_ptr);
#else
	(void)f;
	return 1;
#endif
}

int rio_in_would_wait(void)
{
	struct pollfd p = {.fd = I.fd, .events = POLLIN};

	if (I.size != 0 || I.in == NULL || I.magic_left > 0 || stream_buffered(pcap_file(I.in)) > 0)
		return 0;
	return poll(&p, 1, 0) == 0; /* nothing to read now (POLLHUP: an end, not a wait) */
}

/* Seconds of a record: the pcap format's are unsigned 32-bit (libpcap gives them back
 * signed), so a time after 2038 stays after 2038. */
static uint64_t record_ns(const struct pcap_pkthdr *h)
{
	int64_t s = (int64_t)h->ts.tv_sec;
	uint64_t sec = s < 0 ? (uint64_t)(uint32_t)s : (uint64_t)s;

	return sec * 1000000000ULL + (uint64_t)h->ts.tv_usec; /* opened in ns precision */
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
		found = 1;
		break;
	}
	return found;
}

int rio_in_next(struct rio_frame *f, const uint8_t **pre, size_t *npre)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int rc = pcap_next_ex(I.in, &h, &d);

	*pre = NULL;
	*npre = 0;
	if (rc == 1) {
		f->data = d;
		f->caplen = h->caplen;
		f->len = h->len;
		f->ts_ns = record_ns(h);
		f->opts = NULL;
		f->opts_len = 0;
		f->iface = f->ts_hi = f->ts_lo = 0;
		f->spb = f->swap = 0;
		if (!I.ng)
			return 1;
		if (!ng_take(f)) {
			ng_lost("a packet whose block was not seen");
			return -1;
		}
		*pre = I.pre.p;
		*npre = I.pre.len;
		return 1;
	}
	if (rc == PCAP_ERROR_BREAK) {
		if (I.ng) {
			if (I.lost)
				return -1;
			ng_take(NULL);
			*pre = I.pre.p;
			*npre = I.pre.len;
		}
		return 0;
	}
	if (pd_force_quit)
		return 0; /* a signal broke a read that was waiting */
	snprintf(I.why, sizeof(I.why), "%s", pcap_geterr(I.in));
	return -1;
}

const char *rio_in_error(void)
{
	return I.why;
}

uint64_t rio_in_left_out(uint64_t *bytes)
{
	*bytes = I.dropped_bytes;
	return I.dropped;
}

uint64_t rio_in_offset(void)
{
	return I.offset;
}

uint64_t rio_in_size(void)
{
	return I.size;
}

int rio_in_bpf(const char *expr)
{
	if (pcap_compile(I.in, &I.bpf, expr, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		PD_LOG(ERR, "--bpf '%s': %s\n", expr, pcap_geterr(I.in));
		return -1;
	}
	I.bpf_on = 1;
	return 0;
}

int rio_in_bpf_match(const struct rio_frame *f)
{
	struct pcap_pkthdr h = {.caplen = f->caplen, .len = f->len};

	return !I.bpf_on || pcap_offline_filter(&I.bpf, &h, f->data) != 0;
}

void rio_in_close(void)
{
	if (I.bpf_on)
		pcap_freecode(&I.bpf);
	I.bpf_on = 0;
	if (I.in != NULL)
		pcap_close(I.in); /* closes the stream, and so the input (in_close) */
	else if (I.fd >= 0 && I.fd != STDIN_FILENO)
		close(I.fd); /* opened, but refused before libpcap took it */
	I.in = NULL;
	I.fd = -1;
	free(I.blk.p);
	free(I.q.p);
	free(I.pre.p);
	memset(&I.blk, 0, sizeof(I.blk));
	memset(&I.q, 0, sizeof(I.q));
	memset(&I.pre, 0, sizeof(I.pre));
	/* the counters (offset, size, blocks left out) stay for the summary */
}
