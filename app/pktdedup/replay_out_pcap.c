/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap output (replay_out_formats.h), through libpcap's dumper, with the input's link
 * type, snap length and precision (pcapng input: its interfaces become one, its options
 * and non-packet blocks are left out).
 */
#include <errno.h>
#include <pcap/pcap.h>

#include "pktdedup.h"
#include "replay_out_formats.h"

static int pcap_open_sink(struct rio_sink *s, const struct rio_in_info *in)
{
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(in->linktype, (int)in->snaplen,
		in->nano ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);

	if (dead == NULL) {
		PD_LOG(ERR, "%s: out of memory\n", s->opt);
		return -1;
	}
	s->dump = pcap_dump_fopen(dead, s->f);
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
	pcap_dump((u_char *)s->dump, &h, f->data); /* a failed write: s->bad (sink_write) */
}

/* libpcap does not check the writes it makes when it closes: sink_write and sink_close
 * keep the first failure. */
static int pcap_close_sink(struct rio_sink *s)
{
	pcap_dump_close(s->dump); /* fflush and fclose(s->f) */
	errno = s->err;
	return s->bad ? -1 : 0;
}

const struct rio_out_format rio_out_pcap = {
	.name = "pcap", .open = pcap_open_sink, .blocks = pcap_blocks, .frame = pcap_frame,
	.close = pcap_close_sink,
};
