/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap input (replay_in_formats.h): libpcap's records are the whole of it. Any magic
 * that is not pcapng's is given to libpcap as pcap (it knows the variants, and refuses
 * what it does not); the classic magic, in either byte order, holds microseconds, the
 * others nanoseconds.
 */
#include "replay_in_formats.h"

static int is(uint32_t magic)
{
	(void)magic;
	return 1;
}

static void start(uint32_t magic, struct rio_in_info *info)
{
	info->pcapng = 0;
	info->nano = magic != 0xa1b2c3d4u && magic != 0xd4c3b2a1u;
}

static int take(struct rio_frame *f, const uint8_t **pre, size_t *npre)
{
	(void)f;
	*pre = NULL;
	*npre = 0;
	return 1;
}

static int end(const uint8_t **pre, size_t *npre)
{
	*pre = NULL;
	*npre = 0;
	return 0;
}

static const char *error(void)
{
	return "";
}

static uint64_t left_out(uint64_t *bytes)
{
	*bytes = 0;
	return 0;
}

static void close_(void)
{
}

const struct rio_in_format rio_in_pcap = {
	.name = "pcap", .is = is, .start = start, .feed = NULL, .take = take, .end = end,
	.error = error, .left_out = left_out, .close = close_,
};
