/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpcap's error messages, for messages that name the file themselves: libpcap begins
 * some with "PATH: " (fopen failed) and not others (a short header, a read error).
 */
#ifndef PKTDEDUP_APP_PCAP_MSG_H
#define PKTDEDUP_APP_PCAP_MSG_H

#include <string.h>

/* @p msg without the "PATH: " it may begin with. */
static inline const char *cli_pcap_reason(const char *path, const char *msg)
{
	const size_t n = strlen(path);

	return strncmp(msg, path, n) == 0 && strncmp(msg + n, ": ", 2) == 0 ? msg + n + 2 : msg;
}

#endif
