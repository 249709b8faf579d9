/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * pktdedup approximate duplicate-detection filters.
 *
 * Every filter answers, for each key of a stream, DUPLICATE or DISTINCT and then
 * updates its bounded state. The papers, by the numbers used below and throughout the
 * sources (docs/filters.md, "Papers", has the full references; the project's
 * specification, ALGORITHMS.md, follows them and fixes their typos):
 *
 *   000  S. K. Bera, S. Dutta, A. Narang, S. Bhattacherjee, "Advanced Bloom filter based
 *        algorithms for efficient approximate data de-duplication in streams" (2012)
 *   001  F. Deng, D. Rafiei, "Approximately detecting duplicates for streaming data
 *        using stable Bloom filters", SIGMOD 2006
 *   002  G. Koloniari, N. Ntarmos, E. Pitoura, D. Souravlias, "One is enough:
 *        distributed filtering for duplicate elimination", CIKM 2011
 *   004  R. Géraud, M. Lombard-Platet, D. Naccache, "Quotient hash tables: efficiently
 *        detecting duplicates in streaming data", ACM SAC 2019
 *
 * | name        | paper       | state                          | errors         | cache lines/key |
 * |-------------|-------------|--------------------------------|----------------|-----------------|
 * | sbf         | 001 §3      | m cells of d bits (Max=2^d-1)  | FP and FN      | K + 1           |
 * | rsbf        | 000 Alg. 1  | k bit arrays, reservoir sample | FP and FN      | 2k              |
 * | bsbf        | 000 Alg. 2  | k bit arrays, biased sampling  | FP and FN      | 2k              |
 * | bsbfsd      | 000 Alg. 3  | as bsbf, one deletion          | FP and FN      | k + 1           |
 * | rlbsbf      | 000 Alg. 4  | as bsbf, load-based deletion   | FP and FN      | 2k              |
 * | qht         | 004 Alg. 1  | n rows x b buckets x f bits    | FP and FN      | 1               |
 * | qhtd        | 004 §5      | qht, duplicates inserted too   | FP and FN      | 1               |
 * | qqhtd       | 004 Alg. 2  | qhtd, rows are FIFO queues     | FP and FN      | 1               |
 * | qqhtd + W   | qqhtdw.c    | FIFO rows, fingerprint + age   | FP and FN (W)  | 1               |
 * | qhtlru + W  | qqhtdw.c    | LRU rows, fingerprint + age    | FP and FN (W)  | 1               |
 * | bloom       | 001 §2.3    | m bits, k hashes               | FP only        | k               |
 * | lru         | 001 §2.2    | last B distinct keys (LRU)     | FN only        | ~3              |
 * | fpbuffering | 001 §5.2    | lru + DUPLICATE w.p. q on miss | FP and FN      | ~3              |
 * | timerbf     | 002 §4      | m 32-bit timers, k hashes      | FP and FN (W)  | k               |
 * | exact       | oracle      | hash set of every key          | none (*)       | ~1              |
 *
 * (*) `exact` stores 64-bit keyed hashes. For 8-byte keys (pd_filter_burst_u64) the
 * keyed XXH3 hash is a bijection of the key, so `exact` is exact; for longer keys two
 * different keys collide with probability 2^-64 per pair.
 *
 * Keys and hashing. A key is hashed once with keyed XXH3-64 (seed = the filter's seed):
 * pd_filter_hash(). Filters work on that 64-bit hash: the second hash of double hashing
 * (g_i = h1 + i*h2) is derived from the first by a bijective mixer. Three burst entry
 * points take key bytes, 8-byte integer keys, or hashes already made with
 * pd_filter_hash() (so an application can hash once for dispatch and for the filter).
 *
 * Time. Each key may carry a timestamp in nanoseconds (timerbf, exact and a windowed
 * qqhtd or qhtlru use it). When the timestamp array is NULL the filter's own clock advances by one
 * unit per key, so a window then counts keys.
 *
 * Windows (window != 0; qqhtd, qhtlru, timerbf, exact). A key at time t has a reference time T:
 * the time of its newest copy (window_mode seen, the default: every copy refreshes it,
 * as in `editcap -w`) or of its last copy reported DISTINCT (delivered, seed 002 §4: a
 * key repeating forever passes once per W). It is a DUPLICATE iff the filter holds a copy
 * and t <= T + W: a gap of exactly W is within the window, and a key older than T (merged
 * feeds out of order) is compared as of its own time, so a copy of it is already known.
 * Filters that keep time in coarse units never match a copy older than W and may miss
 * one in the last two units of the window (see timerbf.c, qqhtdw.c).
 *
 * Bursts. A burst call gives exactly the verdicts of processing its keys one by one in
 * order; internally keys go in chunks of PD_BURST_MAX: hash and prefetch all, then probe.
 *
 * Randomness. Every random choice (SBF decrements, reservoir coins, evictions) comes from
 * a per-instance xoshiro256** generator seeded from the seed: same seed, same verdicts.
 *
 * Errors. Functions that can fail take a struct pd_error and fill it with a code and a
 * message naming the parameter. The library never prints, aborts or exits.
 */
#ifndef PKTDEDUP_PD_FILTER_H
#define PKTDEDUP_PD_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <pktdedup/pd_export.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Keys handled per internal chunk of a burst call (hash + prefetch, then probe). */
#define PD_BURST_MAX 64

/** Largest K (probes) or k (arrays) any filter accepts. */
#define PD_MAX_HASHES 16

/** A verdict, one byte per key. */
enum pd_verdict {
	PD_DISTINCT = 0,  /**< the filter has not seen the key (or not within the window) */
	PD_DUPLICATE = 1, /**< the filter believes it has seen the key */
};

/** Filter types. Keep in the order of pd_filter_type_name(). */
enum pd_filter_type {
	PD_FILTER_SBF = 0,
	PD_FILTER_RSBF,
	PD_FILTER_BSBF,
	PD_FILTER_BSBFSD,
	PD_FILTER_RLBSBF,
	PD_FILTER_QHT,
	PD_FILTER_QHTD,
	PD_FILTER_QQHTD,
	PD_FILTER_BLOOM,
	PD_FILTER_LRU,
	PD_FILTER_FPBUFFERING,
	PD_FILTER_TIMERBF,
	PD_FILTER_EXACT,
	PD_FILTER_QHTLRU,
	PD_FILTER_COUNT
};

/** Window semantics of windowed filters (see "Windows" above). */
enum pd_window_mode {
	PD_WINDOW_SEEN = 0,  /**< every copy refreshes the key's time (editcap -w, QQHTD) */
	PD_WINDOW_DELIVERED, /**< only copies reported DISTINCT refresh it (seed 002 §4) */
};

/** Error codes (negative errno style values are not used: these are stable). */
enum pd_error_code {
	PD_OK = 0,
	PD_EINVAL = 1, /**< a parameter is out of range or inconsistent */
	PD_ENOMEM = 2, /**< the allocation failed */
	PD_ENOTSUP = 3, /**< the combination is not supported by this filter */
	PD_EIO = 4, /**< a file could not be read or written (snapshots) */
	PD_ENOENT = 5, /**< the snapshot file does not exist */
	PD_ECORRUPT = 6, /**< not a snapshot, truncated, or its checksum or structure is wrong */
	PD_EVERSION = 7, /**< a snapshot of another format version */
	PD_EMISMATCH = 8, /**< a snapshot made with other parameters (type, sizes, seed, ...) */
};

/** An error: a code and a message that names the parameter at fault. */
struct pd_error {
	int code;
	char msg[256];
};

/**
 * Parameters of a filter. Zero in any tunable field means "let the planner choose"
 * (pd_plan()), from memory_bytes and target_fpr. A tunable set for a filter that has no
 * such parameter (k for qqhtd, say) is refused with PD_ENOTSUP and the field's name.
 */
struct pd_filter_params {
	enum pd_filter_type type;
	/** State budget in bytes (ignored by `exact`, which grows as needed). */
	uint64_t memory_bytes;
	/** Hash key and PRNG seed. */
	uint64_t seed;
	/** Target false-positive rate for the planner; 0 means PD_DEFAULT_TARGET_FPR. */
	double target_fpr;
	/** Expected number of distinct keys (bloom, timerbf: sizes k; qht family: the gap in
	 * keys between a key and its copy the planner minimises misses at); 0 if unknown. */
	uint64_t expected_n;

	/** sbf: K cells probed; bloom/timerbf: k hashes; rsbf/bsbf/bsbfsd/rlbsbf: k arrays. */
	uint32_t k;
	/** sbf: Max cell value, 1..255 (cells use d = ceil(log2(Max+1)) bits). */
	uint32_t sbf_max;
	/** sbf: P cells decremented per key (eq. 17 when 0). */
	uint32_t sbf_p;
	/** rsbf: threshold p* on the insert probability s/i (paper default 0.03). */
	double rsbf_pstar;
	/** qht/qhtd/qqhtd/qhtlru: buckets per row b (1..64) and fingerprint bits f (1..32), b*f <= 512;
	 * windowed qqhtd: f = 16 with b <= 14, or f = 32 with b <= 7; windowed qhtlru: b <= 14
	 * with f <= 26, or b <= 7 with f <= 32. */
	uint32_t qht_b;
	uint32_t qht_f;
	/** fpbuffering: probability q of reporting a miss as DUPLICATE (target_fpr when 0). */
	double fpbuf_q;
	/** qqhtd, qhtlru, timerbf, exact: window W in time units (ns, or keys without timestamps);
	 * 0 = no window (timerbf: the planner picks its capacity in keys). */
	uint64_t window;
	/** timerbf: equal-timers heuristic k' (0 = off; else 1..k). */
	uint32_t equal_timers;
	/** window semantics when window != 0. */
	enum pd_window_mode window_mode;
};

/** Planner default when target_fpr is 0. */
#define PD_DEFAULT_TARGET_FPR 0.01

/** Counters and the state figure the papers plot. */
struct pd_filter_stats {
	uint64_t keys;       /**< keys processed since create or reset */
	uint64_t duplicates; /**< keys reported DUPLICATE */
	/**
	 * The papers' state figure, in [0, 1]: fraction of 0 cells (sbf), of 1 bits
	 * (rsbf, bsbf, bsbfsd, rlbsbf, bloom), of empty buckets (qht family), of live
	 * timers (timerbf), of buffer slots used (lru, fpbuffering); exact: 0.
	 */
	double state;
	const char *state_name; /**< what `state` measures, e.g. "fraction of 0 cells" */
	uint64_t memory_bits;   /**< the papers' M: state bits as the paper counts them */
	uint64_t footprint_bytes; /**< bytes actually allocated for the state */
	/**
	 * New keys the filter could not remember, reported DISTINCT but not stored, so that
	 * a later copy of one passes as new: exact, when its table could not grow (no
	 * memory) and had reached 7/8 of its slots. 0 for every other filter.
	 */
	uint64_t unstored;
	/**
	 * Times a windowed filter (timerbf, windowed qqhtd and qhtlru) forgot every key
	 * because one came stamped far before the newest time it had seen: a clock stepped
	 * back (a capture across an NTP step, captures joined out of order, a snapshot
	 * restored where the clock is behind it). Copies of the keys before the step may
	 * then pass; none is made up. How far back: timerbf 2^29 of its time units (at
	 * least 512 windows), qqhtd and qhtlru the reach of their ages or 64 windows,
	 * whichever is more (docs/windows.md, "A clock stepped back"). 0 for every other
	 * filter.
	 */
	uint64_t forgotten;
};

struct pd_filter;

/** Name of a filter type ("sbf", ...), or NULL when out of range. */
PD_API
const char *pd_filter_type_name(enum pd_filter_type type);

/** Parse a filter name. Returns 0 and sets *type, or -1 for an unknown name. */
PD_API
int pd_filter_type_parse(const char *name, enum pd_filter_type *type);

/** What a filter type can do (PD_FILTER_CAN_*); 0 for an unknown type. */
PD_API
unsigned pd_filter_type_caps(enum pd_filter_type type);
#define PD_FILTER_CAN_WINDOW 1u  /**< takes a time window (pd_filter_params.window) */
#define PD_FILTER_CAN_ANY_FPR 2u /**< the planner sizes it for any target_fpr */

/**
 * The parameters that matter for p's filter, as one short line ("b=20 f=25",
 * "Max=1 K=5 P=10"), into buf (len bytes, always terminated).
 */
PD_API
void pd_filter_params_describe(const struct pd_filter_params *p, char *buf, size_t len);

/**
 * Fill the zero fields of *in with the papers' rules (see pd_plan.h) and validate.
 * @return 0, or -1 with *err filled.
 */
PD_API
int pd_filter_params_resolve(const struct pd_filter_params *in, struct pd_filter_params *out,
			     struct pd_error *err);

/**
 * Create a filter. Zero fields are chosen by the planner; invalid values give NULL and
 * an error naming the field.
 */
PD_API
struct pd_filter *pd_filter_create(const struct pd_filter_params *params, struct pd_error *err);

/** Free a filter (NULL is accepted). */
PD_API
void pd_filter_destroy(struct pd_filter *f);

/** Clear all state and counters; the PRNG restarts from the seed (as if new). */
PD_API
void pd_filter_reset(struct pd_filter *f);

/** The resolved parameters (all planner choices filled in). */
PD_API
const struct pd_filter_params *pd_filter_params(const struct pd_filter *f);

/** Counters, state figure and memory. */
PD_API
void pd_filter_stats(const struct pd_filter *f, struct pd_filter_stats *st);

/** Keyed XXH3-64 hash of a key with this filter's seed. */
PD_API
uint64_t pd_filter_hash(const struct pd_filter *f, const void *key, size_t len);

/**
 * Hint that a burst will soon carry the hash h: start loading the filter state it
 * touches (a cache prefetch; no effect on verdicts). Filters without a cheap way to
 * do so ignore it.
 */
PD_API
void pd_filter_prefetch(const struct pd_filter *f, uint64_t h);

/** pd_filter_prefetch() for each of the n hashes at h, in one call. */
PD_API
void pd_filter_prefetch_burst(const struct pd_filter *f, const uint64_t *h, unsigned n);

/**
 * 1 when the filter's state is far: larger than twice the core's L2 cache, so that its
 * lines come from L3 or memory and are worth loading early (prefetched into L2 only);
 * 0 when it fits near the core.
 */
PD_API
int pd_filter_is_far(const struct pd_filter *f);

/**
 * Hint that the caller prefetches every hash it gives pd_filter_burst_hashed() and
 * pd_filter_burst_hashed_delay() a while before (pd_filter_prefetch(), or staging), so
 * that a burst need not ask for those lines again (yes = 1; 0, the default, undoes it).
 * Verdicts are the same either way; a hash that was not prefetched only costs its wait.
 * pktdedup's worker gives it for a far filter, whose rows it prefetches a burst ahead:
 * qhtlru then skips its second prefetch, 1.4% more packets a second (net_pcap, no
 * hugepages, 64 MiB, 8 alternating rounds).
 */
PD_API
void pd_filter_hint_prefetched(struct pd_filter *f, int yes);

/**
 * Process n keys given as hashes from pd_filter_hash().
 * @param ts        per-key timestamps in ns, or NULL (clock advances one unit per key)
 * @param verdicts  n bytes written, each PD_DISTINCT or PD_DUPLICATE
 */
PD_API
void pd_filter_burst_hashed(struct pd_filter *f, const uint64_t *hashes, const uint64_t *ts,
			    uint8_t *verdicts, size_t n);

/** Delay of a DISTINCT key, or of any key for a filter that keeps no times. */
#define PD_DELAY_NONE UINT64_MAX

/**
 * As pd_filter_burst_hashed(), and for each DUPLICATE the delay since the copy it
 * matched (ns, or keys without timestamps; 0 when that copy is not older) in delays[i]:
 * exact: since the key's last counted copy; windowed qqhtd and qhtlru: since the
 * youngest matching entry (in the window's resolution); timerbf: an estimate from its oldest timer.
 * PD_DELAY_NONE for DISTINCT keys and for filters that keep no times
 * (pd_filter_reports_delay() is 0). Verdicts are those of pd_filter_burst_hashed().
 */
PD_API
void pd_filter_burst_hashed_delay(struct pd_filter *f, const uint64_t *hashes,
				  const uint64_t *ts, uint8_t *verdicts, uint64_t *delays,
				  size_t n);

/** 1 when the filter keeps times and reports delays (exact, timerbf, windowed qqhtd and
 * qhtlru). */
PD_API
int pd_filter_reports_delay(const struct pd_filter *f);

/** Process n 8-byte keys (hashed as their 8 little-endian bytes). */
PD_API
void pd_filter_burst_u64(struct pd_filter *f, const uint64_t *keys, const uint64_t *ts,
			 uint8_t *verdicts, size_t n);

/**
 * Staging: hash n 8-byte keys as pd_filter_burst_u64() does into hashes[i], and start
 * loading the filter state each will touch. pd_filter_burst_hashed() on those hashes
 * later gives the verdicts pd_filter_burst_u64() would have (staging never changes a
 * verdict). A caller holding its next burst stages it before probing the current one,
 * so the next burst's memory loads overlap the current burst's work: qhtlru at 64 MiB
 * runs 1.3 times as fast (docs/filters.md, "Beside DPDK's rte_member"). Where the state
 * fits the caches (twice the L2 or less) nothing is prefetched.
 */
PD_API
void pd_filter_stage_u64(const struct pd_filter *f, const uint64_t *keys, uint64_t *hashes,
			 size_t n);

/** Staging for keys given as byte strings (as pd_filter_burst() hashes them). */
PD_API
void pd_filter_stage(const struct pd_filter *f, const void *const *keys, const uint32_t *lens,
		     uint64_t *hashes, size_t n);

/** Process n keys given as byte strings keys[i] of lens[i] bytes. */
PD_API
void pd_filter_burst(struct pd_filter *f, const void *const *keys, const uint32_t *lens,
		     const uint64_t *ts, uint8_t *verdicts, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* PKTDEDUP_PD_FILTER_H */
