/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktdedup's own options (after EAL's and `--`): parsing, validation, --help.
 * Every bad value is reported with the option's name; the caller exits with status 2.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/cli.h"
#include "pktdedup.h"

#define DEFAULT_MEMORY (64u << 20)
/* The loss budget: a false positive drops a unique packet, so the app plans for one in a
 * million (the library's and pktdedup-eval's default, 0.01, suits comparing filters). */
#define DEFAULT_FPR 1e-6
/* The live estimate samples 2^-8 of the keys (docs/estimate.md: its measured cost). */
#define DEFAULT_ESTIMATE_LEVEL 8

/* Whether @p word ("-l", "--vdev", "--vdev=net_null0") is one of EAL's options (DPDK
 * 22.11's, as librte_eal lists them): pktdedup's parser sees one when it came after '--'
 * or when no '--' was given, and says where it goes instead of "unknown option". */
static int eal_option(const char *word)
{
	static const char *const names[] = {
		"allow", "base-virtaddr", "block", "create-uio-dev", "file-prefix",
		"force-max-simd-bitwidth", "huge-dir", "huge-unlink", "huge-worker-stack",
		"in-memory", "iova-mode", "lcores", "legacy-mem", "log-level", "main-lcore",
		"match-allocations", "mbuf-pool-ops-name", "no-hpet", "no-huge", "no-pci",
		"no-shconf", "no-telemetry", "proc-type", "single-file-segments", "socket-limit",
		"socket-mem", "syslog", "trace", "trace-bufsz", "trace-dir", "trace-mode", "vdev",
		"vfio-intr", "vfio-vf-token", "vmware-tsc-map",
	};

	if (word[0] != '-')
		return 0;
	if (word[1] != '-') /* EAL's short options: a:b:c:s:d:hl:S:m:n:r:v */
		return word[1] != '\0' && strchr("abcsdlSmnrv", word[1]) != NULL &&
		       word[2] == '\0'; /* -h is pktdedup's --help too */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const size_t n = strlen(names[i]);

		if (strncmp(word + 2, names[i], n) == 0 &&
		    (word[2 + n] == '\0' || word[2 + n] == '='))
			return 1;
	}
	return 0;
}

void pd_app_usage(FILE *out)
{
	char windowed[96], names[512];

	fprintf(out,
		"Usage: pktdedup [EAL options] -- [pktdedup options]\n"
		"  or:  pktdedup --pcap-in IN.pcap [--pcap-out OUT.pcap] [pktdedup options]\n"
		"\n"
		"Removes duplicate packets: each worker lcore extracts a key from every packet,\n"
		"hashes it into its own dedup filter, and drops, marks or counts duplicates\n"
		"while forwarding the rest (port A -> B and B -> A, or back out of one port).\n"
		"The second form reads a capture (pcap or pcapng, a FIFO too) with libpcap,\n"
		"deduplicates it and writes the kept frames in input order, whatever --workers\n"
		"(no ports, no hugepages, no EAL), then prints the summary.\n"
		"\n"
		"Filter (per worker):\n"
		"  --filter NAME        one of: %s\n"
		"                       (default qhtlru; docs/filters.md says which for what)\n"
		"  --memory SIZE        filter memory per worker (default 64M; SIZE: 4096, 64M,\n"
		"                       64mb, 1.5G: K, M, G, T are powers of 1024)\n"
		"  --fpr P              loss budget: the planner's target false-positive rate,\n"
		"                       the share of unique packets dropped as if copies\n"
		"                       (default %g)\n"
		"  --seed N             hash secret; default: the --snapshot file's, else random\n"
		"                       from getrandom() at start (never printed)\n"
		"  --k N --max N --p N --pstar X --b N --f N --q X --expected-n N\n"
		"  --equal-timers N     filter parameters; 0 or absent: the planner chooses\n"
		"                       (docs/filters.md)\n"
		"  --window T           a copy is a duplicate only within T of the last one\n"
		"                       (50us, 10ms, 1s...; docs/windows.md); time is the\n"
		"                       pcap timestamp in replay, the RX time inline;\n"
		"                       filters with one: %s.\n"
		"                       Default with --key packet: 100ms, so the same bytes\n"
		"                       sent again later (a retransmission, a retry) are\n"
		"                       kept; none: a copy counts however late (editcap -D\n"
		"                       over the whole file)\n"
		"  --window-mode M      seen (default: every copy restarts the window, as\n"
		"                       editcap -w) or delivered (only forwarded copies do: a\n"
		"                       key repeating forever passes once per T)\n"
		"  --suggest-window     after the run, the smallest windows that catch 99%%,\n"
		"                       99.9%% and all of the copies, with the memory each\n"
		"                       needs (with --filter exact; docs/windows.md)\n"
		"\n"
		"Key (docs/keys.md):\n",
		cli_wrap(cli_filter_names(), 31, 23, names, sizeof(names)), DEFAULT_FPR,
		cli_filter_list(PD_FILTER_CAN_WINDOW, windowed, sizeof(windowed)));
	fputs(cli_key_help, out);
	fprintf(out,
		"\n"
		"Action:\n"
		"  --action A           drop (default) | mark | count\n"
		"  --mark-dscp N        DSCP written into duplicates with --action mark, 0..63\n"
		"                       (default 1, lower effort; IPv4 checksum fixed)\n"
		"  --dup-port P         send duplicates out of port P instead (drop or mark),\n"
		"                       a port of their own: not one of --ports\n"
		"  --unparseable U      frames without a key: forward (default) or drop; those\n"
		"                       that lack one only for bytes a capture cut or another\n"
		"                       segment holds go on either way\n"
		"  --allow N            pass the first N copies of a key after each time it\n"
		"                       was new (within --window), act on the rest (1..254;\n"
		"                       default 0: every copy; docs/app.md)\n"
		"  --allow-memory SIZE  its copy-count table per worker (default 16M: 3.1M\n"
		"                       keys counted at once)\n"
		"\n"
		"Ports and workers:\n"
		"  --ports A[,B]        one port (packets leave where they came in) or a pair\n"
		"                       (A -> B, B -> A); default: ports 0,1, or 0 alone\n"
		"  --workers N          worker lcores used (default: every worker lcore; with\n"
		"                       --pcap-in: 1)\n"
		"  --dispatch D         auto (default) | rss | software: how packets of one key\n"
		"                       reach one worker when there are several\n"
		"  --dispatch-ring N    software dispatch: lookups that may wait for a worker,\n"
		"                       from all the others (default 2048; more rides out a\n"
		"                       longer stall of a worker, with an mbuf each unless\n"
		"                       --action count: docs/app.md)\n"
		"  --rx-desc N --tx-desc N   ring sizes (default 1024)\n"
		"  --mbufs N            mbufs in all workers' pools (default: from the ports and\n"
		"                       workers)\n"
		"\n");
	/* a string of its own: C99 compilers need take no literal over 4095 bytes */
	fprintf(out,
		"pcap replay (docs/app.md):\n"
		"  --pcap-in FILE       input capture, pcap or pcapng, gzip'd or not ('-':\n"
		"                       standard input); Ethernet, Linux cooked (SLL, SLL2),\n"
		"                       raw IP or BSD loopback, a link type per pcapng\n"
		"                       interface\n"
		"  --pcap-out FILE      the kept frames in input order, with their timestamps\n"
		"                       and lengths ('-': standard output, the summary then on\n"
		"                       stderr); pcapng keeps its interfaces, options and\n"
		"                       other blocks\n"
		"  --dup-out FILE       the frames judged copies, as they came (an audit of\n"
		"                       what was dropped)\n"
		"  --out-format F       pcap | pcapng | same (the input's); default: by the\n"
		"                       output's name (.pcapng, .pcap), else the input's\n"
		"  --bpf EXPR           deduplicate only frames matching the filter EXPR\n"
		"                       (tcpdump syntax); the others pass untouched, counted\n"
		"                       as bypassed\n"
		"  --quiet              no progress line (shown only on a terminal), start-up\n"
		"                       lines or summary; errors and warnings still\n"
		"\n"
		"State across restarts (docs/app.md):\n"
		"  --snapshot FILE      load the filters from FILE at start if it exists; write\n"
		"                       them there at a clean stop (mode 0600: it holds the\n"
		"                       hash secret, which is taken from it unless --seed)\n"
		"  --snapshot-interval T  also write it every T (seconds, or 500ms, 10s...)\n"
		"                       while running (default: only at stop)\n"
		"  --snapshot-policy P  strict (default): a snapshot that cannot be used stops\n"
		"                       the run (status 3); fresh: start with empty filters\n"
		"\n"
		"Statistics:\n"
		"  --stats-interval T   print a counter line every T (seconds, or 500ms...;\n"
		"                       default: off); SIGUSR1 prints one at any time\n"
		"  --stats-json FILE    write the final summary as JSON ('-': stdout)\n"
		"  --estimate-rate R    share of the keys whose verdicts an exact shadow checks,\n"
		"                       for the live FPR/FNR estimate (docs/estimate.md): 1/N\n"
		"                       or a fraction, rounded to a power of two; off (default\n"
		"                       1/256; 1 MiB per worker)\n"
		"  telemetry: /pktdedup/stats, /workers, /ports, /config, /delays\n"
		"                       (dpdk-telemetry.py; docs/app.md)\n"
		"  --telemetry          replay: serve telemetry (starts EAL, prints its socket)\n"
		"\n"
		"  --help               this text\n"
		"  --version            the version\n"
		"\n"
		"Exit status: 0 done; 1 a runtime failure (ports, memory, a damaged input file,\n"
		"a write error); 2 bad options; 3 a --snapshot that cannot be used; 130, 143\n"
		"or 129: a replay stopped by SIGINT, SIGTERM or SIGHUP before the end of its\n"
		"input (the output holds the frames read).\n");
}

enum {
	O_FILTER = 256, O_ACTION, O_DSCP, O_DUPPORT,
	O_UNPARSEABLE, O_PORTS, O_WORKERS, O_DISPATCH, O_DISPATCH_RING, O_RXD, O_TXD, O_MBUFS,
	O_PCAPIN,
	O_PCAPOUT, O_DUPOUT, O_OUTFMT, O_BPF, O_QUIET, O_SINT, O_SJSON, O_ESTRATE, O_TELEMETRY, O_ALLOW, O_ALLOWMEM, O_SUGGEST, O_SNAP,
	O_SNAPINT, O_SNAPPOL, O_WINDOW, O_WMODE, O_EQT,
	O_HELP,
	O_VERSION,
};

static const struct option longopts[] = {
	{"filter", required_argument, NULL, O_FILTER},
	CLI_FILTER_LONGOPTS,
	CLI_KEY_LONGOPTS,
	{"action", required_argument, NULL, O_ACTION},
	{"mark-dscp", required_argument, NULL, O_DSCP},
	{"dup-port", required_argument, NULL, O_DUPPORT},
	{"unparseable", required_argument, NULL, O_UNPARSEABLE},
	{"allow", required_argument, NULL, O_ALLOW},
	{"allow-memory", required_argument, NULL, O_ALLOWMEM},
	{"suggest-window", no_argument, NULL, O_SUGGEST},
	{"ports", required_argument, NULL, O_PORTS},
	{"workers", required_argument, NULL, O_WORKERS},
	{"dispatch", required_argument, NULL, O_DISPATCH},
	{"dispatch-ring", required_argument, NULL, O_DISPATCH_RING},
	{"rx-desc", required_argument, NULL, O_RXD},
	{"tx-desc", required_argument, NULL, O_TXD},
	{"mbufs", required_argument, NULL, O_MBUFS},
	{"pcap-in", required_argument, NULL, O_PCAPIN},
	{"pcap-out", required_argument, NULL, O_PCAPOUT},
	{"dup-out", required_argument, NULL, O_DUPOUT},
	{"out-format", required_argument, NULL, O_OUTFMT},
	{"bpf", required_argument, NULL, O_BPF},
	{"quiet", no_argument, NULL, O_QUIET},
	{"telemetry", no_argument, NULL, O_TELEMETRY},
	{"stats-interval", required_argument, NULL, O_SINT},
	{"stats-json", required_argument, NULL, O_SJSON},
	{"estimate-rate", required_argument, NULL, O_ESTRATE},
	{"snapshot", required_argument, NULL, O_SNAP},
	{"snapshot-interval", required_argument, NULL, O_SNAPINT},
	{"snapshot-policy", required_argument, NULL, O_SNAPPOL},
	{"window", required_argument, NULL, O_WINDOW},
	{"window-mode", required_argument, NULL, O_WMODE},
	{"equal-timers", required_argument, NULL, O_EQT},
	{"help", no_argument, NULL, O_HELP},
	{"version", no_argument, NULL, O_VERSION},
	{NULL, 0, NULL, 0},
};

/* --estimate-rate: off, 1/N or a fraction in (0, 1], to the nearest 2^-level. */
static int parse_estimate_rate(const char *s, int *level)
{
	double r;
	int l = 0;

	if (strcmp(s, "off") == 0) {
		*level = -1;
		return 0;
	}
	if (strncmp(s, "1/", 2) == 0) {
		uint64_t n;

		if (cli_count("--estimate-rate", s + 2, &n) != 0)
			return -1;
		r = n == 0 ? 2 : 1.0 / (double)n;
	} else if (cli_real("--estimate-rate", s, 0, 1, &r) != 0) {
		return -1;
	}
	if (r <= 0 || r > 1)
		return cli_bad("--estimate-rate", s, "expected off, 1/N or a fraction in (0, 1]");
	while (l < 40 && r < 0.75 / (double)(1ULL << l)) /* nearest power of two */
		l++;
	if (r < 0.75 / (double)(1ULL << 40))
		return cli_bad("--estimate-rate", s, "below 2^-40");
	*level = l;
	return 0;
}

static int parse_port(const char *opt, const char *s, int *out)
{
	uint32_t v;

	if (cli_u32(opt, s, &v) != 0)
		return -1;
	if (v >= RTE_MAX_ETHPORTS)
		return cli_bad(opt, s, "port number too large");
	*out = (int)v;
	return 0;
}

static int parse_ports(const char *s, struct pd_app_config *c)
{
	char buf[32];
	const char *comma = strchr(s, ',');

	if (comma == NULL) {
		c->nports = 1;
		c->ports[1] = -1;
		return parse_port("--ports", s, &c->ports[0]);
	}
	if ((size_t)(comma - s) >= sizeof(buf) || strchr(comma + 1, ','))
		return cli_bad("--ports", s, "expected one port or a pair, such as 0,1");
	memcpy(buf, s, (size_t)(comma - s));
	buf[comma - s] = '\0';
	c->nports = 2;
	if (parse_port("--ports", buf, &c->ports[0]) || parse_port("--ports", comma + 1, &c->ports[1]))
		return -1;
	if (c->ports[0] == c->ports[1])
		return cli_bad("--ports", s, "the two ports of a pair must differ");
	return 0;
}

/* Which options were given, to check the ones that only make sense together. */
struct seen {
	struct cli_key_given key;
	const char *dscp, *dup_port, *pcap_out, *dup_out, *out_format, *bpf, *dispatch;
	const char *dispatch_ring, *snap_int, *snap_pol, *wmode;
	const char *ports, *workers;
};

/*
 * A file or filter option given twice: the second would replace the first, and a capture
 * would go unread or an output unwritten without a word. Tunables keep getopt's rule (the
 * last value counts), which wrappers that append overrides rely on.
 */
static int once(const char *opt, const char *prev, const char *a)
{
	char why[PATH_MAX + 160];

	if (prev == NULL)
		return 0;
	if (strcmp(opt, "--pcap-in") == 0)
		snprintf(why, sizeof(why), "given twice (first %s): one capture per run; to"
			 " deduplicate several as one, merge them first (mergecap -w all.pcap"
			 " A B)", prev);
	else if (strcmp(opt, "--bpf") == 0)
		snprintf(why, sizeof(why), "given twice (first '%s'): join them in one"
			 " expression ('A and B')", prev);
	else
		snprintf(why, sizeof(why), "given twice (first %s): each is written to one"
			 " file", prev);
	return cli_bad(opt, a, why);
}

/* A file option's value: a name or '-', given once. */
static int file_arg(const char *opt, const char *a, const char **dst)
{
	if (once(opt, *dst, a) != 0)
		return -1;
	*dst = a;
	return *a == '\0' ? cli_bad(opt, a, "expected a file name or -") : 0;
}

static int check(struct pd_app_config *c, const struct seen *s)
{
	if (cli_key_check(&c->key, &s->key) != 0)
		return -1;
	if (s->dscp && c->action != PD_ACTION_MARK)
		return cli_bad("--mark-dscp", s->dscp, "needs --action mark");
	if (s->dup_port && c->action == PD_ACTION_COUNT)
		return cli_bad("--dup-port", s->dup_port,
			       "--action count forwards duplicates with the rest");
	if (s->wmode && c->filter.window == 0)
		return cli_bad("--window-mode", s->wmode, "needs --window");
	if (s->snap_int && c->snapshot == NULL)
		return cli_bad("--snapshot-interval", s->snap_int, "needs --snapshot FILE");
	if (s->snap_pol && c->snapshot == NULL)
		return cli_bad("--snapshot-policy", s->snap_pol, "needs --snapshot FILE");
	if (s->pcap_out && c->pcap_in == NULL)
		return cli_bad("--pcap-out", s->pcap_out, "needs --pcap-in");
	if (s->dup_out && c->pcap_in == NULL)
		return cli_bad("--dup-out", s->dup_out, "needs --pcap-in");
	if (s->out_format && c->pcap_out == NULL && c->dup_out == NULL)
		return cli_bad("--out-format", s->out_format, "needs --pcap-out or --dup-out");
	if (s->bpf && c->pcap_in == NULL)
		return cli_bad("--bpf", s->bpf, "needs --pcap-in (inline, select the traffic"
			       " on the switch or the packet broker)");
	if (s->dispatch_ring && c->dispatch == PD_DISPATCH_RSS)
		return cli_bad("--dispatch-ring", s->dispatch_ring, "needs software dispatch");
	if (c->pcap_in != NULL) {
		if (s->dispatch_ring)
			return cli_bad("--dispatch-ring", s->dispatch_ring,
				       "inline only (--pcap-in hands no lookups over)");
		if (c->nports != 0)
			return cli_bad("--ports", s->ports, "--pcap-in makes its own port");
		if (c->dup_port >= 0)
			return cli_bad("--dup-port", s->dup_port, "not with --pcap-in");
	}
	if (c->dup_port >= 0 && (c->dup_port == c->ports[0] || c->dup_port == c->ports[1]))
		return cli_bad("--dup-port", s->dup_port, PD_DUP_PORT_WHY); /* else ports.c */
	return 0;
}

int pd_app_parse(int argc, char **argv, struct pd_app_config *c)
{
	struct seen s = {0};
	int opt, r;

	cli_prog = "pktdedup";
	memset(c, 0, sizeof(*c));
	c->filter.type = PD_FILTER_QHTLRU; /* docs/filters.md, "Which filter" */
	c->filter.memory_bytes = DEFAULT_MEMORY;
	c->filter.target_fpr = DEFAULT_FPR;
	pd_key_config_init(&c->key, PD_KEY_PACKET);
	c->action = PD_ACTION_DROP;
	c->mark_dscp = 1;
	c->dup_port = -1;
	c->ports[0] = c->ports[1] = -1;
	c->dispatch = PD_DISPATCH_AUTO;
	c->dispatch_ring = PD_APP_RING_DEFAULT;
	c->rx_desc = 1024;
	c->tx_desc = 1024;
	c->estimate_level = DEFAULT_ESTIMATE_LEVEL;
	c->out_format = -1; /* RIO_AUTO: by the output's name, else the input's format */
	c->allow_bytes = 16u << 20;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		const char *a = optarg;
		uint32_t u;
		int choice;
		char word[3];

		r = 0;
		switch (opt) {
		case O_FILTER:
			if (pd_filter_type_parse(a, &c->filter.type) != 0) {
				char why[300];

				snprintf(why, sizeof(why), "unknown filter (%s)", cli_filter_names());
				r = cli_bad("--filter", a, why);
			}
			break;
		case O_ACTION:
			r = cli_choice("--action", a, (const char *const[]){"drop", "mark", "count",
					NULL}, &choice); /* the order of enum pd_action */
			if (r == 0)
				c->action = (enum pd_action)choice;
			break;
		case O_ALLOW:
			r = cli_u32("--allow", a, &u);
			if (r == 0 && u > PD_ALLOW_MAX)
				r = cli_bad("--allow", a, "at most 254 copies");
			c->allow = u;
			break;
		case O_ALLOWMEM:
			r = cli_size("--allow-memory", a, &c->allow_bytes);
			if (r == 0 && c->allow_bytes < 64)
				r = cli_bad("--allow-memory", a, "at least 64 bytes");
			break;
		case O_DSCP:
			s.dscp = a;
			r = cli_u32("--mark-dscp", a, &u);
			if (r == 0 && u > 63)
				r = cli_bad("--mark-dscp", a, "a DSCP is 0..63");
			c->mark_dscp = u;
			break;
		case O_DUPPORT:
			s.dup_port = a;
			r = parse_port("--dup-port", a, &c->dup_port);
			break;
		case O_UNPARSEABLE:
			r = cli_choice("--unparseable", a, (const char *const[]){"forward", "drop",
					NULL}, &c->drop_unparseable);
			break;
		case O_PORTS:
			s.ports = a;
			r = parse_ports(a, c);
			break;
		case O_WORKERS:
			s.workers = a;
			r = cli_u32("--workers", a, &c->workers);
			if (r == 0 && (c->workers == 0 || c->workers > PD_APP_MAX_WORKERS))
				r = cli_bad("--workers", a, "expected 1 to 64");
			break;
		case O_DISPATCH:
			s.dispatch = a;
			r = cli_choice("--dispatch", a, (const char *const[]){"auto", "rss",
					"software", NULL}, &choice); /* the order of enum pd_dispatch */
			if (r == 0)
				c->dispatch = (enum pd_dispatch)choice;
			break;
		case O_DISPATCH_RING:
			s.dispatch_ring = a;
			r = cli_u32("--dispatch-ring", a, &c->dispatch_ring);
			if (r == 0 && (c->dispatch_ring < PD_APP_RING_MIN ||
				       c->dispatch_ring > PD_APP_RING_MAX))
				r = cli_bad("--dispatch-ring", a, "expected 128 to 1048576");
			break;
		case O_RXD:
		case O_TXD:
			r = cli_u32(opt == O_RXD ? "--rx-desc" : "--tx-desc", a, &u);
			if (r == 0 && (u < 32 || u > 32768 || (u & (u - 1))))
				r = cli_bad(opt == O_RXD ? "--rx-desc" : "--tx-desc", a,
					    "a power of two from 32 to 32768");
			*(opt == O_RXD ? &c->rx_desc : &c->tx_desc) = u;
			break;
		case O_MBUFS:
			r = cli_u32("--mbufs", a, &c->mbufs);
			if (r == 0 && c->mbufs < 1024)
				r = cli_bad("--mbufs", a, "at least 1024");
			break;
		case O_PCAPIN:
			r = file_arg("--pcap-in", a, &c->pcap_in);
			break;
		case O_PCAPOUT:
			r = file_arg("--pcap-out", a, &c->pcap_out);
			s.pcap_out = a;
			break;
		case O_DUPOUT:
			r = file_arg("--dup-out", a, &c->dup_out);
			s.dup_out = a;
			break;
		case O_OUTFMT:
			s.out_format = a;
			r = cli_choice("--out-format", a, (const char *const[]){"same", "pcap",
					"pcapng", NULL}, &c->out_format); /* enum rio_format */
			break;
		case O_BPF:
			r = once("--bpf", c->bpf, a);
			s.bpf = a;
			c->bpf = a;
			break;
		case O_QUIET: c->quiet = 1; break;
		case O_TELEMETRY: c->telemetry = 1; break;
		case O_SUGGEST: c->suggest_window = 1; break;
		case O_SINT:
			r = cli_seconds("--stats-interval", a, 0.001, 86400, &c->stats_interval);
			break;
		case O_SJSON:
			r = file_arg("--stats-json", a, &c->stats_json);
			break;
		case O_ESTRATE:
			r = parse_estimate_rate(a, &c->estimate_level);
			break;
		case O_SNAP:
			r = once("--snapshot", c->snapshot, a);
			if (r == 0 && *a == '\0')
				r = cli_bad("--snapshot", a, "expected a file name");
			c->snapshot = a;
			break;
		case O_SNAPINT:
			s.snap_int = a;
			r = cli_seconds("--snapshot-interval", a, 0.01, 86400 * 7,
					&c->snapshot_interval);
			break;
		case O_SNAPPOL:
			s.snap_pol = a;
			r = cli_choice("--snapshot-policy", a, (const char *const[]){"strict",
					"fresh", NULL}, &c->snapshot_fresh);
			break;
		case O_WINDOW:
			c->window_none = strcmp(a, "none") == 0;
			if (c->window_none) {
				c->filter.window = 0;
				break;
			}
			/* "0" is what some tools take for no window: say which word is ours */
			r = strcmp(a, "0") == 0 ? 0 : cli_duration("--window", a, &c->filter.window);
			if (r == 0 && (strcmp(a, "0") == 0 || c->filter.window == 0))
				r = cli_bad("--window", a, "must be above 0 (--window none: no window)");
			break;
		case O_WMODE:
			s.wmode = a;
			r = cli_choice("--window-mode", a, (const char *const[]){"seen", "delivered",
					NULL}, &choice); /* the order of enum pd_window_mode */
			if (r == 0)
				c->filter.window_mode = (enum pd_window_mode)choice;
			break;
		case O_EQT: r = cli_u32("--equal-timers", a, &c->filter.equal_timers); break;
		case 'h':
		case O_HELP:
			pd_app_usage(stdout);
			exit(0);
		case O_VERSION:
			cli_version();
			exit(0);
		case ':':
			PD_LOG(ERR, "option %s needs a value\n", cli_refused(opt, argv, word));
			return -1;
		default:
			if (opt >= CLI_O_KEY && opt < CLI_O_KEY_END) {
				r = cli_key_option(opt, a, &c->key, &s.key);
				break;
			}
			if (opt >= CLI_O_MEMORY && opt < CLI_O_FILTER_END) {
				r = cli_filter_option(opt, a, &c->filter);
				c->seed_given |= opt == CLI_O_SEED;
				break;
			}
			a = cli_refused(opt, argv, word);
			if (eal_option(a))
				PD_LOG(ERR, "%s is an EAL option: on ports EAL's options come"
					" first, then '--', then pktdedup's (pktdedup -l 0-1"
					" --vdev net_null0 -- --ports 0); a replay (--pcap-in)"
					" takes none\n", a);
			else
				PD_LOG(ERR, "unknown option %s\ntry: pktdedup --help\n", a);
			return -1;
		}
		if (r != 0)
			return -1;
	}
	if (optind < argc) {
		struct stat st;

		/* a capture named alone: say how to give it */
		if (stat(argv[optind], &st) == 0 && !S_ISDIR(st.st_mode))
			PD_LOG(ERR, "unexpected argument %s: to deduplicate a capture, give"
				" --pcap-in %s --pcap-out OUT\ntry: pktdedup --help\n",
				argv[optind], argv[optind]);
		else
			PD_LOG(ERR, "unexpected argument %s\ntry: pktdedup --help\n",
				argv[optind]);
		return -1;
	}
	/* the packet key's copies are a mirror's: a repeat its host sent itself later (a
	 * retransmission, a retry) is kept (docs/app.md, "Defaults, and why") */
	if (c->filter.window == 0 && !c->window_none && !c->suggest_window &&
	    c->key.mode == PD_KEY_PACKET &&
	    (pd_filter_type_caps(c->filter.type) & PD_FILTER_CAN_WINDOW)) {
		c->filter.window = PD_APP_DEFAULT_WINDOW_NS;
		c->window_default = 1;
	}
	if (check(c, &s) != 0)
		return -1;
	/* windowed rows: a copy counts only within W, so W's keys at line rate bound the gap
	 * the planner weighs (rows' overflow against the ages' resolution, docs/windows.md);
	 * timerbf's false positives grow with the keys a window holds, so its predicted FPR
	 * is taken at that many (it was at its capacity, whatever the rate: at 100 ms and
	 * 64 MiB, 573,000 keys, where line rate brings 1.49 million) */
	if (c->filter.window != 0 && c->filter.expected_n == 0 &&
	    (c->filter.type == PD_FILTER_QHTLRU || c->filter.type == PD_FILTER_QQHTD ||
	     c->filter.type == PD_FILTER_TIMERBF)) {
		const double keys = (double)c->filter.window * 1e-9 * (double)PD_LINE_RATE_PPS;

		c->filter.expected_n = keys < 1.0 ? 1 : keys > 1e15 ? (uint64_t)1e15 :
						    (uint64_t)keys;
		c->gap_from_window = 1;
	}
	return pd_app_check_distinct(c);
}
