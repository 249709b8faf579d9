/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Key streams for the evaluator: uniform with a target distinct fraction (seed 000,
 * Bera et al., "Advanced Bloom filter based algorithms for efficient approximate data
 * de-duplication in streams", section 6), Zipf, the Poisson and b-model streams of Deng &
 * Rafiei, "Approximately detecting duplicates for streaming data using stable Bloom
 * filters" (SIGMOD 2006, section 5.1), and raw little-endian uint64 keys from a file.
 */
#ifndef PKTDEDUP_EVAL_STREAMS_H
#define PKTDEDUP_EVAL_STREAMS_H

#include <stdint.h>
#include <stdio.h>

enum stream_kind { STREAM_UNIFORM, STREAM_ZIPF, STREAM_POISSON, STREAM_BMODEL, STREAM_FILE };

struct stream {
	enum stream_kind kind;
	uint64_t n;          /* keys in the stream */
	uint64_t produced;
	uint64_t rng;        /* splitmix64 state */
	double universe;     /* uniform: U (0 = all distinct); zipf: N ranks */
	/* zipf, rejection-inversion (Hoermann & Derflinger 1996) */
	double alpha, h_x1, h_n, s;
	/* poisson/bmodel: arrival probability per position (poisson), or per 2^levels
	 * sub-interval (bmodel); the mean of the exponential spreading arrivals over keys */
	double lambda, spread;
	double *density;
	unsigned levels;
	FILE *file;
};

/* The two-step generator of Deng & Rafiei section 5.1. Step 1: position t of n holds the
 * one frequent integer with probability lambda (poisson) or with the b-model's density:
 * the stream is halved `levels` times, each half taking a share `bias` or 1 - bias (which
 * half takes `bias` is drawn per split) of the frequent volume `volume` * n. Every other
 * position holds a key of its own (t). Step 2: each arrival of the frequent integer becomes
 * key n + i, i drawn from an exponential of mean `spread` (capped at 64 spread). */
struct stream_freq {
	double lambda;   /* poisson: arrivals per position, 0 < lambda <= 1 */
	double bias;     /* bmodel: 0.5 <= bias < 1 */
	unsigned levels; /* bmodel: 0..24; needs volume * (2 bias)^levels <= 1 */
	double volume;   /* bmodel: frequent share of the stream, 0 < volume <= 1 */
	double spread;   /* both: mean of the exponential of step 2, >= 1 */
};

/** Solve U (1 - exp(-N/U)) = delta N for U (0 < delta < 1). */
double stream_uniform_universe(uint64_t n, double delta);

/** Set up a stream; returns 0, or -1 with msg filled. */
int stream_open_uniform(struct stream *s, uint64_t n, double delta, uint64_t seed);
int stream_open_zipf(struct stream *s, uint64_t n, double alpha, uint64_t universe,
		     uint64_t seed, char *msg, size_t len);
int stream_open_freq(struct stream *s, enum stream_kind kind, uint64_t n,
		     const struct stream_freq *fq, uint64_t seed, char *msg, size_t len);
int stream_open_file(struct stream *s, const char *path, char *msg, size_t len);

/** Next up to max keys; returns how many (0 at the end), or -1 on a read error. */
long stream_next(struct stream *s, uint64_t *keys, size_t max);

/** Every key the stream yields is below this bound; 0 when unknown (files). */
uint64_t stream_key_bound(const struct stream *s);

void stream_close(struct stream *s);

#endif
