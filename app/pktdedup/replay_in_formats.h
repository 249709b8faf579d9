/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capture formats replay's source reads (replay_in.c), one file each. libpcap reads
 * the records of both; a format adds what libpcap does not hand over, from the same
 * bytes as libpcap gets them (feed): for pcapng, each packet's block and every block
 * that is not a packet (replay_in_pcapng.c). The source picks the first format whose
 * magic matches (rio_in_formats[], in replay_in.c).
 */
#ifndef PKTDEDUP_REPLAY_IN_FORMATS_H
#define PKTDEDUP_REPLAY_IN_FORMATS_H

#include <stddef.h>
#include <stdint.h>

#include "replay_io.h"

struct rio_in_format {
	const char *name;
	/* The file's first 4 bytes are this format's: 1, else 0. */
	int (*is)(uint32_t magic);
	/* A reader anew: the format's part of what the sinks need to know. */
	void (*start)(uint32_t magic, struct rio_in_info *info);
	/* The input's bytes before libpcap gets them, the stream's offset after them (NULL:
	 * the format needs nothing but libpcap's records). The format may rewrite them for
	 * libpcap (pcapng: interfaces of several link types). */
	void (*feed)(uint8_t *p, size_t n, uint64_t offset);
	/* libpcap has opened the input: the format's link type and snap length in *info
	 * (NULL: libpcap's). */
	void (*opened)(struct rio_in_info *info);
	/* After libpcap's record (f's data, lengths, time and dlt are set): the format's part
	 * of f, and in *pre, *npre what comes before the frame. 1, or -1 (why in error()). */
	int (*take)(struct rio_frame *f, const uint8_t **pre, size_t *npre);
	/* At the end of the records: in *pre, *npre what comes after the last frame. 0, or
	 * -1 when the input was damaged (why in error()). */
	int (*end)(const uint8_t **pre, size_t *npre);
	const char *(*error)(void);
	/* Blocks left out of the outputs, and their bytes (rio_in_left_out). */
	uint64_t (*left_out)(uint64_t *bytes);
	/* What the reader holds, freed (its counters stay for the summary). */
	void (*close)(void);
};

extern const struct rio_in_format rio_in_pcapng; /* replay_in_pcapng.c */
extern const struct rio_in_format rio_in_pcap;   /* replay_in_pcap.c */

#endif
