/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The formats replay's sinks write (replay_io.h), one file each: what a format does, and
 * a sink as the formats see it. replay_out.c keeps the registry (rio_out_formats[], by
 * enum rio_format) and the calls every sink shares.
 */
#ifndef PKTDEDUP_REPLAY_OUT_FORMATS_H
#define PKTDEDUP_REPLAY_OUT_FORMATS_H

#include <pcap/pcap.h>
#include <stdio.h>

#include "replay_io.h"

struct rio_sink;

/* What a format does. */
struct rio_out_format {
	const char *name;
	int (*open)(struct rio_sink *s, const struct rio_in_info *in); /* 0, or -1 logged */
	void (*blocks)(struct rio_sink *s, const uint8_t *b, size_t len);
	void (*frame)(struct rio_sink *s, const struct rio_frame *f); /* a failure: s->bad */
	int (*close)(struct rio_sink *s); /* flush and fclose(s->f): 0, or -1 with errno */
};

/* A sink as the formats see it: they write to f, a stream replay_out.c opened on fd
 * whose writes it counts (done: the bytes the system took) and stops at the first that
 * fails, so that the file holds a known prefix of what was given. */
struct rio_sink {
	const struct rio_out_format *ops;
	const char *opt, *path;
	int nano;
	int from_pcapng;      /* frames carry their blocks */
	pcap_dumper_t *dump;  /* pcap: libpcap's dumper on f */
	FILE *f;
	int fd;
	int64_t start;        /* fd's offset when opened (-1: not a regular file) */
	uint64_t done;        /* bytes the system took */
	int bad;              /* a write failed: errno in err */
	int err;
	char why[224];        /* a frame the format cannot hold (err EINVAL): why */
	int linktype;         /* pcap: the header's link type and snap length */
	uint32_t snaplen;
	uint32_t max_caplen;  /* pcap: the longest frame past snaplen (a regular file) */
};

extern const struct rio_out_format rio_out_pcap;   /* replay_out_pcap.c */
extern const struct rio_out_format rio_out_pcapng; /* replay_out_pcapng.c */

#endif
