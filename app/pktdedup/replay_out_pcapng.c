/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapng output (replay_out_formats.h), written here (libpcap writes no pcapng): from a
 * pcapng input, its blocks back as they came (sections, interfaces, name resolution,
 * options, byte order); from a pcap input, one section and one interface with the
 * input's link type, snap length and precision (if_tsresol 9 for nanoseconds).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/link.h"
#include "pktdedup.h"
#include "replay_out_formats.h"

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
	(void)fclose(s->f); /* a failure: s->bad (sink_write, sink_close) */
	errno = s->err;
	return s->bad ? -1 : 0;
}

const struct rio_out_format rio_out_pcapng = {
	.name = "pcapng", .open = ng_open, .blocks = ng_blocks, .frame = ng_frame,
	.close = ng_close,
};
