/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktdedup-keys: print the dedup key that pktdedup extracts from every frame of a
 * capture, or why there is none, and count them. The library's parser (pd_key.h) with
 * replay's reader around it (replay_io.h: pcap and pcapng, gzip'd or not, a link type per
 * pcapng interface); no DPDK.
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
#include <unistd.h>

#include <pktdedup/pd_filter.h>
#include <pktdedup/pd_key.h>

#include "../common/cli.h"
#include "../common/link.h"
#include "replay_io.h"

/* A frame of a link type the parser does not take (a pcapng interface of one): its line
 * and count say so, after the parser's reasons. */
#define LINK_TYPE_REASON "link-type"

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
		"Usage: pktdedup-keys [options] FILE\n"
		"\n"
		"Print the key pktdedup extracts from each frame of a capture (pcap or pcapng,\n"
		"gzip'd or not; '-': standard input): one line per frame,\n"
		"  <index> ok <key as hex>     or     <index> <reason>\n"
		"(reason link-type: a pcapng interface of a link type the keys do not take)\n"
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
		"Exit status: 0 done, 1 the capture cannot be read, 2 bad options.\n");
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
	struct rio_in_info info;
	struct rio_frame f;
	const uint8_t *pre;
	size_t npre;
	uint64_t count[PD_KEY_REASON_COUNT] = {0}, frames = 0, distinct = 0, other_link = 0;
	struct pd_filter *exact;
	struct pd_filter_params fp = {.type = PD_FILTER_EXACT, .seed = 1};
	struct pd_error err;
	uint8_t *key = NULL;
	char *hex = NULL;
	size_t cap = 0;
	int rc = 0;

	cli_prog = "pktdedup-keys";
	pd_key_config_init(&cfg, PD_KEY_PACKET);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		char word[3];

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
					cli_refused(c, argv, word));
			else
				fprintf(stderr, "pktdedup-keys: unknown option %s\n",
					cli_refused(c, argv, word));
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

	if (strcmp(argv[optind], "-") == 0 && isatty(STDIN_FILENO)) { /* as pktdedup */
		fprintf(stderr, "pktdedup-keys: -: standard input is a terminal: give a file, or"
			" '< FILE'\n");
		return 2;
	}
	if (rio_in_open(argv[optind], &info) != 0) {
		fprintf(stderr, "pktdedup-keys: %s: %s\n", argv[optind], rio_in_error());
		rio_in_close();
		return 1;
	}
	/* a pcap holds one link type, which must be one the keys take; a pcapng one a
	 * frame, whose other link types are said on their lines (as replay bypasses them) */
	if (cli_link_from_dlt(info.linktype, &cfg.link) != 0 && !info.pcapng) {
		fprintf(stderr, "pktdedup-keys: %s: link type %s; the keys take " CLI_LINK_TYPES
			"\n", argv[optind], cli_dlt_name(info.linktype));
		rio_in_close();
		return 1;
	}
	exact = pd_filter_create(&fp, &err);
	if (exact == NULL) {
		fprintf(stderr, "pktdedup-keys: %s\n", err.msg);
		rio_in_close();
		return 1;
	}
	for (;;) {
		struct pd_key_ip ip = {0};
		size_t klen;
		enum pd_key_reason r;
		int n = rio_in_next(&f, &pre, &npre);

		if (n == 0)
			break;
		if (n != 1) {
			fprintf(stderr, "pktdedup-keys: %s: after %llu frames: %s\n", argv[optind],
				(unsigned long long)frames, rio_in_error());
			rc = 1;
			break;
		}
		if (cli_link_from_dlt(f.dlt, &cfg.link) != 0) {
			other_link++;
			if (!summary)
				printf("%llu " LINK_TYPE_REASON "\n", (unsigned long long)frames);
			frames++;
			continue;
		}
		if (PD_KEY_BUF_LEN(f.caplen) > cap) {
			cap = PD_KEY_BUF_LEN(f.caplen);
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
		r = pd_key_extract_cut(&cfg, f.data, f.caplen, f.len, key, cap, &klen, &ip);
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
		if (other_link != 0)
			printf(LINK_TYPE_REASON " %llu\n", (unsigned long long)other_link);
	}
	free(key);
	free(hex);
	pd_filter_destroy(exact);
	rio_in_close();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "pktdedup-keys: write error: %s\n", strerror(errno));
		rc = 1;
	}
	return rc;
}
