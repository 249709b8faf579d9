/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the packet parser (pd_key_extract). The first input byte picks
 * the key options, the second the link type (its low 2 bits; raw IP with bit 7 is BSD
 * loopback) and the tunnels opened (bit 2: all but those of bits 3-7), the rest is the
 * frame. libFuzzer hands over a heap buffer of exactly
 * the input's size and the key buffer is exactly PD_KEY_BUF_LEN(len) bytes, so ASan
 * reports any read or write one byte out. Flow and packet keys are also extracted by the
 * general parse alone (pd_key_extract_general), which must give the same reason and key
 * as the fast paths for common frames, and the same IP header for a mark. And the frame's
 * first bytes (as many as the first two input bytes pick), as a capture cut at a snap
 * length gives them (pd_key_extract_cut): a key, when they have one, must be the whole
 * frame's, by the fast paths and the general parse alike. Built and run by
 * scripts/fuzz.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pktdedup/pd_key.h>

#include "key_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_key_config c;
	uint8_t sel, *key;
	size_t len, klen = 0, cap;
	enum pd_key_reason r;
	struct pd_key_ip ip;

	if (size < 2)
		return 0;
	sel = data[0];
	pd_key_config_init(&c, (enum pd_key_mode)(sel % PD_KEY_MODE_COUNT));
	c.ignore = (sel >> 2) & 15;
	/* the later options ride on the same bits: every combination still comes up */
	if (c.ignore & 8)
		c.ignore |= PD_IGNORE_TCP_SEQ | PD_IGNORE_MAC;
	if (c.ignore & 4)
		c.ignore |= PD_IGNORE_VLAN;
	c.from = (sel & 0x40) ? PD_FROM_L2 : PD_FROM_L3;
	c.frag = (sel & 0x80) ? PD_FRAG_L3 : PD_FRAG_UNPARSEABLE;
	if (c.mode == PD_KEY_PACKET && (sel & 0x80)) {
		c.from = (sel & 0x40) ? PD_FROM_L4 : c.from;
		c.compare_bytes = (sel & 0x10) ? 1u + sel % 61u : 0;
	}
	c.vlan = (sel & 0x22) == 0x22 ? PD_VLAN_SEPARATE : (sel & 0x20) ? PD_VLAN_IGNORE :
								     PD_VLAN_DEFAULT;
	if (c.mode == PD_KEY_CLICK && (sel & 0x40))
		memcpy(c.click_param, "id", 3);
	c.link = (enum pd_key_link)(data[1] & 3);
	if (c.link == PD_LINK_RAW && (data[1] & 0x80))
		c.link = PD_LINK_NULL;
	if (data[1] & 4)
		c.decap = PD_DECAP_ALL & ~(uint32_t)(data[1] >> 3);
	len = size - 2;
	cap = PD_KEY_BUF_LEN(len);
	key = malloc(cap);
	if (key == NULL)
		return 0;
	r = pd_key_extract_ip(&c, data + 2, len, key, cap, &klen, &ip);
	if ((unsigned)r >= PD_KEY_REASON_COUNT)
		abort();
	/* where the IP header is: inside the frame, and its version nibble says so */
	if (ip.version != 0 && (ip.offset + 20 > len || data[2 + ip.offset] >> 4 != ip.version))
		abort();
	/* the tunnels opened: only those asked for, and the list says the same */
	{
		unsigned kinds = 0;

		for (uint16_t w = ip.walk; w != 0; w >>= 4)
			kinds |= 1u << ((w & 0xf) - 1);
		if ((ip.encaps & ~c.decap) != 0 || kinds != ip.encaps)
			abort();
	}
	if (r == PD_KEY_OK) {
		if (klen > cap)
			abort();
		/* touch every key byte: uninitialised or out-of-range lengths show up */
		volatile uint8_t sink = 0;

		for (size_t i = 0; i < klen; i++)
			sink ^= key[i];
		(void)sink;
	}
	if (c.mode == PD_KEY_FLOW || c.mode == PD_KEY_PACKET) {
		uint8_t *g = malloc(cap);
		size_t glen = 0;
		struct pd_key_ip gip;

		if (g == NULL) {
			free(key);
			return 0;
		}
		if (pd_key_extract_general_ip(&c, data + 2, len, g, cap, &glen, &gip) != r ||
		    (r == PD_KEY_OK && (glen != klen || memcmp(g, key, klen) != 0)) ||
		    gip.version != ip.version || (ip.version != 0 && gip.offset != ip.offset) ||
		    gip.walk != ip.walk || gip.encaps != ip.encaps)
			abort(); /* the fast path and the general parse disagree */
		free(g);
	}
	if (len > 0) {
		/* exactly the bytes kept, so that ASan sees a read past them */
		const size_t kept = (size_t)(data[0] ^ data[1]) % len;
		uint8_t *cut = malloc(kept ? kept : 1), *ck = malloc(PD_KEY_BUF_LEN(kept));
		uint8_t *gk = malloc(PD_KEY_BUF_LEN(kept));
		size_t cklen = 0, gklen = 0;
		enum pd_key_reason cr, gr;
		struct pd_key_ip cip;

		if (cut == NULL || ck == NULL || gk == NULL)
			abort();
		memcpy(cut, data + 2, kept);
		cr = pd_key_extract_cut(&c, cut, kept, len, ck, PD_KEY_BUF_LEN(kept), &cklen, &cip);
		gr = pd_key_extract_general_cut(&c, cut, kept, len, gk, PD_KEY_BUF_LEN(kept),
						&gklen, &cip);
		if (cr != gr || (cr == PD_KEY_OK && (gklen != cklen || memcmp(gk, ck, cklen) != 0)))
			abort(); /* the fast path and the general parse disagree */
		if (cr == PD_KEY_OK && (r != PD_KEY_OK || cklen != klen || memcmp(ck, key, klen) != 0))
			abort(); /* a cut frame's key that is not its whole packet's */
		free(cut);
		free(ck);
		free(gk);
	}
	free(key);
	return 0;
}
