/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktdedup-keys: print the dedup key that pktdedup extracts from every frame of a pcap,
 * or why there is none, and count them. The library's parser (pd_key.h) with libpcap
 * around it; no DPDK.
 *
 *   pktdedup-keys --key packet pcap/mirror.pcap
 *   pktdedup-keys --key click --click-param id --summary pcap/keys.pcap
 */
#include <errno.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pktdedup/pd_filter.h>
#include <pktdedup/pd_key.h>

#include "../common/cli.h"
#include "../common/link.h"
#include "../common/pcap_msg.h"

/* " via" and the tunnels opened, outermost first, then the line's end. */
static void print_walk(uint16_t walk)
{
	if (walk != 0)
		printf(" via");
	for (; walk != 0; walk >>= 4)
		printf(" %s", pd_key_decap_name((walk & 0xf) - 1u));
	printf("\n");
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: pktdedup-keys [options] FILE.pcap\n"
		"\n"
		"Print the key pktdedup extracts from each frame: one line per frame,\n"
		"  <index> ok <key as hex>     or     <index> <reason>\n"
		"and, with --decap, \" via\" and the tunnels opened, outermost first\n"
		"(\" via vxlan gre\"), on the lines of frames that had any\n"
		"\n");
	fputs(cli_key_help, out);
	fprintf(out,
		"  --summary            only the counts: frames, keys, distinct keys, and\n"
		"                       frames per reason\n"
		"  --help               this text\n"
		"  --version            the version\n"
		"\n"
		"Exit status: 0 done, 1 the pcap cannot be read, 2 bad options.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_KEY_LONGOPTS,
		{"summary", no_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct cli_key_given given = {{NULL}};
	struct pd_key_config cfg;
	int summary = 0, c;
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t count[PD_KEY_REASON_COUNT] = {0}, frames = 0, distinct = 0;
	struct pd_filter *exact;
	struct pd_filter_params fp = {.type = PD_FILTER_EXACT, .seed = 1};
	struct pd_error err;
	uint8_t *key = NULL;
	char *hex = NULL;
	size_t cap = 0;
	pcap_t *pc;
	int rc = 0;

	cli_prog = "pktdedup-keys";
	pd_key_config_init(&cfg, PD_KEY_PACKET);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 's': summary = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': cli_version(); return 0;
		default:
			if (c >= CLI_O_KEY && c < CLI_O_KEY_END) {
				if (cli_key_option(c, optarg, &cfg, &given) != 0)
					return 2;
				break;
			}
			if (c == ':')
				fprintf(stderr, "pktdedup-keys: option %s needs a value\n",
					argv[optind - 1]);
			else
				fprintf(stderr, "pktdedup-keys: unknown option %s\n", argv[optind - 1]);
			fprintf(stderr, "try: pktdedup-keys --help\n");
			return 2;
		}
	}
	if (cli_key_check(&cfg, &given) != 0)
		return 2;
	if (optind + 1 != argc) {
		fprintf(stderr, "pktdedup-keys: %s\ntry: pktdedup-keys --help\n",
			optind == argc ? "which pcap file?" : "one pcap file at a time");
		return 2;
	}

	pc = pcap_open_offline(argv[optind], errbuf);
	if (pc == NULL) {
		fprintf(stderr, "pktdedup-keys: %s: %s\n", argv[optind],
			cli_pcap_reason(argv[optind], errbuf));
		return 1;
	}
	if (cli_link_from_dlt(pcap_datalink(pc), &cfg.link) != 0) {
		fprintf(stderr, "pktdedup-keys: %s: link type %s; the keys take " CLI_LINK_TYPES
			"\n", argv[optind], pcap_datalink_val_to_name(pcap_datalink(pc)));
		pcap_close(pc);
		return 1;
	}
	exact = pd_filter_create(&fp, &err);
	if (exact == NULL) {
		fprintf(stderr, "pktdedup-keys: %s\n", err.msg);
		pcap_close(pc);
		return 1;
	}
	for (;;) {
		struct pd_key_ip ip;
		size_t klen;
		enum pd_key_reason r;
		int n = pcap_next_ex(pc, &h, &data);

		if (n == PCAP_ERROR_BREAK)
			break;
		if (n != 1) {
			fprintf(stderr, "pktdedup-keys: %s: after %llu frames: %s\n", argv[optind],
				(unsigned long long)frames, pcap_geterr(pc));
			rc = 1;
			break;
		}
		if (PD_KEY_BUF_LEN(h->caplen) > cap) {
			cap = PD_KEY_BUF_LEN(h->caplen);
			free(key);
			free(hex);
			key = malloc(cap);
			hex = malloc(2 * cap + 1);
			if (key == NULL || hex == NULL) {
				fprintf(stderr, "pktdedup-keys: out of memory\n");
				rc = 1;
				break;
			}
		}
		r = pd_key_extract_ip(&cfg, data, h->caplen, key, cap, &klen, &ip);
		count[r]++;
		if (r == PD_KEY_OK) {
			const void *kp = key;
			uint32_t kl = (uint32_t)klen;
			uint8_t dup;

			pd_filter_burst(exact, &kp, &kl, NULL, &dup, 1);
			distinct += !dup;
		}
		if (!summary) {
			if (r == PD_KEY_OK) {
				for (size_t i = 0; i < klen; i++)
					sprintf(hex + 2 * i, "%02x", key[i]);
				hex[2 * klen] = '\0';
				printf("%llu ok%s%s", (unsigned long long)frames, hex[0] ? " " : "", hex);
			} else {
				printf("%llu %s", (unsigned long long)frames, pd_key_reason_name(r));
			}
			print_walk(ip.walk);
		}
		frames++;
	}
	{
		struct pd_filter_stats st;

		pd_filter_stats(exact, &st);
		if (st.unstored != 0) { /* their copies were counted as distinct again */
			fprintf(stderr, "pktdedup-keys: out of memory: %llu keys could not be"
				" recorded, so the distinct count is too high\n",
				(unsigned long long)st.unstored);
			rc = 1;
		}
	}
	if (summary) {
		printf("frames %llu\nkeys %llu\ndistinct %llu\n", (unsigned long long)frames,
		       (unsigned long long)count[PD_KEY_OK], (unsigned long long)distinct);
		for (int r = 1; r < PD_KEY_REASON_COUNT; r++)
			if (count[r] != 0)
				printf("%s %llu\n", pd_key_reason_name((enum pd_key_reason)r),
				       (unsigned long long)count[r]);
	}
	free(key);
	free(hex);
	pd_filter_destroy(exact);
	pcap_close(pc);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "pktdedup-keys: write error: %s\n", strerror(errno));
		rc = 1;
	}
	return rc;
}
