/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * White box: filters against plain reference models written from ALGORITHMS.md (the
 * specification, after the papers named in docs/filters.md: SBF, bloom and buffering from
 * Deng and Rafiei, "Approximately detecting duplicates for streaming data using stable
 * Bloom filters"; timerbf from Koloniari et al., "One is enough"; the others below), one
 * byte per cell and none of the library's layout, SIMD or prefetching. A model shares with
 * the library only what the spec leaves to the implementation: the hash (keyed XXH3 of the
 * key's 8 little-endian bytes), the position derivation (double hashing, multiply-shift)
 * and the PRNG, so that both make the same random choices. Every verdict must match. Also:
 * the prefetch the library uses for large state gives the same verdicts as the one for
 * small state (forced through far_bytes, filter_private.h).
 */
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "filter_private.h"
#include "testutil.h"

static uint64_t key_hash(uint64_t key, uint64_t seed)
{
	unsigned char le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(key >> (8 * i));
	return XXH3_64bits_withSeed(le, sizeof(le), seed);
}

/* The filter's verdicts on n keys in bursts of chunk, with the prefetch of large state
 * (into L2, further ahead) when far. */
static void run_chunks(struct pd_filter *f, const uint64_t *k, uint8_t *v, size_t n,
		       size_t chunk, bool far)
{
	if (far)
		f->far_bytes = 0;
	for (size_t i = 0; i < n; i += chunk)
		pd_filter_burst_u64(f, k + i, NULL, v + i, n - i < chunk ? n - i : chunk);
}

/* Both verdicts occur (1% of each at least), or comparing them proves little. */
static void both_verdicts(const char *what, size_t dups, size_t n)
{
	if (dups <= n / 100 || dups >= n - n / 100)
		fail_msg("%s: %zu of %zu keys DUPLICATE", what, dups, n);
}

/*
 * SBF (ALGORITHMS.md §1): m cells of d bits, m = (memory / 8) * floor(64 / d). A hash g
 * names cell word * cpw + slot with word = mulhi(g, nwords) and slot = mulhi(the low half
 * of g * nwords, cpw) (sbf.c). Per key: DUPLICATE iff none of the K cells of
 * g_j = h1 + j * h2 is 0; then the P cells from the cell of the next PRNG draw, wrapping
 * at m, lose 1 if nonzero; then the K cells are set to Max.
 */
static uint64_t sbf_cell(uint64_t g, uint64_t nwords, unsigned cpw)
{
	pd_u128 wide = (pd_u128)g * nwords;

	return (uint64_t)(wide >> 64) * cpw + pd_range((uint64_t)wide, cpw);
}

static void sbf_model(uint64_t memory, unsigned max, unsigned K, unsigned P, unsigned chunk,
		      bool far)
{
	const size_t n = 60000;
	const uint64_t seed = 0x5bf0 + max * 131 + K * 17 + P;
	unsigned d = 1;

	while ((1u << d) - 1 < max)
		d++;
	const unsigned cpw = 64 / d;
	const uint64_t nwords = memory / 8, m = nwords * cpw;
	uint8_t *cell = calloc(m, 1), *v = malloc(n);
	/* keys come back while their cells live (about Max * m / P keys): both verdicts */
	uint64_t *k = tu_keys(n, max * m / (2 * (P + 1)) + 8, seed);
	struct pd_prng prng;
	size_t dups = 0;
	struct pd_filter *f = tu_create((struct pd_filter_params){
		.type = PD_FILTER_SBF, .memory_bytes = memory, .seed = seed, .k = K,
		.sbf_max = max, .sbf_p = P});

	assert_non_null(cell);
	run_chunks(f, k, v, n, chunk, far);
	pd_prng_seed(&prng, seed);
	for (size_t i = 0; i < n; i++) {
		uint64_t h1 = key_hash(k[i], seed), h2 = pd_hash2(h1), c[PD_MAX_HASHES];
		uint8_t dup = 1;

		for (unsigned j = 0; j < K; j++) {
			c[j] = sbf_cell(h1 + j * h2, nwords, cpw);
			dup &= cell[c[j]] != 0;
		}
		if (v[i] != dup)
			fail_msg("sbf memory %llu Max %u K %u P %u chunk %u far %d: key %zu is %s, "
				 "the model says %s", (unsigned long long)memory, max, K, P, chunk,
				 far, i, v[i] ? "DUPLICATE" : "DISTINCT",
				 dup ? "DUPLICATE" : "DISTINCT");
		dups += dup;
		uint64_t start = sbf_cell(pd_prng_next(&prng), nwords, cpw);

		for (unsigned t = 0; t < P; t++) {
			uint8_t *x = &cell[(start + t) % m];

			*x -= *x != 0;
		}
		for (unsigned j = 0; j < K; j++)
			cell[c[j]] = (uint8_t)max;
	}
	/* both verdicts occur, or the comparison proves little */
	assert_true(dups > n / 20 && dups < n - n / 20);
	pd_filter_destroy(f);
	free(cell);
	free(k);
	free(v);
}

/* Max = 1 (one bit per cell) and wider cells; P within one word, across two, longer than
 * a word, and a one-word table where a run wraps onto itself; K from 1 to PD_MAX_HASHES. */
static void test_sbf_model(void **state)
{
	static const struct {
		uint64_t memory;
		unsigned max, K, P;
	} c[] = {
		{4096, 1, 3, 11}, {4096, 1, 1, 1},   {4096, 1, 2, 64},  {4096, 1, 5, 63},
		{4096, 1, 3, 65}, {4096, 1, 4, 200}, {4096, 1, 6, 30},  {4096, 1, 8, 20},
		{4096, 1, 16, 9}, {64, 1, 2, 60},    {64, 1, 1, 512},   {64, 1, 7, 3},
		{4096, 3, 3, 20}, {4096, 7, 4, 50},  {4096, 255, 2, 30}, {64, 3, 2, 21},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		for (unsigned chunk = 7; chunk <= 70000; chunk *= 100)
			for (int far = 0; far <= 1; far++)
				sbf_model(c[i].memory, c[i].max, c[i].K, c[i].P, chunk, far);
}

/*
 * RSBF, BSBF, BSBFSD, RLBSBF (ALGORITHMS.md §2-5; seed 000: Bera, Dutta, Narang and
 * Bhattacherjee, "Advanced Bloom filter based algorithms for efficient approximate data
 * de-duplication in streams", Algorithms 1-4): k arrays of s = 64 * floor(memory / 8 / k)
 * bits, one byte per bit here. Key i (from 1) probes h_j = mulhi(h1 + j * h2, s) in
 * array j: DUPLICATE iff all k bits are 1. Each key then takes a fixed number of PRNG
 * draws r[], in this order, used or not: bsbf k, bsbfsd 2, rlbsbf 2k, rsbf k + 1.
 *   bsbf    DISTINCT: reset bit mulhi(r[j], s) of each array j, then set the k bits.
 *   bsbfsd  DISTINCT: reset bit mulhi(r[1], s) of array mulhi(r[0], k), then set.
 *   rlbsbf  DISTINCT: in each array j, reset bit mulhi(r[j], s) if mulhi(r[k + j], s) is
 *           below L_j (the array's count of 1 bits: probability L_j / s); then set.
 *   rsbf    phase 3 (i > s and s / i <= p*): in each array whose bit h_j is 0, reset the
 *           first 1 bit at or after mulhi(r[j], s) (wrapping), then set h_j. Else phase 1
 *           (i <= s) always, phase 2 when mulhi(r[k], i) < s (probability s / i),
 *           whatever the verdict: set the k bits, then reset bit mulhi(r[j], s) of each
 *           array j.
 */
static void ba_model(enum pd_filter_type type, uint64_t memory, unsigned K, unsigned chunk,
		     bool far)
{
	const size_t n = 60000;
	const uint64_t seed = 0xba0 + (uint64_t)type * 977 + memory + K, s = 64 * (memory / 8 / K);
	const double pstar = 0.03;
	const unsigned ndraw = type == PD_FILTER_BSBFSD ? 2 :
			       type == PD_FILTER_RLBSBF ? 2 * K :
			       type == PD_FILTER_RSBF ? K + 1 : K;
	uint8_t *bit = calloc(K * s, 1), *v = malloc(n);
	uint64_t load[PD_MAX_HASHES] = {0};
	uint64_t *k = tu_keys(n, 2 * s, seed);
	struct pd_prng prng;
	size_t dups = 0, phase3 = 0;
	struct pd_filter *f = tu_create((struct pd_filter_params){
		.type = type, .memory_bytes = memory, .seed = seed, .k = K,
		.rsbf_pstar = type == PD_FILTER_RSBF ? pstar : 0});

	assert_non_null(bit);
	run_chunks(f, k, v, n, chunk, far);
	pd_prng_seed(&prng, seed);
#define BIT(j, x) bit[(uint64_t)(j) * s + (x)]
#define SET(j, x) (load[j] += BIT(j, x) == 0, BIT(j, x) = 1)
#define RESET(j, x) (load[j] -= BIT(j, x) != 0, BIT(j, x) = 0)
	for (size_t i = 0; i < n; i++) {
		const uint64_t it = i + 1, h1 = key_hash(k[i], seed), h2 = pd_hash2(h1);
		uint64_t pos[PD_MAX_HASHES], r[2 * PD_MAX_HASHES];
		uint8_t dup = 1;

		for (unsigned j = 0; j < K; j++) {
			pos[j] = pd_range(h1 + j * h2, s);
			dup &= BIT(j, pos[j]);
		}
		if (v[i] != dup)
			fail_msg("%s memory %llu k %u chunk %u far %d: key %zu is %s, the model "
				 "says %s", pd_filter_type_name(type), (unsigned long long)memory, K,
				 chunk, far, i, v[i] ? "DUPLICATE" : "DISTINCT",
				 dup ? "DUPLICATE" : "DISTINCT");
		dups += dup;
		for (unsigned d = 0; d < ndraw; d++)
			r[d] = pd_prng_next(&prng);
		if (type == PD_FILTER_RSBF) {
			if (it > s && (double)s / (double)it <= pstar) {
				phase3++;
				for (unsigned j = 0; j < K; j++) {
					if (BIT(j, pos[j]))
						continue;
					for (uint64_t t = 0, x = pd_range(r[j], s); t < s; t++)
						if (BIT(j, (x + t) % s)) {
							RESET(j, (x + t) % s);
							break;
						}
					SET(j, pos[j]);
				}
			} else if (it <= s || pd_range(r[K], it) < s) {
				for (unsigned j = 0; j < K; j++)
					SET(j, pos[j]);
				for (unsigned j = 0; j < K; j++)
					RESET(j, pd_range(r[j], s));
			}
			continue;
		}
		if (dup)
			continue;
		if (type == PD_FILTER_BSBFSD)
			RESET(pd_range(r[0], K), pd_range(r[1], s));
		for (unsigned j = 0; j < K && type == PD_FILTER_BSBF; j++)
			RESET(j, pd_range(r[j], s));
		for (unsigned j = 0; j < K && type == PD_FILTER_RLBSBF; j++)
			if (pd_range(r[K + j], s) < load[j])
				RESET(j, pd_range(r[j], s));
		for (unsigned j = 0; j < K; j++)
			SET(j, pos[j]);
	}
#undef BIT
#undef SET
#undef RESET
	/* both verdicts occur (600 of each at least), or the comparison proves little;
	 * rsbf's small tables reach phase 3 (s / i <= p* from i = 34 s) */
	both_verdicts(pd_filter_type_name(type), dups, n);
	if (type == PD_FILTER_RSBF && 34 * s < n)
		assert_true(phase3 > 0);
	pd_filter_destroy(f);
	free(bit);
	free(k);
	free(v);
}

/* Each sampling filter with one array and several, tables small enough for rsbf to reach
 * phase 3 (64 and 256 bytes) and larger (phases 1 and 2 only), bursts of 7, 700 and the
 * whole stream, both prefetches. */
static void test_ba_model(void **state)
{
	static const enum pd_filter_type types[] = {PD_FILTER_RSBF, PD_FILTER_BSBF,
						    PD_FILTER_BSBFSD, PD_FILTER_RLBSBF};
	static const struct {
		uint64_t memory;
		unsigned K;
	} c[] = {{64, 1}, {256, 2}, {4096, 2}, {4096, 3}, {8192, 8}};

	(void)state;
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
			for (unsigned chunk = 7; chunk <= 70000; chunk *= 100)
				for (int far = 0; far <= 1; far++)
					ba_model(types[t], c[i].memory, c[i].K, chunk, far);
}

/*
 * Bloom (ALGORITHMS.md §8; seed 001 §2.3): m = 64 * floor(memory / 8) bits; key probes
 * h_j = mulhi(h1 + j * h2, m); DUPLICATE iff all k bits are 1; a DISTINCT key sets them.
 */
static void bloom_model(uint64_t memory, unsigned K, unsigned chunk, bool far)
{
	const size_t n = 40000;
	const uint64_t seed = 0xb100 + memory + K, m = 64 * (memory / 8);
	uint8_t *bit = calloc(m, 1), *v = malloc(n);
	uint64_t *k = tu_keys(n, m / K, seed);
	size_t dups = 0;
	struct pd_filter *f = tu_create((struct pd_filter_params){
		.type = PD_FILTER_BLOOM, .memory_bytes = memory, .seed = seed, .k = K});

	assert_non_null(bit);
	run_chunks(f, k, v, n, chunk, far);
	for (size_t i = 0; i < n; i++) {
		const uint64_t h1 = key_hash(k[i], seed), h2 = pd_hash2(h1);
		uint8_t dup = 1;

		for (unsigned j = 0; j < K; j++)
			dup &= bit[pd_range(h1 + j * h2, m)];
		if (v[i] != dup)
			fail_msg("bloom memory %llu k %u chunk %u far %d: key %zu: filter %d, "
				 "model %d", (unsigned long long)memory, K, chunk, far, i, v[i], dup);
		dups += dup;
		for (unsigned j = 0; j < K; j++)
			bit[pd_range(h1 + j * h2, m)] = 1;
	}
	both_verdicts("bloom", dups, n);
	pd_filter_destroy(f);
	free(bit);
	free(k);
	free(v);
}

/*
 * lru and fpbuffering (ALGORITHMS.md §8; seed 001 §2.2, §5.2): the last B = memory / 8
 * distinct keys (as their 64-bit hashes), most recent first. A key in the list is
 * DUPLICATE and moves to the front; else it is DISTINCT (fpbuffering: DUPLICATE when the
 * key's PRNG draw r has (r >> 11) * 2^-53 < q; fpbuffering draws once per key, used or
 * not), the last key leaves a full list, and the key goes to the front.
 */
static void lru_model(double q, uint64_t memory, unsigned chunk, bool far)
{
	const size_t n = 40000, cap = memory / 8;
	const uint64_t seed = 0x1e0 + memory + (q > 0);
	uint64_t *list = calloc(cap, sizeof(*list)), *k = tu_keys(n, 3 * cap, seed);
	uint8_t *v = malloc(n);
	struct pd_prng prng;
	size_t len = 0, dups = 0;
	struct pd_filter *f = tu_create((struct pd_filter_params){
		.type = q > 0 ? PD_FILTER_FPBUFFERING : PD_FILTER_LRU, .memory_bytes = memory,
		.seed = seed, .fpbuf_q = q});

	assert_non_null(list);
	run_chunks(f, k, v, n, chunk, far);
	pd_prng_seed(&prng, seed);
	for (size_t i = 0; i < n; i++) {
		const uint64_t h = key_hash(k[i], seed), r = q > 0 ? pd_prng_next(&prng) : 0;
		size_t at = 0;
		uint8_t want;

		while (at < len && list[at] != h)
			at++;
		if (at < len) {
			want = 1;
		} else {
			want = q > 0 && (double)(r >> 11) * 0x1.0p-53 < q;
			at = len < cap ? len++ : cap - 1; /* the last one leaves a full list */
		}
		memmove(list + 1, list, at * sizeof(*list));
		list[0] = h;
		if (v[i] != want)
			fail_msg("%s memory %llu chunk %u far %d: key %zu: filter %d, model %d",
				 q > 0 ? "fpbuffering" : "lru", (unsigned long long)memory, chunk,
				 far, i, v[i], want);
		dups += want;
	}
	both_verdicts(q > 0 ? "fpbuffering" : "lru", dups, n);
	pd_filter_destroy(f);
	free(list);
	free(k);
	free(v);
}

/*
 * timerbf (ALGORITHMS.md §9; seed 002 §4): m = memory / 4 timers holding expiry times,
 * 0 = never set. Key i comes at time t = i + 1 (one unit per key; W below 2^20 units is
 * kept exactly). It probes h_j = mulhi(h1 + j * h2, m): DUPLICATE iff every timer is live
 * (expiry > t) and, with k' > 1, at least k' of them hold the same expiry. Then (seen:
 * always; delivered: when DISTINCT) its k timers become t + W + 1.
 */
/* The model's verdict for a key at time t (its k positions into pos): every timer live
 * (expiry > t) and, with k' > 1, at least k' of them holding one expiry. */
static uint8_t timerbf_verdict(const uint64_t *timer, uint64_t m, uint64_t key, uint64_t seed,
			       unsigned K, unsigned kprime, uint64_t t, uint64_t *pos)
{
	const uint64_t h1 = key_hash(key, seed), h2 = pd_hash2(h1);
	unsigned live = 0, most = 0;

	for (unsigned j = 0; j < K; j++) {
		pos[j] = pd_range(h1 + j * h2, m);
		live += timer[pos[j]] > t;
	}
	for (unsigned a = 0; a < K; a++) { /* the most timers with one expiry */
		unsigned same = 0;

		for (unsigned c = 0; c < K; c++)
			same += timer[pos[c]] == timer[pos[a]];
		most = same > most ? same : most;
	}
	return live == K && (kprime <= 1 || most >= kprime);
}

static void timerbf_model(enum pd_window_mode mode, unsigned kprime, uint64_t memory,
			  unsigned K, uint64_t W, unsigned chunk, bool far)
{
	const size_t n = 40000;
	const uint64_t seed = 0x7b0 + memory + K + W + kprime + mode, m = memory / 4;
	uint64_t *timer = calloc(m, sizeof(*timer)), *k = tu_keys(n, 4 * W, seed);
	uint8_t *v = malloc(n);
	size_t dups = 0;
	struct pd_filter *f = tu_create((struct pd_filter_params){
		.type = PD_FILTER_TIMERBF, .memory_bytes = memory, .seed = seed, .k = K,
		.window = W, .window_mode = mode, .equal_timers = kprime});

	assert_non_null(timer);
	run_chunks(f, k, v, n, chunk, far);
	for (size_t i = 0; i < n; i++) {
		const uint64_t t = i + 1;
		uint64_t pos[PD_MAX_HASHES];
		const uint8_t want = timerbf_verdict(timer, m, k[i], seed, K, kprime, t, pos);

		if (v[i] != want)
			fail_msg("timerbf %s k' %u memory %llu k %u W %llu chunk %u far %d: key %zu: "
				 "filter %d, model %d", mode == PD_WINDOW_SEEN ? "seen" : "delivered",
				 kprime, (unsigned long long)memory, K, (unsigned long long)W, chunk,
				 far, i, v[i], want);
		dups += want;
		if (want && mode == PD_WINDOW_DELIVERED)
			continue;
		for (unsigned j = 0; j < K; j++)
			timer[pos[j]] = t + W + 1;
	}
	both_verdicts("timerbf", dups, n);
	pd_filter_destroy(f);
	free(timer);
	free(k);
	free(v);
}

/*
 * timerbf over long stretches of time: the same model with 64-bit expiries, fed times that
 * reach the filter's sweep (2^30 units), wrap (2^31, 2^32) and re-anchor (2^29 back) points
 * within a few thousand keys: lulls just under and over each power, keys stamped up to
 * 2^28 units late, one frame stamped far ahead of the rest, and clock steps back. The
 * model follows timerbf.c's three rules in plain 64-bit numbers (N = newest time, S = last
 * sweep): a key stamped more than 2^29 before N clears every timer and sets N = S = t; a
 * key with t - S >= 2^30 (or t - N >= 2^31) zeroes the timers whose expiry is not after t
 * and sets S = t. A 32-bit timer that wraps into a false "live" (the defect of a lull of
 * 2^31 units between two sweeps) gives a verdict the model does not.
 */
static uint64_t tm_step(uint64_t *rng, uint64_t *prev)
{
	static const uint64_t lull[] = {1ULL << 29, 1ULL << 30, 1ULL << 31, 1ULL << 32,
					3ULL << 30, 5ULL << 31, (1ULL << 31) + (1ULL << 30)};
	const uint64_t r = tu_splitmix(rng), pick = r % 1000;
	uint64_t t;

	if (pick < 6) { /* a lull near a power: just under, at or just over */
		t = *prev + lull[(r >> 10) % 7] + (r >> 20) % 4096 - 2048;
	} else if (pick < 40) { /* late by up to 2^28 units */
		return *prev - (r >> 10) % (1ULL << 28);
	} else if (pick < 42) { /* one frame far ahead of the rest */
		return *prev + (1ULL << 29) + (r >> 10) % (1ULL << 33);
	} else if (pick < 44) { /* the clock steps back by more than 2^29 */
		t = *prev - (1ULL << 29) - 1 - (r >> 10) % (1ULL << 31);
	} else {
		t = *prev + (r >> 10) % 8;
	}
	*prev = t;
	return t;
}

static void timerbf_time_model(enum pd_window_mode mode, unsigned kprime, unsigned chunk)
{
	const size_t n = 60000;
	const unsigned K = 4;
	const uint64_t W = 1000, memory = 16384, m = memory / 4, seed = 0x71e + mode + kprime;
	uint64_t *timer = calloc(m, sizeof(*timer)), *k = tu_keys(n, 600, seed);
	uint64_t *ts = malloc(n * sizeof(*ts)), rng = seed, prev = 1ULL << 40;
	uint64_t big = 0, sweeps = 0, anchors = 0, N = 0, S = 0;
	uint8_t *v = malloc(n);
	size_t dups = 0;
	struct pd_filter *f = tu_create((struct pd_filter_params){
		.type = PD_FILTER_TIMERBF, .memory_bytes = memory, .seed = seed, .k = K,
		.window = W, .window_mode = mode, .equal_timers = kprime});

	assert_non_null(timer);
	assert_non_null(ts);
	for (size_t i = 0; i < n; i++)
		ts[i] = tm_step(&rng, &prev);
	for (size_t i = 0; i < n; i += chunk)
		pd_filter_burst_u64(f, k + i, ts + i, v + i, n - i < chunk ? n - i : chunk);
	for (size_t i = 0; i < n; i++) {
		const uint64_t t = ts[i];
		uint64_t pos[PD_MAX_HASHES];
		uint8_t want;

		if (i == 0 || (t < N && N - t > (1ULL << 29))) {
			anchors += i > 0;
			memset(timer, 0, m * sizeof(*timer));
			N = S = t;
		} else if (t > N) {
			if (t - S >= (1ULL << 30) || t - N >= (1ULL << 31)) {
				for (uint64_t c = 0; c < m; c++)
					timer[c] = timer[c] > t ? timer[c] : 0;
				S = t;
				sweeps++;
			}
			big += t - N >= (1ULL << 29);
			N = t;
		}
		want = timerbf_verdict(timer, m, k[i], seed, K, kprime, t, pos);
		if (v[i] != want)
			fail_msg("timerbf over time, %s k' %u chunk %u: key %zu at %llu (newest "
				 "%llu): filter %d, model %d",
				 mode == PD_WINDOW_SEEN ? "seen" : "delivered", kprime, chunk, i,
				 (unsigned long long)t, (unsigned long long)N, v[i], want);
		dups += want;
		if (want && mode == PD_WINDOW_DELIVERED)
			continue;
		for (unsigned j = 0; j < K; j++) /* a timer is never moved back */
			if (timer[pos[j]] < t + W + 1)
				timer[pos[j]] = t + W + 1;
	}
	/* the stream reached every point it is meant to test */
	assert_true(big >= 50 && sweeps >= 50 && anchors >= 20);
	both_verdicts("timerbf over time", dups, n);
	pd_filter_destroy(f);
	free(timer);
	free(ts);
	free(k);
	free(v);
}

static void test_timerbf_long_time(void **state)
{
	(void)state;
	for (int mode = 0; mode <= 1; mode++)
		for (unsigned chunk = 5; chunk <= 500; chunk *= 10) {
			timerbf_time_model(mode ? PD_WINDOW_DELIVERED : PD_WINDOW_SEEN, 0, chunk);
			timerbf_time_model(mode ? PD_WINDOW_DELIVERED : PD_WINDOW_SEEN, 3, chunk);
		}
}

/* Bloom, lru, fpbuffering and timerbf (both modes, with and without equal timers) on
 * tables small enough to fill, bursts of 7, 700 and the whole stream, both prefetches. */
static void test_other_models(void **state)
{
	(void)state;
	for (unsigned chunk = 7; chunk <= 70000; chunk *= 100)
		for (int far = 0; far <= 1; far++) {
			bloom_model(4096, 3, chunk, far);
			bloom_model(512, 1, chunk, far);
			bloom_model(8192, 8, chunk, far);
			lru_model(0, 512, chunk, far);
			lru_model(0.05, 512, chunk, far);
			lru_model(0, 64, chunk, far);
			for (int mode = 0; mode <= 1; mode++) {
				const enum pd_window_mode wm = mode ? PD_WINDOW_DELIVERED :
								      PD_WINDOW_SEEN;

				timerbf_model(wm, 0, 4096, 4, 300, chunk, far);
				timerbf_model(wm, 0, 8192, 2, 1000, chunk, far);
				timerbf_model(wm, 3, 2048, 4, 500, chunk, far);
				timerbf_model(wm, 6, 4096, 8, 300, chunk, far);
			}
		}
}

/*
 * QHT, QHTD, QQHTD (ALGORITHMS.md §6-7; Geraud et al., "Quotient hash tables"): rows of b
 * fingerprints as plain arrays. The row of hash h is line * rpl + slot, line =
 * mulhi(h, lines), slot = mulhi(low half of h * lines, rpl), rpl = floor(512 / (b*f))
 * (qht.c's packing); fp = 1 + mulhi(hash2(h), 2^f - 1). Per key: DUPLICATE iff fp is in
 * the row; qht (when DISTINCT) and qhtd (always) then store fp in the first empty bucket,
 * or in bucket mulhi(r, b) of the key's PRNG draw r when the row is full (one draw per
 * key, used or not); qqhtd drops bucket 0, moves the others down, appends fp.
 */
static void qht_model(enum pd_filter_type type, unsigned b, unsigned fb, unsigned chunk,
		      bool far)
{
	const size_t n = 40000;
	const uint64_t memory = 4096, lines = memory / 64, seed = 0x9a7 + b * 37 + fb;
	const unsigned rpl = 512 / (b * fb);
	const uint64_t rows = lines * rpl, fpmax = (1ULL << fb) - 1;
	uint32_t *row = calloc(rows * b, sizeof(uint32_t));
	uint8_t *v = malloc(n);
	/* copies come back while a row still holds them, and after: both verdicts */
	uint64_t *k = tu_keys(n, rows * b, seed);
	struct pd_prng prng;
	size_t dups = 0;
	struct pd_filter *f = tu_create((struct pd_filter_params){
		.type = type, .memory_bytes = memory, .seed = seed, .qht_b = b, .qht_f = fb});

	assert_non_null(row);
	run_chunks(f, k, v, n, chunk, far);
	pd_prng_seed(&prng, seed);
	for (size_t i = 0; i < n; i++) {
		const uint64_t h = key_hash(k[i], seed);
		const pd_u128 wide = (pd_u128)h * lines;
		uint32_t *r = &row[((uint64_t)(wide >> 64) * rpl + pd_range((uint64_t)wide, rpl)) * b];
		const uint32_t fp = (uint32_t)(1 + pd_range(pd_hash2(h), fpmax));
		const uint64_t draw = type == PD_FILTER_QQHTD ? 0 : pd_prng_next(&prng);
		uint8_t dup = 0;
		unsigned e = b;

		for (unsigned j = 0; j < b; j++)
			dup |= r[j] == fp;
		if (v[i] != dup)
			fail_msg("%s b %u f %u chunk %u far %d: key %zu is %s, the model says %s",
				 pd_filter_type_name(type), b, fb, chunk, far, i,
				 v[i] ? "DUPLICATE" : "DISTINCT", dup ? "DUPLICATE" : "DISTINCT");
		dups += dup;
		if (type == PD_FILTER_QQHTD) {
			for (unsigned j = 0; j + 1 < b; j++)
				r[j] = r[j + 1];
			r[b - 1] = fp;
			continue;
		}
		if (dup && type == PD_FILTER_QHT)
			continue;
		for (unsigned j = b; j-- > 0;)
			if (r[j] == 0)
				e = j;
		r[e < b ? e : pd_range(draw, b)] = fp;
	}
	/* both verdicts occur, or the comparison proves little (f = 1: every fingerprint is
	 * 1, and a key is DISTINCT only in an empty row) */
	if (dups < n / 100 || dups > n - n / 100)
		fail_msg("%s b %u f %u: %zu of %zu DUPLICATE", pd_filter_type_name(type), b, fb,
			 dups, n);
	pd_filter_destroy(f);
	free(row);
	free(k);
	free(v);
}

/* Rows in one word (straddling words or not), over several words, a whole line, and
 * fingerprints of 1 to 32 bits, through bursts of 1 to a whole stream and both
 * prefetches. */
static void test_qht_model(void **state)
{
	static const unsigned shape[][2] = {
		{1, 20}, {2, 21}, {3, 21}, {4, 16}, {7, 9},  {6, 3},   {5, 13}, {4, 22},
		{8, 23}, {20, 25}, {17, 30}, {16, 32}, {64, 8}, {32, 1}, {13, 5}, {3, 32},
	};
	static const enum pd_filter_type type[] = {PD_FILTER_QHT, PD_FILTER_QHTD, PD_FILTER_QQHTD};
	static const unsigned chunk[] = {1, 7, 150, 40000};

	(void)state;
	for (size_t s = 0; s < sizeof(shape) / sizeof(shape[0]); s++)
		for (size_t t = 0; t < 3; t++)
			for (size_t c = 0; c < 4; c++)
				qht_model(type[t], shape[s][0], shape[s][1], chunk[c], c == 2);
}

/*
 * Windowed rows (qqhtdw.c; windowed QQHTD and windowed qhtlru), as plain arrays of
 * (fingerprint, time) with times in whole units, none of the library's packing. Row =
 * mulhi(h, rows), rows = memory / 64; fp = 1 + mulhi(hash2(h), 2^f - 1). An entry has
 * A = 32 - f (f <= 26) or 64 - f age bits; units are 2^s ns with s the smallest shift
 * with (W >> s) < 2^(A-1), and a gap of W_units = W (s = 0) or (W >> s) - 1 units is the
 * widest that matches. An entry is stale once the row's newest time is 2^A - 1 units or
 * more past it (its age saturated). A key at time t (units) is DUPLICATE iff an entry
 * with its fp is not stale and t - time <= W_units (a newer entry counts). Then (seen:
 * always; delivered: when DISTINCT) FIFO rows drop the oldest entry and append (fp, t);
 * LRU rows take out the key's own entry, or the oldest when there is none, and append
 * (fp, max(t, that entry's time)). The row's newest time is the largest appended.
 */
struct wentry {
	uint64_t fp;
	int64_t t;
};

static void rowage_model(enum pd_filter_type type, unsigned b, unsigned fb, uint64_t W,
			 enum pd_window_mode mode, uint64_t jitter, unsigned chunk, bool far)
{
	const size_t n = 30000;
	const uint64_t memory = 4096, rows = memory / 64, fpmax = (1ULL << fb) - 1;
	const uint64_t seed = 0x5eed + b * 131 + fb * 7 + W;
	const unsigned abits = (fb <= 26 ? 32 : 64) - fb;
	const bool lru = type == PD_FILTER_QHTLRU;
	unsigned s = 0;
	uint64_t wu, amax = abits >= 64 ? UINT64_MAX : (1ULL << abits) - 1, r = seed;
	struct wentry *row = calloc(rows * b, sizeof(*row));
	int64_t *rtime = calloc(rows, sizeof(*rtime));
	uint64_t *k = tu_keys(n, rows * b * 2, seed), *ts = malloc(n * sizeof(*ts));
	uint64_t *h = malloc(n * sizeof(*h)), *d = malloc(n * sizeof(*d));
	uint8_t *v = malloc(n);
	size_t dups = 0;
	struct pd_filter *f = tu_create((struct pd_filter_params){
		.type = type, .memory_bytes = memory, .seed = seed, .qht_b = b, .qht_f = fb,
		.window = W, .window_mode = mode});

	assert_true(row && rtime && ts && h && d && v);
	while ((W >> s) >= (1ULL << (abits - 1)))
		s++;
	wu = s == 0 ? W : (W >> s) - 1;
	/* keys W / (rows b) + 1 ns apart, a copy about 2 rows b keys after its original:
	 * gaps around 2 W, so some copies fall within W and some beyond; jitter reorders */
	for (size_t i = 0; i < n; i++)
		ts[i] = (1ULL << 40) + i * (W / (rows * b) + 1) + (jitter ? tu_splitmix(&r) % jitter : 0);
	if (far)
		f->far_bytes = 0;
	for (size_t i = 0; i < n; i++)
		h[i] = key_hash(k[i], seed);
	for (size_t i = 0; i < n; i += chunk)
		pd_filter_burst_hashed_delay(f, h + i, ts + i, v + i, d + i,
					     n - i < chunk ? n - i : chunk);
	for (size_t i = 0; i < n; i++) {
		const uint64_t ri = pd_range(h[i], rows), fp = 1 + pd_range(pd_hash2(h[i]), fpmax);
		const int64_t t = (int64_t)(ts[i] >> s);
		struct wentry *e = &row[ri * b];
		unsigned at = b, out = 0;
		int64_t best = INT64_MIN;
		uint8_t dup;
		uint64_t delay;

		for (unsigned j = 0; j < b; j++) {
			const bool live = e[j].fp != 0 && (uint64_t)(rtime[ri] - e[j].t) < amax;

			if (e[j].fp == fp)
				at = j;
			if (live && e[j].fp == fp && (t <= e[j].t || (uint64_t)(t - e[j].t) <= wu))
				best = e[j].t > best ? e[j].t : best;
		}
		dup = best != INT64_MIN;
		delay = !dup ? PD_DELAY_NONE : t > best ? (uint64_t)(t - best) << s : 0;
		if (v[i] != dup || d[i] != delay)
			fail_msg("%s b %u f %u W %llu %s jitter %llu chunk %u far %d: key %zu is "
				 "%s (delay %llu), the model says %s (%llu)",
				 pd_filter_type_name(type), b, fb, (unsigned long long)W,
				 mode ? "delivered" : "seen", (unsigned long long)jitter, chunk, far,
				 i, v[i] ? "DUPLICATE" : "DISTINCT", (unsigned long long)d[i],
				 dup ? "DUPLICATE" : "DISTINCT", (unsigned long long)delay);
		dups += dup;
		if (mode == PD_WINDOW_DELIVERED && dup)
			continue;
		if (lru && at < b)
			out = at;
		struct wentry add = {fp, lru && at < b && e[at].t > t ? e[at].t : t};

		for (unsigned j = out; j + 1 < b; j++)
			e[j] = e[j + 1];
		e[b - 1] = add;
		rtime[ri] = t > rtime[ri] ? t : rtime[ri];
	}
	if (dups < n / 50 || dups > n - n / 50)
		fail_msg("%s b %u f %u W %llu: %zu of %zu DUPLICATE", pd_filter_type_name(type), b,
			 fb, (unsigned long long)W, dups, n);
	pd_filter_destroy(f);
	free(row);
	free(rtime);
	free(k);
	free(ts);
	free(h);
	free(d);
	free(v);
}

/* Both row kinds, both modes, windows kept in whole ns and in coarse units, times in
 * order and out of order by up to three windows (ages saturate), 4- and 8-byte entries,
 * bursts of 1 to the whole stream and both prefetches. */
static void test_rowage_model(void **state)
{
	static const struct {
		enum pd_filter_type type;
		unsigned b, f;
	} shape[] = {
		{PD_FILTER_QHTLRU, 14, 24}, {PD_FILTER_QHTLRU, 14, 12}, {PD_FILTER_QHTLRU, 7, 32},
		{PD_FILTER_QHTLRU, 5, 27},  {PD_FILTER_QHTLRU, 1, 20},  {PD_FILTER_QHTLRU, 9, 26},
		{PD_FILTER_QQHTD, 14, 16},  {PD_FILTER_QQHTD, 7, 32},   {PD_FILTER_QQHTD, 3, 16},
	};
	static const uint64_t window[] = {100, 1000000};
	static const unsigned chunk[] = {1, 7, 150, 30000};

	(void)state;
	for (size_t i = 0; i < sizeof(shape) / sizeof(shape[0]); i++)
		for (size_t w = 0; w < 2; w++)
			for (unsigned m = 0; m < 2; m++)
				for (unsigned j = 0; j < 3; j++)
					rowage_model(shape[i].type, shape[i].b, shape[i].f,
						     window[w], (enum pd_window_mode)m,
						     window[w] * (j == 0 ? 0 : j == 1 ? 1 : 6) / 2,
						     chunk[(i + w + m + j) % 4], (i + j) % 2);
}

/*
 * Every filter (and the windowed qqhtd): the prefetch used for state larger than twice
 * the L2 cache (into L2, further ahead), forced here on a small table, gives the verdicts
 * of the one used for small state, in bursts of 1 to 150 keys with pd_filter_prefetch()
 * hints in between. Hints and distances change the speed, never a verdict.
 */
static void test_far_same_verdicts(void **state)
{
	const size_t n = 30000;
	uint64_t *k = tu_keys(n, 6000, 77);
	uint8_t *a = malloc(n), *b = malloc(n);

	(void)state;
	for (unsigned t = 0; t <= PD_FILTER_COUNT; t++) {
		struct pd_filter_params p = {.type = (enum pd_filter_type)t, .memory_bytes = 4096,
					     .seed = 42, .target_fpr = 0.05};
		uint64_t r = 5;

		if (t == PD_FILTER_TIMERBF)
			p.window = 3000;
		if (t == PD_FILTER_COUNT) { /* windowed qqhtd */
			p.type = PD_FILTER_QQHTD;
			p.window = 3000;
		}
		struct pd_filter *near = tu_create(p), *far = tu_create(p);
		size_t dups = 0;

		far->far_bytes = 0;
		pd_filter_burst_u64(near, k, NULL, a, n);
		for (size_t i = 0; i < n;) {
			size_t len = 1 + tu_splitmix(&r) % 150;

			if (len > n - i)
				len = n - i;
			for (size_t j = i + len; j < i + 2 * len && j < n; j++)
				pd_filter_prefetch(far, pd_filter_hash(far, &k[j], sizeof(k[j])));
			pd_filter_burst_u64(far, &k[i], NULL, &b[i], len);
			i += len;
		}
		for (size_t i = 0; i < n; i++) {
			if (a[i] != b[i])
				fail_msg("%s%s: key %zu differs with the large-state prefetch",
					 pd_filter_type_name(p.type), p.window ? " (window)" : "",
					 i);
			dups += a[i];
		}
		assert_true(dups > 0 && dups < n);
		pd_filter_destroy(near);
		pd_filter_destroy(far);
	}
	free(k);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sbf_model),
		cmocka_unit_test(test_ba_model),
		cmocka_unit_test(test_other_models),
		cmocka_unit_test(test_timerbf_long_time),
		cmocka_unit_test(test_qht_model),
		cmocka_unit_test(test_rowage_model),
		cmocka_unit_test(test_far_same_verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
