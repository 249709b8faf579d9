/* SPDX-License-Identifier: BSD-3-Clause */
/* A small JSON writer (json.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>

#include "json.h"

void json_begin(struct json *j, FILE *f)
{
	*j = (struct json){.f = f};
}

static void out(struct json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out(struct json *j, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(j->f, fmt, ap) < 0 && j->err == 0)
		j->err = errno ? errno : EIO;
	va_end(ap);
}

static void string(struct json *j, const char *s)
{
	out(j, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			out(j, "\\%c", *p);
		else if (*p == '\n')
			out(j, "\\n");
		else if (*p == '\t')
			out(j, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			out(j, "\\u%04x", *p);
		else
			out(j, "%c", *p); /* UTF-8 passes as it is */
	}
	out(j, "\"");
}

/* The separator and the key of the next member. */
static void member(struct json *j, const char *key)
{
	const unsigned d = j->depth;

	if (d > 0) {
		const int in_line = j->inline_[d - 1];

		if (j->count[d - 1]++ > 0)
			out(j, ",");
		if (in_line)
			out(j, j->count[d - 1] > 1 ? " " : "");
		else
			out(j, "\n%*s", 2 * (int)d, "");
	}
	if (key != NULL) {
		string(j, key);
		out(j, ": ");
	}
}

void json_open(struct json *j, const char *key, char kind, int inline_)
{
	member(j, key);
	out(j, "%c", kind);
	if (j->depth == JSON_DEPTH) {
		j->err = j->err ? j->err : EOVERFLOW;
		return;
	}
	j->close[j->depth] = kind == '{' ? '}' : ']';
	j->inline_[j->depth] = inline_ || (j->depth > 0 && j->inline_[j->depth - 1]);
	j->count[j->depth] = 0;
	j->depth++;
}

void json_close(struct json *j)
{
	unsigned d;

	if (j->depth == 0) {
		j->err = j->err ? j->err : EINVAL;
		return;
	}
	d = --j->depth;
	if (!j->inline_[d] && j->count[d] > 0)
		out(j, "\n%*s", 2 * (int)d, "");
	out(j, "%c", j->close[d]);
	if (d == 0)
		out(j, "\n");
}

void json_str(struct json *j, const char *key, const char *s)
{
	member(j, key);
	if (s == NULL)
		out(j, "null");
	else
		string(j, s);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	member(j, key);
	out(j, "%" PRIu64, v);
}

void json_f64(struct json *j, const char *key, const char *fmt, double v)
{
	member(j, key);
	if (isfinite(v))
		out(j, fmt, v);
	else
		out(j, "null"); /* JSON has no NaN or infinity */
}

void json_bool(struct json *j, const char *key, int v)
{
	member(j, key);
	out(j, v ? "true" : "false");
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	out(j, "null");
}

int json_end(struct json *j)
{
	if (fflush(j->f) != 0 && j->err == 0)
		j->err = errno ? errno : EIO;
	if (ferror(j->f) && j->err == 0)
		j->err = EIO;
	if (j->depth != 0 && j->err == 0)
		j->err = EINVAL;
	errno = j->err;
	return j->err ? -1 : 0;
}
