/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small JSON writer for the tools' summaries (pktdedup --stats-json, pktdedup-eval
 * --json): strings escaped, numbers that are not finite written as null, commas and
 * indentation placed by the writer, and write errors reported once at the end.
 *
 *   struct json j;
 *   json_begin(&j, stdout);
 *   json_open(&j, NULL, '{', 0);        a top-level object, one member a line
 *   json_str(&j, "filter", "qhtlru");
 *   json_open(&j, "total", '{', 1);     a member object, all on one line
 *   json_u64(&j, "rx", 1200);
 *   json_close(&j);
 *   json_close(&j);
 *   if (json_end(&j) != 0) ...          a write failed (errno)
 *
 * Members of a container opened with inline = 1 (and of everything inside it) share
 * its line.
 */
#ifndef PKTDEDUP_CLI_JSON_H
#define PKTDEDUP_CLI_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH 8

struct json {
	FILE *f;
	unsigned depth;
	char close[JSON_DEPTH];  /* '}' or ']' */
	int inline_[JSON_DEPTH]; /* members on one line */
	int count[JSON_DEPTH];   /* members written so far */
	int err;                 /* a write failed (its errno) or the nesting overflowed */
};

void json_begin(struct json *j, FILE *f);
/* A member (key; NULL at the top or in an array) that is an object ('{') or an array
 * ('['). */
void json_open(struct json *j, const char *key, char kind, int inline_);
void json_close(struct json *j);
void json_str(struct json *j, const char *key, const char *s); /* NULL: null */
void json_u64(struct json *j, const char *key, uint64_t v);
void json_f64(struct json *j, const char *key, const char *fmt, double v); /* "%.6g" */
void json_bool(struct json *j, const char *key, int v);
void json_null(struct json *j, const char *key);
/* Flush: 0, or -1 with errno when any write failed. The stream stays open. */
int json_end(struct json *j);

#endif
