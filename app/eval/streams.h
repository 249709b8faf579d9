/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Key streams for the evaluator: uniform with a target distinct fraction (ALGORITHMS.md
 * §11), Zipf, and raw little-endian uint64 keys from a file.
 */
#ifndef PKTDEDUP_EVAL_STREAMS_H
#define PKTDEDUP_EVAL_STREAMS_H

#include <stdint.h>
#include <stdio.h>

enum stream_kind { STREAM_UNIFORM, STREAM_ZIPF, STREAM_FILE };

struct stream {
	enum stream_kind kind;
	uint64_t n;          /* keys in the stream */
	uint64_t produced;
	uint64_t rng;        /* splitmix64 state */
	double universe;     /* uniform: U (0 = all distinct); zipf: N ranks */
	/* zipf, rejection-inversion (Hoermann & Derflinger 1996) */
	double alpha, h_x1, h_n, s;
	FILE *file;
};

/** Solve U (1 - exp(-N/U)) = delta N for U (0 < delta < 1). */
double stream_uniform_universe(uint64_t n, double delta);

/** Set up a stream; returns 0, or -1 with msg filled. */
int stream_open_uniform(struct stream *s, uint64_t n, double delta, uint64_t seed);
int stream_open_zipf(struct stream *s, uint64_t n, double alpha, uint64_t universe,
		     uint64_t seed, char *msg, size_t len);
int stream_open_file(struct stream *s, const char *path, char *msg, size_t len);

/** Next up to max keys; returns how many (0 at the end), or -1 on a read error. */
long stream_next(struct stream *s, uint64_t *keys, size_t max);

void stream_close(struct stream *s);

#endif
