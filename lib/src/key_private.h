/* SPDX-License-Identifier: BSD-3-Clause */
/* Inside the library (and its tests) only. */
#ifndef PKTDEDUP_KEY_PRIVATE_H
#define PKTDEDUP_KEY_PRIVATE_H

#include <pktdedup/pd_key.h>

/* pd_key_extract() without its fast path for common flow keys: every frame through the
 * general parse. Same contract and results; tests compare the two. */
__attribute__((visibility("hidden"))) enum pd_key_reason
pd_key_extract_general(const struct pd_key_config *c, const uint8_t *frame, size_t len,
		       uint8_t *key, size_t cap, size_t *key_len);
/* The same with where the IP header is (pd_key_extract_ip). */
__attribute__((visibility("hidden"))) enum pd_key_reason
pd_key_extract_general_ip(const struct pd_key_config *c, const uint8_t *frame, size_t len,
			  uint8_t *key, size_t cap, size_t *key_len, struct pd_key_ip *ip);

#endif
