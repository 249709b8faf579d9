/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory floor of a filter layout: the time of L random 8-byte read-modify-writes per key
 * in a table of SIZE bytes, keys processed in bursts of 64 with the next keys' lines
 * prefetched, no hashing. A filter that touches L independent random lines per key
 * cannot beat this figure on the machine it runs on. Two prefetch hints: into L1
 * (prefetcht0, the L1's few miss buffers bound the lines in flight) and into L2 only
 * (prefetcht1, what the filters use for state larger than twice the L2 cache). With
 * MODE "read" the lines are only read (a key found DUPLICATE by a Bloom filter stores
 * nothing). Built and run by scripts/bench_memfloor.sh; a benchmark, not a test.
 *
 *   memfloor SIZE_MIB LINES [KEYS [MODE]]     MODE: rmw (default) or read
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define BURST 64

static volatile uint64_t sink;

static inline void prefetch(const void *p, int l2)
{
	if (l2)
		__builtin_prefetch(p, 1, 2);
	else
		__builtin_prefetch(p, 1, 3);
}
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: memfloor SIZE_MIB LINES [KEYS [rmw|read]]\n");
		return 2;
	}
	size_t bytes = (size_t)strtoull(argv[1], NULL, 10) << 20;
	unsigned lines = (unsigned)strtoul(argv[2], NULL, 10);
	size_t keys = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 10000000;
	int rd = argc > 4 && strcmp(argv[4], "read") == 0;
	size_t words = bytes / 8;
	uint64_t *t = aligned_alloc(1 << 21, bytes);
	uint32_t *ix = malloc(keys * lines * sizeof(*ix));

	if (bytes == 0 || lines == 0 || lines > 16 || t == NULL || ix == NULL ||
	    (argc > 4 && !rd && strcmp(argv[4], "rmw") != 0)) {
		fprintf(stderr, "memfloor: bad arguments or out of memory\n");
		return 2;
	}
	madvise(t, bytes, MADV_HUGEPAGE);
	memset(t, 0, bytes);
	for (size_t i = 0; i < keys * lines; i++)
		ix[i] = (uint32_t)(((unsigned __int128)rng() * words) >> 64);

	printf("table %zu MiB, %u random lines per key (%s), %zu keys\n", bytes >> 20, lines,
	       rd ? "read" : "read-modify-write", keys);
	for (unsigned step = 0; step < 14; step++) {
		const int l2 = step >= 7;
		const unsigned ahead = 1u << (step % 7); /* 1..64 keys ahead */
		double t0 = now_s();
		uint64_t acc = 0;

		for (size_t b = 0; b + BURST <= keys; b += BURST) {
			const uint32_t *x = ix + b * lines;

			for (unsigned i = 0; i < ahead; i++)
				for (unsigned j = 0; j < lines; j++)
					prefetch(&t[x[i * lines + j]], l2);
			for (unsigned i = 0; i < BURST; i++) {
				if (i + ahead < BURST)
					for (unsigned j = 0; j < lines; j++)
						prefetch(&t[x[(i + ahead) * lines + j]], l2);
				if (rd)
					for (unsigned j = 0; j < lines; j++)
						acc += t[x[i * lines + j]];
				else
					for (unsigned j = 0; j < lines; j++)
						t[x[i * lines + j]] |= 1ULL << j;
			}
		}
		sink = acc;
		double ns = (now_s() - t0) / (double)(keys / BURST * BURST) * 1e9;

		printf("  into %s, %2u keys ahead: %6.2f ns/key  %5.2f ns/line\n", l2 ? "L2" : "L1",
		       ahead, ns, ns / lines);
	}
	free(ix);
	free(t);
	return 0;
}
