/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live estimate's test hook (tests/test_estimate.c), not part of the installed API:
 * the portable scan checked against the CPU's.
 */
#ifndef PKTDEDUP_ESTIMATE_PRIVATE_H
#define PKTDEDUP_ESTIMATE_PRIVATE_H

struct pd_estimate;

/* 1: this estimator scans with the portable loop even where AVX2 is; 0: the CPU's. */
void pd_estimate_force_scalar(struct pd_estimate *e, int scalar);

#endif
