/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Snapshots. The oracle is the uninterrupted run: a filter saved after the first half of
 * a stream and loaded into a new filter must give exactly the verdicts (and counters)
 * the original gives on the second half. Files: round trip, mode 0600, and every kind
 * of damage (missing, truncated, flipped bytes, other version, other parameters, other
 * seed) refused with the right code, leaving the filter empty.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <pktdedup/pd_snapshot.h>

#include "testutil.h"

#define N 20000

struct variant {
	enum pd_filter_type type;
	uint64_t window;
	enum pd_window_mode mode;
};

static struct pd_filter_params params_of(const struct variant *v, uint64_t seed)
{
	struct pd_filter_params p = {.type = v->type, .memory_bytes = 4096, .seed = seed,
				     .target_fpr = 0.05, .window = v->window,
				     .window_mode = v->mode};

	if (v->type == PD_FILTER_TIMERBF && p.window == 0)
		p.window = 3000;
	return p;
}

static unsigned variants(struct variant *v)
{
	unsigned n = 0;

	for (unsigned t = 0; t < PD_FILTER_COUNT; t++)
		v[n++] = (struct variant){(enum pd_filter_type)t, 0, PD_WINDOW_SEEN};
	v[n++] = (struct variant){PD_FILTER_EXACT, 700, PD_WINDOW_SEEN};
	v[n++] = (struct variant){PD_FILTER_EXACT, 700, PD_WINDOW_DELIVERED};
	v[n++] = (struct variant){PD_FILTER_QQHTD, 700, PD_WINDOW_SEEN};
	v[n++] = (struct variant){PD_FILTER_QQHTD, 700, PD_WINDOW_DELIVERED};
	v[n++] = (struct variant){PD_FILTER_TIMERBF, 3000, PD_WINDOW_DELIVERED};
	v[n++] = (struct variant){PD_FILTER_QHTLRU, 700, PD_WINDOW_SEEN};
	v[n++] = (struct variant){PD_FILTER_QHTLRU, 700, PD_WINDOW_DELIVERED};
	return n;
}

static void *image_of(struct pd_filter *f, uint64_t *len)
{
	struct pd_error err;
	uint64_t size = pd_filter_state_size(f);
	void *buf = malloc(size);

	assert_non_null(buf);
	if (pd_filter_save_state(f, buf, size, len, &err) != 0)
		fail_msg("save: %s", err.msg);
	assert_int_equal(*len, size);
	return buf;
}

static void assert_same_stats(struct pd_filter *a, struct pd_filter *b)
{
	struct pd_filter_stats sa, sb;

	pd_filter_stats(a, &sa);
	pd_filter_stats(b, &sb);
	assert_int_equal(sa.keys, sb.keys);
	assert_int_equal(sa.duplicates, sb.duplicates);
	assert_true(sa.state == sb.state);
}

/* Every filter: save after half, load into a new filter, second half == uninterrupted. */
static void test_roundtrip(void **state)
{
	struct variant v[PD_FILTER_COUNT + 7];
	unsigned nv = variants(v);
	uint64_t *k = tu_keys(N, 6000, 3);
	uint8_t *a = malloc(N), *b = malloc(N);

	(void)state;
	for (unsigned i = 0; i < nv; i++) {
		struct pd_filter_params p = params_of(&v[i], 77);
		struct pd_filter *whole = tu_create(p), *first = tu_create(p), *second = tu_create(p);
		struct pd_error err;
		uint64_t len, done = 0, slen = 0;
		void *img, *step;
		int r;

		pd_filter_burst_u64(whole, k, NULL, a, N);
		pd_filter_burst_u64(first, k, NULL, b, N / 2);
		assert_memory_equal(a, b, N / 2);
		img = image_of(first, &len);
		/* the stepwise image of an idle filter is the same bytes */
		step = malloc(len);
		assert_non_null(step);
		while ((r = pd_filter_save_state_step(first, step, len, &done, 64, &err)) == 0)
			slen++;
		assert_int_equal(r, 1);
		assert_int_equal(done, len);
		assert_memory_equal(img, step, len);
		if (v[i].type != PD_FILTER_LRU && v[i].type != PD_FILTER_FPBUFFERING &&
		    v[i].type != PD_FILTER_EXACT)
			assert_true(slen > 4); /* fixed layouts go in steps */
		/* a step of any size, UINT64_MAX too, takes the rest in one */
		done = 0;
		memset(step, 0xa5, len);
		assert_int_equal(pd_filter_save_state_step(first, step, len, &done, UINT64_MAX,
							   &err), 1);
		assert_memory_equal(img, step, len);

		if (pd_filter_load_state(second, img, len, &err) != 0)
			fail_msg("%s: load: %s", pd_filter_type_name(v[i].type), err.msg);
		pd_filter_burst_u64(second, k + N / 2, NULL, b + N / 2, N - N / 2);
		if (memcmp(a + N / 2, b + N / 2, N - N / 2) != 0)
			fail_msg("%s (window %llu): verdicts after load differ",
				 pd_filter_type_name(v[i].type), (unsigned long long)v[i].window);
		assert_same_stats(whole, second);
		free(img);
		free(step);
		pd_filter_destroy(whole);
		pd_filter_destroy(first);
		pd_filter_destroy(second);
	}
	free(k);
	free(a);
	free(b);
}

/*
 * An image taken in steps while the filter keeps working is a valid state. Bloom never
 * clears a bit, so every key seen before the copy began is still found after loading.
 */
static void test_steps_while_running(void **state)
{
	struct variant v = {PD_FILTER_BLOOM, 0, PD_WINDOW_SEEN};
	struct pd_filter_params p = params_of(&v, 5);
	struct pd_filter *f, *g;
	uint64_t *k = tu_keys(N, 0, 9);
	uint8_t *verdict = malloc(N);
	struct pd_error err;
	uint64_t size, done = 0, at = 300;
	void *img;
	int r;

	(void)state;
	p.memory_bytes = 1 << 16;
	f = tu_create(p);
	g = tu_create(p);
	pd_filter_burst_u64(f, k, NULL, verdict, at);
	size = pd_filter_state_size(f);
	img = malloc(size);
	assert_non_null(img);
	while ((r = pd_filter_save_state_step(f, img, size, &done, 256, &err)) == 0) {
		pd_filter_burst_u64(f, k + at, NULL, verdict + at, 10); /* keeps working */
		at += 10;
	}
	assert_int_equal(r, 1);
	assert_true(at > 300);
	if (pd_filter_load_state(g, img, done, &err) != 0)
		fail_msg("load: %s", err.msg);
	pd_filter_burst_u64(g, k, NULL, verdict, 300);
	for (int i = 0; i < 300; i++)
		assert_int_equal(verdict[i], PD_DUPLICATE);
	free(img);
	free(k);
	free(verdict);
	pd_filter_destroy(f);
	pd_filter_destroy(g);
}

static char dir[] = "/tmp/pd_test_snapshot.XXXXXX";

static void path_in(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *d;
	long sz;

	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	sz = ftell(fp);
	rewind(fp);
	d = malloc((size_t)sz + 1);
	assert_non_null(d);
	assert_int_equal(fread(d, 1, (size_t)sz, fp), (size_t)sz);
	fclose(fp);
	*len = (size_t)sz;
	return d;
}

/* Three qqhtd filters with one history each, saved to a file. */
static void make_three(struct pd_filter **f, struct pd_filter_params *p, const uint64_t *k)
{
	uint8_t v[N];

	*p = (struct pd_filter_params){.type = PD_FILTER_QQHTD, .memory_bytes = 4096,
				       .seed = 1234567, .qht_b = 8, .qht_f = 12};
	for (int i = 0; i < 3; i++) {
		f[i] = tu_create(*p);
		pd_filter_burst_u64(f[i], k + i * 1000, NULL, v, 1000);
	}
}

static void test_file_roundtrip(void **state)
{
	struct pd_filter *f[3], *g[3];
	struct pd_filter_params p, q;
	uint64_t *k = tu_keys(N, 0, 11);
	char path[256];
	struct stat st;
	struct pd_error err;
	struct pd_snapshot *s;
	uint8_t va[500], vb[500];

	(void)state;
	path_in(path, sizeof(path), "three.snap");
	make_three(f, &p, k);
	if (pd_snapshot_save(path, "key flow; dispatch software", f, 3, &err) != 0)
		fail_msg("save: %s", err.msg);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	s = pd_snapshot_read(path, &err);
	if (s == NULL)
		fail_msg("read: %s", err.msg);
	assert_string_equal(pd_snapshot_tag(s), "key flow; dispatch software");
	assert_int_equal(pd_snapshot_count(s), 3);
	assert_int_equal(pd_snapshot_params(s, 2, &q, &err), 0);
	assert_int_equal(q.type, PD_FILTER_QQHTD);
	assert_int_equal(q.seed, p.seed);
	assert_int_equal(pd_snapshot_params(s, 3, &q, &err), -1);
	for (int i = 0; i < 3; i++) {
		g[i] = tu_create(p);
		if (pd_snapshot_load(s, (unsigned)i, g[i], &err) != 0)
			fail_msg("load %d: %s", i, err.msg);
		/* worker i's history: the keys of i come back, as they do in f[i] */
		pd_filter_burst_u64(f[i], k + i * 1000 + 500, NULL, va, 500);
		pd_filter_burst_u64(g[i], k + i * 1000 + 500, NULL, vb, 500);
		assert_memory_equal(va, vb, 500);
		assert_same_stats(f[i], g[i]);
	}
	pd_snapshot_free(s);
	/* a second save replaces the file */
	if (pd_snapshot_save(path, "second", g, 1, &err) != 0)
		fail_msg("save: %s", err.msg);
	s = pd_snapshot_read(path, &err);
	assert_non_null(s);
	assert_string_equal(pd_snapshot_tag(s), "second");
	assert_int_equal(pd_snapshot_count(s), 1);
	pd_snapshot_free(s);
	for (int i = 0; i < 3; i++) {
		pd_filter_destroy(f[i]);
		pd_filter_destroy(g[i]);
	}
	free(k);
}

/* Images of the caller's after the filters' (pktdedup's estimate states): read back as
 * bytes, never taken for filter states; a filter state after them, or one of them
 * first, is a structure error. */
static void test_caller_images(void **state)
{
	struct pd_filter *f[3], *g;
	struct pd_filter_params p, q;
	uint64_t *k = tu_keys(N, 0, 14), flen;
	char path[256];
	struct pd_error err;
	struct pd_snapshot *s;
	void *fimg;
	const void *img[3], *d;
	uint64_t len[3], dlen;
	static const char extra[] = "PDESTIM1 and what the caller keeps";

	(void)state;
	path_in(path, sizeof(path), "extra.snap");
	make_three(f, &p, k);
	flen = pd_filter_state_size(f[0]);
	fimg = malloc(flen);
	assert_non_null(fimg);
	assert_int_equal(pd_filter_save_state(f[0], fimg, flen, &flen, &err), 0);
	img[0] = fimg, len[0] = flen;
	img[1] = extra, len[1] = sizeof(extra);
	img[2] = extra, len[2] = 3; /* shorter than any magic */
	assert_int_equal(pd_snapshot_write(path, "t", img, len, 3, &err), 0);
	s = pd_snapshot_read(path, &err);
	if (s == NULL)
		fail_msg("read: %s", err.msg);
	assert_int_equal(pd_snapshot_count(s), 3);
	assert_int_equal(pd_snapshot_image(s, 1, &d, &dlen), 0);
	assert_int_equal(dlen, sizeof(extra));
	assert_memory_equal(d, extra, dlen);
	assert_int_equal(pd_snapshot_image(s, 3, &d, &dlen), -1);
	assert_int_equal(pd_snapshot_params(s, 0, &q, &err), 0);
	assert_int_equal(pd_snapshot_params(s, 1, &q, &err), -1);
	g = tu_create(p);
	assert_int_equal(pd_snapshot_load(s, 1, g, &err), -1);
	assert_int_equal(pd_snapshot_load(s, 0, g, &err), 0);
	pd_filter_destroy(g);
	pd_snapshot_free(s);
	/* a filter state after a caller's image; a caller's image first */
	img[0] = extra, len[0] = sizeof(extra);
	img[1] = fimg, len[1] = flen;
	assert_int_equal(pd_snapshot_write(path, "t", img, len, 2, &err), 0);
	assert_null(pd_snapshot_read(path, &err));
	assert_int_equal(err.code, PD_ECORRUPT);
	img[0] = fimg, len[0] = flen;
	img[1] = extra, len[1] = sizeof(extra);
	img[2] = fimg, len[2] = flen;
	assert_int_equal(pd_snapshot_write(path, "t", img, len, 3, &err), 0);
	assert_null(pd_snapshot_read(path, &err));
	assert_int_equal(err.code, PD_ECORRUPT);
	for (int i = 0; i < 3; i++)
		pd_filter_destroy(f[i]);
	free(fimg);
	free(k);
}

/* A refused load leaves an empty filter: the same verdicts as a new one. */
static void assert_empty(struct pd_filter *f, const struct pd_filter_params *p,
			 const uint64_t *k)
{
	struct pd_filter *fresh = tu_create(*p);
	uint8_t a[1000], b[1000];

	pd_filter_burst_u64(f, k, NULL, a, 1000);
	pd_filter_burst_u64(fresh, k, NULL, b, 1000);
	assert_memory_equal(a, b, 1000);
	pd_filter_destroy(fresh);
}

/* The resolved parameters a filter's state depends on (pd_filter.h's fields, less the
 * planner's inputs target_fpr and expected_n, which act through the others). */
static int same_state_params(const struct pd_filter_params *a, const struct pd_filter_params *b)
{
	return a->memory_bytes == b->memory_bytes && a->seed == b->seed && a->k == b->k &&
	       a->sbf_max == b->sbf_max && a->sbf_p == b->sbf_p &&
	       a->rsbf_pstar == b->rsbf_pstar && a->qht_b == b->qht_b && a->qht_f == b->qht_f &&
	       a->fpbuf_q == b->fpbuf_q && a->window == b->window &&
	       a->equal_timers == b->equal_timers && a->window_mode == b->window_mode;
}

/*
 * Every parameter of every family, through the library: an image loads into a filter
 * made with other parameters only when the resolved parameters its state depends on
 * are the same; otherwise it is refused (PD_EMISMATCH) and the filter stays empty. Each
 * variant changes one parameter (given explicitly, so the planner keeps it) from a
 * filter with every tunable of its family given.
 */
static void test_other_parameters(void **state)
{
	uint64_t *k = tu_keys(2000, 500, 21);
	unsigned tried[PD_FILTER_COUNT] = {0};

	(void)state;
	for (unsigned t = 0; t < PD_FILTER_COUNT; t++) {
		struct pd_filter_params base = {.type = (enum pd_filter_type)t,
						.memory_bytes = 8192, .seed = 5, .target_fpr = 0.05};
		struct pd_filter *a;
		uint64_t len;
		void *img;

		switch (base.type) {
		case PD_FILTER_SBF:
			base.k = 3, base.sbf_max = 3, base.sbf_p = 2, base.expected_n = 500;
			break;
		case PD_FILTER_RSBF:
			base.k = 3, base.rsbf_pstar = 0.03;
			break;
		case PD_FILTER_BSBF: case PD_FILTER_BSBFSD: case PD_FILTER_RLBSBF:
			base.k = 3;
			break;
		case PD_FILTER_QHT: case PD_FILTER_QHTD: case PD_FILTER_QQHTD:
		case PD_FILTER_QHTLRU:
			base.qht_b = 4, base.qht_f = 16, base.expected_n = 500;
			break;
		case PD_FILTER_BLOOM:
			base.k = 3, base.expected_n = 500;
			break;
		case PD_FILTER_FPBUFFERING:
			base.fpbuf_q = 0.01;
			break;
		case PD_FILTER_TIMERBF:
			base.k = 4, base.window = 3000, base.equal_timers = 2, base.expected_n = 500;
			break;
		case PD_FILTER_EXACT:
			base.window = 3000;
			break;
		default:
			break;
		}
		a = tu_create(base);
		pd_filter_burst_u64(a, k, NULL, (uint8_t[2000]){0}, 2000);
		img = image_of(a, &len);
		for (unsigned v = 0; v < 13; v++) {
			struct pd_filter_params q = base;
			struct pd_filter *b;
			struct pd_error err;
			int rc, same;

			switch (v) {
			case 0: q.memory_bytes *= 2; break;
			case 1: q.seed++; break;
			case 2: q.k = q.k ? q.k + 1 : 0; break;
			case 3: q.sbf_max = q.sbf_max ? 7 : 0; break;
			case 4: q.sbf_p = q.sbf_p ? q.sbf_p + 1 : 0; break;
			case 5: q.rsbf_pstar = q.rsbf_pstar != 0 ? 0.05 : 0; break;
			case 6: q.qht_b = q.qht_b ? 8 : 0; break;
			case 7: q.qht_f = q.qht_f ? 8 : 0; break;
			case 8: q.fpbuf_q = q.fpbuf_q != 0 ? 0.02 : 0; break;
			case 9: q.window = q.window ? 6000 : 0; break;
			case 10: q.window_mode = q.window ? PD_WINDOW_DELIVERED : PD_WINDOW_SEEN; break;
			case 11: q.equal_timers = q.equal_timers ? 3 : 0; break;
			case 12: q.expected_n = q.expected_n ? 5000 : 0; break;
			}
			if (memcmp(&q, &base, sizeof(q)) == 0)
				continue; /* not a parameter of this family */
			b = pd_filter_create(&q, &err);
			if (b == NULL)
				fail_msg("%s variant %u: %s", pd_filter_type_name(base.type), v, err.msg);
			same = same_state_params(pd_filter_params(a), pd_filter_params(b));
			rc = pd_filter_load_state(b, img, len, &err);
			if (same ? rc != 0 : rc != -1 || err.code != PD_EMISMATCH)
				fail_msg("%s variant %u: load gave %d (%s) with %s parameters",
					 pd_filter_type_name(base.type), v, rc, rc ? err.msg : "",
					 same ? "the same resolved" : "other");
			if (!same)
				assert_empty(b, &q, k);
			tried[t] += !same;
			pd_filter_destroy(b);
		}
		/* memory and seed, and one more at least for a family with tunables */
		assert_true(tried[t] >= (base.type == PD_FILTER_LRU ? 2u : 3u));
		pd_filter_destroy(a);
		free(img);
	}
	free(k);
}

/* Write d back with a correct checksum (what a forger, or a fuzzer, could do). */
static void fix_checksum(uint8_t *d, size_t len)
{
	uint64_t h = XXH3_64bits(d, len - 8);

	memcpy(d + len - 8, &h, 8);
}

static void test_damage(void **state)
{
	struct pd_filter *f[3], *t;
	struct pd_filter_params p, other;
	uint64_t *k = tu_keys(N, 0, 13);
	char path[256], bad[256];
	struct pd_error err;
	struct pd_snapshot *s;
	uint8_t *d, *c;
	size_t len;
	FILE *fp;

	(void)state;
	path_in(path, sizeof(path), "damage.snap");
	path_in(bad, sizeof(bad), "bad.snap");
	make_three(f, &p, k);
	assert_int_equal(pd_snapshot_save(path, "tag", f, 3, &err), 0);
	d = slurp(path, &len);
	c = malloc(len);
	assert_non_null(c);

	/* missing */
	assert_null(pd_snapshot_read(bad, &err));
	assert_int_equal(err.code, PD_ENOENT);
	/* not a snapshot: a pcap header, an empty file */
	assert_null(pd_snapshot_parse("\xd4\xc3\xb2\xa1\x02\x00\x04\x00", 8, &err));
	assert_int_equal(err.code, PD_ECORRUPT);
	assert_non_null(strstr(err.msg, "not a pktdedup snapshot"));
	assert_null(pd_snapshot_parse("", 0, &err));
	assert_int_equal(err.code, PD_ECORRUPT);
	/* truncated anywhere */
	for (size_t cut = 8; cut < len; cut += 1 + cut / 7) {
		assert_null(pd_snapshot_parse(d, cut, &err));
		assert_int_equal(err.code, PD_ECORRUPT);
		if (cut >= 28)
			assert_non_null(strstr(err.msg, "truncated"));
	}
	/* one flipped bit anywhere: refused (checksum, or the header fields before it) */
	for (size_t at = 0; at < len; at += 1 + at / 5) {
		memcpy(c, d, len);
		c[at] ^= (uint8_t)(1u << (at % 8));
		assert_null(pd_snapshot_parse(c, len, &err));
		assert_true(err.code == PD_ECORRUPT || err.code == PD_EVERSION);
	}
	/* another version, even with a good checksum */
	memcpy(c, d, len);
	c[8] = 2;
	fix_checksum(c, len);
	assert_null(pd_snapshot_parse(c, len, &err));
	assert_int_equal(err.code, PD_EVERSION);
	assert_non_null(strstr(err.msg, "version 2"));
	/* trailing garbage */
	{
		uint8_t *longer = calloc(1, len + 3);

		memcpy(longer, d, len);
		assert_null(pd_snapshot_parse(longer, len + 3, &err));
		assert_int_equal(err.code, PD_ECORRUPT);
		free(longer);
	}

	s = pd_snapshot_parse(d, len, &err);
	assert_non_null(s);
	/* other parameters: named; the filter is left empty */
	other = p;
	other.qht_b = 4;
	t = tu_create(other);
	pd_filter_burst_u64(t, k, NULL, c, 100);
	assert_int_equal(pd_snapshot_load(s, 0, t, &err), -1);
	assert_int_equal(err.code, PD_EMISMATCH);
	assert_non_null(strstr(err.msg, "b = 8, this filter has 4"));
	assert_empty(t, &other, k);
	pd_filter_destroy(t);
	/* another seed: said, never printed */
	other = p;
	other.seed = 7654321;
	t = tu_create(other);
	assert_int_equal(pd_snapshot_load(s, 1, t, &err), -1);
	assert_int_equal(err.code, PD_EMISMATCH);
	assert_non_null(strstr(err.msg, "hash seed"));
	assert_null(strstr(err.msg, "1234567"));
	assert_null(strstr(err.msg, "7654321"));
	pd_filter_destroy(t);
	/* another filter type */
	other = (struct pd_filter_params){.type = PD_FILTER_SBF, .memory_bytes = 4096,
					  .seed = p.seed};
	t = tu_create(other);
	assert_int_equal(pd_snapshot_load(s, 2, t, &err), -1);
	assert_int_equal(err.code, PD_EMISMATCH);
	assert_non_null(strstr(err.msg, "made with filter qqhtd"));
	pd_filter_destroy(t);
	pd_snapshot_free(s);

	/* a forged image body (checksum fixed): refused or loaded, never a crash; here the
	 * body length no longer matches the tables */
	memcpy(c, d, len);
	{
		size_t img0 = 28 + 3 + 4 + 8; /* tag "tag" */
		uint64_t body;

		memcpy(&body, c + img0 + 184, 8);
		body += 64;
		memcpy(c + img0 + 184, &body, 8);
	}
	fix_checksum(c, len);
	s = pd_snapshot_parse(c, len, &err);
	assert_non_null(s);
	t = tu_create(p);
	assert_int_equal(pd_snapshot_load(s, 0, t, &err), -1);
	assert_int_equal(err.code, PD_ECORRUPT);
	assert_empty(t, &p, k);
	pd_filter_destroy(t);
	pd_snapshot_free(s);

	/* a write that fails (its temporary file cannot be made) keeps the old snapshot */
	{
		char tmpdir[300];

		snprintf(tmpdir, sizeof(tmpdir), "%s.tmp.%ld", path, (long)getpid());
		assert_int_equal(mkdir(tmpdir, 0700), 0);
		assert_int_equal(pd_snapshot_save(path, "new", f, 1, &err), -1);
		assert_int_equal(err.code, PD_EIO);
		assert_int_equal(rmdir(tmpdir), 0);
		s = pd_snapshot_read(path, &err);
		assert_non_null(s);
		assert_string_equal(pd_snapshot_tag(s), "tag");
		pd_snapshot_free(s);
	}
	/* the file on disk, truncated: "truncated" through the reader too */
	fp = fopen(bad, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(d, 1, len / 2, fp), len / 2);
	fclose(fp);
	assert_null(pd_snapshot_read(bad, &err));
	assert_int_equal(err.code, PD_ECORRUPT);
	assert_non_null(strstr(err.msg, "truncated"));
	unlink(bad);

	for (int i = 0; i < 3; i++)
		pd_filter_destroy(f[i]);
	free(d);
	free(c);
	free(k);
}

/* exact and lru images: crafted contents are checked, not trusted. */
/*
 * The filter number at byte 12 of an image is part of the file format: snapshots made
 * by earlier builds name their filter by it. Pinned by name, independently of the enum.
 */
static void test_filter_numbers(void **state)
{
	static const char *const by_number[] = {
		"sbf", "rsbf", "bsbf", "bsbfsd", "rlbsbf", "qht", "qhtd", "qqhtd", "bloom", "lru",
		"fpbuffering", "timerbf", "exact", "qhtlru",
	};
	const unsigned n = sizeof(by_number) / sizeof(by_number[0]);

	(void)state;
	assert_int_equal(n, PD_FILTER_COUNT);
	for (unsigned i = 0; i < n; i++) {
		struct variant v = {0};
		struct pd_filter_params p;
		struct pd_error err;
		struct pd_filter *f;
		uint64_t len;
		uint8_t *img;
		uint32_t num;

		assert_int_equal(pd_filter_type_parse(by_number[i], &v.type), 0);
		p = params_of(&v, 1);
		f = pd_filter_create(&p, &err);
		if (f == NULL)
			fail_msg("%s: %s", by_number[i], err.msg);
		img = image_of(f, &len);
		memcpy(&num, img + 12, 4);
		if (num != i)
			fail_msg("%s: image names filter %u, the format says %u", by_number[i],
				 num, i);
		free(img);
		pd_filter_destroy(f);
	}
}

static void test_variable_images(void **state)
{
	struct pd_filter_params pe = {.type = PD_FILTER_EXACT, .seed = 1};
	struct pd_filter_params pl = {.type = PD_FILTER_LRU, .memory_bytes = 4096, .seed = 1};
	struct pd_filter *e = tu_create(pe), *l = tu_create(pl), *t;
	uint64_t *k = tu_keys(N, 0, 17);
	uint8_t v[64];
	uint64_t len;
	uint8_t *img;
	struct pd_error err;

	(void)state;
	pd_filter_burst_u64(e, k, NULL, v, 2);
	img = image_of(e, &len);
	assert_int_equal(len, 256 + 24 + 2 * 16);
	memcpy(img + 256 + 24 + 16, img + 256 + 24, 8); /* the second key = the first */
	t = tu_create(pe);
	assert_int_equal(pd_filter_load_state(t, img, len, &err), -1);
	assert_int_equal(err.code, PD_ECORRUPT);
	assert_non_null(strstr(err.msg, "repeats"));
	assert_int_equal(pd_filter_load_state(t, img, len - 16, &err), -1); /* count says 2 */
	assert_int_equal(err.code, PD_ECORRUPT);
	pd_filter_destroy(t);
	free(img);

	pd_filter_burst_u64(l, k, NULL, v, 10);
	img = image_of(l, &len);
	{
		uint64_t n = 1ULL << 40; /* more keys than the buffer holds */

		memcpy(img + 256, &n, 8);
	}
	t = tu_create(pl);
	assert_int_equal(pd_filter_load_state(t, img, len, &err), -1);
	assert_int_equal(err.code, PD_ECORRUPT);
	pd_filter_destroy(t);
	free(img);
	pd_filter_destroy(e);
	pd_filter_destroy(l);
	free(k);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_steps_while_running),
		cmocka_unit_test(test_file_roundtrip),
		cmocka_unit_test(test_caller_images),
		cmocka_unit_test(test_other_parameters),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_variable_images),
		cmocka_unit_test(test_filter_numbers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
