/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private interface of the library's layers, bottom to top, none calling a layer above
 * it (scripts/check_layers.py):
 *   util.c, names.c        errors, table memory, a variant's start (PD_VARIANT_NEW), PRNG
 *                          seeding, window units; the names
 *   rows.h                 the qht family's row geometry and SIMD lane tables
 *   row512.c, row512_x86.c the 512-bit row kernels (row512.h): scalar, AVX2, AVX-512
 *   the variants           sbf.c, bitarrays.c, qht.c, qhtlru.c, qqhtdw.c, bloom.c, lru.c,
 *                          timerbf.c, exact.c (and estimate.c, allow.c beside them)
 *   plan.c                 each family's planner (row geometry from rows.h)
 *   filters.c              the registry: one line per filter (and the qht family's rows)
 *   planner.c, filter.c    pd_plan's checks and dispatch; the front (validation, hashing,
 *                          chunking, stats)
 *   snapshot.c             state images and files
 */
#ifndef PKTDEDUP_FILTER_PRIVATE_H
#define PKTDEDUP_FILTER_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pktdedup/pd_filter.h>

#define PD_CACHE_LINE 64

/* 128-bit product for multiply-shift (a GCC/Clang extension, hence __extension__). */
__extension__ typedef unsigned __int128 pd_u128;
#define PD_ALIGNED __attribute__((aligned(PD_CACHE_LINE)))

struct pd_filter;

/** One region of a fixed-layout filter's state (see sections() below). */
struct pd_section {
	void *p;
	uint64_t len;
};
#define PD_MAX_SECTIONS 4

/** What every variant provides; filled once at create time. */
struct pd_filter_ops {
	/* n <= PD_BURST_MAX keys; ts is never NULL here (the front fills the clock) unless
	 * the filter is timeless. */
	void (*burst)(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		      unsigned n);
	/* burst never reads ts: without the caller's times the front only advances the
	 * clock (writing it for every key cost 0.2 ns of qhtlru's 9.6 ns/key at 64 MiB) */
	bool timeless;
	void (*reset)(struct pd_filter *f);   /* state only; the front resets PRNG, stats */
	void (*destroy)(struct pd_filter *f); /* frees what create allocated, then f */
	double (*state)(const struct pd_filter *f);
	const char *state_name;
	/* optional: start loading the state a later burst will touch for hash h */
	void (*prefetch)(const struct pd_filter *f, uint64_t h);
	/* optional, with prefetch: the same for n hashes in one loop (pktdedup's worker
	 * calling pd_filter_prefetch for each took 13 instructions a key, qhtlru's loop
	 * takes 7: scripts/bench_instr.sh); without it, prefetch for each */
	void (*prefetch_burst)(const struct pd_filter *f, const uint64_t *h, unsigned n);
	/* optional, filters that keep times: burst that also writes, for each DUPLICATE,
	 * the delay since the copy it matched into d[i] (d may be NULL) */
	void (*burst_delay)(struct pd_filter *f, const uint64_t *h, const uint64_t *ts,
			    uint8_t *v, uint64_t *d, unsigned n);

	/*
	 * State for snapshots (snapshot.c), one of two shapes:
	 * - fixed layout: sections() lists the regions that hold the state, copied
	 *   verbatim (cache-line aligned arrays, or small scalars); after a load,
	 *   post_load() (optional) restores what the bytes alone cannot guarantee
	 *   (derived counts, unused bits);
	 * - variable layout (lru, exact): image_size/image_save write a logical image
	 *   (the keys), image_load rebuilds the table from it after a reset.
	 */
	unsigned (*sections)(struct pd_filter *f, struct pd_section *s);
	void (*post_load)(struct pd_filter *f);
	uint64_t (*image_size)(const struct pd_filter *f);
	void (*image_save)(const struct pd_filter *f, uint8_t *out);
	int (*image_load)(struct pd_filter *f, const uint8_t *in, uint64_t len,
			  struct pd_error *err);
};

/** xoshiro256** state (Blackman & Vigna): 4 words, never all zero. */
struct pd_prng {
	uint64_t s[4];
};

/** Common head of every filter; each variant embeds it as its first member. */
struct pd_filter {
	const struct pd_filter_ops *ops;
	struct pd_filter_params params; /* resolved */
	struct pd_prng prng;
	uint64_t keys;
	uint64_t duplicates;
	uint64_t clock;           /* time of the last key when the caller gives no ts */
	uint64_t memory_bits;     /* the paper's M */
	uint64_t footprint_bytes; /* allocated state */
	uint64_t unstored;        /* new keys not remembered: no memory to grow (exact) */
	uint64_t forgotten;       /* whole state forgotten: a clock stepped back (windows) */
	/* state larger than twice the core's L2 cache (far_bytes): prefetch into L2 only,
	 * further ahead (see pd_ahead); set by the front at create and before every chunk */
	bool far;
	uint64_t far_bytes;
	/* the chunk being run had each key's first line prefetched as it was hashed (the
	 * front's early prefetch, or the caller's: pd_filter_hint_prefetched), so the
	 * filter's burst does not ask for it again; set by the front before every chunk */
	bool prefetched;
	bool caller_prefetches; /* pd_filter_hint_prefetched */
	/* XXH3's secret for the seed (XXH3_generateSecret_fromSeed): keys longer than
	 * 240 bytes hash with it instead of deriving it again per key (same hashes) */
	unsigned char xxh_secret[192];
};

/* XXH3 of a key longer than 240 bytes with the secret of the seed (hash_long.c). */
uint64_t pd_hash_long(const void *key, size_t len, const void *secret, size_t secret_len);

/* The tunables a filter takes: bit i is the i-th of planner.c's parameter names. */
enum {
	PD_P_K = 1, PD_P_MAX = 2, PD_P_P = 4, PD_P_PSTAR = 8, PD_P_B = 16, PD_P_F = 32,
	PD_P_Q = 64, PD_P_EXPN = 128, PD_P_WINDOW = 256, PD_P_EQT = 512,
};

struct pd_plan;

/*
 * One filter as the library knows it (filters.c: the table, one line per filter). Its
 * number in a state image (fixed forever: snapshots name filters by it), its tunables,
 * its planner (plan.c), its constructor and how its parameters are shown; its name is
 * pd_filter_type_name's (names.c).
 */
struct pd_filter_desc {
	uint32_t snapshot_id;
	unsigned params;  /* PD_P_* */
	unsigned caps;    /* PD_FILTER_CAN_* */
	/* p's zero tunables chosen for p->target_fpr (set), predictions into out */
	int (*plan)(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err);
	struct pd_filter *(*create)(const struct pd_filter_params *p, struct pd_error *err);
	void (*describe)(const struct pd_filter_params *p, char *buf, size_t len);
};

/* The descriptor of a type, or of a state image's filter number; NULL: none. */
const struct pd_filter_desc *pd_filter_desc(enum pd_filter_type type);
const struct pd_filter_desc *pd_filter_desc_of_id(uint32_t snapshot_id,
						  enum pd_filter_type *type);

/* The planners (plan.c), one per family. */
int pd_plan_sbf(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err);
int pd_plan_rsbf(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err);
int pd_plan_bitarrays(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err);
int pd_plan_qht(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err);
int pd_plan_bloom(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err);
int pd_plan_lru(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err);
int pd_plan_exact(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err);
int pd_plan_qhtlru(struct pd_filter_params *p, struct pd_plan *out, struct pd_error *err);

/* Variant constructors: params are resolved and validated; fill err on failure. */
struct pd_filter *pd_sbf_create(const struct pd_filter_params *p, struct pd_error *err);
struct pd_filter *pd_bitarrays_create(const struct pd_filter_params *p, struct pd_error *err);
struct pd_filter *pd_qht_create(const struct pd_filter_params *p, struct pd_error *err);
struct pd_filter *pd_bloom_create(const struct pd_filter_params *p, struct pd_error *err);
struct pd_filter *pd_lru_create(const struct pd_filter_params *p, struct pd_error *err);
/* Bytes lru and fpbuffering allocate for a budget: 16-byte nodes and their index. */
uint64_t pd_lru_footprint(uint64_t memory_bytes);
struct pd_filter *pd_timerbf_create(const struct pd_filter_params *p, struct pd_error *err);
struct pd_filter *pd_exact_create(const struct pd_filter_params *p, struct pd_error *err);
/* windowed qqhtd (FIFO rows) and windowed qhtlru (LRU rows), by p->type */
struct pd_filter *pd_qqhtdw_create(const struct pd_filter_params *p, struct pd_error *err);
struct pd_filter *pd_qhtlru_create(const struct pd_filter_params *p, struct pd_error *err);
/* qhtlru's rows, kept in LRU order (lru) or as FIFOs (qqhtd rows of a whole line: the
 * same layout as qht.c's packed rows when 512 / (b*f) = 1, and SIMD lookups). */
struct pd_filter *pd_qhtlru_create_rows(const struct pd_filter_params *p, bool lru,
					struct pd_error *err);

/*
 * Windows kept in coarse units (timerbf, windowed qqhtd and qhtlru): the smallest shift s with
 * (W >> s) < 2^(bits-1), and the largest gap in units that is still a match: W itself
 * when s = 0, else (W >> s) - 1, so that a match's gap in ns never exceeds W.
 */
unsigned pd_window_shift(uint64_t window, unsigned bits);
uint64_t pd_window_units(uint64_t window, unsigned shift);


/*
 * The start of every variant's constructor (util.c): PD_VARIANT_NEW gives its struct T
 * (whose first member is its struct pd_filter, base) zeroed on cache lines of its own,
 * ops set, or NULL with PD_ENOMEM; pd_variant_table its state of @p bytes, zeroed
 * (pd_alloc_zero: free it with pd_free), or NULL with PD_ENOMEM naming the bytes. Either
 * is freed with free().
 */
void *pd_variant_new(size_t size, const struct pd_filter_ops *ops, struct pd_error *err);
#define PD_VARIANT_NEW(T, ops, err) \
	((T *)pd_variant_new(sizeof(T) + 0 * sizeof(char[offsetof(T, base) == 0 ? 1 : -1]), \
			     (ops), (err)))
void *pd_variant_table(size_t bytes, struct pd_error *err);

/* Error helper: sets code and a printf-style message; returns -1. */
int pd_err(struct pd_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Memory. Large tables are 2 MiB aligned and advised as transparent huge pages: a random
 * access then costs a cache miss but rarely a TLB miss. Always zero-filled.
 */
void *pd_alloc_zero(size_t size);
void pd_free(void *p, size_t size);

/* ---- hashing helpers -------------------------------------------------------------- */

/** Map a 64-bit value uniformly to [0, n): multiply-shift (Lemire), no division. */
static inline uint64_t pd_range(uint64_t h, uint64_t n)
{
	return (uint64_t)(((pd_u128)h * n) >> 64);
}

/**
 * Second hash for double hashing: a bijective mixer (the murmur3 finaliser) of the first,
 * forced odd so that g_i = h1 + i*h2 visits distinct values.
 */
static inline uint64_t pd_hash2(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h | 1;
}

/* ---- PRNG ------------------------------------------------------------------------- */

static inline uint64_t pd_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t pd_prng_next(struct pd_prng *r)
{
	uint64_t *s = r->s;
	const uint64_t result = pd_rotl(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = pd_rotl(s[3], 45);
	return result;
}

/** Uniform double in [0, 1) with 53 random bits. */
static inline double pd_prng_unit(struct pd_prng *r)
{
	return (double)(pd_prng_next(r) >> 11) * 0x1.0p-53;
}

void pd_prng_seed(struct pd_prng *r, uint64_t seed);

/*
 * Cache lines kept in flight ahead of the key being probed, for state that fits in or
 * near the core's L2 cache (NEAR) and for state larger than that (FAR). Near lines go to
 * L1 (prefetcht0); the L1's few miss buffers then bound the lines in flight, and a whole
 * burst at once was slower than 16 lines ahead. Far lines go to L2 only (prefetcht1),
 * whose miss buffers hold many more: on the development machine a random 64 MiB line
 * costs 4 ns instead of 7.5 (scripts/bench_memfloor.sh), and 128 lines ahead was the best
 * of 16 to 128. Measured in docs/speed.md.
 */
#ifndef PD_PREFETCH_AHEAD
#define PD_PREFETCH_AHEAD 16
#endif
#ifndef PD_PREFETCH_AHEAD_FAR
#define PD_PREFETCH_AHEAD_FAR 128
#endif

/* Keys ahead for a filter touching `lines` random cache lines per key. */
static inline unsigned pd_ahead(unsigned lines, bool far)
{
	unsigned a = (far ? PD_PREFETCH_AHEAD_FAR : PD_PREFETCH_AHEAD) / (lines ? lines : 1);

	return a < 2 ? 2 : a;
}

/* State far beyond the L2 (more than 8 times far_bytes, 16 MiB on the development machine,
 * whose L3 is 32 MiB): its lines come from memory, not the L3. lru spaces its prefetch
 * stages further apart there, sbf prefetches the end of its decrement runs too. */
static inline bool pd_very_far(const struct pd_filter *f)
{
	return f->footprint_bytes > 8 * f->far_bytes;
}

/*
 * Start loading the line of p for a write (read) soon: into L1, or L2 only when far.
 *
 * On x86 these are asm statements, not __builtin_prefetch: GCC treats that builtin as
 * free of side effects, so a helper that only computes addresses and prefetches counts
 * as a pure function, and a call to it that is not inlined early is deleted as dead code.
 * GCC 12 deleted this way lru's prefetches of list neighbours (test: lru.c compiled with
 * the builtin had 12 prefetch instructions, with these 26). Both hints are the same
 * instruction for reads and writes (no PREFETCHW in x86-64-v2).
 */
#if defined(__x86_64__) || defined(__i386__)
static inline void pd_prefetch_w(bool far, const void *p)
{
	if (far)
		__asm__ volatile("prefetcht1 %0" : : "m"(*(const char *)p));
	else
		__asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
}

static inline void pd_prefetch_r(bool far, const void *p)
{
	pd_prefetch_w(far, p);
}
#else
static inline void pd_prefetch_w(bool far, const void *p)
{
	if (far)
		__builtin_prefetch(p, 1, 2);
	else
		__builtin_prefetch(p, 1, 3);
}

static inline void pd_prefetch_r(bool far, const void *p)
{
	if (far)
		__builtin_prefetch(p, 0, 2);
	else
		__builtin_prefetch(p, 0, 3);
}
#endif

#endif /* PKTDEDUP_FILTER_PRIVATE_H */
