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

/* Bytes that are not well-formed UTF-8 (RFC 3629 section 4's table) become U+FFFD, one
 * per byte; well-formed sequences of every length pass as they are. */
static void test_utf8(void **state)
{
	static const struct {
		const char *in, *want;
	} c[] = {
		{"x\xff.pcap", "x\\ufffd.pcap"},                     /* never in UTF-8 */
		{"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"},
		{"\xc0\xaf", "\\ufffd\\ufffd"},                       /* overlong '/' */
		{"\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd"},            /* overlong, 3 bytes */
		{"\xf0\x80\x80\xaf", "\\ufffd\\ufffd\\ufffd\\ufffd"},   /* overlong, 4 bytes */
		{"\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd"},            /* a surrogate */
		{"\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd"},   /* above U+10FFFF */
		{"\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"},                /* U+10FFFF */
		{"a\xe2\x82", "a\\ufffd\\ufffd"},                      /* cut short at the end */
		{"\xe2\x82z", "\\ufffd\\ufffdz"},                      /* cut short by a letter */
		{"\x80\xbf", "\\ufffd\\ufffd"},                       /* lone continuations */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *text = NULL, want[128];
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		struct json j;

		assert_non_null(f);
		json_begin(&j, f);
		json_open(&j, NULL, '{', 1);
		json_str(&j, "s", c[i].in);
		json_close(&j);
		assert_int_equal(json_end(&j), 0);
		fclose(f);
		snprintf(want, sizeof(want), "{\"s\": \"%s\"}\n", c[i].want);
		if (strcmp(text, want) != 0)
			fail_msg("case %zu: got %s, want %s", i, text, want);
		free(text);
	}
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
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
