/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Delivered-mode truth (delivered.h): an open-addressing map from each key the filter
 * delivered to the time of its last delivery, linear probing, load <= 1/2 (doubling).
 * Time 0 marks an empty slot (times start at 1), so every 64-bit key can be stored.
 */
#include <stdlib.h>

#include "delivered.h"

struct delivered {
	uint64_t *key;
	uint64_t *time;
	uint64_t mask, count, window, now;
};

static uint64_t slot_of(uint64_t k, uint64_t mask)
{
	k ^= k >> 31;
	k *= 0x9e3779b97f4a7c15ULL;
	return (k ^ (k >> 29)) & mask;
}

static int grow(struct delivered *d, uint64_t size)
{
	uint64_t *key = calloc(size, sizeof(*key)), *time = calloc(size, sizeof(*time));

	if (key == NULL || time == NULL) {
		free(key);
		free(time);
		return -1;
	}
	for (uint64_t i = 0; d->key != NULL && i <= d->mask; i++) {
		uint64_t s;

		if (d->time[i] == 0)
			continue;
		for (s = slot_of(d->key[i], size - 1); time[s] != 0; s = (s + 1) & (size - 1))
			;
		key[s] = d->key[i];
		time[s] = d->time[i];
	}
	free(d->key);
	free(d->time);
	d->key = key;
	d->time = time;
	d->mask = size - 1;
	return 0;
}

struct delivered *delivered_new(uint64_t window)
{
	struct delivered *d = calloc(1, sizeof(*d));

	if (d == NULL || grow(d, 1u << 16) != 0) {
		free(d);
		return NULL;
	}
	d->window = window;
	return d;
}

void delivered_free(struct delivered *d)
{
	if (d == NULL)
		return;
	free(d->key);
	free(d->time);
	free(d);
}

int delivered_score(struct delivered *d, const uint64_t *k, const uint8_t *v, uint8_t *truth,
		    size_t n)
{
	for (size_t j = 0; j < n; j++) {
		const uint64_t t = ++d->now;
		uint64_t s = slot_of(k[j], d->mask);

		while (d->time[s] != 0 && d->key[s] != k[j])
			s = (s + 1) & d->mask;
		truth[j] = d->time[s] != 0 && t - d->time[s] <= d->window;
		if (v[j])
			continue; /* not delivered: the last delivery stays */
		if (d->time[s] == 0) {
			if (2 * (d->count + 1) > d->mask + 1) {
				if (grow(d, 2 * (d->mask + 1)) != 0)
					return -1;
				for (s = slot_of(k[j], d->mask); d->time[s] != 0;
				     s = (s + 1) & d->mask)
					;
			}
			d->count++;
			d->key[s] = k[j];
		}
		d->time[s] = t;
	}
	return 0;
}
