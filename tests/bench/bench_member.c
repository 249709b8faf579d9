/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktdedup's filters beside DPDK's rte_member on the same keys and the same bytes (a
 * benchmark, not a test; scripts/bench_member.sh runs it).
 *
 * Keys are 8 bytes: a uniform stream over a universe of D * N keys (about D of the N
 * keys distinct), or with D = 1 N different keys. Every contestant gets M bytes of
 * table and sees the keys in bursts of 32:
 *   - pktdedup qqhtd and qhtlru at the loss budget --fpr (default 1e-6), through
 *     pd_filter_burst_u64 (keyed XXH3 included);
 *   - qhtlru staged: each burst hashed and its rows prefetched (pd_filter_stage_u64)
 *     before the previous burst is probed (pd_filter_burst_hashed), as a caller that
 *     holds the next burst can do; the same verdicts;
 *   - rte_member HT in cache mode: M / 64 buckets of 16 entries (a 16-bit signature and
 *     a 16-bit set each), rte_member_lookup_bulk, then rte_member_add for each miss (a
 *     copy within one burst of its original is a miss: adds follow the lookups);
 *   - rte_member vBF with one set, sized by rte_member for N * D keys at --fpr and
 *     scaled down to M bytes when larger, lookup_bulk then add.
 *   - the floor: no filter, the same keyed XXH3, each key's 64-byte line of an M-byte
 *     table prefetched as soon as it is hashed, then read and written (what any table
 *     touching one line per key pays on this machine; its verdicts mean nothing); and
 *     the floor staged, each burst's lines prefetched while the previous one is read.
 * Truth is the library's exact filter. FP: a key seen for the first time reported
 * seen; FN: a repeat reported new. ns/key is the median over R rounds, contestants
 * alternating within each round; the speed-ups over rte_member HT are the medians of
 * each round's ratio.
 *
 *   bench_member [--memory M] [--n N] [--distinct D] [--fpr P] [--rounds R]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <rte_eal.h>
#include <rte_member.h>

#include <pktdedup/pd_filter.h>

#define BURST 32
#define MAXR 15

/* The contestants, in the order printed; each round starts at a different one. */
enum who { PD_QQHTD, PD_QHTLRU, PD_QHTLRU_STAGED, MEMBER_HT, MEMBER_VBF, FLOOR, FLOOR_STAGED,
	   RUNS };

struct run {
	const char *name;
	int scored; /* its verdicts mean something */
	char params[64];
	uint64_t bytes, fp, fn;
	double ns[MAXR];
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Keys in burst b of n. */
static size_t burst_len(size_t n, size_t b)
{
	return n - b * BURST < BURST ? n - b * BURST : BURST;
}

static void score(struct run *r, const uint8_t *truth, const uint8_t *v, size_t n)
{
	r->fp = r->fn = 0;
	for (size_t i = 0; i < n; i++) {
		r->fp += !truth[i] && v[i];
		r->fn += truth[i] && !v[i];
	}
}

static double run_pd(struct run *r, enum pd_filter_type t, int staged, uint64_t mem,
		     double fpr, const uint64_t *keys, uint8_t *v, size_t n)
{
	struct pd_filter_params p = {.type = t, .memory_bytes = mem, .target_fpr = fpr,
				     .seed = 7};
	struct pd_error err;
	struct pd_filter *f = pd_filter_create(&p, &err);
	struct pd_filter_stats st;
	double t0;

	if (f == NULL) {
		fprintf(stderr, "bench_member: %s: %s\n", pd_filter_type_name(t), err.msg);
		exit(1);
	}
	snprintf(r->params, sizeof(r->params), "b=%u f=%u", pd_filter_params(f)->qht_b,
		 pd_filter_params(f)->qht_f);
	t0 = now_s();
	if (staged) {
		uint64_t h[2][BURST];
		const size_t bursts = (n + BURST - 1) / BURST;

		/* burst b is hashed and prefetched, then burst b - 1 probed */
		for (size_t b = 0; b <= bursts; b++) {
			if (b < bursts)
				pd_filter_stage_u64(f, keys + b * BURST, h[b & 1],
						    burst_len(n, b));
			if (b > 0)
				pd_filter_burst_hashed(f, h[(b - 1) & 1], NULL,
						       v + (b - 1) * BURST, burst_len(n, b - 1));
		}
	} else {
		for (size_t i = 0; i < n; i += BURST)
			pd_filter_burst_u64(f, keys + i, NULL, v + i,
					    n - i < BURST ? n - i : BURST);
	}
	t0 = now_s() - t0;
	pd_filter_stats(f, &st);
	r->bytes = st.footprint_bytes;
	pd_filter_destroy(f);
	return t0;
}

/* The bytes of a vBF rte_member makes for k keys with p's FPR. */
static uint64_t vbf_bytes(const struct rte_member_parameters *p, uint32_t k)
{
	struct rte_member_parameters q = *p;
	struct rte_member_setsum *ss;
	uint64_t bytes;

	q.num_keys = k;
	q.name = "pd_vbf_size";
	ss = rte_member_create(&q);
	if (ss == NULL)
		return UINT64_MAX;
	bytes = (uint64_t)ss->bits * ss->num_set / 8;
	rte_member_free(ss);
	return bytes;
}

static double run_member(struct run *r, int vbf, uint64_t mem, double fpr, uint64_t distinct,
			 const uint64_t *keys, uint8_t *v, size_t n)
{
	struct rte_member_parameters p = {
		.name = vbf ? "pd_vbf" : "pd_ht", .type = vbf ? RTE_MEMBER_TYPE_VBF :
		RTE_MEMBER_TYPE_HT, .is_cache = 1, .key_len = sizeof(uint64_t), .num_set = 1,
		.false_positive_rate = (float)fpr, .prim_hash_seed = 7, .sec_hash_seed = 11,
		.socket_id = 0,
	};
	struct rte_member_setsum *ss;
	double t0;

	/* HT: 4-byte entries. vBF: rte_member sizes it from the keys expected and the FPR,
	 * rounding its bits up to a power of two: the most keys whose table fits M bytes */
	if (vbf) {
		p.num_keys = (uint32_t)(distinct ? distinct : 1);
		while (p.num_keys > 1 && vbf_bytes(&p, p.num_keys) > mem)
			p.num_keys /= 2;
		while (p.num_keys < (1u << 30) && vbf_bytes(&p, 2 * p.num_keys) <= mem)
			p.num_keys *= 2;
	} else {
		p.num_keys = (uint32_t)(mem / 4);
	}
	ss = rte_member_create(&p);
	if (ss == NULL) {
		fprintf(stderr, "bench_member: rte_member_create (%s) failed\n", p.name);
		exit(1);
	}
	r->bytes = vbf ? (uint64_t)ss->bits * ss->num_set / 8 : (uint64_t)ss->bucket_cnt * 64;
	if (vbf)
		snprintf(r->params, sizeof(r->params), "%u hashes, for %u keys", ss->num_hashes,
			 p.num_keys);
	else
		snprintf(r->params, sizeof(r->params), "%u buckets x 16", ss->bucket_cnt);
	t0 = now_s();
	for (size_t i = 0; i < n; i += BURST) {
		const void *kp[BURST];
		member_set_t set[BURST];
		unsigned c = (unsigned)(n - i < BURST ? n - i : BURST);

		for (unsigned j = 0; j < c; j++)
			kp[j] = &keys[i + j];
		rte_member_lookup_bulk(ss, kp, c, set);
		for (unsigned j = 0; j < c; j++) {
			v[i + j] = set[j] != RTE_MEMBER_NO_MATCH;
			if (!v[i + j])
				(void)rte_member_add(ss, kp[j], 1);
		}
	}
	t0 = now_s() - t0;
	rte_member_free(ss);
	return t0;
}

/* Key i's line of the floor's table, prefetched. */
static uint64_t *floor_line(uint64_t *t, uint64_t lines, uint64_t key)
{
	uint64_t h = XXH3_64bits_withSeed(&key, sizeof(key), 7);
	uint64_t *line = t + (uint64_t)((__extension__(unsigned __int128)h * lines) >> 64) * 8;

	__builtin_prefetch(line, 1, 2);
	return line;
}

static double run_floor(struct run *r, int staged, uint64_t mem, const uint64_t *keys,
			uint8_t *v, size_t n)
{
	const uint64_t lines = mem / 64;
	const size_t bursts = (n + BURST - 1) / BURST;
	uint64_t *t = NULL, *line[2][BURST];
	double t0;

	if (lines == 0 || posix_memalign((void **)&t, 2u << 20, lines * 64) != 0) {
		fprintf(stderr, "bench_member: no memory for the floor's table\n");
		exit(1);
	}
	(void)madvise(t, lines * 64, MADV_HUGEPAGE); /* as the library's tables */
	memset(t, 0, lines * 64);
	r->bytes = lines * 64;
	snprintf(r->params, sizeof(r->params), "one line per key");
	t0 = now_s();
	/* burst b's lines: hashed and prefetched, then read and written (staged: burst
	 * b - 1's, after burst b's are prefetched) */
	for (size_t b = 0; b <= bursts; b++) {
		const size_t rb = staged ? b - 1 : b; /* the burst read */

		if (b < bursts)
			for (size_t j = 0; j < burst_len(n, b); j++)
				line[b & 1][j] = floor_line(t, lines, keys[b * BURST + j]);
		if ((staged && b == 0) || (!staged && b == bursts))
			continue;
		for (size_t j = 0; j < burst_len(n, rb); j++) {
			v[rb * BURST + j] = line[rb & 1][j][0] != 0;
			line[rb & 1][j][0] = keys[rb * BURST + j];
		}
	}
	t0 = now_s() - t0;
	free(t);
	return t0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	char *eal[] = {argv[0], "--no-huge", "--no-shconf", "-m", "2048", "--no-pci",
		       "--log-level", "*:warning", "--no-telemetry", NULL};
	uint64_t mem = 64ULL << 20, n = 20000000, s = 42, distinct = 0;
	double d = 0.15, fpr = 1e-6;
	unsigned rounds = 3;
	struct run runs[RUNS] = {
		[PD_QQHTD] = {"pktdedup qqhtd", 1}, [PD_QHTLRU] = {"pktdedup qhtlru", 1},
		[PD_QHTLRU_STAGED] = {"qhtlru, staged", 1}, [MEMBER_HT] = {"rte_member HT", 1},
		[MEMBER_VBF] = {"rte_member vBF", 1}, [FLOOR] = {"floor", 0},
		[FLOOR_STAGED] = {"floor, staged", 0},
	};
	double ratio[2][MAXR]; /* HT's ns over qhtlru's, plain and staged, each round */
	uint64_t *keys;
	uint8_t *truth, *v;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--memory") == 0)
			mem = strtoull(argv[i + 1], NULL, 10) << 20;
		else if (strcmp(argv[i], "--n") == 0)
			n = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--distinct") == 0)
			d = strtod(argv[i + 1], NULL);
		else if (strcmp(argv[i], "--fpr") == 0)
			fpr = strtod(argv[i + 1], NULL);
		else if (strcmp(argv[i], "--rounds") == 0)
			rounds = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else {
			fprintf(stderr, "usage: bench_member [--memory MiB] [--n N] [--distinct D]"
				" [--fpr P] [--rounds R]\n");
			return 2;
		}
	}
	if (rounds < 1 || rounds > MAXR || !(d > 0 && d <= 1) || n == 0 || mem == 0) {
		fprintf(stderr, "bench_member: bad options\n");
		return 2;
	}
	if (rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])) - 1, eal) < 0) {
		fprintf(stderr, "bench_member: EAL did not start\n");
		return 1;
	}
	keys = malloc(n * sizeof(*keys));
	truth = malloc(n);
	v = malloc(n);
	if (keys == NULL || truth == NULL || v == NULL)
		return 1;
	{
		uint64_t universe = d >= 1 ? 0 : (uint64_t)(d * (double)n);
		struct pd_filter_params ep = {.type = PD_FILTER_EXACT, .seed = 1};
		struct pd_error err;
		struct pd_filter *exact = pd_filter_create(&ep, &err);

		for (uint64_t i = 0; i < n; i++) {
			uint64_t x = universe ? mix(&s) % universe : i;

			keys[i] = mix(&x); /* a fixed random 8-byte key per universe index */
		}
		pd_filter_burst_u64(exact, keys, NULL, truth, n);
		for (uint64_t i = 0; i < n; i++)
			distinct += !truth[i];
		pd_filter_destroy(exact);
	}
	for (unsigned k = 0; k < rounds; k++) {
		for (int c = 0; c < RUNS; c++) {
			const enum who w = (enum who)((c + k) % RUNS);
			struct run *r = &runs[w];
			double t = 0;

			switch (w) {
			case PD_QQHTD:
			case PD_QHTLRU:
			case PD_QHTLRU_STAGED:
				t = run_pd(r, w == PD_QQHTD ? PD_FILTER_QQHTD : PD_FILTER_QHTLRU,
					   w == PD_QHTLRU_STAGED, mem, fpr, keys, v, n);
				break;
			case MEMBER_HT:
			case MEMBER_VBF:
				t = run_member(r, w == MEMBER_VBF, mem, fpr, distinct, keys, v, n);
				break;
			case FLOOR:
			case FLOOR_STAGED:
				t = run_floor(r, w == FLOOR_STAGED, mem, keys, v, n);
				break;
			case RUNS:
				break;
			}
			r->ns[k] = t * 1e9 / (double)n;
			if (k == 0 && r->scored)
				score(r, truth, v, n);
		}
		ratio[0][k] = runs[MEMBER_HT].ns[k] / runs[PD_QHTLRU].ns[k];
		ratio[1][k] = runs[MEMBER_HT].ns[k] / runs[PD_QHTLRU_STAGED].ns[k];
	}
	printf("%" PRIu64 " keys (%" PRIu64 " distinct), %" PRIu64 " MiB each, loss budget %g,"
	       " ns/key median of %u alternating rounds\n", n, distinct, mem >> 20, fpr, rounds);
	printf("%-18s %-28s %12s %8s %12s %12s\n", "filter", "parameters", "bytes", "ns/key",
	       "FPR", "FNR");
	for (int c = 0; c < RUNS; c++) {
		struct run *r = &runs[c];

		qsort(r->ns, rounds, sizeof(double), cmp_d);
		if (!r->scored) {
			printf("%-18s %-28s %12" PRIu64 " %8.1f %12s %12s\n", r->name, r->params,
			       r->bytes, r->ns[rounds / 2], "-", "-");
			continue;
		}
		printf("%-18s %-28s %12" PRIu64 " %8.1f %12.3e %12.3e\n", r->name, r->params,
		       r->bytes, r->ns[rounds / 2], distinct ? (double)r->fp / (double)distinct : 0,
		       n > distinct ? (double)r->fn / (double)(n - distinct) : 0);
	}
	qsort(ratio[0], rounds, sizeof(double), cmp_d);
	qsort(ratio[1], rounds, sizeof(double), cmp_d);
	printf("qhtlru's speed-up over rte_member HT (median of the rounds' ratios): %.2f in"
	       " bursts, %.2f staged (rounds: %.2f-%.2f)\n", ratio[0][rounds / 2],
	       ratio[1][rounds / 2], ratio[1][0], ratio[1][rounds - 1]);
	free(keys);
	free(truth);
	free(v);
	rte_eal_cleanup();
	return 0;
}
