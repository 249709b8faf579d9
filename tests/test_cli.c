/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tools' size parser (app/common/cli.c, cli_size) against byte counts written out by
 * hand: every unit spelling in both cases, fractions that come to whole bytes and ones
 * that do not, the largest size that fits and the first that does not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "../app/common/cli.h"

static void test_sizes(void **state)
{
	static const struct {
		const char *s;
		uint64_t bytes;
	} ok[] = {
		{"0", 0}, {"4096", 4096}, {"4096B", 4096}, {"4096b", 4096},
		{"8K", 8192}, {"8k", 8192}, {"8KB", 8192}, {"8kb", 8192}, {"8KiB", 8192},
		{"8kib", 8192}, {"64M", 67108864}, {"64mb", 67108864}, {"64MB", 67108864},
		{"64MiB", 67108864}, {"2G", 2147483648ULL}, {"2gb", 2147483648ULL},
		{"1T", 1099511627776ULL}, {"1tib", 1099511627776ULL},
		{"1.5G", 1610612736ULL}, {"1.5g", 1610612736ULL}, {"0.5K", 512},
		{"0.25M", 262144}, {"2.0", 2}, {"1.000K", 1024}, {"0.0009765625M", 1024},
		{"18446744073709551615", UINT64_MAX}, {"16777215.75T", 18446743798831644672ULL},
	};
	static const char *const bad[] = {
		"", "M", ".5M", "1.", "1.M", "-1", "+1", " 1", "1 M", "1.5", "1.3K", "0.1M",
		"8X", "8Mx", "8MBB", "8Mi", "8iB", "8kibb", "1P", "18446744073709551616",
		"16777216T", "0x10", "1e6", "0.00000000000000000001K",
	};

	(void)state;
	cli_prog = "test_cli";
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint64_t v = 12345;

		if (cli_size("--memory", ok[i].s, &v) != 0)
			fail_msg("%s refused", ok[i].s);
		if (v != ok[i].bytes)
			fail_msg("%s: %llu bytes, want %llu", ok[i].s, (unsigned long long)v,
				 (unsigned long long)ok[i].bytes);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 12345;

		if (cli_size("--memory", bad[i], &v) == 0)
			fail_msg("%s accepted as %llu", bad[i], (unsigned long long)v);
		assert_int_equal(v, 12345); /* nothing written */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
