/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the snapshot loader. The first input byte is a flag byte: with
 * bit 0 set the harness rewrites the checksum of the rest before parsing, so mutations
 * reach the structure and image checks behind it (a forged file, not just a damaged
 * one). Every image that parses is loaded into a filter made with its own parameters
 * (at most 1 MiB) and the filter then runs a burst of keys: a load either fails cleanly
 * or leaves a filter that works. Seeds: tests/fuzz/snapshot_seeds.c. Run by
 * scripts/fuzz.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <pktdedup/pd_snapshot.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_snapshot *s;
	struct pd_error err;
	uint8_t *copy;

	if (size == 0)
		return 0;
	copy = malloc(size);
	if (copy == NULL)
		return 0;
	memcpy(copy, data + 1, size - 1);
	if ((data[0] & 1) && size - 1 >= 16) {
		uint64_t h = XXH3_64bits(copy, size - 1 - 8);

		memcpy(copy + size - 1 - 8, &h, 8);
	}
	s = pd_snapshot_parse(copy, size - 1, &err);
	free(copy);
	if (s == NULL)
		return 0;
	for (unsigned i = 0; i < pd_snapshot_count(s) && i < 8; i++) {
		struct pd_filter_params p;
		struct pd_filter *f;
		uint64_t keys[64];
		uint8_t v[64];

		if (pd_snapshot_params(s, i, &p, &err) != 0 || p.memory_bytes > (1u << 20))
			continue;
		f = pd_filter_create(&p, &err);
		if (f == NULL)
			continue;
		(void)pd_snapshot_load(s, i, f, &err);
		for (unsigned j = 0; j < 64; j++)
			keys[j] = j * 0x9e3779b97f4a7c15ULL;
		pd_filter_burst_u64(f, keys, NULL, v, 64);
		pd_filter_destroy(f);
	}
	pd_snapshot_free(s);
	return 0;
}
