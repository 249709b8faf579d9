/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay's input and outputs: one source (a capture read with libpcap, replay_in.c) and
 * sinks (replay_out.c) that write frames as pcap (through libpcap) or pcapng (libpcap
 * writes no pcapng, so replay_out.c does). replay.c moves frames from one to the others.
 *
 * pcapng in, pcapng out: libpcap hands over a packet's bytes, times and lengths but not
 * its block. The source therefore follows the blocks in the bytes it feeds libpcap
 * (the same stream, read once) and queues, in order, every block that is not a packet
 * (section headers, interface descriptions, name resolution, decryption secrets,
 * statistics, copyable custom blocks) and each packet block's interface, raw timestamp
 * and options. A pcapng sink writes those blocks back verbatim in the input's order and
 * byte order, and each kept frame as the packet block it came in; frames dropped as
 * duplicates are the only thing missing.
 */
#ifndef PKTDEDUP_REPLAY_IO_H
#define PKTDEDUP_REPLAY_IO_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The order of --out-format's names; RIO_AUTO (no --out-format): by the file name's
 * extension (.pcapng, .ntar: pcapng; .pcap, .cap: pcap), else the input's. */
enum rio_format { RIO_AUTO = -1, RIO_SAME, RIO_PCAP, RIO_PCAPNG };

/* What the sinks need to know of the input. */
struct rio_in_info {
	int linktype;
	unsigned snaplen;
	int nano;     /* pcap timestamps in ns (a1b23c4d); pcapng input: always */
	int pcapng;   /* the input is pcapng: frames carry their blocks (struct rio_frame) */
};

/* One frame as the sinks write it. */
struct rio_frame {
	const uint8_t *data;
	uint32_t caplen, len;
	uint64_t ts_ns;          /* ns since the epoch */
	int dlt;                 /* its link type (libpcap's DLT_; pcapng: its interface's) */
	/* pcapng input: the packet block it came in */
	uint32_t iface;          /* interface id in its section */
	uint32_t ts_hi, ts_lo;   /* the timestamp as written, in the interface's units */
	const uint8_t *opts;     /* the block's options as read (its section's byte order) */
	uint32_t opts_len;
	uint8_t spb;             /* a simple packet block (no interface, time or options) */
	uint8_t swap;            /* its section's byte order is not this machine's */
};

/* ---- the source (replay_in.c) ---- */

/* Set by the program's stop signals (SIGINT, SIGTERM, SIGHUP): a read they break ends the
 * input rather than waiting on (pktdedup's app.c defines it; pktdedup-keys its own). */
extern _Atomic int pd_force_quit;

/* Open @p path ("-": standard input) and learn its format: 0, or -1 (why in
 * rio_in_error(), for the caller to say with the file's name). */
int rio_in_open(const char *path, struct rio_in_info *info);
/*
 * The next record: 1 and *f (data valid until the next call; with pcapng, *pre and *npre
 * are the non-packet blocks that came before it, to write first); 0 at the end (*pre: the
 * blocks after the last packet); -1 damaged (why in rio_in_error()). A signal that breaks
 * a wait gives 0 as well: the caller checks its flag.
 */
int rio_in_next(struct rio_frame *f, const uint8_t **pre, size_t *npre);
const char *rio_in_error(void);
/* 1 when the next record would wait for input (a pipe or FIFO with nothing buffered or
 * ready to read), else 0: a regular file, bytes in hand, or an end ready to be seen. */
int rio_in_would_wait(void);
/* pcapng: the non-packet blocks left out of the outputs because more than 64 MiB of them
 * came between two packets (their bytes in *bytes). */
uint64_t rio_in_left_out(uint64_t *bytes);
/* Bytes of the input consumed, and its size when it is a regular file (else 0). */
uint64_t rio_in_offset(void);
uint64_t rio_in_size(void);
/* Compile a BPF filter for the input's link type: 0, or -1 (why in rio_in_error()). */
int rio_in_bpf(const char *expr);
/* Whether a frame matches it (1 without one). A pcapng interface of another link type
 * has it compiled for its own; where it does not compile, its frames match nothing and
 * rio_in_bpf_note() says so ("" while it compiled for every link type met). */
int rio_in_bpf_match(const struct rio_frame *f);
const char *rio_in_bpf_note(void);
void rio_in_close(void);

/* ---- the sinks (replay_out.c) ---- */

struct rio_sink;
/* A sink on @p path ("-": standard output) in @p fmt (RIO_SAME: the input's format;
 * RIO_AUTO: by the name's extension, else the input's);
 * @p opt names the option in messages. NULL and a message on failure. */
struct rio_sink *rio_sink_open(const char *opt, const char *path, enum rio_format fmt,
			       const struct rio_in_info *in);
/* Non-packet pcapng blocks, verbatim (sinks that write pcap skip them). */
void rio_sink_blocks(struct rio_sink *s, const uint8_t *b, size_t len);
/* One frame: 0, or the errno of the first write that failed (this one or an earlier). */
int rio_sink_frame(struct rio_sink *s, const struct rio_frame *f);
/* 0 while every write succeeded, else the errno of the first that failed (EPIPE: the
 * reader of a pipe went away). */
int rio_sink_error(const struct rio_sink *s);
/* What failed, in words: the format's reason for a frame it cannot hold, else the
 * errno's. */
const char *rio_sink_why(const struct rio_sink *s);
/* Everything written so far handed to the system (a pipe's reader sees it). */
void rio_sink_flush(struct rio_sink *s);
/* Bytes given to the sink so far (its format's header included; 0 without a sink), and
 * the first of them the system took: every one up to the first write that failed. A
 * frame whose end lies past rio_sink_done() after a failure is not in the file. */
uint64_t rio_sink_pos(const struct rio_sink *s);
uint64_t rio_sink_done(const struct rio_sink *s);
/* After a failure: the file cut to its first @p pos bytes (a frame's end, so that it
 * holds whole frames only): 0; 1 when it is no regular file (a pipe keeps what its
 * reader took); -1 with errno. */
int rio_sink_cut(struct rio_sink *s, uint64_t pos);
/* Flush and close: 0, or -1 (the file is not whole) with a message for a failure that
 * rio_sink_error() could not yet have told the caller. */
int rio_sink_close(struct rio_sink *s);
/* "pcap", "nanosecond pcap" or "pcapng": what the sink writes. */
const char *rio_sink_format(const struct rio_sink *s);

#endif
