/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for replay's capture reader: app/pktdedup/replay_in.c with its
 * formats (replay_in_pcap.c, replay_in_pcapng.c) and gzip (replay_in_gzip.c). That is
 * libpcap's pcap and pcapng parsing, inflated when gzip'd, together with the pcapng block
 * follower that keeps every non-packet block and each packet block's fields for the
 * output, and rewrites interface and simple packet blocks in the bytes libpcap reads
 * (interfaces of several link types and snap lengths). The input is written to a file and read as a replay reads it: every record,
 * with the blocks before it and its options, is touched byte by byte (ASan reports any
 * byte out of bounds), then the blocks after the last record. A damaged input must end
 * in -1 with a reason, never a crash, a hang or a leak. The reader is compiled without
 * DPDK: app_shim.h stands in for the two things it takes from the app (its log macro and
 * the stop flag). Built and run by scripts/fuzz.sh.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "replay_io.h"

_Atomic int pd_force_quit;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void remove_file(void)
{
	unlink(path);
}

static unsigned touch(const uint8_t *p, size_t n)
{
	unsigned sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += p[i];
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rio_in_info info;
	struct rio_frame f;
	const uint8_t *pre;
	size_t npre;
	volatile unsigned sum = 0;
	int fd, rc;

	if (path[0] == '\0') {
		snprintf(path, sizeof(path), "/tmp/fuzz_pcapng.%ld", (long)getpid());
		atexit(remove_file);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size != 0 && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
	if (rio_in_open(path, &info) == 0) {
		for (unsigned n = 0; n < 100000; n++) {
			rc = rio_in_next(&f, &pre, &npre);
			sum += touch(pre, npre);
			if (rc != 1) {
				if (rc < 0 && rio_in_error()[0] == '\0')
					abort(); /* damage always says why */
				break;
			}
			sum += touch(f.data, f.caplen) + touch(f.opts, f.opts_len);
			sum += (unsigned)rio_in_would_wait();
		}
		(void)rio_in_offset();
	}
	rio_in_close();
	(void)sum;
	return 0;
}
