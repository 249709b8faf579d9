/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Core-to-core round trip: two threads pinned to CPUs A and B pass a counter back and
 * forth through two cache lines, each written by one thread and read by the other, and
 * the time of one exchange (a line from A to B and one back) is printed in ns. Software
 * dispatch pays such transfers for every batch of lookups and verdicts it publishes
 * (app/pktdedup/spsc.h), so its rate depends on this figure; on a shared VM it changes
 * from hour to hour (docs/speed.md, "Workers"). Run by scripts/bench_workers.sh beside
 * its table; a benchmark, not a test.
 *
 *   pingpong CPU_A CPU_B [EXCHANGES]     prints the median of 5 runs, in ns
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Alignas(64) _Atomic long ping; /* written by A */
static _Alignas(64) _Atomic long pong; /* written by B */
static long exchanges = 1000000;

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *side_b(void *arg)
{
	if (pin(*(const int *)arg) != 0)
		return (void *)1;
	for (long i = 1; i <= exchanges; i++) {
		while (atomic_load_explicit(&ping, memory_order_acquire) != i)
			;
		atomic_store_explicit(&pong, i, memory_order_release);
	}
	return NULL;
}

/* One run: ns per exchange, or a negative number when a thread could not be pinned. */
static double run(int a, int b)
{
	struct timespec t0, t1;
	pthread_t t;
	void *rc;

	atomic_store(&ping, 0);
	atomic_store(&pong, 0);
	if (pin(a) != 0 || pthread_create(&t, NULL, side_b, &b) != 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 1; i <= exchanges; i++) {
		atomic_store_explicit(&ping, i, memory_order_release);
		while (atomic_load_explicit(&pong, memory_order_acquire) != i)
			;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (pthread_join(t, &rc) != 0 || rc != NULL)
		return -1;
	return ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
	       (double)exchanges;
}

static int cmp(const void *x, const void *y)
{
	const double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
	double ns[5];
	int a, b;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: pingpong CPU_A CPU_B [EXCHANGES]\n");
		return 2;
	}
	a = atoi(argv[1]);
	b = atoi(argv[2]);
	if (argc == 4)
		exchanges = atol(argv[3]);
	if (a == b || exchanges <= 0) {
		fprintf(stderr, "pingpong: two different CPUs and a positive count\n");
		return 2;
	}
	for (int i = 0; i < 5; i++) {
		ns[i] = run(a, b);
		if (ns[i] < 0) {
			fprintf(stderr, "pingpong: cannot run on CPUs %d and %d\n", a, b);
			return 1;
		}
	}
	qsort(ns, 5, sizeof(ns[0]), cmp);
	printf("%.0f\n", ns[2]);
	return 0;
}
