/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>

#include <pktdedup/pd_filter.h>

#include "oracle.h"

/* Above this a bitmap is not worth its memory: the hash set holds the keys seen instead. */
#define BITMAP_MAX_BITS (1ULL << 36) /* 8 GiB */

struct oracle {
	uint64_t *bits;         /* a bit per key below the bound, or NULL */
	struct pd_filter *set;  /* otherwise the exact filter */
};

struct oracle *oracle_new(uint64_t key_bound, uint64_t seed, char *msg, size_t len)
{
	struct oracle *o = calloc(1, sizeof(*o));

	if (o == NULL) {
		snprintf(msg, len, "oracle: out of memory");
		return NULL;
	}
	if (key_bound != 0 && key_bound <= BITMAP_MAX_BITS) {
		/* calloc: the kernel's zero pages, touched only where keys fall */
		o->bits = calloc((key_bound + 63) / 64, sizeof(uint64_t));
		if (o->bits == NULL) {
			snprintf(msg, len, "oracle: cannot allocate a bitmap of %llu bits",
				 (unsigned long long)key_bound);
			free(o);
			return NULL;
		}
		return o;
	}
	struct pd_filter_params p = {.type = PD_FILTER_EXACT, .seed = seed};
	struct pd_error err = {0};

	o->set = pd_filter_create(&p, &err);
	if (o->set == NULL) {
		snprintf(msg, len, "oracle: %s", err.msg);
		free(o);
		return NULL;
	}
	return o;
}

void oracle_free(struct oracle *o)
{
	if (o == NULL)
		return;
	free(o->bits);
	pd_filter_destroy(o->set);
	free(o);
}

void oracle_score(struct oracle *o, const uint64_t *k, uint8_t *truth, size_t n)
{
	if (o->set != NULL) {
		pd_filter_burst_u64(o->set, k, NULL, truth, n);
		return;
	}
	for (size_t j = 0; j < n; j++) {
		uint64_t *w = &o->bits[k[j] >> 6];
		const uint64_t bit = 1ULL << (k[j] & 63);

		truth[j] = (*w & bit) != 0;
		*w |= bit;
	}
}

uint64_t oracle_unstored(const struct oracle *o)
{
	struct pd_filter_stats st;

	if (o->set == NULL)
		return 0;
	pd_filter_stats(o->set, &st);
	return st.unstored;
}
