/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gzip'd captures (replay_in_gzip.h): what editcap and tshark read as .pcap.gz, inflated
 * with zlib as replay's source reads the file, so that libpcap and the pcapng follower
 * see the capture's own bytes. The raw bytes are handed in (rio_gz_input) by the source,
 * which reads the file, a FIFO or standard input as for any capture; concatenated
 * members (gzip a; gzip b; cat) are read one after the other, as gzip -d does.
 */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "replay_in_gzip.h"

static struct {
	z_stream zs;
	int on;       /* inflateInit2 made zs */
	int between;  /* a member ended: more input starts the next one */
	char why[128];
} G;

int rio_gz_is(const uint8_t *p, size_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

int rio_gz_start(void)
{
	rio_gz_end();
	memset(&G, 0, sizeof(G));
	if (inflateInit2(&G.zs, 16 + MAX_WBITS) != Z_OK) { /* gzip headers only */
		snprintf(G.why, sizeof(G.why), "gzip: %s", G.zs.msg ? G.zs.msg : "no memory");
		return -1;
	}
	G.on = 1;
	return 0;
}

int rio_gz_wants_input(void)
{
	return G.zs.avail_in == 0;
}

void rio_gz_input(const uint8_t *p, size_t n)
{
	G.zs.next_in = (Bytef *)(uintptr_t)p; /* zlib reads it only */
	G.zs.avail_in = (uInt)n;
}

ssize_t rio_gz_inflate(uint8_t *out, size_t len)
{
	int rc;

	if (G.zs.avail_in == 0 || len == 0)
		return 0;
	if (G.between) { /* the next member */
		if (inflateReset(&G.zs) != Z_OK) {
			snprintf(G.why, sizeof(G.why), "gzip: cannot start the next member");
			return -1;
		}
		G.between = 0;
	}
	G.zs.next_out = out;
	G.zs.avail_out = (uInt)(len > UINT32_MAX ? UINT32_MAX : len);
	rc = inflate(&G.zs, Z_NO_FLUSH);
	if (rc == Z_STREAM_END)
		G.between = 1;
	else if (rc != Z_OK && rc != Z_BUF_ERROR) {
		snprintf(G.why, sizeof(G.why), "gzip: %s", G.zs.msg != NULL ? G.zs.msg :
			 rc == Z_MEM_ERROR ? "out of memory" : "damaged data");
		return -1;
	}
	return (ssize_t)((size_t)(G.zs.next_out - out));
}

int rio_gz_finish(void)
{
	if (!G.between) {
		snprintf(G.why, sizeof(G.why), "gzip: the input ends inside a compressed member");
		return -1;
	}
	return 0;
}

const char *rio_gz_error(void)
{
	return G.why;
}

void rio_gz_end(void)
{
	if (G.on)
		inflateEnd(&G.zs);
	G.on = 0;
}
