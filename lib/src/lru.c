/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffering baselines of Deng and Rafiei, "Approximately detecting duplicates for streaming
 * data using stable Bloom filters" (seed 001 §2.2 and §5.2; ALGORITHMS.md §8).
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
 * and the list links are extra, reported in footprint_bytes:
 *   - a node is the key and its two links, 16 bytes;
 *   - the index is a linear-probing table at load <= 1/2, with backward-shift deletion.
 *     A slot is 64 bits: the top 32 bits of the key (its tag) above the node number + 1
 *     (0 = empty). The home slot comes from the tag, so probing and deleting read slots
 *     only; a node is read only where its tag matches.
 */
#include <stdlib.h>
#include <string.h>

#include "filter_private.h"

#define LRU_NIL UINT32_MAX

/* A buffered key and its list links: one 16-byte node, so a hit reads one line of it. */
struct lru_node {
	uint64_t key;
	uint32_t prev;      /* more recent */
	uint32_t next;      /* less recent */
};

struct lru {
	struct pd_filter base;
	struct lru_node *node;
	uint64_t *slot;     /* table: tag << 32 | (node + 1), 0 = empty */
	uint64_t mask;      /* table size - 1 */
	unsigned tag_shift; /* 32 - log2(table size) */
	uint32_t cap;       /* B */
	uint32_t count;
	uint32_t head;      /* most recent */
	uint32_t tail;      /* least recent */
	double q;           /* fpbuffering; 0 for lru */
	int fp;
};

static inline size_t lru_node_bytes(uint32_t cap)
{
	return (cap != 0 ? cap : 1) * sizeof(struct lru_node);
}

/* The tag of a key: its top 32 bits (any XXH3 bits are uniform). */
static inline uint64_t lru_tag(uint64_t h)
{
	return h >> 32;
}

/* The home slot of a tag: its top log2(size) bits (the table has at most 2^32 slots). */
static inline uint64_t lru_home(const struct lru *l, uint64_t tag)
{
	return tag >> l->tag_shift;
}

static inline uint32_t lru_slot_node(uint64_t slot)
{
	return (uint32_t)slot - 1;
}

static void lru_unlink(struct lru *l, uint32_t n)
{
	if (l->node[n].prev != LRU_NIL)
		l->node[l->node[n].prev].next = l->node[n].next;
	else
		l->head = l->node[n].next;
	if (l->node[n].next != LRU_NIL)
		l->node[l->node[n].next].prev = l->node[n].prev;
	else
		l->tail = l->node[n].prev;
}

static void lru_push_front(struct lru *l, uint32_t n)
{
	l->node[n].prev = LRU_NIL;
	l->node[n].next = l->head;
	if (l->head != LRU_NIL)
		l->node[l->head].prev = n;
	l->head = n;
	if (l->tail == LRU_NIL)
		l->tail = n;
}

/* Slot holding key h, or the empty slot where it would go. */
static inline uint64_t lru_probe(const struct lru *l, uint64_t h)
{
	const uint64_t tag = lru_tag(h);
	uint64_t i = lru_home(l, tag);

	while (l->slot[i] != 0 &&
	       (l->slot[i] >> 32 != tag || l->node[lru_slot_node(l->slot[i])].key != h))
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
		home = lru_home(l, l->slot[j] >> 32);
		/* move j back to i unless its home lies cyclically in (i, j] */
		if ((i <= j) ? (home <= i || home > j) : (home <= i && home > j)) {
			l->slot[i] = l->slot[j];
			l->slot[j] = 0;
			i = j;
		}
	}
}

/*
 * A hit touches three random lines (its table slot, its node, and the nodes before and
 * after it in the list), each found from the one before. The burst walks them in stages
 * a keys apart: the slot of key i + 3a is prefetched, then the node that slot names
 * (i + 2a), then that node's neighbours (i + a), then key i is processed. The stages
 * only read, and what they read is a hint: a slot or node changed by the keys in between
 * costs a useless prefetch, never a wrong verdict. A stage reads what the one before
 * prefetched, so a is larger when the state is far beyond the L2 cache (more than 8
 * times far_bytes, 16 MiB on the development machine, whose L3 is 32 MiB) and its lines
 * come from memory: 16 keys there (lru at 64 MiB, 256 MiB of state: 28.5 ns/key, against
 * 31.9 with 8 and 38.3 with 4), else 4 (at 1 MiB, 4 MiB of state: 67.6 ns/key with 4,
 * 71.8 with 8, 70.9 with 16; at 4 MiB, 16 MiB of state, 4 and 16 measure the same).
 */
#ifndef LRU_STAGE
#define LRU_STAGE 4
#endif
#ifndef LRU_STAGE_FAR
#define LRU_STAGE_FAR 16
#endif

static inline void lru_hint_node(const struct lru *l, uint64_t home)
{
	uint64_t s = l->slot[home];

	pd_prefetch_w(l->base.far, &l->node[s != 0 ? lru_slot_node(s) : 0]);
}

static inline void lru_hint_links(const struct lru *l, uint64_t home)
{
	uint64_t s = l->slot[home];
	const struct lru_node *x = &l->node[s != 0 ? lru_slot_node(s) : 0];

	pd_prefetch_w(l->base.far, &l->node[x->prev != LRU_NIL ? x->prev : 0]);
	pd_prefetch_w(l->base.far, &l->node[x->next != LRU_NIL ? x->next : 0]);
}

/*
 * After an eviction, the next ones (unless hits move the nodes near the tail first). An
 * eviction probes the slot of the tail's key and unlinks the tail from the node before
 * it, so the evictions to come walk the list from the tail: each node is found from the
 * one after it, a chain of dependent misses, one per eviction. The walk below goes
 * LRU_SCOUT nodes up from the new tail, through nodes that earlier evictions prefetched,
 * and prefetches the next node up and the slot of the last key it read. The walk reads
 * the true list each time, so a node moved by a hit costs a useless prefetch, never a
 * wrong link. Against the previous hint (the new tail's slot and the node before it),
 * side by side: lru at 4 MiB 88.7 -> 74.9 ns/key, at 1 MiB 62.6 -> 59.3, 8 MiB 67.5 ->
 * 66.2 (docs/speed.md); 2 and 8 nodes up measured no better than 4.
 */
#ifndef LRU_SCOUT
#define LRU_SCOUT 4
#endif

static inline void lru_hint_evict(const struct lru *l)
{
	uint32_t t = l->tail != LRU_NIL ? l->tail : 0;

	for (unsigned d = 0; d < LRU_SCOUT; d++) {
		uint32_t up = l->node[t].prev;

		if (up == LRU_NIL)
			break;
		t = up;
	}
	pd_prefetch_r(l->base.far, &l->slot[lru_home(l, lru_tag(l->node[t].key))]);
	pd_prefetch_w(l->base.far, &l->node[l->node[t].prev != LRU_NIL ? l->node[t].prev : 0]);
}

/* A key found in the list becomes the most recent. */
static inline void lru_to_front(struct lru *l, uint32_t node)
{
	if (l->head != node) {
		lru_unlink(l, node);
		lru_push_front(l, node);
	}
}

/* A new key h, whose empty slot lru_probe() found at s, as the most recent; the least
 * recent key is evicted when the buffer is full (with hint, the next evictions are
 * prefetched: lru_hint_evict). */
static inline void lru_insert(struct lru *l, uint64_t h, uint64_t s, bool hint)
{
	uint32_t node;

	if (l->count == l->cap) {
		node = l->tail;
		lru_unlink(l, node);
		lru_table_delete(l, lru_probe(l, l->node[node].key));
		s = lru_probe(l, h); /* the deletion may have moved the empty slot */
		if (hint)
			lru_hint_evict(l);
	} else {
		node = l->count++;
	}
	l->node[node].key = h;
	l->slot[s] = lru_tag(h) << 32 | (node + 1);
	lru_push_front(l, node);
}

static void lru_burst(struct pd_filter *f, const uint64_t *h, const uint64_t *ts, uint8_t *v,
		      unsigned n)
{
	struct lru *l = (struct lru *)f;
	uint64_t rnd[PD_BURST_MAX], home[PD_BURST_MAX];
	const unsigned a = pd_very_far(f) ? LRU_STAGE_FAR : LRU_STAGE;

	(void)ts;
	for (unsigned i = 0; i < n; i++) {
		home[i] = lru_home(l, lru_tag(h[i]));
		if (l->fp)
			rnd[i] = pd_prng_next(&f->prng);
		if (i < 3 * a)
			pd_prefetch_r(f->far, &l->slot[home[i]]);
	}
	for (unsigned i = 0; i < 2 * a && i < n; i++)
		lru_hint_node(l, home[i]);
	for (unsigned i = 0; i < a && i < n; i++)
		lru_hint_links(l, home[i]);
	for (unsigned i = 0; i < n; i++) {
		uint64_t s;

		if (i + 3 * a < n)
			pd_prefetch_r(f->far, &l->slot[home[i + 3 * a]]);
		if (i + 2 * a < n)
			lru_hint_node(l, home[i + 2 * a]);
		if (i + a < n)
			lru_hint_links(l, home[i + a]);
		s = lru_probe(l, h[i]);

		if (l->slot[s] != 0) {
			v[i] = PD_DUPLICATE;
			lru_to_front(l, lru_slot_node(l->slot[s]));
			continue;
		}
		/* fpbuffering: a miss is DUPLICATE with probability q (53-bit uniform) */
		v[i] = (uint8_t)(l->fp && (double)(rnd[i] >> 11) * 0x1.0p-53 < l->q);
		lru_insert(l, h[i], s, true);
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

	pd_free(l->node, lru_node_bytes(l->cap));
	pd_free(l->slot, (l->mask + 1) * sizeof(uint64_t));
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
	for (uint64_t i = 0; i < n; i++, node = l->node[node].prev)
		memcpy(out + 8 + i * 8, &l->node[node].key, 8);
}

/* A key as the most recent (the burst's insertion without the verdict). */
static void lru_touch(struct lru *l, uint64_t h)
{
	uint64_t s = lru_probe(l, h);

	if (l->slot[s] != 0)
		lru_to_front(l, lru_slot_node(l->slot[s]));
	else
		lru_insert(l, h, s, false);
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
	.timeless = true,
	.image_size = lru_image_size,
	.image_save = lru_image_save,
	.image_load = lru_image_load,
	.burst = lru_burst,
	.reset = lru_reset,
	.destroy = lru_destroy,
	.state = lru_state,
	.state_name = "fraction of buffer used",
};

/* Index slots for a buffer of cap keys: a power of two, at least 2 cap (load <= 1/2). */
static uint64_t lru_slots(uint32_t cap)
{
	uint64_t size = 2;

	while (size < 2 * (uint64_t)cap)
		size <<= 1;
	return size;
}

uint64_t pd_lru_footprint(uint64_t memory_bytes)
{
	const uint32_t cap = (uint32_t)(memory_bytes / sizeof(uint64_t));

	return (uint64_t)cap * sizeof(struct lru_node) + lru_slots(cap) * sizeof(uint64_t);
}

struct pd_filter *pd_lru_create(const struct pd_filter_params *p, struct pd_error *err)
{
	struct lru *l = PD_VARIANT_NEW(struct lru, &lru_ops, err);
	uint64_t size;

	if (l == NULL)
		return NULL;
	l->cap = (uint32_t)(p->memory_bytes / sizeof(uint64_t));
	l->fp = p->type == PD_FILTER_FPBUFFERING;
	l->q = p->fpbuf_q;
	size = lru_slots(l->cap);
	l->tag_shift = 32 - (unsigned)__builtin_ctzll(size); /* 32 - log2(size) */
	l->mask = size - 1;
	l->node = pd_alloc_zero(lru_node_bytes(l->cap));
	l->slot = pd_alloc_zero(size * sizeof(uint64_t));
	if (l->node == NULL || l->slot == NULL) {
		pd_free(l->node, lru_node_bytes(l->cap));
		pd_free(l->slot, size * sizeof(uint64_t));
		free(l);
		pd_err(err, PD_ENOMEM, "cannot allocate the buffer of %llu keys", (unsigned long long)p->memory_bytes / 8);
		return NULL;
	}
	l->head = LRU_NIL;
	l->tail = LRU_NIL;
	l->base.memory_bits = (uint64_t)l->cap * 64;
	l->base.footprint_bytes = pd_lru_footprint(p->memory_bytes);
	return &l->base;
}
