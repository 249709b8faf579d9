/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Before EAL starts an inline run, the two things that most often stop it on a fresh
 * machine, each named with the command that fixes it: an lcore that is not a CPU this
 * process may run on (EAL would print its whole usage, some 90 lines), and no free
 * hugepages or no hugetlbfs to take them from (EAL says "Cannot get hugepage
 * information", which pktdedup could only read as a permission problem).
 * scripts/setup-inline.sh reserves and mounts the hugepages and lists the lcores and
 * ports. Forms of -l and --lcores that map lcores to other CPUs ('@', groups) and
 * --no-huge runs are left to EAL.
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pktdedup.h"

/* The value of EAL option @p name (short "-l" or long "--lcores", "--lcores=X" too). */
static const char *eal_value(int argc, char **argv, const char *name)
{
	const size_t n = strlen(name);

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], name) == 0)
			return i + 1 < argc ? argv[i + 1] : NULL;
		if (strncmp(argv[i], name, n) == 0 && (argv[i][n] == '=' ||
						       (name[1] != '-' && argv[i][n] != '\0')))
			return argv[i] + n + (argv[i][n] == '=');
	}
	return NULL;
}

static int eal_flag(int argc, char **argv, const char *name)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

/* "0-1,3" of the CPUs in @p set, into buf. */
static void cpus_text(const cpu_set_t *set, char *buf, size_t len)
{
	int first = -1;
	size_t at = 0;

	buf[0] = '\0';
	for (int c = 0; c <= CPU_SETSIZE; c++) {
		const int in = c < CPU_SETSIZE && CPU_ISSET(c, set);

		if (in && first < 0)
			first = c;
		if (!in && first >= 0 && at < len) {
			at += (size_t)snprintf(buf + at, len - at, "%s%d", at ? "," : "", first);
			if (c - 1 > first && at < len)
				at += (size_t)snprintf(buf + at, len - at, "-%d", c - 1);
			first = -1;
		}
	}
}

/*
 * The lcores of "-l 0-2,4" (and of --lcores in that form) into @p want: 0, 1 when the
 * list has a form this does not read (EAL judges it), -1 when it is no list at all.
 */
static int lcore_list(const char *s, cpu_set_t *want)
{
	CPU_ZERO(want);
	if (strpbrk(s, "@()") != NULL)
		return 1;
	while (*s != '\0') {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0 || a >= CPU_SETSIZE)
			return -1;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= CPU_SETSIZE)
				return -1;
		}
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, want);
		if (*end == ',')
			end++;
		else if (*end != '\0')
			return -1;
		s = end;
	}
	return 0;
}

/* The lcores of "-c 0x7" into @p want: 0, or -1. */
static int lcore_mask(const char *s, cpu_set_t *want)
{
	size_t n;

	CPU_ZERO(want);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const int d = (unsigned char)s[n - 1 - i];
		const int v = isdigit(d) ? d - '0' : isxdigit(d) ? tolower(d) - 'a' + 10 : -1;

		if (v < 0)
			return -1;
		for (int bit = 0; bit < 4; bit++)
			if ((v >> bit & 1) && 4 * i + (size_t)bit < CPU_SETSIZE)
				CPU_SET((int)(4 * i) + bit, want);
	}
	return 0;
}

static int check_lcores(int argc, char **argv)
{
	const char *l = eal_value(argc, argv, "-l"), *opt = "-l";
	cpu_set_t can, want, bad;
	char cans[256], bads[256];
	int rc;

	if (l == NULL && (l = eal_value(argc, argv, "--lcores")) != NULL)
		opt = "--lcores";
	if (l != NULL)
		rc = lcore_list(l, &want);
	else if ((l = eal_value(argc, argv, "-c")) != NULL) {
		opt = "-c";
		rc = lcore_mask(l, &want);
	} else {
		return 0; /* EAL's default: every CPU this process may use */
	}
	if (rc != 0 || sched_getaffinity(0, sizeof(can), &can) != 0)
		return 0; /* not a form read here, or no affinity: EAL judges */
	CPU_AND(&bad, &want, &can);
	CPU_XOR(&bad, &bad, &want); /* wanted, and not a CPU this process may use */
	if (CPU_COUNT(&bad) == 0)
		return 0;
	cpus_text(&bad, bads, sizeof(bads));
	cpus_text(&can, cans, sizeof(cans));
	PD_LOG(ERR, "EAL %s %s: %s %s %s this process may run on (it has %s): give -l with"
		" those, e.g. -l %s (bash scripts/setup-inline.sh lists them)\n", opt, l,
		CPU_COUNT(&bad) > 1 ? "lcores" : "lcore", bads,
		CPU_COUNT(&bad) > 1 ? "are not CPUs" : "is not a CPU", cans, cans);
	return 2;
}

/* Free hugepages of every size (sysfs), and whether a hugetlbfs is mounted. */
static unsigned long hugepages_free(void)
{
	static const char *const sizes[] = {"2048kB", "1048576kB"};
	unsigned long total = 0;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char path[128];
		unsigned long v = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%s/free_hugepages",
			 sizes[i]);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fscanf(f, "%lu", &v) == 1)
			total += v;
		fclose(f);
	}
	return total;
}

static int hugetlbfs_mounted(void)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/mounts", "r");

	if (f == NULL)
		return 1; /* cannot tell: EAL judges */
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		char dev[128], dir[256], type[64];

		found = sscanf(line, "%127s %255s %63s", dev, dir, type) == 3 &&
			strcmp(type, "hugetlbfs") == 0;
	}
	fclose(f);
	return found;
}

static int check_hugepages(int argc, char **argv)
{
	/* without root EAL cannot use hugepages at all: its failure says so (main.c) */
	if (eal_flag(argc, argv, "--no-huge") || geteuid() != 0)
		return 0;
	if (hugepages_free() == 0) {
		PD_LOG(ERR, "no free hugepages for EAL: reserve and mount them with"
			" 'sudo bash scripts/setup-inline.sh' (dpdk-hugepages.py --setup 2G), or"
			" give EAL --no-huge -m 1024 to run on virtual devices without them"
			" (docs/app.md, \"Inline on ports\")\n");
		return 1;
	}
	if (!hugetlbfs_mounted()) {
		PD_LOG(ERR, "hugepages are reserved but no hugetlbfs is mounted to take them"
			" from: 'sudo bash scripts/setup-inline.sh' mounts one (or: mkdir -p"
			" /dev/hugepages; mount -t hugetlbfs nodev /dev/hugepages)\n");
		return 1;
	}
	return 0;
}

int pd_eal_check(int argc, char **argv)
{
	int rc = check_lcores(argc, argv);

	return rc != 0 ? rc : check_hugepages(argc, argv);
}
