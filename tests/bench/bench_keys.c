/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Key-extraction benchmark (not a test): ns/packet to extract a `flow` or a `packet` key
 * from 64-byte UDP/IPv4 frames (also through the general parse alone, without the fast
 * paths for common frames) and a `packet` key from 512-byte TCP/IPv4 frames, alone and
 * followed by the library's keyed XXH3 hash (pd_filter_hash, what the filters take):
 * right after the key is written, or as the worker does (app/pktdedup/worker.c,
 * keys_burst), after the next packet's key, into the other of two buffers. 4096
 * different frames (addresses and ports vary, as on a link) are cycled so that the
 * branch predictor cannot learn one frame.
 *
 *   bench_keys [PACKETS] [REPS] [DECAP]   (scripts/bench_keys.sh pins it to one core)
 *
 * DECAP "auto": every tunnel opened (--decap auto), so the plain frames pay the fast
 * paths' check that they carry none.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pktdedup/pd_filter.h>
#include <pktdedup/pd_key.h>

#include "key_private.h"

#define NFRAMES 4096

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ethernet + IPv4 + UDP or TCP, frame_len bytes in all (FCS not included). */
static void make_frame(uint8_t *f, size_t frame_len, int tcp, uint32_t i)
{
	size_t l4 = 14 + 20, ip_len = frame_len - 14;

	memset(f, 0, frame_len);
	memcpy(f, "\x02\x00\x00\x00\x00\x0b\x02\x00\x00\x00\x00\x0a", 12);
	put16(f + 12, 0x0800);
	f[14] = 0x45;
	put16(f + 16, (unsigned)ip_len);
	put16(f + 18, i & 0xffff);
	f[22] = 64;
	f[23] = tcp ? 6 : 17;
	memcpy(f + 26, "\xc0\x00\x02", 3);
	f[29] = (uint8_t)i;
	memcpy(f + 30, "\xc6\x33\x64", 3);
	f[33] = (uint8_t)(i >> 8);
	put16(f + l4, 1024 + (i % 50000));
	put16(f + l4 + 2, tcp ? 443 : 53);
	if (tcp)
		f[l4 + 12] = 5 << 4;
	else
		put16(f + l4 + 4, (unsigned)(ip_len - 20));
	for (size_t b = l4 + (tcp ? 20 : 8); b < frame_len; b++)
		f[b] = (uint8_t)(b * 31 + i);
}

static struct pd_filter *hasher;

typedef enum pd_key_reason (*extract_fn)(const struct pd_key_config *, const uint8_t *, size_t,
					  uint8_t *, size_t, size_t *);

static double run(const struct pd_key_config *c, uint8_t *frames, size_t flen, long n,
		  int hash, extract_fn extract, uint64_t *sink)
{
	uint8_t key[2][PD_KEY_BUF_LEN(512)];
	size_t klen[2] = {0, 0};
	uint64_t acc = 0;
	double t0 = now_s();

	for (long i = 0; i < n; i++) {
		const unsigned b = (unsigned)i & 1;
		const uint8_t *f = frames + (size_t)(i & (NFRAMES - 1)) * flen;

		if (extract(c, f, flen, key[b], sizeof(key[b]), &klen[b]) != PD_KEY_OK)
			abort();
		if (hash == 1)
			acc += pd_filter_hash(hasher, key[b], klen[b]);
		else if (hash == 2 && i > 0) /* the previous packet's key */
			acc += pd_filter_hash(hasher, key[b ^ 1], klen[b ^ 1]);
		else
			acc += key[b][klen[b] - 1];
	}
	*sink += acc;
	return (now_s() - t0) / (double)n * 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	static uint8_t udp64[NFRAMES * 64], tcp512[NFRAMES * 512];
	/* hash: 0 none, 1 right after the key, 2 one packet later (as the worker) */
	struct pd_key_config flow, packet;
	uint64_t sink = 0;
	struct {
		const char *name;
		const struct pd_key_config *c;
		uint8_t *frames;
		size_t flen;
		int hash;
		extract_fn extract;
	} cases[] = {
		{"flow   key, 64-byte UDP/IPv4 ", &flow, udp64, 64, 0, pd_key_extract},
		{"flow   key + XXH3            ", &flow, udp64, 64, 1, pd_key_extract},
		{"flow   key + XXH3, pipelined ", &flow, udp64, 64, 2, pd_key_extract},
		{"flow   key, general parse    ", &flow, udp64, 64, 0, pd_key_extract_general},
		{"packet key, 64-byte UDP/IPv4 ", &packet, udp64, 64, 0, pd_key_extract},
		{"packet key + XXH3            ", &packet, udp64, 64, 1, pd_key_extract},
		{"packet key + XXH3, pipelined ", &packet, udp64, 64, 2, pd_key_extract},
		{"packet key, general parse    ", &packet, udp64, 64, 0, pd_key_extract_general},
		{"packet key, 512-byte TCP/IPv4", &packet, tcp512, 512, 0, pd_key_extract},
		{"packet key + XXH3            ", &packet, tcp512, 512, 1, pd_key_extract},
		{"packet key + XXH3, pipelined ", &packet, tcp512, 512, 2, pd_key_extract},
	};

	if (n <= 0 || reps <= 0 || reps > 99) {
		fprintf(stderr, "usage: bench_keys [PACKETS] [REPS 1..99]\n");
		return 2;
	}
	for (uint32_t i = 0; i < NFRAMES; i++) {
		make_frame(udp64 + i * 64, 64, 0, i);
		make_frame(tcp512 + i * 512, 512, 1, i);
	}
	struct pd_filter_params hp = {.type = PD_FILTER_EXACT, .seed = 42};
	struct pd_error err;

	hasher = pd_filter_create(&hp, &err);
	if (hasher == NULL) {
		fprintf(stderr, "bench_keys: %s\n", err.msg);
		return 1;
	}
	pd_key_config_init(&flow, PD_KEY_FLOW);
	pd_key_config_init(&packet, PD_KEY_PACKET);
	if (argc > 3 && strcmp(argv[3], "auto") == 0)
		flow.decap = packet.decap = PD_DECAP_ALL;
	printf("%ld packets per run, median of %d runs%s\n", n, reps,
	       flow.decap != 0 ? ", --decap auto" : "");
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		double t[99];

		for (int r = 0; r < reps; r++)
			t[r] = run(cases[k].c, cases[k].frames, cases[k].flen, n, cases[k].hash,
				   cases[k].extract, &sink);
		qsort(t, (size_t)reps, sizeof(t[0]), cmp_double);
		printf("%s  %6.2f ns/packet\n", cases[k].name, t[reps / 2]);
	}
	pd_filter_destroy(hasher);
	return sink == 42; /* keeps the work observable */
}
