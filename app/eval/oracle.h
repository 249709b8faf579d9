/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exact truth of the unwindowed common model: a key is a duplicate iff it occurred
 * before. For a generated stream, whose keys are all below a known bound, one bit per
 * possible key (a 1e9-key stream with 90% distinct keys: a 5e9-bit universe, 625 MB, where
 * a hash set of 9e8 keys would need 13-34 GB); for keys from a file, the exact filter.
 */
#ifndef PKTDEDUP_EVAL_ORACLE_H
#define PKTDEDUP_EVAL_ORACLE_H

#include <stddef.h>
#include <stdint.h>

struct oracle;

/* key_bound: every key is below it (0: unknown). NULL with msg filled on failure. */
struct oracle *oracle_new(uint64_t key_bound, uint64_t seed, char *msg, size_t len);
void oracle_free(struct oracle *o);

/* truth[j] = 1 iff k[j] occurred earlier in the stream; then the keys are recorded. */
void oracle_score(struct oracle *o, const uint64_t *k, uint8_t *truth, size_t n);
/* Keys the hash set could not record (no memory to grow): the truth is then not exact. */
uint64_t oracle_unstored(const struct oracle *o);

#endif
