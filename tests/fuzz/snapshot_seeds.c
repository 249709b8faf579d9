/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Seed corpus for fuzz_snapshot: one small snapshot per filter (and a windowed exact),
 * each after a stream with duplicates, prefixed with the harness's flag byte (1: fix the
 * checksum). Usage: snapshot_seeds DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pktdedup/pd_snapshot.h>

static int seed_file(const char *dir, const char *name, struct pd_filter *f)
{
	char path[512], tmp[600];
	struct pd_error err;
	FILE *in, *out;
	int c;

	snprintf(path, sizeof(path), "%s/%s.snap", dir, name);
	if (pd_snapshot_save(path, "seed", &f, 1, &err) != 0) {
		fprintf(stderr, "snapshot_seeds: %s\n", err.msg);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s/seed-%s", dir, name);
	in = fopen(path, "rb");
	out = fopen(tmp, "wb");
	if (in == NULL || out == NULL)
		return -1;
	fputc(1, out);
	while ((c = fgetc(in)) != EOF)
		fputc(c, out);
	fclose(in);
	fclose(out);
	return remove(path);
}

int main(int argc, char **argv)
{
	uint64_t keys[300];
	uint8_t v[300];

	if (argc != 2) {
		fprintf(stderr, "usage: snapshot_seeds DIR\n");
		return 2;
	}
	for (unsigned i = 0; i < 300; i++)
		keys[i] = i % 170;
	for (unsigned t = 0; t <= PD_FILTER_COUNT; t++) {
		struct pd_filter_params p = {.type = t < PD_FILTER_COUNT ?
						     (enum pd_filter_type)t : PD_FILTER_EXACT,
					     .memory_bytes = 1024, .seed = 99};
		struct pd_error err;
		struct pd_filter *f;
		char name[64];

		if (p.type == PD_FILTER_TIMERBF || t == PD_FILTER_COUNT)
			p.window = 100;
		f = pd_filter_create(&p, &err);
		if (f == NULL) {
			fprintf(stderr, "snapshot_seeds: %s\n", err.msg);
			return 1;
		}
		pd_filter_burst_u64(f, keys, NULL, v, 300);
		snprintf(name, sizeof(name), "%s%s", pd_filter_type_name(p.type),
			 t == PD_FILTER_COUNT ? "-window" : "");
		if (seed_file(argv[1], name, f) != 0)
			return 1;
		pd_filter_destroy(f);
	}
	return 0;
}
