/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet keys against the fixtures in pcap/: every frame of every pcap, read through
 * libpcap, must give the key or the reason that scripts/gen_fixtures.py computed with
 * scapy. Then robustness: every prefix of every frame, and random corruptions, in every
 * mode, with buffers of exactly the documented size (run under ASan to catch a read or
 * write one byte out). Every prefix is also given as a capture cut short (its frame's
 * length on the wire): its key, when it has one, must be the whole frame's.
 */
#include <dirent.h>
#include <pcap/pcap.h>
#include <stdio.h>

#include <pktdedup/pd_key.h>

#include "key_private.h"
#include "../app/pktdedup/mark.h"
#include "testutil.h"

#ifndef PD_PCAP_DIR
#error "PD_PCAP_DIR must name the fixture directory"
#endif

struct frames {
	uint8_t **p;
	size_t *len;
	size_t *wire; /* the length on the wire (pcap's len; a snap length cut it) */
	size_t n;
};

static struct frames read_pcap(const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, errbuf);
	struct frames fr = {0};
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;

	if (pc == NULL)
		fail_msg("%s: %s", path, errbuf);
	assert_int_equal(pcap_datalink(pc), DLT_EN10MB);
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		fr.p = realloc(fr.p, (fr.n + 1) * sizeof(*fr.p));
		fr.len = realloc(fr.len, (fr.n + 1) * sizeof(*fr.len));
		fr.wire = realloc(fr.wire, (fr.n + 1) * sizeof(*fr.wire));
		assert_non_null(fr.p);
		assert_non_null(fr.len);
		assert_non_null(fr.wire);
		/* exactly caplen bytes: ASan sees any read past the frame */
		fr.p[fr.n] = malloc(h->caplen ? h->caplen : 1);
		assert_non_null(fr.p[fr.n]);
		memcpy(fr.p[fr.n], data, h->caplen);
		fr.len[fr.n] = h->caplen;
		fr.wire[fr.n] = h->len;
		fr.n++;
	}
	if (rc != PCAP_ERROR_BREAK)
		fail_msg("%s: %s", path, pcap_geterr(pc));
	pcap_close(pc);
	return fr;
}

static void free_frames(struct frames *fr)
{
	for (size_t i = 0; i < fr->n; i++)
		free(fr->p[i]);
	free(fr->p);
	free(fr->len);
	free(fr->wire);
}

/* "mode=click param=id ignore=ttl,dscp from=l2 frag=l3" */
static void parse_config(const char *line, struct pd_key_config *c)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%.255s", line);
	pd_key_config_init(c, PD_KEY_FLOW);
	for (char *tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		char *eq = strchr(tok, '='), *v;

		assert_non_null(eq);
		*eq = '\0';
		v = eq + 1;
		if (strcmp(tok, "mode") == 0) {
			int m = pd_key_mode_from_name(v);

			assert_true(m >= 0);
			c->mode = (enum pd_key_mode)m;
		} else if (strcmp(tok, "frag") == 0) {
			c->frag = strcmp(v, "l3") == 0 ? PD_FRAG_L3 : PD_FRAG_UNPARSEABLE;
		} else if (strcmp(tok, "param") == 0) {
			snprintf(c->click_param, sizeof(c->click_param), "%s", v);
		} else if (strcmp(tok, "from") == 0) {
			c->from = strcmp(v, "l2") == 0 ? PD_FROM_L2 :
				  strcmp(v, "l4") == 0 ? PD_FROM_L4 :
							 PD_FROM_L3;
		} else if (strcmp(tok, "bytes") == 0) {
			c->compare_bytes = (uint32_t)strtoul(v, NULL, 10);
		} else if (strcmp(tok, "vlan") == 0) {
			c->vlan = strcmp(v, "separate") == 0 ? PD_VLAN_SEPARATE : PD_VLAN_IGNORE;
		} else if (strcmp(tok, "ignore") == 0) {
			c->ignore = 0;
			c->ignore |= strstr(v, "ttl") ? PD_IGNORE_TTL : 0;
			c->ignore |= strstr(v, "checksum") ? PD_IGNORE_CHECKSUM : 0;
			c->ignore |= strstr(v, "dscp") ? PD_IGNORE_DSCP : 0;
			c->ignore |= strstr(v, "ipid") ? PD_IGNORE_IPID : 0;
			c->ignore |= strstr(v, "mac") ? PD_IGNORE_MAC : 0;
			c->ignore |= strstr(v, "vlan") ? PD_IGNORE_VLAN : 0;
			c->ignore |= strstr(v, "tcp-seq") ? PD_IGNORE_TCP_SEQ : 0;
		} else {
			fail_msg("unknown config field %s", tok);
		}
	}
}

static void to_hex(const uint8_t *k, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", k[i]);
	out[2 * n] = '\0';
}

/* flow keys of frames of the flow fast path's shape (TCP or UDP over IPv4 or IPv6, at
 * most one 802.1Q tag) and packet keys of the packet fast path's (from L3, IPv4 without
 * options or IPv6), counted from their bytes: the comparison below covers them */
static unsigned long fast_frames, fast_packet_frames;

/* pd_key_extract_cut (a frame of len bytes of wire on the wire) into a new buffer;
 * every call also checks that the general parse (pd_key_extract_general_cut, without
 * the fast paths for common flow and packet keys) gives the same reason and key, and for
 * a whole frame that pd_key_extract_ip and pd_key_extract do. */
static enum pd_key_reason extract_cut(const struct pd_key_config *c, const uint8_t *f,
				      size_t len, size_t wire, uint8_t **key, size_t *klen)
{
	size_t cap = PD_KEY_BUF_LEN(len), glen = (size_t)-1, wlen = (size_t)-1;
	uint8_t *g = malloc(cap);
	enum pd_key_reason r, rg;
	struct pd_key_ip ip, gip;

	*key = malloc(cap);
	assert_non_null(*key);
	assert_non_null(g);
	r = pd_key_extract_cut(c, f, len, wire, *key, cap, klen, &ip);
	if (wire <= len) {
		rg = pd_key_extract_ip(c, f, len, g, cap, &wlen, &gip);
		assert_int_equal(rg, r);
		if (r == PD_KEY_OK) {
			assert_int_equal(wlen, *klen);
			assert_memory_equal(g, *key, wlen);
		}
		wlen = (size_t)-1;
		rg = pd_key_extract(c, f, len, g, cap, &wlen);
		assert_int_equal(rg, r);
		if (r == PD_KEY_OK) {
			assert_int_equal(wlen, *klen);
			assert_memory_equal(g, *key, wlen);
		}
	}
	rg = pd_key_extract_general_cut(c, f, len, wire, g, cap, &glen, &gip);
	if (r != rg)
		fail_msg("%s key of a %zu-byte frame: %s, general parse %s", pd_key_mode_name(c->mode),
			 len, pd_key_reason_name(r), pd_key_reason_name(rg));
	/* where the IP header is: the same by both parses, and one that says its version */
	assert_int_equal(ip.version, gip.version);
	if (ip.version != 0) {
		assert_int_equal(ip.offset, gip.offset);
		assert_true(ip.offset + 20 <= len && f[ip.offset] >> 4 == ip.version);
	}
	if (r == PD_KEY_OK) {
		assert_int_equal(*klen, glen);
		assert_memory_equal(*key, g, glen);
		size_t l3 = len >= 18 && f[12] == 0x81 && f[13] == 0 ? 18 : 14;

		fast_frames += c->mode == PD_KEY_FLOW && len >= l3 + 40 &&
			       ((f[l3 - 2] == 0x08 && f[l3 - 1] == 0 && f[l3] == 0x45 &&
				 (f[l3 + 9] == 6 || f[l3 + 9] == 17)) ||
				(f[l3 - 2] == 0x86 && f[l3 - 1] == 0xdd &&
				 (f[l3 + 6] == 6 || f[l3 + 6] == 17)));
		fast_packet_frames += c->mode == PD_KEY_PACKET && c->from == PD_FROM_L3 &&
				      !(c->ignore & PD_IGNORE_TCP_SEQ) && len >= 38 &&
				      ((f[l3 - 2] == 0x08 && f[l3 - 1] == 0 && f[l3] == 0x45) ||
				       (f[l3 - 2] == 0x86 && f[l3 - 1] == 0xdd && len >= l3 + 40));
	}
	free(g);
	return r;
}

/* extract_cut() of a whole frame */
static enum pd_key_reason extract(const struct pd_key_config *c, const uint8_t *f,
				  size_t len, uint8_t **key, size_t *klen)
{
	return extract_cut(c, f, len, len, key, klen);
}

/* One expected-keys file: "<pcap base>.<variant>.txt". Returns frames checked. */
static size_t check_key_file(const char *dir, const char *name)
{
	char path[512], pcap_path[512], line[70000], base[256];
	struct pd_key_config c;
	struct frames fr;
	size_t checked = 0;
	FILE *fh;

	snprintf(base, sizeof(base), "%s", name);
	*strchr(base, '.') = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(pcap_path, sizeof(pcap_path), "%s/%s.pcap", dir, base);
	fr = read_pcap(pcap_path);
	fh = fopen(path, "r");
	assert_non_null(fh);
	pd_key_config_init(&c, PD_KEY_FLOW);
	while (fgets(line, sizeof(line), fh) != NULL) {
		char label[64], reason[64], want[66000] = "", got[2 * 70000 + 1];
		unsigned idx;
		uint8_t *key;
		size_t klen = 0;
		enum pd_key_reason r;

		if (strncmp(line, "# config: ", 10) == 0) {
			parse_config(line + 10, &c);
			continue;
		}
		if (line[0] == '#')
			continue;
		assert_true(sscanf(line, "%u %63s %63s %65999s", &idx, label, reason, want) >= 3);
		assert_true(idx < fr.n);
		r = extract_cut(&c, fr.p[idx], fr.len[idx], fr.wire[idx], &key, &klen);
		if (strcmp(pd_key_reason_name(r), reason) != 0)
			fail_msg("%s frame %u (%s): reason %s, expected %s", name, idx, label,
				 pd_key_reason_name(r), reason);
		if (r == PD_KEY_OK) {
			to_hex(key, klen, got);
			if (strcmp(got, want) != 0)
				fail_msg("%s frame %u (%s):\n  key      %s\n  expected %s", name,
					 idx, label, got, want);
			if (c.vlan != PD_VLAN_SEPARATE &&
			    ((c.mode == PD_KEY_FLOW &&
			      klen != (key[0] == 4 ? PD_KEY_FLOW4_LEN : PD_KEY_FLOW_LEN)) ||
			     (c.mode == PD_KEY_SRCIP && klen != PD_KEY_SRCIP_LEN)))
				fail_msg("%s frame %u: fixed-size key of %zu bytes", name, idx, klen);
		}
		free(key);
		checked++;
	}
	fclose(fh);
	assert_int_equal(checked, fr.n); /* one line per frame, none missing */
	free_frames(&fr);
	return checked;
}

static void test_fixtures(void **state)
{
	DIR *d = opendir(PD_PCAP_DIR);
	struct dirent *e;
	unsigned files = 0;
	size_t frames = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);

		if (n < 5 || strcmp(e->d_name + n - 4, ".txt") != 0 || strchr(e->d_name, '.') ==
		    e->d_name + n - 4)
			continue; /* only <pcap>.<variant>.txt */
		frames += check_key_file(PD_PCAP_DIR, e->d_name);
		files++;
	}
	closedir(d);
	printf("%u expected-key files, %zu frames checked\n", files, frames);
	assert_true(files >= 16);
}

/* Copies of one packet at two TAP points (TTL - 1, new checksum, other MACs and VLAN)
 * have one packet key; different packets have different keys; with L2 included the
 * copies differ. */
static void test_mirror_copies(void **state)
{
	struct frames fr = read_pcap(PD_PCAP_DIR "/mirror.pcap");
	struct pd_key_config l3, l2;

	(void)state;
	pd_key_config_init(&l3, PD_KEY_PACKET);
	pd_key_config_init(&l2, PD_KEY_PACKET);
	l2.from = PD_FROM_L2;
	assert_true(fr.n >= 10 && fr.n % 2 == 0);
	for (size_t i = 0; i < fr.n; i += 2) {
		uint8_t *a, *b;
		size_t na, nb;

		assert_int_equal(extract(&l3, fr.p[i], fr.len[i], &a, &na), PD_KEY_OK);
		assert_int_equal(extract(&l3, fr.p[i + 1], fr.len[i + 1], &b, &nb), PD_KEY_OK);
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, na);
		/* the raw frames do differ: TTL and checksum (IPv4) or hop limit */
		assert_true(fr.len[i] != fr.len[i + 1] ||
			    memcmp(fr.p[i], fr.p[i + 1], fr.len[i]) != 0);
		for (size_t j = i + 2; j < fr.n; j += 2) {
			uint8_t *o;
			size_t no;

			assert_int_equal(extract(&l3, fr.p[j], fr.len[j], &o, &no), PD_KEY_OK);
			assert_false(no == na && memcmp(o, a, na) == 0);
			free(o);
		}
		free(a);
		free(b);
		assert_int_equal(extract(&l2, fr.p[i], fr.len[i], &a, &na), PD_KEY_OK);
		assert_int_equal(extract(&l2, fr.p[i + 1], fr.len[i + 1], &b, &nb), PD_KEY_OK);
		assert_false(na == nb && memcmp(a, b, na) == 0);
		free(a);
		free(b);
	}
	free_frames(&fr);
}

static void all_configs(struct pd_key_config *cfg, unsigned *n)
{
	unsigned k = 0;

	for (int m = 0; m < PD_KEY_MODE_COUNT; m++) {
		pd_key_config_init(&cfg[k++], (enum pd_key_mode)m);
	}
	pd_key_config_init(&cfg[k], PD_KEY_FLOW);
	cfg[k++].frag = PD_FRAG_L3;
	pd_key_config_init(&cfg[k], PD_KEY_CLICK);
	snprintf(cfg[k++].click_param, sizeof(cfg[0].click_param), "id");
	pd_key_config_init(&cfg[k], PD_KEY_PACKET);
	cfg[k].from = PD_FROM_L2;
	cfg[k++].ignore = PD_IGNORE_TTL | PD_IGNORE_CHECKSUM | PD_IGNORE_DSCP | PD_IGNORE_IPID;
	/* TCP's sequence numbers zeroed, and the first 30 bytes compared: a frame cut
	 * inside the TCP header holds them, but not the fields to zero */
	pd_key_config_init(&cfg[k], PD_KEY_PACKET);
	cfg[k].ignore |= PD_IGNORE_TCP_SEQ;
	cfg[k++].compare_bytes = 30;
	*n = k;
}

/* A key, when there is one, fits the buffer and has the documented size. */
static void check_one(const struct pd_key_config *c, const uint8_t *f, size_t len)
{
	uint8_t *frame = malloc(len ? len : 1), *key;
	size_t klen = (size_t)-1;
	enum pd_key_reason r;

	assert_non_null(frame);
	memcpy(frame, f, len);
	r = extract(c, frame, len, &key, &klen);
	assert_true((unsigned)r < PD_KEY_REASON_COUNT);
	if (r == PD_KEY_OK) {
		assert_true(klen <= PD_KEY_BUF_LEN(len));
		if (c->mode == PD_KEY_FLOW)
			assert_int_equal(klen, key[0] == 4 ? PD_KEY_FLOW4_LEN : PD_KEY_FLOW_LEN);
		if (c->mode == PD_KEY_SRCIP)
			assert_int_equal(klen, PD_KEY_SRCIP_LEN);
	} else {
		assert_int_equal(klen, (size_t)-1); /* untouched when there is no key */
	}
	free(key);
	free(frame);
}

/* The first len bytes of a frame of whole bytes, as a capture cut at a snap length
 * gives them: a key, when there is one, is the whole frame's (a cut key that stood for
 * other packets too would make their copies of a unique one). Returns 1 when keyed. */
static int check_cut(const struct pd_key_config *c, const uint8_t *f, size_t len,
		     size_t whole)
{
	uint8_t *frame = malloc(len ? len : 1), *key, *wkey;
	size_t klen = (size_t)-1, wlen = (size_t)-1;
	enum pd_key_reason r, rw;

	assert_non_null(frame);
	memcpy(frame, f, len);
	r = extract_cut(c, frame, len, whole, &key, &klen);
	rw = extract(c, f, whole, &wkey, &wlen);
	if (r == PD_KEY_OK && (rw != PD_KEY_OK || klen != wlen || memcmp(key, wkey, klen) != 0))
		fail_msg("%s key of the first %zu bytes of a %zu-byte frame (%s): not the whole"
			 " frame's (%s)", pd_key_mode_name(c->mode), len, whole,
			 c->compare_bytes ? "compare_bytes" : "all bytes", pd_key_reason_name(rw));
	free(key);
	free(wkey);
	free(frame);
	return r == PD_KEY_OK;
}

static void test_every_prefix_and_corruption(void **state)
{
	struct frames fr = read_pcap(PD_PCAP_DIR "/keys.pcap");
	struct pd_key_config cfg[16];
	unsigned ncfg;
	uint64_t seed = 42, runs = 0, cut_keyed[PD_KEY_MODE_COUNT] = {0};

	(void)state;
	all_configs(cfg, &ncfg);
	for (size_t i = 0; i < fr.n; i++)
		for (unsigned c = 0; c < ncfg; c++) {
			for (size_t len = 0; len <= fr.len[i]; len++, runs++) {
				check_one(&cfg[c], fr.p[i], len);
				if (len < fr.len[i])
					cut_keyed[cfg[c].mode] +=
						check_cut(&cfg[c], fr.p[i], len, fr.len[i]);
			}
			for (unsigned t = 0; t < 200 && fr.len[i] > 0; t++, runs++) {
				uint8_t *m = malloc(fr.len[i]);

				memcpy(m, fr.p[i], fr.len[i]);
				for (unsigned flips = 1 + (unsigned)(tu_splitmix(&seed) % 3); flips; flips--)
					m[tu_splitmix(&seed) % fr.len[i]] = (uint8_t)tu_splitmix(&seed);
				check_one(&cfg[c], m, fr.len[i]);
				free(m);
			}
		}
	printf("%llu extractions of prefixes and corrupted frames; %lu flow keys of TCP or UDP "
	       "over IPv4 or IPv6 and %lu packet keys of IPv4 without options or IPv6, with at"
	       " most one 802.1Q tag, compared with the general parse\n",
	       (unsigned long long)runs, fast_frames, fast_packet_frames);
	/* the fast paths' frames are well covered */
	assert_true(fast_frames >= 1000);
	assert_true(fast_packet_frames >= 1000);
	/* cut frames keyed: flow and source keys from headers, packet keys from their
	 * compare_bytes or past the IP length (padding), clicks whose target was whole */
	printf("cut frames keyed: flow %llu, srcip %llu, click %llu, packet %llu\n",
	       (unsigned long long)cut_keyed[PD_KEY_FLOW],
	       (unsigned long long)cut_keyed[PD_KEY_SRCIP],
	       (unsigned long long)cut_keyed[PD_KEY_CLICK],
	       (unsigned long long)cut_keyed[PD_KEY_PACKET]);
	for (int m = 0; m < PD_KEY_MODE_COUNT; m++)
		assert_true(cut_keyed[m] > 0);
	free_frames(&fr);
}

/*
 * Tunnels opened (--decap auto) on pcap/tunnels.pcap (scapy's VXLAN, Geneve, GRE,
 * ERSPAN, MPLS and GTP-U copies of six packets): every prefix and corrupted copy of every
 * frame, in every configuration, through the fast paths and the general parse alike
 * (check_one); then the copies of each packet give its plain frame's key, and without
 * --decap they do not.
 */
static void test_tunnels(void **state)
{
	struct frames fr = read_pcap(PD_PCAP_DIR "/tunnels.pcap");
	struct pd_key_config cfg[16], plain;
	unsigned ncfg, same = 0;
	uint64_t seed = 7;

	(void)state;
	all_configs(cfg, &ncfg);
	for (unsigned c = 0; c < ncfg; c++)
		cfg[c].decap = PD_DECAP_ALL;
	for (size_t i = 0; i < fr.n; i++)
		for (unsigned c = 0; c < ncfg; c++) {
			for (size_t len = 0; len <= fr.len[i]; len++) {
				check_one(&cfg[c], fr.p[i], len);
				if (len < fr.len[i])
					(void)check_cut(&cfg[c], fr.p[i], len, fr.len[i]);
			}
			for (unsigned t = 0; t < 50; t++) {
				uint8_t *m = malloc(fr.len[i]);

				memcpy(m, fr.p[i], fr.len[i]);
				m[tu_splitmix(&seed) % fr.len[i]] = (uint8_t)tu_splitmix(&seed);
				check_one(&cfg[c], m, fr.len[i]);
				free(m);
			}
		}
	/* the capture's first frame is packet 2 plain, the second its copy in VXLAN */
	pd_key_config_init(&plain, PD_KEY_FLOW);
	for (unsigned d = 0; d < 2; d++) {
		uint8_t *k0, *k1;
		size_t l0, l1;

		plain.decap = d ? PD_DECAP_ALL : 0;
		assert_int_equal(extract(&plain, fr.p[0], fr.len[0], &k0, &l0), PD_KEY_OK);
		assert_int_equal(extract(&plain, fr.p[1], fr.len[1], &k1, &l1), PD_KEY_OK);
		same += l0 == l1 && memcmp(k0, k1, l0) == 0;
		assert_int_equal(l0 == l1 && memcmp(k0, k1, l0) == 0, d);
		free(k0);
		free(k1);
	}
	assert_int_equal(same, 1);
	free_frames(&fr);
}

/*
 * A tunnel behind an IPv6 extension header: Ethernet, IPv6 with 8 bytes of hop-by-hop
 * options, UDP to VXLAN's port, VXLAN, then an inner Ethernet frame of IPv4 and UDP
 * with 16 bytes of payload.
 * With every tunnel opened, a cut inside the extension chain or the UDP header leaves
 * the tunnel unseen: no key of the outer packet then, in any mode (check_cut: a key of
 * a cut frame is the whole frame's), and the whole frame's keys are the inner packet's.
 */
static void test_cut_tunnel_behind_ext(void **state)
{
	uint8_t f[14 + 40 + 8 + 8 + 8 + 14 + 20 + 8 + 16] = {0};
	struct pd_key_config cfg[16], srcip;
	unsigned ncfg, keyed = 0;
	uint8_t *k;
	size_t kl, o;

	(void)state;
	f[12] = 0x86, f[13] = 0xdd;
	f[14] = 0x60;
	f[14 + 5] = 8 + 8 + 8 + 14 + 20 + 8 + 16; /* payload length */
	f[14 + 6] = 0, f[14 + 7] = 64;        /* hop-by-hop, hop limit */
	f[14 + 8 + 15] = 1, f[14 + 24 + 15] = 2;
	o = 54;
	f[o] = 17; /* hop-by-hop: next header UDP, length 0 (8 bytes), PadN */
	f[o + 2] = 1, f[o + 3] = 4;
	o += 8;
	f[o + 1] = 7, f[o + 2] = 0x12, f[o + 3] = 0xb5; /* UDP 7 -> 4789 */
	f[o + 5] = 8 + 8 + 14 + 20 + 8 + 16;
	o += 8;
	f[o] = 0x08; /* VXLAN, I flag */
	o += 8;
	f[o + 12] = 0x08; /* inner Ethernet: IPv4 */
	o += 14;
	f[o] = 0x45, f[o + 3] = 28 + 16, f[o + 8] = 64, f[o + 9] = 17;
	f[o + 12] = 10, f[o + 15] = 1, f[o + 16] = 10, f[o + 19] = 2; /* 10.0.0.1 -> 10.0.0.2 */
	f[o + 21] = 9, f[o + 23] = 10, f[o + 25] = 8 + 16;
	pd_key_config_init(&srcip, PD_KEY_SRCIP);
	srcip.decap = PD_DECAP_ALL;
	assert_int_equal(extract(&srcip, f, sizeof(f), &k, &kl), PD_KEY_OK);
	assert_int_equal(k[0], 4); /* the inner IPv4 source, not the outer IPv6 one */
	assert_int_equal(k[4], 10);
	free(k);
	all_configs(cfg, &ncfg);
	for (unsigned c = 0; c < ncfg; c++) {
		cfg[c].decap = PD_DECAP_ALL;
		for (size_t len = 0; len < sizeof(f); len++)
			keyed += check_cut(&cfg[c], f, len, sizeof(f));
	}
	assert_true(keyed > 0); /* cuts in the inner payload keep their flow and source keys */
}

/*
 * Frames whose bytes do not say where their packet ends: an IPv6 jumbogram (payload
 * length 0: the packet ends with the frame) and ARP. Whole, the packet key is every
 * byte; the first 60 of 80 (a snap length) have no packet key, unless the 30 bytes
 * compared are in hand; the flow key, from headers, is the same either way.
 */
static void test_cut_without_length(void **state)
{
	uint8_t jumbo[80] = {0}, arp[80] = {0}, *k, *w;
	struct pd_key_config packet, bytes30, bytes50, flow;
	size_t kl, wl;

	(void)state;
	jumbo[12] = 0x86, jumbo[13] = 0xdd;
	jumbo[14] = 0x60; /* version 6, payload length 0 */
	jumbo[14 + 6] = 17, jumbo[14 + 7] = 64; /* UDP, hop limit */
	jumbo[14 + 8 + 15] = 1, jumbo[14 + 24 + 15] = 2; /* ::1 -> ::2 */
	jumbo[54] = 0x04, jumbo[55] = 0xd2, jumbo[56] = 0x16, jumbo[57] = 0x2e; /* 1234 -> 5678 */
	for (size_t i = 62; i < sizeof(jumbo); i++)
		jumbo[i] = (uint8_t)i;
	arp[12] = 0x08, arp[13] = 0x06;
	for (size_t i = 14; i < sizeof(arp); i++)
		arp[i] = (uint8_t)(i * 7);
	pd_key_config_init(&packet, PD_KEY_PACKET);
	bytes30 = packet;
	bytes30.compare_bytes = 30;
	bytes50 = packet;
	bytes50.compare_bytes = 50;
	pd_key_config_init(&flow, PD_KEY_FLOW);

	/* whole: the packet key runs to the frame's end (hop limit zeroed; ARP: its
	 * ethertype, then the rest) */
	assert_int_equal(extract(&packet, jumbo, 80, &w, &wl), PD_KEY_OK);
	assert_int_equal(wl, 80 - 14);
	assert_int_equal(w[7], 0);
	assert_memory_equal(w + 8, jumbo + 22, wl - 8);
	free(w);
	assert_int_equal(extract(&packet, arp, 80, &w, &wl), PD_KEY_OK);
	assert_int_equal(wl, 80 - 12);
	assert_memory_equal(w, arp + 12, wl);
	free(w);
	/* cut: no packet key, but the 30 bytes compared are the whole frame's */
	assert_int_equal(extract_cut(&packet, jumbo, 60, 80, &k, &kl), PD_KEY_TRUNCATED);
	free(k);
	assert_int_equal(extract_cut(&packet, arp, 60, 80, &k, &kl), PD_KEY_TRUNCATED);
	free(k);
	assert_int_equal(extract_cut(&packet, arp, 40, 40, &k, &kl), PD_KEY_OK); /* whole */
	free(k);
	for (int a = 0; a < 2; a++) {
		const uint8_t *f = a ? arp : jumbo;

		assert_int_equal(extract(&bytes30, f, 80, &w, &wl), PD_KEY_OK);
		assert_int_equal(wl, 30);
		assert_int_equal(extract_cut(&bytes30, f, 60, 80, &k, &kl), PD_KEY_OK);
		assert_int_equal(kl, 30);
		assert_memory_equal(k, w, 30);
		free(k);
		free(w);
		/* fewer than the 50 bytes compared in hand (46 and 48) */
		assert_int_equal(extract_cut(&bytes50, f, 60, 80, &k, &kl), PD_KEY_TRUNCATED);
		free(k);
	}
	assert_int_equal(extract(&flow, jumbo, 80, &w, &wl), PD_KEY_OK);
	assert_int_equal(extract_cut(&flow, jumbo, 70, 80, &k, &kl), PD_KEY_OK);
	assert_int_equal(kl, wl);
	assert_memory_equal(k, w, wl);
	assert_int_equal(k[4] << 8 | k[5], 1234);
	free(k);
	free(w);
}

static void test_buffer_and_names(void **state)
{
	uint8_t frame[64] = {0}, key[PD_KEY_BUF_LEN(64)];
	struct pd_key_config c;
	size_t klen;

	(void)state;
	pd_key_config_init(&c, PD_KEY_PACKET);
	assert_int_equal(pd_key_extract(&c, frame, sizeof(frame), key, sizeof(key) - 1, &klen),
			 PD_KEY_BUFFER);
	/* a UDP/IPv4 frame of the fast paths' shape: a buffer one byte short is refused by
	 * every entry point in every mode, and one of the size asked for is enough */
	frame[12] = 0x08;
	frame[14] = 0x45;
	frame[17] = 50; /* IP total length: the frame's 64 bytes less Ethernet's 14 */
	frame[23] = 17;
	frame[39] = 30; /* UDP length */
	for (int m = 0; m < PD_KEY_MODE_COUNT; m++) {
		struct pd_key_ip ip;

		pd_key_config_init(&c, (enum pd_key_mode)m);
		assert_int_equal(pd_key_extract(&c, frame, sizeof(frame), key, sizeof(key) - 1,
						&klen),
				 PD_KEY_BUFFER);
		assert_int_equal(pd_key_extract_ip(&c, frame, sizeof(frame), key,
						   sizeof(key) - 1, &klen, &ip),
				 PD_KEY_BUFFER);
		assert_int_equal(pd_key_extract_cut(&c, frame, sizeof(frame), sizeof(frame), key,
						    sizeof(key) - 1, &klen, &ip),
				 PD_KEY_BUFFER);
		if (m == PD_KEY_FLOW || m == PD_KEY_PACKET || m == PD_KEY_SRCIP)
			assert_int_equal(pd_key_extract(&c, frame, sizeof(frame), key, sizeof(key),
							&klen),
					 PD_KEY_OK);
	}
	for (int m = 0; m < PD_KEY_MODE_COUNT; m++)
		assert_int_equal(pd_key_mode_from_name(pd_key_mode_name((enum pd_key_mode)m)), m);
	assert_int_equal(pd_key_mode_from_name("bogus"), -1);
	assert_null(pd_key_mode_name(PD_KEY_MODE_COUNT));
	for (int a = 0; a < PD_KEY_REASON_COUNT; a++) {
		assert_true(strlen(pd_key_reason_message((enum pd_key_reason)a)) > 0);
		for (int b = a + 1; b < PD_KEY_REASON_COUNT; b++)
			assert_string_not_equal(pd_key_reason_name((enum pd_key_reason)a),
						pd_key_reason_name((enum pd_key_reason)b));
	}
}

/* Internet checksum over n bytes, written here from RFC 1071 */
static uint16_t rfc1071(const uint8_t *p, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint64_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * Marking (app/pktdedup/mark.c) at the IP header the key parse found: DSCP set, ECN
 * kept, IPv4 checksum valid again, nothing else changed; the header's offset counted
 * here from the Ethernet header and its tags.
 */
static void test_mark(void **state)
{
	struct frames fr = read_pcap(PD_PCAP_DIR "/keys.pcap");
	struct pd_key_config c;
	unsigned marked = 0;

	(void)state;
	pd_key_config_init(&c, PD_KEY_SRCIP);
	for (size_t i = 0; i < fr.n; i++) {
		uint8_t *copy = malloc(fr.len[i] ? fr.len[i] : 1), *key;
		size_t klen, l3;
		enum pd_key_reason r = extract(&c, fr.p[i], fr.len[i], &key, &klen);
		int rc, version = r == PD_KEY_OK ? key[0] : 0;
		struct pd_key_ip ip;

		(void)pd_key_extract_ip(&c, fr.p[i], fr.len[i], key, PD_KEY_BUF_LEN(fr.len[i]),
					&klen, &ip);
		memcpy(copy, fr.p[i], fr.len[i]);
		rc = pd_mark_dscp(copy, fr.len[i], ip, 46);
		/* marked exactly when the frame has a well-formed IP header */
		assert_int_equal(rc == 0, r == PD_KEY_OK);
		free(key);
		if (rc != 0) {
			assert_memory_equal(copy, fr.p[i], fr.len[i]);
			free(copy);
			continue;
		}
		marked++;
		for (l3 = 12; copy[l3] == 0x81 || copy[l3] == 0x88 || copy[l3] == 0x91; l3 += 4)
			;
		l3 += 2;
		assert_int_equal(ip.offset, l3);
		assert_int_equal(ip.version, version);
		if (version == 4) {
			size_t ihl = (copy[l3] & 15) * 4u;

			assert_int_equal(copy[l3 + 1] >> 2, 46);
			assert_int_equal(copy[l3 + 1] & 3, fr.p[i][l3 + 1] & 3);
			assert_int_equal(rfc1071(copy + l3, ihl), 0);
			for (size_t b = 0; b < fr.len[i]; b++)
				if (b != l3 + 1 && b != l3 + 10 && b != l3 + 11)
					assert_int_equal(copy[b], fr.p[i][b]);
		} else {
			unsigned tc = (unsigned)(copy[l3] & 15) << 4 | copy[l3 + 1] >> 4;
			unsigned tc0 = (unsigned)(fr.p[i][l3] & 15) << 4 | fr.p[i][l3 + 1] >> 4;

			assert_int_equal(tc >> 2, 46);
			assert_int_equal(tc & 3, tc0 & 3);
			assert_int_equal(copy[l3] >> 4, 6);
			assert_int_equal(copy[l3 + 1] & 15, fr.p[i][l3 + 1] & 15);
			assert_memory_equal(copy + l3 + 2, fr.p[i] + l3 + 2, fr.len[i] - l3 - 2);
		}
		free(copy);
	}
	assert_true(marked >= 25);
	assert_int_equal(pd_mark_dscp(fr.p[0], fr.len[0], (struct pd_key_ip){.offset = 14, .version = 4}, 64), -1);
	/* a header that would end past the frame is left alone */
	assert_int_equal(pd_mark_dscp(fr.p[0], 30, (struct pd_key_ip){.offset = 14, .version = 4}, 8), -1);
	assert_int_equal(pd_mark_dscp(fr.p[0], 50, (struct pd_key_ip){.offset = 14, .version = 6}, 8), -1);
	free_frames(&fr);
}

/*
 * Packet keys of IPv4 and IPv6 packets of every length from the shortest to 80 bytes,
 * random bytes after the fields the parse reads, with each set of ignored fields: the
 * fast path's key of each length against the general parse, and against the plain
 * model: the packet's bytes with the ignored fields zeroed.
 */
static void test_packet_every_length(void **state)
{
	const uint32_t ignores[] = {PD_IGNORE_DEFAULT, 0,
				    PD_IGNORE_DEFAULT | PD_IGNORE_DSCP | PD_IGNORE_IPID};
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	unsigned checked = 0;

	(void)state;
	for (unsigned g = 0; g < sizeof(ignores) / sizeof(ignores[0]); g++) {
		struct pd_key_config c;

		pd_key_config_init(&c, PD_KEY_PACKET);
		c.ignore = ignores[g];
		for (unsigned version = 4; version <= 6; version += 2) {
			for (size_t n = version == 4 ? 20 : 40; n <= 80; n++) {
				uint8_t f[14 + 80 + 4], want[80], *key;
				size_t klen, len = 14 + n + (n & 3); /* some Ethernet padding */

				for (size_t b = 0; b < sizeof(f); b++) {
					x = x * 6364136223846793005ULL + 1442695040888963407ULL;
					f[b] = (uint8_t)(x >> 56);
				}
				f[12] = version == 4 ? 0x08 : 0x86;
				f[13] = version == 4 ? 0x00 : 0xdd;
				if (version == 4) {
					f[14] = 0x45;
					f[16] = (uint8_t)(n >> 8);
					f[17] = (uint8_t)n;
					f[20] = f[21] = 0; /* not a fragment */
					f[23] = 17;
				} else {
					f[14] = (uint8_t)(0x60 | (f[14] & 15));
					f[18] = (uint8_t)((n - 40) >> 8);
					f[19] = (uint8_t)(n - 40);
					f[20] = 6; /* TCP */
				}
				memcpy(want, f + 14, n);
				if (version == 4) {
					if (c.ignore & PD_IGNORE_DSCP)
						want[1] = 0;
					if (c.ignore & PD_IGNORE_IPID)
						want[4] = want[5] = 0;
					if (c.ignore & PD_IGNORE_TTL)
						want[8] = 0;
					if (c.ignore & PD_IGNORE_CHECKSUM)
						want[10] = want[11] = 0;
				} else {
					if (c.ignore & PD_IGNORE_DSCP) {
						want[0] &= 0xf0;
						want[1] &= 0x0f;
					}
					if (c.ignore & PD_IGNORE_TTL)
						want[7] = 0;
				}
				assert_int_equal(extract(&c, f, len, &key, &klen), PD_KEY_OK);
				assert_int_equal(klen, n);
				assert_memory_equal(key, want, n);
				free(key);
				checked++;
			}
		}
	}
	assert_int_equal(checked, 3 * (61 + 41));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_mirror_copies),
		cmocka_unit_test(test_every_prefix_and_corruption),
		cmocka_unit_test(test_tunnels),
		cmocka_unit_test(test_cut_tunnel_behind_ext),
		cmocka_unit_test(test_cut_without_length),
		cmocka_unit_test(test_buffer_and_names),
		cmocka_unit_test(test_packet_every_length),
		cmocka_unit_test(test_mark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
