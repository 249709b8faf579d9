/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gzip'd input for replay's source (replay_in_gzip.c), one input at a time: the source
 * reads the raw bytes and hands them in; the inflated bytes come out as libpcap asks.
 */
#ifndef PKTDEDUP_REPLAY_IN_GZIP_H
#define PKTDEDUP_REPLAY_IN_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The first bytes of a file are gzip's magic (1f 8b). */
int rio_gz_is(const uint8_t *p, size_t n);
/* A stream anew: 0, or -1 (why in rio_gz_error()). */
int rio_gz_start(void);
/* Every byte handed in has been taken: hand in more (or say the end: rio_gz_finish). */
int rio_gz_wants_input(void);
/* Raw bytes, read by the source; they must stay until rio_gz_wants_input(). */
void rio_gz_input(const uint8_t *p, size_t n);
/* Up to len inflated bytes into out: how many (0: more input is wanted), or -1 damaged. */
ssize_t rio_gz_inflate(uint8_t *out, size_t len);
/* The raw input has ended: 0 when it ended between members, else -1 (cut short). */
int rio_gz_finish(void);
const char *rio_gz_error(void);
void rio_gz_end(void);

#endif
