/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay's source: a capture (pcap or pcapng; a file, a FIFO or standard input) read once
 * with libpcap through a stream that also lets us see its bytes (replay_io.h).
 *
 * The first 4 bytes (the magic) are read here to pick the format (replay_in_formats.h:
 * pcapng, else pcap), then given back to libpcap. The format sees the same bytes as
 * libpcap (pcapng's block follower) and adds its part to each record libpcap returns.
 * A gzip'd capture (magic 1f 8b) is inflated on the way (replay_in_gzip.c): the magic is
 * then the inflated stream's, and the offset and size are the file's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/link.h"
#include "replay_in_formats.h"
#include "replay_in_gzip.h"
#include "replay_io.h"

/* The formats, the first whose magic matches taken (pcap takes any other). */
static const struct rio_in_format *const formats[] = {&rio_in_pcapng, &rio_in_pcap};

static struct {
	int fd;
	pcap_t *in;
	uint64_t offset, size;
	unsigned char magic[4];
	unsigned magic_left;
	const char *bpf_expr; /* --bpf, compiled for each link type met (pcapng: several) */
	struct {
		int dlt;
		int ok;       /* compiled; else its frames match nothing (said once) */
		struct bpf_program prog;
	} bpf[8];
	unsigned nbpf;
	char bpf_note[PCAP_ERRBUF_SIZE + 192]; /* the first link type it did not compile for */
	char why[PCAP_ERRBUF_SIZE + 96];
	const struct rio_in_format *fmt;
	int dlt;             /* the frames' link type, unless the format says (pcapng) */
	int gz;              /* gzip'd: the raw bytes go through zlib */
	int gz_failed;       /* the inflating failed: why in rio_gz_error() */
	int raw_end;         /* gzip'd: the raw input has ended */
	uint8_t raw[1u << 16]; /* gzip'd: raw bytes read, inflated from here */
} I = {.fd = -1};

/* ---- the stream libpcap reads: the magic given back, then the input ---- */

/* Raw bytes of the input: what is there, not a full buffer (a pipe's frames reach
 * libpcap as they come, so a signal while waiting for more finds every frame written
 * before it read). */
static ssize_t raw_read(void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(I.fd, buf, len);
	while (n < 0 && errno == EINTR && !pd_force_quit);
	if (n > 0)
		I.offset += (uint64_t)n;
	return n;
}

/* Inflated bytes of a gzip'd input: how many, 0 at its end, -1 damaged (errno EIO). */
static ssize_t gz_read(void *buf, size_t len)
{
	for (;;) {
		ssize_t n = rio_gz_inflate(buf, len);

		if (n > 0)
			return n;
		if (n < 0)
			break;
		if (!rio_gz_wants_input())
			continue; /* input taken (a header), nothing out yet */
		if (I.raw_end)
			return 0;
		n = raw_read(I.raw, sizeof(I.raw));
		if (n < 0)
			return -1;
		if (n == 0) {
			I.raw_end = 1;
			if (rio_gz_finish() != 0)
				break;
			return 0;
		}
		rio_gz_input(I.raw, (size_t)n);
	}
	I.gz_failed = 1;
	errno = EIO;
	return -1;
}

static ssize_t in_read(void *cookie, char *buf, size_t len)
{
	ssize_t n = 0;

	(void)cookie;
	if (I.magic_left > 0) {
		while (I.magic_left > 0 && (size_t)n < len) {
			buf[n++] = (char)I.magic[4 - I.magic_left];
			I.magic_left--;
		}
	} else {
		n = I.gz ? gz_read(buf, len) : raw_read(buf, len);
	}
	if (n > 0 && I.fmt->feed != NULL)
		I.fmt->feed((uint8_t *)buf, (size_t)n, I.offset);
	return n;
}

static int in_close(void *cookie)
{
	const int fd = I.fd;

	(void)cookie;
	I.fd = -1;
	return fd == STDIN_FILENO ? 0 : close(fd);
}

/* n bytes, waiting for them: 0, or -1 (errno; 0 for an early end). */
static int read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r == 0) {
			errno = 0;
			return -1;
		}
		if (r < 0 && errno != EINTR)
			return -1;
		if (r > 0)
			got += (size_t)r;
	}
	return 0;
}

/* The reason of a failure, for rio_in_error(): -1. */
__attribute__((format(printf, 1, 2))) static int failed(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(I.why, sizeof(I.why), fmt, ap);
	va_end(ap);
	return -1;
}

int rio_in_open(const char *path, struct rio_in_info *info)
{
	static const cookie_io_functions_t io = {.read = in_read, .close = in_close};
	char errbuf[PCAP_ERRBUF_SIZE];
	struct stat st;
	FILE *s;
	uint32_t magic;

	memset(&I, 0, sizeof(I)); /* a reader anew (rio_in_close freed what it held) */
	I.fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (I.fd < 0)
		return failed("%s", strerror(errno));
	if (fstat(I.fd, &st) == 0 && S_ISREG(st.st_mode))
		I.size = (uint64_t)st.st_size;
	if (read_full(I.fd, I.magic, 4) != 0)
		return failed("%s", errno ? strerror(errno) : "shorter than a pcap file header");
	I.offset = 4;
	if (rio_gz_is(I.magic, 4)) { /* inflated on the way: the capture's magic is inside */
		ssize_t got = 0, n = 0;

		memcpy(I.raw, I.magic, 4);
		if (rio_gz_start() != 0)
			return failed("%s", rio_gz_error());
		rio_gz_input(I.raw, 4);
		I.gz = 1;
		while (got < 4 && (n = gz_read(I.magic + got, (size_t)(4 - got))) > 0)
			got += n;
		if (got < 4)
			return failed("%s", n < 0 && I.gz_failed ? rio_gz_error() :
				      n < 0 ? strerror(errno) :
				      "gzip'd, and shorter than a pcap file header inside");
	}
	I.magic_left = 4;
	memcpy(&magic, I.magic, 4);
	for (unsigned i = 0; I.fmt == NULL; i++)
		if (formats[i]->is(magic))
			I.fmt = formats[i];
	I.fmt->start(magic, info);
	s = fopencookie(NULL, "rb", io);
	if (s == NULL)
		return failed("%s", strerror(errno));
	I.in = pcap_fopen_offline_with_tstamp_precision(s, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (I.in == NULL) {
		failed("%s", I.gz_failed ? rio_gz_error() : errbuf);
		fclose(s);
		return -1;
	}
	info->linktype = pcap_datalink(I.in);
	info->snaplen = (unsigned)pcap_snapshot(I.in);
	if (I.fmt->opened != NULL)
		I.fmt->opened(info);
	I.dlt = info->linktype;
	return 0;
}

/* Bytes read from the input but not yet taken from the stream libpcap reads (glibc's
 * FILE; elsewhere unknown, taken as some, so a batch never ends early). */
static size_t stream_buffered(FILE *f)
{
#ifdef __GLIBC__
	return (size_t)(f->_IO_read_end - f->_IO_read_ptr);
#else
	(void)f;
	return 1;
#endif
}

int rio_in_would_wait(void)
{
	struct pollfd p = {.fd = I.fd, .events = POLLIN};

	if (I.size != 0 || I.in == NULL || I.magic_left > 0 || stream_buffered(pcap_file(I.in)) > 0 ||
	    (I.gz && !rio_gz_wants_input()))
		return 0;
	return poll(&p, 1, 0) == 0; /* nothing to read now (POLLHUP: an end, not a wait) */
}

/* Seconds of a record: the pcap format's are unsigned 32-bit (libpcap gives them back
 * signed), so a time after 2038 stays after 2038. */
static uint64_t record_ns(const struct pcap_pkthdr *h)
{
	int64_t s = (int64_t)h->ts.tv_sec;
	uint64_t sec = s < 0 ? (uint64_t)(uint32_t)s : (uint64_t)s;

	return sec * 1000000000ULL + (uint64_t)h->ts.tv_usec; /* opened in ns precision */
}

/*
 * A pcap file header read as a record: `cat a.pcap b.pcap` gives one, whose first 16
 * bytes make a record of no bytes stamped with the magic as its seconds (thiszone and
 * sigfigs, 0, as its lengths). libpcap then reads the header's other 8 bytes and b's
 * frames out of step as records, until one claims more than the snap length: 177
 * frames of garbage from two copies of pcap/dups.pcap, written before that stop. Checked
 * only on an empty record, which real traffic does not have.
 */
static int joined_header(const struct pcap_pkthdr *h)
{
	const uint32_t s = (uint32_t)h->ts.tv_sec;

	return h->len == 0 && (s == 0xa1b2c3d4u || s == 0xd4c3b2a1u || s == 0xa1b23c4du ||
			       s == 0x4d3cb2a1u);
}

int rio_in_next(struct rio_frame *f, const uint8_t **pre, size_t *npre)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int rc = pcap_next_ex(I.in, &h, &d);

	*pre = NULL;
	*npre = 0;
	if (rc == 1 && h->caplen == 0 && I.fmt == &rio_in_pcap && joined_header(h)) {
		snprintf(I.why, sizeof(I.why), "a second pcap file header where a record should"
			 " be (captures joined with cat? mergecap -w all.pcap A B joins them)");
		return -1;
	}
	if (rc == 1) {
		f->data = d;
		f->caplen = h->caplen;
		f->len = h->len;
		f->ts_ns = record_ns(h);
		f->opts = NULL;
		f->opts_len = 0;
		f->iface = f->ts_hi = f->ts_lo = 0;
		f->spb = f->swap = 0;
		f->dlt = I.dlt;
		if (I.fmt->take(f, pre, npre) != 1) {
			snprintf(I.why, sizeof(I.why), "%s", I.fmt->error());
			return -1;
		}
		return 1;
	}
	if (rc == PCAP_ERROR_BREAK) {
		if (I.fmt->end(pre, npre) != 0) {
			snprintf(I.why, sizeof(I.why), "%s", I.fmt->error());
			return -1;
		}
		return 0;
	}
	if (pd_force_quit)
		return 0; /* a signal broke a read that was waiting */
	snprintf(I.why, sizeof(I.why), "%s", I.gz_failed ? rio_gz_error() : pcap_geterr(I.in));
	return -1;
}

const char *rio_in_error(void)
{
	return I.why;
}

const char *rio_in_bpf_note(void)
{
	return I.bpf_note;
}

uint64_t rio_in_left_out(uint64_t *bytes)
{
	if (I.fmt == NULL) {
		*bytes = 0;
		return 0;
	}
	return I.fmt->left_out(bytes);
}

uint64_t rio_in_offset(void)
{
	return I.offset;
}

uint64_t rio_in_size(void)
{
	return I.size;
}

/* --bpf compiled for link type @p dlt into *prog: 0, or -1 with libpcap's reason in
 * why. */
static int bpf_compile(int dlt, struct bpf_program *prog, char *why, size_t len)
{
	pcap_t *dead = pcap_open_dead(dlt, 262144);
	int rc;

	if (dead == NULL) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	rc = pcap_compile(dead, prog, I.bpf_expr, 1, PCAP_NETMASK_UNKNOWN);
	if (rc != 0)
		snprintf(why, len, "%s", pcap_geterr(dead));
	pcap_close(dead);
	return rc == 0 ? 0 : -1;
}

int rio_in_bpf(const char *expr)
{
	I.bpf_expr = expr;
	if (bpf_compile(I.dlt, &I.bpf[0].prog, I.why, sizeof(I.why)) != 0) {
		I.bpf_expr = NULL;
		return -1;
	}
	I.bpf[0].dlt = I.dlt;
	I.bpf[0].ok = 1;
	I.nbpf = 1;
	return 0;
}

/* The program for a pcapng interface of another link type than the first's, compiled
 * when its first frame comes; one that does not compile (`ether host` on raw IP) matches
 * nothing: those frames pass unchecked, as any outside the filter. More link types than
 * the table holds (eight) are compiled for each frame. */
static int bpf_match_other(const struct rio_frame *f, const struct pcap_pkthdr *h)
{
	char why[PCAP_ERRBUF_SIZE + 64];
	struct bpf_program prog;
	int m;

	for (unsigned i = 1; i < I.nbpf; i++)
		if (I.bpf[i].dlt == f->dlt)
			return I.bpf[i].ok && pcap_offline_filter(&I.bpf[i].prog, h, f->data) != 0;
	if (I.nbpf < sizeof(I.bpf) / sizeof(I.bpf[0])) {
		const unsigned i = I.nbpf++;

		I.bpf[i].dlt = f->dlt;
		I.bpf[i].ok = bpf_compile(f->dlt, &I.bpf[i].prog, why, sizeof(why)) == 0;
		if (!I.bpf[i].ok && I.bpf_note[0] == '\0') /* said in the summary */
			snprintf(I.bpf_note, sizeof(I.bpf_note), "does not compile for link type"
				 " %s (%s)", cli_dlt_name(f->dlt), why);
		return I.bpf[i].ok && pcap_offline_filter(&I.bpf[i].prog, h, f->data) != 0;
	}
	if (bpf_compile(f->dlt, &prog, why, sizeof(why)) != 0)
		return 0;
	m = pcap_offline_filter(&prog, h, f->data) != 0;
	pcap_freecode(&prog);
	return m;
}

int rio_in_bpf_match(const struct rio_frame *f)
{
	struct pcap_pkthdr h = {.caplen = f->caplen, .len = f->len};

	if (I.nbpf == 0)
		return 1;
	if (f->dlt == I.bpf[0].dlt)
		return pcap_offline_filter(&I.bpf[0].prog, &h, f->data) != 0;
	return bpf_match_other(f, &h);
}

void rio_in_close(void)
{
	for (unsigned i = 0; i < I.nbpf; i++)
		if (I.bpf[i].ok)
			pcap_freecode(&I.bpf[i].prog);
	I.nbpf = 0;
	if (I.in != NULL)
		pcap_close(I.in); /* closes the stream, and so the input (in_close) */
	else if (I.fd >= 0 && I.fd != STDIN_FILENO)
		close(I.fd); /* opened, but refused before libpcap took it */
	I.in = NULL;
	I.fd = -1;
	if (I.fmt != NULL)
		I.fmt->close();
	rio_gz_end();
	/* the counters (offset, size, blocks left out) stay for the summary */
}
