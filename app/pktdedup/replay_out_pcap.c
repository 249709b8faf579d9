/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap output (replay_out_formats.h), through libpcap's dumper, with the input's link
 * type, snap length and precision (pcapng input: its interfaces become one, its options
 * and non-packet blocks are left out).
 *
 * A pcap holds one link type, and readers cut a record at the header's snap length. From
 * a pcapng whose interfaces differ (replay_in_pcapng.c), a frame of another link type
 * than the first interface's is refused (the write fails, said, status 1: no frame is
 * written as what it is not); a frame longer than the header's snap length is written,
 * and the header's snap length is raised at the end to the longest (a regular file; a
 * pipe's header has gone, so there the frame is refused as well).
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <unistd.h>

#include "../common/link.h"
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
	s->linktype = in->linktype;
	s->snaplen = in->snaplen;
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

/* A frame this pcap cannot hold as it is: refused, as a write that fails (why in
 * s->why), once the frames before it are written (they are whole). */
static void refuse(struct rio_sink *s)
{
	if (fflush(s->f) != 0 || s->bad) { /* a write failed first: that is the failure */
		s->why[0] = '\0';
		return;
	}
	s->bad = 1;
	s->err = EINVAL;
}

static void pcap_frame(struct rio_sink *s, const struct rio_frame *f)
{
	struct pcap_pkthdr h;

	if (__builtin_expect(f->dlt != s->linktype || f->caplen > s->snaplen, 0)) {
		if (s->bad)
			return;
		if (f->dlt != s->linktype) {
			snprintf(s->why, sizeof(s->why), "a frame of link type %s (pcapng"
				 " interface %u) does not go in a pcap of %s (one link type a"
				 " file; --out-format pcapng keeps each interface's)",
				 cli_dlt_name(f->dlt), f->iface, cli_dlt_name(s->linktype));
			refuse(s);
			return;
		}
		if (s->start < 0) {
			snprintf(s->why, sizeof(s->why), "a frame of %u bytes (pcapng interface"
				 " %u) is past the snap length in the pcap header already sent"
				 " (%u), where readers would cut it (--out-format pcapng, or a"
				 " file, whose header is fixed at the end)", f->caplen, f->iface,
				 s->snaplen);
			refuse(s);
			return;
		}
		if (f->caplen > s->max_caplen)
			s->max_caplen = f->caplen;
	}
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
	if (s->max_caplen > s->snaplen) {
		/* the header's snap length (offset 16, in this machine's byte order as libpcap
		 * wrote it) raised to the longest frame, which readers would cut; after a
		 * failed write too, for the frames the file holds (its header was taken) */
		const uint32_t v = s->max_caplen;

		(void)pcap_dump_flush(s->dump); /* a failure: s->bad, from sink_write */
		if (s->done >= 24 && pwrite(s->fd, &v, 4, (off_t)s->start + 16) != 4 &&
		    !s->bad) {
			s->bad = 1;
			s->err = errno;
		}
	}
	pcap_dump_close(s->dump); /* fflush and fclose(s->f) */
	errno = s->err;
	return s->bad ? -1 : 0;
}

const struct rio_out_format rio_out_pcap = {
	.name = "pcap", .open = pcap_open_sink, .blocks = pcap_blocks, .frame = pcap_frame,
	.close = pcap_close_sink,
};
