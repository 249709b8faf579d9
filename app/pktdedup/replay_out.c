/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay's sinks (replay_io.h): the frames a run keeps (--pcap-out) or drops as copies
 * (--dup-out), written as
 *   - pcap, through libpcap's dumper, with the input's link type, snap length and
 *     precision (pcapng input: its interfaces become one, its options are left out);
 *   - pcapng, by this file (libpcap writes no pcapng): from a pcapng input, its blocks
 *     back as they came (sections, interfaces, name resolution, options, byte order);
 *     from a pcap input, one section and one interface with the input's link type, snap
 *     length and precision (if_tsresol 9 for nanoseconds).
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "../common/link.h"
#include "pktdedup.h"
#include "replay_io.h"

struct rio_sink;

/* What a format does; one table entry per format. */
struct sink_ops {
	const char *name;
	int (*open)(struct rio_sink *s, const struct rio_in_info *in);
	void (*blocks)(struct rio_sink *s, const uint8_t *b, size_t len);
	void (*frame)(struct rio_sink *s, const struct rio_frame *f);
	int (*close)(struct rio_sink *s); /* 0, or -1 with errno */
};

struct rio_sink {
	const struct sink_ops *ops;
	const char *opt, *path;
	int nano;
	int from_pcapng;      /* frames carry their blocks */
	pcap_dumper_t *dump;  /* pcap */
	FILE *f;              /* pcapng */
	int bad;              /* a write failed: errno in err */
	int err;
};

/* ---- pcap ---- */

static int pcap_open_sink(struct rio_sink *s, const struct rio_in_info *in)
{
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(in->linktype, (int)in->snaplen,
		in->nano ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);

	if (dead == NULL) {
		PD_LOG(ERR, "%s: out of memory\n", s->opt);
		return -1;
	}
	s->dump = pcap_dump_open(dead, s->path);
	if (s->dump == NULL)
		PD_LOG(ERR, "%s %s: %s\n", s->opt, s->path, pcap_geterr(dead));
	pcap_close(dead); /* the dumper keeps what it needs */
	return s->dump == NULL ? -1 : 0;
}

static void pcap_blocks(struct rio_sink *s, const uint8_t *b, size_t len)
{
	(void)s, (void)b, (void)len;
}

static void pcap_frame(struct rio_sink *s, const struct rio_frame *f)
{
	struct pcap_pkthdr h;

	h.ts.tv_sec = (time_t)(f->ts_ns / 1000000000ULL);
	h.ts.tv_usec = (suseconds_t)(s->nano ? f->ts_ns % 1000000000ULL :
				     f->ts_ns % 1000000000ULL / 1000);
	h.caplen = f->caplen;
	h.len = f->len;
	pcap_dump((u_char *)s->dump, &h, f->data);
	/* libpcap reports no write error: the stream's flag says (one load a frame) */
	if (unlikely(ferror_unlocked(pcap_dump_file(s->dump))) && !s->bad) {
		s->bad = 1;
		s->err = errno;
	}
}

/* libpcap does not check the writes it makes when it closes: the flush says whether the
 * file is whole. */
static int pcap_close_sink(struct rio_sink *s)
{
	FILE *f = pcap_dump_file(s->dump);
	int bad = s->bad || pcap_dump_flush(s->dump) != 0 || ferror(f);
	int err = s->bad ? s->err : errno;

	pcap_dump_close(s->dump);
	errno = err;
	return bad ? -1 : 0;
}

/* ---- pcapng ---- */

/* One writer (replay's worker 0), so unlocked writes: a locked fwrite per field cost a
 * tenth of a pcapng replay. */
static void put(struct rio_sink *s, const void *p, size_t n)
{
	if (!s->bad && n != 0 && fwrite_unlocked(p, 1, n, s->f) != n) {
		s->bad = 1;
		s->err = errno;
	}
}

static void put32(struct rio_sink *s, uint32_t v, int swap)
{
	v = swap ? __builtin_bswap32(v) : v;
	put(s, &v, 4);
}

static void put_padded(struct rio_sink *s, const uint8_t *p, uint32_t n)
{
	static const uint8_t zero[4];

	put(s, p, n);
	put(s, zero, (4 - n % 4) % 4);
}

static int ng_open(struct rio_sink *s, const struct rio_in_info *in)
{
	s->f = strcmp(s->path, "-") == 0 ? stdout : fopen(s->path, "wb");
	if (s->f == NULL) {
		PD_LOG(ERR, "%s %s: %s\n", s->opt, s->path, strerror(errno));
		return -1;
	}
	(void)setvbuf(s->f, NULL, _IOFBF, 1u << 20); /* fewer write calls; advice only */
	if (!in->pcapng) { /* one section, one interface: the pcap file's header */
		static const uint8_t tsresol_ns[8] = {9, 0, 1, 0, 9, 0, 0, 0};
		const uint32_t idb_len = in->nano ? 32 : 20;

		put32(s, 0x0A0D0D0Au, 0);
		put32(s, 28, 0);
		put32(s, 0x1A2B3C4Du, 0);
		put32(s, 1, 0);          /* version 1.0 */
		put32(s, ~0u, 0);        /* section length: not given */
		put32(s, ~0u, 0);
		put32(s, 28, 0);
		put32(s, 1, 0);          /* interface description */
		put32(s, idb_len, 0);
		put32(s, (uint32_t)cli_linktype_of_dlt(in->linktype) & 0xffff, 0);
		put32(s, in->snaplen, 0);
		if (in->nano) {
			put(s, tsresol_ns, sizeof(tsresol_ns));
			put32(s, 0, 0); /* end of options */
		}
		put32(s, idb_len, 0);
	}
	return 0;
}

static void ng_blocks(struct rio_sink *s, const uint8_t *b, size_t len)
{
	put(s, b, len);
}

/* 32-bit fields in the section's byte order. */
static void fields(uint32_t *w, const uint32_t *v, unsigned n, int swap)
{
	for (unsigned i = 0; i < n; i++)
		w[i] = swap ? __builtin_bswap32(v[i]) : v[i];
}

static void ng_frame(struct rio_sink *s, const struct rio_frame *f)
{
	const uint32_t data = (f->caplen + 3u) & ~3u;
	const int sw = s->from_pcapng ? f->swap : 0;
	uint32_t head[7], total;

	if (s->from_pcapng && f->spb) {
		total = 16 + data;
		fields(head, (const uint32_t[]){3, total, f->len}, 3, sw);
		put(s, head, 12);
		put_padded(s, f->data, f->caplen);
		put32(s, total, sw);
		return;
	}
	if (s->from_pcapng) {
		total = 32 + data + f->opts_len;
		fields(head, (const uint32_t[]){6, total, f->iface, f->ts_hi, f->ts_lo, f->caplen,
						f->len}, 7, sw);
	} else {
		const uint64_t units = s->nano ? f->ts_ns : f->ts_ns / 1000;

		total = 32 + data;
		fields(head, (const uint32_t[]){6, total, 0, (uint32_t)(units >> 32),
						(uint32_t)units, f->caplen, f->len}, 7, 0);
	}
	put(s, head, sizeof(head));
	put_padded(s, f->data, f->caplen);
	if (s->from_pcapng)
		put(s, f->opts, f->opts_len);
	put32(s, total, sw);
}

static int ng_close(struct rio_sink *s)
{
	int bad = s->bad || fflush(s->f) != 0 || ferror(s->f);
	int err = s->bad ? s->err : errno;

	if (s->f != stdout && fclose(s->f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	errno = err;
	return bad ? -1 : 0;
}

static const struct sink_ops formats[] = {
	[RIO_PCAP] = {"pcap", pcap_open_sink, pcap_blocks, pcap_frame, pcap_close_sink},
	[RIO_PCAPNG] = {"pcapng", ng_open, ng_blocks, ng_frame, ng_close},
};

struct rio_sink *rio_sink_open(const char *opt, const char *path, enum rio_format fmt,
			       const struct rio_in_info *in)
{
	struct rio_sink *s = calloc(1, sizeof(*s));

	if (s == NULL) {
		PD_LOG(ERR, "%s: out of memory\n", opt);
		return NULL;
	}
	if (fmt == RIO_SAME)
		fmt = in->pcapng ? RIO_PCAPNG : RIO_PCAP;
	s->ops = &formats[fmt];
	s->opt = opt;
	s->path = path;
	s->nano = in->nano;
	s->from_pcapng = in->pcapng;
	if (s->ops->open(s, in) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

int rio_sink_error(const struct rio_sink *s)
{
	return s != NULL && s->bad ? (s->err != 0 ? s->err : EIO) : 0;
}

void rio_sink_blocks(struct rio_sink *s, const uint8_t *b, size_t len)
{
	if (s != NULL && len != 0)
		s->ops->blocks(s, b, len);
}

int rio_sink_frame(struct rio_sink *s, const struct rio_frame *f)
{
	if (s == NULL)
		return 0;
	s->ops->frame(s, f);
	return unlikely(s->bad) ? rio_sink_error(s) : 0;
}

void rio_sink_flush(struct rio_sink *s)
{
	FILE *f;

	if (s == NULL || s->bad)
		return;
	f = s->dump != NULL ? pcap_dump_file(s->dump) : s->f;
	if (fflush(f) != 0) {
		s->bad = 1;
		s->err = errno;
	}
}

int rio_sink_close(struct rio_sink *s)
{
	int rc;

	if (s == NULL)
		return 0;
	rc = s->ops->close(s);
	if (rc != 0 && errno != EPIPE) /* a pipe's reader gone: replay's summary says so */
		PD_LOG(ERR, "error: %s %s: writing failed: %s\n", s->opt, s->path,
			strerror(errno));
	free(s);
	return rc;
}

const char *rio_sink_format(const struct rio_sink *s)
{
	if (s->ops == &formats[RIO_PCAP] && s->nano)
		return "nanosecond pcap";
	return s->ops->name;
}
