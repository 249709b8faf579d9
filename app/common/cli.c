/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pktdedup/pd_key.h>

#include "cli.h"

const char *cli_prog = "pktdedup";

void cli_version(void)
{
	printf("%s %s\n", cli_prog, PD_VERSION);
}

const char *cli_refused(int c, char **argv, char buf[3])
{
	/* glibc: an unknown short option sets optopt to its letter, an unknown long one
	 * to 0; a missing value (':') is always at the end of the word read */
	if (c == '?' && optopt > 0 && optopt < 128) {
		buf[0] = '-';
		buf[1] = (char)optopt;
		buf[2] = '\0';
		return buf;
	}
	return optind > 0 ? argv[optind - 1] : "?";
}

int cli_bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "%s: %s %s: %s\n", cli_prog, opt, val, why);
	return -1;
}

/*
 * Sizes as EAL and people write them: digits, an optional fraction, and an optional unit
 * in any case (K, KB, KiB, M, MB, MiB, G, GB, GiB, T, TB, TiB, or B), every unit a power of
 * 1024. A fraction must come to a whole number of bytes (1.5G does; 1.3K does not).
 */
int cli_size(const char *opt, const char *s, uint64_t *out)
{
	static const char *const units = "KMGT";
	static const char bad_unit[] = "unknown unit (use K, M, G or T, with B or iB if you like)";
	static const char bad_size[] = "expected a size such as 64M, 1.5G or 4096";
	__extension__ typedef unsigned __int128 u128;
	u128 ip = 0, frac = 0, den = 1, v;
	unsigned shift = 0;
	const char *p = s, *u;

	if (*p < '0' || *p > '9')
		return cli_bad(opt, s, bad_size);
	for (; *p >= '0' && *p <= '9'; p++) {
		ip = ip * 10 + (unsigned)(*p - '0');
		if (ip > UINT64_MAX)
			return cli_bad(opt, s, "too large");
	}
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return cli_bad(opt, s, bad_size);
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (den >= (u128)1000000000000000000ULL) /* 18 places: finer than a byte */
				return cli_bad(opt, s, "not a whole number of bytes");
			frac = frac * 10 + (unsigned)(*p - '0');
			den *= 10;
		}
	}
	u = *p != '\0' ? strchr(units, toupper((unsigned char)*p)) : NULL;
	if (u != NULL) {
		shift = 10 * (unsigned)(u - units + 1);
		p++;
		if (*p == 'i' || *p == 'I')
			p++;
		else if (*p != 'b' && *p != 'B' && *p != '\0')
			return cli_bad(opt, s, bad_unit);
		if (*p == 'b' || *p == 'B')
			p++;
		else if (p[-1] == 'i' || p[-1] == 'I')
			return cli_bad(opt, s, bad_unit);
	} else if (*p == 'b' || *p == 'B') {
		p++;
	}
	if (*p != '\0')
		return cli_bad(opt, s, bad_unit);
	if ((frac << shift) % den != 0)
		return cli_bad(opt, s, "not a whole number of bytes");
	v = (ip << shift) + (frac << shift) / den;
	if (v > UINT64_MAX)
		return cli_bad(opt, s, "too large");
	*out = (uint64_t)v;
	return 0;
}

int cli_count(const char *opt, const char *s, uint64_t *out)
{
	static const char why[] = "expected a non-negative integer in decimal digits";
	uint64_t v = 0;

	/* digits only: 0x10, 1e1, 16.0, +16, " 16", -0 and 010 are refused, and every one of
	 * the 64 bits counts (a double would round 9007199254740993) */
	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		return cli_bad(opt, s, why);
	for (const char *p = s; *p != '\0'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (*p < '0' || *p > '9')
			return cli_bad(opt, s, why);
		if (v > (UINT64_MAX - d) / 10)
			return cli_bad(opt, s, "too large");
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int cli_u32(const char *opt, const char *s, uint32_t *out)
{
	uint64_t v;

	if (cli_count(opt, s, &v) != 0)
		return -1;
	if (v > UINT32_MAX)
		return cli_bad(opt, s, "too large");
	*out = (uint32_t)v;
	return 0;
}

int cli_real(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(d >= lo && d <= hi)) {
		char why[96];

		snprintf(why, sizeof(why), "expected a number in [%g, %g]", lo, hi);
		return cli_bad(opt, s, why);
	}
	*out = d;
	return 0;
}

int cli_duration(const char *opt, const char *s, uint64_t *out_ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno != 0 || end == s || !(d >= 0))
		return cli_bad(opt, s, "expected a duration such as 50us, 10ms or 1s");
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0) {
			double ns = d * units[i].ns;

			if (ns > 1e18)
				return cli_bad(opt, s, "too large");
			*out_ns = (uint64_t)llround(ns);
			return 0;
		}
	return cli_bad(opt, s, *end ? "unknown unit (use ns, us, ms or s)"
				    : "needs a unit: ns, us, ms or s");
}

int cli_choice(const char *opt, const char *s, const char *const *names, int *out)
{
	char why[160] = "expected ";
	int n = 0;

	for (; names[n] != NULL; n++)
		if (strcmp(s, names[n]) == 0) {
			*out = n;
			return 0;
		}
	for (int i = 0; i < n; i++)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s",
			 i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
	return cli_bad(opt, s, why);
}

int cli_seconds(const char *opt, const char *s, double lo, double hi, double *out)
{
	size_t n = strlen(s);
	uint64_t ns;
	char why[96];

	if (n == 0 || (s[n - 1] >= '0' && s[n - 1] <= '9') || s[n - 1] == '.')
		return cli_real(opt, s, lo, hi, out);
	if (cli_duration(opt, s, &ns) != 0)
		return -1;
	if (ns / 1e9 < lo || ns / 1e9 > hi) {
		snprintf(why, sizeof(why), "expected %g s to %g s", lo, hi);
		return cli_bad(opt, s, why);
	}
	*out = ns / 1e9;
	return 0;
}

const char *cli_param_option(const char *msg)
{
	static const struct {
		const char *field, *opt;
	} map[] = {
		{"memory_bytes", "--memory"}, {"target_fpr", "--fpr"}, {"k", "--k"},
		{"sbf_max", "--max"}, {"sbf_p", "--p"}, {"rsbf_pstar", "--pstar"},
		{"qht_b", "--b"}, {"qht_f", "--f"}, {"fpbuf_q", "--q"},
		{"expected_n", "--expected-n"}, {"window", "--window"},
		{"equal_timers", "--equal-timers"}, {"window_mode", "--window-mode"},
		{"type", "--filter"},
	};
	size_t n = strcspn(msg, ":");

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strlen(map[i].field) == n && strncmp(msg, map[i].field, n) == 0)
			return map[i].opt;
	return "--filter";
}

const char *cli_filter_names(void)
{
	static char names[256];

	if (names[0] == '\0')
		for (unsigned i = 0; i < PD_FILTER_COUNT; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? " " : "", pd_filter_type_name((enum pd_filter_type)i));
	return names;
}

const char *cli_wrap(const char *words, unsigned col, unsigned indent, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	words += strspn(words, " ");
	while (*words != '\0' && o < len) {
		int w = (int)strcspn(words, " ");
		int n;

		if (o > 0 && col + 1 + (unsigned)w > 80) {
			n = snprintf(buf + o, len - o, "\n%*s%.*s", (int)indent, "", w, words);
			col = indent + (unsigned)w;
		} else {
			n = snprintf(buf + o, len - o, "%s%.*s", o > 0 ? " " : "", w, words);
			col += (o > 0) + (unsigned)w;
		}
		o += (size_t)n; /* past len: cut there (snprintf ended it) */
		words += w;
		words += strspn(words, " ");
	}
	return buf;
}

/* "a, b or c": the filters with every capability in @p caps (PD_FILTER_CAN_*). */
const char *cli_filter_list(unsigned caps, char *buf, size_t len)
{
	unsigned n = 0, k = 0;

	for (unsigned i = 0; i < PD_FILTER_COUNT; i++)
		n += (pd_filter_type_caps((enum pd_filter_type)i) & caps) == caps;
	buf[0] = '\0';
	for (unsigned i = 0; i < PD_FILTER_COUNT; i++)
		if ((pd_filter_type_caps((enum pd_filter_type)i) & caps) == caps) {
			k++;
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
				 k == 1 ? "" : k == n ? " or " : ", ",
				 pd_filter_type_name((enum pd_filter_type)i));
		}
	return buf;
}

static const struct {
	const char *name;
	uint32_t flag;
} ignore_fields[] = {{"ttl", PD_IGNORE_TTL},	 {"checksum", PD_IGNORE_CHECKSUM},
		     {"dscp", PD_IGNORE_DSCP},	 {"ipid", PD_IGNORE_IPID},
		     {"mac", PD_IGNORE_MAC},	 {"vlan", PD_IGNORE_VLAN},
		     {"tcp-seq", PD_IGNORE_TCP_SEQ}, {"none", 0}};

#define IGNORE_EXPECTED "expected a list among ttl,checksum,dscp,ipid,mac,vlan,tcp-seq or none"

static int cli_ignore(const char *opt, const char *s, uint32_t *out)
{
	const char *p = s;
	uint32_t v = 0;
	unsigned items = 0, none = 0;

	for (;;) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < sizeof(ignore_fields) / sizeof(ignore_fields[0]); i++)
			if (strlen(ignore_fields[i].name) == n &&
			    strncmp(p, ignore_fields[i].name, n) == 0)
				break;
		if (n == 0 || i == sizeof(ignore_fields) / sizeof(ignore_fields[0]))
			return cli_bad(opt, s, IGNORE_EXPECTED); /* also an empty item: "ttl," */
		v |= ignore_fields[i].flag;
		none |= ignore_fields[i].flag == 0;
		items++;
		p += n;
		if (*p == '\0')
			break;
		p++; /* the comma */
	}
	if (none && items > 1)
		return cli_bad(opt, s, "none leaves nothing out: give it alone");
	*out = v;
	return 0;
}

/* --decap: none, auto, or a comma-separated list of pd_key_decap_name()s. */
static int cli_decap(const char *opt, const char *s, uint32_t *out)
{
	static const char expected[] =
		"expected none, auto, or a comma-separated list of vxlan, geneve, gre, erspan, "
		"mpls, gtpu";
	const char *p = s;
	uint32_t v = 0;

	if (strcmp(s, "none") == 0 || strcmp(s, "auto") == 0) {
		*out = s[0] == 'a' ? PD_DECAP_ALL : 0;
		return 0;
	}
	for (;;) {
		const size_t n = strcspn(p, ",");
		unsigned i;

		for (i = 0; pd_key_decap_name(i) != NULL; i++)
			if (strlen(pd_key_decap_name(i)) == n &&
			    strncmp(p, pd_key_decap_name(i), n) == 0)
				break;
		if (n == 0 || pd_key_decap_name(i) == NULL)
			return cli_bad(opt, s, expected);
		v |= 1u << i;
		p += n;
		if (*p == '\0')
			break;
		p++;
	}
	*out = v;
	return 0;
}

/* The --decap list as given to cli_decap ("none", "auto" or the names). */
static void decap_describe(uint32_t decap, char *buf, size_t len)
{
	snprintf(buf, len, "%s", decap == 0 ? "none" : decap == PD_DECAP_ALL ? "auto" : "");
	for (unsigned i = 0; decap != 0 && decap != PD_DECAP_ALL && pd_key_decap_name(i); i++)
		if (decap & (1u << i))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "",
				 pd_key_decap_name(i));
}

int cli_filter_option(int opt, const char *a, struct pd_filter_params *p)
{
	switch (opt) {
	case CLI_O_MEMORY:
		if (cli_size("--memory", a, &p->memory_bytes) != 0)
			return -1;
		return p->memory_bytes < 4096 ? cli_bad("--memory", a, "at least 4K") : 0;
	case CLI_O_FPR: return cli_real("--fpr", a, 1e-300, 0.999999, &p->target_fpr);
	case CLI_O_SEED: return cli_count("--seed", a, &p->seed);
	case CLI_O_K: return cli_u32("--k", a, &p->k);
	case CLI_O_MAX: return cli_u32("--max", a, &p->sbf_max);
	case CLI_O_P: return cli_u32("--p", a, &p->sbf_p);
	case CLI_O_PSTAR: return cli_real("--pstar", a, 1e-12, 1.0, &p->rsbf_pstar);
	case CLI_O_B: return cli_u32("--b", a, &p->qht_b);
	case CLI_O_F: return cli_u32("--f", a, &p->qht_f);
	case CLI_O_Q: return cli_real("--q", a, 0.0, 1.0, &p->fpbuf_q);
	case CLI_O_EXPN: return cli_count("--expected-n", a, &p->expected_n);
	default: return cli_bad("(internal)", a, "not a filter option");
	}
}

int cli_key_option(int opt, const char *a, struct pd_key_config *k, struct cli_key_given *g)
{
	const char *prev = g->value[opt - CLI_O_KEY];
	int m;

	g->value[opt - CLI_O_KEY] = a;
	if (prev != NULL && (opt == CLI_O_IGNORE || opt == CLI_O_DECAP)) {
		/* a list given twice: the second would replace the first, and copies that
		 * differ in a field the user listed first would pass as unique */
		char why[160];

		snprintf(why, sizeof(why), "given twice (first %s): list every item in one %s"
			 " (a,b)", prev, opt == CLI_O_IGNORE ? "--ignore" : "--decap");
		return cli_bad(opt == CLI_O_IGNORE ? "--ignore" : "--decap", a, why);
	}
	switch (opt) {
	case CLI_O_KEY:
		m = pd_key_mode_from_name(a);
		if (m < 0)
			return cli_bad("--key", a, "expected flow, srcip, click or packet");
		k->mode = (enum pd_key_mode)m;
		return 0;
	case CLI_O_CLICK_PARAM:
		if (a[0] == '\0' || strlen(a) > PD_KEY_PARAM_MAX || strpbrk(a, "&=? ") != NULL)
			return cli_bad("--click-param", a,
				       "a name of 1 to 63 characters without & = ? or space");
		strcpy(k->click_param, a);
		return 0;
	case CLI_O_IGNORE:
		return cli_ignore("--ignore", a, &k->ignore);
	case CLI_O_COMPARE_FROM:
		if (cli_choice("--compare-from", a, (const char *const[]){"l3", "l2", "l4", NULL},
			       &m) != 0)
			return -1;
		k->from = m == 0 ? PD_FROM_L3 : m == 1 ? PD_FROM_L2 : PD_FROM_L4;
		return 0;
	case CLI_O_FRAG:
		if (cli_choice("--frag", a, (const char *const[]){"unparseable", "l3", NULL}, &m) != 0)
			return -1;
		k->frag = m == 1 ? PD_FRAG_L3 : PD_FRAG_UNPARSEABLE;
		return 0;
	case CLI_O_COMPARE_BYTES: {
		uint32_t n;

		if (cli_u32("--compare-bytes", a, &n) != 0)
			return -1;
		if (n == 0)
			return cli_bad("--compare-bytes", a, "must be at least 1");
		k->compare_bytes = n;
		return 0;
	}
	case CLI_O_VLAN_MODE:
		if (cli_choice("--vlan-mode", a, (const char *const[]){"ignore", "separate", NULL},
			       &m) != 0)
			return -1;
		k->vlan = m == 0 ? PD_VLAN_IGNORE : PD_VLAN_SEPARATE;
		return 0;
	case CLI_O_DECAP:
		return cli_decap("--decap", a, &k->decap);
	case CLI_O_VXLAN_PORT: {
		uint32_t port;

		if (cli_u32("--vxlan-port", a, &port) != 0)
			return -1;
		if (port == 0 || port > 65535)
			return cli_bad("--vxlan-port", a, "a UDP port from 1 to 65535");
		k->vxlan_port = (uint16_t)port;
		return 0;
	}
	default:
		return cli_bad("(internal)", a, "not a key option");
	}
}

int cli_key_check(const struct pd_key_config *k, const struct cli_key_given *g)
{
	static const struct {
		int opt;
		const char *name;
		enum pd_key_mode mode;
	} needs[] = {
		{CLI_O_CLICK_PARAM, "--click-param", PD_KEY_CLICK},
		{CLI_O_IGNORE, "--ignore", PD_KEY_PACKET},
		{CLI_O_COMPARE_FROM, "--compare-from", PD_KEY_PACKET},
		{CLI_O_COMPARE_BYTES, "--compare-bytes", PD_KEY_PACKET},
		{CLI_O_FRAG, "--frag", PD_KEY_FLOW},
	};
	const char *ign = g->value[CLI_O_IGNORE - CLI_O_KEY];

	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++) {
		const char *v = g->value[needs[i].opt - CLI_O_KEY];
		char why[32];

		if (v != NULL && k->mode != needs[i].mode) {
			snprintf(why, sizeof(why), "needs --key %s", pd_key_mode_name(needs[i].mode));
			return cli_bad(needs[i].name, v, why);
		}
	}
	if ((k->ignore & PD_IGNORE_VLAN) && k->vlan == PD_VLAN_SEPARATE)
		return cli_bad("--ignore", ign, "vlan contradicts --vlan-mode separate");
	if ((k->ignore & PD_IGNORE_MAC) && k->from != PD_FROM_L2)
		return cli_bad("--ignore", ign, "mac needs --compare-from l2 (only L2 keys hold MACs)");
	if (g->value[CLI_O_VXLAN_PORT - CLI_O_KEY] != NULL && !(k->decap & PD_DECAP_VXLAN))
		return cli_bad("--vxlan-port", g->value[CLI_O_VXLAN_PORT - CLI_O_KEY],
			       "needs --decap auto or a list with vxlan");
	return 0;
}

void cli_key_describe(const struct pd_key_config *k, char *buf, size_t len)
{
	char ignore[96] = "";

	for (size_t i = 0; i + 1 < sizeof(ignore_fields) / sizeof(ignore_fields[0]); i++)
		if (k->ignore & ignore_fields[i].flag)
			snprintf(ignore + strlen(ignore), sizeof(ignore) - strlen(ignore), "%s%s",
				 ignore[0] ? "," : "", ignore_fields[i].name);
	snprintf(buf, len,
		 "key %s; ignore %s; compare-from %s; compare-bytes %u; vlan-mode %s; frag %s; "
		 "click-param '%s'",
		 pd_key_mode_name(k->mode), ignore[0] ? ignore : "none",
		 k->from == PD_FROM_L2 ? "l2" : k->from == PD_FROM_L4 ? "l4" : "l3",
		 k->compare_bytes,
		 k->vlan == PD_VLAN_SEPARATE ? "separate" :
		 k->vlan == PD_VLAN_IGNORE || (k->ignore & PD_IGNORE_VLAN) || k->from != PD_FROM_L2 ?
					       "ignore" : "separate",
		 k->frag == PD_FRAG_L3 ? "l3" : "unparseable", k->click_param);
	if (k->decap != 0) { /* said only when on: tags of runs without it stay as they were */
		char d[64];

		decap_describe(k->decap, d, sizeof(d));
		snprintf(buf + strlen(buf), len - strlen(buf), "; decap %s; vxlan-port %u", d,
			 k->vxlan_port);
	}
}

const char cli_key_help[] =
	"  --key MODE           what makes two packets copies of each other:\n"
	"                       packet (default): the same IP packet, fields a router\n"
	"                         changes masked: only true copies are dropped\n"
	"                       flow: the same 5-tuple: keeps the FIRST packet of each\n"
	"                         connection and drops the rest of it\n"
	"                       srcip: the same source address: keeps one packet per\n"
	"                         sender (click-fraud filtering)\n"
	"                       click: the same source and HTTP request (or parameter)\n"
	"  --click-param NAME   click: key on this query parameter's value instead of the\n"
	"                       method and request target\n"
	"  --ignore LIST        packet: fields left out, comma-separated among ttl,\n"
	"                       checksum, dscp, ipid (IP header), mac (with\n"
	"                       --compare-from l2), vlan (= --vlan-mode ignore), tcp-seq\n"
	"                       (TCP sequence, ack and checksum), or none (default\n"
	"                       ttl,checksum)\n"
	"  --compare-from L     packet: l3 (default: the IP packet), l2 (the whole frame,\n"
	"                       MACs and tags included) or l4 (the IP payload: addresses\n"
	"                       left out)\n"
	"  --compare-bytes N    packet: compare only the first N bytes from that layer;\n"
	"                       frames a capture's snap length cut have a packet key only\n"
	"                       so, when they hold those N bytes\n"
	"  --vlan-mode M        ignore: copies on different VLANs are the same packet;\n"
	"                       separate: they are not (VLAN IDs join the key). Default\n"
	"                       ignore, except --compare-from l2 where tags are frame\n"
	"                       bytes\n"
	"  --frag POLICY        flow: non-first fragments unparseable (default) or l3\n"
	"  --decap LIST         tunnels to open before keying, every mode then keys the\n"
	"                       innermost packet: none (default: on an overlay link one\n"
	"                       packet sent to two tunnel endpoints is two deliveries),\n"
	"                       auto (all), or a list of vxlan, geneve, gre, erspan,\n"
	"                       mpls, gtpu (docs/keys.md, \"Tunnels\")\n"
	"  --vxlan-port N       VXLAN's UDP port (default 4789)\n";
