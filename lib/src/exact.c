/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exact oracle (the specification's baseline, ALGORITHMS.md §8; not from a paper): a
 * hash set of every key's 64-bit keyed hash and the time it was last counted. It grows
 * without bound (memory budget ignored) and is the ground truth of the evaluator and the
 * tests.
 *
 *   no window        DUPLICATE iff the key was seen before.
 *   window, seen     DUPLICATE iff the key was seen at t' with t - t' <= W (the copy is
 *                    within W, as `editcap -w` counts it); every copy refreshes t' (to the
 *                    newest of the two times).
 *   window, delivered DUPLICATE iff the key was reported DISTINCT at t' with t - t' <= W;
 *                    only DISTINCT copies refresh t' (seed 002 §4).
 * A timestamp older than the key's t' (merged feeds) counts as within the window: the
 * packet is compared as of its own time, and a copy of it is already known.
 * Delays of duplicates: t - t' (0 when t < t'); without a window t' is the newest copy.
 *
 * Exactness: 8-byte keys hash through XXH3-64's 4-to-8-byte path, a bijection of the key
 * for a fixed seed, so the set is exact for them; byte-string keys collide with
 * probability 2^-64 per pair.
 *
 * Table: open addressing with linear probing, power-of-two size, load <= 1/2 (doubling).
 * The hash value 0 marks an empty slot, so the key whose hash is 0 is kept aside.
 */
#include <stdlib.h>
#include <string.h>

#include "filter_private.h"

#define EXACT_INITIAL (1u << 16)

struct exact {
	struct pd_filter base;
	uint64_t *key;
	uint64_t *time;  /* last counted time of each key */
	uint64_t mask;
	uint64_t count;
	uint64_t window;
	enum pd_window_mode mode;
	int has_zero;
	uint64_t zero_time;
	int cant_grow; /* a doubling failed: not tried again until a reset */
};

static inline uint64_t exact_home(const struct exact *e, uint64_t h)
{
	return (h >> 17) & e->mask;
}

static int exact_alloc(struct exact *e, uint64_t size)
{
	e->key = pd_alloc_zero(size * sizeof(uint64_t));
	if (e->key == NULL)
		return -1;
	e->time = pd_alloc_zero(size * sizeof(uint64_t));
	if (e->time == NULL) {
		pd_free(e->key, size * sizeof(uint64_t));
		return -1;
	}
	e->mask = size - 1;
	e->base.footprint_bytes = size * sizeof(uint64_t) * 2;
	e->base.memory_bits = e->base.footprint_bytes * 8; /* no paper M: count the table */
	return 0;
}

/*
 * Double the table. On allocation failure keep the old one, which gets fuller: up to 7/8
 * of its slots (exact_full), past which new keys are not stored (counted as unstored),
 * so that a probe always meets an empty slot: a table with every slot taken leaves the
 * next new key's probe without end (a process limited to 300 MB hung so at 8.4M keys).
 */
static void exact_grow(struct exact *e)
{
	uint64_t *okey = e->key, *otime = e->time;
	uint64_t osize = e->mask + 1;

	if (e->cant_grow)
		return;
	if (exact_alloc(e, osize * 2) != 0) {
		e->key = okey;
		e->time = otime;
		e->mask = osize - 1;
		e->cant_grow = 1;
		return;
	}
	for (uint64_t i = 0; i < osize; i++) {
		uint64_t j;

		if (okey[i] == 0)
			continue;
		j = exact_home(e, okey[i]);
		while (e->key[j] != 0)
			j = (j + 1) & e->mask;
		e->key[j] = okey[i];
		e->time[j] = otime[i];
	}
	pd_free(okey, osize * sizeof(uint64_t));
	pd_free(otime, osize * sizeof(uint64_t));
}

/* The table holds all it may: 7/8 of its slots (only once it could not grow). */
static inline int exact_full(const struct exact *e)
{
	return e->count >= (e->mask + 1) - ((e->mask + 1) >> 3);
}

/* Verdict for a key last counted at *last (present) and now; updates *last and the delay. */
static inline uint8_t exact_seen(const struct exact *e, uint64_t *last, uint64_t now,
				 uint64_t *d)
{
	int dup = e->window == 0 || now <= *last || now - *last <= e->window;

	if (d != NULL)
		*d = now > *last ? now - *last : 0;
	if (e->mode == PD_WINDOW_SEEN || e->window == 0) {
		if (now > *last)
			*last = now;
	} else if (!dup) {
		*last = now;
	}
	return (uint8_t)dup;
}

static void exact_burst_delay(struct pd_filter *f, const uint64_t *h, const uint64_t *ts,
			      uint8_t *v, uint64_t *d, unsigned n)
{
	struct exact *e = (struct exact *)f;

	for (unsigned i = 0; i < n; i++)
		pd_prefetch_r(f->far, &e->key[exact_home(e, h[i])]);
	for (unsigned i = 0; i < n; i++) {
		uint64_t *di = d != NULL ? &d[i] : NULL;
		uint64_t j;

		if (h[i] == 0) {
			if (!e->has_zero) {
				e->has_zero = 1;
				e->zero_time = ts[i];
				v[i] = PD_DISTINCT;
			} else {
				v[i] = exact_seen(e, &e->zero_time, ts[i], di);
			}
			continue;
		}
		j = exact_home(e, h[i]);
		while (e->key[j] != 0 && e->key[j] != h[i])
			j = (j + 1) & e->mask;
		if (e->key[j] != 0) {
			v[i] = exact_seen(e, &e->time[j], ts[i], di);
			continue;
		}
		v[i] = PD_DISTINCT;
		if (__builtin_expect(exact_full(e), 0)) { /* not stored: its copies will pass */
			e->base.unstored++;
			continue;
		}
		e->key[j] = h[i];
		e->time[j] = ts[i];
		if (++e->count * 2 > e->mask + 1)
			exact_grow(e);
	}
}

static void exact_burst(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
			unsigned n)
{
	exact_burst_delay(f, h, ts, v, NULL, n);
}

static void exact_reset(struct pd_filter *f)
{
	struct exact *e = (struct exact *)f;

	for (uint64_t i = 0; i <= e->mask; i++) {
		e->key[i] = 0;
		e->time[i] = 0;
	}
	e->count = 0;
	e->has_zero = 0;
	e->cant_grow = 0;
}

static void exact_destroy(struct pd_filter *f)
{
	struct exact *e = (struct exact *)f;

	pd_free(e->key, (e->mask + 1) * sizeof(uint64_t));
	pd_free(e->time, (e->mask + 1) * sizeof(uint64_t));
	free(e);
}

static double exact_state(const struct pd_filter *f)
{
	(void)f;
	return 0.0;
}

/*
 * Snapshot image: has_zero, zero_time, the entry count, then (key, time) pairs in table
 * order. Loading re-inserts them, so the table may end up a
 * different size than the saved one, with the same keys and times.
 */
static uint64_t exact_image_size(const struct pd_filter *f)
{
	const struct exact *e = (const struct exact *)f;

	return 24 + e->count * 16;
}

static void exact_image_save(const struct pd_filter *f, uint8_t *out)
{
	const struct exact *e = (const struct exact *)f;
	uint64_t hz = (uint64_t)e->has_zero, o = 24;

	memcpy(out, &hz, 8);
	memcpy(out + 8, &e->zero_time, 8);
	memcpy(out + 16, &e->count, 8);
	for (uint64_t i = 0; i <= e->mask; i++) {
		uint64_t t = e->time[i];

		if (e->key[i] == 0)
			continue;
		memcpy(out + o, &e->key[i], 8);
		memcpy(out + o + 8, &t, 8);
		o += 16;
	}
}

static int exact_image_load(struct pd_filter *f, const uint8_t *in, uint64_t len,
			    struct pd_error *err)
{
	struct exact *e = (struct exact *)f;
	uint64_t hz, n;

	if (len < 24)
		return pd_err(err, PD_ECORRUPT, "exact state: %llu bytes, too short",
			      (unsigned long long)len);
	memcpy(&hz, in, 8);
	memcpy(&n, in + 16, 8);
	if (hz > 1 || n > (len - 24) / 16 || len != 24 + n * 16)
		return pd_err(err, PD_ECORRUPT, "exact state: %llu entries in %llu bytes",
			      (unsigned long long)n, (unsigned long long)len);
	e->has_zero = (int)hz;
	memcpy(&e->zero_time, in + 8, 8);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t h, t, j;

		memcpy(&h, in + 24 + i * 16, 8);
		memcpy(&t, in + 24 + i * 16 + 8, 8);
		if (h == 0)
			return pd_err(err, PD_ECORRUPT, "exact state: entry %llu has key 0",
				      (unsigned long long)i);
		j = exact_home(e, h);
		while (e->key[j] != 0 && e->key[j] != h)
			j = (j + 1) & e->mask;
		if (e->key[j] != 0)
			return pd_err(err, PD_ECORRUPT, "exact state: key of entry %llu repeats",
				      (unsigned long long)i);
		e->key[j] = h;
		e->time[j] = t;
		if (++e->count * 2 > e->mask + 1)
			exact_grow(e);
		if (exact_full(e) && i + 1 < n) /* the table could not grow */
			return pd_err(err, PD_ENOMEM, "exact state: out of memory at %llu keys",
				      (unsigned long long)e->count);
	}
	return 0;
}

static const struct pd_filter_ops exact_ops = {
	.image_size = exact_image_size,
	.image_save = exact_image_save,
	.image_load = exact_image_load,
	.burst = exact_burst,
	.burst_delay = exact_burst_delay,
	.reset = exact_reset,
	.destroy = exact_destroy,
	.state = exact_state,
	.state_name = "none (exact)",
};

struct pd_filter *pd_exact_create(const struct pd_filter_params *p, struct pd_error *err)
{
	struct exact *e = PD_VARIANT_NEW(struct exact, &exact_ops, err);

	if (e == NULL)
		return NULL;
	e->window = p->window;
	e->mode = p->window_mode;
	if (exact_alloc(e, EXACT_INITIAL) != 0) {
		free(e);
		pd_err(err, PD_ENOMEM, "out of memory");
		return NULL;
	}
	return &e->base;
}
