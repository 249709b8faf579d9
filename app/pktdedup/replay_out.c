/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay's sinks (replay_io.h): the frames a run keeps (--pcap-out) or drops as copies
 * (--dup-out), written in one of the formats of replay_out_formats.h (pcap:
 * replay_out_pcap.c; pcapng: replay_out_pcapng.c), picked by --out-format or the input's.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pktdedup.h"
#include "replay_out_formats.h"

/* The formats by enum rio_format (RIO_SAME: the input's). */
static const struct rio_out_format *const formats[] = {
	[RIO_PCAP] = &rio_out_pcap,
	[RIO_PCAPNG] = &rio_out_pcapng,
};

/* The format a file's name asks for (any case), else RIO_SAME. */
static enum rio_format format_of_name(const char *path)
{
	static const struct {
		const char *ext;
		enum rio_format fmt;
	} ext[] = {{".pcapng", RIO_PCAPNG}, {".ntar", RIO_PCAPNG}, {".pcap", RIO_PCAP},
		   {".cap", RIO_PCAP}};
	const size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		const size_t e = strlen(ext[i].ext);

		if (n > e && strcasecmp(path + n - e, ext[i].ext) == 0)
			return ext[i].fmt;
	}
	return RIO_SAME;
}

struct rio_sink *rio_sink_open(const char *opt, const char *path, enum rio_format fmt,
			       const struct rio_in_info *in)
{
	struct rio_sink *s = calloc(1, sizeof(*s));

	if (s == NULL) {
		PD_LOG(ERR, "%s: out of memory\n", opt);
		return NULL;
	}
	if (fmt == RIO_AUTO) {
		fmt = format_of_name(path);
		if (fmt == RIO_PCAP && in->pcapng) /* what the name drops: said, not silent */
			PD_LOG(WARNING, "%s %s: written as pcap, from its name: the input's pcapng"
				" interfaces, comments and other blocks are not kept (--out-format"
				" pcapng keeps them)\n", opt, path);
	}
	if (fmt == RIO_SAME)
		fmt = in->pcapng ? RIO_PCAPNG : RIO_PCAP;
	s->ops = formats[fmt];
	s->opt = opt;
	s->path = path;
	s->nano = in->nano;
	s->from_pcapng = in->pcapng;
	if (s->ops->open(s, in) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

int rio_sink_error(const struct rio_sink *s)
{
	return s != NULL && s->bad ? (s->err != 0 ? s->err : EIO) : 0;
}

void rio_sink_blocks(struct rio_sink *s, const uint8_t *b, size_t len)
{
	if (s != NULL && len != 0)
		s->ops->blocks(s, b, len);
}

int rio_sink_frame(struct rio_sink *s, const struct rio_frame *f)
{
	if (s == NULL)
		return 0;
	s->ops->frame(s, f);
	return unlikely(s->bad) ? rio_sink_error(s) : 0;
}

void rio_sink_flush(struct rio_sink *s)
{
	FILE *f;

	if (s == NULL || s->bad)
		return;
	f = s->ops->file(s);
	if (fflush(f) != 0) {
		s->bad = 1;
		s->err = errno;
	}
}

int rio_sink_close(struct rio_sink *s)
{
	int rc;

	if (s == NULL)
		return 0;
	rc = s->ops->close(s);
	if (rc != 0 && errno != EPIPE) /* a pipe's reader gone: replay's summary says so */
		PD_LOG(ERR, "error: %s %s: writing failed: %s\n", s->opt, s->path,
			strerror(errno));
	free(s);
	return rc;
}

const char *rio_sink_format(const struct rio_sink *s)
{
	if (s->ops == &rio_out_pcap && s->nano)
		return "nanosecond pcap";
	return s->ops->name;
}
