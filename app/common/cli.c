/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *cli_prog = "pktdedup";

int cli_bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "%s: %s %s: %s\n", cli_prog, opt, val, why);
	return -1;
}

int cli_size(const char *opt, const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	if (*s == '-' || *s == '\0')
		return cli_bad(opt, s, "expected a size such as 8M");
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s)
		return cli_bad(opt, s, "expected a size such as 8M");
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	else if (*end != '\0')
		return cli_bad(opt, s, "unknown unit (use K, M or G)");
	if (shift != 0 && end[1] != '\0' && !(end[1] == 'B' && end[2] == '\0') &&
	    !(end[1] == 'i' && end[2] == 'B' && end[3] == '\0'))
		return cli_bad(opt, s, "unknown unit (use K, M or G)");
	if (shift != 0 && v > (~0ULL >> shift))
		return cli_bad(opt, s, "too large");
	*out = (uint64_t)v << shift;
	return 0;
}

int cli_count(const char *opt, const char *s, uint64_t *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(d >= 0) || d != floor(d) || d > 1e18)
		return cli_bad(opt, s, "expected a non-negative integer");
	*out = (uint64_t)d;
	return 0;
}

int cli_u32(const char *opt, const char *s, uint32_t *out)
{
	uint64_t v;

	if (cli_count(opt, s, &v) != 0)
		return -1;
	if (v > UINT32_MAX)
		return cli_bad(opt, s, "too large");
	*out = (uint32_t)v;
	return 0;
}

int cli_real(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(d >= lo && d <= hi)) {
		char why[96];

		snprintf(why, sizeof(why), "expected a number in [%g, %g]", lo, hi);
		return cli_bad(opt, s, why);
	}
	*out = d;
	return 0;
}

int cli_duration(const char *opt, const char *s, uint64_t *out_ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno != 0 || end == s || !(d >= 0))
		return cli_bad(opt, s, "expected a duration such as 50us, 10ms or 1s");
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0) {
			double ns = d * units[i].ns;

			if (ns > 1e18)
				return cli_bad(opt, s, "too large");
			*out_ns = (uint64_t)llround(ns);
			return 0;
		}
	return cli_bad(opt, s, *end ? "unknown unit (use ns, us, ms or s)"
				    : "needs a unit: ns, us, ms or s");
}
