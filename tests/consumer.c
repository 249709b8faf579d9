/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program outside the project, built against the installed library by
 * tests/consumer.sh, linked shared and static. It prints what both links must agree on:
 * an exact filter's verdicts (in one burst, and staged then probed by hash), a planned
 * filter's parameters, and the keyed hash of a long
 * key (the shared link hashes it with libxxhash's SIMD dispatcher, the static one with
 * its portable XXH3).
 */
#include <stdio.h>

#include <pktdedup/pd_filter.h>
#include <pktdedup/pd_key.h>
#include <pktdedup/pd_plan.h>
#include <pktdedup/pd_snapshot.h>

int main(void)
{
	const uint64_t keys[8] = {1, 2, 1, 3, 2, 4, 4, 9};
	const uint8_t want[8] = {0, 0, 1, 0, 1, 0, 1, 0};
	struct pd_filter_params p = {.type = PD_FILTER_EXACT, .seed = 7};
	struct pd_filter_params q = {.type = PD_FILTER_QHTLRU, .memory_bytes = 1 << 20,
				     .target_fpr = 1e-6, .seed = 7};
	struct pd_error err;
	struct pd_plan plan;
	struct pd_filter *f, *g;
	unsigned char big[1500];
	uint64_t h[8];
	uint8_t v[8], w[8];

	f = pd_filter_create(&p, &err);
	g = pd_filter_create(&p, &err);
	if (f == NULL || g == NULL || pd_plan(&q, &plan, &err) != 0) {
		fprintf(stderr, "consumer: %s\n", err.msg);
		return 1;
	}
	pd_filter_burst_u64(f, keys, NULL, v, 8);
	pd_filter_stage_u64(g, keys, h, 8); /* hashed and prefetched, probed below */
	pd_filter_burst_hashed(g, h, NULL, w, 8);
	for (int i = 0; i < 8; i++)
		if (v[i] != want[i] || w[i] != want[i]) {
			fprintf(stderr, "consumer: key %d: verdicts %u, %u staged, want %u\n", i,
				v[i], w[i], want[i]);
			return 1;
		}
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 7 + 3);
	printf("%s b=%u f=%u\n", pd_filter_type_name(q.type), plan.params.qht_b,
	       plan.params.qht_f);
	printf("long key hash %016llx\n",
	       (unsigned long long)pd_filter_hash(f, big, sizeof(big)));
	printf("short key hash %016llx\n", (unsigned long long)pd_filter_hash(f, big, 13));
	printf("key mode %s\n", pd_key_mode_name(PD_KEY_FLOW));
	pd_filter_destroy(f);
	pd_filter_destroy(g);
	return 0;
}
