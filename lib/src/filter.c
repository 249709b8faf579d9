/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The front of every filter: names, validation through the planner, dispatch to the
 * variant's ops, keyed hashing, chunking of bursts, counters. Above the registry
 * (filters.c) and the variants; what they share is below them all (util.c).
 */
#include <stdio.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <pktdedup/pd_plan.h>

#include "filter_private.h"

_Static_assert(sizeof(((struct pd_filter *)0)->xxh_secret) == XXH3_SECRET_DEFAULT_SIZE,
	       "xxh_secret holds XXH3's default-size secret");

int pd_filter_params_resolve(const struct pd_filter_params *in, struct pd_filter_params *out,
			     struct pd_error *err)
{
	struct pd_plan plan;

	if (pd_plan(in, &plan, err) != 0)
		return -1;
	*out = plan.params;
	return 0;
}

/*
 * State above this size is "far" (filter_private.h): twice the core's L2 cache, where
 * prefetching into L2 only started to pay on the development machine (timerbf and rsbf
 * at 2, 4 and 8 MiB with a 1 MiB L2, docs/speed.md). 1 MiB when the C library cannot say.
 */
static uint64_t far_bytes(void)
{
	long l2 = -1;

#ifdef _SC_LEVEL2_CACHE_SIZE
	l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
	return 2 * (l2 > 0 ? (uint64_t)l2 : (uint64_t)1 << 20);
}

/* The filter of parameters pd_plan() resolved and checked. */
static struct pd_filter *create_checked(const struct pd_filter_params *checked,
					struct pd_error *err)
{
	struct pd_filter_params p = *checked;
	struct pd_filter *f = pd_filter_desc(p.type)->create(&p, err);

	if (f == NULL) { /* the variants say what failed; the filter's name goes first */
		if (err != NULL) {
			char why[sizeof(err->msg)];

			snprintf(why, sizeof(why), "%s", err->msg);
			pd_err(err, err->code, "%s: %s", pd_filter_type_name(p.type), why);
		}
		return NULL;
	}
	f->params = p;
	f->far_bytes = far_bytes();
	f->far = f->footprint_bytes > f->far_bytes;
	XXH3_generateSecret_fromSeed(f->xxh_secret, p.seed);
	pd_prng_seed(&f->prng, p.seed);
	f->keys = 0;
	f->duplicates = 0;
	f->clock = 0;
	return f;
}

struct pd_filter *pd_filter_create(const struct pd_filter_params *params, struct pd_error *err)
{
	struct pd_plan plan;

	if (params == NULL) {
		pd_err(err, PD_EINVAL, "params: NULL");
		return NULL;
	}
	if (pd_plan(params, &plan, err) != 0)
		return NULL;
	return create_checked(&plan.params, err);
}

struct pd_filter *pd_filter_create_planned(const struct pd_plan *plan, struct pd_error *err)
{
	struct pd_plan checked;

	if (plan == NULL) {
		pd_err(err, PD_EINVAL, "plan: NULL");
		return NULL;
	}
	if (pd_filter_desc(plan->params.type) == NULL) {
		pd_err(err, PD_EINVAL, "type: %d is not a filter", (int)plan->params.type);
		return NULL;
	}
	/* The constructors trust their parameters (a zero k divides, a zero b indexes
	 * nothing), and a plan is a plain struct a caller can change: it is planned again,
	 * which checks every field, fills any left zero, and leaves what pd_plan() made as
	 * it was (test_plan: plan_fixed_point). */
	if (pd_plan(&plan->params, &checked, err) != 0) {
		if (err != NULL) {
			char why[sizeof(err->msg)];

			snprintf(why, sizeof(why), "%s", err->msg);
			pd_err(err, err->code, "plan: %s", why);
		}
		return NULL;
	}
	return create_checked(&checked.params, err);
}

void pd_filter_destroy(struct pd_filter *f)
{
	if (f != NULL)
		f->ops->destroy(f);
}

void pd_filter_reset(struct pd_filter *f)
{
	f->ops->reset(f);
	pd_prng_seed(&f->prng, f->params.seed);
	f->keys = 0;
	f->duplicates = 0;
	f->clock = 0;
	f->unstored = 0;
	f->forgotten = 0;
}

const struct pd_filter_params *pd_filter_params(const struct pd_filter *f)
{
	return &f->params;
}

void pd_filter_stats(const struct pd_filter *f, struct pd_filter_stats *st)
{
	st->keys = f->keys;
	st->duplicates = f->duplicates;
	st->state = f->ops->state(f);
	st->state_name = f->ops->state_name;
	st->memory_bits = f->memory_bits;
	st->footprint_bytes = f->footprint_bytes;
	st->unstored = f->unstored;
	st->forgotten = f->forgotten;
}

/* XXH3_64bits_withSeed(key, len, seed): inline up to 240 bytes; longer keys with the
 * seed's secret made once, by the system library's SIMD dispatch (hash_long.c) */
static inline uint64_t hash_bytes(const struct pd_filter *f, const void *key, size_t len)
{
	if (len <= XXH3_MIDSIZE_MAX)
		return XXH3_64bits_withSeed(key, len, f->params.seed);
	return pd_hash_long(key, len, f->xxh_secret, sizeof(f->xxh_secret));
}

uint64_t pd_filter_hash(const struct pd_filter *f, const void *key, size_t len)
{
	return hash_bytes(f, key, len);
}

int pd_filter_is_far(const struct pd_filter *f)
{
	return f->far;
}

void pd_filter_hint_prefetched(struct pd_filter *f, int yes)
{
	f->caller_prefetches = yes != 0;
}

void pd_filter_prefetch(const struct pd_filter *f, uint64_t h)
{
	if (f->ops->prefetch != NULL)
		f->ops->prefetch(f, h);
}

void pd_filter_prefetch_burst(const struct pd_filter *f, const uint64_t *h, unsigned n)
{
	if (f->ops->prefetch_burst != NULL)
		f->ops->prefetch_burst(f, h, n);
	else if (f->ops->prefetch != NULL)
		for (unsigned i = 0; i < n; i++)
			f->ops->prefetch(f, h[i]);
}

/* One chunk of at most PD_BURST_MAX hashed keys: fill the clock, run, count. With d,
 * the delays of duplicates (PD_DELAY_NONE elsewhere). */
static void burst_chunk(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
			uint64_t *d, unsigned n)
{
	uint64_t clk[PD_BURST_MAX];
	unsigned dups = 0;

	f->far = f->footprint_bytes > f->far_bytes; /* exact grows */
	if (ts == NULL && f->ops->timeless) {
		f->clock += n;
	} else if (ts == NULL) {
		for (unsigned i = 0; i < n; i++)
			clk[i] = ++f->clock;
		ts = clk;
	}
	if (d == NULL) {
		f->ops->burst(f, h, ts, v, n);
	} else if (f->ops->burst_delay != NULL) {
		f->ops->burst_delay(f, h, ts, v, d, n);
		for (unsigned i = 0; i < n; i++)
			if (!v[i])
				d[i] = PD_DELAY_NONE;
	} else {
		f->ops->burst(f, h, ts, v, n);
		for (unsigned i = 0; i < n; i++)
			d[i] = PD_DELAY_NONE;
	}
	for (unsigned i = 0; i < n; i++)
		dups += v[i];
	f->keys += n;
	f->duplicates += dups;
}

int pd_filter_reports_delay(const struct pd_filter *f)
{
	return f->ops->burst_delay != NULL;
}

/*
 * State far beyond the caches: each key's first line is prefetched as soon as the key is
 * hashed, so the hashing of the rest of the chunk hides the memory's latency. qhtlru,
 * 64 MiB, 20M 8-byte keys in bursts of 32 (scripts/bench_member.sh --rounds 5): 13.9 ->
 * 13.2 ns/key, qqhtd 12.1 -> 10.8. qhtlru's burst then does not prefetch the lines
 * again (f->prefetched).
 */
typedef void (*prefetch_fn)(const struct pd_filter *f, uint64_t h);

static prefetch_fn early_prefetch(const struct pd_filter *f)
{
	return f->footprint_bytes > f->far_bytes ? f->ops->prefetch : NULL;
}

/* Keyed hashes of c <= PD_BURST_MAX 8-byte keys into h, each key's state prefetched
 * (pf) as soon as it is hashed. */
static inline void hash_u64(const struct pd_filter *f, const uint64_t *keys, uint64_t *h,
			    unsigned c, prefetch_fn pf)
{
	const uint64_t seed = f->params.seed;

	for (unsigned j = 0; j < c; j++) {
		uint64_t le = keys[j];

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		le = __builtin_bswap64(le);
#endif
		h[j] = XXH3_64bits_withSeed(&le, sizeof(le), seed);
		if (pf != NULL)
			pf(f, h[j]);
	}
}

/* Keyed hashes of c <= PD_BURST_MAX byte-string keys into h, each prefetched (pf). */
static inline void hash_keys(const struct pd_filter *f, const void *const *keys,
			     const uint32_t *lens, uint64_t *h, unsigned c, prefetch_fn pf)
{
	for (unsigned j = 0; j < c; j++) {
		h[j] = hash_bytes(f, keys[j], lens[j]);
		if (pf != NULL)
			pf(f, h[j]);
	}
}

/* What a burst call starts from: its hashes, 8-byte keys, or byte strings. */
enum source { HASHES, U64, BYTES };

/* The keys of a call in chunks of PD_BURST_MAX: the length of the chunk at i. */
static inline unsigned chunk_len(size_t n, size_t i)
{
	return (unsigned)(n - i < PD_BURST_MAX ? n - i : PD_BURST_MAX);
}

/* The hashes of keys [i, i + c) of a call: the caller's, or its keys hashed into dst,
 * each key's state prefetched early (pf) when it is far. */
static inline __attribute__((always_inline)) const uint64_t *
chunk_hashes(const struct pd_filter *f, enum source src, const void *in, const uint32_t *lens,
	     size_t i, unsigned c, uint64_t *dst, prefetch_fn pf)
{
	if (src == HASHES)
		return (const uint64_t *)in + i;
	if (src == U64)
		hash_u64(f, (const uint64_t *)in + i, dst, c, pf);
	else
		hash_keys(f, (const void *const *)in + i, lens + i, dst, c, pf);
	return dst;
}

/* Every burst call: chunk by chunk, its hashes, then the chunk run (delays into d when
 * given). Inlined into each call below with its constants: each is the loop it was. */
static inline __attribute__((always_inline)) void
bursts(struct pd_filter *f, enum source src, const void *in, const uint32_t *lens,
       const uint64_t *ts, uint8_t *v, uint64_t *d, size_t n)
{
	uint64_t buf[PD_BURST_MAX];
	const prefetch_fn pf = src != HASHES ? early_prefetch(f) : NULL;

	f->prefetched = src == HASHES ? f->caller_prefetches : pf != NULL;
	for (size_t i = 0; i < n; i += PD_BURST_MAX) {
		const unsigned c = chunk_len(n, i);

		burst_chunk(f, chunk_hashes(f, src, in, lens, i, c, buf, pf), ts ? ts + i : NULL,
			    v + i, d ? d + i : NULL, c);
	}
}

/* Every stage call: the hashes into out, chunk by chunk (prefetched as they come). */
static inline __attribute__((always_inline)) void
stages(const struct pd_filter *f, enum source src, const void *in, const uint32_t *lens,
       uint64_t *out, size_t n)
{
	const prefetch_fn pf = early_prefetch(f);

	for (size_t i = 0; i < n; i += PD_BURST_MAX)
		chunk_hashes(f, src, in, lens, i, chunk_len(n, i), out + i, pf);
}

void pd_filter_burst_hashed(struct pd_filter *f, const uint64_t *hashes, const uint64_t *ts,
			    uint8_t *verdicts, size_t n)
{
	bursts(f, HASHES, hashes, NULL, ts, verdicts, NULL, n);
}

void pd_filter_burst_hashed_delay(struct pd_filter *f, const uint64_t *hashes,
				  const uint64_t *ts, uint8_t *verdicts, uint64_t *delays,
				  size_t n)
{
	bursts(f, HASHES, hashes, NULL, ts, verdicts, delays, n);
}

void pd_filter_burst_u64(struct pd_filter *f, const uint64_t *keys, const uint64_t *ts,
			 uint8_t *verdicts, size_t n)
{
	bursts(f, U64, keys, NULL, ts, verdicts, NULL, n);
}

void pd_filter_stage_u64(const struct pd_filter *f, const uint64_t *keys, uint64_t *hashes,
			 size_t n)
{
	stages(f, U64, keys, NULL, hashes, n);
}

void pd_filter_burst(struct pd_filter *f, const void *const *keys, const uint32_t *lens,
		     const uint64_t *ts, uint8_t *verdicts, size_t n)
{
	bursts(f, BYTES, keys, lens, ts, verdicts, NULL, n);
}

void pd_filter_stage(const struct pd_filter *f, const void *const *keys, const uint32_t *lens,
		     uint64_t *hashes, size_t n)
{
	stages(f, BYTES, keys, lens, hashes, n);
}
