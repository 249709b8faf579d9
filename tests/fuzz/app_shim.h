/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Force-included (-include) when a fuzz harness compiles an app source without DPDK:
 * pktdedup.h's guard is taken, so it adds nothing, and its log macro writes nowhere.
 */
#ifndef PKTDEDUP_APP_H
#define PKTDEDUP_APP_H
#include <stdatomic.h>
extern _Atomic int pd_force_quit;
#define PD_LOG(level, ...) ((void)0)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
