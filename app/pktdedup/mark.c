/* SPDX-License-Identifier: BSD-3-Clause */
/* --action mark (mark.h). */
#include "mark.h"

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

int pd_mark_dscp(uint8_t *frame, size_t len, struct pd_key_ip ip, unsigned dscp)
{
	uint8_t *h;

	if (dscp > 63 || (size_t)ip.offset + (ip.version == 4 ? 20 : 40) > len)
		return -1;
	h = frame + ip.offset;
	if (ip.version == 4) {
		size_t ihl;
		uint32_t sum = 0;

		if (h[0] >> 4 != 4)
			return -1;
		ihl = (size_t)(h[0] & 15) * 4;
		if (ihl < 20 || (size_t)ip.offset + ihl > len)
			return -1;
		h[1] = (uint8_t)(dscp << 2 | (h[1] & 3));
		h[10] = h[11] = 0;
		for (size_t i = 0; i < ihl; i += 2)
			sum += rd16(h + i);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		sum = ~sum & 0xffff;
		h[10] = (uint8_t)(sum >> 8);
		h[11] = (uint8_t)sum;
		return 0;
	}
	if (ip.version == 6 && h[0] >> 4 == 6) {
		/* version(4) | traffic class(8) | flow label(20): DSCP is bits 4..9 */
		h[0] = (uint8_t)((h[0] & 0xf0) | dscp >> 2);
		h[1] = (uint8_t)(((dscp & 3) << 6) | (h[1] & 0x3f));
		return 0;
	}
	return -1;
}
