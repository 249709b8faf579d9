/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memory a run may still take without being killed by the OOM killer: the filters
 * are zeroed as they are made, so a total above it gets a run killed partway, and the
 * tools refuse such a run first.
 */
#ifndef PKTDEDUP_APP_MEMAVAIL_H
#define PKTDEDUP_APP_MEMAVAIL_H

#include <stdint.h>

/* Bytes: /proc/meminfo's MemAvailable, or less where the process's memory cgroup (v2
 * memory.max, v1 memory.limit_in_bytes) leaves less room: its limit less what it uses,
 * page cache it can reclaim (inactive_file) not counted as used. 0 if unknown. @p why
 * (if not NULL) is set to "MemAvailable" or "the memory cgroup's limit". */
uint64_t cli_mem_available(const char **why);

#endif
