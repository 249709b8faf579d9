/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qhtlru's lookup variants and row steps (the 512-bit row kernels of row512.h, through a
 * filter), for its tests (tests/test_qhtlru.c): every variant the CPU supports must give
 * the same lane for the same row and fingerprint.
 * Also the switch between qht.c's AVX-512 and SWAR bursts, for the same tests.
 */
#ifndef PKTDEDUP_QHTLRU_PRIVATE_H
#define PKTDEDUP_QHTLRU_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "row512.h" /* enum pd_qhtlru_variant */

struct pd_filter;


/* Whether this CPU (and build) has the variant. */
int pd_qhtlru_variant_supported(enum pd_qhtlru_variant v);
/* Use variant v for f's lookups: 0, or -1 when not supported (f unchanged). */
int pd_qhtlru_set_variant(struct pd_filter *f, enum pd_qhtlru_variant v);
/* The variant in use (create picks the widest supported). */
enum pd_qhtlru_variant pd_qhtlru_variant(const struct pd_filter *f);
/* The lane of fp in a row of 8 words (f's b and f), or -1. */
int pd_qhtlru_find(const struct pd_filter *f, const uint64_t *row, uint64_t fp);
/* Remove lane j of the row, move the lanes above it down one, put fp in lane b - 1. */
void pd_qhtlru_move(const struct pd_filter *f, uint64_t *row, unsigned j, uint64_t fp);

/* qht, qhtd, qqhtd (qht.c) rows wider than 64 bits: the AVX-512 burst when on (and the
 * CPU has it), else the SWAR one. 0, or -1 when asked for AVX-512 that the rows or the
 * CPU cannot take (f then takes SWAR), or when f is not a qht.c table. */
int pd_qht_set_simd(struct pd_filter *f, bool on);

#endif
