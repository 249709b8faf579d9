/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cli_mem_available (memavail.h). A container's limit is its memory cgroup's, which
 * /proc/meminfo does not show: inside one, MemAvailable is the host's.
 */
#include <stdio.h>
#include <string.h>

#include "memavail.h"

#define NO_LIMIT (1ULL << 62) /* v1 writes "no limit" as 2^63 less a page */

/* The number after @p key (a line "key N" or "key: N kB") in @p path, or -1 for none. */
static int read_number(const char *path, const char *key, unsigned long long *out)
{
	FILE *f = fopen(path, "r");
	char line[256];
	const size_t n = strlen(key);
	int rc = -1;

	if (f == NULL)
		return -1;
	while (rc != 0 && fgets(line, sizeof(line), f) != NULL)
		if ((n == 0 || (strncmp(line, key, n) == 0 && line[n] == ' ')) &&
		    sscanf(line + n, " %llu", out) == 1)
			rc = 0;
	fclose(f);
	return rc;
}

/* Room left in this process's memory cgroup, or NO_LIMIT without a limit. */
static uint64_t cgroup_room(void)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[512], dir[640], path[704];
	unsigned long long limit = 0, used = 0, cache = 0;
	int v2 = 0, found = 0;

	if (f == NULL)
		return NO_LIMIT;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		char *ctl = strchr(line, ':'), *rel = ctl != NULL ? strchr(ctl + 1, ':') : NULL;

		if (rel == NULL)
			continue;
		*rel++ = '\0';
		rel[strcspn(rel, "\n")] = '\0';
		if (strcmp(ctl + 1, "") == 0 && strncmp(line, "0", 1) == 0) /* v2: 0::PATH */
			v2 = found = 1;
		else if (strstr(ctl + 1, "memory") != NULL) /* v1: N:...memory...:PATH */
			found = 1;
		if (found)
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s%s", v2 ? "" : "/memory",
				 strcmp(rel, "/") == 0 ? "" : rel);
	}
	fclose(f);
	if (!found)
		return NO_LIMIT;
	snprintf(path, sizeof(path), "%s/%s", dir, v2 ? "memory.max" : "memory.limit_in_bytes");
	if (read_number(path, "", &limit) != 0 || limit >= NO_LIMIT) /* "max": none */
		return NO_LIMIT;
	snprintf(path, sizeof(path), "%s/%s", dir, v2 ? "memory.current" : "memory.usage_in_bytes");
	if (read_number(path, "", &used) != 0)
		return NO_LIMIT;
	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	if (read_number(path, v2 ? "inactive_file" : "total_inactive_file", &cache) == 0 &&
	    cache <= used)
		used -= cache;
	return used < limit ? limit - used : 0;
}

uint64_t cli_mem_available(const char **why)
{
	unsigned long long kib = 0;
	uint64_t avail, room = cgroup_room();

	if (read_number("/proc/meminfo", "MemAvailable:", &kib) != 0)
		kib = 0;
	avail = (uint64_t)kib * 1024;
	if (why != NULL)
		*why = "MemAvailable";
	if (room < avail || (avail == 0 && room != NO_LIMIT)) {
		avail = room;
		if (why != NULL)
			*why = "the memory cgroup's limit";
	}
	return avail;
}
