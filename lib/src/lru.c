/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffering baselines of seed 001 (§2.2 and §5.2, ALGORITHMS.md §8).
 *
 *   lru          an exact buffer of the last B distinct keys with LRU replacement: a key
 *                found in the buffer is DUPLICATE and becomes most recent; a key not found
 *                is DISTINCT, evicts the least recent key when the buffer is full, and is
 *                stored as most recent. Only false negatives (no false positives for
 *                8-byte keys, whose 64-bit keyed hash is a bijection).
 *   fpbuffering  lru, but a key not found is reported DUPLICATE with probability q (then
 *                stored all the same), so that its FP rate can be set equal to another
 *                filter's for an equal-FPR comparison of FN rates.
 *
 * Memory is counted as the paper does, 64 bits per buffered key: B = M / 64. The index
 * (a linear-probing table of 32-bit node numbers at load <= 1/2, with backward-shift
 * deletion) and the doubly linked list are extra, reported in footprint_bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "filter_private.h"

#define LRU_NIL UINT32_MAX

struct lru {
	struct pd_filter base;
	uint64_t *key;      /* per node */
	uint32_t *prev;
	uint32_t *next;
	uint32_t *slot;     /* table: node + 1, 0 = empty */
	uint64_t mask;      /* table size - 1 */
	uint32_t cap;       /* B */
	uint32_t count;
	uint32_t head;      /* most recent */
	uint32_t tail;      /* least recent */
	double q;           /* fpbuffering; 0 for lru */
	int fp;
};

static inline uint64_t lru_home(const struct lru *l, uint64_t h)
{
	return (h >> 20) & l->mask; /* any XXH3 bits are uniform; these skip the lowest */
}

static void lru_unlink(struct lru *l, uint32_t n)
{
	if (l->prev[n] != LRU_NIL)
		l->next[l->prev[n]] = l->next[n];
	else
		l->head = l->next[n];
	if (l->next[n] != LRU_NIL)
		l->prev[l->next[n]] = l->prev[n];
	else
		l->tail = l->prev[n];
}

static void lru_push_front(struct lru *l, uint32_t n)
{
	l->prev[n] = LRU_NIL;
	l->next[n] = l->head;
	if (l->head != LRU_NIL)
		l->prev[l->head] = n;
	l->head = n;
	if (l->tail == LRU_NIL)
		l->tail = n;
}

/* Slot holding key h, or the empty slot where it would go. */
static inline uint64_t lru_probe(const struct lru *l, uint64_t h)
{
	uint64_t i = lru_home(l, h);

	while (l->slot[i] != 0 && l->key[l->slot[i] - 1] != h)
		i = (i + 1) & l->mask;
	return i;
}

/* Remove the entry at slot i, shifting later entries of its cluster back. */
static void lru_table_delete(struct lru *l, uint64_t i)
{
	uint64_t j = i;

	l->slot[i] = 0;
	for (;;) {
		uint64_t home;

		j = (j + 1) & l->mask;
		if (l->slot[j] == 0)
			return;
		home = lru_home(l, l->key[l->slot[j] - 1]);
		/* move j back to i unless its home lies cyclically in (i, j] */
		if ((i <= j) ? (home <= i || home > j) : (home <= i && home > j)) {
			l->slot[i] = l->slot[j];
			l->slot[j] = 0;
			i = j;
		}
	}
}

static void lru_burst(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		      unsigned n)
{
	struct lru *l = (struct lru *)f;
	uint64_t rnd[PD_BURST_MAX];

	(void)ts;
	for (unsigned i = 0; i < n; i++) {
		pd_prefetch_r(&l->slot[lru_home(l, h[i])]);
		if (l->fp)
			rnd[i] = pd_prng_next(&f->prng);
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t s = lru_probe(l, h[i]);
		uint32_t node;

		if (l->slot[s] != 0) {
			node = l->slot[s] - 1;
			v[i] = PD_DUPLICATE;
			if (l->head != node) {
				lru_unlink(l, node);
				lru_push_front(l, node);
			}
			continue;
		}
		/* fpbuffering: a miss is DUPLICATE with probability q (53-bit uniform) */
		v[i] = (uint8_t)(l->fp && (double)(rnd[i] >> 11) * 0x1.0p-53 < l->q);
		if (l->count == l->cap) {
			node = l->tail;
			lru_unlink(l, node);
			lru_table_delete(l, lru_probe(l, l->key[node]));
			s = lru_probe(l, h[i]); /* the deletion may have moved the empty slot */
		} else {
			node = l->count++;
		}
		l->key[node] = h[i];
		l->slot[s] = node + 1;
		lru_push_front(l, node);
	}
}

static void lru_reset(struct pd_filter *f)
{
	struct lru *l = (struct lru *)f;

	for (uint64_t i = 0; i <= l->mask; i++)
		l->slot[i] = 0;
	l->count = 0;
	l->head = LRU_NIL;
	l->tail = LRU_NIL;
}

static void lru_destroy(struct pd_filter *f)
{
	struct lru *l = (struct lru *)f;

	free(l->key);
	free(l->prev);
	free(l->next);
	pd_free(l->slot, (l->mask + 1) * sizeof(uint32_t));
	free(l);
}

static double lru_state(const struct pd_filter *f)
{
	const struct lru *l = (const struct lru *)f;

	return (double)l->count / (double)l->cap;
}

/* Snapshot image: the count, then the keys from least to most recent. */
static uint64_t lru_image_size(const struct pd_filter *f)
{
	const struct lru *l = (const struct lru *)f;

	return 8 + (uint64_t)l->count * 8;
}

static void lru_image_save(const struct pd_filter *f, uint8_t *out)
{
	const struct lru *l = (const struct lru *)f;
	uint64_t n = l->count;
	uint32_t node = l->tail;

	memcpy(out, &n, 8);
	for (uint64_t i = 0; i < n; i++, node = l->prev[node])
		memcpy(out + 8 + i * 8, &l->key[node], 8);
}

/* A key as the most recent (the burst's insertion without the verdict). */
static void lru_touch(struct lru *l, uint64_t h)
{
	uint64_t s = lru_probe(l, h);
	uint32_t node;

	if (l->slot[s] != 0) {
		node = l->slot[s] - 1;
		if (l->head != node) {
			lru_unlink(l, node);
			lru_push_front(l, node);
		}
		return;
	}
	if (l->count == l->cap) {
		node = l->tail;
		lru_unlink(l, node);
		lru_table_delete(l, lru_probe(l, l->key[node]));
		s = lru_probe(l, h);
	} else {
		node = l->count++;
	}
	l->key[node] = h;
	l->slot[s] = node + 1;
	lru_push_front(l, node);
}

static int lru_image_load(struct pd_filter *f, const uint8_t *in, uint64_t len,
			  struct pd_error *err)
{
	struct lru *l = (struct lru *)f;
	uint64_t n;

	if (len < 8)
		return pd_err(err, PD_ECORRUPT, "lru state: %llu bytes, too short",
			      (unsigned long long)len);
	memcpy(&n, in, 8);
	if (n > l->cap || len != 8 + n * 8)
		return pd_err(err, PD_ECORRUPT, "lru state: %llu keys in %llu bytes for a buffer"
			      " of %u", (unsigned long long)n, (unsigned long long)len, l->cap);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t h;

		memcpy(&h, in + 8 + i * 8, 8);
		lru_touch(l, h);
	}
	return 0;
}

static const struct pd_filter_ops lru_ops = {
	.image_size = lru_image_size,
	.image_save = lru_image_save,
	.image_load = lru_image_load,
	.burst = lru_burst,
	.reset = lru_reset,
	.destroy = lru_destroy,
	.state = lru_state,
	.state_name = "fraction of buffer used",
};

struct pd_filter *pd_lru_create(const struct pd_filter_params *p, struct pd_error *err)
{
	struct lru *l = calloc(1, sizeof(*l));
	uint64_t size = 2;

	if (l == NULL) {
		pd_err(err, PD_ENOMEM, "%s: out of memory", pd_filter_type_name(p->type));
		return NULL;
	}
	l->base.ops = &lru_ops;
	l->cap = (uint32_t)(p->memory_bytes / sizeof(uint64_t));
	l->fp = p->type == PD_FILTER_FPBUFFERING;
	l->q = p->fpbuf_q;
	while (size < 2 * (uint64_t)l->cap)
		size <<= 1;
	l->mask = size - 1;
	l->key = malloc(l->cap * sizeof(uint64_t));
	l->prev = malloc(l->cap * sizeof(uint32_t));
	l->next = malloc(l->cap * sizeof(uint32_t));
	l->slot = pd_alloc_zero(size * sizeof(uint32_t));
	if (l->key == NULL || l->prev == NULL || l->next == NULL || l->slot == NULL) {
		free(l->key);
		free(l->prev);
		free(l->next);
		pd_free(l->slot, size * sizeof(uint32_t));
		free(l);
		pd_err(err, PD_ENOMEM, "%s: cannot allocate the buffer of %llu keys",
		       pd_filter_type_name(p->type), (unsigned long long)p->memory_bytes / 8);
		return NULL;
	}
	l->head = LRU_NIL;
	l->tail = LRU_NIL;
	l->base.memory_bits = (uint64_t)l->cap * 64;
	l->base.footprint_bytes = (uint64_t)l->cap * 16 + size * sizeof(uint32_t);
	return &l->base;
}
