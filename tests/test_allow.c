/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --allow N's copy counts (pd_allow.h) against a plain model written from the header:
 * an unbounded map from key to the copies passed since its last DISTINCT verdict. With
 * a table large enough for every key the verdicts are the model's; with a small one
 * (counts evicted) every copy the model passes still passes, and more pass.
 */
#include <stdio.h>

#include <pktdedup/pd_allow.h>

#include "testutil.h"

struct model {
	uint64_t *key;
	unsigned *cnt;
	size_t n;
};

static unsigned *model_count(struct model *m, uint64_t h)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->key[i] == h)
			return &m->cnt[i];
	m->key[m->n] = h;
	m->cnt[m->n] = 0;
	return &m->cnt[m->n++];
}

/* The model's verdict for one key after the filter's v. */
static uint8_t model_step(struct model *m, unsigned allow, uint64_t h, uint8_t v)
{
	unsigned *c = model_count(m, h);

	if (v == PD_DISTINCT) {
		*c = 0;
		return PD_DISTINCT;
	}
	if (*c < allow) {
		(*c)++;
		return PD_ALLOWED;
	}
	return PD_DUPLICATE;
}

/* n packets over `distinct` keys (hashes from splitmix, one of them 0), the filter's
 * verdicts the truth with 1 in `flip` flipped (its errors; 0: none); lib against model. */
static void run_case(unsigned allow, uint64_t bytes, size_t distinct, int exact, uint64_t seed,
		     unsigned flip)
{
	const size_t n = 60000;
	uint64_t *idx = tu_keys(n, distinct, seed), *h = malloc(n * sizeof(*h)), x = ~seed * 7919;
	uint8_t *truth = tu_truth(idx, n), *v = malloc(n), *w = malloc(n);
	struct model m = {malloc(distinct * sizeof(uint64_t)), malloc(distinct * sizeof(unsigned)), 0};
	struct pd_allow *a = pd_allow_create(allow, bytes);
	size_t allowed_lib = 0, allowed_model = 0, dups = 0;

	assert_non_null(a);
	for (size_t i = 0; i < n; i++) {
		uint64_t y = idx[i] * 0x9e3779b97f4a7c15ULL + seed;

		h[i] = idx[i] == 7 ? 0 : tu_splitmix(&y);
		v[i] = truth[i] ^ (flip != 0 && tu_splitmix(&x) % flip == 0);
		w[i] = v[i];
		dups += v[i];
	}
	for (size_t i = 0; i < n; i += 32)
		pd_allow_apply(a, h + i, w + i, (unsigned)(n - i < 32 ? n - i : 32));
	for (size_t i = 0; i < n; i++) {
		const uint8_t want = model_step(&m, allow, h[i], v[i]);

		allowed_lib += w[i] == PD_ALLOWED;
		allowed_model += want == PD_ALLOWED;
		if (exact) {
			assert_int_equal(w[i], want);
		} else {
			/* evictions only lose counts: whatever the model passes passes */
			if (want == PD_ALLOWED)
				assert_int_equal(w[i], PD_ALLOWED);
			assert_true(w[i] == want || (want == PD_DUPLICATE && w[i] == PD_ALLOWED));
		}
	}
	printf("allow %u, %llu entries, %zu keys: %zu of %zu copies allowed (model %zu)\n",
	       allow, (unsigned long long)pd_allow_entries(a), distinct, allowed_lib, dups,
	       allowed_model);
	assert_true(allowed_model > 0 && allowed_model < dups);
	if (!exact)
		assert_true(allowed_lib > allowed_model); /* the small table did evict */
	pd_allow_free(a);
	free(idx);
	free(h);
	free(truth);
	free(v);
	free(w);
	free(m.key);
	free(m.cnt);
}

static void test_as_model(void **state)
{
	(void)state;
	run_case(1, 4 << 20, 3000, 1, 1, 50);
	run_case(3, 4 << 20, 3000, 1, 2, 50);
	/* 600 packets a key, no filter error: counts reach the top and stay there */
	run_case(PD_ALLOW_MAX, 4 << 20, 100, 1, 3, 0);
}

static void test_evictions_pass_more(void **state)
{
	(void)state;
	run_case(1, 4096, 5000, 0, 4, 50);
	run_case(3, 4096, 5000, 0, 5, 50);
}

static void test_refusals(void **state)
{
	(void)state;
	assert_null(pd_allow_create(0, 4096));
	assert_null(pd_allow_create(PD_ALLOW_MAX + 1, 4096));
	assert_null(pd_allow_create(1, 63));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_as_model),
		cmocka_unit_test(test_evictions_pass_more),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
