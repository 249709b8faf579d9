/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The instructions of software dispatch's rings (app/pktdedup/spsc.h), nothing crossing
 * between cores: on one thread, a round puts N slots of 8 bytes (a lookup's hash) in
 * each of R rings of Z slots, publishes whole lines every 4 rounds as worker.c does
 * when verdicts come back (PD_APP_DISPATCH_ROUNDS), and takes up to 32 from each ring.
 * With 15 workers a receiver hands each of its 14 owners about 2 lookups a round (-r 14
 * -n 2, the default, rings of 128 slots); with 2 workers, one owner 16 (-r 1 -n 16 -z
 * 2048).
 * Prints the median over 9 runs of ns per ring visited (a put and a get). To compare
 * two versions of spsc.h, build this at each and run them in turn, on one CPU
 * (taskset -c 1). A benchmark, not a test.
 *
 *   bench_spsc [-r RINGS] [-n SLOTS] [-z RING_SLOTS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../../app/pktdedup/spsc.h"

#define MAXR 64
#define RUNS 9
#define ROUNDS 1000000L

static volatile uint64_t sink;

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static struct pd_spsc *ring[MAXR];
	unsigned nr = 14, n = 2, size = 128;
	uint64_t in[64], out[32], sum = 0;
	double ns[RUNS];
	int c;

	while ((c = getopt(argc, argv, "r:n:z:")) != -1) {
		if (c == 'r')
			nr = (unsigned)atoi(optarg);
		else if (c == 'n')
			n = (unsigned)atoi(optarg);
		else if (c == 'z')
			size = (unsigned)atoi(optarg);
		else
			break;
	}
	if (c != -1 || optind != argc || nr < 1 || nr > MAXR || n < 1 || n > 32 ||
	    size < 64 || size > (1u << 20) || (size & (size - 1)) != 0) {
		fprintf(stderr, "usage: bench_spsc [-r RINGS 1-64] [-n SLOTS 1-32] "
				"[-z RING_SLOTS, a power of two 64-1048576]\n");
		return 2;
	}
	for (unsigned i = 0; i < nr; i++) {
		void *mem = aligned_alloc(PD_SPSC_LINE, pd_spsc_bytes(size, sizeof(uint64_t)));

		if (mem == NULL) {
			fprintf(stderr, "bench_spsc: out of memory\n");
			return 2;
		}
		ring[i] = pd_spsc_init(mem, size, sizeof(uint64_t), size / 4 < 64 ? size / 4 : 64);
	}
	for (unsigned i = 0; i < 64; i++)
		in[i] = (i + 1) * 0x9e3779b97f4a7c15ULL;
	for (int run = 0; run < RUNS; run++) {
		const double t0 = now_ns();

		for (long r = 0; r < ROUNDS; r++) {
			for (unsigned i = 0; i < nr; i++)
				pd_spsc_put(ring[i], in + (r & 31), n, sizeof(uint64_t));
			if ((r & 3) == 3)
				for (unsigned i = 0; i < nr; i++)
					pd_spsc_flush_lines(ring[i]);
			for (unsigned i = 0; i < nr; i++)
				if (pd_spsc_get(ring[i], out, 32, sizeof(uint64_t)) != 0)
					sum += out[0];
		}
		ns[run] = (now_ns() - t0) / (double)ROUNDS / nr;
	}
	qsort(ns, RUNS, sizeof(ns[0]), cmp_d);
	sink = sum; /* the slots taken are used: the gets are not optimized away */
	printf("%u ring%s of %u slots, %u put a round in each: %.2f ns a ring visited "
	       "(median of %d runs; %.2f-%.2f)\n",
	       nr, nr == 1 ? "" : "s", size, n, ns[RUNS / 2], RUNS, ns[0], ns[RUNS - 1]);
	return 0;
}
