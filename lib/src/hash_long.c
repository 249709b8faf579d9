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
#include <xxh_x86dispatch.h>
#endif

#include "filter_private.h"

uint64_t pd_hash_long(const void *key, size_t len, const void *secret, size_t secret_len)
{
	return XXH3_64bits_withSecret(key, len, secret, secret_len);
}
