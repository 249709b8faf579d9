/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay's sinks (replay_io.h): the frames a run keeps (--pcap-out) or drops as copies
 * (--dup-out), written in one of the formats of replay_out_formats.h (pcap:
 * replay_out_pcap.c; pcapng: replay_out_pcapng.c), picked by --out-format or the input's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The stream's writes: every byte, or the first failure, after which nothing more is
 * written (done: the bytes before it). A short count tells stdio of the failure. A pipe
 * whose reader has stopped reading blocks the write; a stop signal breaks it (EINTR, or
 * a short count), which fails the write rather than waiting on: Ctrl-C stops the run. */
static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct rio_sink *s = cookie;
	size_t put = 0;

	while (!s->bad && put < n) {
		const ssize_t k = write(s->fd, buf + put, n - put);

		if (k > 0) {
			put += (size_t)k;
			s->done += (uint64_t)k;
			if (put < n && s->start < 0 && pd_force_quit) {
				s->bad = 1;
				s->err = EINTR;
			}
		} else if (k < 0 && errno == EINTR && !pd_force_quit) {
			continue;
		} else {
			s->bad = 1;
			s->err = k < 0 ? errno : EIO;
		}
	}
	return (ssize_t)put;
}

/* Closing a file can report a failed write (NFS, quotas): kept as any other. */
static int sink_close(void *cookie)
{
	struct rio_sink *s = cookie;

	if (close(s->fd) != 0 && !s->bad) {
		s->bad = 1;
		s->err = errno;
	}
	return s->bad ? -1 : 0;
}

/*
 * A regular file is locked (flock) before it is emptied: a second run writing the same
 * output would truncate the first's file under it and interleave with it, and the
 * first's counts would no longer describe its file; the second is refused instead.
 * 0, or -1 (said; errno 0).
 */
static int sink_claim(const struct rio_sink *s, int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return 0; /* a FIFO, a device: nothing to empty */
	/* a file system without locks (ENOLCK) is written as before, unlocked */
	if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
		PD_LOG(ERR, "%s %s: in use by another run (it holds a lock on the file): the"
		       " file is left to it\n", s->opt, s->path);
		errno = 0;
		return -1;
	}
	if (ftruncate(fd, 0) != 0) {
		PD_LOG(ERR, "%s %s: %s\n", s->opt, s->path, strerror(errno));
		errno = 0;
		return -1;
	}
	return 0;
}

/* The file; a FIFO with no reader is waited for, which is said (pd_open_waiting), and a
 * stop signal ends the wait. Not O_TRUNC: emptied once locked (sink_claim). */
static int sink_open(const struct rio_sink *s)
{
	const int fd = pd_open_waiting(s->opt, s->path, O_WRONLY | O_CREAT | O_CLOEXEC);

	if (fd < 0 && errno == EINTR && pd_force_quit) {
		PD_LOG(ERR, "%s %s: interrupted by %s while waiting for a reader\n", s->opt,
		       s->path, strsignal(pd_force_quit));
		errno = 0;
	}
	return fd;
}

/* The file ("-": a copy of standard output) and the counting stream on it. */
static int sink_stream(struct rio_sink *s)
{
	struct stat st;

	s->fd = strcmp(s->path, "-") == 0 ? fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3) :
		sink_open(s);
	if (s->fd >= 0 && strcmp(s->path, "-") != 0 && sink_claim(s, s->fd) != 0) {
		close(s->fd);
		s->fd = -1;
	}
	if (s->fd < 0) {
		if (errno != 0) /* else said */
			PD_LOG(ERR, "%s %s: %s\n", s->opt, s->path, strerror(errno));
		return -1;
	}
	s->start = -1;
	if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode))
		s->start = (int64_t)lseek(s->fd, 0, SEEK_CUR);
	s->f = fopencookie(s, "w", (cookie_io_functions_t){.write = sink_write,
							  .close = sink_close});
	if (s->f == NULL) {
		PD_LOG(ERR, "%s: out of memory\n", s->opt);
		close(s->fd);
		return -1;
	}
	(void)setvbuf(s->f, NULL, _IOFBF, 1u << 20); /* fewer write calls; advice only */
	return 0;
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
	if (sink_stream(s) != 0) {
		free(s);
		return NULL;
	}
	if (s->ops->open(s, in) != 0) {
		fclose(s->f);
		free(s);
		return NULL;
	}
	return s;
}

int rio_sink_error(const struct rio_sink *s)
{
	return s != NULL && s->bad ? (s->err != 0 ? s->err : EIO) : 0;
}

const char *rio_sink_why(const struct rio_sink *s)
{
	return s->why[0] != '\0' ? s->why : strerror(rio_sink_error(s));
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
	if (s != NULL && !s->bad)
		(void)fflush(s->f); /* a failure: s->bad, from sink_write */
}

uint64_t rio_sink_pos(const struct rio_sink *s)
{
	return s != NULL ? s->done + __fpending(s->f) : 0;
}

uint64_t rio_sink_done(const struct rio_sink *s)
{
	return s->done;
}

int rio_sink_cut(struct rio_sink *s, uint64_t pos)
{
	if (s->start < 0)
		return 1;
	return ftruncate(s->fd, (off_t)((uint64_t)s->start + pos));
}

int rio_sink_close(struct rio_sink *s)
{
	int rc, told;

	if (s == NULL)
		return 0;
	told = s->bad; /* a failure before: the caller saw it (rio_sink_error) and says it */
	rc = s->ops->close(s);
	if (rc != 0 && !told)
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
