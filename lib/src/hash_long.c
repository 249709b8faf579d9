/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Keys longer than XXH3's mid-size limit (240 bytes), e.g. whole-packet keys: hashed by
 * the system libxxhash, whose x86 dispatcher picks SSE2, AVX2 or AVX-512 at run time
 * (this library is built for a portable -march). With the secret that
 * XXH3_generateSecret_fromSeed() makes for the seed, the result is exactly
 * XXH3_64bits_withSeed(key, len, seed) (xxhash.h, _withSecretandSeed()).
 */
#include <stddef.h>
#include <stdint.h>

#include <xxhash.h>
#ifdef PD_HAVE_XXH_DISPATCH
#define XXH_DISPATCH_DISABLE_REPLACE /* called by name below, weakly */
#include <xxh_x86dispatch.h>
/*
 * Debian's libxxhash.so has the dispatcher, its libxxhash.a does not: a weak reference
 * lets a program link this library statically (the reference is then NULL, and the
 * portable XXH3 of libxxhash.a hashes: the same values, tests/consumer.sh checks).
 */
#pragma weak XXH3_64bits_withSecret_dispatch
#endif

#include "filter_private.h"

uint64_t pd_hash_long(const void *key, size_t len, const void *secret, size_t secret_len)
{
#ifdef PD_HAVE_XXH_DISPATCH
	if (XXH3_64bits_withSecret_dispatch != NULL) /* the same branch every call */
		return XXH3_64bits_withSecret_dispatch(key, len, secret, secret_len);
#endif
	return XXH3_64bits_withSecret(key, len, secret, secret_len);
}
