/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Option-value parsing shared by the command-line tools. Each parser prints
 * "<prog>: <option> <value>: <why>" to stderr and returns -1 on a bad value, 0 otherwise.
 */
#ifndef PKTDEDUP_CLI_H
#define PKTDEDUP_CLI_H

#include <stdint.h>

/** Program name used in messages ("pktdedup", "pktdedup-eval"). */
extern const char *cli_prog;

/** Print "<prog>: <opt> <val>: <why>"; returns -1. */
int cli_bad(const char *opt, const char *val, const char *why);
/** Bytes with an optional K/M/G suffix (powers of 1024; "8M", "8MB", "8MiB"). */
int cli_size(const char *opt, const char *s, uint64_t *out);
/** A non-negative integer, also written as 1e7. */
int cli_count(const char *opt, const char *s, uint64_t *out);
/** cli_count limited to 32 bits. */
int cli_u32(const char *opt, const char *s, uint32_t *out);
/** A real number in [lo, hi]. */
int cli_real(const char *opt, const char *s, double lo, double hi, double *out);
/** A duration with a unit: ns, us, ms or s ("50us", "1.5s"); out in nanoseconds. */
int cli_duration(const char *opt, const char *s, uint64_t *out_ns);

#endif
