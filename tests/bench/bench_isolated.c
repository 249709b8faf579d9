/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What pktdedup's per-packet work costs alone, on the frames of a capture (a benchmark,
 * not a test; scripts/bench_app.sh runs it beside the app and dpdk-testpmd and prints
 * the sum next to what the app adds over testpmd).
 *
 * The frames are read once into memory and cycled until PACKETS have been seen, as
 * net_pcap's infinite_rx replays them. Each of REPS rounds times, in thread CPU time:
 *   key     the key of every frame (pd_key_extract, the app's key mode);
 *   hash    the key and its keyed XXH3 (pd_filter_hash), less the key's time;
 *   filter  the filter alone on those hashes in bursts of 32 (pd_filter_burst_hashed),
 *           a fresh filter each round, as the app's worker calls it;
 *   estimate the live error estimate (pd_estimate_observe at the app's default rate,
 *           1/256, and its 32,768-entry shadow) called after each burst's filter call,
 *           as the app does: that loop's time less the filter's;
 * after one untimed round, and prints each stage's median in ns/packet, and their sum.
 *
 *   bench_isolated PCAP PACKETS REPS KEY FILTER MEMORY_BYTES
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcap/pcap.h>

#include <pktdedup/pd_estimate.h>
#include <pktdedup/pd_filter.h>
#include <pktdedup/pd_key.h>

#define BURST 32
#define MAXREPS 99

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct frames {
	uint8_t *bytes;
	size_t *off;
	uint32_t *len;
	size_t n, cap, size, bytes_cap;
};

/* Every frame of the capture into one buffer: 0, or -1 and a message. */
static int load(const char *path, struct frames *fr)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, errbuf);
	struct pcap_pkthdr *h;
	const u_char *d;
	int r;

	if (p == NULL) {
		fprintf(stderr, "bench_isolated: %s\n", errbuf);
		return -1;
	}
	while ((r = pcap_next_ex(p, &h, &d)) == 1) {
		if (fr->n == fr->cap) {
			fr->cap = fr->cap ? 2 * fr->cap : 1024;
			fr->off = realloc(fr->off, fr->cap * sizeof(*fr->off));
			fr->len = realloc(fr->len, fr->cap * sizeof(*fr->len));
		}
		while (fr->size + h->caplen > fr->bytes_cap) {
			fr->bytes_cap = fr->bytes_cap ? 2 * fr->bytes_cap : 1 << 20;
			fr->bytes = realloc(fr->bytes, fr->bytes_cap);
			if (fr->bytes == NULL)
				break;
		}
		if (fr->off == NULL || fr->len == NULL || fr->bytes == NULL) {
			fprintf(stderr, "bench_isolated: out of memory\n");
			pcap_close(p);
			return -1;
		}
		memcpy(fr->bytes + fr->size, d, h->caplen);
		fr->off[fr->n] = fr->size;
		fr->len[fr->n++] = h->caplen;
		fr->size += h->caplen;
	}
	if (r == -1)
		fprintf(stderr, "bench_isolated: %s: %s\n", path, pcap_geterr(p));
	pcap_close(p);
	return r == -1 || fr->n == 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct frames fr = {0};
	struct pd_key_config kc;
	struct pd_filter_params fp = {.target_fpr = 1e-6, .seed = 42};
	struct pd_error err;
	struct pd_filter *f;
	double t_key[MAXREPS], t_hash[MAXREPS], t_filter[MAXREPS], t_est[MAXREPS];
	static uint8_t key[2][PD_KEY_BUF_LEN(65536)];
	uint8_t v[BURST];
	size_t len[2] = {0, 0};
	int ok[2] = {0, 0};
	uint64_t *h, sink = 0, dups = 0;
	struct pd_estimate *e;
	long n, reps;
	int mode;

	if (argc != 7 || (n = atol(argv[2])) <= 0 || (reps = atol(argv[3])) <= 0 ||
	    reps > MAXREPS || (mode = pd_key_mode_from_name(argv[4])) < 0 ||
	    pd_filter_type_parse(argv[5], &fp.type) != 0 ||
	    (fp.memory_bytes = strtoull(argv[6], NULL, 10)) == 0) {
		fprintf(stderr, "usage: bench_isolated PCAP PACKETS REPS 1..%d KEY FILTER "
			"MEMORY_BYTES\n", MAXREPS);
		return 2;
	}
	if (load(argv[1], &fr) != 0)
		return 1;
	pd_key_config_init(&kc, (enum pd_key_mode)mode);
	h = malloc((size_t)n * sizeof(*h));
	if (h == NULL)
		return 1;
	memset(h, 0xff, (size_t)n * sizeof(*h)); /* its pages faulted in before any timing
						   * (not 0: malloc + memset 0 can become calloc) */
	/* round -1 warms the caches, the branch predictors and the pages, and is not kept
	 * (its hashing measured 5.9 ns/packet against 5.1 in every later round) */
	for (long r = -1; r < reps; r++) {
		const long k = r < 0 ? 0 : r;
		double t0 = cpu_s();
		size_t klen;

		for (long i = 0, j = 0; i < n; i++, j = j + 1 == (long)fr.n ? 0 : j + 1)
			if (pd_key_extract(&kc, fr.bytes + fr.off[j], fr.len[j], key[i & 1],
					   sizeof(key[0]), &klen) == PD_KEY_OK)
				sink += key[i & 1][klen - 1];
		t_key[k] = cpu_s() - t0;

		f = pd_filter_create(&fp, &err);
		if (f == NULL) {
			fprintf(stderr, "bench_isolated: %s: %s\n", argv[5], err.msg);
			return 2;
		}
		/* as the app's worker: a key is hashed after the next one is extracted, into
		 * the other of two buffers (a hash right after the copy waits on its stores) */
		t0 = cpu_s();
		for (long i = 0, j = 0; i <= n; i++, j = j + 1 == (long)fr.n ? 0 : j + 1) {
			if (i < n)
				ok[i & 1] = pd_key_extract(&kc, fr.bytes + fr.off[j], fr.len[j],
							   key[i & 1], sizeof(key[0]),
							   &len[i & 1]) == PD_KEY_OK;
			if (i > 0)
				h[i - 1] = ok[(i - 1) & 1] ? pd_filter_hash(f, key[(i - 1) & 1],
									     len[(i - 1) & 1]) : 0;
		}
		t_hash[k] = cpu_s() - t0 - t_key[k];

		t0 = cpu_s();
		for (long i = 0; i < n; i += BURST) {
			unsigned c = (unsigned)(n - i < BURST ? n - i : BURST);

			pd_filter_burst_hashed(f, h + i, NULL, v, c);
			for (unsigned j = 0; j < c; j++)
				dups += v[j];
		}
		t_filter[k] = cpu_s() - t0;
		pd_filter_destroy(f);

		f = pd_filter_create(&fp, &err);
		e = pd_estimate_create(8, 32768, 0, PD_WINDOW_SEEN);
		if (f == NULL || e == NULL)
			return 1;
		t0 = cpu_s();
		for (long i = 0; i < n; i += BURST) {
			unsigned c = (unsigned)(n - i < BURST ? n - i : BURST);

			pd_filter_burst_hashed(f, h + i, NULL, v, c);
			pd_estimate_observe(e, h + i, NULL, v, c);
			for (unsigned j = 0; j < c; j++)
				dups += v[j];
		}
		t_est[k] = cpu_s() - t0 - t_filter[k];
		pd_filter_destroy(f);
		pd_estimate_free(e);
	}
	qsort(t_key, (size_t)reps, sizeof(double), cmp_d);
	qsort(t_hash, (size_t)reps, sizeof(double), cmp_d);
	qsort(t_filter, (size_t)reps, sizeof(double), cmp_d);
	qsort(t_est, (size_t)reps, sizeof(double), cmp_d);
	{
		const double k = t_key[reps / 2] * 1e9 / (double)n;
		const double hs = t_hash[reps / 2] * 1e9 / (double)n;
		const double fl = t_filter[reps / 2] * 1e9 / (double)n;
		const double es = t_est[reps / 2] * 1e9 / (double)n;

		printf("isolated: %zu frames cycled, %ld packets, median of %ld: key %.1f hash %.1f "
		       "filter %.1f estimate %.2f sum %.1f ns/packet (duplicates %.3f, check %"
		       PRIu64 ")\n", fr.n, n, reps, k, hs, fl, es, k + hs + fl + es,
		       (double)dups / ((double)n * (double)(2 * reps + 2)), sink & 0xff);
	}
	free(h);
	free(fr.bytes);
	free(fr.off);
	free(fr.len);
	return 0;
}
