/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timer Bloom filter for a sliding window W (Koloniari, Ntarmos, Pitoura and Souravlias,
 * "One is enough: distributed filtering for duplicate elimination", seed 002 §4;
 * ALGORITHMS.md §9).
 *
 * Each of the m cells is a timer, kept lazily as the expiry time of the last key that set
 * it: a timer is live at time t iff t < expiry. First test, then set: a key is DUPLICATE
 * iff its k timers are live (and, with the equal-timers heuristic k' > 0, at least k' of
 * them hold the same expiry: equal expiries were most likely written by the same key).
 * A key at time t writes its k timers with expiry t + W_units + 1 (so a copy at a gap of
 * at most W is within the window, as `editcap -w` counts it):
 *   delivered (the paper's first-test-then-set): only keys found DISTINCT write, so a key
 *             repeating forever passes once per W;
 *   seen      every key writes (a duplicate refreshes its timers), like `exact` and
 *             windowed qqhtd in seen mode.
 * A timer is never moved back: an out-of-order key does not shorten a later expiry.
 *
 * Time: the key's timestamp (ns), or one unit per key when the caller gives none.
 *
 * Cells are 32 bits. Time is kept in units of 2^shift, with shift the smallest that makes
 * W >> shift < 2^20 (W < 2^20 units: exact; W = 1 s: 1.05 us resolution). With shift > 0
 * the window in units is (W >> shift) - 1, so a match's gap never exceeds W and a copy
 * in the last two units of the window may be missed (pd_window_units()). A cell holds
 * (expiry mod 2^32), 0 meaning "never set" (an expiry that is 0 mod 2^32 is stored as 1:
 * one unit longer). Liveness at time t is (int32_t)(cell - t) > 0, right while the true
 * expiry E and t are less than 2^31 units apart. Three rules keep every comparison in that
 * range (N = the newest time seen, S = the time of the last sweep):
 *   - a key stamped t with N - 2^29 <= t <= N is compared and written as of t; a key
 *     stamped after N first advances N to t;
 *   - sweep: when N advances to t with t - S >= 2^30, every cell whose expiry is not
 *     after t is zeroed first, its expiry read relative to the old N, where it is exact:
 *     a lull of any length is measured, never wrapped (when t - N >= 2^31 every expiry has
 *     passed and the table is cleared instead);
 *   - re-anchor: a key stamped before N - 2^29 (a clock stepped back, or one frame stamped
 *     far ahead of the rest) clears the table and sets N = t. That forgets keys (copies
 *     may pass), never makes one up.
 * So every stored E lies in [S - 2^29, N + W + 1] with N - S < 2^30, and for any key's t
 * in [N - 2^29, N], -2^31 < E - t < 2^31. A sweep costs one pass over the table per 2^30
 * units (1.07 s in ns units, for W < 1.05 ms; 18 min at W = 1 s), a re-anchor one clear.
 *
 * Timestamps older than the newest seen (merged feeds) are compared as of their own time:
 * a timer set by a later key then counts as live.
 *
 * Delays (pd_filter_burst_hashed_delay): now - (oldest of the key's k expiries - W - 1),
 * an estimate: a timer shared with a later key makes it smaller.
 */
#include <stdlib.h>

#include "filter_private.h"

#define TBF_UNIT_BITS 21 /* W >> shift < 2^20 */
#define TBF_SWEEP_EVERY (1ULL << 30)
#define TBF_CLEAR_JUMP (1ULL << 31)
#define TBF_LATE (1ULL << 29) /* stamped before N - TBF_LATE: re-anchor */

struct timerbf {
	struct pd_filter base;
	uint32_t *cell;
	uint64_t m;
	unsigned k;
	unsigned kprime;   /* equal-timers threshold, 0 = off */
	unsigned shift;
	uint64_t w_units;
	enum pd_window_mode mode;
	uint64_t max_now;  /* newest time seen, in units */
	uint64_t last_sweep;
	int started;
};

/* Without branches: whether a timer is live depends on the data, a coin toss for the
 * branch predictor once the table is half full. */
static inline unsigned tbf_live(uint32_t c, uint32_t now)
{
	return (unsigned)(c != 0) & (unsigned)((int32_t)(c - now) > 0);
}

/* Zero every cell whose expiry is not after now. Expiries are read relative to the newest
 * time seen so far (max_now), where they are exact (header), and now > max_now. */
static void tbf_sweep(struct timerbf *t, uint64_t now)
{
	const uint32_t base = (uint32_t)t->max_now;
	const int64_t ahead = (int64_t)(now - t->max_now);

	for (uint64_t i = 0; i < t->m; i++) {
		const uint32_t c = t->cell[i];

		if (c == 0 || (int64_t)(int32_t)(c - base) <= ahead)
			t->cell[i] = 0;
	}
	t->last_sweep = now;
}

static void tbf_clear(struct timerbf *t)
{
	for (uint64_t i = 0; i < t->m; i++)
		t->cell[i] = 0;
}

/* Take a key's time: advance the newest time, sweep, or re-anchor, so that every stored
 * expiry stays within 2^31 units of the times keys are compared at (the header's rules). */
static inline void tbf_advance(struct timerbf *t, uint64_t now)
{
	if (!t->started || (now < t->max_now && t->max_now - now > TBF_LATE)) {
		if (t->started) {
			tbf_clear(t);
			t->base.forgotten++;
		}
		t->started = 1;
		t->max_now = now;
		t->last_sweep = now;
		return;
	}
	if (now <= t->max_now)
		return;
	if (now - t->max_now >= TBF_CLEAR_JUMP) {
		tbf_clear(t);
		t->last_sweep = now;
	} else if (now - t->last_sweep >= TBF_SWEEP_EVERY) {
		tbf_sweep(t, now);
	}
	t->max_now = now;
}

static inline void tbf_prefetch(const struct timerbf *t, const uint64_t *pos)
{
	for (unsigned j = 0; j < t->k; j++)
		pd_prefetch_w(t->base.far, &t->cell[pos[j]]);
}

static void tbf_burst_delay(struct pd_filter *f, const uint64_t *h, const uint64_t *ts,
			    uint8_t *v, uint64_t *d, unsigned n)
{
	struct timerbf *t = (struct timerbf *)f;
	uint64_t pos[PD_BURST_MAX][PD_MAX_HASHES];
	const unsigned k = t->k;
	const unsigned ahead = pd_ahead(k, f->far);

	for (unsigned i = 0; i < n; i++) {
		uint64_t h1 = h[i], h2 = pd_hash2(h[i]);

		for (unsigned j = 0; j < k; j++)
			pos[i][j] = pd_range(h1 + j * h2, t->m);
		if (i < ahead)
			tbf_prefetch(t, pos[i]);
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t now = ts[i] >> t->shift;
		uint32_t now32 = (uint32_t)now;
		uint32_t val[PD_MAX_HASHES];
		unsigned live = 1;
		uint32_t exp32;

		if (i + ahead < n)
			tbf_prefetch(t, pos[i + ahead]);
		tbf_advance(t, now);
		for (unsigned j = 0; j < k; j++) {
			val[j] = t->cell[pos[i][j]];
			live &= (unsigned)tbf_live(val[j], now32);
		}
		if (live && t->kprime > 1) {
			unsigned best = 0;

			for (unsigned a = 0; a < k && best < t->kprime; a++) {
				unsigned same = 0;

				for (unsigned c = 0; c < k; c++)
					same += val[c] == val[a];
				if (same > best)
					best = same;
			}
			live = best >= t->kprime;
		}
		v[i] = (uint8_t)live;
		if (d != NULL && live) {
			/* remaining life of the oldest timer: W + 1 - age */
			int64_t rest = INT64_MAX;

			for (unsigned j = 0; j < k; j++)
				if ((int32_t)(val[j] - now32) < rest)
					rest = (int32_t)(val[j] - now32);
			d[i] = (uint64_t)rest <= t->w_units ? (t->w_units + 1 - (uint64_t)rest)
								    << t->shift : 0;
		}
		if (live && t->mode == PD_WINDOW_DELIVERED)
			continue;
		exp32 = (uint32_t)(now + t->w_units + 1);
		if (exp32 == 0)
			exp32 = 1;
		for (unsigned j = 0; j < k; j++) {
			uint32_t *c = &t->cell[pos[i][j]], old = *c;

			/* one branch, taken only for a live timer that expires later (an
			 * out-of-order key), so that the store need not wait for the load */
			if (__builtin_expect(tbf_live(old, now32) &
					     (unsigned)((int32_t)(exp32 - old) <= 0), 0))
				continue;
			*c = exp32;
		}
	}
}

static void tbf_burst(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		      unsigned n)
{
	tbf_burst_delay(f, h, ts, v, NULL, n);
}

static void tbf_reset(struct pd_filter *f)
{
	struct timerbf *t = (struct timerbf *)f;

	tbf_clear(t);
	t->started = 0;
	t->max_now = 0;
	t->last_sweep = 0;
}

static void tbf_destroy(struct pd_filter *f)
{
	struct timerbf *t = (struct timerbf *)f;

	pd_free(t->cell, t->m * sizeof(uint32_t));
	free(t);
}

static double tbf_state(const struct pd_filter *f)
{
	const struct timerbf *t = (const struct timerbf *)f;
	uint64_t live = 0;

	for (uint64_t i = 0; i < t->m; i++)
		live += (uint64_t)tbf_live(t->cell[i], (uint32_t)t->max_now);
	return (double)live / (double)t->m;
}

static unsigned tbf_sections(struct pd_filter *f, struct pd_section *sec)
{
	struct timerbf *t = (struct timerbf *)f;

	sec[0] = (struct pd_section){t->cell, t->m * sizeof(uint32_t)};
	sec[1] = (struct pd_section){&t->max_now, sizeof(t->max_now)};
	sec[2] = (struct pd_section){&t->last_sweep, sizeof(t->last_sweep)};
	sec[3] = (struct pd_section){&t->started, sizeof(t->started)};
	return 4;
}

static const struct pd_filter_ops tbf_ops = {
	.sections = tbf_sections,
	.burst = tbf_burst,
	.burst_delay = tbf_burst_delay,
	.reset = tbf_reset,
	.destroy = tbf_destroy,
	.state = tbf_state,
	.state_name = "fraction of live timers",
};

struct pd_filter *pd_timerbf_create(const struct pd_filter_params *p, struct pd_error *err)
{
	struct timerbf *t = PD_VARIANT_NEW(struct timerbf, &tbf_ops, err);

	if (t == NULL)
		return NULL;
	t->k = p->k;
	t->kprime = p->equal_timers;
	t->mode = p->window_mode;
	t->shift = pd_window_shift(p->window, TBF_UNIT_BITS);
	t->w_units = pd_window_units(p->window, t->shift);
	t->m = p->memory_bytes / sizeof(uint32_t);
	t->cell = pd_variant_table(t->m * sizeof(uint32_t), err);
	if (t->cell == NULL) {
		free(t);
		return NULL;
	}
	t->base.memory_bits = t->m * 32;
	t->base.footprint_bytes = t->m * sizeof(uint32_t);
	return &t->base;
}
