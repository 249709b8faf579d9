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

/*
 * The length of the well-formed UTF-8 sequence at @p p (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when the byte at p does not start one.
 */
static unsigned utf8_len(const unsigned char *p)
{
	unsigned n, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) { /* a NUL ends the string here: not a continuation */
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* A JSON string: always valid UTF-8, each byte that is not part of a well-formed
 * sequence (a file name in another encoding) written as U+FFFD. */
static void string(struct json *j, const char *s)
{
	out(j, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		const unsigned n = utf8_len(p);

		if (*p == '"' || *p == '\\') {
			out(j, "\\%c", *p);
		} else if (*p == '\n') {
			out(j, "\\n");
		} else if (*p == '\t') {
			out(j, "\\t");
		} else if (*p < 0x20 || *p == 0x7f) {
			out(j, "\\u%04x", *p);
		} else if (n == 0) {
			out(j, "\\ufffd");
		} else {
			out(j, "%.*s", (int)n, (const char *)p);
			p += n - 1;
		}
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
