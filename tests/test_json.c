/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tools' JSON writer (app/common/json.c) against text written by hand from RFC 8259:
 * escapes, numbers that JSON cannot hold, layout, and a write error reported.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../app/common/json.h"

static void test_document(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct json j;

	(void)state;
	assert_non_null(f);
	json_begin(&j, f);
	json_open(&j, NULL, '{', 0);
	json_str(&j, "name", "a\"b\\c\nd\te\x01\x7f" "\xc3\xa9");
	json_u64(&j, "max", UINT64_MAX);
	json_f64(&j, "nan", "%g", NAN);
	json_f64(&j, "inf", "%g", -INFINITY);
	json_f64(&j, "x", "%.3f", 0.5);
	json_str(&j, "none", NULL);
	json_open(&j, "flat", '{', 1);
	json_bool(&j, "t", 1);
	json_open(&j, "inner", '[', 0); /* inside a flat object: flat too */
	json_u64(&j, NULL, 1);
	json_u64(&j, NULL, 2);
	json_close(&j);
	json_close(&j);
	json_open(&j, "list", '[', 0);
	json_open(&j, NULL, '{', 1);
	json_null(&j, "v");
	json_close(&j);
	json_close(&j);
	json_open(&j, "empty", '[', 0);
	json_close(&j);
	json_close(&j);
	assert_int_equal(json_end(&j), 0);
	fclose(f);
	assert_string_equal(text,
		"{\n"
		"  \"name\": \"a\\\"b\\\\c\\nd\\te\\u0001\\u007f\xc3\xa9\",\n"
		"  \"max\": 18446744073709551615,\n"
		"  \"nan\": null,\n"
		"  \"inf\": null,\n"
		"  \"x\": 0.500,\n"
		"  \"none\": null,\n"
		"  \"flat\": {\"t\": true, \"inner\": [1, 2]},\n"
		"  \"list\": [\n"
		"    {\"v\": null}\n"
		"  ],\n"
		"  \"empty\": []\n"
		"}\n");
	free(text);
}

static void test_errors(void **state)
{
	FILE *f = fopen("/dev/full", "w");
	struct json j;

	(void)state;
	if (f == NULL)
		skip();
	json_begin(&j, f);
	json_open(&j, NULL, '[', 0);
	for (int i = 0; i < 10000; i++) /* more than the stream's buffer */
		json_u64(&j, NULL, (uint64_t)i);
	json_close(&j);
	assert_int_equal(json_end(&j), -1);
	assert_int_equal(errno, ENOSPC);
	fclose(f);

	/* unbalanced: an error, not a silently truncated document */
	f = fopen("/dev/null", "w");
	assert_non_null(f);
	json_begin(&j, f);
	json_open(&j, NULL, '{', 0);
	assert_int_equal(json_end(&j), -1);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
